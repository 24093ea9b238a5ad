import ChartCastProtocol
import ChartEngine
import XCTest
@testable import ChartCastCluster

/// Every entry kind survives its stream form unchanged (numbers bit for bit), and a damaged
/// entry is refused with a message naming the member.
final class ClusterEntryTests: XCTestCase {
    private let spec = ChartSpec(id: "cpu", title: "CPU", mark: .line, xKind: .linear, xLabel: "t", series: ["user"],
                                 interactions: ChartSpec.defaultInteractions(for: .linear), window: 100, retentionSeconds: 0)

    func testEveryKindRoundTrips() throws {
        let point = DragPoint(hoverX: 0.1 + 0.2, clampedX: 1_733_011_200_000.5, yFraction: 1.0 / 3)
        let entries: [ClusterEntry] = [
            .joined(ViewerInfo(id: "v2-7", name: "Ana \"the\" viewer ✓", color: "#4e79a7"), instance: 2),
            .left(viewer: "v2-7"),
            .renamed(viewer: "v2-7", name: "Bo"),
            .input(chart: "cpu", viewer: "v1-1", .hover(x: 12.5), ref: "r-1"),
            .input(chart: "cpu", viewer: "v1-1", .hover(x: nil), ref: nil),
            .input(chart: "cpu", viewer: "v1-1", .pressBegan(hoverX: -3), ref: nil),
            .input(chart: "cpu", viewer: "v1-1", .pressMoved(hoverX: nil), ref: nil),
            .input(chart: "cpu", viewer: "v1-1", .dragBegan(point, rangeStart: 4e-300), ref: "d"),
            .input(chart: "cpu", viewer: "v1-1", .dragMoved(DragPoint(hoverX: nil, clampedX: nil, yFraction: 0)), ref: nil),
            .input(chart: "cpu", viewer: "v1-1", .dragEnded, ref: nil),
            .input(chart: "cpu", viewer: "v1-1", .tap(x: 7), ref: nil),
            .input(chart: "cpu", viewer: "v1-1", .left, ref: nil),
            .key(chart: "sales", viewer: "v3-1", .right, shift: true, ref: "k"),
            .dragExpired(chart: "cpu", owner: "v1-1", pressed: true),
            .define(spec),
            .remove(chart: "cpu"),
            .points([EntryPoints(chart: "cpu", series: ["user", "sys"],
                                 points: [EntryPoint(series: 1, x: .number(1.5), y: 0.1), EntryPoint(series: 0, x: .text("2024-01-01T00:00:00Z"), y: -2)]),
                     EntryPoints(chart: "mem", creates: ChartSpec.autoCreatedForTest("mem"), series: ["used"],
                                 points: [EntryPoint(series: 0, x: .number(1_733_011_200_123), y: 1e300)])]),
            .feed([.setCategory(chart: "workouts", series: 0, category: 6, y: 76), .upsert(chart: "intake", x: 1.25, values: [nil, 3])]),
            .instanceGone(4),
        ]
        for (i, entry) in entries.enumerated() {
            let envelope = ClusterEnvelope(origin: 3, ticket: i + 1, entry: entry)
            XCTAssertEqual(try ClusterEnvelope.decode(envelope.encode()), envelope, "\(entry)")
        }
    }

    func testDamagedEntriesAreRefusedNamingTheMember() {
        let cases: [(String, String)] = [
            ("not json", "not JSON"),
            (#"{"o":1,"t":1}"#, "k: missing"),
            (#"{"o":1,"t":1,"k":"teleport"}"#, "unknown entry kind"),
            (#"{"o":"one","t":1,"k":"left","viewer":"v"}"#, "o: not a number"),
            (#"{"o":1,"t":1,"k":"input","chart":"c","viewer":"v","g":"wave"}"#, "unknown gesture"),
            (#"{"o":1,"t":1,"k":"points","charts":[{"chart":"c","series":["a"],"s":[1],"x":[1],"y":[2]}]}"#, "series index 0 out of range"),
            (#"{"o":1,"t":1,"k":"points","charts":[{"chart":"c","series":["a"],"s":[0,0],"x":[1],"y":[2]}]}"#, "unequal length"),
            (#"{"o":1,"t":1,"k":"define","spec":{"id":"c"}}"#, "spec:"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try ClusterEnvelope.decode(Array(text.utf8)), text) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(text): \(error)")
            }
        }
    }
}

extension ChartSpec {
    static func autoCreatedForTest(_ id: String) -> ChartSpec {
        ChartSpec(id: id, title: id, mark: .line, xKind: .time, xLabel: "Time", series: [],
                  interactions: ChartSpec.defaultInteractions(for: .time), window: ChartSpec.defaultWindow,
                  retentionSeconds: ChartSpec.defaultRetentionSeconds)
    }
}
