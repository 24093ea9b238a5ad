import Foundation
import TestSupport
import XCTest
@testable import LoadTesting

/// A short soak against the real `chartcast` executable (its RSS is the server's alone):
/// viewers stall, viewers and mid-drag drivers vanish, a driver freezes mid-drag past the drag
/// lease; nothing fails, everyone converges, memory holds after the warm-up.
final class SoakRunIntegrationTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var process: Process?

    override func setUp() { directory = TemporaryDirectory("soak") }

    override func tearDown() {
        if let process, process.isRunning { process.terminate(); process.waitUntilExit() }
        directory.remove()
    }

    /// Starts `chartcast` (built beside the test bundle) with `arguments`, its log in a file;
    /// returns its port.
    private func launch(_ arguments: [String]) throws -> Int {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("chartcast")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw LaunchFailure(description: "build the chartcast executable first (swift build --product chartcast): \(binary.path)")
        }
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        let log = directory.file("chartcast.log")
        FileManager.default.createFile(atPath: log, contents: nil)
        let process = Process()
        process.executableURL = binary
        process.arguments = ["--port", "0", "--data", "none", "--log-level", "info"] + arguments
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"listening on http://127\.0\.0\.1:\d+/"#, options: .regularExpression),
               let port = Int(text[range].dropFirst("listening on http://127.0.0.1:".count).dropLast()) {
                return port
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw LaunchFailure(description: "chartcast did not report its port: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }

    func testShortSoakWithStallsVanishingsAndAFrozenDragConverges() throws {
        let port = try launch(["--tick", "0.2", "--drag-lease", "1"])
        var options = SoakOptions()
        options.url = LoadURL(host: "127.0.0.1", port: port, path: "/ws")
        options.serverPID = process?.processIdentifier
        options.seconds = 16
        options.warmup = 6
        options.sampleEvery = 1
        options.viewers = 100
        options.drivers = 1          // one driver: its drags are never contended, so a freeze always holds the drag
        options.rate = 20
        options.stalled = 3
        options.stallSeconds = 2
        options.vanishEvery = 1
        options.freezeEvery = 4
        options.freezeSeconds = 2.5  // longer than the 1 s lease
        options.ramp = 1
        options.progress = false
        let report = try SoakRunner(options: options).run()
        XCTAssertTrue(report.succeeded, report.text)
        XCTAssertEqual(report.counters.failed, 0)
        XCTAssertEqual(report.counters.dropped, 0)
        XCTAssertEqual(report.counters.errorsReceived, 0)
        XCTAssertTrue(report.convergence.converged)
        XCTAssertEqual(report.convergence.compared, 101, "every viewer and the driver, replacements included")
        XCTAssertGreaterThanOrEqual(report.vanishedViewers, 3, report.text)
        XCTAssertGreaterThanOrEqual(report.vanishedDrivers, 1, report.text)
        XCTAssertGreaterThanOrEqual(report.stalls, 3, report.text)
        XCTAssertGreaterThanOrEqual(report.freezes, 1, report.text)
        XCTAssertGreaterThanOrEqual(report.memory?.samples ?? 0, 5, report.text)
        // Every freeze outlasted the lease while the driver held an uncontended drag.
        let metrics = try HTTPClient(host: "127.0.0.1", port: port).request("GET", "/metrics")
        let text = String(decoding: metrics.body, as: UTF8.self)
        let line = text.split(separator: "\n").first { $0.hasPrefix("chartcast_drag_leases_expired_total ") }
        let expired = line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1
        XCTAssertGreaterThanOrEqual(expired, report.freezes, text)
    }
}

private struct LaunchFailure: Error, CustomStringConvertible {
    var description: String
}
