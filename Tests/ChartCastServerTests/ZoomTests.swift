import ChartCastIngest
import ChartCastProtocol
import ChartEngine
import TestSupport
import WebSockets
import XCTest
@testable import ChartCastServer

/// Zoom per viewer against the server core (no sockets): `view` answered by a snapshot of that
/// domain; pointer geometry through the viewer's own domain; shared selections in data values;
/// no appends while zoomed into the past; history merged for views older than the live window.
final class ZoomTests: XCTestCase {
    private var fixture: BigCharts!
    private var harness: CoreHarness { fixture.harness }

    override func setUp() {
        fixture = BigCharts()
    }

    private let plotA = Viewport(x: 40, y: 10, width: 500, height: 200)
    private let plotB = Viewport(x: 0, y: 0, width: 1_000, height: 200)

    private func errors(_ messages: [ServerMessage]) -> [ProtocolError] {
        messages.compactMap { if case .error(let e) = $0 { return e }; return nil }
    }

    private func view(_ chart: String, _ domain: ClosedRange<Double>?, ref: String? = nil) -> ClientMessage {
        .view(.init(chart: chart, domain: domain, ref: ref))
    }

    func testAZoomedViewerGetsItsDomainHoversThroughItAndPlacesAnotherViewersRange() throws {
        let (xs, ys) = try fixture.bigChart("z", rows: 10_000, series: ["a"])
        let (a, _) = try fixture.openViewer()
        let (b, _) = try fixture.openViewer()
        harness.send(.viewport(.init(chart: "z", viewport: plotA)), from: a)
        harness.send(.viewport(.init(chart: "z", viewport: plotB)), from: b)
        _ = try harness.drain(a)
        _ = try harness.drain(b)
        let domain = xs[2_000]...xs[3_000]
        harness.send(view("z", domain, ref: "zoom-1"), from: a)
        let got = try harness.drain(a)
        XCTAssertEqual(got.map(\.type), ["snapshot"])
        let snapshot = try XCTUnwrap(fixture.snapshots(got, chart: "z").first)
        XCTAssertEqual(snapshot.view, domain)
        XCTAssertEqual(snapshot.x.domain, .numeric(domain.lowerBound, domain.upperBound), "the view is the domain to draw")
        XCTAssertEqual(snapshot.series[0].points.count, 1_001, "1,001 rows fit 500 px: every one")
        XCTAssertEqual(snapshot.series[0].points.first, DataPoint(x: .number(xs[2_000]), y: ys[0][2_000]))
        XCTAssertEqual(snapshot.seq, harness.core.channelsByID["z"]?.seq)
        XCTAssertEqual(try harness.drain(b), [], "a view is personal")

        // A's hover in the middle of its plot is the middle of its view, not of the live window.
        harness.send(.pointer(.init(chart: "z", phase: .move, x: 40 + 250, y: 100)), from: a)
        let store = try XCTUnwrap(harness.core.channelsByID["z"]).store
        XCTAssertEqual(store.spec.interactions.drag, .range)
        var hover = try XCTUnwrap(harness.core.channelsByID["z"]?.engine.selection.hovers.first)
        XCTAssertEqual(hover.x, .number(xs[2_500]))
        XCTAssertEqual(hover.values.first?.y, ys[0][2_500])
        // After the view is left, the same pixel maps through the live window again.
        harness.send(view("z", nil), from: a)
        _ = try harness.drain(a)
        harness.send(.pointer(.init(chart: "z", phase: .move, x: 40 + 251, y: 100)), from: a)
        hover = try XCTUnwrap(harness.core.channelsByID["z"]?.engine.selection.hovers.first)
        let (d0, d1) = store.xDomain
        XCTAssertEqual(hover.x, .number(xs[store.nearestIndex(toX: d0 + 251.0 / 500 * (d1 - d0))!]))
        harness.send(.pointer(.init(chart: "z", phase: .leave, x: 0, y: 0)), from: a)
        harness.send(view("z", domain), from: a)
        _ = try harness.drain(a)
        _ = try harness.drain(b)

        // B, live, drags a range inside A's view; A gets it in data values and places it.
        func livePixel(_ x: Double) -> Double { (x - d0) / (d1 - d0) * 1_000 }
        harness.send(.pointer(.init(chart: "z", phase: .down, x: livePixel(xs[2_200]), y: 100)), from: b)
        harness.send(.pointer(.init(chart: "z", phase: .move, x: livePixel(xs[2_600]), y: 100)), from: b)
        let received = try harness.drain(a)
        guard case .selection(let update)? = received.last else { return XCTFail("A got \(received.map(\.type))") }
        let range = try XCTUnwrap(update.selection.range)
        let from = BigCharts.number(range.from), to = BigCharts.number(range.to)
        XCTAssertEqual(from, xs[2_200], accuracy: 1_000, "within a row of where B pressed")
        XCTAssertEqual(to, xs[2_600], accuracy: 1_000)
        let rows = xs.indices.filter { xs[$0] >= from && xs[$0] <= to }
        XCTAssertEqual(range.count, rows.count, "counted over the raw rows")
        XCTAssertEqual(range.totals.first?.sum ?? 0, rows.reduce(0) { $0 + ys[0][$1] }, accuracy: 1e-6)
        var geometryA = plotA
        geometryA.xDomain = domain
        let proxyA = ChartProxy(store: store, viewport: geometryA)
        for (x, value) in [(from, range.from), (to, range.to)] {
            let pixel = try XCTUnwrap(proxyA.position(forX: value))
            XCTAssertEqual(pixel, 40 + (x - domain.lowerBound) / (domain.upperBound - domain.lowerBound) * 500, accuracy: 1e-9,
                           "the page's mapping through A's view")
            XCTAssertTrue(pixel >= 40 && pixel <= 540, "inside A's plot: \(pixel)")
            guard case .number(let back)? = proxyA.value(atX: pixel) else { return XCTFail("outside A's plot") }
            XCTAssertEqual(back, x, accuracy: 1e-3)
        }
    }

