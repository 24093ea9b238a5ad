/// Who may watch: the WebSocket (`/ws`), every `GET`/`HEAD` under `/api/`, and `/metrics`.
///
/// With a viewer token (`--viewer-token`), a request must present it — or the write token — as
/// `Authorization: Bearer <token>` (or `Token <token>`) or as the query parameter `token`
/// (browsers cannot set headers on a WebSocket). `/metrics` needs the viewer token when one is
/// set, or the metrics token (`--metrics-token`) when that is set; either works when both are.
/// `/healthz` and the page's static files are always public. Tokens are compared in constant
/// time and never logged.
struct ReadAccess: Sendable {
    /// Tokens that open `/ws` and the API's reads; empty when they are open to anyone.
    let viewerTokens: [[UInt8]]
    /// Tokens that open `/metrics`; empty when it is public.
    let metricsTokens: [[UInt8]]

    init(viewerToken: String?, writeToken: String?, metricsToken: String?) {
        if let viewerToken {
            viewerTokens = [Array(viewerToken.utf8)] + (writeToken.map { [Array($0.utf8)] } ?? [])
        } else {
            viewerTokens = []
        }
        metricsTokens = viewerTokens + (metricsToken.map { [Array($0.utf8)] } ?? [])
    }

    /// Whether a request presenting this `Authorization` header and `token` query value may
    /// open `/ws` or read the API.
    func permitsViewing(authorization: String?, queryToken: String?) -> Bool {
        ReadAccess.matches(viewerTokens, authorization: authorization, queryToken: queryToken)
    }

    /// Whether such a request may read `/metrics`.
    func permitsMetrics(authorization: String?, queryToken: String?) -> Bool {
        ReadAccess.matches(metricsTokens, authorization: authorization, queryToken: queryToken)
    }

    /// True when `tokens` is empty (nothing required) or a presented token equals one of them.
    /// - Complexity: O(tokens · token length); every comparison runs in full, whatever matches.
    private static func matches(_ tokens: [[UInt8]], authorization: String?, queryToken: String?) -> Bool {
        guard !tokens.isEmpty else { return true }
        let presented = [WriteAccess.presentedToken(authorization), queryToken.map { Array($0.utf8) }].compactMap { $0 }
        var found = false
        for candidate in presented {
            for token in tokens where WriteAccess.constantTimeEquals(candidate, token) { found = true }
        }
        return found
    }

    /// The value of the `token` query parameter of `query` (without `?`), nil when absent.
    static func queryToken(_ query: String?) -> String? {
        guard let query else { return nil }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts[0] == "token" { return parts.count > 1 ? String(parts[1]) : "" }
        }
        return nil
    }
}
