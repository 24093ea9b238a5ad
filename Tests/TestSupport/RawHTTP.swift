#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// One HTTP/1.1 response read off a raw socket.
public struct RawHTTPResponse {
    public var status: Int
    /// Header names lower-cased.
    public var headers: [String: String]
    public var body: [UInt8]
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// Why a loopback socket helper failed.
public struct LoopbackError: Error, CustomStringConvertible {
    public var description: String
}

/// A TCP socket connected to `127.0.0.1:port`, with receive and send timeouts. The caller closes it.
public func loopbackSocket(port: Int, timeout: Double = 5) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw LoopbackError(description: "socket() failed") }
    var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        close(fd)
        throw LoopbackError(description: "connect to 127.0.0.1:\(port) failed")
    }
    return fd
}

/// The bytes of one HTTP/1.1 request: the request line, `Host`, the given header lines and the
/// body as is. `Content-Length` is added for a non-empty body unless a `Content-Length` or
/// `Transfer-Encoding` line is given.
public func rawRequestBytes(method: String = "GET", path: String, headers: [String] = [], body: [UInt8] = []) -> [UInt8] {
    let lower = headers.map { $0.lowercased() }
    var lines = ["\(method) \(path) HTTP/1.1", "Host: 127.0.0.1"] + headers
    if !body.isEmpty && !lower.contains(where: { $0.hasPrefix("content-length:") || $0.hasPrefix("transfer-encoding:") }) {
        lines.append("Content-Length: \(body.count)")
    }
    return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + body
}

/// `parts` in chunked transfer coding (RFC 9112 §7.1), ended by the last chunk.
public func chunkedBody(_ parts: [[UInt8]], trailers: [String] = []) -> [UInt8] {
    var out: [UInt8] = []
    for part in parts where !part.isEmpty {
        out += Array(String(part.count, radix: 16).utf8) + [13, 10] + part + [13, 10]
    }
    out += Array("0\r\n".utf8)
    for trailer in trailers { out += Array((trailer + "\r\n").utf8) }
    out += [13, 10]
    return out
}

/// One raw HTTP/1.1 client connection for tests that need more than one exchange: several
/// requests on one socket (keep-alive), bodies sent in pieces, and responses read one at a time
/// (with or without a body), or the peer's close.
public final class RawHTTPConnection {
    public let fd: Int32
    private var buffer: [UInt8] = []
    private var peerClosed = false

    public init(port: Int, timeout: Double = 5) throws {
        fd = try loopbackSocket(port: port, timeout: timeout)
    }

    deinit { close(fd) }

    /// Writes `bytes` (all of them, unless the peer goes away or stops reading). Returns false
    /// once the peer closed or reset the connection, or the send timed out.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    /// Sends one request (see `rawRequestBytes`).
    @discardableResult
    public func send(method: String = "GET", path: String, headers: [String] = [], body: [UInt8] = []) -> Bool {
        return send(rawRequestBytes(method: method, path: path, headers: headers, body: body))
    }

    /// Reads one response: its head, then `Content-Length` bytes of body (none when
    /// `bodyless` — the answer to a HEAD — or for 1xx, 204 and 304), or everything up to the
    /// peer's close when there is no length.
    /// - Throws: `LoopbackError` when the connection closes or times out before a whole response.
    public func readResponse(bodyless: Bool = false) throws -> RawHTTPResponse {
        var parsed: (RawHTTPResponse, Int)?
        while true {
            if parsed == nil { parsed = RawHTTPConnection.parseHead(buffer) }
            if let (head, headLength) = parsed {
                let noBody = bodyless || head.status < 200 || head.status == 204 || head.status == 304
                if noBody {
                    buffer.removeFirst(headLength)
                    return head
                }
                if let length = head.headers["content-length"].flatMap(Int.init) {
                    if buffer.count - headLength >= length {
                        var response = head
                        response.body = Array(buffer[headLength..<(headLength + length)])
                        buffer.removeFirst(headLength + length)
                        return response
                    }
                } else if peerClosed {
                    var response = head
                    response.body = Array(buffer[headLength...])
                    buffer.removeAll()
                    return response
                }
            }
            if peerClosed {
                throw LoopbackError(description: "connection closed after \(buffer.count) bytes without a whole response")
            }
            guard fill() else {
                throw LoopbackError(description: "no whole response within the timeout (\(buffer.count) bytes)")
            }
        }
    }

    /// Whether the peer closes the connection (with nothing more to read) within `timeout` seconds.
    public func waitForClose(timeout: Double = 5) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while !peerClosed && Date() < deadline {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, 50) > 0 { _ = fill() }
        }
        return peerClosed && buffer.isEmpty
    }

    /// Bytes read but not yet part of a response.
    public var unreadBytes: Int { buffer.count }

    /// Reads once; false on timeout. A close or reset marks the peer closed.
    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = recv(fd, &chunk, chunk.count, 0)
        if n > 0 {
            buffer.append(contentsOf: chunk[0..<n])
            return true
        }
        if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            peerClosed = true
            return true
        }
        return false
    }

    /// The response head at the start of `data` and its length (through the blank line).
    static func parseHead(_ data: [UInt8]) -> (RawHTTPResponse, Int)? {
        guard data.count >= 4 else { return nil }
        let end: Int? = data.withUnsafeBufferPointer { bytes in
            for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
                return i
            }
            return nil
        }
        guard let end else { return nil }
        let lines = String(decoding: data[0..<end], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusLine = lines.first?.split(separator: " ") ?? []
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            headers[line[..<colon].lowercased()] = String(value)
        }
        return (RawHTTPResponse(status: status, headers: headers, body: []), end + 4)
    }
}

/// Sends one request over a plain loopback socket, the path byte for byte (URL libraries
/// normalise `..` and escapes away before sending, which traversal tests must avoid), and reads
/// the response: up to `Content-Length`, the peer's close, or the end of a head without a body
/// (a `101`, the answer to a HEAD, a 204 or 304).
/// - Parameters:
///   - extraHeaders: whole header lines; `Connection: close` is added unless one is given.
///   - body: sent after the head, with a `Content-Length` unless the headers give the framing.
public func rawHTTP(port: Int, method: String = "GET", path: String, extraHeaders: [String] = [], body: [UInt8] = [],
                    timeout: Double = 5) throws -> RawHTTPResponse {
    let connection = try RawHTTPConnection(port: port, timeout: timeout)
    let hasConnection = extraHeaders.contains { $0.lowercased().hasPrefix("connection:") }
    connection.send(method: method, path: path, headers: (hasConnection ? [] : ["Connection: close"]) + extraHeaders, body: body)
    do {
        return try connection.readResponse(bodyless: method == "HEAD")
    } catch {
        throw LoopbackError(description: "no HTTP response for \(method) \(path): \(error)")
    }
}
