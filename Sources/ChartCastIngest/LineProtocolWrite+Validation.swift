import ChartEngine

/// What a batch is validated against: the chart's spec and its series as they are now (the
/// spec's, plus any a write has added since).
public struct ChartTarget: Sendable {
    public var spec: ChartSpec
    public var existingSeries: [String]

    /// A target whose series are `existingSeries`, by default the spec's.
    public init(spec: ChartSpec, existingSeries: [String]? = nil) {
        self.spec = spec
        self.existingSeries = existingSeries ?? spec.series
    }
}

/// One chart's share of a validated multi-chart write.
public struct ValidatedChartWrite: Sendable {
    public var chart: String
    public var batch: ValidatedBatch
}

extension LineProtocolWrite {
    /// Validates every chart's points against its target; all-or-nothing over the whole write.
    ///
    /// `target` is asked once per chart, in order (it may create a spec for an unknown
    /// measurement, or throw to refuse it). When several charts have a bad point, the error with
    /// the smallest line is thrown, so the answer names the first bad line of the body.
    /// - Complexity: O(points), plus sorting when a chart's timestamps are out of order.
    public func validate(_ target: (String) throws -> ChartTarget) throws -> [ValidatedChartWrite] {
        var validated: [ValidatedChartWrite] = []
        var first: IngestError?
        for chart in charts {
            let t = try target(chart.chart)
            do {
                let batch = try chart.points.validate(against: t.spec, existingSeries: t.existingSeries)
                validated.append(ValidatedChartWrite(chart: chart.chart, batch: batch))
            } catch let error as IngestError {
                if first == nil || (error.line ?? .max) < (first?.line ?? .max) { first = error }
            }
        }
        if let first { throw first }
        return validated
    }
}
