import ChartCastProtocol
import ChartEngine

/// One change of a dashboard's shared state, as one entry of the dashboard's Redis Stream.
///
/// Every instance applies the entries in stream order to the same starting state, so every
/// instance holds the same charts, points and selections with the same `seq`. An entry carries
/// only what does not depend on which instance applies it: selection inputs are in data space
/// (`SelectionInput`), points are the write's own values (validated again, identically, when
/// applied), the demo feed's steps are the values it chose.
public enum ClusterEntry: Equatable, Sendable {
    /// A viewer connected to instance `instance` (its id names the instance too).
    case joined(ViewerInfo, instance: Int)
    /// A viewer disconnected: its hovers, drags and keyboard state leave every chart.
    case left(viewer: String)
    /// A viewer's `hello` renamed it.
    case renamed(viewer: String, name: String)
    /// A pointer gesture in data space; `ref` is echoed by the `selection` it causes.
    case input(chart: String, viewer: String, SelectionInput, ref: String?)
    /// A keyboard command.
    case key(chart: String, viewer: String, KeyCommand, shift: Bool, ref: String?)
    /// The drag owner sent no input for the drag lease: the drag ends (if `owner` still holds
    /// it), and the rest of its press is ignored when `pressed`.
    case dragExpired(chart: String, owner: String, pressed: Bool)
    /// A chart defined or replaced.
    case define(ChartSpec)
    /// A chart removed.
    case remove(chart: String)
    /// Points written to one or several charts (a line-protocol write may create charts):
    /// applied all or nothing.
    case points([EntryPoints])
    /// One step of the demo feeds, computed by the instance holding the feed lease.
    case feed([FeedOp])
    /// Instance `instance` stopped heartbeating: every viewer it held leaves.
    case instanceGone(Int)
}

/// The points of one chart in a `.points` entry: the write's series names, and per point a
/// series index, the x as written (a number, or text: an RFC 3339 time or a category) and y.
public struct EntryPoints: Equatable, Sendable {
    public var chart: String
    /// The chart this write creates when it is still absent (line protocol), defined first.
    public var creates: ChartSpec?
    public var series: [String]
    public var points: [EntryPoint]

    public init(chart: String, creates: ChartSpec? = nil, series: [String], points: [EntryPoint]) {
        self.chart = chart
        self.creates = creates
        self.series = series
        self.points = points
    }
}

/// One point of `EntryPoints`.
public struct EntryPoint: Equatable, Sendable {
    public enum X: Equatable, Sendable {
        case number(Double)
        case text(String)
    }

    public var series: Int
    public var x: X
    public var y: Double

    public init(series: Int, x: X, y: Double) {
        self.series = series
        self.x = x
        self.y = y
    }
}

/// One operation of a demo feed step.
public enum FeedOp: Equatable, Sendable {
    /// Category charts: sets series `series` of category `category` to `y`.
    case setCategory(chart: String, series: Int, category: Int, y: Double)
    /// Time/linear charts: upserts the row at `x`.
    case upsert(chart: String, x: Double, values: [Double?])
}

/// An entry as it travels: who added it (`origin`, the instance number, and `ticket`, that
/// instance's own count, by which it finds the caller waiting for the entry to be applied).
public struct ClusterEnvelope: Equatable, Sendable {
    public var origin: Int
    public var ticket: Int
    public var entry: ClusterEntry

    public init(origin: Int, ticket: Int, entry: ClusterEntry) {
        self.origin = origin
        self.ticket = ticket
        self.entry = entry
    }
}

/// A stream entry that cannot be read (written by another version, or damaged): every instance
/// skips it alike.
public struct ClusterEntryError: Error, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
