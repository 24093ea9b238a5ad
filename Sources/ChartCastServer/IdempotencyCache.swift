import WebSockets

/// Answers kept by `Idempotency-Key`, so that a client may retry a write safely: a repeat of a key
/// within five minutes gets the first answer again and applies nothing.
///
/// Keys are scoped to the writer (token or peer) and the endpoint (method and path). A repeat
/// while the first request is still in flight waits for its answer. 4xx answers are kept (the
/// request would fail the same way); 5xx answers are not (a retry is tried again). At most
/// `capacity` keys are kept; the oldest go first.
/// - Note: service thread only.
final class IdempotencyCache<Answer> {
    struct Key: Hashable {
        var scope: String
        var endpoint: String
        var key: String
    }

    /// What `begin` found.
    enum Lookup {
        /// First use: run the request, then `finish` the key.
        case run
        /// An answer is kept: send it again.
        case answered(Answer)
        /// The first request is still running: the waiter is called with its answer.
        case waiting
    }

    private enum Entry {
        case inFlight(waiters: [(Answer) -> Void])
        case done(Answer, at: UInt64)
    }

    static var lifetime: UInt64 { 300_000_000_000 }   // five minutes, in ns
    let capacity: Int
    private var entries: [Key: Entry] = [:]
    /// Finished keys in the order they finished, for expiry and the capacity bound.
    private var order = FIFOQueue<(key: Key, at: UInt64)>()

    init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    /// Looks `key` up at time `now` (monotonic ns); on `.waiting`, `waiter` will receive the answer.
    /// - Complexity: amortised O(1).
    func begin(_ key: Key, now: UInt64, waiter: @escaping (Answer) -> Void) -> Lookup {
        expire(now: now)
        switch entries[key] {
        case .done(let answer, _)?:
            return .answered(answer)
        case .inFlight(var waiters)?:
            waiters.append(waiter)
            entries[key] = .inFlight(waiters: waiters)
            return .waiting
        case nil:
            entries[key] = .inFlight(waiters: [])
            return .run
        }
    }

    /// Records the answer of the request that ran under `key` and hands it to the waiters;
    /// `keep` false (a 5xx) forgets the key so that a retry runs again.
    func finish(_ key: Key, answer: Answer, keep: Bool, now: UInt64) {
        guard case .inFlight(let waiters)? = entries[key] else { return }
        if keep {
            entries[key] = .done(answer, at: now)
            order.append((key, now))
            while entries.count > capacity, let oldest = order.popFirst() { drop(oldest.key) }
        } else {
            entries[key] = nil
        }
        for waiter in waiters { waiter(answer) }
    }

    /// Keys kept or in flight.
    var count: Int { entries.count }

    private func expire(now: UInt64) {
        while let (key, at) = order.first, now &- at >= Self.lifetime {
            _ = order.popFirst()
            if case .done(_, let doneAt)? = entries[key], doneAt == at { entries[key] = nil }
        }
    }

    private func drop(_ key: Key) {
        if case .done? = entries[key] { entries[key] = nil }
    }
}
