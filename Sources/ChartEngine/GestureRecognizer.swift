/// What a raw pointer event meant, as decided by a `GestureRecognizer`.
public enum GestureEvent: Equatable, Sendable {
    /// A move with nothing pressed.
    case hover(x: Double, y: Double)
    /// A press started at this point.
    case pressBegan(x: Double, y: Double)
    /// A press moved but is still within the slop of where it started.
    case pressMoved(x: Double, y: Double)
    /// A press moved past the slop: a drag starts now. `startX/startY` is the press point.
    case dragBegan(startX: Double, startY: Double, x: Double, y: Double)
    /// An ongoing drag moved.
    case dragMoved(startX: Double, startY: Double, x: Double, y: Double)
    /// An ongoing drag ended by release.
    case dragEnded(x: Double, y: Double)
    /// A press released within the slop.
    case tap(x: Double, y: Double)
    /// The pointer left the canvas (any press or drag is abandoned).
    case left(wasDragging: Bool)
    /// Nothing happened (e.g. a release with nothing pressed).
    case none
}

/// Turns one viewer's raw `down`/`move`/`up`/`leave` on one chart into hovers, taps and drags.
///
/// A press becomes a drag once the pointer is more than `slop` pixels (straight line) from where
/// it was pressed; a press released within the slop is a tap; a move with nothing pressed is a
/// hover. A `down` while already pressed restarts the press (a missed `up`).
public struct GestureRecognizer: Equatable, Sendable {
    /// The drag threshold in CSS pixels.
    public static let slop = 5.0

    /// The recogniser's state.
    public enum State: Equatable, Sendable {
        case idle
        case pressed(startX: Double, startY: Double)
        case dragging(startX: Double, startY: Double)
    }

    /// The current state.
    public private(set) var state: State = .idle

    /// Creates an idle recogniser.
    public init() {}

    /// Whether a button is held (pressed or dragging).
    public var isPressed: Bool { state != .idle }

    /// Feeds one raw event and returns what it meant.
    public mutating func handle(_ phase: PointerPhase, x: Double, y: Double) -> GestureEvent {
        switch (phase, state) {
        case (.down, .dragging):
            // A new press while a drag was never released: end it, start over.
            state = .pressed(startX: x, startY: y)
            return .pressBegan(x: x, y: y)
        case (.down, _):
            state = .pressed(startX: x, startY: y)
            return .pressBegan(x: x, y: y)
        case (.move, .idle):
            return .hover(x: x, y: y)
        case (.move, .pressed(let sx, let sy)):
            let dx = x - sx, dy = y - sy
            if (dx * dx + dy * dy) > GestureRecognizer.slop * GestureRecognizer.slop {
                state = .dragging(startX: sx, startY: sy)
                return .dragBegan(startX: sx, startY: sy, x: x, y: y)
            }
            return .pressMoved(x: x, y: y)
        case (.move, .dragging(let sx, let sy)):
            return .dragMoved(startX: sx, startY: sy, x: x, y: y)
        case (.up, .idle):
            return .none
        case (.up, .pressed(let sx, let sy)):
            state = .idle
            let dx = x - sx, dy = y - sy
            if (dx * dx + dy * dy) > GestureRecognizer.slop * GestureRecognizer.slop {
                // Released far away without an intermediate move: a drag that began and ended at once.
                return .dragEnded(x: x, y: y)
            }
            return .tap(x: x, y: y)
        case (.up, .dragging):
            state = .idle
            return .dragEnded(x: x, y: y)
        case (.leave, let previous):
            state = .idle
            if case .dragging = previous { return .left(wasDragging: true) }
            return .left(wasDragging: false)
        }
    }
}
