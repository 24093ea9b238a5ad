import Foundation
import TestSupport
import XCTest
@testable import WebSockets

final class WebSocketLifecycleTests: XCTestCase {
    func testPortInUseThrowsAClearMessage() throws {
        let (first, _, port) = try startServer()
        defer { first.shutdown() }
        var configuration = WebSocketServerConfiguration(subprotocol: testSubprotocol)
        configuration.port = port
        let second = WebSocketServer(configuration: configuration, delegate: RecordingServerDelegate())
        XCTAssertThrowsError(try second.start()) { error in
            XCTAssertEqual(error as? WebSocketError,
                           .listenFailed("cannot listen on 127.0.0.1:\(port): address already in use"))
        }
        second.shutdown()
    }

    func testBadHostThrows() throws {
        var configuration = WebSocketServerConfiguration(subprotocol: testSubprotocol)
        configuration.host = "no such host"
        configuration.port = 0
        let server = WebSocketServer(configuration: configuration, delegate: RecordingServerDelegate())
        XCTAssertThrowsError(try server.start()) { error in
            XCTAssertTrue("\(error)".hasPrefix("cannot listen on no such host:0"), "\(error)")
        }
        configuration.host = "192.0.2.1"   // TEST-NET-1: not an address of this machine
        let unassigned = WebSocketServer(configuration: configuration, delegate: RecordingServerDelegate())
        XCTAssertThrowsError(try unassigned.start()) { error in
            XCTAssertEqual("\(error)", "cannot listen on 192.0.2.1:0: cannot assign requested address")
        }
    }

    func testEphemeralPortIsReported() throws {
        let (server, _, port) = try startServer()
        defer { server.shutdown() }
        XCTAssertGreaterThan(port, 0)
        XCTAssertEqual(server.port, port)
    }

    func testShutdownSends1001AndReturnsPromptlyDespiteAStalledPeer() throws {
        let (server, delegate, port) = try startServer()
        let polite = try BlockingWebSocketClient.connect(port: port)
        let stalled = try BlockingWebSocketClient.connect(port: port)
        stalled.pauseReading()
        XCTAssertTrue(eventually { delegate.opened.count == 2 })
        // Fill the stalled peer's socket so even the close frame cannot go out.
        XCTAssertTrue(floodUntilChoked(server, delegate, connection: delegate.opened[1].id, byte: 7, frames: 200))
        let started = Date()
        server.shutdown(closeCode: 1001, grace: 0.5)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertLessThan(elapsed, 1.0, "shutdown took \(elapsed) s")
        XCTAssertGreaterThanOrEqual(elapsed, 0.45, "the stalled peer should have used the grace period")
        XCTAssertEqual(try polite.waitUntilClosed(timeout: 2), 1001)
        XCTAssertTrue(eventually { delegate.closed.count == 2 })
        // Idempotent.
        server.shutdown()
    }

