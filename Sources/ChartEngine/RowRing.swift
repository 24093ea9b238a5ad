/// The x column of a `ChartStore`: a circular buffer of a power-of-two capacity holding the rows'
/// x values in ascending order, with the binary searches over it.
///
/// Kept as one value so that a store method reads it with a single access to the class property
/// (cheap under Swift's dynamic exclusivity checks) and then works on the local copy.
struct RowRing {
    /// x values by physical slot; `NaN` in unused slots.
    var xs: [Double]
    /// Physical slot of row 0.
    var start: Int
    /// `capacity − 1`.
    var mask: Int
    /// Number of rows.
    var count: Int

    /// An empty ring of `capacity` (a power of two) slots.
    init(capacity: Int) {
        xs = Array(repeating: .nan, count: capacity)
        start = 0
        mask = capacity - 1
        count = 0
    }

    var capacity: Int { mask + 1 }

    /// Physical slot of row `index`.
    @inline(__always)
    func slot(_ index: Int) -> Int { (start &+ index) & mask }

    /// The x of row `index`.
    @inline(__always)
    func x(_ index: Int) -> Double { xs[slot(index)] }

    /// The first row with `x >= value` (`count` when none).
    ///
    /// - Complexity: O(log n).
    func lowerBound(_ value: Double) -> Int {
        var lo = 0, hi = count
        while lo < hi {
            let mid = (lo &+ hi) >> 1
            if xs[(start &+ mid) & mask] < value { lo = mid &+ 1 } else { hi = mid }
        }
        return lo
    }

    /// The first row with `x > value` (`count` when none).
    ///
    /// - Complexity: O(log n).
    func upperBound(_ value: Double) -> Int {
        var lo = 0, hi = count
        while lo < hi {
            let mid = (lo &+ hi) >> 1
            if xs[(start &+ mid) & mask] <= value { lo = mid &+ 1 } else { hi = mid }
        }
        return lo
    }

    /// The row nearest to `value`; ties go to the earlier row. `nil` when empty.
    ///
    /// - Complexity: O(log n).
    func nearest(_ value: Double) -> Int? {
        guard count > 0, !value.isNaN else { return nil }
        let i = lowerBound(value)
        if i == 0 { return 0 }
        if i == count { return count - 1 }
        return value - x(i - 1) <= x(i) - value ? i - 1 : i
    }

    /// Rows `0..<count` in logical order.
    ///
    /// - Complexity: O(n).
    func ordered() -> [Double] { (0..<count).map { x($0) } }
}
