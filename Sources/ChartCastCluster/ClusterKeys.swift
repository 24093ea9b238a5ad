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
    /// The instances that joined and have not been seen gone.
    public var members: String { prefix + "members" }
    /// Instance `n`'s heartbeat, which expires when it stops renewing it.
    public func alive(_ instance: Int) -> String { prefix + "alive:\(instance)" }
    /// The demo feed's lease: the number of the instance that runs the feed.
    public var feedLease: String { prefix + "feed" }
}
