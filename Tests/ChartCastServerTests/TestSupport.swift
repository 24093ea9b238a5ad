import ChartCastProtocol
import ChartEngine
import ChartCastServer
import Foundation
import TestSupport
import WebSockets
import XCTest

/// A ChartCast server on an ephemeral loopback port for one test.
final class TestServer {
    let server: ChartCastServer
    let port: Int

    /// A server for `dashboard` (the demo when nil) keeping history in `dataDirectory` (none
    /// when nil; tests pass a temporary directory).
    init(tick: Double = 3600, window: Int = 60, webRoot: String? = nil, deflate: Bool = false,
         writeToken: String? = nil, autoCreate: Bool = true, dataDirectory: String? = nil,
         historySweepInterval: Double = 60, dashboard: Dashboard? = nil,
         configure: (inout ServerOptions) -> Void = { _ in }) throws {
        let logger = Logger(level: .warn)
        var options = ServerOptions(host: "127.0.0.1", port: 0, webRoot: webRoot, tick: tick, window: window, deflate: deflate,
                                    logLevel: .warn, writeToken: writeToken, autoCreate: autoCreate, dataDirectory: dataDirectory)
        options.historySweepInterval = historySweepInterval
        configure(&options)
        server = ChartCastServer(options: options, logger: logger, dashboard: dashboard)
        port = try server.start()
    }

    /// A connected viewer that has read its `welcome` and a snapshot of every chart.
    func viewer(headers: [HTTPHeaderField] = [], file: StaticString = #filePath, line: UInt = #line) throws -> TestViewer {
        try TestViewer(port: port, headers: headers)
    }

    /// One request to the API over a raw loopback socket (`Connection: close`).
    func request(_ method: String, _ path: String, headers: [String] = [], body: [UInt8] = []) throws -> RawHTTPResponse {
        try rawHTTP(port: port, method: method, path: path, extraHeaders: headers, body: body)
    }

    deinit { server.shutdown() }
}

/// One WebSocket viewer speaking protocol v1 through the project's own lws client; every
/// message is built and read with the `ChartCastProtocol` types.
final class TestViewer {
    let client: BlockingWebSocketClient
    private(set) var welcome: ServerMessage.Welcome?
    private(set) var snapshots: [String: ServerMessage.Snapshot] = [:]
    var id: String { welcome?.viewer.id ?? "" }

    init(port: Int, readInitialState: Bool = true, headers: [HTTPHeaderField] = []) throws {
        client = try BlockingWebSocketClient.connect(port: port, subprotocol: ChartCastServer.subprotocol, headers: headers)
        guard readInitialState else { return }
        welcome = try next { if case .welcome(let w) = $0 { return w }; return nil }
        while snapshots.count < (welcome?.charts.count ?? 0) {
            let snapshot = try next { if case .snapshot(let s) = $0 { return s }; return nil }
            snapshots[snapshot.chart] = snapshot
        }
    }

    func send(_ message: ClientMessage) { client.send(bytes: message.encode(), binary: false) }

    /// Sends text as is: only for tests that pin how the server treats malformed input.
    func sendRaw(_ text: String) { client.send(text: text) }

    /// The next message of any type.
    func nextMessage(timeout: Double = 5) throws -> ServerMessage {
        switch try client.receive(timeout: timeout) {
        case .text(let bytes): return try ServerMessage.decode(bytes)
        case .binary: throw TestFailure("unexpected binary frame")
        }
    }

