extension SelectionEngine {
    /// Brings the selection up to date after a store mutation: recomputes the range when data
    /// arrived inside it, rows left the window or the domain moved; clears a pin (and keyboard
    /// hovers) whose row was evicted; refreshes every hover, scrub and pin value and fraction.
    /// Returns true when `selection` changed.
    ///
    /// - Complexity: O(hovers · log n + series · log n + listed range rows).
    public func dataDidChange(_ change: StoreChange) -> Bool {
        let before = selection
        refreshHovers()
        if let d = drag {
            if case .range(let a, let b) = d.kind, !rangeAffected(by: change, a: a, b: b) {
                // Rows, totals and fractions are unchanged; nothing to recompute.
            } else {
                refreshDrag()
            }
        }
        refreshPin()
        return selection != before
    }

    /// Brings the selection up to date after a category chart's value at `category` changed
    /// (hover, scrub, range and pin values follow). Returns true when `selection` changed.
    ///
    /// - Complexity: O(hovers + series · log n + listed range rows).
    public func valuesDidChange(category: Int) -> Bool {
        let before = selection
        refreshHovers()
        refreshDrag()
        refreshPin()
        return selection != before
    }

    /// Whether a range with ends `a`, `b` can differ after `change`.
    private func rangeAffected(by change: StoreChange, a: Double, b: Double) -> Bool {
        if change.evictedBefore != nil || change.xDomainChanged { return true }
        guard let lo = change.insertedX else { return false }
        if store.spec.xKind == .category { return true }
        let hi = change.insertedUpTo ?? lo
        return hi >= Swift.min(a, b) && lo <= Swift.max(a, b)
    }
}
