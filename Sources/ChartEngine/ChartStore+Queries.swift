extension ChartStore {
    /// The first row with `x >= value` (`count` when none).
    ///
    /// - Complexity: O(log n).
    public func lowerBound(_ value: Double) -> Int { ring.lowerBound(value) }

    /// The first row with `x > value` (`count` when none).
    ///
    /// - Complexity: O(log n).
    public func upperBound(_ value: Double) -> Int { ring.upperBound(value) }

    /// The row nearest to `x`; on a tie, the earlier row. `nil` when the store is empty.
    ///
    /// - Complexity: O(log n).
    public func nearestIndex(toX x: Double) -> Int? { ring.nearest(x) }

    /// The row whose x is exactly `x`, or `nil`.
    ///
    /// - Complexity: O(log n).
    public func index(ofX x: Double) -> Int? {
        let ring = self.ring
        let i = ring.lowerBound(x)
        return i < ring.count && ring.x(i) == x ? i : nil
    }

    /// The rows with `fromX ≤ x ≤ toX` (empty when `fromX > toX`).
    ///
    /// - Complexity: O(log n).
    public func indexRange(fromX: Double, toX: Double) -> Range<Int> {
        let ring = self.ring
        let lo = ring.lowerBound(fromX)
        let hi = ring.upperBound(toX)
        return lo..<Swift.max(lo, hi)
    }

    /// Count, sum, min, max and mean of one series over `range` (clamped to the rows).
    ///
    /// - Complexity: O(log n).
    public func totals(series: Int, in range: Range<Int>) -> SeriesTotals {
        SeriesTotals(series: spec.series[series], aggregate: aggregate(series: series, in: range))
    }

    /// The raw aggregate of one series over `range` (clamped to the rows).
    func aggregate(series: Int, in range: Range<Int>) -> Aggregate {
        let ring = self.ring
        let lo = Swift.max(0, range.lowerBound), hi = Swift.min(ring.count, range.upperBound)
        guard lo < hi else { return .empty }
        let column = columns[series]
        let slots = column.slots, tree = column.tree
        let p = ring.slot(lo), length = hi - lo, capacity = ring.capacity
        if p + length <= capacity {
            return tree.query(p, p + length, in: slots)
        }
        let first = tree.query(p, capacity, in: slots)
        return first.merging(tree.query(0, p + length - capacity, in: slots))
    }

    /// The x domain both server and page map pointer fractions through.
    ///
    /// Category charts: `(0, count)`. Time/linear: the data's extent, extended on each side by
    /// half the mean spacing between points, so that marks at either end (bars, line markers)
    /// are drawn whole; a single point gets half a day (time) or 0.5 (linear) each side, and an
    /// empty store `(0, 1)`.
    /// - Complexity: O(1).
    public var xDomain: (Double, Double) {
        let ring = self.ring
        if spec.xKind == .category { return (0, Double(ring.count)) }
        guard ring.count > 0 else { return (0, 1) }
        let first = ring.x(0), last = ring.x(ring.count - 1)
        if ring.count > 1, last > first {
            let pad = (last - first) / Double(ring.count - 1) / 2
            return (first - pad, last + pad)
        }
        let half = spec.xKind == .time ? UTCDate.millisecondsPerDay / 2 : 0.5
        return (first - half, first + half)
    }

    /// The smallest and largest value of every series, nil with no values.
    ///
    /// - Complexity: O(1) (kept up to date by every mutation).
    public var valueExtent: ClosedRange<Double>? {
        let (lo, hi, any) = cachedYExtent
        return any ? lo...hi : nil
    }

    /// The y domain both server and page map values through; see `yDomain(for:dataMin:dataMax:hasData:)`
    /// for the policy.
    ///
    /// - Complexity: O(1) (kept up to date by every mutation).
    public var yDomain: (Double, Double) { cachedYDomain }
}
