import ChartCastIngest
import ChartCastProtocol
import ChartEngine
import TestSupport
import WebSockets
import XCTest
@testable import ChartCastServer

/// What a viewer can make the server send is bounded, whatever it asks for: snapshots carry at
/// most `maxMessagePoints` points for at most `maxSnapshotColumns` columns (fewer for charts with
/// many series), still pixel-exact M4 for the columns they are made for; writes too large for a
/// message reach viewers as snapshots; history read for a view is bounded the same way.
final class OutboundBoundsTests: XCTestCase {
    private var charts: BigCharts!
    private var harness: CoreHarness { charts.harness }
    private let limits = ProtocolLimits.v1

    override func setUp() {
        charts = BigCharts()
    }

    private func points(_ snapshot: ServerMessage.Snapshot) -> Int { snapshot.series.reduce(0) { $0 + $1.points.count } }

    /// The one snapshot of `chart` in `frames`, with its encoded size.
    private func snapshot(_ frames: [OutboundFrame], chart: String,
                          file: StaticString = #filePath, line: UInt = #line) throws -> (ServerMessage.Snapshot, Int) {
        let decoded = try frames.map { (try ServerMessage.decode($0.bytes), $0.count) }
        let found = decoded.compactMap { message, bytes -> (ServerMessage.Snapshot, Int)? in
            if case .snapshot(let s) = message, s.chart == chart { return (s, bytes) }
            return nil
        }
        XCTAssertEqual(found.count, 1, "one snapshot of \(chart): \(decoded.map(\.0.type))", file: file, line: line)
        return try XCTUnwrap(found.first, file: file, line: line)
    }

    func testAHugeViewportAndAHugeViewOnAMillionRowChartGetCappedColumnsPixelExactAndRawHovers() throws {
        let (xs, ys) = try charts.bigChart("big", rows: 1_000_000, series: ["a", "b", "c", "d"])
        let (viewer, _) = try charts.openViewer()
        let (other, _) = try charts.openViewer()
        let columns = limits.maxSnapshotColumns
        XCTAssertEqual(limits.snapshotColumns(forPlot: 1_000_000, series: 4), 8_192, "4 series: the column cap decides")

        // The largest viewport the protocol takes: 10^6 px, every raw point would be 4,000,000.
        harness.send(charts.viewport("big", width: 1_000_000), from: viewer)
        let (live, liveBytes) = try snapshot(charts.pullFrames(viewer), chart: "big")
        XCTAssertLessThanOrEqual(points(live), limits.maxMessagePoints)
        for series in live.series { XCTAssertLessThanOrEqual(series.points.count, 4 * columns, series.name) }
        XCTAssertGreaterThan(points(live), limits.maxMessagePoints / 2, "downsampled, not starved")
        try charts.assertDrawsTheRawPicture(live, width: columns, xs: xs, ys: ys)
        XCTAssertLessThan(liveBytes, 4 << 20, "\(liveBytes) bytes")

        // A view of (nearly) the whole window at that width: the same bound, on the view's domain.
        let domain = xs[1]...xs[xs.count - 2]
        harness.send(.view(.init(chart: "big", domain: domain)), from: viewer)
        let (view, viewBytes) = try snapshot(charts.pullFrames(viewer), chart: "big")
        XCTAssertEqual(view.view, domain)
        XCTAssertLessThanOrEqual(points(view), limits.maxMessagePoints)
        try charts.assertDrawsTheRawPicture(view, width: columns, xs: xs, ys: ys)
        XCTAssertLessThan(viewBytes, 4 << 20)

        // Wider still changes nothing: no new snapshot for a width past the cap.
        harness.send(charts.viewport("big", width: 9_000), from: viewer)
        XCTAssertEqual(charts.pullFrames(viewer).count, 0, "9,000 px is served as 8,192, as before")
        harness.send(charts.viewport("big", width: 1_000_000), from: viewer)
        XCTAssertEqual(charts.pullFrames(viewer).count, 0)

        // The hover is hit-tested against the huge plot and names the raw row under the pointer.
        harness.send(.view(.init(chart: "big", domain: nil)), from: viewer)
        _ = charts.pullFrames(viewer)
        let store = try XCTUnwrap(harness.core.channelsByID["big"]).store
        let (d0, d1) = store.xDomain
        let pixel = 123_456.5
        let row = try XCTUnwrap(store.nearestIndex(toX: d0 + pixel / 1_000_000 * (d1 - d0)))
        harness.send(.pointer(.init(chart: "big", phase: .move, x: pixel, y: 100)), from: viewer)
        let hover = try XCTUnwrap(harness.core.channelsByID["big"]?.engine.selection.hovers.first)
        XCTAssertEqual(hover.x, .number(xs[row]))
        XCTAssertEqual(hover.values.map(\.y), ys.map { $0[row] }, "raw values of every series")
        XCTAssertEqual(try harness.drain(other).map(\.type), ["selection"])
    }

