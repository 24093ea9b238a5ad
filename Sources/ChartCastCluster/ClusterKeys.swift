/// The Redis keys of one dashboard. One Redis database holds one dashboard: instances serving
/// another give another database in their URL (`redis://host:6379/1`).
public struct ClusterKeys: Equatable, Sendable {
    public let prefix: String

    public init(prefix: String = "chartcast:") {
        self.prefix = prefix
    }

    /// The stream of entries, in the order every instance applies them.
    public var log: String { prefix + "log" }
    /// The counter instance numbers are taken from (`INCR`).
    public var instances: String { prefix + "instances" }
    /// What the dashboard was started from (its charts as JSON): an instance started with other
    /// charts is refused instead of applying the stream to another starting state.
    public var dashboard: String { prefix + "dashboard" }
    /// The stream's current life: a token set when the dashboard is claimed — at its first
    /// start, after Redis came back empty, or when a running instance takes the dashboard back
    /// from one that just started — and marked in the stream by an epoch entry.
    public var epoch: String { prefix + "epoch" }
    /// The newest snapshot of the dashboard (`ClusterSnapshot`, binary).
    public var snapshot: String { prefix + "snapshot" }
    /// The id of the last entry the snapshot holds: the stream is read after it.
    public var snapshotAt: String { prefix + "snapshot:at" }
    /// Per instance, the id of the last entry it applied: the stream is never trimmed past a
    /// live instance's.
    public var applied: String { prefix + "applied" }
    /// The instances that joined and have not been seen gone.
    public var members: String { prefix + "members" }
    /// Instance `n`'s heartbeat, which expires when it stops renewing it.
    public func alive(_ instance: Int) -> String { prefix + "alive:\(instance)" }
    /// The prefix of the heartbeat keys (`alive(_:)` without the number).
    public var alivePrefix: String { prefix + "alive:" }
    /// The demo feed's lease: the number of the instance that runs the feed.
    public var feedLease: String { prefix + "feed" }
    /// The snapshot lease: the number of the instance that refreshes the snapshot.
    public var snapshotLease: String { prefix + "snapshotter" }
}
