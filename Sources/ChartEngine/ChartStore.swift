/// One series' values in the store's physical slot order, with its aggregate tree.
final class SeriesColumn {
    /// Values by physical slot; `NaN` = missing.
    var slots: [Double]
    /// Count/sum/min/max over `slots`.
    var tree: BlockSegmentTree

    init(capacity: Int) {
        slots = Array(repeating: .nan, count: capacity)
        tree = BlockSegmentTree(slotCount: capacity)
    }

    /// Blocks changed while tree updates are deferred (`ChartStore.batch`), ascending runs;
    /// nil when updates are immediate.
    var dirtyBlocks: [Int]?

    /// Sets one slot and refreshes the tree path above it (or, in a batch, marks its block).
    @inline(__always)
    func set(_ value: Double, at slot: Int) {
        slots[slot] = value
        if dirtyBlocks == nil {
            tree.update(slot: slot, in: slots)
        } else {
            let block = slot >> BlockSegmentTree.blockShift
            if dirtyBlocks!.last != block { dirtyBlocks!.append(block) }
        }
    }

    /// Marks every block of slots `range` changed: refreshed now, or (in a batch) at its end.
    /// For writes of whole runs of slots, which then store their values without bookkeeping.
    /// - Complexity: O(blocks in the range), plus their tree paths outside a batch.
    func touch(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        let first = range.lowerBound >> BlockSegmentTree.blockShift, last = (range.upperBound - 1) >> BlockSegmentTree.blockShift
        if dirtyBlocks == nil {
            tree.update(blocks: Array(first...last), in: slots)
        } else {
            for block in first...last where dirtyBlocks!.last != block { dirtyBlocks!.append(block) }
        }
    }

    /// Empties slots `range` (every value missing) and marks their blocks changed.
    /// - Complexity: O(range + its blocks).
    func clear(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        slots.withUnsafeMutableBufferPointer { buffer in
            for i in range { buffer[i] = .nan }
        }
        touch(range)
    }

    /// Starts deferring tree updates.
    func deferUpdates() {
        if dirtyBlocks == nil { dirtyBlocks = [] }
    }

    /// Applies the deferred updates: each changed block and each of its ancestors once.
    func flushUpdates() {
        guard var blocks = dirtyBlocks else { return }
        dirtyBlocks = nil
        blocks.sort()
        var unique: [Int] = []
        unique.reserveCapacity(blocks.count)
        for block in blocks where unique.last != block { unique.append(block) }
        tree.update(blocks: unique, in: slots)
    }
}

/// Columnar chart data: one x column (sorted ascending, unique) and one y column per series,
/// plus per-series aggregate trees.
///
/// Rows live in a circular buffer whose capacity is a power of two, so appends at the end and
/// evictions at the front are O(log n) and never move other rows; the buffer doubles (O(n),
/// amortised O(1)) when full. Each series keeps a segment tree of count/sum/min/max over its
/// slots, so totals over any row range and the y domain are O(log n).
///
/// Category charts hold one row per category (x = the category index), created up front.
///
/// - Note: not thread-safe; use from one thread (the server's service thread).
public final class ChartStore {
    /// The chart this store holds data for; `series` grows when data names a new series.
    public private(set) var spec: ChartSpec

    /// The x column and the circular-buffer bookkeeping.
    var ring: RowRing
    /// One column per series, in `spec.series` order.
    private(set) var columns: [SeriesColumn]
    /// Category name → index (category charts only).
    let categoryIndex: [String: Int]
    /// True inside `batch`: tree and y-domain updates wait for its end.
    private var batching = false
    /// `yDomain`, recomputed after each mutation that moves the data's y extent.
    private(set) var cachedYDomain: (Double, Double) = (0, 1)
    /// The y extent (min y, max y, any values) `cachedYDomain` was computed from.
    private(set) var cachedYExtent: (Double, Double, Bool) = (0, 0, false)

    /// Number of rows (x positions; category charts: the number of categories).
    public var count: Int { ring.count }

    /// Creates an empty store (category charts: one row per category, every value missing).
    public init(spec: ChartSpec) {
        self.spec = spec
        let rows = spec.xKind == .category ? spec.categories.count : 0
        let capacity = ChartStore.capacity(for: rows)
        var ring = RowRing(capacity: capacity)
        self.columns = spec.series.map { _ in SeriesColumn(capacity: capacity) }
        var index: [String: Int] = [:]
        if spec.xKind == .category {
            for (i, name) in spec.categories.enumerated() where index[name] == nil { index[name] = i }
            for i in 0..<rows { ring.xs[i] = Double(i) }
            ring.count = rows
        }
        self.ring = ring
        self.categoryIndex = index
        self.cachedYDomain = ChartStore.yDomain(for: spec, dataMin: .infinity, dataMax: -.infinity, hasData: false)
    }

