import COpenSSL
import Foundation

/// The opening handshake of the raw WebSocket client (RFC 6455 § 4.1): the request it sends
/// and the check of the server's answer, `101` with the right `Sec-WebSocket-Accept`.
struct RawWebSocketHandshake {
    /// The longest answer head accepted.
    static let maxHeadBytes = 16 << 10
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// The `Sec-WebSocket-Key`: 16 random bytes, base64.
    let key: String

    init() {
        var random = SystemRandomNumberGenerator()
        key = Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }).base64EncodedString()
    }

    init(key: String) { self.key = key }

    /// The GET request upgrading `path` on `host:port`.
    func request(host: String, port: Int, path: String, subprotocol: String?, origin: String?) -> [UInt8] {
        let hostField = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var lines = ["GET \(path) HTTP/1.1", "Host: \(hostField)", "Upgrade: websocket", "Connection: Upgrade",
                     "Sec-WebSocket-Key: \(key)", "Sec-WebSocket-Version: 13"]
        if let subprotocol { lines.append("Sec-WebSocket-Protocol: \(subprotocol)") }
        if let origin { lines.append("Origin: \(origin)") }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// `base64(SHA-1(key + GUID))`, what the server must answer.
    static func accept(for key: String) -> String {
        let input = Array((key + guid).utf8)
        var digest = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
        _ = SHA1(input, input.count, &digest)
        return Data(digest).base64EncodedString()
    }

    enum Outcome: Equatable {
        /// The head is not complete yet.
        case needMore
        /// Upgraded: the head took `headLength` bytes; what follows is frames.
        case accepted(headLength: Int)
        case refused(String)
    }

    /// Checks the server's answer in `bytes` (everything received so far).
    /// - Complexity: O(head bytes).
    func check(_ bytes: UnsafeRawBufferPointer, subprotocol: String?) -> Outcome {
        guard let end = Self.headEnd(bytes) else {
            return bytes.count > Self.maxHeadBytes ? .refused("an answer head over \(Self.maxHeadBytes) bytes") : .needMore
        }
        let head = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<end]), as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let status = lines[0].split(separator: " ", maxSplits: 2)
        guard status.count >= 2, status[0].hasPrefix("HTTP/1.") else { return .refused("not an HTTP answer: \(lines[0].prefix(80))") }
        guard status[1] == "101" else { return .refused("the server answered \(lines[0].dropFirst(status[0].count + 1).prefix(80))") }
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        guard fields["upgrade"]?.lowercased() == "websocket" else { return .refused("no Upgrade: websocket in the answer") }
        guard fields["sec-websocket-accept"] == Self.accept(for: key) else { return .refused("wrong Sec-WebSocket-Accept") }
        if let subprotocol, fields["sec-websocket-protocol"] != subprotocol {
            return .refused("the server did not accept the subprotocol \(subprotocol)")
        }
        if let extensions = fields["sec-websocket-extensions"], !extensions.isEmpty {
            return .refused("the server negotiated extensions that were not offered: \(extensions.prefix(80))")
        }
        return .accepted(headLength: end + 4)
    }

    /// The offset of the `\r\n\r\n` that ends the head, if it arrived.
    private static func headEnd(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i
        }
        return nil
    }
}
