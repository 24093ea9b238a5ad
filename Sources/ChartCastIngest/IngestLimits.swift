import ChartCastProtocol
import ChartEngine

/// The limits every write body is held to while it is parsed and validated.
///
/// Parsers check them as they go, so an oversized body is refused at the point where it crosses
/// the limit, before the rest of it is read or stored.
public struct IngestLimits: Equatable, Sendable {
    /// Most points one write may store (missing values do not count). More: `too_large`.
    public var maxPoints: Int
    /// Most values one JSON column (`x` or a series) may hold, missing values included. More:
    /// `too_large`.
    public var maxColumnLength: Int
    /// Most series a chart may have, existing and new together. More: `bad_point`.
    public var maxSeriesPerChart: Int
    /// Longest series name, in UTF-8 bytes. Longer: `bad_point` (JSON, line protocol) or
    /// `bad_request` (a CSV header).
    public var maxSeriesNameBytes: Int
    /// Deepest JSON nesting accepted (the points object counts 1, `points` 2, a point 3).
    public var maxDepth: Int
    /// Most bytes a gzip body may inflate to. More: `too_large`, found while inflating.
    public var maxInflatedBytes: Int

    /// The limits of the data API: 1,000,000 points, 32 series per chart, 64 MiB inflated.
    public static let standard = IngestLimits(
        maxPoints: 1_000_000, maxColumnLength: 1_000_000, maxSeriesPerChart: 32,
        maxSeriesNameBytes: ChartSpec.maxSeriesNameBytes, maxDepth: 32, maxInflatedBytes: 64 << 20)

    /// Creates a set of limits.
    public init(maxPoints: Int, maxColumnLength: Int, maxSeriesPerChart: Int, maxSeriesNameBytes: Int,
                maxDepth: Int, maxInflatedBytes: Int) {
        self.maxPoints = maxPoints
        self.maxColumnLength = maxColumnLength
        self.maxSeriesPerChart = maxSeriesPerChart
        self.maxSeriesNameBytes = maxSeriesNameBytes
        self.maxDepth = maxDepth
        self.maxInflatedBytes = maxInflatedBytes
    }

    /// `n` with thousands separators, as messages print limits (`1,000,000`).
    static func format(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (k, c) in digits.enumerated() {
            if k > 0 && (digits.count - k) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return n < 0 ? "-" + out : out
    }
}

