import ChartCastProtocol
import ChartEngine

/// The gestures that select an x value, after Swift Charts' `chartXSelection(value:)`.
public struct ValueSelection: OptionSet, Sendable {
    /// The raw bits.
    public let rawValue: Int
    /// Creates a set from its raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// A pointer moving with nothing pressed shows the value under it (`"hover": true`).
    public static let hover = ValueSelection(rawValue: 1 << 0)
    /// A drag moves the selected value along (`"drag": "scrub"`).
    public static let scrub = ValueSelection(rawValue: 1 << 1)
    /// A tap pins the nearest point; a second tap on it unpins (`"tap": true`).
    public static let tap = ValueSelection(rawValue: 1 << 2)
}

/// The gestures that select an x range, after Swift Charts' `chartXSelection(range:)`.
public struct RangeSelection: OptionSet, Sendable {
    /// The raw bits.
    public let rawValue: Int
    /// Creates a set from its raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// A drag selects the x range it spans (`"drag": "range"`).
    public static let drag = RangeSelection(rawValue: 1 << 0)
}

/// How long a chart's stored history is kept (the schema's `retention`).
public struct Retention: Equatable, Sendable {
    /// The schema's spelling: `"0"`, `"30s"`, `"15m"`, `"12h"`, `"7d"`.
    public let text: String

    /// Nothing is stored (`"0"`).
    public static let none = Retention(text: "0")
    /// `count` seconds (`"30s"`).
    public static func seconds(_ count: Int) -> Retention { Retention(text: "\(count)s") }
    /// `count` minutes (`"15m"`).
    public static func minutes(_ count: Int) -> Retention { Retention(text: "\(count)m") }
    /// `count` hours (`"12h"`).
    public static func hours(_ count: Int) -> Retention { Retention(text: "\(count)h") }
    /// `count` days (`"7d"`), at most 3650.
    public static func days(_ count: Int) -> Retention { Retention(text: "\(count)d") }
}

/// One chart of a dashboard, declared the way Swift Charts reads — the chart's shape, not its data:
///
/// ```swift
/// Chart("cpu", title: "CPU load") {
///     LineMark(x: .value("Time", Date.self), y: .value("%", Double.self))
///         .foregroundStyle(by: .series("user", "system"))
/// }
/// .chartYScale(domain: 0...100)
/// .chartXSelection(value: [.hover, .tap])
/// .chartXSelection(range: .drag)
/// .window(600)
/// .retention(.days(7))
/// ```
///
/// `X`, the Swift type of the x values, fixes the axis kind, so the modifiers that only make sense
/// for one kind only exist there: `chartXScale(domain:)` (the categories) on category charts,
/// `window(_:)` on time and linear charts. What the types cannot check — an id, a title, a
/// category chart listing no categories, 33 series — `spec()` and `Dashboard.init(_:charts:)`
/// check by the JSON schema's own rules, with its messages (`x.categories: is required`).
///
/// Anything not declared takes the schema's default: the title is the id, interactions depend on
/// the axis kind, the window is 1000 and the retention 7 days.
public struct Chart<X: XPlottable>: Sendable {
    var draft: ChartDraft

    /// A chart called `id` (1–64 of `A–Z a–z 0–9 _ . -`, unique in its dashboard) drawing one mark.
    /// - Parameter title: 1–200 characters; `nil` shows the id.
    public init(_ id: String, title: String? = nil, @ChartContentBuilder content: () -> MarkDeclaration<X>) {
        self.init(id, title: title, mark: content())
    }

    /// The same chart, for a body that is one mark expression (the usual case).
    ///
    /// The compiler solves a result-builder body only after the modifiers' arguments, so with the
    /// builder alone `Chart(…) { BarMark(x: .value("Day", Weekday.self), …) }.chartXScale(domain: [.sat, .sun])`
    /// would not infer `X`. This overload lets the body decide `X` first; bodies it does not take
    /// (none, or several marks) still reach `ChartContentBuilder` and its diagnostics.
    public init<M: ChartMark>(_ id: String, title: String? = nil, content: () -> M) where M.X == X {
        self.init(id, title: title, mark: content().declaration)
    }

    init(_ id: String, title: String?, mark: MarkDeclaration<X>) {
        draft = ChartDraft(id: id, title: title, mark: mark.mark, xKind: X.xKind, xLabel: mark.xLabel, yLabel: mark.yLabel,
                           series: mark.series)
        if let categories = (X.self as? CategoryPlottable.Type)?.implicitCategories { draft.categories = categories }
    }

    /// Fixes the y domain to `domain` (lower < upper); without it the data decides.
    public func chartYScale(domain: ClosedRange<Double>) -> Chart {
        var copy = self
        copy.draft.yDomain = domain
        return copy
    }

    /// The gestures that select an x value. With either `chartXSelection` modifier the chart
    /// answers to exactly the gestures they name; with neither, to the schema's defaults for its
    /// axis kind. `.scrub` and `chartXSelection(range: .drag)` both want the drag: a chart that
    /// declares both fails its check.
    public func chartXSelection(value gestures: ValueSelection) -> Chart {
        var copy = self
        copy.draft.valueSelection = gestures
        return copy
    }

    /// The gestures that select an x range (see `chartXSelection(value:)`).
    public func chartXSelection(range gestures: RangeSelection) -> Chart {
        var copy = self
        copy.draft.rangeSelection = gestures
        return copy
    }

    /// How long stored history is kept; `.none` stores nothing. Default: 7 days.
    public func retention(_ retention: Retention) -> Chart {
        var copy = self
        copy.draft.retention = retention
        return copy
    }

    /// The chart's spec, checked on its own by the schema's rules (ids are checked for
    /// uniqueness only in a `Dashboard`).
    /// - Throws: `ProtocolError(.badField)` naming the field as the JSON path does
    ///   (`x.categories: is required`).
    public func spec() throws -> ChartSpec { try draft.spec(path: "") }
}

extension Chart where X: CategoryPlottable {
    /// The categories, in axis order (the schema's `x.categories`: 1–1000 distinct names).
    /// Required when `X` is `String`; for a `ChartCategory` enum it picks and orders the cases.
    public func chartXScale(domain categories: [X]) -> Chart {
        var copy = self
        copy.draft.categories = categories.map(\.categoryName)
        return copy
    }
}

extension Chart where X: ContinuousXPlottable {
    /// Keeps the newest `count` distinct x values live (1–1,000,000; default 1000).
    public func window(_ count: Int) -> Chart {
        var copy = self
        copy.draft.window = count
        return copy
    }
}
