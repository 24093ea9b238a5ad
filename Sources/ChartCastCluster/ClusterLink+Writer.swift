/// The writer thread, and how entries reach it.
extension ClusterLink {
    /// Queues one entry for the stream; `done` runs on the writer thread once it is in (with
    /// its id) or could not be added (the error). While Redis is unreachable `done` gets the
    /// error at once, on the calling thread.
    public func add(_ payload: [UInt8], done: @escaping (Result<String, RedisError>) -> Void) {
        condition.lock()
        guard !stopping else {
            condition.unlock()
            return done(.failure(.connectionLost("the instance is stopping")))
        }
        guard linkUp else {
            condition.unlock()
            return done(.failure(.connectionLost("\(endpoint) is unreachable")))
        }
        queue.append((payload, done))
        if queue.count == 1 { condition.broadcast() }   // the presence thread waits on it too
        condition.unlock()
    }

    /// `add(_:done:)` for callers that need no id: `done` gets nil once the entry is in.
    public func append(_ payload: [UInt8], done: @escaping (RedisError?) -> Void) {
        add(payload) { result in
            if case .failure(let error) = result { done(error) } else { done(nil) }
        }
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

    /// While true the reader sends Redis nothing (it waits before its next command): a test's way
    /// to let Redis change under an instance before it notices. Never set by the server.
    var readsHeld: Bool {
        get {
            condition.lock()
            defer { condition.unlock() }
            return readerHeld
        }
        set {
            condition.lock()
            readerHeld = newValue
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Waits while `readsHeld` (or until `stop`).
    func waitWhileReadsHeld() {
        condition.lock()
        while readerHeld && !stopping { condition.wait() }
        condition.unlock()
    }

    /// Entries queued for the writer and not yet appended.
    var queuedAppends: Int {
        condition.lock()
        defer { condition.unlock() }
        return queue.count
    }

    func writerLoop() {
        let connection = RedisConnection(endpoint: endpoint, timeout: 2)
        try? connection.connect()   // now, not at the first entry: it is quicker then, and the process's sockets stay put
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
                    switch reply {
                    case .error(let message): item.done(.failure(.server(message)))
                    default: item.done(.success(reply.string ?? ""))
                    }
                }
            } catch let error as RedisError {
                for item in batch { item.done(.failure(error)) }
                setLink(up: false)
            } catch {
                for item in batch { item.done(.failure(.connectionLost("\(error)"))) }
            }
        }
    }

}
