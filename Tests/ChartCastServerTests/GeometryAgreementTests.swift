import ChartCastProtocol
import ChartEngine
import XCTest
@testable import ChartCastServer

/// The page draws each value where the server's geometry finds it: one y-domain policy for the
/// server's messages, `ChartProxy` and the page.
///
/// For every demo chart and every drawn point, the pixel is computed the way the page computes
/// it (`web/js/geometry.js`: `fractionToPixel`, `continuousFraction`, `yScale`) from the domains
/// in the snapshot the server actually encodes; `ChartProxy` must map that pixel back to the
/// same x and to the value within half a pixel.
final class GeometryAgreementTests: XCTestCase {
    private let plots = [Viewport(x: 48, y: 12, width: 620, height: 280),
                         Viewport(x: 20, y: 8, width: 313, height: 97, rtl: true),
                         Viewport(x: 60, y: 30, width: 1400, height: 700)]

    /// `geometry.js` `yScale`: `plot.y + plot.height * (1 - (value - d0) / span)`.
    private func pageY(_ value: Double, _ domain: ClosedRange<Double>, _ plot: Viewport) -> Double {
        let span = domain.upperBound - domain.lowerBound
        return plot.y + plot.height * (1 - (value - domain.lowerBound) / (span == 0 ? 1 : span))
    }

    /// `geometry.js` `fractionToPixel` of a category centre or a continuous fraction.
    private func pageX(_ x: XValue, _ axis: XAxis, _ plot: Viewport) throws -> Double {
        let fraction: Double
        switch (x, axis.domain) {
        case (.category(let name), .categories(let names)):
            let i = try XCTUnwrap(names.firstIndex(of: name))
            fraction = (Double(i) + 0.5) / Double(names.count)
        case (.number(let value), .numeric(let d0, let d1)):
            fraction = d1 == d0 ? 0.5 : (value - d0) / (d1 - d0)
        default:
            throw TestFailure("x \(x) does not fit axis \(axis)")
        }
        return plot.x + (plot.rtl ? 1 - fraction : fraction) * plot.width
    }

    func testAPointerAtEveryDrawnValueMapsBackToItWithinHalfAPixel() throws {
        let core = ServerCore(options: ServerOptions(port: 0, logLevel: .error), logger: Logger(level: .error))
        var checked = 0
        for channel in core.channels {
            guard case .snapshot(let snapshot) = try ServerMessage.decode(channel.snapshotFrame().bytes) else {
                return XCTFail("\(channel.spec.id): not a snapshot")
            }
            for plot in plots {
                let proxy = ChartProxy(store: channel.store, viewport: plot)
                let halfPixel = 0.5 * (snapshot.y.upperBound - snapshot.y.lowerBound) / plot.height
                for series in snapshot.series {
                    for point in series.points {
                        let px = try pageX(point.x, snapshot.x, plot), py = pageY(point.y, snapshot.y, plot)
                        let hit = try XCTUnwrap(proxy.value(at: (px, py)), "\(channel.spec.id) \(point) at (\(px), \(py))")
                        switch (hit.x, point.x) {
                        case (.number(let found), .number(let drawn)):
                            XCTAssertEqual(found, drawn, accuracy: 1e-3 * (proxy.store.xDomain.1 - proxy.store.xDomain.0),
                                           "\(channel.spec.id): x")
                        default:
                            XCTAssertEqual(hit.x, point.x, "\(channel.spec.id): category")
                        }
                        XCTAssertEqual(hit.y, point.y, accuracy: halfPixel,
                                       "\(channel.spec.id) \(series.name) \(point) in \(plot): y domain \(snapshot.y)")
                        checked += 1
                    }
                }
            }
        }
        XCTAssertGreaterThan(checked, 3 * (7 + 15 + 12 + 36 + 30) - 1, "every demo chart's points were checked")
    }

    /// Checks, for each drawn point, that the pixel the page draws it at (through `x` and `y`,
    /// the domains the page holds) maps back through `proxy` to the point: x exactly (to a
    /// thousandth of the domain), y within half a pixel. Returns how many were checked.
    @discardableResult
    private func assertMapsBack(_ points: [DataPoint], x axis: XAxis, y domain: ClosedRange<Double>, proxy: ChartProxy,
                                _ label: String, file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        let plot = proxy.viewport
        let halfPixel = 0.5 * (domain.upperBound - domain.lowerBound) / plot.height
        let (d0, d1) = proxy.xDomain
        for point in points {
            let px = try pageX(point.x, axis, plot), py = pageY(point.y, domain, plot)
            let hit = try XCTUnwrap(proxy.value(at: (px, py)), "\(label): \(point) at (\(px), \(py))", file: file, line: line)
            if case .number(let found) = hit.x, case .number(let drawn) = point.x {
                XCTAssertEqual(found, drawn, accuracy: 1e-3 * (d1 - d0), "\(label): x", file: file, line: line)
            } else {
                XCTAssertEqual(hit.x, point.x, "\(label): category", file: file, line: line)
            }
            XCTAssertEqual(hit.y, point.y, accuracy: halfPixel, "\(label): \(point) in \(plot), y domain \(domain)", file: file, line: line)
        }
        return points.count
    }

