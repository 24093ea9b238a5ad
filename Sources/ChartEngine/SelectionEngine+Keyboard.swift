extension SelectionEngine {
    /// Feeds one keyboard command of `viewer` on this chart. Returns true when `selection` changed.
    ///
    /// - `left`/`right`/`home`/`end` move the viewer's cursor (starting from its hover, or from
    ///   the first row for `right`/`home` and the last for `left`/`end`) and set its hover there,
    ///   on any chart.
    /// - With `shift` on a range chart, the same keys extend a range from an anchor (the cursor
    ///   when shift started) to the cursor; the viewer becomes the drag owner (ignored while
    ///   someone else owns the drag: then the key only moves the cursor). The range stays until
    ///   `escape` or a key without shift.
    /// - `enter` on a tap chart pins the cursor's row, or unpins it when already pinned.
    /// - `escape` clears the viewer's hover, its keyboard range, its cursor and the pin.
    ///
    /// `viewport` is accepted for symmetry with pointer events; keyboard results do not depend on it.
    ///
    /// - Complexity: O(log n), plus a range update as in `pointer`.
    public func key(viewer: String, command: KeyCommand, shift: Bool, viewport: Viewport?) -> Bool {
        let before = selection
        var state = viewers[viewer] ?? ViewerState()
        defer { viewers[viewer] = state }
        let ownsKeyboardRange = drag.map { $0.owner == viewer && $0.source == .keyboard } ?? false

        switch command {
        case .left, .right, .home, .end:
            guard store.count > 0 else { return false }
            let current = cursorIndex(viewer, state: state)
            let last = store.count - 1
            let next: Int
            switch command {
            case .left: next = current.map { Swift.max(0, $0 - 1) } ?? last
            case .right: next = current.map { Swift.min(last, $0 + 1) } ?? 0
            case .home: next = 0
            default: next = last
            }
            let nextX = store.xNumber(at: next)
            let extendsRange = shift && store.spec.interactions.drag == .range && !isOwnedByOther(viewer)
            if extendsRange {
                let anchor: Double
                if ownsKeyboardRange, case .range(let a, _)? = drag?.kind {
                    anchor = a
                } else {
                    anchor = current.map { store.xNumber(at: $0) } ?? nextX
                }
                drag = DragState(owner: viewer, source: .keyboard, kind: .range(a: anchor, b: nextX))
                refreshDrag()
            } else if ownsKeyboardRange {
                drag = nil
                refreshDrag()
            }
            state.cursorX = nextX
            setHover(HoverEntry(viewer: viewer, source: .mark(x: nextX)))
        case .enter:
            guard store.spec.interactions.tap, let index = cursorIndex(viewer, state: state) else { break }
            togglePin(by: viewer, index: index)
        case .escape:
            removeHover(viewer)
            if ownsKeyboardRange {
                drag = nil
                refreshDrag()
            }
            state.cursorX = nil
            if pinned != nil {
                pinned = nil
                refreshPin()
            }
        }
        return selection != before
    }

    /// The row under `viewer`'s keyboard cursor (the nearest row if its own left the window),
    /// falling back to the row of its hover; `nil` when it has neither.
    func cursorIndex(_ viewer: String, state: ViewerState) -> Int? {
        if let x = state.cursorX, store.count > 0 {
            if store.spec.xKind == .category {
                return Swift.min(store.count - 1, Swift.max(0, Int(x)))
            }
            return store.nearestIndex(toX: x)
        }
        if let e = hoverEntries.firstIndex(where: { $0.viewer == viewer }) {
            return row(for: hoverEntries[e].source)
        }
        return nil
    }
}
