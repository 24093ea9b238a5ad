@_exported import ChartCastServer
import ChartCastProtocol
import ChartEngine

/// The library's whole surface in one import: the server (`ChartCastServer`, `ServerOptions`,
/// `Point`) and the dashboard DSL (`Dashboard`, `Chart`, marks).
public typealias XValue = ChartEngine.XValue

extension ChartCastServer {
    /// Defines (or replaces) a chart declared with the DSL, checked by the same schema as JSON.
    /// - Returns: true when the chart is new.
    /// - Throws: `ProtocolError` naming the field, or `EmbeddingError.notRunning`.
    @discardableResult
    public func define<X: XPlottable>(_ chart: Chart<X>, timeout: Double = 5) throws -> Bool {
        try define(chart.spec(), timeout: timeout)
    }

    /// Publishes one value of each series at `x` to a chart declared with the DSL: the type of
    /// `x` is the chart's axis type, so a `Date` cannot reach a category chart.
    /// - Returns: the chart's `seq` after the write.
    /// - Throws: `EmbeddingError` (nothing applied on `.badPoints`).
    @discardableResult
    public func publish<X: XPlottable>(to chart: Chart<X>, x: X, values: [String: Double], timeout: Double = 5) throws -> Int {
        let id = try chart.spec().id
        let points = values.sorted { $0.key < $1.key }.map { Point(series: $0.key, x: x.chartX, y: $0.value) }
        return try publish(points, to: id, timeout: timeout)
    }
}
