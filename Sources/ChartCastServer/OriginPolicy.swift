/// Which web pages may open the WebSocket: the server's own origin, the configured ones
/// (`--allow-origin`), and clients that name no origin (programs; browsers always send one).
///
/// Origins are compared normalised: scheme and host lower-cased, the default port (80 for
/// `http`, 443 for `https`) dropped, no path. The server's own origin is the request's `Host`
/// under `http` or `https` (the port speaks one of them, so either names the same socket).
struct OriginPolicy: Sendable {
    /// The allowed origins, normalised.
    let allowed: Set<String>

    /// A policy allowing `origins` (already normalised, or normalisable) besides the server's own.
    init(allowing origins: [String]) {
        allowed = Set(origins.compactMap(OriginPolicy.normalize))
    }

    /// Whether a handshake with this `Origin` header, sent to this `Host`, may open the socket.
    /// - Complexity: O(length of the two headers).
    func permits(origin: String?, host: String?) -> Bool {
        guard let origin else { return true }
        guard let normalised = OriginPolicy.normalize(origin) else { return false }
        if allowed.contains(normalised) { return true }
        guard let host, !host.isEmpty, !host.contains("/") else { return false }
        return OriginPolicy.normalize("http://" + host) == normalised || OriginPolicy.normalize("https://" + host) == normalised
    }

    /// `scheme://host[:port]` lower-cased without a default port, or nil when `text` is not an
    /// `http`/`https` origin (a path beyond `/`, user info, a query, a bad port, `null`).
    static func normalize(_ text: String) -> String? {
        let lowered = text.lowercased()
        let scheme: String
        if lowered.hasPrefix("http://") { scheme = "http" } else if lowered.hasPrefix("https://") { scheme = "https" } else { return nil }
        var authority = Substring(lowered.dropFirst(scheme.count + 3))
        if authority.hasSuffix("/") { authority = authority.dropLast() }
        guard !authority.isEmpty, authority.count <= 300,
              !authority.contains(where: { "/?#@ \\\t".contains($0) || $0.asciiValue.map { $0 < 0x21 || $0 > 0x7E } ?? true })
        else { return nil }
        var host = authority
        var port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                port = rest.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty else { return nil }
        var result = scheme + "://" + host
        if let port {
            guard !port.isEmpty, port.count <= 5, port.allSatisfy(\.isNumber), let number = Int(port), (1...65535).contains(number) else {
                return nil
            }
            let isDefault = (scheme == "http" && number == 80) || (scheme == "https" && number == 443)
            if !isDefault { result += ":\(number)" }
        }
        return result
    }
}