    /// Runs `body` (a run of `upsert`/`setValue` calls, e.g. one write of many rows) with the
    /// aggregate trees and the y domain updated once at its end rather than after every row:
    /// each changed block of 16 slots and each of its ancestors is recomputed once. Inside
    /// `body`, totals, `yDomain` and the `yDomainChanged` of each `StoreChange` are those of
    /// before the batch; compare the domains around the call instead.
    /// - Complexity: that of the rows' bookkeeping, plus O(changed blocks + log n) at the end
    ///   instead of O(log n) per changed slot.
    public func batch<T>(_ body: () throws -> T) rethrows -> T {
        if batching { return try body() }
        batching = true
        for column in columns { column.deferUpdates() }
        defer {
            for column in columns { column.flushUpdates() }
            batching = false
            updateYDomain()
        }
        return try body()
    }

    /// Smallest power of two ≥ max(rows, block size).
    static func capacity(for rows: Int) -> Int {
        var capacity = BlockSegmentTree.blockSize
        while capacity < rows { capacity <<= 1 }
        return capacity
    }

    var capacity: Int { ring.capacity }

    /// Physical slot of row `index`.
    @inline(__always)
    func slot(_ index: Int) -> Int { ring.slot(index) }

    /// The x value of row `index` (category name or number).
    public func x(at index: Int) -> XValue {
        if spec.xKind == .category { return .category(spec.categories[index]) }
        return .number(ring.x(index))
    }

    /// The numeric x of row `index` (category charts: the index as `Double`).
    @inline(__always)
    public func xNumber(at index: Int) -> Double { ring.x(index) }

    /// The value of series `series` at row `index`, `nil` when missing.
    @inline(__always)
    public func y(series: Int, at index: Int) -> Double? {
        let v = columns[series].slots[ring.slot(index)]
        return v.isNaN ? nil : v
    }

    /// The index of series `name`, or `nil`.
    /// - Complexity: O(series), at most 32.
    public func index(ofSeries name: String) -> Int? { spec.series.firstIndex(of: name) }

    /// Adds an empty series named `name` (every value missing) and returns its index; the
    /// existing index when the series is already there; nil when the chart already has
    /// `ChartSpec.maxSeries` series.
    /// - Complexity: O(capacity) for the new column.
    @discardableResult
    public func addSeries(_ name: String) -> Int? {
        if let existing = index(ofSeries: name) { return existing }
        guard spec.series.count < ChartSpec.maxSeries else { return nil }
        spec.series.append(name)
        let column = SeriesColumn(capacity: ring.capacity)
        if batching { column.deferUpdates() }
        columns.append(column)
        return columns.count - 1
    }

    /// The index of category `name`, or `nil` for an unknown name or a non-category chart.
    public func index(ofCategory name: String) -> Int? { categoryIndex[name] }

    /// Category charts: sets one value. Out-of-range series or categories are ignored.
    ///
    /// - Complexity: O(log n).
    @discardableResult
    public func setValue(_ y: Double, series: Int, category: Int) -> StoreChange {
        guard spec.xKind == .category, columns.indices.contains(series), category >= 0, category < count
        else { return StoreChange() }
        let before = yDomain
        columns[series].set(y, at: slot(category))
        updateYDomain()
        return StoreChange(insertedX: Double(category), evictedBefore: nil,
                           xDomainChanged: false, yDomainChanged: yDomain != before)
    }

    /// Time/linear charts: upserts one row (inserted in x order, normally at the end; an equal x
    /// replaces that row's values), then evicts the oldest rows beyond `spec.window`.
    /// `values` are in series order; missing trailing entries count as `nil`.
    /// Category charts: `x` is the category index and each non-nil value is set.
    ///
    /// - Complexity: amortised O(log n) per series for an append at the end or a replacement;
    ///   O(n) for an insertion before the last row.
    @discardableResult
    public func upsert(x: Double, values: [Double?]) -> StoreChange {
        if spec.xKind == .category {
            var change = StoreChange(insertedX: x)
            guard x.isFinite, let i = Int(exactly: x), i >= 0, i < count else { return StoreChange() }
            for (s, v) in values.enumerated() where s < columns.count {
                if let v = v {
                    let c = setValue(v, series: s, category: i)
                    change.yDomainChanged = change.yDomainChanged || c.yDomainChanged
                }
            }
            return change
        }
        guard x.isFinite else { return StoreChange() }
        let xBefore = xDomain, yBefore = yDomain
        if count == 0 || x > xNumber(at: count - 1) {
            append(x: x, values: values)
        } else {
            let i = lowerBound(x)
            if i < count && xNumber(at: i) == x {
                let p = slot(i)
                for s in columns.indices { columns[s].set(value(values, s), at: p) }
            } else {
                insert(x: x, values: values, at: i)
            }
        }
        var evictedBefore: Double? = nil
        if let window = spec.window {
            let keep = Swift.max(1, window)
            if count > keep {
                evictFront(count - keep)
                evictedBefore = xNumber(at: 0)
            }
        }
        updateYDomain()
        let xAfter = xDomain, yAfter = yDomain
        return StoreChange(insertedX: x, evictedBefore: evictedBefore,
                           xDomainChanged: xAfter != xBefore, yDomainChanged: yAfter != yBefore)
    }

