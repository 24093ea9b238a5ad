/// The shared part of a chart's selection engine, as one value: what every instance of a
/// dashboard holds alike (`docs/scale-out.md`), so that a new instance can start from it and
/// apply the stream's later entries with the same results.
///
/// It leaves out what stays with the instance holding a viewer: gesture recognisers (each
/// viewer's press and slop) and the drag lease's clock.
public struct SharedSelectionState: Equatable, Sendable {
    /// What a hover was made from.
    public enum HoverSource: Equatable, Sendable {
        /// A pointer at canvas x in that viewport (a single server's input).
        case pointer(x: Double, viewport: Viewport)
        /// A keyboard cursor on the row with this x (category charts: index).
        case mark(x: Double)
        /// A pointer at this data x (category charts: index).
        case value(x: Double)
    }

    /// One hover's viewer and source, newest first.
    public struct Hover: Equatable, Sendable {
        public var viewer: String
        public var source: HoverSource
        public init(viewer: String, source: HoverSource) {
            self.viewer = viewer
            self.source = source
        }
    }

    /// What the drag owner holds.
    public enum DragKind: Equatable, Sendable {
        case scrub(x: Double, y: Double, viewport: Viewport)
        case scrubAt(x: Double?, yFraction: Double)
        case range(a: Double, b: Double)
    }

    /// The drag and its owner.
    public struct Drag: Equatable, Sendable {
        public var owner: String
        /// A keyboard range (else a pointer drag).
        public var keyboard: Bool
        public var kind: DragKind
        public init(owner: String, keyboard: Bool, kind: DragKind) {
            self.owner = owner
            self.keyboard = keyboard
            self.kind = kind
        }
    }

    /// One viewer's shared input state.
    public struct ViewerInput: Equatable, Sendable {
        public var viewer: String
        /// The rest of its current press is ignored (it began while another viewer dragged).
        public var pressIgnored: Bool
        /// Its keyboard cursor's x.
        public var cursorX: Double?
        public init(viewer: String, pressIgnored: Bool, cursorX: Double?) {
            self.viewer = viewer
            self.pressIgnored = pressIgnored
            self.cursorX = cursorX
        }
    }

    /// The selection as last computed (and broadcast).
    public var selection: Selection
    public var hovers: [Hover]
    public var drag: Drag?
    /// The pinned row's x (category charts: index) and who pinned it.
    public var pinnedX: Double?
    public var pinnedBy: String?
    /// Every viewer with a shared input state (a press ignored, a keyboard cursor), by id.
    public var viewers: [ViewerInput]

    public init(selection: Selection, hovers: [Hover], drag: Drag?, pinnedX: Double?, pinnedBy: String?, viewers: [ViewerInput]) {
        self.selection = selection
        self.hovers = hovers
        self.drag = drag
        self.pinnedX = pinnedX
        self.pinnedBy = pinnedBy
        self.viewers = viewers
    }
}

extension SelectionEngine {
    /// The engine's shared state (viewers in id order, so engines that behave alike give equal
    /// values).
    /// - Complexity: O(viewers · log viewers + hovers).
    public func sharedState() -> SharedSelectionState {
        let hovers = hoverEntries.map { entry -> SharedSelectionState.Hover in
            switch entry.source {
            case .pointer(let x, let viewport): return .init(viewer: entry.viewer, source: .pointer(x: x, viewport: viewport))
            case .mark(let x): return .init(viewer: entry.viewer, source: .mark(x: x))
            case .value(let x): return .init(viewer: entry.viewer, source: .value(x: x))
            }
        }
        let shared = drag.map { d -> SharedSelectionState.Drag in
            let kind: SharedSelectionState.DragKind
            switch d.kind {
            case .scrub(let x, let y, let viewport): kind = .scrub(x: x, y: y, viewport: viewport)
            case .scrubAt(let x, let yFraction): kind = .scrubAt(x: x, yFraction: yFraction)
            case .range(let a, let b): kind = .range(a: a, b: b)
            }
            return .init(owner: d.owner, keyboard: d.source == .keyboard, kind: kind)
        }
        // A viewer with neither is as one the engine never saw (its recogniser is local).
        let inputs = viewers.keys.sorted().compactMap { id -> SharedSelectionState.ViewerInput? in
            let state = viewers[id]!
            guard state.pressIgnored || state.cursorX != nil else { return nil }
            return SharedSelectionState.ViewerInput(viewer: id, pressIgnored: state.pressIgnored, cursorX: state.cursorX)
        }
        return SharedSelectionState(selection: selection, hovers: hovers, drag: shared, pinnedX: pinned?.x,
                                    pinnedBy: pinned?.by, viewers: inputs)
    }

    /// Takes `state` as the engine's shared state, keeping the gesture recognisers of
    /// `gestures` (the engine this one replaces, on an instance that already holds viewers):
    /// a viewer pressing there is still pressing here. The drag lease starts again.
    /// - Complexity: O(viewers + hovers).
    public func restore(_ state: SharedSelectionState, keepingGesturesOf gestures: SelectionEngine? = nil) {
        selection = state.selection
        hoverEntries = state.hovers.map { hover in
            switch hover.source {
            case .pointer(let x, let viewport): return HoverEntry(viewer: hover.viewer, source: .pointer(x: x, viewport: viewport))
            case .mark(let x): return HoverEntry(viewer: hover.viewer, source: .mark(x: x))
            case .value(let x): return HoverEntry(viewer: hover.viewer, source: .value(x: x))
            }
        }
        drag = state.drag.map { d in
            let kind: DragKind
            switch d.kind {
            case .scrub(let x, let y, let viewport): kind = .scrub(x: x, y: y, viewport: viewport)
            case .scrubAt(let x, let yFraction): kind = .scrubAt(x: x, yFraction: yFraction)
            case .range(let a, let b): kind = .range(a: a, b: b)
            }
            return DragState(owner: d.owner, source: d.keyboard ? .keyboard : .pointer, kind: kind)
        }
        pinned = state.pinnedX.map { ($0, state.pinnedBy ?? "") }
        leaseInput = nil
        var restored: [String: ViewerState] = [:]
        for input in state.viewers {
            var viewer = ViewerState()
            viewer.pressIgnored = input.pressIgnored
            viewer.cursorX = input.cursorX
            restored[input.viewer] = viewer
        }
        if let gestures {
            for (id, old) in gestures.viewers {
                restored[id, default: ViewerState()].gesture = old.gesture
            }
        }
        viewers = restored
    }
}
