import Foundation

/// Why an instance could not join the dashboard in Redis at start.
public struct ClusterJoinError: Error, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// What the server hands a link for the changes only the server can make (`start`). The link
/// calls them on its own threads; the server hands the work to its service thread.
public struct ClusterHandlers {
    /// Entries after the last one delivered, in stream order.
    public var deliver: ([StreamRecord]) -> Void
    /// Redis became unreachable (false), or reachable and caught up again (true).
    public var linkChanged: (Bool) -> Void
    /// The instance's shared state now, to claim the dashboard with (Redis came back empty, or
    /// an instance that just started took it); waits for the service thread. Nil when it cannot
    /// be had (the server is stopping).
    public var capture: () -> ClusterSnapshot?
    /// The instance must take this snapshot as its whole shared state, as of entry `at`, before
    /// it applies what is delivered next.
    public var install: (_ snapshot: ClusterSnapshot, _ at: String) -> Void
    /// The instance's own state is now the dashboard's, as of entry `at` of epoch `epoch`.
    public var claimed: (_ epoch: String, _ at: String) -> Void

    public init(deliver: @escaping ([StreamRecord]) -> Void, linkChanged: @escaping (Bool) -> Void,
                capture: @escaping () -> ClusterSnapshot? = { .empty },
                install: @escaping (ClusterSnapshot, String) -> Void = { _, _ in },
                claimed: @escaping (String, String) -> Void = { _, _ in }) {
        self.deliver = deliver
        self.linkChanged = linkChanged
        self.capture = capture
        self.install = install
        self.claimed = claimed
    }
}

/// One instance's link to its dashboard in Redis: the stream every change goes through, the
/// snapshot new instances start from, and the threads that talk to Redis so that the service
/// thread never does.
///
/// - `join` (at start, on the starting thread) connects, claims the dashboard or finds it, takes
///   an instance number and reads the snapshot and the stream after it (`ClusterLink+Join.swift`).
/// - The **writer** thread appends entries (`add`, `append`): everything queued when it wakes goes out
///   as one pipeline of `XADD`s, one round trip, and each caller hears whether its entry is in
///   the stream, and its id.
/// - The **reader** thread blocks in `XREAD BLOCK` after the last entry read and hands each
///   batch of entries to `deliver`, in stream order; after Redis was lost, or when the stream
///   started a new epoch, it catches the instance up first (`ClusterLink+Reader.swift`).
/// - The **presence** thread renews this instance's heartbeat every `heartbeatInterval`,
///   finds instances gone, holds or takes the demo feed's and the snapshot's leases, and stores
///   the snapshots the server offers (`ClusterLink+Presence.swift`).
/// - The **keys** thread claims `Idempotency-Key`s and keeps their answers (`ClusterLink+Keys.swift`).
///
/// Each thread has its own `RedisConnection`. When Redis cannot be reached, the writer fails
/// what it was given at once (`RedisError`), the reader and the presence thread retry with
/// backoff (0.1 s doubling to 2 s), and `linkChanged` reports the link down and, once the reader
/// has caught up again, up.
/// - Note: `append`, `start` and `stop` from any thread; the callbacks run on the cluster's threads.
public final class ClusterLink: @unchecked Sendable {
    public let endpoint: RedisEndpoint
    public let keys: ClusterKeys
    /// This instance's number, unique among every instance that ever joined this dashboard.
    public let instance: Int
    /// Seconds between heartbeats; a heartbeat lives `heartbeatTTL`.
    public static let heartbeatInterval = 1.0
    public static let heartbeatTTL = 3.0
    /// Milliseconds the reader blocks in one `XREAD` (it checks for `stop` in between).
    static let readBlockMilliseconds = 500
    /// Entries appended in one pipeline at most.
    static let maxPipeline = 512

    let condition = NSCondition()
    var queue: [(payload: [UInt8], done: (Result<String, RedisError>) -> Void)] = []
    var stopping = false
    private var running = 0
    var linkUp = true
    /// Another thread lost Redis: the reader checks where the dashboard stands before it reads on.
    var checkRequested = false
    /// Counts the times the link went down: a connection older than the last one may be a
    /// dead socket to a Redis that has since restarted, so the writer opens a new one.
    var downs = 0
    var feedLeaseHeld = false
    var snapshotLeaseHeld = false
    var writerHeld = false
    var readerHeld = false
    var handlers: ClusterHandlers?
    /// What this dashboard started from (`join`), claimed again after Redis lost everything.
    var fingerprint: [UInt8] = []
    /// The epoch this instance follows (`ClusterKeys.epoch`), and whether it began as a
    /// dashboard's starting state (its snapshots are then `fresh`).
    var currentEpoch = ""
    var epochIsBirth = false
    /// The last entry read (reader thread, and `join` before it starts).
    var lastID = "0-0"
    /// The last entry the server applied (`noteApplied`), reported with each heartbeat.
    var appliedID = "0-0"
    /// Idempotency keys to claim or finish, for the keys thread (`ClusterLink+Keys.swift`).
    var keyRequests: [KeyRequest] = []
    /// A snapshot the server offered, for the presence thread to store.
    var pendingSnapshot: (snapshot: ClusterSnapshot, at: String, done: (Bool) -> Void)?

    init(endpoint: RedisEndpoint, keys: ClusterKeys, instance: Int) {
        self.endpoint = endpoint
        self.keys = keys
        self.instance = instance
    }