    func testAChartWithManySeriesIsDownsampledForFewerColumnsWithinThePointBound() throws {
        let names = (0..<32).map { "s\($0)" }
        let (xs, ys) = try charts.bigChart("wide", rows: 60_000, series: names)
        let columns = limits.snapshotColumns(forPlot: 4_000, series: 32)
        XCTAssertEqual(columns, 1_024, "131,072 points / (4 · 32 series)")
        let (viewer, arrival) = try charts.openViewer()
        // Before a viewport: 1,000 px, which 32 series still get in full.
        let first = try XCTUnwrap(charts.snapshots(arrival, chart: "wide").first)
        try charts.assertDrawsTheRawPicture(first, width: 1_000, xs: xs, ys: ys)

        harness.send(charts.viewport("wide", width: 4_000), from: viewer)
        let (snapshot, _) = try snapshot(charts.pullFrames(viewer), chart: "wide")
        XCTAssertLessThanOrEqual(points(snapshot), limits.maxMessagePoints)
        XCTAssertGreaterThan(points(snapshot), points(first), "more than the 1,000 px snapshot: 1,024 columns")
        try charts.assertDrawsTheRawPicture(snapshot, width: columns, xs: xs, ys: ys)
        harness.send(charts.viewport("wide", width: 5_000), from: viewer)
        XCTAssertEqual(charts.pullFrames(viewer).count, 0, "past 1,024 columns nothing changes for 32 series")
    }

    func testAWriteLargerThanAMessageReachesEvenTheWidestPlotAsABoundedSnapshot() throws {
        let (xs, ys) = try charts.bigChart("big", rows: 300_000, series: ["a"])
        let (wide, _) = try charts.openViewer()
        harness.send(charts.viewport("big", width: 1_000_000), from: wide)
        _ = charts.pullFrames(wide)
        let channel = try XCTUnwrap(harness.core.channelsByID["big"])

        // 140,000 new points: within 4 · 8,192 per column of nothing, but over a message's points.
        let moreXs = (1...140_000).map { xs.last! + Double($0) * 1_000 }
        let moreYs = BigCharts.walk(140_000, seed: 5)
        try charts.write("big", series: "a", xs: moreXs, ys: moreYs)
        let (snapshot, bytes) = try snapshot(charts.pullFrames(wide), chart: "big")
        XCTAssertEqual(snapshot.seq, channel.seq)
        XCTAssertLessThanOrEqual(points(snapshot), limits.maxMessagePoints)
        XCTAssertLessThan(bytes, 4 << 20)
        try charts.assertDrawsTheRawPicture(snapshot, width: limits.maxSnapshotColumns, xs: Array((xs + moreXs).suffix(1_000_000)),
                                            ys: [Array((ys[0] + moreYs).suffix(1_000_000))])

        // A small write is an append again.
        try charts.write("big", series: "a", xs: [moreXs.last! + 1_000], ys: [1])
        XCTAssertEqual(try harness.drain(wide).map(\.type), ["append"])
    }

    func testAnAppendOverItsByteBoundReachesViewersAsASnapshot() throws {
        // Two series with the longest names: each point of an append repeats its series' name.
        let long = [String(repeating: "x", count: 199) + "1", String(repeating: "x", count: 199) + "2"]
        try charts.bigChart("named", rows: 50_000, series: long)
        let (wide, _) = try charts.openViewer()
        harness.send(charts.viewport("named", width: 8_192), from: wide)
        _ = charts.pullFrames(wide)
        let channel = try XCTUnwrap(harness.core.channelsByID["named"])
        let last = channel.store.xNumber(at: channel.store.count - 1)

        // 2 × 10,000 points: 4 · 8,192 per series fit the plot, but the append would be ~4.7 MB.
        var rows: [PublishedRow] = []
        for k in 1...10_000 {
            for name in long { rows.append(PublishedRow(series: name, x: .number(last + Double(k) * 1_000), y: Double(k))) }
        }
        try harness.core.apply(try PointBatch(published: rows).validate(against: channel.spec), to: channel)
        harness.core.finishServicePass()
        let frames = charts.pullFrames(wide)
        XCTAssertEqual(try frames.map { try ServerMessage.decode($0.bytes).type }, ["snapshot"])
        XCTAssertLessThanOrEqual(frames.map(\.count).max() ?? 0, ChartChannel.maxAppendBytes)
        let (snapshot, _) = try snapshot(frames, chart: "named")
        XCTAssertEqual(snapshot.seq, channel.seq)
        XCTAssertEqual(snapshot.series.map { $0.points.last?.x }, [.number(last + 10_000_000), .number(last + 10_000_000)])
    }

