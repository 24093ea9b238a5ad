/// Rows written in x order after the last row: the common case of live data, and of a write of
/// thousands of points. `upsert` handles one row at a time, anywhere, with the domains and the
/// window brought up to date after each; this path appends a whole run of rows and trims the
/// window once, making room first so the buffer never outgrows the window.
extension ChartStore {
    /// Whether rows from `x` on can be appended in order: a time/linear chart whose rows all lie
    /// before `x`.
    /// - Complexity: O(1).
    public func appendsInOrder(from x: Double) -> Bool {
        spec.xKind != .category && x.isFinite && (count == 0 || x > xNumber(at: count - 1))
    }

    /// Appends one row per x of `xs` — ascending, the first after the last row
    /// (`appendsInOrder(from:)`) — with every value missing; `fill(k, slot)` then sets the
    /// values of the `k`-th of them with `setAppended(_:series:slot:)`. Rows beyond the window
    /// are evicted from the front: first as many existing rows as the new ones need, then (a
    /// run longer than the window) the oldest of the new ones. A batch of its own (inside an
    /// enclosing `batch`, part of that one).
    /// - Returns: the first x kept when rows were evicted (`StoreChange.evictedBefore`), else nil.
    /// - Complexity: O(rows · series), plus the trees' update at the end of the batch.
    @discardableResult
    public func appendInOrder(_ xs: ArraySlice<Double>, fill: (_ k: Int, _ slot: Int) -> Void) -> Double? {
        precondition(xs.first.map(appendsInOrder(from:)) ?? true, "rows appended in order must come after the last row")
        // The values are stored after their blocks are marked: the trees settle at the batch's end.
        return batch { appendRuns(xs, fill: fill) }
    }

    private func appendRuns(_ xs: ArraySlice<Double>, fill: (_ k: Int, _ slot: Int) -> Void) -> Double? {
        let keep = spec.window.map { Swift.max(1, $0) }
        var evicted = false
        if let keep, count + xs.count > keep, count > 0 {
            evictFront(Swift.min(count, count + xs.count - keep))
            evicted = true
        }
        // Room for every new row at once (the buffer doubles as often as needed), so their
        // slots are known up front: the slots past the last row are empty (missing) by the
        // ring's invariant, and their blocks are marked changed once per column, not per value.
        var capacity = ring.capacity
        while ring.count + xs.count > capacity { capacity *= 2 }
        if capacity != ring.capacity { relayout(capacity: capacity) }
        let begin = ring.slot(ring.count), head = Swift.min(xs.count, ring.capacity - begin)
        for run in [begin..<(begin + head), 0..<(xs.count - head)] where !run.isEmpty {
            for column in columns { column.touch(run) }
        }
        var k = 0
        for x in xs {
            let p = ring.slot(ring.count)
            assert(columns.allSatisfy { $0.slots[p].isNaN }, "a slot past the last row holds a value")
            ring.xs[p] = x
            ring.count += 1
            fill(k, p)
            k += 1
        }
        if let keep, count > keep {
            evictFront(count - keep)
            evicted = true
        }
        updateYDomain()
        return evicted ? xNumber(at: 0) : nil
    }

    /// Sets a value of a row being appended by `appendInOrder` (its `fill` hands out the slot,
    /// whose block is already marked changed).
    /// - Complexity: O(1).
    @inline(__always)
    public func setAppended(_ value: Double, series: Int, slot: Int) {
        columns[series].slots[slot] = value
    }
}