    /// Starts the threads with the server's `handlers`.
    public func start(_ handlers: ClusterHandlers) {
        condition.lock()
        self.handlers = handlers
        running = 4
        condition.unlock()
        startThread("chartcast.redis.writer") { $0.writerLoop() }
        startThread("chartcast.redis.reader") { $0.readerLoop() }
        startThread("chartcast.redis.presence") { $0.presenceLoop() }
        startThread("chartcast.redis.keys") { $0.keysLoop() }
    }

    /// Starts the threads: `deliver` gets the entries after the backlog, in stream order;
    /// `linkChanged` hears when Redis became unreachable (false) and reachable again (true).
    public func start(deliver: @escaping ([StreamRecord]) -> Void, linkChanged: @escaping (Bool) -> Void) {
        start(ClusterHandlers(deliver: deliver, linkChanged: linkChanged))
    }

    private func startThread(_ name: String, _ body: @escaping (ClusterLink) -> Void) {
        let thread = Thread { [self] in
            body(self)
            condition.lock()
            running -= 1
            condition.broadcast()
            condition.unlock()
        }
        thread.name = name
        thread.start()
    }

    /// Stops the threads — the writer first appends what was queued before — waiting at most
    /// `timeout` seconds for them, then takes this instance's heartbeat and leases away so that
    /// the others see it gone at once. Entries still queued after the wait are failed.
    public func stop(timeout: Double = 3) {
        condition.lock()
        stopping = true
        condition.broadcast()
        let deadline = Date(timeIntervalSinceNow: timeout)
        while running > 0 {
            if !condition.wait(until: deadline) { break }
        }
        let pending = queue
        queue = []
        let snapshot = pendingSnapshot
        pendingSnapshot = nil
        condition.unlock()
        for item in pending { item.done(.failure(.connectionLost("the instance is stopping"))) }
        snapshot?.done(false)
        let connection = RedisConnection(endpoint: endpoint, timeout: 1)
        let me = Array(String(instance).utf8), release = Array(ClusterScripts.release.utf8)
        _ = try? connection.pipeline([
            [Array("DEL".utf8), Array(keys.alive(instance).utf8)],
            [Array("EVAL".utf8), release, Array("1".utf8), Array(keys.feedLease.utf8), me],
            [Array("EVAL".utf8), release, Array("1".utf8), Array(keys.snapshotLease.utf8), me],
        ])
    }

    /// Whether the last exchange with Redis worked and the instance follows the dashboard's stream.
    public var isUp: Bool {
        condition.lock()
        defer { condition.unlock() }
        return linkUp
    }

    /// Whether this instance holds the demo feed's lease (renewed by the presence thread).
    public var holdsFeedLease: Bool {
        condition.lock()
        defer { condition.unlock() }
        return feedLeaseHeld && linkUp
    }

    /// Whether this instance holds the snapshot lease: it refreshes the dashboard's snapshot.
    public var holdsSnapshotLease: Bool {
        condition.lock()
        defer { condition.unlock() }
        return snapshotLeaseHeld && linkUp
    }

    /// The epoch the instance follows, and whether it began as a dashboard's starting state.
    public var epoch: (id: String, birth: Bool) {
        condition.lock()
        defer { condition.unlock() }
        return (currentEpoch, epochIsBirth)
    }

    /// Notes the last entry the server applied (reported with the heartbeat: the stream is not
    /// trimmed past it while this instance lives).
    public func noteApplied(_ id: String) {
        condition.lock()
        appliedID = id
        condition.unlock()
    }

    // MARK: State

    var isStopping: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopping
    }

    /// Sleeps `seconds`, or less when `stop` is called.
    func pause(_ seconds: Double) {
        condition.lock()
        let deadline = Date(timeIntervalSinceNow: seconds)
        while !stopping {
            if !condition.wait(until: deadline) { break }
        }
        condition.unlock()
    }

    /// Reports the link down (any thread, when Redis failed it) or up (the reader, once it
    /// follows the stream again). Down asks the reader to check where the dashboard stands.
    func setLink(up: Bool) {
        condition.lock()
        let changed = linkUp != up
        linkUp = up
        if !up { checkRequested = true }
        if changed && !up { downs += 1 }
        let callback = handlers?.linkChanged
        condition.unlock()
        if changed { callback?(up) }
    }

    /// A new epoch token.
    static func newEpoch() -> String { UUID().uuidString.lowercased() }
}

extension ClusterLink {
    /// Runs `body`, and once more on a new connection when it failed on a connection opened
    /// before (a socket to a Redis that has since gone away, found dead on first use): only
    /// for commands that may run twice (reads, heartbeats), never for `XADD`.
    static func retryingStale<T>(_ connection: RedisConnection, _ body: () throws -> T) throws -> T {
        let wasConnected = connection.isConnected
        do {
            return try body()
        } catch let error as RedisError where error.isConnectionError && wasConnected {
            connection.disconnect()
            return try body()
        }
    }
}

/// Exponential backoff between reconnection attempts: 0.1 s, doubling, at most 2 s.
struct Backoff {
    private(set) var delay = 0.1

    mutating func reset() { delay = 0.1 }

    /// Sleeps the current delay in small steps while `condition` holds, then doubles it.
    mutating func sleep(while condition: () -> Bool) {
        var left = delay
        while left > 0 && condition() {
            let step = Swift.min(left, 0.05)
            usleep(UInt32(step * 1_000_000))
            left -= step
        }
        delay = Swift.min(2, delay * 2)
    }
}
