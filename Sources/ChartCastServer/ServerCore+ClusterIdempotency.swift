import ChartCastCluster
import ChartCastProtocol

/// `Idempotency-Key`s with `--redis` (`docs/scale-out.md`, "Idempotency keys"): the key lives in
/// Redis, so a write repeated on any instance of the dashboard gets the first answer and
/// applies nothing, and a repeat while the first is in flight (on whichever instance) waits for
/// it. This instance's own cache still answers its own repeats first (and lets them wait here).
extension ServerCore {
    /// `withIdempotency` with a cluster: `body` runs once dashboard-wide for `key`.
    /// - Note: service thread only.
    func clusterIdempotent(_ key: IdempotencyCache<APIResponse>.Key, link: ClusterLink, reply: @escaping (APIResponse) -> Void,
                           _ body: @escaping (@escaping (APIResponse) -> Void) -> Void) {
        switch idempotency.begin(key, now: ServerCore.now(), waiter: reply) {
        case .answered(let answer): return reply(answer)
        case .waiting: return
        case .run: break
        }
        let stored = link.idempotencyKey(scope: key.scope, endpoint: key.endpoint, key: key.key)
        let back = runOnServiceThread
        link.claimKey(stored) { [weak self] claim in
            back {
                guard let self else { return }
                let finish = { (answer: APIResponse, keep: Bool) in
                    self.idempotency.finish(key, answer: answer, keep: keep, now: ServerCore.now())
                    reply(answer)
                }
                switch claim {
                case .claimed:
                    body { answer in
                        let keep = answer.status < 500
                        link.finishKey(stored, answer: keep ? ServerCore.encodeAnswer(answer) : nil)
                        finish(answer, keep)
                    }
                case .answered(let bytes):
                    finish(ServerCore.decodeAnswer(bytes) ?? .error(500, "internal", "the kept answer of this Idempotency-Key cannot be read"),
                           true)
                case .failed(let error):
                    finish(.unavailable(self.unavailableError("the Idempotency-Key could not be checked: \(error)")), false)
                }
            }
        }
    }

    /// An answer as kept in Redis: `{"s":status,"t":content type,"b":body,"h":[[name,value]…]}`.
    static func encodeAnswer(_ answer: APIResponse) -> [UInt8] {
        JSONValue.object([
            ("s", .number(Double(answer.status))), ("t", .string(answer.contentType)),
            ("b", .string(String(decoding: answer.body, as: UTF8.self))),
            ("h", .array(answer.headers.map { .array([.string($0.name), .string($0.value)]) })),
        ]).serialized
    }

    /// A kept answer, nil when the bytes are not one.
    static func decodeAnswer(_ bytes: [UInt8]) -> APIResponse? {
        guard let json = try? JSONReader.parse(bytes), let status = json["s"]?.number, let type = json["t"]?.string,
              let body = json["b"]?.string else { return nil }
        let headers = (json["h"]?.array ?? []).compactMap { pair -> APIResponse.Header? in
            guard let name = pair[0]?.string, let value = pair[1]?.string else { return nil }
            return APIResponse.Header(name: name, value: value)
        }
        return APIResponse(status: Int(status), contentType: type, body: Array(body.utf8), headers: headers)
    }
}
