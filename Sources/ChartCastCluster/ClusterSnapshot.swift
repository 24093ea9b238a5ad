import ChartCastProtocol
import ChartEngine

/// The whole shared state of a dashboard at one point of its stream: what a new or restarted
/// instance starts from before it applies the entries after that point (`ClusterKeys.snapshotAt`
/// holds it; `docs/scale-out.md`, "Catching up").
///
/// It holds what every instance holds alike and what applying later entries depends on: each
/// chart's spec (with the series data added), data, `seq`, the domains last sent with an
/// append (so that later appends carry the same bodies), and its selection engine's shared
/// state; the dashboard-wide viewer directory. Nothing local: connections, gesture recognisers,
/// viewports, chart slots and spec versions.
public struct ClusterSnapshot: Equatable, Sendable {
    /// One viewer of the directory and the instance holding it.
    public struct Viewer: Equatable, Sendable {
        public var info: ViewerInfo
        public var instance: Int
        public init(info: ViewerInfo, instance: Int) {
            self.info = info
            self.instance = instance
        }
    }

    /// One chart.
    public struct Chart: Equatable, Sendable {
        public var spec: ChartSpec
        public var seq: Int
        /// The x axis and y domain last sent with an append (or a snapshot for everyone).
        public var sentX: XAxis
        public var sentY: ClosedRange<Double>
        /// Row x values in order (category charts: the index of each category).
        public var xs: [Double]
        /// Per series (spec order), one value per row; nil where the row has none.
        public var columns: [[Double?]]
        public var selection: SharedSelectionState

        public init(spec: ChartSpec, seq: Int, sentX: XAxis, sentY: ClosedRange<Double>, xs: [Double], columns: [[Double?]],
                    selection: SharedSelectionState) {
            self.spec = spec
            self.seq = seq
            self.sentX = sentX
            self.sentY = sentY
            self.xs = xs
            self.columns = columns
            self.selection = selection
        }
    }

    /// The stream's life it belongs to: a Redis that came back empty starts a new one
    /// (`ClusterKeys.epoch`).
    public var epoch: String
    /// A dashboard's starting state (its file or demo, with what its instance's history brought
    /// back), no entry of a running dashboard applied: running instances prefer their own
    /// state to it after Redis came back empty.
    public var fresh: Bool
    /// Charts in dashboard order.
    public var charts: [Chart]
    /// The viewer directory in join order.
    public var viewers: [Viewer]

    public init(epoch: String, fresh: Bool, charts: [Chart], viewers: [Viewer]) {
        self.epoch = epoch
        self.fresh = fresh
        self.charts = charts
        self.viewers = viewers
    }

    /// A dashboard without charts or viewers.
    public static let empty = ClusterSnapshot(epoch: "", fresh: true, charts: [], viewers: [])

    /// The numbers of the instances holding viewers of the directory.
    public var instances: Set<Int> { Set(viewers.map(\.instance)) }
}

/// Stream entry ids (`ms-seq`) in stream order.
public enum StreamID {
    /// Whether `a` comes before `b` ("0-0" before every entry).
    public static func precedes(_ a: String, _ b: String) -> Bool {
        let (am, asq) = parts(a), (bm, bsq) = parts(b)
        return am != bm ? am < bm : asq < bsq
    }

    private static func parts(_ id: String) -> (UInt64, UInt64) {
        let pieces = id.split(separator: "-", maxSplits: 1)
        return (UInt64(pieces.first ?? "") ?? 0, pieces.count > 1 ? UInt64(pieces[1]) ?? 0 : 0)
    }
}
