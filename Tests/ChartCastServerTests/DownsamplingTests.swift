import ChartCastIngest
import ChartCastProtocol
import ChartEngine
import TestSupport
import WebSockets
import XCTest
@testable import ChartCastServer

/// Big series against the server core (no sockets): snapshots downsampled per viewer's plot
/// width (M4), shared by viewers of one width; writes too large for a plot; selections from the
/// raw points.
final class DownsamplingTests: XCTestCase {
    private var charts: BigCharts!
    private var harness: CoreHarness { charts.harness }

    override func setUp() {
        charts = BigCharts()
    }

    // MARK: Tests

    func testViewersAtTwoWidthsGetAtMostFourPointsPerColumnTheRawPictureAndRawHovers() throws {
        let (xs, ys) = try charts.bigChart("big", rows: 1_000_000)
        let (narrow, arrival) = try charts.openViewer()
        let (wide, _) = try charts.openViewer()
        // Before a viewport, a plot is taken to be 1,000 px wide.
        let first = try XCTUnwrap(charts.snapshots(arrival, chart: "big").first)
        XCTAssertEqual(first.series.map(\.name), ["a", "b"])
        try charts.assertDrawsTheRawPicture(first, width: 1_000, xs: xs, ys: ys)

        harness.send(charts.viewport("big", width: 600, x: 40), from: narrow)
        harness.send(charts.viewport("big", width: 1_400), from: wide)
        let narrowGot = try harness.drain(narrow), wideGot = try harness.drain(wide)
        XCTAssertEqual(narrowGot.map(\.type), ["snapshot"], "a new width: a fresh snapshot")
        XCTAssertEqual(wideGot.map(\.type), ["snapshot"])
        let small = try XCTUnwrap(charts.snapshots(narrowGot, chart: "big").first)
        let large = try XCTUnwrap(charts.snapshots(wideGot, chart: "big").first)
        for series in small.series { XCTAssertLessThanOrEqual(series.points.count, 2_400) }
        for series in large.series { XCTAssertLessThanOrEqual(series.points.count, 5_600) }
        XCTAssertGreaterThan(large.series[0].points.count, small.series[0].points.count)
        try charts.assertDrawsTheRawPicture(small, width: 600, xs: xs, ys: ys)
        try charts.assertDrawsTheRawPicture(large, width: 1_400, xs: xs, ys: ys)
        let store = try XCTUnwrap(harness.core.channelsByID["big"]).store
        XCTAssertEqual(small.x.domain, .numeric(store.xDomain.0, store.xDomain.1), "the live window's domain")

        // A hover finds the raw point under the pointer, one the snapshot left out.
        let drawnXs = Set(small.series[0].points.map { BigCharts.number($0.x) })
        var checked = false
        for column in stride(from: 10.5, to: 600, by: 37) {
            let (d0, d1) = store.xDomain
            let row = try XCTUnwrap(store.nearestIndex(toX: d0 + column / 600 * (d1 - d0)))
            guard !drawnXs.contains(xs[row]) else { continue }
            harness.send(.pointer(.init(chart: "big", phase: .move, x: 40 + column, y: 100)), from: narrow)
            let hover = try XCTUnwrap(harness.core.channelsByID["big"]?.engine.selection.hovers.first)
            XCTAssertEqual(hover.x, .number(xs[row]))
            XCTAssertEqual(hover.values, [SeriesValue(series: "a", y: ys[0][row]), SeriesValue(series: "b", y: ys[1][row])])
            checked = true
            break
        }
        XCTAssertTrue(checked, "found a pixel whose raw point is not in the downsampled snapshot")
        let selection = try harness.drain(wide)
        XCTAssertEqual(selection.map(\.type), ["selection"], "the other viewer sees the hover")
    }

