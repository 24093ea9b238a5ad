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

    func testTheEngineAndTheMessagesUseTheSameYDomain() throws {
        let core = ServerCore(options: ServerOptions(port: 0, logLevel: .error), logger: Logger(level: .error))
        let temperature = try XCTUnwrap(core.channelsByID["temperature"])
        guard case .snapshot(let snapshot) = try ServerMessage.decode(temperature.snapshotFrame().bytes) else { return XCTFail() }
        XCTAssertEqual(snapshot.y.lowerBound, temperature.store.yDomain.0)
        XCTAssertEqual(snapshot.y.upperBound, temperature.store.yDomain.1)
        XCTAssertGreaterThan(snapshot.y.lowerBound, 30, "a line of body temperatures is not drawn from 0")
    }
}
