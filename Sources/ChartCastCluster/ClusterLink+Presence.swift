import Foundation

/// The presence thread: this instance's heartbeat, finding instances gone, the demo feed's and
/// the snapshot's leases, and storing the snapshots the server offers.
extension ClusterLink {
    func presenceLoop() {
        let connection = RedisConnection(endpoint: endpoint, timeout: 2)
        var backoff = Backoff()
        let ttl = String(Int(ClusterLink.heartbeatTTL * 1000)), me = String(instance)
        while !isStopping {
            do {
                try ClusterLink.retryingStale(connection) { try heartbeat(on: connection) }
                try reapGone(on: connection)
                let leases = try connection.pipeline([
                    ["EVAL", ClusterScripts.lease, "1", keys.feedLease, me, ttl].map { Array($0.utf8) },
                    ["EVAL", ClusterScripts.lease, "1", keys.snapshotLease, me, ttl].map { Array($0.utf8) },
                ])
                for reply in leases { try reply.checked() }
                condition.lock()
                feedLeaseHeld = leases[0].integer == 1
                snapshotLeaseHeld = leases[1].integer == 1
                let offered = pendingSnapshot
                pendingSnapshot = nil
                condition.unlock()
                if let offered {
                    do {
                        offered.done(try store(offered.snapshot, at: offered.at, on: connection))
                    } catch {
                        offered.done(false)
                        throw error
                    }
                }
                if leases[1].integer == 1 { try trim(on: connection) }
                backoff.reset()
                pause(ClusterLink.heartbeatInterval)
            } catch {
                condition.lock()
                feedLeaseHeld = false
                snapshotLeaseHeld = false
                let offered = pendingSnapshot
                pendingSnapshot = nil
                condition.unlock()
                offered?.done(false)
                setLink(up: false)
                backoff.sleep(while: { !self.isStopping })
            }
        }
    }

    /// Hands the presence thread a snapshot of the server's state as of entry `at`, to store
    /// (the stream is trimmed behind it); `done` hears whether it was stored. A snapshot still
    /// waiting is replaced (its `done` gets false).
    public func offerSnapshot(_ snapshot: ClusterSnapshot, at: String, done: @escaping (Bool) -> Void) {
        condition.lock()
        let replaced = pendingSnapshot
        pendingSnapshot = stopping ? nil : (snapshot, at, done)
        let stopped = stopping
        condition.unlock()
        replaced?.done(false)
        if stopped { done(false) }
    }

    /// Stores a snapshot when its epoch is still the dashboard's and it is newer than the one
    /// stored (`ClusterScripts.store`).
    private func store(_ snapshot: ClusterSnapshot, at: String, on connection: RedisConnection) throws -> Bool {
        let reply = try connection.command([
            Array("EVAL".utf8), Array(ClusterScripts.store.utf8), Array("3".utf8),
            Array(keys.epoch.utf8), Array(keys.snapshot.utf8), Array(keys.snapshotAt.utf8),
            Array(snapshot.epoch.utf8), Array(at.utf8), snapshot.encode(),
        ]).checked()
        return reply.integer == 1
    }

    /// On the instance holding the snapshot lease, every heartbeat: trims the stream before the
    /// snapshot's entry, or before the last entry a live instance reported applied when that is
    /// older (`ClusterScripts.trim`), so that Redis holds about a snapshot interval and a
    /// heartbeat of entries.
    private func trim(on connection: RedisConnection) throws {
        try connection.command(["EVAL", ClusterScripts.trim, "4", keys.snapshotAt, keys.members, keys.applied, keys.log,
                                keys.alivePrefix]).checked()
    }

    /// Finds the members whose heartbeat expired (killed, frozen, cut off) and adds one
    /// `instance_gone` entry for each, so every instance drops their viewers at the same point
    /// of the stream. The script takes a member out of the set as it reports it, so of several
    /// instances noticing at once one adds the entry.
    private func reapGone(on connection: RedisConnection) throws {
        let reply = try connection.command(["EVAL", ClusterScripts.reap, "2", keys.members, keys.applied, keys.alivePrefix]).checked()
        for item in reply.array ?? [] {
            guard let gone = item.integer, gone != instance else { continue }
            let entry = ClusterEnvelope(origin: instance, ticket: 0, entry: .instanceGone(gone)).encode()
            try connection.command([Array("XADD".utf8), Array(keys.log.utf8), Array("*".utf8), StreamRecord.field, entry]).checked()
        }
    }

    /// Renews this instance's heartbeat key and its membership (taken away when another
    /// instance found the heartbeat expired: the next one registers it again), and reports the
    /// last entry it applied.
    func heartbeat(on connection: RedisConnection) throws {
        condition.lock()
        let applied = appliedID
        condition.unlock()
        let replies = try connection.pipeline([
            ["SET", keys.alive(instance), "1", "PX", String(Int(ClusterLink.heartbeatTTL * 1000))].map { Array($0.utf8) },
            ["SADD", keys.members, String(instance)].map { Array($0.utf8) },
            ["HSET", keys.applied, String(instance), applied].map { Array($0.utf8) },
        ])
        for reply in replies { try reply.checked() }
    }
}