    /// The first message `extract` accepts (skipping others: appends, viewers…).
    func next<T>(timeout: Double = 5, _ what: String = "\(T.self)", _ extract: (ServerMessage) -> T?) throws -> T {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw TestFailure("no \(what) within \(timeout)s") }
            if let value = extract(try nextMessage(timeout: remaining)) { return value }
        }
    }

    /// The next `selection` for `chart` that satisfies `predicate`.
    func selection(_ chart: String, timeout: Double = 5,
                   where predicate: (ServerMessage.SelectionUpdate) -> Bool = { _ in true }) throws -> ServerMessage.SelectionUpdate {
        try next(timeout: timeout, "selection for \(chart)") { message in
            guard case .selection(let update) = message, update.chart == chart, predicate(update) else { return nil }
            return update
        }
    }

    /// The next `append` that satisfies `predicate`.
    func append(timeout: Double = 5, where predicate: (ServerMessage.Append) -> Bool = { _ in true }) throws -> ServerMessage.Append {
        try next(timeout: timeout, "append") { message in
            guard case .append(let append) = message, predicate(append) else { return nil }
            return append
        }
    }

    /// The next `viewers` list that satisfies `predicate`.
    func viewers(timeout: Double = 5, where predicate: (ServerMessage.ViewerList) -> Bool = { _ in true }) throws -> ServerMessage.ViewerList {
        try next(timeout: timeout, "viewers") { message in
            guard case .viewers(let list) = message, predicate(list) else { return nil }
            return list
        }
    }

    /// The next `error`, skipping other traffic.
    func error(timeout: Double = 5) throws -> ProtocolError {
        try next(timeout: timeout, "error") { if case .error(let e) = $0 { return e }; return nil }
    }

    /// Sends a viewport of the standard test plot for `chart`.
    func sendViewport(_ chart: String, plot: TestPlot = .standard, rtl: Bool = false) {
        send(.viewport(.init(chart: chart, viewport: Viewport(x: plot.x, y: plot.y, width: plot.width, height: plot.height, rtl: rtl))))
    }

    func pointer(_ chart: String, _ phase: PointerPhase, x: Double, y: Double = 100, ref: String? = nil) {
        send(.pointer(.init(chart: chart, phase: phase, x: x, y: y, ref: ref)))
    }

    func key(_ chart: String, _ command: KeyCommand, shift: Bool = false, ref: String? = nil) {
        send(.key(.init(chart: chart, command: command, shift: shift, ref: ref)))
    }

    func hello(_ name: String, ref: String? = nil) { send(.hello(.init(name: name, ref: ref))) }

    /// The numeric x domain of `chart`'s initial snapshot.
    func numericDomain(_ chart: String) throws -> (Double, Double) {
        guard case .numeric(let d0, let d1)? = snapshots[chart]?.x.domain else { throw TestFailure("\(chart) has no numeric domain") }
        return (d0, d1)
    }
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


/// The real `chartcast` executable, started for one test (it lives beside the test runner in
/// the build directory). It keeps no history (`--data none`) unless the arguments or the
/// environment name a data directory: a test never writes into the working tree.
struct LaunchedServer {
    let process: Process
    let stderr: Pipe

    static var binary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("chartcast")
    }

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        guard FileManager.default.isExecutableFile(atPath: LaunchedServer.binary.path) else {
            throw TestFailure("build the chartcast executable first (swift build --product chartcast): \(LaunchedServer.binary.path)")
        }
        process = Process()
        process.executableURL = LaunchedServer.binary
        let namesData = arguments.contains { $0 == "--data" || $0.hasPrefix("--data=") } || environment["CHARTCAST_DATA"] != nil
        process.arguments = namesData ? arguments : arguments + ["--data", "none"]
        process.environment = environment
        stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
    }

    /// Reads the "listening on http://127.0.0.1:PORT/" log line.
    func waitForPort() throws -> Int {
        var text = ""
        let handle = stderr.fileHandleForReading
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let data = handle.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
            if let range = text.range(of: #"listening on http://127\.0\.0\.1:(\d+)/"#, options: .regularExpression) {
                let match = text[range]
                let digits = match.split(separator: ":").last?.dropLast() ?? ""
                if let port = Int(digits) { return port }
            }
        }
        throw TestFailure("chartcast did not report its port: \(text)")
    }

    /// Waits for the process to end and returns its exit status and everything it wrote to stderr.
    func finish() -> (status: Int32, stderr: String) {
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }

    /// SIGTERM, then wait.
    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
