import WebSockets

extension ServerCore {
    /// The refusal of a WebSocket handshake, nil to accept it: 403 for an `Origin` the policy
    /// does not allow (checked first: a foreign page learns nothing about tokens), 401 without
    /// the viewer token when one is configured.
    /// - Note: service thread only.
    func upgradeRefusal(_ request: HTTPRequest) -> APIResponse? {
        let origin = request.headers["origin"]
        guard originPolicy.permits(origin: origin, host: request.headers["host"]) else {
            metrics.handshakesRefused[.origin, default: 0] += 1
            logger.log(.info, key: "refused-origin",
                       "refused a WebSocket from \(request.peerIP): origin \(Logger.quoted(origin ?? "")) is not allowed")
            return .error(403, "forbidden", "pages from origin \(Logger.quoted(origin ?? "", limit: 200)) may not open the socket "
                          + "(see --allow-origin)")
        }
        guard readAccess.permitsViewing(authorization: request.headers["authorization"],
                                        queryToken: ReadAccess.queryToken(request.query)) else {
            metrics.handshakesRefused[.token, default: 0] += 1
            logger.log(.debug, key: "refused-token", "refused a WebSocket from \(request.peerIP): no valid viewer token")
            return ServerCore.unauthorizedRead
        }
        return nil
    }

    /// The refusal of a read the tokens guard — `GET`/`HEAD` under `/api/` (viewer token) and
    /// `/metrics` (viewer or metrics token) — nil when it may go ahead. Writes, `/healthz` and
    /// other paths are not this function's business.
    func readRefusal(_ request: APIRequest) -> APIResponse? {
        guard request.method == "GET" || request.method == "HEAD" else { return nil }
        let authorization = request.header("authorization"), token = ReadAccess.queryToken(request.query)
        if request.path == "/metrics" {
            guard readAccess.permitsMetrics(authorization: authorization, queryToken: token) else {
                return ServerCore.unauthorized("/metrics needs the viewer or metrics token: Authorization: Bearer <token> or ?token=<token>")
            }
            return nil
        }
        guard APIRoute.isAPIPath(request.path) else { return nil }
        guard readAccess.permitsViewing(authorization: authorization, queryToken: token) else { return ServerCore.unauthorizedRead }
        return nil
    }

    /// 401 for a read or a socket without the viewer token.
    static let unauthorizedRead = unauthorized("this server needs the viewer token: Authorization: Bearer <token> or ?token=<token>")

    private static func unauthorized(_ message: String) -> APIResponse {
        var response = APIResponse.error(401, "unauthorized", message)
        response.headers.append(APIResponse.Header(name: "www-authenticate", value: "Bearer realm=\"chartcast\""))
        return response
    }
}
