import ChartCastProtocol
import ChartCastServer
import Foundation
import WebSockets
import XCTest

/// A ChartCast server on an ephemeral loopback port for one test.
final class TestServer {
    let server: ChartCastServer
    let port: Int

    init(tick: Double = 3600, window: Int = 60, webRoot: String? = nil, deflate: Bool = false) throws {
        let logger = Logger(level: .warn)
        server = ChartCastServer(options: ServerOptions(host: "127.0.0.1", port: 0, webRoot: webRoot, tick: tick,
                                                        window: window, deflate: deflate, logLevel: .warn), logger: logger)
        port = try server.start()
    }

    /// A connected viewer that has read its `welcome` and the five snapshots.
    func viewer(file: StaticString = #filePath, line: UInt = #line) throws -> TestViewer {
        try TestViewer(port: port)
    }

    deinit { server.shutdown() }
}

/// One WebSocket viewer speaking protocol v1 through the project's own lws client.
final class TestViewer {
    let client: BlockingWebSocketClient
    private(set) var welcome: JSONValue = .null
    private(set) var snapshots: [String: JSONValue] = [:]
    var id: String { welcome["viewer"]?.string ?? "" }

    init(port: Int, readInitialState: Bool = true) throws {
        client = try BlockingWebSocketClient.connect(port: port)
        guard readInitialState else { return }
        welcome = try next(type: "welcome")
        while snapshots.count < 5 {
            let snapshot = try next(type: "snapshot")
            snapshots[snapshot["chart"]?.string ?? ""] = snapshot
        }
    }

    func send(_ json: String) { client.send(text: json) }

    /// The next message of any type.
    func nextMessage(timeout: Double = 5) throws -> JSONValue {
        switch try client.receive(timeout: timeout) {
        case .text(let bytes): return try JSONReader.parse(bytes)
        case .binary: throw TestFailure("unexpected binary frame")
        }
    }

    /// The next message of `type` (and chart, when given), skipping others (appends, viewers…).
    func next(type: String, chart: String? = nil, timeout: Double = 5,
              where predicate: (JSONValue) -> Bool = { _ in true }) throws -> JSONValue {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw TestFailure("no \(type) message for \(chart ?? "any chart") within \(timeout)s") }
            let message = try nextMessage(timeout: remaining)
            guard message["type"]?.string == type else { continue }
            if let chart, message["chart"]?.string != chart { continue }
            if predicate(message) { return message }
        }
    }

    /// Sends a viewport of the standard test plot for `chart`.
    func sendViewport(_ chart: String, plot: TestPlot = .standard, rtl: Bool = false) {
        send(#"{"type":"viewport","chart":"\#(chart)","plot":{"x":\#(plot.x),"y":\#(plot.y),"width":\#(plot.width),"height":\#(plot.height)},"rtl":\#(rtl)}"#)
    }

    func pointer(_ chart: String, _ phase: String, x: Double, y: Double = 100, ref: String? = nil) {
        let refPart = ref.map { #","ref":"\#($0)""# } ?? ""
        send(#"{"type":"pointer","chart":"\#(chart)","phase":"\#(phase)","x":\#(x),"y":\#(y)\#(refPart)}"#)
    }

    /// The next `selection` for `chart`.
    func selection(_ chart: String, timeout: Double = 5, where predicate: (JSONValue) -> Bool = { _ in true }) throws -> JSONValue {
        try next(type: "selection", chart: chart, timeout: timeout, where: predicate)
    }

    /// The next `error`, skipping other traffic.
    func error(timeout: Double = 5) throws -> JSONValue { try next(type: "error", timeout: timeout) }
}

/// The plot frame the tests' viewers report.
struct TestPlot {
    var x = 50.0, y = 10.0, width = 700.0, height = 300.0
    static let standard = TestPlot()

    /// Pointer x over the centre of category `index` of `count`.
    func categoryX(_ index: Int, of count: Int) -> Double { x + (Double(index) + 0.5) / Double(count) * width }
    /// Pointer x at data x `value` for a numeric domain.
    func numericX(_ value: Double, domain: (Double, Double)) -> Double { x + (value - domain.0) / (domain.1 - domain.0) * width }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A minimal HTTP/1.1 GET over a raw socket, so paths reach the server byte for byte
/// (URL libraries normalise `..` away before sending).
func rawHTTPGet(port: Int, path: String, extraHeaders: [String] = [], timeout: Double = 5) throws -> (status: Int, headers: String, body: [UInt8]) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestFailure("socket() failed") }
    defer { close(fd) }
    var tv = timeval(tv_sec: Int(timeout), tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else { throw TestFailure("connect to port \(port) failed") }
    let connection = extraHeaders.contains { $0.lowercased().hasPrefix("connection:") } ? "" : "Connection: close\r\n"
    let extra = extraHeaders.map { $0 + "\r\n" }.joined()
    let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(connection)\(extra)\r\n".utf8)
    _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
    var response: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 { break }
        response.append(contentsOf: buffer[0..<n])
        if let split = headerEnd(response), let length = contentLength(response, split), response.count >= split + length { break }
        if response.starts(with: Array("HTTP/1.1 101".utf8)), headerEnd(response) != nil { break }
    }
    guard let split = headerEnd(response) else { throw TestFailure("no HTTP response for \(path)") }
    let head = String(decoding: response[0..<split], as: UTF8.self)
    let statusLine = head.split(separator: "\r\n").first ?? ""
    let status = statusLine.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    return (status, head, Array(response[(split)...]))
}

private func headerEnd(_ bytes: [UInt8]) -> Int? {
    guard bytes.count >= 4 else { return nil }
    for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
        return i + 4
    }
    return nil
}

private func contentLength(_ bytes: [UInt8], _ split: Int) -> Int? {
    let head = String(decoding: bytes[0..<split], as: UTF8.self).lowercased()
    guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }) else { return nil }
    return Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
}

