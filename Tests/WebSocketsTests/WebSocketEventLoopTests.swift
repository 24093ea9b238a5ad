import Foundation
import TestSupport
import XCTest
@testable import WebSockets

/// The server works the same on each event loop: libwebsockets' poll loop and the libev (epoll)
/// loop it runs on through its plugin — connections, messages both ways, work handed over from
/// other threads, timers, a slow reader's backpressure, and shutdown.
final class WebSocketEventLoopTests: XCTestCase {
    private func eachLoop(_ body: (WebSocketEventLoop, WebSocketServer, RecordingServerDelegate, Int) throws -> Void) throws {
        for kind in WebSocketEventLoop.allCases {
            let (server, delegate, port) = try startServer { $0.eventLoop = kind }
            defer { server.shutdown() }
            XCTAssertEqual(server.runningEventLoop, kind, "the server runs on the loop it was given")
            try body(kind, server, delegate, port)
        }
    }

    func testMessagesGoBothWaysAndWorkFromOtherThreadsRuns() throws {
        try eachLoop { kind, server, delegate, port in
            let clients = try (0..<20).map { _ in try BlockingWebSocketClient.connect(port: port) }
            XCTAssertTrue(eventually { delegate.opened.count == 20 }, "\(kind)")
            for (i, client) in clients.enumerated() { client.send(text: "hello \(i)") }
            for (i, client) in clients.enumerated() { XCTAssertEqual(try client.receiveText(), "hello \(i)", "\(kind): echoed") }
            // Work handed over from another thread wakes the loop (lws_cancel_service) at once.
            let started = Date()
            let answer = server.performAndWait(timeout: 5) { server.openConnections.count }
            XCTAssertEqual(answer, 20, "\(kind)")
            XCTAssertLessThan(Date().timeIntervalSince(started), 1, "\(kind): the loop woke for the work")
            delegate.broadcast(OutboundFrame(text: "to all"))
            for client in clients { XCTAssertEqual(try client.receiveText(), "to all", "\(kind)") }
            for client in clients { client.close() }
            XCTAssertTrue(eventually { server.performAndWait(timeout: 2) { server.openConnections.isEmpty } ?? false }, "\(kind)")
        }
    }

    func testTimersFireOnTheServiceThread() throws {
        try eachLoop { kind, server, _, _ in
            let lock = NSLock()
            var ticks = 0, once = 0, onServiceThread = true
            server.perform {
                _ = server.schedule(every: 0.02) {
                    lock.lock(); ticks += 1; onServiceThread = onServiceThread && server.isServiceThread; lock.unlock()
                }
                _ = server.schedule(after: 0.05) { lock.lock(); once += 1; lock.unlock() }
            }
            // Counted, not timed: a loaded machine may stretch the 20 ms period, so the test
            // waits for the ticks (up to 10 s) instead of expecting a number in a fixed time.
            let kept = eventually(timeout: 10) { lock.lock(); defer { lock.unlock() }; return ticks >= 12 }
            XCTAssertTrue(kept, "\(kind): a repeating timer keeps firing")
            lock.lock()
            XCTAssertEqual(once, 1, "\(kind): a one-shot timer fires once, even after many periods")
            XCTAssertTrue(onServiceThread, "\(kind)")
            lock.unlock()
        }
    }

    /// On a quiet libev loop the service loop's own timers wake it when they are due, not at the
    /// next periodic wake-up (`EvLoop.wake(at:)`). With a far timer armed (the libev plugin then
    /// ignores being re-armed sooner), ten one-shot timers of 20 ms, each scheduled from another
    /// thread once the previous one fired, take about 0.2 s; woken only every `timerWakeSlack`
    /// (0.25 s) they would take over two seconds.
    func testAQuietLoopWakesForItsTimersWhenTheyAreDue() throws {
        for kind in WebSocketEventLoop.allCases {
            let (server, _, _) = try startServer { $0.eventLoop = kind }
            defer { server.shutdown() }
            server.perform { _ = server.schedule(every: 30) {} }
            Thread.sleep(forTimeInterval: 0.3)   // quiet: no socket event since
            let started = Date()
            for _ in 0..<10 {
                let fired = DispatchSemaphore(value: 0)
                server.perform { _ = server.schedule(after: 0.02) { fired.signal() } }
                XCTAssertEqual(fired.wait(timeout: .now() + 10), .success, "\(kind)")
            }
            let took = Date().timeIntervalSince(started)
            XCTAssertGreaterThanOrEqual(took, 0.2, "\(kind): no timer fires early")
            XCTAssertLessThan(took, 1.2, "\(kind): each fired when due, not at a later periodic wake-up")
        }
    }

    /// libwebsockets' own timers (here the header timeout, `lws_set_timeout`) fire on time on a
    /// quiet server: the libev plugin of lws 4.1 only re-arms its timer after socket events, and
    /// the loop's own wake-up (`EvLoop.startTimerWake`) is what runs them when nothing else happens.
    func testLibwebsocketsTimeoutsFireOnAQuietServer() throws {
        for kind in WebSocketEventLoop.allCases {
            let (server, _, port) = try startServer {
                $0.eventLoop = kind
                $0.limits.headerTimeout = 2
            }
            defer { server.shutdown(grace: 0.1) }
            // A server that ran a while first: a timer armed long ago must not hide a sooner one.
            Thread.sleep(forTimeInterval: 0.3)
            let slow = try RawHTTPConnection(port: port, timeout: 10)
            slow.send(Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8))
            let start = Date()
            XCTAssertTrue(slow.waitForClose(timeout: 6), "\(kind): a head that never ends is closed")
            let waited = Date().timeIntervalSince(start)
            XCTAssertGreaterThan(waited, 1.5, "\(kind): not before the header timeout")
            XCTAssertLessThan(waited, 4, "\(kind): nor long after it")
        }
    }

    func testAReaderThatPausesChokesItsSocketAndTheRestStillFlows() throws {
        try eachLoop { kind, server, delegate, port in
            let slow = try BlockingWebSocketClient.connect(port: port)
            XCTAssertTrue(eventually { delegate.opened.count == 1 })
            let slowID = delegate.opened[0].id
            let other = try BlockingWebSocketClient.connect(port: port)
            XCTAssertTrue(eventually { delegate.opened.count == 2 })
            slow.pauseReading()
            XCTAssertTrue(floodUntilChoked(server, delegate, connection: slowID, byte: 7, frames: 2_000), "\(kind): backpressure seen")
            other.send(text: "still here")
            XCTAssertEqual(try other.receiveText(), "still here", "\(kind): the others are served meanwhile")
            slow.close()
            other.close()
        }
    }

    func testShutdownIsQuickAndLeavesNothingRunning() throws {
        for kind in WebSocketEventLoop.allCases {
            let (server, delegate, port) = try startServer { $0.eventLoop = kind }
            let client = try BlockingWebSocketClient.connect(port: port)
            XCTAssertTrue(eventually { delegate.opened.count == 1 })
            let started = Date()
            server.shutdown()
            XCTAssertLessThan(Date().timeIntervalSince(started), 2, "\(kind): shutdown returns promptly")
            XCTAssertNil(server.performAndWait(timeout: 1) { 1 }, "\(kind): the loop is gone")
            XCTAssertThrowsError(try client.receiveText(), "\(kind): the client was closed")
        }
    }
}
