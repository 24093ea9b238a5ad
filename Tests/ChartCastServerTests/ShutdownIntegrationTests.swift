import ChartCastServer
import Foundation
import WebSockets
import XCTest

/// Clean shutdown: close 1001 to every viewer, exit within a second even with a stalled viewer.
final class ShutdownIntegrationTests: XCTestCase {
    func testShutdownSendsGoingAwayAndDoesNotWaitForAStalledViewer() throws {
        let server = try TestServer(tick: 0.02)
        let active = try server.viewer()
        let stalled = try server.viewer()
        stalled.client.pauseReading()
        Thread.sleep(forTimeInterval: 0.3)
        let started = Date()
        server.server.shutdown()
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.0)
        let deadline = Date().addingTimeInterval(3)
        while active.client.closeCode == nil, Date() < deadline {
            do { _ = try active.client.receive(timeout: 0.2) } catch WebSocketError.closed { break } catch WebSocketError.timeout { continue }
        }
        XCTAssertEqual(active.client.closeCode, 1001)
    }

    func testStatisticsAnswerWhileRunningAndNilAtOnceBeforeStartAndAfterShutdown() throws {
        let idle = ChartCastServer(options: ServerOptions(host: "127.0.0.1", port: 0, webRoot: nil, logLevel: .warn))
        var asked = Date()
        XCTAssertNil(idle.statistics(), "not started")
        XCTAssertLessThan(Date().timeIntervalSince(asked), 0.5)
        let server = try TestServer()
        let viewer = try server.viewer()
        XCTAssertEqual(server.server.statistics()?.viewers, 1)
        server.server.shutdown()
        XCTAssertEqual(try viewer.client.waitUntilClosed(), 1001)
        asked = Date()
        XCTAssertNil(server.server.statistics(), "shut down")
        XCTAssertLessThan(Date().timeIntervalSince(asked), 0.5, "statistics() must not wait on a stopped loop")
    }

    /// The real executable: SIGTERM → exit status 0 within a second; a taken port → non-zero and a clear message.
    func testExecutableExitsZeroOnSIGTERMAndExplainsATakenPort() throws {
        // The test runner lives in the build directory beside the executables.
        let buildDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let binary = buildDirectory.appendingPathComponent("chartcast")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            return XCTFail("build the chartcast executable first (swift build --product chartcast): \(binary.path)")
        }
        let first = try launch(binary, ["--port", "0", "--log-level", "info"])
        let port = try waitForPort(first)
        let viewer = try TestViewer(port: port)
        let second = try launch(binary, ["--port", "\(port)"])
        second.process.waitUntilExit()
        XCTAssertNotEqual(second.process.terminationStatus, 0)
        let complaint = String(decoding: second.stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(complaint.contains("\(port)") && complaint.lowercased().contains("in use"), complaint)

        let started = Date()
        first.process.terminate()
        first.process.waitUntilExit()
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.5)
        XCTAssertEqual(first.process.terminationReason, .exit)
        XCTAssertEqual(first.process.terminationStatus, 0)
        let deadline = Date().addingTimeInterval(3)
        while viewer.client.closeCode == nil, Date() < deadline {
            do { _ = try viewer.client.receive(timeout: 0.2) } catch WebSocketError.closed { break } catch WebSocketError.timeout { continue }
        }
        XCTAssertEqual(viewer.client.closeCode, 1001)
    }

    private struct Launched { let process: Process; let stderr: Pipe }

    private func launch(_ binary: URL, _ arguments: [String]) throws -> Launched {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = [:]
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return Launched(process: process, stderr: stderr)
    }

    /// Reads the "listening on http://127.0.0.1:PORT/" log line.
    private func waitForPort(_ launched: Launched) throws -> Int {
        var text = ""
        let handle = launched.stderr.fileHandleForReading
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
}
