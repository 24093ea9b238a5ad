import Foundation

/// What claiming an idempotency key found.
public enum IdempotencyClaim: Equatable, Sendable {
    /// The key is this caller's: run the request, then `finishKey`.
    case claimed
    /// A request with this key was answered (on any instance) within its lifetime: its answer.
    case answered([UInt8])
    /// Redis could not be asked (or the first request stayed in flight too long).
    case failed(RedisError)
}

/// `Idempotency-Key`s with `--redis`: kept in Redis, so that a write retried on another instance
/// gets the first answer (`docs/scale-out.md`, "Idempotency keys").
///
/// A key is one Redis string, `chartcast:idem:<SHA-256 of scope, endpoint and key>` (the scope
/// is the writer's token, never stored as it is): `w:<instance>:<n>` while its first request is
/// in flight (30 s, renewed by nothing: a claim of an instance that died runs out), then
/// `d:<answer>` for five minutes. The **keys** thread claims keys (`ClusterScripts.claimKey`),
/// polls every 50 ms those another request holds in flight until they are answered (or given
/// up: the caller claims them), and stores or releases answers; it waits at most
/// `maxKeyWait` for one key.
extension ClusterLink {
    /// How long a claim lasts while its request runs.
    static let keyClaimMilliseconds = 30_000
    /// How long an answer is kept.
    static let keyAnswerMilliseconds = 300_000
    /// Seconds a repeat waits for the first request at most before it is refused.
    static let maxKeyWait = 60.0

    /// The Redis key of an idempotency key in its scope and endpoint.
    public func idempotencyKey(scope: String, endpoint: String, key: String) -> String {
        keys.prefix + "idem:" + SHA256.hex(Array((scope + "\n" + endpoint + "\n" + key).utf8))
    }

    /// Claims `key` (from `idempotencyKey`); `done` runs on the keys thread: claimed, the first
    /// answer (after waiting while the first request is in flight), or the failure.
    public func claimKey(_ key: String, done: @escaping (IdempotencyClaim) -> Void) {
        condition.lock()
        guard !stopping else {
            condition.unlock()
            return done(.failed(.connectionLost("the instance is stopping")))
        }
        keyRequests.append(.claim(key: key, done: done))
        condition.broadcast()
        condition.unlock()
    }

    /// Stores the answer of the request that claimed `key` (nil: releases the key, for a 5xx,
    /// so that a retry runs again).
    public func finishKey(_ key: String, answer: [UInt8]?) {
        condition.lock()
        if !stopping {
            keyRequests.append(.finish(key: key, answer: answer))
            condition.broadcast()
        }
        condition.unlock()
    }

    func keysLoop() {
        let connection = RedisConnection(endpoint: endpoint, timeout: 2)
        try? connection.connect()
        var polling: [(key: String, done: (IdempotencyClaim) -> Void, since: Date)] = []
        var claims = 0
        while true {
            condition.lock()
            while keyRequests.isEmpty && polling.isEmpty && !stopping { condition.wait() }
            if keyRequests.isEmpty && !polling.isEmpty && !stopping { _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05)) }
            if stopping {
                let left = keyRequests
                keyRequests = []
                condition.unlock()
                for case .claim(_, let done) in left { done(.failed(.connectionLost("the instance is stopping"))) }
                for item in polling { item.done(.failed(.connectionLost("the instance is stopping"))) }
                return
            }
            let requests = keyRequests
            keyRequests = []
            condition.unlock()
            var attempts: [(key: String, done: (IdempotencyClaim) -> Void, since: Date)] = polling
            polling = []
            for request in requests {
                switch request {
                case .claim(let key, let done): attempts.append((key, done, Date()))
                case .finish(let key, let answer): finish(key, answer: answer, on: connection)
                }
            }
            for attempt in attempts {
                claims += 1
                do {
                    switch try claim(attempt.key, owner: "w:\(instance):\(claims)", on: connection) {
                    case .some(let outcome): attempt.done(outcome)
                    case .none where Date().timeIntervalSince(attempt.since) > ClusterLink.maxKeyWait:
                        attempt.done(.failed(.connectionLost("the first request with this Idempotency-Key is still in flight")))
                    case .none: polling.append(attempt)
                    }
                } catch let error as RedisError {
                    attempt.done(.failed(error))
                } catch {
                    attempt.done(.failed(.connectionLost("\(error)")))
                }
            }
        }
    }

    /// One attempt: claimed, answered, or nil while another request holds the key.
    private func claim(_ key: String, owner: String, on connection: RedisConnection) throws -> IdempotencyClaim? {
        let reply = try ClusterLink.retryingStale(connection) {
            try connection.command(["EVAL", ClusterScripts.claimKey, "1", key, owner, String(ClusterLink.keyClaimMilliseconds)]).checked()
        }
        guard let parts = reply.array, let first = parts.first?.integer else { throw RedisError.unexpectedReply("the key script gave \(reply)") }
        if first == 1 { return .claimed }
        guard parts.count == 2, case .bytes(let value) = parts[1] else { return nil }
        if value.starts(with: Array("d:".utf8)) { return .answered(Array(value.dropFirst(2))) }
        return nil
    }

    private func finish(_ key: String, answer: [UInt8]?, on connection: RedisConnection) {
        if let answer {
            _ = try? ClusterLink.retryingStale(connection) {
                try connection.command([Array("SET".utf8), Array(key.utf8), Array("d:".utf8) + answer, Array("PX".utf8),
                                        Array(String(ClusterLink.keyAnswerMilliseconds).utf8)])
            }
        } else {
            _ = try? ClusterLink.retryingStale(connection) {
                try connection.command(["EVAL", ClusterScripts.releaseKey, "1", key, "w:\(instance):"])
            }
        }
    }
}

/// A request for the keys thread.
enum KeyRequest {
    case claim(key: String, done: (IdempotencyClaim) -> Void)
    case finish(key: String, answer: [UInt8]?)
}
