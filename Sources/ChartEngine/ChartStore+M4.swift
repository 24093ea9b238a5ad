/// The rows of a store that fall into each column of an M4 grid, shared by every series of the
/// store (the x column is read once per downsampling, whatever the number of series).
public struct M4Plan: Sendable {
    /// The grid.
    public let grid: M4Grid
    /// The rows with `grid.from ≤ x ≤ grid.to`.
    public let rows: Range<Int>
    /// Column `c` holds rows `starts[c] ..< starts[c + 1]`.
    let starts: [Int]
}

extension ChartStore {
    /// The rows of `grid`'s domain and where each of its columns starts.
    /// Time/linear charts only (a category chart's rows are its categories).
    /// - Complexity: O(log n) to find the rows, then O(columns · log n) (or O(rows + columns)
    ///   when the rows are few).
    public func m4Plan(_ grid: M4Grid) -> M4Plan {
        let ring = self.ring
        let rows = indexRange(fromX: grid.from, toX: grid.to)
        let starts = grid.columnStarts(rows: rows) { ring.x($0) }
        return M4Plan(grid: grid, rows: rows, starts: starts)
    }

    /// Appends to `out` the rows M4 keeps of series `series` under `plan`, ascending: per column
    /// its first, last, smallest and largest present value, each row once. `plan` must have
    /// been made from this store as it is now.
    ///
    /// The values are read through a raw pointer (`M4.scan`). Every column's rows lie in
    /// `plan.rows`, checked here to end within the store's rows, so every slot read is one of
    /// the ring's `capacity` slots, and the series' `slots` array has exactly `capacity` values.
    /// - Complexity: O(rows in the plan), two comparisons per value; no allocation beyond `out`.
    public func m4Rows(series: Int, plan: M4Plan, into out: inout [Int]) {
        let ring = self.ring
        let start = ring.start, mask = ring.mask, capacity = ring.capacity
        let starts = plan.starts
        precondition(plan.rows.lowerBound >= 0 && plan.rows.upperBound <= ring.count && columns[series].slots.count == capacity,
                     "an M4 plan of another store or state")
        columns[series].slots.withUnsafeBufferPointer { buffer in
            guard let ys = buffer.baseAddress else { return }
            for c in 0..<plan.grid.columns {
                let lo = starts[c], hi = starts[c + 1]
                guard lo < hi else { continue }
                let p = (start &+ lo) & mask, length = hi &- lo
                let pick: M4.Pick?
                if p &+ length <= capacity {
                    pick = M4.scan(ys, p, p &+ length)
                } else {
                    // The column wraps around the end of the ring: scan both pieces. Slots of
                    // the second piece are offset by `capacity` so that they compare after the first.
                    let head = M4.scan(ys, p, capacity)
                    var tail = M4.scan(ys, 0, p &+ length &- capacity)
                    if var t = tail {
                        t.first &+= capacity; t.low &+= capacity; t.high &+= capacity; t.last &+= capacity
                        tail = t
                    }
                    pick = M4.merge(head, tail)
                }
                guard var kept = pick else { continue }
                // Slots (possibly offset by one capacity) back to rows.
                kept.first = (kept.first &- start) & mask
                kept.low = (kept.low &- start) & mask
                kept.high = (kept.high &- start) & mask
                kept.last = (kept.last &- start) & mask
                M4.emit(kept, into: &out)
            }
        }
    }

    /// Every series' M4 rows for `grid`, in series order.
    /// - Complexity: O(rows in the domain · series).
    public func m4Rows(_ grid: M4Grid) -> [[Int]] {
        let plan = m4Plan(grid)
        return spec.series.indices.map { s in
            var out: [Int] = []
            out.reserveCapacity(Swift.min(plan.rows.count, 4 * grid.columns))
            m4Rows(series: s, plan: plan, into: &out)
            return out
        }
    }
}
