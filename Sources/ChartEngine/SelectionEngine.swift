/// The shared selection of one chart, fed by every viewer's raw pointer and keyboard events.
///
/// Each viewer has its own gesture recogniser and keyboard cursor; the selection they produce is
/// shared: hovers per viewer (newest first, at most 8), one drag owner per chart (scrub or range)
/// until release, leave or disconnect, and a last-writer-wins pin. Every entry point returns
/// whether `selection` changed, so the server broadcasts only real changes.
///
/// - Note: not thread-safe; call only on the thread that owns the store (the service thread).
public final class SelectionEngine {
    /// The chart's data.
    public let store: ChartStore
    /// The current shared selection.
    public internal(set) var selection: Selection = .empty

    /// Per-viewer input state.
    struct ViewerState {
        var gesture = GestureRecognizer()
        /// The current press began while another viewer owned the drag: ignore it entirely.
        var pressIgnored = false
        /// Keyboard cursor: the x of a row (category charts: the category index).
        var cursorX: Double?
    }

    /// What a hover was made from, so it can be recomputed when the data moves.
    enum HoverSource: Equatable {
        /// A pointer at this canvas x in this viewport.
        case pointer(x: Double, viewport: Viewport)
        /// A keyboard cursor on the row with this x (category charts: index).
        case mark(x: Double)
        /// A pointer at this data x (`SelectionInput`): the nearest row (category charts: the
        /// category with this index).
        case value(x: Double)
    }

    struct HoverEntry: Equatable {
        var viewer: String
        var source: HoverSource
    }

    enum DragSource: Equatable { case pointer, keyboard }

    enum DragKind: Equatable {
        /// The owner's latest pointer.
        case scrub(x: Double, y: Double, viewport: Viewport)
        /// The owner's latest pointer in data space (`SelectionInput`): the clamped x (category
        /// charts: index), nil on a plot without width, and its height in the plot.
        case scrubAt(x: Double?, yFraction: Double)
        /// Range ends in data units (category charts: indices), unordered: `a` is the anchor.
        case range(a: Double, b: Double)
    }

    struct DragState: Equatable {
        var owner: String
        var source: DragSource
        var kind: DragKind
    }

    var viewers: [String: ViewerState] = [:]
    /// Parallel to `selection.hovers`, newest first.
    var hoverEntries: [HoverEntry] = []
    var drag: DragState?
    /// The drag owner's latest input, in the caller's clock (`noteInput`), for the drag lease.
    var leaseInput: (owner: String, at: Double)?
    /// The pinned row's x (category charts: index) and who pinned it.
    var pinned: (x: Double, by: String)?

    /// Creates an engine with nothing selected.
    public init(store: ChartStore) {
        self.store = store
    }

    /// The viewer currently owning the chart's drag (pointer drag or keyboard range), if any.
    public var dragOwner: String? { drag?.owner }

    /// Whether someone other than `viewer` owns the drag.
    func isOwnedByOther(_ viewer: String) -> Bool {
        if let owner = drag?.owner { return owner != viewer }
        return false
    }

    /// Feeds one raw pointer event of `viewer` (e.g. `"v3"`) in canvas pixels, with that viewer's
    /// plot frame. Returns true when `selection` changed.
    ///
    /// - Complexity: O(log n) for hovers, scrubs and taps; a range update is O(series · log n)
    ///   plus at most 500 listed rows.
    public func pointer(viewer: String, phase: PointerPhase, x: Double, y: Double, viewport: Viewport) -> Bool {
        let before = selection
        var state = viewers[viewer] ?? ViewerState()
        let event = state.gesture.handle(phase, x: x, y: y)
        let interactions = store.spec.interactions
        let dragless = interactions.drag == .none

        switch event {
        case .hover(let px, _):
            pointerHover(viewer, x: px, viewport: viewport, state: &state)
        case .pressBegan(let px, _):
            state.pressIgnored = isOwnedByOther(viewer)
            if let d = drag, d.owner == viewer, d.source == .pointer { drag = nil; refreshDrag() }
            if !state.pressIgnored && dragless { pointerHover(viewer, x: px, viewport: viewport, state: &state) }
        case .pressMoved(let px, _):
            if !state.pressIgnored && dragless { pointerHover(viewer, x: px, viewport: viewport, state: &state) }
        case .dragBegan(let sx, _, let px, let py):
            if state.pressIgnored || isOwnedByOther(viewer) {
                state.pressIgnored = true
            } else if dragless {
                pointerHover(viewer, x: px, viewport: viewport, state: &state)
            } else {
                let proxy = ChartProxy(store: store, viewport: viewport)
                let kind: DragKind = interactions.drag == .scrub
                    ? .scrub(x: px, y: py, viewport: viewport)
                    : .range(a: rangeEnd(proxy, pointerX: sx), b: rangeEnd(proxy, pointerX: px))
                drag = DragState(owner: viewer, source: .pointer, kind: kind)
                removeHover(viewer)
                refreshDrag()
            }
        case .dragMoved(_, _, let px, let py):
            if let d = drag, d.owner == viewer, d.source == .pointer {
                switch d.kind {
                case .scrub, .scrubAt:
                    drag?.kind = .scrub(x: px, y: py, viewport: viewport)
                case .range(let a, _):
                    let proxy = ChartProxy(store: store, viewport: viewport)
                    drag?.kind = .range(a: a, b: rangeEnd(proxy, pointerX: px))
                }
                refreshDrag()
            } else if !state.pressIgnored && dragless {
                pointerHover(viewer, x: px, viewport: viewport, state: &state)
            }
        case .dragEnded:
            endPointerDrag(of: viewer)
            state.pressIgnored = false
        case .tap(let px, _):
            if !state.pressIgnored && !isOwnedByOther(viewer) && interactions.tap {
                let proxy = ChartProxy(store: store, viewport: viewport)
                togglePin(by: viewer, index: pointIndex(proxy, pointerX: px))
            }
            state.pressIgnored = false
        case .left:
            removeHover(viewer)
            endPointerDrag(of: viewer)
            state.pressIgnored = false
        case .none:
            break
        }
        viewers[viewer] = state
        return selection != before
    }

    /// Drops everything `viewer` holds: its hover, its drag (scrub or range, pointer or
    /// keyboard) and its keyboard state. The pin stays (it is shared). Returns true on change.
    public func removeViewer(_ viewer: String) -> Bool {
        let before = selection
        viewers.removeValue(forKey: viewer)
        removeHover(viewer)
        if drag?.owner == viewer {
            drag = nil
            refreshDrag()
        }
        return selection != before
    }

    /// Ends `viewer`'s pointer drag, if it owns one (a keyboard range survives pointer releases).
    func endPointerDrag(of viewer: String) {
        guard let d = drag, d.owner == viewer, d.source == .pointer else { return }
        drag = nil
        refreshDrag()
    }

    /// Sets or replaces `viewer`'s hover from a pointer at canvas x (only on charts that hover).
    func pointerHover(_ viewer: String, x: Double, viewport: Viewport, state: inout ViewerState) {
        guard store.spec.interactions.hover else { return }
        let entry = HoverEntry(viewer: viewer, source: .pointer(x: x, viewport: viewport))
        if let index = setHover(entry) { state.cursorX = store.xNumber(at: index) }
    }
}
