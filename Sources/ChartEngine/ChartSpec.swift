/// How a chart's x axis is interpreted.
public enum XKind: Sendable {
    /// Named, evenly spaced categories (e.g. weekdays, months).
    case category
    /// Epoch milliseconds (UTC), stored as `Double`.
    case time
    /// Plain numbers.
    case linear
}

/// How a chart's points are drawn. Bars of several series stand side by side within a category;
/// an area is a line filled down to the y domain's floor (or 0 when inside it).
public enum Mark: Sendable {
    case bar, line, point, area
}

/// What a press that becomes a drag does on a chart.
public enum DragInteraction: Sendable {
    /// Drags do nothing on this chart.
    case none
    /// The mark under the pointer follows the drag (seeds 000 and 002).
    case scrub
    /// The drag selects an x range (seeds 001 and 004a).
    case range
}

/// The interactions a chart answers to. Interactions a chart lacks are accepted and ignored.
public struct Interactions: Equatable, Sendable {
    /// A pointer moving with nothing pressed shows a hover.
    public var hover: Bool
    /// What a drag does.
    public var drag: DragInteraction
    /// A tap pins (and a second tap on the same point unpins) the nearest point.
    public var tap: Bool

    /// Creates an interaction set; by default a chart answers to nothing.
    public init(hover: Bool = false, drag: DragInteraction = .none, tap: Bool = false) {
        self.hover = hover
        self.drag = drag
        self.tap = tap
    }
}

/// The static description of one chart: identity, labels, series and interactions.
public struct ChartSpec: Equatable, Sendable {
    /// Stable id used in protocol messages (e.g. `"sales"`).
    public var id: String
    /// Human readable title.
    public var title: String
    /// How the points are drawn.
    public var mark: Mark
    /// How the x axis is interpreted.
    public var xKind: XKind
    /// Axis label for x.
    public var xLabel: String
    /// Axis label for y.
    public var yLabel: String
    /// Series names, in column order.
    public var series: [String]
    /// The categories in axis order; only used when `xKind == .category`.
    public var categories: [String]
    /// What the chart answers to.
    public var interactions: Interactions
    /// Rolling window in x positions for time/linear charts; `nil` keeps every point.
    public var window: Int?
    /// A fixed y domain; `nil` lets the data decide (see `ChartStore.yDomain`).
    public var fixedYDomain: ClosedRange<Double>?
    /// How long stored history is kept, in seconds; 0 keeps none.
    public var retentionSeconds: Int

    /// Most series one chart may have; data naming more is refused.
    public static let maxSeries = 32
    /// Largest rolling window.
    public static let maxWindow = 1_000_000
    /// The window of time/linear charts that do not set one.
    public static let defaultWindow = 1000
    /// The retention of charts that do not set one: 7 days.
    public static let defaultRetentionSeconds = 7 * 86_400

    /// Creates a chart description.
    public init(
        id: String,
        title: String,
        mark: Mark,
        xKind: XKind,
        xLabel: String = "",
        yLabel: String = "",
        series: [String],
        categories: [String] = [],
        interactions: Interactions = Interactions(),
        window: Int? = nil,
        fixedYDomain: ClosedRange<Double>? = nil,
        retentionSeconds: Int = 0
    ) {
        self.id = id
        self.title = title
        self.mark = mark
        self.xKind = xKind
        self.xLabel = xLabel
        self.yLabel = yLabel
        self.series = series
        self.categories = categories
        self.interactions = interactions
        self.window = window
        self.fixedYDomain = fixedYDomain
        self.retentionSeconds = retentionSeconds
    }

    /// The interactions of a chart that does not list its own: hover everywhere, a range drag and
    /// pin taps on time/linear charts, a scrub on category charts.
    public static func defaultInteractions(for kind: XKind) -> Interactions {
        kind == .category ? Interactions(hover: true, drag: .scrub, tap: false)
                          : Interactions(hover: true, drag: .range, tap: true)
    }
}

/// One x value: a category name, or a number (time charts: epoch milliseconds; linear: the value).
public enum XValue: Hashable, Sendable {
    case category(String)
    case number(Double)
}

/// The value of one series at one x; `nil` when the series has no value there.
public struct SeriesValue: Equatable, Sendable {
    /// The series name.
    public var series: String
    /// The value, or `nil` when missing.
    public var y: Double?

    /// Creates a series value.
    public init(series: String, y: Double?) {
        self.series = series
        self.y = y
    }
}

/// One value of one series at one x: a point of an `append`, a row of a range selection.
public struct SeriesPoint: Equatable, Sendable {
    /// The series name.
    public var series: String
    public var x: XValue
    public var y: Double

    /// Creates a point.
    public init(series: String, x: XValue, y: Double) {
        self.series = series
        self.x = x
        self.y = y
    }
}
