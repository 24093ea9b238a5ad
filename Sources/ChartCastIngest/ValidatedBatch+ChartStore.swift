import ChartEngine

/// What applying a validated batch to a `ChartStore` did, for the caller's messages and the
/// selection engine.
public struct AppliedBatch: Equatable, Sendable {
    /// Rows upserted (time/linear) or categories set (category).
    public var rowsApplied: Int
    /// Time/linear rows older than every row of a full window: inserting them would evict them
    /// at once, so they are left out (the store ends the same).
    public var rowsSkipped: Int
    /// The smallest and largest x applied (category charts: category indices); `nil` if none.
    public var xRange: ClosedRange<Double>?
    /// When rows left the rolling window: every remaining row has `x >= evictedBefore`.
    public var evictedBefore: Double?
    /// Whether `ChartStore.xDomain` / `yDomain` differ from before the batch.
    public var xDomainChanged: Bool
    public var yDomainChanged: Bool
}

/// Why a store cannot take a validated batch as is.
public struct StoreMismatch: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
}

extension ValidatedBatch {
    /// Applies the batch to `store`, upserting one row at a time in x order.
    ///
    /// The batch must have been validated against the store as it is now: the same chart, x kind,
    /// categories and series (the batch's new series are added to the store first); otherwise nothing is
    /// applied and `StoreMismatch` is thrown. An x that is
    /// already present keeps the values of the series this batch does not set (the store's
    /// `upsert` replaces the whole row, so they are read back first).
    /// - Complexity: amortised O(series · log n) per row appended after the last row; O(n) per
    ///   row inserted before the last row of a window that is not full (the store's insert).
    /// `appliedRow` is called with each row's index once it is in the store (rows skipped for
    /// being older than a full window are not).
    @discardableResult
    public func apply(to store: ChartStore, appliedRow: (Int) -> Void = { _ in }) throws -> AppliedBatch {
        if let mismatch = mismatch(with: store) { throw mismatch }
        for name in newSeries { store.addSeries(name) }
        let yBefore = store.yDomain
        var applied = store.batch { applyRows(to: store, appliedRow: appliedRow) }
        applied.yDomainChanged = store.yDomain != yBefore   // the tree and the domain settle at the batch's end
        return applied
    }

    /// Why the batch cannot be applied to `store` as it is now (`apply` would throw it), nil when
    /// it can: it was validated against another chart, x kind, set of series or categories.
    /// - Complexity: O(series + categories).
    public func mismatch(with store: ChartStore) -> StoreMismatch? {
        let existing = series.count - newSeries.count
        guard store.spec.series == Array(series.prefix(existing)), store.spec.xKind == xKind, store.spec.id == chart,
              store.spec.categories == categories, existing + newSeries.count <= ChartSpec.maxSeries else {
            return StoreMismatch(description: "chart \(Quote.string(store.spec.id)) has series \(store.spec.series), "
                + "the batch for \(Quote.string(chart)) was validated against \(series.prefix(existing))")
        }
        return nil
    }

    /// The rows, one at a time, inside the store's batch.
    private func applyRows(to store: ChartStore, appliedRow: (Int) -> Void) -> AppliedBatch {
        let spec = store.spec
        let xBefore = store.xDomain
        var applied = AppliedBatch(rowsApplied: 0, rowsSkipped: 0, xRange: nil, evictedBefore: nil,
                                   xDomainChanged: false, yDomainChanged: false)
        if xKind == .category {
            for r in 0..<rowCount {
                let category = Int(rowXs[r])
                guard category < spec.categories.count else { continue }
                for (s, y) in cells(row: r) { store.setValue(y, series: s, category: category) }
                appliedRow(r)
                applied.rowsApplied += 1
                note(rowXs[r], in: &applied)
            }
        } else if let first = rowXs.first, store.appendsInOrder(from: first) {
            // Every row after the chart's last (rows are in ascending x): one in-order append.
            let evicted = store.appendInOrder(rowXs[...]) { r, slot in
                for c in Int(rowStarts[r])..<Int(rowStarts[r + 1]) {
                    store.setAppended(cellValues[c], series: Int(cellSeries[c]), slot: slot)
                }
                appliedRow(r)
            }
            applied.evictedBefore = evicted
            applied.rowsApplied = rowCount
            applied.xRange = first...rowXs[rowCount - 1]
        } else {
            let keep = spec.window.map { Swift.max(1, $0) }
            var values = [Double?](repeating: nil, count: series.count)
            for r in 0..<rowCount {
                let x = rowXs[r]
                let count = store.count
                if let keep, count >= keep, x < store.xNumber(at: 0) {
                    applied.rowsSkipped += 1
                    continue
                }
                for s in values.indices { values[s] = nil }
                if count > 0, x <= store.xNumber(at: count - 1), let row = store.index(ofX: x) {
                    for s in values.indices { values[s] = store.y(series: s, at: row) }
                }
                fill(row: r, into: &values)
                let change = store.upsert(x: x, values: values)
                if let evicted = change.evictedBefore { applied.evictedBefore = evicted }
                appliedRow(r)
                applied.rowsApplied += 1
                note(x, in: &applied)
            }
        }
        applied.xDomainChanged = store.xDomain != xBefore
        return applied
    }

    private func note(_ x: Double, in applied: inout AppliedBatch) {
        if let range = applied.xRange {
            applied.xRange = Swift.min(range.lowerBound, x)...Swift.max(range.upperBound, x)
        } else {
            applied.xRange = x...x
        }
    }
}
