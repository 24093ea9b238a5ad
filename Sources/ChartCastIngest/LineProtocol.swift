/// The unit of line-protocol timestamps: the `precision` query parameter of `/api/v2/write`.
public enum LineProtocolPrecision: String, Sendable, CaseIterable {
    case nanoseconds = "ns"
    case microseconds = "us"
    case milliseconds = "ms"
    case seconds = "s"

    /// The precision named by a `precision` query value; `nil` (the default, `ns`) when absent.
    /// - Throws: `bad_request` naming the accepted values for anything else.
    public static func parse(query value: String?) throws -> LineProtocolPrecision {
        guard let value else { return .nanoseconds }
        guard let precision = LineProtocolPrecision(rawValue: value) else {
            throw IngestError.badRequest("precision \(Quote.string(value)) is not one of ns, us, ms, s")
        }
        return precision
    }

    /// `timestamp` in this unit as epoch milliseconds.
    ///
    /// Whole milliseconds are split off in integer arithmetic first, so the result is the
    /// nearest double to the exact value (ns and µs keep their sub-millisecond part as a
    /// fraction; at today's epoch a double resolves about 0.24 µs).
    public func epochMilliseconds(_ timestamp: Int64) -> Double {
        switch self {
        case .nanoseconds:
            return Double(timestamp / 1_000_000) + Double(timestamp % 1_000_000) / 1_000_000
        case .microseconds:
            return Double(timestamp / 1_000) + Double(timestamp % 1_000) / 1_000
        case .milliseconds:
            return Double(timestamp)
        case .seconds:
            return Double(timestamp) * 1_000
        }
    }
}

/// The points of one line-protocol write, one `PointBatch` per measurement (chart), in the order
/// the measurements first appear.
public struct LineProtocolWrite: Sendable {
    /// Per chart: its id and points.
    public var charts: [ChartPoints]

    /// Points over all charts.
    public var pointCount: Int { charts.reduce(0) { $0 + $1.points.count } }
}