    func testAViewerZoomedIntoThePastGetsNoAppendsButSelectionsUntilItReturnsLive() throws {
        let (xs, _) = try fixture.bigChart("z", rows: 10_000, series: ["a"])
        let (a, _) = try fixture.openViewer()
        let (b, _) = try fixture.openViewer()
        harness.send(.viewport(.init(chart: "z", viewport: plotA)), from: a)
        harness.send(.viewport(.init(chart: "z", viewport: plotB)), from: b)
        _ = try harness.drain(a)
        _ = try harness.drain(b)
        harness.send(view("z", xs[100]...xs[200]), from: a)
        XCTAssertEqual(try harness.drain(a).map(\.type), ["snapshot"])

        var last = xs.last!
        for k in 1...3 {
            try fixture.write("z", series: "a", xs: [last + Double(k) * 1_000], ys: [Double(k)])
        }
        last += 3_000
        XCTAssertEqual(try harness.drain(b).map(\.type), ["append", "append", "append"])
        XCTAssertEqual(try harness.drain(a), [], "A's picture holds still")

        harness.send(.pointer(.init(chart: "z", phase: .move, x: 500, y: 100)), from: b)
        XCTAssertEqual(try harness.drain(a).map(\.type), ["selection"], "but A still sees selections")
        harness.send(.pointer(.init(chart: "z", phase: .leave, x: 500, y: 100)), from: b)
        XCTAssertEqual(try harness.drain(a).map(\.type), ["selection"])
        _ = try harness.drain(b)

        // More than a whole append log of writes while zoomed: still nothing, no snapshot either.
        for k in 1...300 { try fixture.write("z", series: "a", xs: [last + Double(k) * 1_000], ys: [1]) }
        last += 300_000
        XCTAssertEqual(try harness.drain(a), [])
        _ = try harness.drain(b)
        // Writes to another chart still reach A, and the skipped appends of the frozen chart
        // never make it promise a frame it does not have (`drain` checks every `morePending`).
        try fixture.bigChart("other", rows: 10, series: ["o"])
        _ = try harness.drain(a)
        for k in 1...4 {
            // A selection on the frozen chart first, so that A's next turn starts after it.
            harness.send(.pointer(.init(chart: "z", phase: .move, x: Double(100 + k), y: 100)), from: b)
            XCTAssertEqual(try harness.drain(a).map(\.chart), ["z"])
            harness.send(.pointer(.init(chart: "z", phase: .leave, x: 0, y: 0)), from: b)
            XCTAssertEqual(try harness.drain(a).map(\.chart), ["z"])
            last += 1_000
            try fixture.write("z", series: "a", xs: [last], ys: [1])
            try fixture.write("other", series: "o", xs: [BigCharts.t0 + Double(100 + k) * 1_000], ys: [1])
            XCTAssertEqual(try harness.drain(a).map(\.chart), ["other"])
        }
        _ = try harness.drain(b)

        harness.send(view("z", nil), from: a)
        let back = try harness.drain(a)
        XCTAssertEqual(back.map(\.type), ["snapshot"])
        let snapshot = try XCTUnwrap(fixture.snapshots(back, chart: "z").first)
        let channel = try XCTUnwrap(harness.core.channelsByID["z"])
        XCTAssertNil(snapshot.view)
        XCTAssertEqual(snapshot.x.domain, .numeric(channel.store.xDomain.0, channel.store.xDomain.1))
        XCTAssertEqual(snapshot.seq, channel.seq)
        XCTAssertEqual(snapshot.series[0].points.last?.x, .number(last), "the live window, up to now")
        try fixture.write("z", series: "a", xs: [last + 1_000], ys: [2])
        XCTAssertEqual(try harness.drain(a).map(\.type), ["append"], "appends resume")

        // A view that reaches past the live edge follows appends until the edge passes its end.
        last += 1_000
        harness.send(view("z", xs[9_000]...(last + 2_500)), from: a)
        XCTAssertEqual(try harness.drain(a).map(\.type), ["snapshot"])
        try fixture.write("z", series: "a", xs: [last + 1_000], ys: [3])
        XCTAssertEqual(try harness.drain(a).map(\.type), ["append"], "still inside the view")
        try fixture.write("z", series: "a", xs: [last + 5_000], ys: [4])
        XCTAssertEqual(try harness.drain(a), [], "the live edge passed the view's end")
    }

