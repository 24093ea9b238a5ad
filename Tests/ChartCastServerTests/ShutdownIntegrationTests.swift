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

    /// A SIGTERM sent the moment the executable says it listens is handled, never lost (with a
    /// dispatch signal source and `SIG_IGN`, one in a few dozen was: the server ran on, and
    /// whoever waited for it to stop waited for ever).
    func testASIGTERMRightAfterTheListeningLineStopsTheExecutable() throws {
        for attempt in 0..<10 {
            let server = try LaunchedServer(["--port", "0", "--log-level", "info"])
            _ = try server.waitForPort()
            server.process.terminate()
            let deadline = Date().addingTimeInterval(5)
            while server.process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
            if server.process.isRunning {
                kill(server.process.processIdentifier, SIGKILL)
                server.process.waitUntilExit()
                return XCTFail("attempt \(attempt): the SIGTERM was lost; the server still ran 5 s later")
            }
            XCTAssertEqual(server.process.terminationReason, .exit, "attempt \(attempt)")
            XCTAssertEqual(server.process.terminationStatus, 0, "attempt \(attempt)")
        }
    }

    /// The real executable: SIGTERM → exit status 0 within a second; a taken port → non-zero and a clear message.
    func testExecutableExitsZeroOnSIGTERMAndExplainsATakenPort() throws {
        let first = try LaunchedServer(["--port", "0", "--log-level", "info"])
        let port = try first.waitForPort()
        let viewer = try TestViewer(port: port)
        let second = try LaunchedServer(["--port", "\(port)"])
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
}
