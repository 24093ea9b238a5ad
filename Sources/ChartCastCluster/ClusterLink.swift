import Foundation

/// Why an instance could not join the dashboard in Redis at start.
public struct ClusterJoinError: Error, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// One instance's link to its dashboard in Redis: the stream every change goes through, and
/// the threads that talk to Redis so that the service thread never does.
///
/// - `join` (at start, on the starting thread) connects, checks that Redis holds this
///   dashboard (or claims it for it), takes an instance number and reads the stream so far.
/// - The **writer** thread appends entries (`append`): everything queued when it wakes goes out
///   as one pipeline of `XADD`s, one round trip, and each caller hears whether its entry is in
///   the stream.
/// - The **reader** thread blocks in `XREAD BLOCK` after the last entry read and hands each
///   batch of entries to `deliver`, in stream order.
/// - The **presence** thread renews this instance's heartbeat every `heartbeatInterval` and
///   holds or takes the demo feed's lease.
///
/// Each thread has its own `RedisConnection`. When Redis cannot be reached, the writer fails
/// what it was given at once (`RedisError`), the reader and the presence thread retry with
/// backoff (0.1 s doubling to 2 s), and `linkChanged` reports the link down and, later, up.
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

    private let condition = NSCondition()
    private var queue: [(payload: [UInt8], done: (RedisError?) -> Void)] = []
    private var stopping = false
    private var running = 0
    private var linkUp = true
    /// Counts the times the link went down: a connection older than the last one may be a
    /// dead socket to a Redis that has since restarted, so the writer opens a new one.
    private var downs = 0
    private var feedLeaseHeld = false
    private var writerHeld = false
    private var deliver: (([StreamRecord]) -> Void)?
    private var streamReset: (() -> Void)?
    /// What this dashboard started from (`join`), claimed again after Redis lost everything.
    private var fingerprint: [UInt8] = []
    private var linkChanged: ((Bool) -> Void)?
    private var lastID = "0-0"

    private init(endpoint: RedisEndpoint, keys: ClusterKeys, instance: Int) {
        self.endpoint = endpoint
        self.keys = keys
        self.instance = instance
    }

    /// Joins the dashboard described by `fingerprint` (its charts as JSON) in Redis: the first
    /// instance claims the database for it, later ones must bring the same. Takes an instance
    /// number, registers it, and returns the link with every entry of the stream so far.
    /// - Throws: `RedisError.connectionFailed` when Redis cannot be reached, `ClusterJoinError`
    ///   when it holds another dashboard.
    public static func join(endpoint: RedisEndpoint, fingerprint: [UInt8], keys: ClusterKeys = ClusterKeys(),
                            timeout: Double = 5) throws -> (link: ClusterLink, backlog: [StreamRecord]) {
        let connection = RedisConnection(endpoint: endpoint, timeout: timeout)
        try connection.connect()
        let claimed = try connection.command([Array("SET".utf8), Array(keys.dashboard.utf8), fingerprint, Array("NX".utf8)]).checked()
        if claimed.isNull {
            let held = try connection.command(["GET", keys.dashboard]).checked()
            guard case .bytes(let bytes) = held, bytes == fingerprint else {
                throw ClusterJoinError("\(endpoint) holds another dashboard (other charts, --dashboard or --window than this "
                                       + "instance's); give each dashboard its own database, e.g. redis://\(endpoint.host):\(endpoint.port)/1")
            }
        }
        guard let instance = try connection.command(["INCR", keys.instances]).checked().integer else {
            throw RedisError.unexpectedReply("INCR gave no integer")
        }
        let link = ClusterLink(endpoint: endpoint, keys: keys, instance: instance)
        link.fingerprint = fingerprint
        try link.heartbeat(on: connection)
        var backlog: [StreamRecord] = []
        var from = "-"
        while true {
            let page = try StreamRecord.records(try connection.command(["XRANGE", keys.log, from, "+", "COUNT", "1000"]).checked())
            guard let last = page.last else { break }
            backlog.append(contentsOf: page)
            from = "(" + last.id
            if page.count < 1000 { break }
        }
        if let last = backlog.last { link.lastID = last.id }
        return (link, backlog)
    }

    /// Starts the threads. `deliver` gets the entries after the backlog, in stream order;
    /// `linkChanged` hears when Redis became unreachable (false) and reachable again (true);
    /// `streamReset` when Redis came back without the dashboard (restarted empty): the stream
    /// starts over and the instance's viewers must join it again.
    public func start(deliver: @escaping ([StreamRecord]) -> Void, linkChanged: @escaping (Bool) -> Void,
                      streamReset: @escaping () -> Void = {}) {
        condition.lock()
        self.deliver = deliver
        self.linkChanged = linkChanged
        self.streamReset = streamReset
        running = 3
        condition.unlock()
        startThread("chartcast.redis.writer") { $0.writerLoop() }
        startThread("chartcast.redis.reader") { $0.readerLoop() }
        startThread("chartcast.redis.presence") { $0.presenceLoop() }
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
    /// `timeout` seconds for them, then takes this instance's heartbeat and feed lease away so
    /// that the others see it gone at once. Entries still queued after the wait are failed.
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
        condition.unlock()
        for item in pending { item.done(.connectionLost("the instance is stopping")) }
        let connection = RedisConnection(endpoint: endpoint, timeout: 1)
        _ = try? connection.pipeline([
            [Array("DEL".utf8), Array(keys.alive(instance).utf8)],
            [Array("EVAL".utf8), Array(ClusterLink.releaseScript.utf8), Array("1".utf8), Array(keys.feedLease.utf8),
             Array(String(instance).utf8)],
        ])
    }

    /// Whether the last exchange with Redis worked.
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

    // MARK: Writing

    /// Queues one entry for the stream; `done` runs on the writer thread once it is in
    /// (nil) or could not be added (the error). While Redis is unreachable `done` gets the
    /// error at once, on the calling thread.
    public func append(_ payload: [UInt8], done: @escaping (RedisError?) -> Void) {
        condition.lock()
        guard !stopping else {
            condition.unlock()
            return done(.connectionLost("the instance is stopping"))
        }
        guard linkUp else {
            condition.unlock()
            return done(.connectionLost("\(endpoint) is unreachable"))
        }
        queue.append((payload, done))
        if queue.count == 1 { condition.broadcast() }   // the presence thread waits on it too
        condition.unlock()
    }

    /// While true the writer appends nothing (entries wait in the queue, in order): a test's
    /// way to have another instance's entry reach the stream first. Never set by the server.
    var appendsHeld: Bool {
        get {
            condition.lock()
            defer { condition.unlock() }
            return writerHeld
        }
        set {
            condition.lock()
            writerHeld = newValue
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Entries queued for the writer and not yet appended.
    var queuedAppends: Int {
        condition.lock()
        defer { condition.unlock() }
        return queue.count
    }

    private func writerLoop() {
        let connection = RedisConnection(endpoint: endpoint, timeout: 2)
        let xadd = Array("XADD".utf8), key = Array(keys.log.utf8), star = Array("*".utf8)
        var connectedAt = 0
        while true {
            condition.lock()
            while (queue.isEmpty || writerHeld) && !stopping { condition.wait() }
            if queue.isEmpty {   // stopping, and everything queued before `stop` is out
                condition.unlock()
                return
            }
            let batch = Array(queue.prefix(ClusterLink.maxPipeline))
            queue.removeFirst(batch.count)
            if connectedAt != downs {
                connection.disconnect()
                connectedAt = downs
            }
            condition.unlock()
            do {
                let replies = try connection.pipeline(batch.map { [xadd, key, star, StreamRecord.field, $0.payload] })
                for (item, reply) in zip(batch, replies) {
                    if case .error(let message) = reply { item.done(.server(message)) } else { item.done(nil) }
                }
                setLink(up: true)
            } catch let error as RedisError {
                for item in batch { item.done(error) }
                setLink(up: false)
            } catch {
                for item in batch { item.done(.connectionLost("\(error)")) }
            }
        }
    }

    // MARK: Reading

    private func readerLoop() {
        let connection = RedisConnection(endpoint: endpoint, timeout: Double(ClusterLink.readBlockMilliseconds) / 1000 + 2)
        var backoff = Backoff()
        var reconnected = false
        while !isStopping {
            do {
                if reconnected {
                    try ClusterLink.retryingStale(connection) { try checkForReset(on: connection) }
                    reconnected = false
                }
                let reply = try ClusterLink.retryingStale(connection) {
                    try connection.command(["XREAD", "COUNT", "1000", "BLOCK", String(ClusterLink.readBlockMilliseconds),
                                            "STREAMS", keys.log, lastID]).checked()
                }
                backoff.reset()
                setLink(up: true)
                let records = try StreamRecord.readReply(reply)
                guard let last = records.last else { continue }
                lastID = last.id
                deliver?(records)
            } catch {
                setLink(up: false)
                reconnected = true
                backoff.sleep(while: { !self.isStopping })
            }
        }
    }

    /// After the link was down: whether Redis still holds the dashboard. A Redis that restarted
    /// empty (no persistence) lost the stream, the instance counter and the members: this
    /// instance claims the dashboard again, keeps the counter above its own number (so no
    /// later instance gets it), reads the new stream from its start, and reports the reset.
    private func checkForReset(on connection: RedisConnection) throws {
        let claimed = try connection.command([Array("SET".utf8), Array(keys.dashboard.utf8), fingerprint, Array("NX".utf8)]).checked()
        guard !claimed.isNull else { return }   // it was there: the stream goes on where it was
        try connection.command(["EVAL", ClusterLink.raiseScript, "1", keys.instances, String(instance)]).checked()
        lastID = "0-0"
        streamReset?()
    }

    /// Raises the counter KEYS[1] to ARGV[1] when it is lower.
    static let raiseScript = """
    local current = tonumber(redis.call('GET', KEYS[1]) or '0')
    if current < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
    return 1
    """

    // MARK: Presence

    private func presenceLoop() {
        let connection = RedisConnection(endpoint: endpoint, timeout: 2)
        var backoff = Backoff()
        while !isStopping {
            do {
                try ClusterLink.retryingStale(connection) { try heartbeat(on: connection) }
                try reapGone(on: connection)
                let held = try connection.command([ "EVAL", ClusterLink.leaseScript, "1", keys.feedLease, String(instance),
                                                    String(Int(ClusterLink.heartbeatTTL * 1000))]).checked()
                condition.lock()
                feedLeaseHeld = held.integer == 1
                condition.unlock()
                backoff.reset()
                setLink(up: true)
                pause(ClusterLink.heartbeatInterval)
            } catch {
                condition.lock()
                feedLeaseHeld = false
                condition.unlock()
                setLink(up: false)
                backoff.sleep(while: { !self.isStopping })
            }
        }
    }

    /// Finds the members whose heartbeat expired (killed, frozen, cut off) and adds one
    /// `instance_gone` entry for each, so every instance drops their viewers at the same point
    /// of the stream. The script takes a member out of the set as it reports it, so of several
    /// instances noticing at once one adds the entry.
    private func reapGone(on connection: RedisConnection) throws {
        let reply = try connection.command(["EVAL", ClusterLink.reapScript, "1", keys.members, keys.prefix + "alive:"]).checked()
        for item in reply.array ?? [] {
            guard let gone = item.integer, gone != instance else { continue }
            let entry = ClusterEnvelope(origin: instance, ticket: 0, entry: .instanceGone(gone)).encode()
            try connection.command([Array("XADD".utf8), Array(keys.log.utf8), Array("*".utf8), StreamRecord.field, entry]).checked()
        }
    }

    /// Removes and returns the members of KEYS[1] whose key ARGV[1]..member does not exist.
    static let reapScript = """
    local gone = {}
    for _, member in ipairs(redis.call('SMEMBERS', KEYS[1])) do
      if redis.call('EXISTS', ARGV[1] .. member) == 0 then
        redis.call('SREM', KEYS[1], member)
        table.insert(gone, tonumber(member))
      end
    end
    return gone
    """

    /// Renews this instance's heartbeat key and its membership (taken away when another
    /// instance found the heartbeat expired: the next one registers it again).
    private func heartbeat(on connection: RedisConnection) throws {
        let replies = try connection.pipeline([
            ["SET", keys.alive(instance), "1", "PX", String(Int(ClusterLink.heartbeatTTL * 1000))].map { Array($0.utf8) },
            ["SADD", keys.members, String(instance)].map { Array($0.utf8) },
        ])
        for reply in replies { try reply.checked() }
    }

    /// Takes the lease when free, renews it when held; 1 when held afterwards.
    static let leaseScript = """
    local holder = redis.call('GET', KEYS[1])
    if holder == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
    if holder then return 0 end
    redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
    return 1
    """

    /// Gives the lease up when held.
    static let releaseScript = """
    if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
    return 0
    """

    // MARK: State

    private var isStopping: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopping
    }

    /// Sleeps `seconds`, or less when `stop` is called.
    private func pause(_ seconds: Double) {
        condition.lock()
        let deadline = Date(timeIntervalSinceNow: seconds)
        while !stopping {
            if !condition.wait(until: deadline) { break }
        }
        condition.unlock()
    }

    private func setLink(up: Bool) {
        condition.lock()
        let changed = linkUp != up
        linkUp = up
        if changed && !up { downs += 1 }
        let callback = linkChanged
        condition.unlock()
        if changed { callback?(up) }
    }
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
