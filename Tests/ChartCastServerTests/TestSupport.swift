import ChartCastProtocol
import ChartCastServer
import Foundation
import TestSupport
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
        client = try BlockingWebSocketClient.connect(port: port, subprotocol: ChartCastServer.subprotocol)
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