    /// A zoomed viewer draws with the y domain of its view's snapshot (which may differ from the
    /// live window's), widened by the appends it is sent while zoomed (`web/js/model.js`); the
    /// engine's geometry for that viewer (`Session.geometry`) maps through the same domain.
    /// Three cases: a view reaching into history, whose values lie outside the live window's;
    /// the same view after an append (the page widens); a view in memory that holds still while
    /// the live y domain moves on.
    func testAZoomedViewersPointerAtADrawnValueMapsBackToItWithinHalfAPixel() throws {
        let fixture = BigCharts()
        let harness = fixture.harness
        // 10,000 rows, a window of 2,000: the first 8,000 only in history, where one value lies
        // far below anything in memory.
        var (xs, ys) = try fixture.bigChart("h", rows: 10_000, series: ["a"], window: 2_000, retentionSeconds: 7 * 86_400)
        ys[0][1_234] = -500
        let history = FakeHistory(xs: xs, ys: ys[0])
        history.answerAtOnce = true
        harness.core.historyReader = history
        let channel = try XCTUnwrap(harness.core.channelsByID["h"])
        let plot = Viewport(x: 40, y: 10, width: 500, height: 200)
        let (viewer, _) = try fixture.openViewer()
        harness.send(.viewport(.init(chart: "h", viewport: plot)), from: viewer)
        _ = try harness.drain(viewer)
        func proxy() throws -> ChartProxy {
            let session = try XCTUnwrap(harness.core.session(for: viewer))
            return ChartProxy(store: channel.store, viewport: try XCTUnwrap(session.geometry(channel.index)))
        }

        // A view from the oldest stored row to past the live edge.
        let last = xs[xs.count - 1]
        let view = xs[0]...(last + 100_000)
        harness.send(.view(.init(chart: "h", domain: view)), from: viewer)
        harness.runHandedBack()
        let zoomed = try XCTUnwrap(fixture.snapshots(try harness.drain(viewer), chart: "h").first)
        XCTAssertEqual(zoomed.view, view)
        let live = channel.store.yDomain
        XCTAssertLessThan(zoomed.y.lowerBound, live.0, "the view's y domain holds the stored -500; the live window's does not")
        try assertMapsBack(zoomed.series[0].points, x: zoomed.x, y: zoomed.y, proxy: try proxy(), "history view")

        // An append at the live edge with a value above everything: the page widens its y domain
        // with the append's (it keeps the -500 the live domain has not got).
        try fixture.write("h", series: "a", xs: [last + 1_000], ys: [900])
        let received = try harness.drain(viewer)
        guard case .append(let append)? = received.first(where: { $0.type == "append" }) else {
            return XCTFail("no append: \(received.map(\.type))")
        }
        let appendY = try XCTUnwrap(append.y, "the append moves the y domain")
        let drawnY = min(zoomed.y.lowerBound, appendY.lowerBound)...max(zoomed.y.upperBound, appendY.upperBound)
        XCTAssertNotEqual(drawnY, appendY, "widening matters here")
        let drawn = zoomed.series[0].points + append.points.map { DataPoint(x: $0.x, y: $0.y) }
        try assertMapsBack(drawn, x: zoomed.x, y: drawnY, proxy: try proxy(), "history view after an append")

        // A view inside memory, ending before the live edge: its picture (and y domain) holds
        // still while a write far outside moves the live window's.
        let still = xs[8_500]...xs[9_000]
        harness.send(.view(.init(chart: "h", domain: still)), from: viewer)
        let held = try XCTUnwrap(fixture.snapshots(try harness.drain(viewer), chart: "h").first)
        XCTAssertEqual(held.view, still)
        try fixture.write("h", series: "a", xs: [last + 2_000], ys: [5_000])
        XCTAssertEqual(try harness.drain(viewer).filter { $0.type == "append" || $0.type == "snapshot" }, [],
                       "zoomed into the past: no appends")
        XCTAssertGreaterThan(channel.store.yDomain.1, held.y.upperBound, "the live y domain moved on")
        try assertMapsBack(held.series[0].points, x: held.x, y: held.y, proxy: try proxy(), "view held still")
    }

    func testTheEngineAndTheMessagesUseTheSameYDomain() throws {
        let core = ServerCore(options: ServerOptions(port: 0, logLevel: .error), logger: Logger(level: .error))
        let temperature = try XCTUnwrap(core.channelsByID["temperature"])
        guard case .snapshot(let snapshot) = try ServerMessage.decode(temperature.snapshotFrame().bytes) else { return XCTFail() }
        XCTAssertEqual(snapshot.y.lowerBound, temperature.store.yDomain.0)
        XCTAssertEqual(snapshot.y.upperBound, temperature.store.yDomain.1)
        XCTAssertGreaterThan(snapshot.y.lowerBound, 30, "a line of body temperatures is not drawn from 0")
    }
}
