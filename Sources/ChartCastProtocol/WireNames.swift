import ChartEngine

/// The protocol v1 spelling of every engine enum that travels on the wire.
///
/// Each mapping is an explicit switch, never a `rawValue`: renaming a Swift case in ChartEngine
/// cannot change protocol v1 (the compiler points here instead), and `ProtocolWireNameTests`
/// pins every spelling.
public protocol WireNamed {
    /// The name on the wire.
    var wireName: String { get }
    /// Every value, in the order error messages list them.
    static var wireCases: [Self] { get }
}

extension WireNamed {
    /// The value spelled `name` on the wire, or nil.
    public init?(wireName name: String) {
        guard let value = Self.wireCases.first(where: { $0.wireName == name }) else { return nil }
        self = value
    }

    /// Every accepted spelling, for error messages.
    public static var wireNames: [String] { wireCases.map(\.wireName) }
}

extension XKind: WireNamed {
    public var wireName: String {
        switch self {
        case .category: return "category"
        case .time: return "time"
        case .linear: return "linear"
        }
    }
    public static let wireCases: [XKind] = [.category, .time, .linear]
}

extension Mark: WireNamed {
    public var wireName: String {
        switch self {
        case .bar: return "bar"
        case .line: return "line"
        case .point: return "point"
        case .area: return "area"
        }
    }
    public static let wireCases: [Mark] = [.bar, .line, .point, .area]
}

extension DragInteraction: WireNamed {
    public var wireName: String {
        switch self {
        case .none: return "none"
        case .scrub: return "scrub"
        case .range: return "range"
        }
    }
    public static let wireCases: [DragInteraction] = [.none, .scrub, .range]
}

extension PointerPhase: WireNamed {
    public var wireName: String {
        switch self {
        case .down: return "down"
        case .move: return "move"
        case .up: return "up"
        case .leave: return "leave"
        }
    }
    public static let wireCases: [PointerPhase] = [.down, .move, .up, .leave]
}

extension KeyCommand: WireNamed {
    public var wireName: String {
        switch self {
        case .left: return "left"
        case .right: return "right"
        case .home: return "home"
        case .end: return "end"
        case .enter: return "enter"
        case .escape: return "escape"
        }
    }
    public static let wireCases: [KeyCommand] = [.left, .right, .home, .end, .enter, .escape]
}

extension Placement: WireNamed {
    public var wireName: String {
        switch self {
        case .leading: return "leading"
        case .trailing: return "trailing"
        }
    }
    public static let wireCases: [Placement] = [.leading, .trailing]
}