    func testTheSnapshotCacheOfAChartIsBoundedInBytes() throws {
        try charts.bigChart("big", rows: 200_000, series: ["a", "b", "c", "d"])
        let channel = try XCTUnwrap(harness.core.channelsByID["big"])
        var served: [Int] = []
        for k in 0..<16 {
            let (viewer, _) = try charts.openViewer()
            harness.send(charts.viewport("big", width: Double(6_000 + 128 * k)), from: viewer)
            let (snapshot, bytes) = try snapshot(charts.pullFrames(viewer), chart: "big")
            XCTAssertEqual(snapshot.series.count, 4)
            served.append(bytes)
            XCTAssertLessThanOrEqual(channel.snapshotCacheBytes, ChartChannel.maxCachedSnapshotBytes)
        }
        XCTAssertGreaterThan(served.reduce(0, +), ChartChannel.maxCachedSnapshotBytes, "16 widths would not all fit")
        XCTAssertLessThan(channel.cachedSnapshots, 16, "the least recently asked for were dropped")
        XCTAssertGreaterThan(channel.cachedSnapshots, 1)
    }

    func testAViewReachingIntoHistoryIsReadForTheCappedColumnsAndAgainWhenSeriesAreAdded() throws {
        // 200,000 rows written, a window of 20,000: the first 180,000 only in "history".
        let (xs, ys) = try charts.bigChart("h", rows: 200_000, series: ["a"], window: 20_000, retentionSeconds: 7 * 86_400)
        let history = FakeHistory(xs: xs, ys: ys[0])
        harness.core.historyReader = history
        let (viewer, _) = try charts.openViewer()
        harness.send(charts.viewport("h", width: 1_000_000), from: viewer)
        _ = try harness.drain(viewer)

        let domain = xs[0]...xs[190_000]
        harness.send(.view(.init(chart: "h", domain: domain)), from: viewer)
        XCTAssertEqual(history.requests.last?.grid.columns, limits.maxSnapshotColumns, "read for 8,192 columns, not 10^6")
        history.answerAll()
        harness.runHandedBack()
        let (first, _) = try snapshot(charts.pullFrames(viewer), chart: "h")
        XCTAssertLessThanOrEqual(points(first), limits.maxMessagePoints)
        try charts.assertDrawsTheRawPicture(first, width: limits.maxSnapshotColumns, xs: xs, ys: ys)

        // Another view; while its history is read, writes bring the chart to 32 series. The
        // answer, read for 8,192 columns, would make a snapshot of 32 · 4 · 8,192 points: it is
        // read again for the 1,024 columns 32 series get.
        let older = xs[1_000]...xs[150_000]
        harness.send(.view(.init(chart: "h", domain: older)), from: viewer)
        XCTAssertEqual(history.pending.count, 1)
        for s in 1..<32 { try charts.write("h", series: "n\(s)", xs: [xs.last! + 1_000], ys: [Double(s)]) }
        history.answerAll()
        harness.runHandedBack()
        XCTAssertEqual(charts.pullFrames(viewer).count, 0, "no snapshot from the answer read on the old grid")
        XCTAssertEqual(history.requests.last?.grid, M4Grid(from: older.lowerBound, to: older.upperBound, columns: 1_024))
        history.answerAll()
        harness.runHandedBack()
        let (second, _) = try snapshot(charts.pullFrames(viewer), chart: "h")
        XCTAssertEqual(second.view, older)
        XCTAssertEqual(second.series.count, 32)
        XCTAssertLessThanOrEqual(points(second), limits.maxMessagePoints)
        XCTAssertLessThanOrEqual(second.series[0].points.count, 4 * 1_024)
        try charts.assertDrawsTheRawPicture(ServerMessage.Snapshot(chart: second.chart, seq: second.seq, x: second.x, y: second.y,
                                                                   series: [second.series[0]], selection: second.selection),
                                            width: 1_024, xs: xs, ys: ys)
    }
}