    func testViewsOfCategoryChartsAndAbsurdViewsAreRefused() throws {
        let days = ChartSpec(id: "days", title: "days", mark: .bar, xKind: .category, series: ["n"], categories: ["Mon", "Tue"],
                             interactions: ChartSpec.defaultInteractions(for: .category))
        XCTAssertEqual(try harness.api("PUT", "/api/charts/days", headers: ["content-type": "application/json"],
                                       body: days.encoded()).status, 201)
        try fixture.bigChart("z", rows: 100, series: ["a"])
        let (a, _) = try fixture.openViewer()
        harness.send(view("days", 0...1, ref: "v-1"), from: a)
        var refused = errors(try harness.drain(a))
        XCTAssertEqual(refused.map(\.code), [.badField])
        XCTAssertEqual(refused.first?.ref, "v-1")
        XCTAssertTrue(refused.first?.message.contains("category") ?? false, refused.first?.message ?? "")
        harness.send(view("nope", 0...1), from: a)
        XCTAssertEqual(errors(try harness.drain(a)).map(\.code), [.unknownChart])
        for text in [#"{"type":"view","chart":"z","from":5,"to":5,"ref":"v-2"}"#,
                     #"{"type":"view","chart":"z","from":0,"to":1e16}"#,
                     #"{"type":"view","chart":"z","from":1e12,"to":1000000000000.0001}"#] {
            harness.core.receive(.text(Array(text.utf8)), from: a)
            refused = errors(try harness.drain(a))
            XCTAssertEqual(refused.map(\.code), [.badField], text)
        }
        XCTAssertEqual(refused.isEmpty, false)
        // Nothing changed for the viewer: still live, still sent appends.
        try fixture.write("z", series: "a", xs: [BigCharts.t0 + 1e6], ys: [1])
        XCTAssertEqual(try harness.drain(a).map(\.type), ["append"])
    }