    @inline(__always)
    private func value(_ values: [Double?], _ s: Int) -> Double {
        s < values.count ? (values[s] ?? .nan) : .nan
    }

    /// Appends a row after the last one, doubling the buffer first when full.
    private func append(x: Double, values: [Double?]) {
        if ring.count == ring.capacity { relayout(capacity: ring.capacity * 2) }
        let p = ring.slot(ring.count)
        ring.xs[p] = x
        for s in columns.indices { columns[s].set(value(values, s), at: p) }
        ring.count += 1
    }

    /// Inserts a row before row `index` by rewriting the buffer in logical order.
    private func insert(x: Double, values: [Double?], at index: Int) {
        var rowsX = ring.ordered()
        rowsX.insert(x, at: index)
        var rowsY: [[Double]] = columns.map { column in
            (0..<count).map { column.slots[slot($0)] }
        }
        for s in rowsY.indices { rowsY[s].insert(value(values, s), at: index) }
        load(xs: rowsX, ys: rowsY, capacity: ChartStore.capacity(for: count + 1))
    }

    /// Removes the first `k` rows.
    func evictFront(_ k: Int) {
        guard k > 0 else { return }
        // The k oldest slots: from `start`, wrapping once at the end of the ring.
        let start = ring.start, head = Swift.min(k, ring.capacity - start)
        let runs = [start..<(start + head), 0..<(k - head)]
        for run in runs where !run.isEmpty {
            ring.xs.withUnsafeMutableBufferPointer { xs in
                for i in run { xs[i] = .nan }
            }
            for column in columns { column.clear(run) }
        }
        ring.start = (start + k) & ring.mask
        ring.count -= k
    }

    /// Copies the rows, in order, into fresh buffers of `capacity` slots starting at slot 0.
    ///
    /// - Complexity: O(capacity).
    func relayout(capacity: Int) {
        let rowsX = ring.ordered()
        let rowsY = columns.map { column in (0..<count).map { column.slots[slot($0)] } }
        load(xs: rowsX, ys: rowsY, capacity: capacity)
    }

    private func load(xs rowsX: [Double], ys rowsY: [[Double]], capacity: Int) {
        var fresh = RowRing(capacity: capacity)
        fresh.xs.replaceSubrange(0..<rowsX.count, with: rowsX)
        fresh.count = rowsX.count
        ring = fresh
        for (s, column) in columns.enumerated() {
            column.slots = Array(repeating: .nan, count: capacity)
            column.slots.replaceSubrange(0..<rowsY[s].count, with: rowsY[s])
            column.tree = BlockSegmentTree(slotCount: capacity)
            column.tree.rebuild(from: column.slots)
            // The tree is whole again; blocks marked in a batch refer to the old layout.
            if column.dirtyBlocks != nil { column.dirtyBlocks = [] }
        }
    }

    /// Refreshes `cachedYDomain` when the data's y extent moved.
    ///
    /// - Complexity: O(number of series), plus the nice computation when the extent changed.
    func updateYDomain() {
        guard !batching else { return }
        var all = Aggregate.empty
        for column in columns { all = all.merging(column.tree.total) }
        let extent = (all.min, all.max, all.count > 0)
        if extent == cachedYExtent { return }
        cachedYExtent = extent
        cachedYDomain = ChartStore.yDomain(for: spec, dataMin: all.min, dataMax: all.max, hasData: all.count > 0)
    }

    /// The one y-domain policy, used by the selection engine (`ChartProxy` inverts through it),
    /// by the server's messages and, through them, by every page:
    ///
    /// - a fixed `spec.fixedYDomain` is used as is;
    /// - otherwise the data's extent, extended to include 0 for bar and area charts (both are
    ///   magnitudes drawn from 0), widened by 1 each side when every value is equal, and niced
    ///   like d3's `linear.nice(10)`;
    /// - with no data, `(0, 1)`.
    public static func yDomain(for spec: ChartSpec, dataMin: Double, dataMax: Double, hasData: Bool) -> (Double, Double) {
        if let fixed = spec.fixedYDomain { return (fixed.lowerBound, fixed.upperBound) }
        guard hasData, dataMin <= dataMax else { return (0, 1) }
        var lo = dataMin, hi = dataMax
        if spec.mark == .bar || spec.mark == .area { lo = Swift.min(lo, 0); hi = Swift.max(hi, 0) }
        if lo == hi { lo -= 1; hi += 1 }
        return NiceNumbers.nice(lo, hi, count: 10)
    }
}
