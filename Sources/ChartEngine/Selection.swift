/// A raw pointer event's phase, as sent by the page.
public enum PointerPhase: Sendable {
    case down, move, up, leave
}

/// A keyboard command for a focused chart. The page maps Space to `.enter`.
public enum KeyCommand: Sendable {
    case left, right, home, end, enter, escape
}

/// Which side of the hovered mark an annotation goes (seed 003): `trailing` in the first half.
public enum Placement: Sendable {
    case leading, trailing
}

/// One viewer's hover: the category under the pointer, or the nearest point on time/linear charts.
public struct Hover: Equatable, Sendable {
    /// Viewer id.
    public var by: String
    public var x: XValue
    /// Data-order position in [0, 1]: the category's centre, or the point's x.
    public var fraction: Double
    public var placement: Placement
    /// Every series' value at `x`.
    public var values: [SeriesValue]

    public init(by: String, x: XValue, fraction: Double, placement: Placement, values: [SeriesValue]) {
        self.by = by
        self.x = x
        self.fraction = fraction
        self.placement = placement
        self.values = values
    }
}

/// The drag owner's scrub: the mark under the pointer, clamped to the ends.
public struct Scrub: Equatable, Sendable {
    public var by: String
    public var x: XValue
    public var values: [SeriesValue]
    /// Data-order position of the mark in [0, 1].
    public var fraction: Double
    /// The pointer's height in the plot, 0 top … 1 bottom, clamped (for the capsule).
    public var yFraction: Double

    public init(by: String, x: XValue, values: [SeriesValue], fraction: Double, yFraction: Double) {
        self.by = by
        self.x = x
        self.values = values
        self.fraction = fraction
        self.yFraction = yFraction
    }
}

/// The drag owner's x range with its rows and per-series totals.
public struct RangeSelection: Equatable, Sendable {
    public var by: String
    /// Lower end, `from ≤ to` (time/linear: clamped to the x domain; category: a category).
    public var from: XValue
    public var to: XValue
    /// Data-order positions of the range's ends in [0, 1]. Category ranges span whole steps:
    /// `lo / n` to `(hi + 1) / n`.
    public var fromFraction: Double
    public var toFraction: Double
    /// Number of (series, x) rows with a value in the range.
    public var count: Int
    /// Per-series count/sum/min/max/mean, in series order.
    public var totals: [SeriesTotals]
    /// The first 500 rows, x-major then series order.
    public var rows: [SeriesPoint]
    /// `count > rows.count`.
    public var truncated: Bool

    public init(by: String, from: XValue, to: XValue, fromFraction: Double, toFraction: Double,
                count: Int, totals: [SeriesTotals], rows: [SeriesPoint], truncated: Bool) {
        self.by = by
        self.from = from
        self.to = to
        self.fromFraction = fromFraction
        self.toFraction = toFraction
        self.count = count
        self.totals = totals
        self.rows = rows
        self.truncated = truncated
    }
}

/// The pinned point (last writer wins).
public struct Pin: Equatable, Sendable {
    public var by: String
    public var x: XValue
    public var values: [SeriesValue]
    /// Data-order position of the point in [0, 1].
    public var fraction: Double

    public init(by: String, x: XValue, values: [SeriesValue], fraction: Double) {
        self.by = by
        self.x = x
        self.values = values
        self.fraction = fraction
    }
}

/// The shared selection state of one chart, as broadcast to every viewer.
public struct Selection: Equatable, Sendable {
    /// Active hovers, newest first, at most `Selection.maxHovers`.
    public var hovers: [Hover]
    public var scrub: Scrub?
    public var range: RangeSelection?
    public var pin: Pin?

    /// Most hovers kept at once.
    public static let maxHovers = 8
    /// Most range rows listed.
    public static let maxRangeRows = 500

    /// Nothing selected.
    public static let empty = Selection(hovers: [], scrub: nil, range: nil, pin: nil)

    public init(hovers: [Hover], scrub: Scrub?, range: RangeSelection?, pin: Pin?) {
        self.hovers = hovers
        self.scrub = scrub
        self.range = range
        self.pin = pin
    }
}
