import ChartCastProtocol
import ChartCastServer
import Foundation

/// `chartcast`: parse options, start the server, stop cleanly on SIGINT/SIGTERM.
StopSignals.block()   // before any thread exists: a stop signal waits for `StopSignals.wait()`
let environment = ProcessInfo.processInfo.environment
let request: CommandLineRequest
do {
    request = try ServerOptions.parse(arguments: Array(CommandLine.arguments.dropFirst()), environment: environment)
} catch {
    FileHandle.standardError.write("chartcast: \(error)\n".data(using: .utf8)!)
    exit(2)
}
guard case .run(var options) = request else {
    print(ServerOptions.usage)
    exit(0)
}
if options.webRoot == nil {
    options.webRoot = ServerOptions.defaultWebRoot(executablePath: CommandLine.arguments[0],
                                                   workingDirectory: FileManager.default.currentDirectoryPath)
}

var dashboard: Dashboard? = nil
if let path = options.dashboard {
    do {
        dashboard = try ChartCastServer.loadDashboard(at: path)
    } catch {
        FileHandle.standardError.write("chartcast: \(error)\n".data(using: .utf8)!)
        exit(2)
    }
}

let logger = Logger(level: options.logLevel)
logger.captureLibWebsocketsLogs()
if options.webRoot == nil {
    logger.warn("no web/ directory found beside the executable or in the working directory; serving no page (use --web-root)")
}
let server = ChartCastServer(options: options, logger: logger, dashboard: dashboard)
let port: Int
do {
    port = try server.start()
} catch {
    logger.error("\(error)")
    FileHandle.standardError.write("chartcast: \(error)\n".data(using: .utf8)!)
    exit(1)
}
let shownHost = options.host.contains(":") ? "[\(options.host)]" : options.host
let served = dashboard.map { "dashboard \(options.dashboard ?? "") (\($0.charts.count) charts)" } ?? "the demo dashboard (tick \(options.tick)s, window \(options.window))"
var writers = options.writeToken == nil ? "writes from loopback only" : "writes need the write token"
if options.viewerToken != nil { writers += "; viewers need the viewer token" }
let scheme = options.tlsCertificate == nil ? "http" : "https"
logger.info("ChartCast listening on \(scheme)://\(shownHost):\(port)/ (WebSocket /ws\(options.tlsCertificate == nil ? "" : " over TLS"), API /api, page \(options.webRoot ?? "none")); serving \(served); \(writers)")
logger.info(server.transportSummary)

let signalNumber = StopSignals.wait()
logger.info("shutting down (signal \(signalNumber))")
server.shutdown()
logger.info("stopped")
exit(0)
