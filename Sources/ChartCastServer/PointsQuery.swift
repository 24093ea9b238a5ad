import ChartCastIngest
import ChartCastProtocol
import ChartEngine
import Foundation

/// The query of `GET /api/charts/{id}/points`: `from`, `to`, `max`, `format`.
struct PointsQuery: Equatable {
    /// The first x to include; nil: from the first point.
    var from: Double?
    /// The last x to include; nil: to the last point.
    var to: Double?
    /// Most points per series; more are M4-downsampled to `max / 4` pixel columns.
    var max: Int
    /// CSV (RFC 4180) instead of JSON.
    var csv: Bool

    /// `max` when the query does not say.
    static let defaultMax = 10_000
    /// The largest `max` (a bigger answer is a bulk export; page through `from`/`to` instead).
    static let largestMax = 1_000_000
    /// The smallest `max`: M4 keeps a column's first, last, smallest and largest point.
    static let smallestMax = 4

    /// Reads the query for a chart with x of `kind`.
    /// - Returns: the query, or the 400 `bad_request` message naming the parameter.
    static func parse(_ request: APIRequest, kind: XKind) -> Result<PointsQuery, PointsQueryError> {
        var query = PointsQuery(from: nil, to: nil, max: defaultMax, csv: false)
        for name in ["from", "to"] {
            guard let raw = request.queryValue(name) else { continue }
            guard kind != .category else {
                return .failure(PointsQueryError("\(name): category charts have no x range; leave out from and to"))
            }
            let text = raw.removingPercentEncoding ?? raw
            guard let x = x(text, kind: kind) else {
                let expected = kind == .time ? "epoch milliseconds or an RFC 3339 date-time" : "a finite number"
                return .failure(PointsQueryError("\(name): \"\(text.prefix(64))\" is not \(expected)"))
            }
            if name == "from" { query.from = x } else { query.to = x }
        }
        if let from = query.from, let to = query.to, from > to {
            return .failure(PointsQueryError("from (\(JSONWriter.format(from))) is after to (\(JSONWriter.format(to)))"))
        }
        if let raw = request.queryValue("max") {
            guard let max = Int(raw), max >= smallestMax, max <= largestMax else {
                return .failure(PointsQueryError("max: \"\(raw.prefix(32))\" must be a whole number from \(smallestMax) to \(largestMax) (points per series)"))
            }
            query.max = max
        }
        switch request.queryValue("format") {
        case nil, "json": break
        case "csv": query.csv = true
        case let other?: return .failure(PointsQueryError("format: \"\(other.prefix(32))\" must be json or csv"))
        }
        return .success(query)
    }

    /// An x bound: a finite number; on time charts also an RFC 3339 date-time.
    private static func x(_ text: String, kind: XKind) -> Double? {
        if let number = Double(text), number.isFinite { return number }
        if kind == .time, let ms = RFC3339.epochMilliseconds(text) { return ms }
        return nil
    }
}

/// A query `GET /api/charts/{id}/points` cannot answer: the 400 `bad_request` message.
struct PointsQueryError: Error, Equatable {
    var message: String
    init(_ message: String) { self.message = message }
}
