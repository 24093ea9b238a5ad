import Foundation
import TestSupport
@testable import LoadTesting

/// The real `chartcast` executable (built beside the test bundle) for one test, with its log in
/// a temporary file (never a pipe nobody reads), no history, and `stop()` at the end. Its RSS
/// is the server's alone.
final class LaunchedChartcast {
    let process = Process()
    let port: Int
    let directory = TemporaryDirectory("launched")
    var log: String { directory.file("chartcast.log") }
    var observed: ServerProcess { ServerProcess(pid: process.processIdentifier) }

    init(_ arguments: [String]) throws {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("chartcast")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw LaunchFailure(description: "build the chartcast executable first (swift build --product chartcast): \(binary.path)")
        }
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        let log = directory.file("chartcast.log")
        FileManager.default.createFile(atPath: log, contents: nil)
        process.executableURL = binary
        process.arguments = ["--port", "0", "--data", "none", "--log-level", "info"] + arguments
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        var found: Int?
        while Date() < deadline, found == nil {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"listening on http://127\.0\.0\.1:\d+/"#, options: .regularExpression) {
                found = Int(text[range].dropFirst("listening on http://127.0.0.1:".count).dropLast())
            } else {
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        guard let found else {
            process.terminate()
            throw LaunchFailure(description: "chartcast did not report its port: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        }
        port = found
    }

    /// The value of an unlabelled `/metrics` line, nil when absent.
    func metric(_ name: String) throws -> Int? {
        let answer = try HTTPClient(host: "127.0.0.1", port: port).request("GET", "/metrics")
        let line = String(decoding: answer.body, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") }
    }

    /// SIGTERM, wait, and remove the log.
    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        directory.remove()
    }
}

struct LaunchFailure: Error, CustomStringConvertible {
    var description: String
}