    func testViewersOfOneWidthShareOneEncodedSnapshotAndAWidthChangeResends() throws {
        try charts.bigChart("big", rows: 200_000)
        let channel = try XCTUnwrap(harness.core.channelsByID["big"])
        let (a, _) = try charts.openViewer()
        let (b, _) = try charts.openViewer()
        let (c, _) = try charts.openViewer()
        XCTAssertEqual(channel.snapshotsEncoded, 1, "three arrivals at the default width: one encoding")
        let encoded = channel.snapshotsEncoded

        harness.send(charts.viewport("big", width: 800), from: a)
        harness.send(charts.viewport("big", width: 800, x: 30), from: b)
        harness.send(charts.viewport("big", width: 801), from: c)
        let fa = charts.pullFrames(a), fb = charts.pullFrames(b), fc = charts.pullFrames(c)
        XCTAssertEqual([fa.count, fb.count, fc.count], [1, 1, 1])
        XCTAssertTrue(fa[0] === fb[0], "one frame for both 800 px plots")
        XCTAssertFalse(fa[0] === fc[0])
        XCTAssertEqual(channel.snapshotsEncoded, encoded + 2, "800 and 801 px: two encodings")
        XCTAssertEqual(harness.core.metrics.snapshotsResent, 0, "a new width is no lagging viewer")

        // 800.3 px is 801 columns: c's frame again, nothing encoded.
        harness.send(charts.viewport("big", width: 800.3), from: b)
        let again = charts.pullFrames(b)
        XCTAssertEqual(again.count, 1)
        XCTAssertTrue(again[0] === fc[0])
        XCTAssertEqual(channel.snapshotsEncoded, encoded + 2)
        // The same width again, or another origin: nothing to resend.
        harness.send(charts.viewport("big", width: 800, x: 99), from: a)
        XCTAssertEqual(charts.pullFrames(a).count, 0)

        // A chart small enough for every plot sends every point: widths share it and a resize
        // changes nothing.
        try charts.bigChart("small", rows: 500, series: ["s"])
        for viewer in [a, b, c] { _ = try harness.drain(viewer) }
        let smallChannel = try XCTUnwrap(harness.core.channelsByID["small"])
        let (d, arrival) = try charts.openViewer()
        XCTAssertEqual(charts.snapshots(arrival, chart: "small").first?.series.first?.points.count, 500)
        let smallEncoded = smallChannel.snapshotsEncoded
        harness.send(charts.viewport("small", width: 300), from: d)
        XCTAssertEqual(charts.pullFrames(d).count, 0, "500 ≤ 4 · 300: still every point")
        harness.send(charts.viewport("small", width: 100), from: d)
        let narrow = try harness.drain(d)
        XCTAssertEqual(narrow.map(\.type), ["snapshot"], "500 > 4 · 100: now downsampled")
        XCTAssertLessThanOrEqual(try XCTUnwrap(charts.snapshots(narrow, chart: "small").first).series[0].points.count, 400)
        XCTAssertEqual(smallChannel.snapshotsEncoded, smallEncoded + 1)
    }

    func testAWriteTooLargeForAPlotReachesItAsASnapshotAndOthersAsAnAppend() throws {
        let (xs, ys) = try charts.bigChart("big", rows: 100_000)
        let (narrow, _) = try charts.openViewer()
        let (wide, _) = try charts.openViewer()
        harness.send(charts.viewport("big", width: 100), from: narrow)
        harness.send(charts.viewport("big", width: 1_000), from: wide)
        _ = try harness.drain(narrow)
        _ = try harness.drain(wide)

        // 1,000 new rows of each series in one write: more than 4 · 100, fewer than 4 · 1,000.
        let moreXs = (0..<1_000).map { xs.last! + Double($0 + 1) * 1_000 }
        let moreYs = [BigCharts.walk(1_000, seed: 77), BigCharts.walk(1_000, seed: 78)]
        let channel = try XCTUnwrap(harness.core.channelsByID["big"])
        var rows: [PublishedRow] = []
        for i in 0..<1_000 {
            rows.append(PublishedRow(series: "a", x: .number(moreXs[i]), y: moreYs[0][i]))
            rows.append(PublishedRow(series: "b", x: .number(moreXs[i]), y: moreYs[1][i]))
        }
        try harness.core.apply(try PointBatch(published: rows).validate(against: channel.spec), to: channel)
        harness.core.finishServicePass()

        let narrowGot = try harness.drain(narrow), wideGot = try harness.drain(wide)
        XCTAssertEqual(narrowGot.map(\.type), ["snapshot"])
        XCTAssertEqual(wideGot.map(\.type), ["append"])
        XCTAssertEqual(harness.core.metrics.snapshotsResent, 1, "the write outran the narrow plot's appends")
        guard case .append(let append)? = wideGot.first else { return }
        XCTAssertEqual(append.points.count, 2_000, "raw, as written")
        let snapshot = try XCTUnwrap(charts.snapshots(narrowGot, chart: "big").first)
        XCTAssertEqual(snapshot.seq, channel.seq)
        XCTAssertEqual(snapshot.series[0].points.last?.x, .number(moreXs.last!), "the write is in it")
        try charts.assertDrawsTheRawPicture(snapshot, width: 100, xs: xs + moreXs, ys: [ys[0] + moreYs[0], ys[1] + moreYs[1]])

        // A small write is an append for everyone.
        try charts.write("big", series: "a", xs: [moreXs.last! + 1_000], ys: [1])
        XCTAssertEqual(try harness.drain(narrow).map(\.type), ["append"])
        XCTAssertEqual(try harness.drain(wide).map(\.type), ["append"])
    }

    func testAViewerWithoutAViewportIsServedAsOneThousandPixelsAndTheDemoIsUnchanged() throws {
        // The demo's charts are far smaller than any plot: every viewer gets every point.
        let demo = CoreHarness()
        let connection = CoreHarness.Connection(id: 1, remoteAddress: "127.0.0.1:1", authorization: nil)
        demo.core.open(connection)
        let messages = try demo.drain(connection)
        for channel in demo.core.channels {
            let snapshot = try XCTUnwrap(charts.snapshots(messages, chart: channel.id).first)
            XCTAssertEqual(snapshot, channel.snapshot(), "\(channel.id): the whole chart")
        }
    }
}
