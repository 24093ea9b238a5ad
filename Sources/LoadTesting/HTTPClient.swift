import WebSockets
#if canImport(Glibc)
import Glibc
#endif

/// A minimal blocking HTTP/1.1 client over one keep-alive TCP connection (TLS when asked), for
/// publishers: one request at a time, bodies by `Content-Length`, the answer read whole.
/// - Note: one thread at a time (each publisher owns its client).
final class HTTPClient {
    struct Answer {
        var status: Int
        var body: [UInt8]
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let host: String
    let port: Int
    /// `.off` for http://, otherwise https:// verified or not.
    let tls: WebSocketClientTLS
    private var fd: Int32 = -1
    private var stream: TLSStream?
    private var buffer: [UInt8] = []

    init(host: String, port: Int, tls: WebSocketClientTLS = .off) {
        self.host = host
        self.port = port
        self.tls = tls
    }

    deinit { disconnect() }

    /// Sends one request and reads its answer, connecting first when needed (once more after a
    /// connection the server closed).
    func request(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = []) throws -> Answer {
        for attempt in 0..<2 {
            if fd < 0 { try connect() }
            do {
                try send(method, path, headers, body)
                return try readAnswer()
            } catch {
                disconnect()
                if attempt == 1 { throw error }
            }
        }
        throw Failure(description: "unreachable")
    }

    private func connect() throws {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var info: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &info) == 0, let first = info else {
            throw Failure(description: "cannot resolve \(host)")
        }
        defer { freeaddrinfo(info) }
        let socket = Glibc.socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard socket >= 0 else { throw Failure(description: "socket: \(errno)") }
        guard Glibc.connect(socket, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            close(socket)
            throw Failure(description: "cannot connect to \(host):\(port) (errno \(errno))")
        }
        var one: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if tls != .off {
            do {
                stream = try TLSStream(fd: socket, host: host, mode: tls)
            } catch {
                close(socket)
                throw error
            }
        }
        fd = socket
        buffer.removeAll(keepingCapacity: true)
    }

    private func disconnect() {
        stream = nil
        if fd >= 0 { close(fd) }
        fd = -1
    }

    private func send(_ method: String, _ path: String, _ headers: [(String, String)], _ body: [UInt8]) throws {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        try write(Array(head.utf8))
        if !body.isEmpty { try write(body) }
    }

    private func write(_ bytes: [UInt8]) throws {
        if let stream { return try stream.write(bytes) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send failed (errno \(errno))") }
            offset += n
        }
    }

    /// Reads until the head is complete, then `Content-Length` bytes of body.
    private func readAnswer() throws -> Answer {
        var headEnd: Int?
        while headEnd == nil {
            headEnd = Self.find([13, 10, 13, 10], in: buffer).map { $0 + 4 }
            if headEnd == nil { try fill() }
        }
        let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        guard let statusLine = lines.first, statusLine.hasPrefix("HTTP/1."),
              let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") else {
            throw Failure(description: "bad answer: \(head.prefix(80))")
        }
        var length = 0, close = false
        for line in lines.dropFirst() {
            let lower = line.lowercased()
            if lower.hasPrefix("content-length:") { length = Int(lower.dropFirst(15).trimmingWhitespace()) ?? 0 }
            if lower.hasPrefix("connection:"), lower.contains("close") { close = true }
        }
        while buffer.count < headEnd! + length { try fill() }
        let body = Array(buffer[headEnd!..<(headEnd! + length)])
        buffer.removeFirst(headEnd! + length)
        if close { disconnect() }
        return Answer(status: status, body: body)
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = stream.map { $0.read(into: &chunk) } ?? chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { throw Failure(description: "connection closed by the server") }
        buffer.append(contentsOf: chunk[0..<n])
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
            if haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
        }
        return nil
    }
}

private extension Substring {
    func trimmingWhitespace() -> Substring {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return s
    }
}
