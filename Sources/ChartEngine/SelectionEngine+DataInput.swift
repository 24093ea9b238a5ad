extension SelectionEngine {
    /// The local half of a pointer event when several instances share the selection: feeds the
    /// event to `viewer`'s gesture recogniser and maps it through that viewer's geometry
    /// (`viewport`, with its zoomed domain) into a data-space input. Changes nothing shared:
    /// the input takes effect when it is handed to `apply(_:from:)`, on every instance alike.
    /// Returns nil when the event meant nothing (a release with nothing pressed).
    ///
    /// The mapping is the one `pointer(viewer:phase:x:y:viewport:)` uses: a hover is the x
    /// under the pointer inside the plot; a drag carries that, the x clamped to the viewer's
    /// domain and the pointer's height; a drag's start is the press point's clamped x.
    /// - Complexity: O(1).
    public func recognize(viewer: String, phase: PointerPhase, x: Double, y: Double, viewport: Viewport) -> SelectionInput? {
        var state = viewers[viewer] ?? ViewerState()
        let event = state.gesture.handle(phase, x: x, y: y)
        viewers[viewer] = state
        let proxy = ChartProxy(store: store, viewport: viewport)
        switch event {
        case .hover(let px, _):
            return .hover(x: hoverValue(proxy, pointerX: px))
        case .pressBegan(let px, _):
            return .pressBegan(hoverX: hoverValue(proxy, pointerX: px))
        case .pressMoved(let px, _):
            return .pressMoved(hoverX: hoverValue(proxy, pointerX: px))
        case .dragBegan(let sx, _, let px, let py):
            return .dragBegan(dragPoint(proxy, x: px, y: py), rangeStart: rangeEnd(proxy, pointerX: sx))
        case .dragMoved(_, _, let px, let py):
            return .dragMoved(dragPoint(proxy, x: px, y: py))
        case .dragEnded:
            return .dragEnded
        case .tap(let px, _):
            return .tap(x: hoverValue(proxy, pointerX: px))
        case .left:
            return .left
        case .none:
            return nil
        }
    }

    /// Whether `viewer`'s gesture recogniser holds a press (for `revokeDrag(ownerPressed:)`,
    /// which the instance holding the owner decides).
    public func isPressing(_ viewer: String) -> Bool {
        viewers[viewer]?.gesture.isPressed == true
    }

    /// The shared half: applies one data-space input of `viewer` (made by `recognize` on the
    /// instance holding it) with the decisions `pointer` makes — one drag owner, a press
    /// ignored while another viewer drags, taps toggling the pin, hovers newest first.
    /// Returns true when `selection` changed.
    /// - Complexity: as `pointer`.
    public func apply(_ input: SelectionInput, from viewer: String) -> Bool {
        let before = selection
        var state = viewers[viewer] ?? ViewerState()
        let interactions = store.spec.interactions
        let dragless = interactions.drag == .none

        switch input {
        case .hover(let x):
            valueHover(viewer, x: x, state: &state)
        case .pressBegan(let x):
            state.pressIgnored = isOwnedByOther(viewer)
            if let d = drag, d.owner == viewer, d.source == .pointer { drag = nil; refreshDrag() }
            if !state.pressIgnored && dragless { valueHover(viewer, x: x, state: &state) }
        case .pressMoved(let x):
            if !state.pressIgnored && dragless { valueHover(viewer, x: x, state: &state) }
        case .dragBegan(let point, let start):
            if state.pressIgnored || isOwnedByOther(viewer) {
                state.pressIgnored = true
            } else if dragless {
                valueHover(viewer, x: point.hoverX, state: &state)
            } else {
                let kind: DragKind = interactions.drag == .scrub
                    ? .scrubAt(x: point.clampedX, yFraction: point.yFraction)
                    : .range(a: start, b: point.clampedX ?? 0)
                drag = DragState(owner: viewer, source: .pointer, kind: kind)
                removeHover(viewer)
                refreshDrag()
            }
        case .dragMoved(let point):
            if let d = drag, d.owner == viewer, d.source == .pointer {
                switch d.kind {
                case .scrub, .scrubAt:
                    drag?.kind = .scrubAt(x: point.clampedX, yFraction: point.yFraction)
                case .range(let a, _):
                    drag?.kind = .range(a: a, b: point.clampedX ?? 0)
                }
                refreshDrag()
            } else if !state.pressIgnored && dragless {
                valueHover(viewer, x: point.hoverX, state: &state)
            }
        case .dragEnded:
            endPointerDrag(of: viewer)
            state.pressIgnored = false
        case .tap(let x):
            if !state.pressIgnored && !isOwnedByOther(viewer) && interactions.tap {
                togglePin(by: viewer, index: x.flatMap { valueIndex($0) })
            }
            state.pressIgnored = false
        case .left:
            removeHover(viewer)
            endPointerDrag(of: viewer)
            state.pressIgnored = false
        }
        viewers[viewer] = state
        return selection != before
    }

    /// Ends the drag whoever owns it, as `revokeDrag()`, with the owner's press state given by
    /// the instance that holds the owner (`isPressing`) instead of read from this engine's
    /// recogniser: every instance then ignores the rest of that press alike.
    /// - Complexity: O(1), plus `refreshDrag`.
    @discardableResult
    public func revokeDrag(ownerPressed: Bool) -> String? {
        guard let owner = drag?.owner else { return nil }
        drag = nil
        leaseInput = nil
        if ownerPressed {
            var state = viewers[owner] ?? ViewerState()
            state.pressIgnored = true
            viewers[owner] = state
        }
        refreshDrag()
        return owner
    }

    /// The drag owner when it has sent no input (`noteInput`) for `lease` seconds at `now`,
    /// without ending the drag (the caller logs the expiry so that every instance ends it at
    /// the same point); its lease starts again now, so it is reported once per lease. A drag
    /// whose owner was never noted starts its lease now. Nil while the lease holds.
    /// - Complexity: O(1).
    public func idleDragOwner(now: Double, lease: Double) -> String? {
        guard let owner = drag?.owner else {
            leaseInput = nil
            return nil
        }
        guard let input = leaseInput, input.owner == owner else {
            leaseInput = (owner, now)
            return nil
        }
        guard now - input.at >= lease else { return nil }
        leaseInput = (owner, now)
        return owner
    }

    /// The data x a pointer hovers: the x number inside the plot (category charts: the index of
    /// the category under it), nil outside.
    func hoverValue(_ proxy: ChartProxy, pointerX: Double) -> Double? {
        if store.spec.xKind == .category { return proxy.categoryIndex(forPointerX: pointerX, clamp: false).map(Double.init) }
        guard proxy.containsX(pointerX) else { return nil }
        return proxy.xNumber(forPointerX: pointerX)
    }

    /// A dragging pointer in data space.
    func dragPoint(_ proxy: ChartProxy, x: Double, y: Double) -> DragPoint {
        let clamped: Double?
        if store.spec.xKind == .category {
            clamped = proxy.categoryIndex(forPointerX: x, clamp: true).map(Double.init)
        } else {
            let (d0, d1) = proxy.xDomain
            clamped = Swift.min(d1, Swift.max(d0, proxy.xNumber(forPointerX: x)))
        }
        return DragPoint(hoverX: hoverValue(proxy, pointerX: x), clampedX: clamped, yFraction: proxy.yFraction(forPointerY: y))
    }

    /// Sets `viewer`'s hover at data x (only on charts that hover); nil removes it.
    func valueHover(_ viewer: String, x: Double?, state: inout ViewerState) {
        guard store.spec.interactions.hover else { return }
        guard let x else {
            removeHover(viewer)
            return
        }
        if let index = setHover(HoverEntry(viewer: viewer, source: .value(x: x))) { state.cursorX = store.xNumber(at: index) }
    }
}
