/// What `ClusterLink.join` found: the link, and where the instance starts.
public struct ClusterJoin {
    public let link: ClusterLink
    /// The dashboard's snapshot to start from; nil when this instance claimed the dashboard
    /// (Redis held none): its own state, as `prepare` made it, is where the dashboard starts.
    public let snapshot: ClusterSnapshot?
    /// The stream entry the start state holds everything up to.
    public let position: String
    /// The entries after it, in stream order.
    public let backlog: [StreamRecord]
}

extension ClusterLink {
    /// Joins the dashboard described by `fingerprint` (its starting charts as JSON) in Redis.
    ///
    /// When Redis holds no dashboard, this instance claims it: `prepare` makes its starting
    /// state (the server brings its history back first), which is stored as the dashboard's
    /// first snapshot, as of the epoch entry that starts the stream. Otherwise the dashboard
    /// must have been started from the same fingerprint; the instance registers (so that the
    /// stream is not trimmed past what it is about to read) and gets the newest snapshot and
    /// every entry after it. Takes an instance number either way.
    /// - Throws: `RedisError.connectionFailed` when Redis cannot be reached, `ClusterJoinError`
    ///   when it holds another dashboard or a snapshot that cannot be read.
    public static func join(endpoint: RedisEndpoint, fingerprint: [UInt8], keys: ClusterKeys = ClusterKeys(),
                            timeout: Double = 5, prepare: () throws -> ClusterSnapshot = { .empty }) throws -> ClusterJoin {
        let connection = RedisConnection(endpoint: endpoint, timeout: timeout)
        try connection.connect()
        if try connection.command(["EXISTS", keys.dashboard]).checked().integer != 1 {
            var start = try prepare()
            start.epoch = newEpoch()
            start.fresh = true
            let reply = try connection.command(claimArguments(keys: keys, fingerprint: fingerprint, expected: "", snapshot: start,
                                                              instances: start.instances)).checked()
            if let at = reply.string {
                let link = try numbered(endpoint: endpoint, keys: keys, fingerprint: fingerprint, on: connection)
                link.currentEpoch = start.epoch
                link.epochIsBirth = true
                link.appliedID = at
                try link.heartbeat(on: connection)
                let backlog = try link.entries(after: at, on: connection)
                link.lastID = backlog.last?.id ?? at
                return ClusterJoin(link: link, snapshot: nil, position: at, backlog: backlog.filter { $0.epoch == nil })
            }
        }
        let held = try connection.command(["GET", keys.dashboard]).checked()
        guard case .bytes(let bytes) = held, bytes == fingerprint else {
            throw ClusterJoinError("\(endpoint) holds another dashboard (other charts, --dashboard or --window than this "
                                   + "instance's); give each dashboard its own database, e.g. redis://\(endpoint.host):\(endpoint.port)/1")
        }
        let link = try numbered(endpoint: endpoint, keys: keys, fingerprint: fingerprint, on: connection)
        for _ in 0..<5 {
            let (snapshot, at, epoch) = try link.loadSnapshot(on: connection)
            let backlog = try link.entries(after: at, on: connection)
            // An epoch entry after the snapshot: the dashboard was claimed again meanwhile.
            if backlog.contains(where: { $0.epoch != nil && $0.epoch != epoch }) { continue }
            link.currentEpoch = epoch
            link.epochIsBirth = snapshot?.fresh ?? false
            link.appliedID = at
            link.lastID = backlog.last?.id ?? at
            return ClusterJoin(link: link, snapshot: snapshot, position: at, backlog: backlog.filter { $0.epoch == nil })
        }
        throw ClusterJoinError("\(endpoint): the dashboard was claimed again five times while this instance joined it")
    }

    /// Takes an instance number and makes the link for it.
    private static func numbered(endpoint: RedisEndpoint, keys: ClusterKeys, fingerprint: [UInt8],
                                 on connection: RedisConnection) throws -> ClusterLink {
        guard let instance = try connection.command(["INCR", keys.instances]).checked().integer else {
            throw RedisError.unexpectedReply("INCR gave no integer")
        }
        let link = ClusterLink(endpoint: endpoint, keys: keys, instance: instance)
        link.fingerprint = fingerprint
        return link
    }

    /// The arguments of `ClusterScripts.claim` for `snapshot` (its epoch is the new one).
    static func claimArguments(keys: ClusterKeys, fingerprint: [UInt8], expected: String, snapshot: ClusterSnapshot,
                               instances: Set<Int>) -> [[UInt8]] {
        var arguments: [[UInt8]] = [Array("EVAL".utf8), Array(ClusterScripts.claim.utf8), Array("7".utf8)]
        arguments += [keys.dashboard, keys.epoch, keys.snapshot, keys.snapshotAt, keys.log, keys.instances, keys.members].map { Array($0.utf8) }
        arguments += [fingerprint, Array(expected.utf8), Array(snapshot.epoch.utf8), snapshot.encode(), Array(keys.alivePrefix.utf8),
                      Array(String(Int(heartbeatTTL * 1000)).utf8)]
        arguments += instances.sorted().map { Array(String($0).utf8) }
        return arguments
    }

    /// Registers this instance as about to read after the snapshot, and gets the snapshot, the
    /// id it holds everything up to, and the epoch.
    /// - Throws: `ClusterJoinError` for a snapshot that cannot be read.
    func loadSnapshot(on connection: RedisConnection) throws -> (ClusterSnapshot?, String, String) {
        let reply = try connection.command([
            "EVAL", ClusterScripts.load, "5", keys.snapshot, keys.snapshotAt, keys.epoch, keys.members, keys.applied,
            String(instance), keys.alive(instance), String(Int(ClusterLink.heartbeatTTL * 1000)),
        ]).checked()
        guard let parts = reply.array, parts.count == 3, let at = parts[1].string else {
            throw RedisError.unexpectedReply("the snapshot script gave \(reply)")
        }
        var snapshot: ClusterSnapshot?
        if case .bytes(let blob) = parts[0] {
            do {
                snapshot = try ClusterSnapshot.decode(blob)
            } catch {
                throw ClusterJoinError("\(endpoint) holds a snapshot of the dashboard this instance cannot read: \(error)")
            }
        }
        return (snapshot, at, parts[2].string ?? "")
    }

    /// Every entry after `id` ("0-0": from the start), read in pages.
    func entries(after id: String, on connection: RedisConnection) throws -> [StreamRecord] {
        var records: [StreamRecord] = []
        var from = id == "0-0" ? "-" : "(" + id
        while true {
            let page = try StreamRecord.records(try connection.command(["XRANGE", keys.log, from, "+", "COUNT", "1000"]).checked())
            guard let last = page.last else { break }
            records.append(contentsOf: page)
            from = "(" + last.id
            if page.count < 1000 { break }
        }
        return records
    }
}
