#if canImport(Glibc)
import Glibc
#endif

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

/// A TCP socket connected to `127.0.0.1:port`, with a receive timeout. The caller closes it.
public func loopbackSocket(port: Int, timeout: Double = 5) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw LoopbackError(description: "socket() failed") }
    var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
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

/// Sends one request over a plain loopback socket, the path byte for byte (URL libraries
/// normalise `..` and escapes away before sending, which traversal tests must avoid), and reads
/// the response: up to `Content-Length`, the peer's close, or the end of a `101` head.
/// - Parameter extraHeaders: whole header lines; `Connection: close` is added unless one is given.
public func rawHTTP(port: Int, method: String = "GET", path: String, extraHeaders: [String] = [],
                    timeout: Double = 5) throws -> RawHTTPResponse {
    let fd = try loopbackSocket(port: port, timeout: timeout)
    defer { close(fd) }
    let hasConnection = extraHeaders.contains { $0.lowercased().hasPrefix("connection:") }
    let head = (["\(method) \(path) HTTP/1.1", "Host: 127.0.0.1"] + (hasConnection ? [] : ["Connection: close"]) + extraHeaders)
        .joined(separator: "\r\n") + "\r\n\r\n"
    let request = Array(head.utf8)
    _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    var data: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let n = recv(fd, &buffer, buffer.count, 0)
        if n <= 0 { break }
        data.append(contentsOf: buffer[0..<n])
        guard let parsed = parseHTTP(data) else { continue }
        if parsed.status == 101 { break }
        if let length = parsed.headers["content-length"].flatMap(Int.init), parsed.body.count >= length { break }
    }
    guard let parsed = parseHTTP(data) else {
        throw LoopbackError(description: "no HTTP response for \(path) (\(data.count) bytes)")
    }
    return parsed
}

private func parseHTTP(_ data: [UInt8]) -> RawHTTPResponse? {
    guard data.count >= 4,
          let end = (0...(data.count - 4)).first(where: { data[$0] == 13 && data[$0 + 1] == 10 && data[$0 + 2] == 13 && data[$0 + 3] == 10 })
    else { return nil }
    let lines = String(decoding: data[0..<end], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
    let statusLine = lines.first?.split(separator: " ") ?? []
    guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
        headers[line[..<colon].lowercased()] = String(value)
    }
    return RawHTTPResponse(status: status, headers: headers, body: Array(data[(end + 4)...]))
}
