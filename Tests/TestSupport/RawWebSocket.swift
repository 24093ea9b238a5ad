#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A WebSocket client written byte by byte over a raw loopback socket, for tests that must send
/// what no real client library would: unmasked frames, reserved bits, unknown opcodes, invalid
/// UTF-8, bad close codes, absurd lengths — or nothing at all, not even a pong.
public final class RawWebSocket {
    /// One frame read from the server.
    public struct Frame: Equatable {
        public var fin: Bool
        public var opcode: UInt8
        public var payload: [UInt8]
        /// The close code of a close frame, nil for others or a close without one.
        public var closeCode: UInt16? {
            guard opcode == 0x8, payload.count >= 2 else { return nil }
            return UInt16(payload[0]) << 8 | UInt16(payload[1])
        }
    }

    public let connection: RawHTTPConnection
    private var buffer: [UInt8] = []

    /// Connects and completes the handshake on `path` offering `subprotocol`.
    /// - Throws: `LoopbackError` when the server does not answer `101`.
    public init(port: Int, path: String = "/ws", subprotocol: String?, extraHeaders: [String] = [], timeout: Double = 5) throws {
        connection = try RawHTTPConnection(port: port, timeout: timeout)
        var headers = ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Version: 13",
                       "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="] + extraHeaders
        if let subprotocol { headers.append("Sec-WebSocket-Protocol: \(subprotocol)") }
        connection.send(method: "GET", path: path, headers: headers)
        let response = try connection.readResponse()
        guard response.status == 101 else {
            throw LoopbackError(description: "handshake answered \(response.status), not 101")
        }
    }

    /// A frame's bytes: `first` is the whole first byte (FIN, RSV bits, opcode); the payload is
    /// masked with a fixed key unless `masked` is false; `declaredLength` overrides the length
    /// field (the payload sent stays `payload`).
    public static func frame(first: UInt8, payload: [UInt8], masked: Bool = true, declaredLength: UInt64? = nil) -> [UInt8] {
        var out = [first]
        let length = declaredLength ?? UInt64(payload.count)
        let maskBit: UInt8 = masked ? 0x80 : 0
        if length < 126 {
            out.append(maskBit | UInt8(length))
        } else if length <= 0xFFFF {
            out.append(maskBit | 126)
            out += [UInt8(length >> 8), UInt8(length & 0xFF)]
        } else {
            out.append(maskBit | 127)
            out += (0..<8).reversed().map { UInt8(truncatingIfNeeded: length >> (8 * UInt64($0))) }
        }
        guard masked else { return out + payload }
        let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        out += key
        out += payload.enumerated().map { $0.element ^ key[$0.offset & 3] }
        return out
    }

    /// Sends raw bytes; false once the server closed the connection.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool { connection.send(bytes) }

    /// Sends one masked frame.
    @discardableResult
    public func send(first: UInt8, payload: [UInt8], masked: Bool = true) -> Bool {
        send(RawWebSocket.frame(first: first, payload: payload, masked: masked))
    }

    /// The next frame from the server, nil when the connection closed (or timed out) first.
    public func readFrame() -> Frame? {
        while true {
            if let (frame, used) = RawWebSocket.parse(buffer) {
                buffer.removeFirst(used)
                return frame
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = recv(connection.fd, &chunk, chunk.count, 0)
            if n <= 0 { return nil }
            buffer += chunk[0..<n]
        }
    }

    /// The next frame from the server within `timeout` seconds; nil when none came by then or
    /// the connection closed.
    public func readFrame(timeout: Double) -> Frame? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            if let (frame, used) = RawWebSocket.parse(buffer) {
                buffer.removeFirst(used)
                return frame
            }
            guard deadline.timeIntervalSinceNow > 0, receive(waitingAtMost: deadline.timeIntervalSinceNow) else { return nil }
        }
    }

    /// Waits at most `seconds` (and at most 50 ms) for bytes and appends what arrived to the
    /// buffer; false once the server ended the connection.
    private func receive(waitingAtMost seconds: Double) -> Bool {
        var pfd = pollfd(fd: connection.fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, Int32(min(seconds, 0.05) * 1000) + 1) > 0 else { return true }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = recv(connection.fd, &chunk, chunk.count, Int32(MSG_DONTWAIT))
        if n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) { return false }
        if n > 0 { buffer += chunk[0..<n] }
        return true
    }

    /// Reads frames until a close frame (its code, or 1005 for none) or the end of the
    /// connection (nil); pings and data frames on the way are skipped.
    public func readCloseCode() -> UInt16? {
        while let frame = readFrame() {
            if frame.opcode == 0x8 { return frame.closeCode ?? 1005 }
        }
        return nil
    }

    /// Whether the server ends the TCP connection within `timeout` seconds (frames on the way
    /// are read and dropped).
    public func waitForEnd(timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if !receive(waitingAtMost: 0.05) { return true }
        }
        return false
    }

    /// Frames read but not yet returned (e.g. pings seen by `waitForEnd`).
    public func bufferedFrames() -> [Frame] {
        var frames: [Frame] = []
        while let (frame, used) = RawWebSocket.parse(buffer) {
            buffer.removeFirst(used)
            frames.append(frame)
        }
        return frames
    }

    /// One unmasked server frame at the start of `data` and its length.
    static func parse(_ data: [UInt8]) -> (Frame, Int)? {
        guard data.count >= 2 else { return nil }
        var length = UInt64(data[1] & 0x7F)
        var offset = 2
        if length == 126 {
            guard data.count >= 4 else { return nil }
            length = UInt64(data[2]) << 8 | UInt64(data[3])
            offset = 4
        } else if length == 127 {
            guard data.count >= 10 else { return nil }
            length = data[2..<10].reduce(0) { $0 << 8 | UInt64($1) }
            offset = 10
        }
        guard UInt64(data.count - offset) >= length else { return nil }
        let end = offset + Int(length)
        return (Frame(fin: data[0] & 0x80 != 0, opcode: data[0] & 0x0F, payload: Array(data[offset..<end])), end)
    }
}
