/// One point as a WebSocket `publish` carries it, already decoded: `x` a number or a text
/// (category name, or an RFC 3339 time on time charts), `y` nil when missing.
public struct PublishedRow: Sendable {
    public var series: String
    public var x: RawX
    public var y: Double?

    public init(series: String, x: RawX, y: Double?) {
        self.series = series
        self.x = x
        self.y = y
    }
}

extension PointBatch {
    /// The batch of a `publish`: the same points a JSON rows body would give, validated by the
    /// same rules. Point `i` reports as `points[i]` (there are no body lines); missing values are
    /// skipped, as in every write.
    /// - Throws: `too_large` beyond `limits.maxPoints`, `bad_point` for a series name over the
    ///   limit.
    /// - Complexity: O(points).
    public init(published rows: [PublishedRow], limits: IngestLimits = .standard) throws {
        self.init(source: .jsonRows)
        guard rows.count <= limits.maxPoints else {
            throw IngestError.tooLarge("more than \(limits.maxPoints) points in one write")
        }
        reserve(rows.count)
        var seriesIndex: [String: Int32] = [:]
        for (index, row) in rows.enumerated() {
            guard let y = row.y else { continue }
            guard row.series.utf8.count <= limits.maxSeriesNameBytes, !row.series.isEmpty else {
                throw IngestError.badPoint("points[\(index)].series must be 1–\(limits.maxSeriesNameBytes) bytes",
                                           line: 0, index: index)
            }
            let s: Int32
            if let known = seriesIndex[row.series] {
                s = known
            } else {
                s = addSeries(row.series)
                seriesIndex[row.series] = s
            }
            var point = Stored(x: .nan, y: y, series: s, line: 0, xLine: 0, index: Int32(truncatingIfNeeded: index),
                               textStart: 0, textCount: -1)
            switch row.x {
            case .number(let x):
                point.x = x
            case .string(let text), .cell(let text):
                let bytes = Array(text.utf8)
                let stored = bytes.withUnsafeBufferPointer { appendText($0) }
                point.textStart = stored.start
                point.textCount = stored.count
            }
            append(point)
        }
    }
}
