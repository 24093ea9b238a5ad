import ChartEngine

/// A write checked against its chart, grouped for applying: one row per distinct x in ascending
/// x order (category charts: category index order), each with the values it sets.
///
/// Cheap to apply on the service thread: a time/linear row is one `ChartStore.upsert` (appends
/// in x order take the store's fast path), a category row one `setValue` per value. Within a row
/// the cells keep body order, so when a write sets the same series at the same x twice, the later
/// value wins. Storage is four flat arrays, O(points) whatever the number of series.
public struct ValidatedBatch: Sendable {
    /// The chart id the batch was validated against.
    public let chart: String
    /// The chart's x kind.
    public let xKind: XKind
    /// The chart's series after this write: the existing series, then `newSeries`.
    public let series: [String]
    /// The series this write adds, in first-seen order (the last entries of `series`).
    public let newSeries: [String]
    /// The chart's categories (category charts; empty otherwise): what the rows' x index.
    public let categories: [String]

    /// x per row: epoch ms (time), the number (linear) or the category index (category).
    let rowXs: [Double]
    /// Row `r`'s cells are `rowStarts[r]..<rowStarts[r + 1]`.
    let rowStarts: [Int32]
    /// Index in `series` and value, per cell.
    let cellSeries: [Int32]
    let cellValues: [Double]

    init(chart: String, xKind: XKind, series: [String], newSeries: [String], categories: [String],
         rowXs: [Double], rowStarts: [Int32], cellSeries: [Int32], cellValues: [Double]) {
        self.chart = chart
        self.xKind = xKind
        self.series = series
        self.newSeries = newSeries
        self.categories = categories
        self.rowXs = rowXs
        self.rowStarts = rowStarts
        self.cellSeries = cellSeries
        self.cellValues = cellValues
    }

    /// Points the write stores: the `accepted` of the answer (missing values are not counted).
    public var accepted: Int { cellValues.count }

    /// Number of rows (distinct x values).
    public var rowCount: Int { rowXs.count }

    /// The x of row `r`: epoch ms, the number, or the category index.
    public func x(row r: Int) -> Double { rowXs[r] }

    /// The values row `r` sets, in body order.
    public func cells(row r: Int) -> RowCells {
        RowCells(batch: self, range: Int(rowStarts[r])..<Int(rowStarts[r + 1]))
    }

    /// Sets `values[s]` for every series `s` row `r` has a value for (the later one when it has
    /// two) and leaves the other entries alone; `values` must have `series.count` entries.
    public func fill(row r: Int, into values: inout [Double?]) {
        for c in Int(rowStarts[r])..<Int(rowStarts[r + 1]) {
            values[Int(cellSeries[c])] = cellValues[c]
        }
    }

    /// How many points each series gets from the rows `rows` (every row when nil), indexed
    /// like `series`.
    /// - Complexity: O(points of those rows).
    public func pointsPerSeries(rows: [Int32]? = nil) -> [Int] {
        var counts = [Int](repeating: 0, count: series.count)
        if let rows {
            for r in rows {
                for c in Int(rowStarts[Int(r)])..<Int(rowStarts[Int(r) + 1]) { counts[Int(cellSeries[c])] += 1 }
            }
        } else {
            for s in cellSeries { counts[Int(s)] += 1 }
        }
        return counts
    }

    /// Every point as three columns: its index in `series`, its x and its value, row by row
    /// (ascending x) and in body order within a row (what a history store keeps). The first and last columns are the batch's own storage.
    /// - Complexity: O(points) to spell out each point's x.
    public var pointColumns: (series: [Int32], xs: [Double], ys: [Double]) {
        var xs: [Double] = []
        xs.reserveCapacity(cellValues.count)
        for r in rowXs.indices {
            let count = Int(rowStarts[r + 1] - rowStarts[r])
            xs.append(contentsOf: repeatElement(rowXs[r], count: count))
        }
        return (cellSeries, xs, cellValues)
    }

    /// The values of one row: `(series, y)` pairs, `series` indexing `ValidatedBatch.series`.
    public struct RowCells: RandomAccessCollection, Sendable {
        let batch: ValidatedBatch
        let range: Range<Int>

        public var startIndex: Int { range.lowerBound }
        public var endIndex: Int { range.upperBound }

        public subscript(c: Int) -> (series: Int, y: Double) {
            (Int(batch.cellSeries[c]), batch.cellValues[c])
        }
    }
}
