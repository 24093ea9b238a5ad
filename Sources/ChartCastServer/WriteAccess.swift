/// Who may write: HTTP writes (`PUT`/`DELETE /api/charts/…`, `POST …/points`, `/api/v2/write`)
/// and WebSocket `publish`.
///
/// With a write token configured (`--write-token`), a request must present it as
/// `Authorization: Bearer <token>` or `Authorization: Token <token>` (InfluxDB clients' form);
/// without one, only loopback peers may write. Tokens are compared in constant time and never
/// logged.
struct WriteAccess: Sendable {
    /// The configured token's bytes; nil when none is configured.
    let token: [UInt8]?

    init(token: String?) {
        self.token = token.map { Array($0.utf8) }
    }

    /// Whether a request with this `Authorization` header from this peer may write.
    /// - Complexity: O(token length), independent of where the presented token differs.
    func permits(authorization: String?, peerIP: String) -> Bool {
        guard let token else { return WriteAccess.isLoopback(peerIP) }
        guard let presented = WriteAccess.presentedToken(authorization) else { return false }
        return WriteAccess.constantTimeEquals(presented, token)
    }

    /// The scope idempotency keys are kept under: the presented token, or the peer for
    /// loopback writes without one.
    func scope(authorization: String?, peerIP: String) -> String {
        WriteAccess.presentedToken(authorization).map { String(decoding: $0, as: UTF8.self) } ?? "peer:" + peerIP
    }

    /// The token of `Bearer <t>` or `Token <t>` (scheme case-insensitive), nil for anything else.
    static func presentedToken(_ header: String?) -> [UInt8]? {
        guard let header else { return nil }
        let bytes = Array(header.utf8)
        guard let space = bytes.firstIndex(of: UInt8(ascii: " ")) else { return nil }
        let scheme = String(decoding: bytes[..<space], as: UTF8.self).lowercased()
        guard scheme == "bearer" || scheme == "token" else { return nil }
        var start = space
        while start < bytes.count, bytes[start] == UInt8(ascii: " ") { start += 1 }
        var end = bytes.count
        while end > start, bytes[end - 1] == UInt8(ascii: " ") { end -= 1 }
        return start < end ? Array(bytes[start..<end]) : nil
    }

    /// Equality whose time depends only on the lengths, not on where the bytes differ.
    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        if a.count != b.count { difference |= 1 }
        for i in 0..<max(a.count, b.count) {
            let x = i < a.count ? a[i] : 0, y = i < b.count ? b[i] : 0
            difference |= x ^ y
        }
        return difference == 0
    }

    /// 127.0.0.0/8, `::1`, and IPv4-mapped loopback.
    static func isLoopback(_ ip: String) -> Bool {
        var address = ip
        if address.hasPrefix("::ffff:") { address = String(address.dropFirst(7)) }
        if address == "::1" || address == "localhost" { return true }
        let parts = address.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}