    func testAViewOlderThanTheLiveWindowMergesHistoryExactly() throws {
        // 10,000 rows written, a window of 2,000: the first 8,000 only in "history".
        let (xs, ys) = try fixture.bigChart("h", rows: 10_000, series: ["a"], window: 2_000, retentionSeconds: 7 * 86_400)
        let channel = try XCTUnwrap(harness.core.channelsByID["h"])
        XCTAssertEqual(channel.store.xNumber(at: 0), xs[8_000])
        let history = FakeHistory(xs: xs, ys: ys[0])
        harness.core.historyReader = history
        let (a, _) = try fixture.openViewer()
        harness.send(.viewport(.init(chart: "h", viewport: Viewport(x: 0, y: 0, width: 300, height: 200))), from: a)
        _ = try harness.drain(a)

        let domain = xs[5_000]...xs[9_500]
        harness.send(view("h", domain), from: a)
        XCTAssertEqual(try harness.drain(a), [], "waiting for the history")
        XCTAssertEqual(history.requests.count, 1)
        XCTAssertEqual(history.requests.first?.from, xs[5_000])
        XCTAssertEqual(history.requests.first?.to, xs[8_000], "only what memory does not hold")
        XCTAssertEqual(history.requests.first?.grid, M4Grid(from: domain.lowerBound, to: domain.upperBound, columns: 300))
        history.answerAll()
        harness.runHandedBack()
        let got = try harness.drain(a)
        XCTAssertEqual(got.map(\.type), ["snapshot"])
        let snapshot = try XCTUnwrap(fixture.snapshots(got, chart: "h").first)
        XCTAssertEqual(snapshot.view, domain)
        let grid = try XCTUnwrap(M4Grid(from: domain.lowerBound, to: domain.upperBound, columns: 300))
        let expected = M4.downsample(xs: xs, ys: [ys[0]], grid: grid)[0]
        XCTAssertEqual(snapshot.series[0].points, expected.map { DataPoint(x: .number(xs[$0]), y: ys[0][$0]) },
                       "M4 of history + memory on one grid = M4 of every point")
        try fixture.assertDrawsTheRawPicture(snapshot, width: 300, xs: xs, ys: ys)
        let inView = (5_000...9_500).map { ys[0][$0] }
        XCTAssertLessThanOrEqual(snapshot.y.lowerBound, inView.min()!)
        XCTAssertGreaterThanOrEqual(snapshot.y.upperBound, inView.max()!)

        // An answer for a view the viewer has left is dropped.
        history.answerAtOnce = false
        harness.send(view("h", xs[1_000]...xs[4_000]), from: a)
        harness.send(view("h", xs[2_000]...xs[3_000]), from: a)
        XCTAssertEqual(history.pending.count, 2)
        history.answer(0)
        harness.runHandedBack()
        XCTAssertEqual(try harness.drain(a), [])
        history.answer(1)
        harness.runHandedBack()
        let latest = try harness.drain(a)
        XCTAssertEqual(fixture.snapshots(latest, chart: "h").map(\.view), [xs[2_000]...xs[3_000]])
        XCTAssertEqual(fixture.snapshots(latest, chart: "h").first?.series[0].points.count, 1_001)

        // Live again: memory only, an answer still under way is dropped.
        harness.send(view("h", xs[0]...xs[10]), from: a)
        harness.send(view("h", nil), from: a)
        history.answerAll()
        harness.runHandedBack()
        let live = try harness.drain(a)
        XCTAssertEqual(live.map(\.type), ["snapshot"])
        XCTAssertNil(fixture.snapshots(live, chart: "h").first?.view)

        // Without a reader a view shows what memory holds.
        harness.core.historyReader = nil
        harness.send(view("h", domain), from: a)
        let memoryOnly = try XCTUnwrap(fixture.snapshots(try harness.drain(a), chart: "h").first)
        XCTAssertEqual(memoryOnly.series[0].points.first?.x, .number(xs[8_000]))
    }
}

/// A history reader over arrays that answers when told to, as a storage thread would.
final class FakeHistory: HistoryReading, @unchecked Sendable {
    let xs: [Double], ys: [Double]
    var requests: [(from: Double, to: Double, grid: M4Grid)] = []
    var pending: [() -> Void] = []
    var answerAtOnce = false

    init(xs: [Double], ys: [Double]) {
        self.xs = xs
        self.ys = ys
    }

    func read(chart: String, from: Double, to: Double, grid: M4Grid,
              completion: @escaping @Sendable (Result<[HistorySeries], Error>) -> Void) {
        requests.append((from, to, grid))
        let rows = xs.indices.filter { xs[$0] >= from && xs[$0] < to }
        let sx = rows.map { xs[$0] }, sy = rows.map { ys[$0] }
        let kept = sx.count > 4 * grid.columns ? M4.downsample(xs: sx, ys: [sy], grid: grid)[0] : Array(sx.indices)
        let answer = [HistorySeries(name: "a", xs: kept.map { sx[$0] }, ys: kept.map { sy[$0] })]
        let send = { completion(.success(answer)) }
        if answerAtOnce { send() } else { pending.append(send) }
    }

    func answer(_ i: Int) { pending[i]() }

    func answerAll() {
        let all = pending
        pending.removeAll()
        for send in all { send() }
    }
}