    func testShutdownWithOnlyResponsivePeersDoesNotWaitForTheGrace() throws {
        let (server, _, port) = try startServer()
        let client = try BlockingWebSocketClient.connect(port: port)
        let started = Date()
        server.shutdown(closeCode: 1001, grace: 2)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.0)
        XCTAssertEqual(try client.waitUntilClosed(timeout: 2), 1001)
    }

    func testTimersFireOnTheServiceThread() throws {
        let (server, _, _) = try startServer()
        defer { server.shutdown() }
        let lock = NSLock()
        var ticks = 0
        var oneShots = 0
        var cancelledTicks = 0
        var offThread = 0
        server.perform {
            var repeating: WebSocketTimer?
            repeating = server.schedule(every: 0.01) {
                lock.lock(); ticks += 1; let count = ticks; lock.unlock()
                if !server.isServiceThread { lock.lock(); offThread += 1; lock.unlock() }
                if count == 3 { repeating?.cancel() }
            }
            server.schedule(after: 0.03) {
                if !server.isServiceThread { lock.lock(); offThread += 1; lock.unlock() }
                lock.lock(); oneShots += 1; lock.unlock()
            }
            let cancelled = server.schedule(after: 0.02) {
                lock.lock(); cancelledTicks += 1; lock.unlock()
            }
            cancelled.cancel()
        }
        XCTAssertTrue(eventually { lock.lock(); defer { lock.unlock() }; return ticks >= 3 && oneShots == 1 })
        usleep(100_000)
        lock.lock()
        XCTAssertEqual(ticks, 3, "a cancelled repeating timer stops")
        XCTAssertEqual(oneShots, 1, "a one-shot fires once")
        XCTAssertEqual(cancelledTicks, 0, "a cancelled one-shot never fires")
        XCTAssertEqual(offThread, 0)
        lock.unlock()
    }

    func testPerformRunsOnTheServiceThreadInOrder() throws {
        let (server, _, _) = try startServer()
        defer { server.shutdown() }
        let lock = NSLock()
        var order: [Int] = []
        var onService = true
        DispatchQueue.concurrentPerform(iterations: 1) { _ in
            for index in 0..<100 {
                server.perform {
                    lock.lock(); order.append(index); onService = onService && server.isServiceThread; lock.unlock()
                }
            }
        }
        XCTAssertTrue(eventually { lock.lock(); defer { lock.unlock() }; return order.count == 100 })
        lock.lock()
        XCTAssertEqual(order, Array(0..<100))
        XCTAssertTrue(onService)
        lock.unlock()
    }

    func testClientReportsConnectionFailure() throws {
        let port = try freePort()
        XCTAssertThrowsError(try BlockingWebSocketClient.connect(port: port, timeout: 3)) { error in
            guard case .connectFailed = error as? WebSocketError else {
                return XCTFail("expected connectFailed, got \(error)")
            }
        }
    }

    func testLogSinkReceivesModuleAndLibraryLines() throws {
        let lock = NSLock()
        var lines: [(WebSocketLogLevel, String)] = []
        WebSocketLog.configure(level: .info) { level, message in
            lock.lock(); lines.append((level, message)); lock.unlock()
        }
        defer { WebSocketLog.configure(level: .warn, sink: WebSocketLog.standardError) }
        let (server, _, port) = try startServer()
        server.shutdown()
        lock.lock()
        defer { lock.unlock() }
        XCTAssertTrue(lines.contains { $0.0 == .info && $0.1 == "listening on 127.0.0.1:\(port)" }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.1.hasPrefix("lws: ") }, "libwebsockets' own lines reach the sink")
        XCTAssertFalse(lines.contains { $0.0 == .debug }, "nothing below the configured level")
    }

    func testTheLogSaysTheFileDescriptorLimitWhichIsTheHardLimit() throws {
        let lock = NSLock()
        var lines: [String] = []
        WebSocketLog.configure(level: .info) { _, message in
            lock.lock(); lines.append(message); lock.unlock()
        }
        defer { WebSocketLog.configure(level: .warn, sink: WebSocketLog.standardError) }
        let (server, _, _) = try startServer()
        server.shutdown()
        var limit = rlimit()
        XCTAssertEqual(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit), 0)
        XCTAssertEqual(limit.rlim_cur, limit.rlim_max, "the soft limit was raised to the hard limit")
        lock.lock()
        defer { lock.unlock() }
        let expected = "\(min(limit.rlim_max, 1 << 20)) (the hard limit)"
        XCTAssertTrue(lines.contains { $0.hasPrefix("event loop: ") && $0.contains("; file descriptors: ") && $0.hasSuffix(expected) }, "\(lines)")
    }

    func testTheFileLimitLineSaysWhetherItWasRaised() {
        XCTAssertEqual(ListenSupport.fileLimitLine(20_000, raisedFrom: 1024),
                       "file descriptors: soft limit raised from 1024 to 20000 (the hard limit)")
        XCTAssertEqual(ListenSupport.fileLimitLine(20_000, raisedFrom: nil), "file descriptors: limit 20000 (the hard limit)")
    }
}
