import Foundation
import TestSupport
import XCTest
@testable import LoadTesting

/// Mirror mode against Debian's `libwebsockets-test-server` (skipped where it is not installed).
final class MirrorModeTests: XCTestCase {
    static let testServer = "/usr/bin/libwebsockets-test-server"

    func testMirrorRunTimesEveryMessageAndConverges() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: Self.testServer), "libwebsockets-test-server not installed")
        let port = try freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.testServer)
        process.arguments = ["--port=\(port)", "-d", "0"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { process.terminate(); process.waitUntilExit() }
        // Wait until it listens.
        var found: ServerProcess?
        for _ in 0..<50 where found == nil {
            found = ServerProcess.listening(onPort: port)
            if found == nil { usleep(50_000) }
        }
        XCTAssertEqual(found?.pid, process.processIdentifier, "the server is found by its port")

        let options = LoadOptions(url: LoadURL(host: "127.0.0.1", port: port, path: "/"), target: .mirror, viewers: 30,
                                  drivers: 2, rate: 20, duration: 1, ramp: 0.2, messageSize: 300, progress: false)
        let report = try LoadRunner(options: options).run()
        XCTAssertTrue(report.succeeded, "\(report.failures)")
        XCTAssertEqual(report.counters.connected, 32)
        XCTAssertEqual(report.meanSelectionBytes, 300, accuracy: 0.5, "mirrored messages keep the requested size")
        // Every message from either driver reaches all 30 viewers and is timed once by each.
        XCTAssertEqual(report.fanout.count, UInt64(report.counters.pointersSent * 30))
        XCTAssertEqual(report.convergence.charts.map(\.id).sorted(), ["m0", "m1"])
        XCTAssertEqual(report.server?.pid, process.processIdentifier)
        XCTAssertGreaterThan(report.server?.idleRSS ?? 0, 0)
    }
}
