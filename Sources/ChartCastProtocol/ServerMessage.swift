import ChartEngine

/// A connected viewer as listed in `welcome` and `viewers`.
public struct ViewerInfo: Equatable, Sendable {
    public var id: String
    public var name: String
    public var color: String
    public init(id: String, name: String, color: String) {
        self.id = id
        self.name = name
        self.color = color
    }
}

/// The x domain as sent: category names, or `[d0, d1]` for time and linear charts.
public enum XDomain: Equatable, Sendable {
    case categories([String])
    case numeric(Double, Double)
}

/// A chart's x axis as sent in snapshots and appends: `{"kind":"time","domain":[d0,d1]}`.
public struct XAxis: Equatable, Sendable {
    public var kind: XKind
    public var domain: XDomain
    public init(kind: XKind, domain: XDomain) {
        self.kind = kind
        self.domain = domain
    }
}

/// One point of one series in a snapshot: `[x, y]` on the wire.
public struct DataPoint: Equatable, Sendable {
    public var x: XValue
    public var y: Double
    public init(x: XValue, y: Double) {
        self.x = x
        self.y = y
    }
}

/// One series of a snapshot.
public struct SeriesData: Equatable, Sendable {
    public var name: String
    /// In x order (category charts: axis order), missing values left out.
    public var points: [DataPoint]
    public init(name: String, points: [DataPoint]) {
        self.name = name
        self.points = points
    }
}

/// Every server → client message of protocol v1, typed, with `encode()` and `decode(_:)`.
///
/// The server encodes a broadcast once and writes the same bytes to every recipient; clients
/// (the load tester, the tests) decode with `decode(_:)`.
public enum ServerMessage: Equatable, Sendable {
    case welcome(Welcome)
    case snapshot(Snapshot)
    case append(Append)
    case selection(SelectionUpdate)
    case viewers(ViewerList)
    case error(ProtocolError)
    /// A chart appeared or was replaced: its spec (a `snapshot` follows).
    case chart(ChartSpec)
    /// A chart was removed: its id.
    case chartRemoved(String)
    /// A `publish` was applied.
    case ack(Ack)

    public static let protocolVersion = 1

    /// The first message on every connection: who the viewer is, the charts, the limits.
    public struct Welcome: Equatable, Sendable {
        public var protocolVersion: Int
        public var viewer: ViewerInfo
        public var charts: [ChartSpec]
        public var limits: ProtocolLimits
        public init(viewer: ViewerInfo, charts: [ChartSpec], limits: ProtocolLimits = .v1,
                    protocolVersion: Int = ServerMessage.protocolVersion) {
            self.protocolVersion = protocolVersion
            self.viewer = viewer
            self.charts = charts
            self.limits = limits
        }
    }

    /// The whole state of one chart as one viewer draws it: domains, the points of every series
    /// (downsampled to the viewer's plot width when there are more than it can show), and the
    /// selection.
    public struct Snapshot: Equatable, Sendable {
        public var chart: String
        public var seq: Int
        public var x: XAxis
        public var y: ClosedRange<Double>
        public var series: [SeriesData]
        public var selection: Selection
        /// The viewer's zoomed x domain this snapshot shows (`"view":{"from":t0,"to":t1}`); nil
        /// for the live window (and then not encoded).
        public var view: ClosedRange<Double>?
        public init(chart: String, seq: Int, x: XAxis, y: ClosedRange<Double>, series: [SeriesData], selection: Selection,
                    view: ClosedRange<Double>? = nil) {
            self.chart = chart
            self.seq = seq
            self.x = x
            self.y = y
            self.series = series
            self.selection = selection
            self.view = view
        }
    }

    /// New or changed points, what left the window, and the domains when they changed.
    public struct Append: Equatable, Sendable {
        public var chart: String
        public var seq: Int
        public var points: [SeriesPoint]
        /// Points with a smaller x left the rolling window.
        public var evictBefore: Double?
        public var x: XAxis?
        public var y: ClosedRange<Double>?
        public init(chart: String, seq: Int, points: [SeriesPoint], evictBefore: Double? = nil,
                    x: XAxis? = nil, y: ClosedRange<Double>? = nil) {
            self.chart = chart
            self.seq = seq
            self.points = points
            self.evictBefore = evictBefore
            self.x = x
            self.y = y
        }
    }

    /// The shared selection of one chart after a change; `ref` echoes the pointer message that
    /// caused it.
    public struct SelectionUpdate: Equatable, Sendable {
        public var chart: String
        public var seq: Int
        public var ref: String?
        public var selection: Selection
        public init(chart: String, seq: Int, ref: String? = nil, selection: Selection) {
            self.chart = chart
            self.seq = seq
            self.ref = ref
            self.selection = selection
        }
    }

    /// Everyone connected, in join order; `total` is the number connected when the list was cut short.
    public struct ViewerList: Equatable, Sendable {
        public var viewers: [ViewerInfo]
        public var total: Int?
        public init(viewers: [ViewerInfo], total: Int? = nil) {
            self.viewers = viewers
            self.total = total
        }
    }

    /// `{"type":"ack","ref":"p1","seq":42,"accepted":1}`: the chart's `seq` after the points
    /// were applied and how many were (missing values are not counted).
    public struct Ack: Equatable, Sendable {
        public var ref: String?
        public var seq: Int
        public var accepted: Int
        public init(ref: String?, seq: Int, accepted: Int) {
            self.ref = ref
            self.seq = seq
            self.accepted = accepted
        }
    }

    /// The wire name of the message's `type`.
    public var type: String {
        switch self {
        case .welcome: return "welcome"
        case .snapshot: return "snapshot"
        case .append: return "append"
        case .selection: return "selection"
        case .viewers: return "viewers"
        case .error: return "error"
        case .chart: return "chart"
        case .chartRemoved: return "chart_removed"
        case .ack: return "ack"
        }
    }

    /// The chart the message is about, if it is about one.
    public var chart: String? {
        switch self {
        case .snapshot(let m): return m.chart
        case .append(let m): return m.chart
        case .selection(let m): return m.chart
        case .chart(let spec): return spec.id
        case .chartRemoved(let id): return id
        case .welcome, .viewers, .error, .ack: return nil
        }
    }
}
