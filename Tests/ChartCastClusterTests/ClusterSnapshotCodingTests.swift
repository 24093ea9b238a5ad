import ChartCastProtocol
import ChartEngine
import XCTest
@testable import ChartCastCluster

/// The stored form of a dashboard snapshot: every value comes back exactly, and bytes that are
/// not a whole snapshot are refused with a reason instead of read as one.
final class ClusterSnapshotCodingTests: XCTestCase {
    private func sample() -> ClusterSnapshot {
        let line = ChartSpec(id: "cpu", title: "CPU", mark: .line, xKind: .time, xLabel: "t", series: ["user", "sys"],
                             interactions: ChartSpec.defaultInteractions(for: .time), window: 100, retentionSeconds: 3600)
        let bars = ChartSpec(id: "days", title: "Days", mark: .bar, xKind: .category, xLabel: "", series: ["n"],
                             categories: ["Mon", "Tue", "Wed"], interactions: ChartSpec.defaultInteractions(for: .category),
                             window: nil, retentionSeconds: 0)
        let hover = Hover(by: "v1-1", x: .number(1_700_000_000_123), fraction: 0.1 + 0.2, placement: .trailing,
                          values: [SeriesValue(series: "user", y: 0.1), SeriesValue(series: "sys", y: nil)])
        let range = RangeSelection(by: "v2-1", from: .number(1), to: .number(2), fromFraction: 0, toFraction: 1, count: 2,
                                   totals: [SeriesTotals(series: "user", count: 2, sum: 3, min: 1, max: 2, mean: 1.5)],
                                   rows: [SeriesPoint(series: "user", x: .number(1), y: 1)], truncated: false)
        let viewport = Viewport(x: 10, y: 20, width: 700.5, height: 300, rtl: true, xDomain: 1...2, yDomain: nil)
        let selection = SharedSelectionState(
            selection: Selection(hovers: [hover], scrub: nil, range: range, pin: nil),
            hovers: [.init(viewer: "v1-1", source: .value(x: 1_700_000_000_123)), .init(viewer: "v3-2", source: .pointer(x: 55.25, viewport: viewport)),
                     .init(viewer: "v4-1", source: .mark(x: 2))],
            drag: .init(owner: "v2-1", keyboard: false, kind: .scrubAt(x: nil, yFraction: 0.75)),
            pinnedX: 1_700_000_000_123, pinnedBy: "v1-1",
            viewers: [.init(viewer: "v1-1", pressIgnored: true, cursorX: nil), .init(viewer: "v4-1", pressIgnored: false, cursorX: 2)])
        return ClusterSnapshot(epoch: "e-1", fresh: false, charts: [
            .init(spec: line, seq: 41, sentX: XAxis(kind: .time, domain: .numeric(1, 2)), sentY: -0.5...(1.0 / 3),
                  xs: [1, 1.5, 2], columns: [[0.1, nil, -0.0], [nil, 2e-300, .greatestFiniteMagnitude]], selection: selection),
            .init(spec: bars, seq: 0, sentX: XAxis(kind: .category, domain: .categories(["Mon", "Tue", "Wed"])), sentY: 0...1,
                  xs: [0, 1, 2], columns: [[1, nil, 3]],
                  selection: SharedSelectionState(selection: .empty, hovers: [], drag: .init(owner: "v1-1", keyboard: true, kind: .range(a: 0, b: 2)),
                                                  pinnedX: nil, pinnedBy: nil, viewers: [])),
        ], viewers: [.init(info: ViewerInfo(id: "v1-1", name: "Ana ✓", color: "#4e79a7"), instance: 1),
                     .init(info: ViewerInfo(id: "v2-1", name: "Viewer 2-1", color: "#f28e2b"), instance: 2)])
    }

    func testEveryPartComesBackExactly() throws {
        let snapshot = sample()
        let bytes = snapshot.encode()
        let back = try ClusterSnapshot.decode(bytes)
        XCTAssertEqual(back, snapshot)
        XCTAssertEqual(back.charts[0].columns[0][2]?.sign, .minus, "-0 stays -0")
        XCTAssertEqual(back.instances, [1, 2])
        let header = try ClusterSnapshot.header(bytes)
        XCTAssertEqual(header.epoch, "e-1")
        XCTAssertFalse(header.fresh)
    }

    func testBytesThatAreNotAWholeSnapshotAreRefused() {
        let bytes = sample().encode()
        for cut in [0, 3, 10, bytes.count / 2, bytes.count - 1] {
            XCTAssertThrowsError(try ClusterSnapshot.decode(Array(bytes.prefix(cut))), "cut at \(cut)") { error in
                XCTAssertTrue(error is ClusterEntryError, "\(error)")
            }
        }
        XCTAssertThrowsError(try ClusterSnapshot.decode(bytes + [0]))
        var other = bytes
        other[3] = UInt8(ascii: "9")   // another version
        XCTAssertThrowsError(try ClusterSnapshot.decode(other)) { XCTAssertTrue("\($0)".contains("another version"), "\($0)") }
        // A count far beyond the bytes left is refused before anything is allocated for it.
        var huge = BinaryWriter()
        for byte in ClusterSnapshot.magic { huge.u8(byte) }
        huge.string("e")
        huge.bool(true)
        huge.int(Int.max)
        XCTAssertThrowsError(try ClusterSnapshot.decode(huge.bytes))
    }

    func testStreamIDsCompareInStreamOrder() {
        XCTAssertTrue(StreamID.precedes("0-0", "1-0"))
        XCTAssertTrue(StreamID.precedes("1700000000000-5", "1700000000000-12"), "numerically, not as text")
        XCTAssertTrue(StreamID.precedes("999-9", "1000-0"))
        XCTAssertFalse(StreamID.precedes("5-5", "5-5"))
    }
}
