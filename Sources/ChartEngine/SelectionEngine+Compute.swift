extension SelectionEngine {
    private var isCategory: Bool { store.spec.xKind == .category }

    /// Every series' value at row `index`.
    func values(at index: Int) -> [SeriesValue] {
        store.spec.series.indices.map { SeriesValue(series: store.spec.series[$0], y: store.y(series: $0, at: index)) }
    }

    /// Data-order fraction of row `index`: the category centre, or the point's x in the domain.
    func fraction(ofRow index: Int) -> Double {
        if isCategory { return (Double(index) + 0.5) / Double(store.count) }
        let (d0, d1) = store.xDomain
        return LinearScale(domain: (d0, d1)).fraction(store.xNumber(at: index))
    }

    /// The row a pointer hovers: the category under it, or the nearest point by x; `nil` outside
    /// the plot or with no data.
    func hoverIndex(_ proxy: ChartProxy, pointerX: Double) -> Int? {
        if isCategory { return proxy.categoryIndex(forPointerX: pointerX, clamp: false) }
        guard proxy.containsX(pointerX) else { return nil }
        return store.nearestIndex(toX: proxy.xNumber(forPointerX: pointerX))
    }

    /// The row a tap selects: same as a hover (nearest point by x inside the plot).
    func pointIndex(_ proxy: ChartProxy, pointerX: Double) -> Int? {
        hoverIndex(proxy, pointerX: pointerX)
    }

    /// The row a scrub shows: the mark under the pointer, clamped to the first/last row.
    func scrubIndex(_ proxy: ChartProxy, pointerX: Double) -> Int? {
        if isCategory { return proxy.categoryIndex(forPointerX: pointerX, clamp: true) }
        guard store.count > 0 else { return nil }
        let (d0, d1) = proxy.xDomain
        let x = Swift.min(d1, Swift.max(d0, proxy.xNumber(forPointerX: pointerX)))
        return store.nearestIndex(toX: x)
    }

    /// A range end for a pointer: the x value under it clamped to the viewer's domain (category
    /// charts: the category index under it, clamped to the first/last).
    func rangeEnd(_ proxy: ChartProxy, pointerX: Double) -> Double {
        if isCategory { return Double(proxy.categoryIndex(forPointerX: pointerX, clamp: true) ?? 0) }
        let (d0, d1) = proxy.xDomain
        return Swift.min(d1, Swift.max(d0, proxy.xNumber(forPointerX: pointerX)))
    }

    /// The row a hover entry points at now, or `nil` when it no longer points at anything.
    func row(for source: HoverSource) -> Int? {
        switch source {
        case .pointer(let x, let viewport):
            return hoverIndex(ChartProxy(store: store, viewport: viewport), pointerX: x)
        case .mark(let x):
            return rowIndex(ofX: x)
        case .value(let x):
            return valueIndex(x)
        }
    }

    /// The row with exactly this x (category charts: this index), if present.
    func rowIndex(ofX x: Double) -> Int? {
        if isCategory {
            guard let i = Int(exactly: x), i >= 0, i < store.count else { return nil }
            return i
        }
        return store.index(ofX: x)
    }

    /// The hover for `viewer` on row `index`.
    func makeHover(_ viewer: String, index: Int) -> Hover {
        let f = fraction(ofRow: index)
        let trailing = isCategory ? Double(index) < Double(store.count) / 2 : f < 0.5
        return Hover(by: viewer, x: store.x(at: index), fraction: f,
                     placement: trailing ? .trailing : .leading, values: values(at: index))
    }

    /// The row a data-space pointer x stands for: the nearest row (category charts: the
    /// category with that index), nil with no data.
    func valueIndex(_ x: Double) -> Int? {
        isCategory ? rowIndex(ofX: x) : store.nearestIndex(toX: x)
    }

    /// The scrub for the current drag, if it is one.
    func makeScrub(_ d: DragState) -> Scrub? {
        if case .scrubAt(let x, let yFraction) = d.kind {
            guard let x, let i = valueIndex(x) else { return nil }
            return Scrub(by: d.owner, x: store.x(at: i), values: values(at: i), fraction: fraction(ofRow: i), yFraction: yFraction)
        }
        guard case .scrub(let x, let y, let viewport) = d.kind else { return nil }
        let proxy = ChartProxy(store: store, viewport: viewport)
        guard let i = scrubIndex(proxy, pointerX: x) else { return nil }
        return Scrub(by: d.owner, x: store.x(at: i), values: values(at: i),
                     fraction: fraction(ofRow: i), yFraction: proxy.yFraction(forPointerY: y))
    }

    /// The range for the current drag, if it is one: ends ordered and clamped, rows (at most
    /// 500), counts and per-series totals.
    ///
    /// - Complexity: O(series · log n + listed rows).
    func makeRange(_ d: DragState) -> RangeSelection? {
        guard case .range(let a, let b) = d.kind, store.count > 0 else { return nil }
        let from: XValue, to: XValue, fromFraction: Double, toFraction: Double
        let rows: Range<Int>
        if isCategory {
            let n = store.count
            let lo = Swift.min(n - 1, Swift.max(0, Int(Swift.min(a, b))))
            let hi = Swift.min(n - 1, Swift.max(0, Int(Swift.max(a, b))))
            from = store.x(at: lo)
            to = store.x(at: hi)
            fromFraction = Double(lo) / Double(n)
            toFraction = Double(hi + 1) / Double(n)
            rows = lo..<(hi + 1)
        } else {
            let (d0, d1) = store.xDomain
            let lo = Swift.min(d1, Swift.max(d0, Swift.min(a, b)))
            let hi = Swift.min(d1, Swift.max(d0, Swift.max(a, b)))
            let scale = LinearScale(domain: (d0, d1))
            from = .number(lo)
            to = .number(hi)
            fromFraction = scale.fraction(lo)
            toFraction = scale.fraction(hi)
            rows = store.indexRange(fromX: lo, toX: hi)
        }
        let totals = store.spec.series.indices.map { store.totals(series: $0, in: rows) }
        let count = totals.reduce(0) { $0 + $1.count }
        var listed: [SeriesPoint] = []
        listed.reserveCapacity(Swift.min(count, Selection.maxRangeRows))
        var i = rows.lowerBound
        fill: while i < rows.upperBound {
            let x = store.x(at: i)
            for s in store.spec.series.indices {
                guard let y = store.y(series: s, at: i) else { continue }
                if listed.count == Selection.maxRangeRows { break fill }
                listed.append(SeriesPoint(series: store.spec.series[s], x: x, y: y))
            }
            i += 1
        }
        return RangeSelection(by: d.owner, from: from, to: to, fromFraction: fromFraction,
                              toFraction: toFraction, count: count, totals: totals,
                              rows: listed, truncated: count > listed.count)
    }

    /// Recomputes `selection.scrub` and `selection.range` from `drag`.
    func refreshDrag() {
        guard let d = drag else {
            selection.scrub = nil
            selection.range = nil
            return
        }
        selection.scrub = makeScrub(d)
        selection.range = makeRange(d)
    }

    /// Recomputes `selection.pin` from `pinned`, clearing a pin whose row is gone.
    func refreshPin() {
        guard let p = pinned, let i = rowIndex(ofX: p.x) else {
            pinned = nil
            selection.pin = nil
            return
        }
        selection.pin = Pin(by: p.by, x: store.x(at: i), values: values(at: i), fraction: fraction(ofRow: i))
    }

    /// Tap semantics: pins row `index`, or clears the pin when that row is already pinned or
    /// there is no row (a tap outside the plot clears, as in seed 004).
    func togglePin(by viewer: String, index: Int?) {
        guard let index = index else {
            pinned = nil
            refreshPin()
            return
        }
        let x = store.xNumber(at: index)
        if let p = pinned, p.x == x {
            pinned = nil
        } else {
            pinned = (x, viewer)
        }
        refreshPin()
    }

    /// Inserts or replaces `entry.viewer`'s hover. An unchanged hover keeps its place (only its
    /// source is updated); a changed one moves to the front; at most 8 are kept. A source that
    /// points at nothing removes the viewer's hover. Returns the hovered row.
    @discardableResult
    func setHover(_ entry: HoverEntry) -> Int? {
        let existing = hoverEntries.firstIndex { $0.viewer == entry.viewer }
        guard let index = row(for: entry.source) else {
            if let e = existing {
                hoverEntries.remove(at: e)
                selection.hovers.remove(at: e)
            }
            return nil
        }
        let hover = makeHover(entry.viewer, index: index)
        if let e = existing {
            if selection.hovers[e] == hover {
                hoverEntries[e] = entry
                return index
            }
            hoverEntries.remove(at: e)
            selection.hovers.remove(at: e)
        }
        hoverEntries.insert(entry, at: 0)
        selection.hovers.insert(hover, at: 0)
        if hoverEntries.count > Selection.maxHovers {
            hoverEntries.removeLast(hoverEntries.count - Selection.maxHovers)
            selection.hovers.removeLast(selection.hovers.count - Selection.maxHovers)
        }
        return index
    }

    /// Removes `viewer`'s hover, if any.
    func removeHover(_ viewer: String) {
        guard let e = hoverEntries.firstIndex(where: { $0.viewer == viewer }) else { return }
        hoverEntries.remove(at: e)
        selection.hovers.remove(at: e)
    }

    /// Recomputes every hover from its source, dropping those that point at nothing now.
    func refreshHovers() {
        var entries: [HoverEntry] = []
        var hovers: [Hover] = []
        for entry in hoverEntries {
            guard let index = row(for: entry.source) else { continue }
            entries.append(entry)
            hovers.append(makeHover(entry.viewer, index: index))
        }
        hoverEntries = entries
        selection.hovers = hovers
    }
}
