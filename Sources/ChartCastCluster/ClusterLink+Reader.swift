import Foundation

/// The reader thread: the stream in order, and catching up after Redis was lost.
///
/// After the link was down, after a stall longer than a heartbeat's life (the process was
/// frozen: the others may have found it gone and trimmed the stream past it), or when the
/// stream started another epoch, the reader finds out where the dashboard stands before it
/// reads on (`catchUp`):
/// - Redis holds no dashboard (it came back empty): this instance claims it with its own state
///   (`ClusterScripts.claim`), which the others then take.
/// - It holds another epoch than the one followed: when that epoch began as a newly started
///   instance's starting state (its snapshot is `fresh`) while this instance kept a running
///   dashboard's, this one claims the dashboard back with its state; otherwise it takes that
///   epoch's snapshot.
/// - The same epoch, but the stream no longer holds the entries after the last one read: it
///   takes the snapshot.
extension ClusterLink {
    func readerLoop() {
        let connection = RedisConnection(endpoint: endpoint, timeout: Double(ClusterLink.readBlockMilliseconds) / 1000 + 2)
        var backoff = Backoff()
        var mustCatchUp = false
        let stall = Double(ClusterLink.readBlockMilliseconds) / 1000 + ClusterLink.heartbeatTTL
        var lastRound = Date()
        while !isStopping {
            waitWhileReadsHeld()
            do {
                if mustCatchUp || takeCheckRequest() {
                    try catchUp(on: connection)
                    mustCatchUp = false
                }
                let reply = try ClusterLink.retryingStale(connection) {
                    try connection.command(["XREAD", "COUNT", "1000", "BLOCK", String(ClusterLink.readBlockMilliseconds),
                                            "STREAMS", keys.log, lastID]).checked()
                }
                backoff.reset()
                // A round that took longer than a heartbeat lives: the process stalled (frozen),
                // and may have been found gone and trimmed past. What was read is still in order.
                if Date().timeIntervalSince(lastRound) > stall { mustCatchUp = true }
                lastRound = Date()
                setLink(up: true)
                let records = try StreamRecord.readReply(reply)
                var changes: [StreamRecord] = []
                for record in records {
                    if let epoch = record.epoch, epoch != epochNow {
                        mustCatchUp = true   // the dashboard was claimed again: what follows is another state's
                        break
                    }
                    lastID = record.id
                    if record.epoch == nil { changes.append(record) }
                }
                if !changes.isEmpty { handlers?.deliver(changes) }
            } catch {
                setLink(up: false)
                mustCatchUp = true
                backoff.sleep(while: { !self.isStopping })
                lastRound = Date()
            }
        }
    }

    private var epochNow: String {
        condition.lock()
        defer { condition.unlock() }
        return currentEpoch
    }

    /// Whether another thread asked for a check since the last one (and clears the request).
    private func takeCheckRequest() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let requested = checkRequested
        checkRequested = false
        return requested
    }

    /// Finds out where the dashboard stands in Redis and brings this instance there (above).
    /// - Throws: a `RedisError` when Redis cannot be reached (the reader backs off and tries
    ///   again), or when the dashboard kept changing.
    private func catchUp(on connection: RedisConnection) throws {
        for _ in 0..<5 {
            let reply = try ClusterLink.retryingStale(connection) {
                try connection.command(["EVAL", ClusterScripts.check, "4", keys.dashboard, keys.epoch, keys.snapshotAt, keys.log,
                                        lastID]).checked()
            }
            guard let state = reply.array, state.count == 4, let held = state[0].integer, let at = state[2].string,
                  let kept = state[3].integer else {
                throw RedisError.unexpectedReply("the check script gave \(reply)")
            }
            guard held == 1 else {
                if try claim(expected: "", on: connection) { return }
                continue
            }
            let epoch = state[1].string ?? ""
            if epoch == epochNow {
                // Trimming never passes the snapshot's entry: after it, or at a kept entry, nothing is missing.
                if kept == 1 || !StreamID.precedes(lastID, at) { return }
                if try take(on: connection) { return }
                continue
            }
            let stored = try connection.command(["GET", keys.snapshot]).checked()
            if case .bytes(let blob) = stored, (try? ClusterSnapshot.header(blob))?.fresh == true {
                if try claim(expected: epoch, on: connection) { return }
                continue
            }
            if try take(on: connection) { return }
        }
        throw RedisError.unexpectedReply("the dashboard in \(endpoint) kept changing while this instance caught up")
    }

    /// Claims the dashboard with this instance's state (`expected`: the epoch it replaces, empty
    /// when Redis holds none). False when another instance was quicker.
    private func claim(expected: String, on connection: RedisConnection) throws -> Bool {
        guard var state = handlers?.capture() else { throw RedisError.connectionLost("the instance is stopping") }
        state.epoch = ClusterLink.newEpoch()
        state.fresh = false
        let reply = try connection.command(ClusterLink.claimArguments(keys: keys, fingerprint: fingerprint, expected: expected,
                                                                      snapshot: state, instances: state.instances.union([instance])))
            .checked()
        guard let at = reply.string else { return false }
        condition.lock()
        currentEpoch = state.epoch
        epochIsBirth = false
        appliedID = at
        condition.unlock()
        lastID = at
        handlers?.claimed(state.epoch, at)
        return true
    }

    /// Takes the dashboard's snapshot as this instance's state. False when Redis holds none.
    private func take(on connection: RedisConnection) throws -> Bool {
        let (snapshot, at, epoch) = try loadSnapshot(on: connection)
        guard let snapshot else { return false }
        condition.lock()
        currentEpoch = epoch
        epochIsBirth = snapshot.fresh
        appliedID = at
        condition.unlock()
        lastID = at
        handlers?.install(snapshot, at)
        return true
    }
}
