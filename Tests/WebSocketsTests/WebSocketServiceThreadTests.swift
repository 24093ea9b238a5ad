import Foundation
import TestSupport
import XCTest
@testable import WebSockets

/// The service-thread contract: `performAndWait` never waits on work that cannot run, and
/// members marked "service thread only" check their thread in debug builds.
final class WebSocketServiceThreadTests: XCTestCase {
    func testPerformAndWaitAnswersWhileRunningAndNilPromptlyOtherwise() throws {
        var configuration = WebSocketServerConfiguration(subprotocol: testSubprotocol)
        configuration.port = 0
        let server = WebSocketServer(configuration: configuration, delegate: RecordingServerDelegate())
        var started = Date()
        XCTAssertNil(server.performAndWait(timeout: 5) { 1 }, "not started: nothing would run it")
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.5)
        _ = try server.start()
        XCTAssertEqual(server.performAndWait(timeout: 5) { server.isServiceThread }, true)
        XCTAssertEqual(server.performAndWait(timeout: 5) { server.performAndWait(timeout: 5) { 7 } }, 7,
                       "on the service thread itself it runs inline instead of deadlocking")
        server.shutdown()
        started = Date()
        XCTAssertNil(server.performAndWait(timeout: 5) { 2 }, "stopped")
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.5)
    }

    func testWorkQueuedAsTheLoopStopsIsAbandonedNotAwaited() throws {
        let (server, delegate, _) = try startServer()
        defer { server.shutdown() }
        let atLastPassEnd = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        server.perform {
            // From a timer, which fires inside a service pass: stop after this pass, and hold
            // the service thread at the pass's end meanwhile.
            server.schedule(after: 0.01) {
                delegate.onPassEnd = {
                    delegate.onPassEnd = nil
                    atLastPassEnd.signal()
                    release.wait()
                }
                server.loop.requestStop()
            }
        }
        XCTAssertEqual(atLastPassEnd.wait(timeout: .now() + 5), .success)
        // The loop is still running, so this is queued; it can only be abandoned now.
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { release.signal() }
        let started = Date()
        XCTAssertNil(server.performAndWait(timeout: 10) { 3 })
        let waited = Date().timeIntervalSince(started)
        XCTAssertLessThan(waited, 5, "waited \(waited) s for work that could never run")
    }

    /// The thread that queues work wakes the service thread after releasing the queue's lock:
    /// the service thread drains the job while its waker is still inside its wake. (Woken inside
    /// the lock, the service thread would block on it until the waker, often a thread of lower
    /// priority that it had just preempted, ran again; here that would be a deadlock.)
    func testTheServiceThreadRunsAJobWhileTheThreadThatWokeItIsStillWaking() throws {
        let (server, _, _) = try startServer()
        defer { server.shutdown(grace: 0) }
        XCTAssertNotNil(server.performAndWait(timeout: 5) {}, "the queue is empty: the next job wakes the thread")
        let ran = DispatchSemaphore(value: 0)
        var during: DispatchTimeoutResult?
        server.loop.afterWake = { during = ran.wait(timeout: .now() + 5) }
        server.perform { ran.signal() }
        server.loop.afterWake = nil
        XCTAssertEqual(during, .success, "the job did not run while its waker was inside its wake")
    }

    /// A wake in flight (begun before the loop stopped, its write to libwebsockets' pipe not
    /// yet returned) holds back the destruction of the context it writes to.
    func testStoppingWaitsForAWakeInFlightBeforeDestroyingTheContext() throws {
        let (server, _, _) = try startServer()
        XCTAssertNotNil(server.performAndWait(timeout: 5) {}, "the queue is empty: the next job wakes the thread")
        let inWake = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let lock = NSLock()
        var wakes = 0
        server.loop.afterWake = {
            lock.lock()
            wakes += 1
            let first = wakes == 1
            lock.unlock()
            if first {
                inWake.signal()
                release.wait()
            }
        }
        let waker = Thread { server.perform {} }
        waker.start()
        XCTAssertEqual(inWake.wait(timeout: .now() + 5), .success)
        let stopped = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            server.shutdown(grace: 0)
            stopped.signal()
        }
        XCTAssertEqual(stopped.wait(timeout: .now() + 0.5), .timedOut, "the context was destroyed under a wake in flight")
        release.signal()
        XCTAssertEqual(stopped.wait(timeout: .now() + 10), .success, "the loop stopped once the wake ended")
    }

    func testServiceThreadOnlyMembersReportCallsFromOtherThreads() throws {
        #if DEBUG
        let (server, delegate, port) = try startServer()
        defer { server.shutdown() }
        let lock = NSLock()
        var reports: [String] = []
        server.loop.threadViolationHandler = { message in lock.lock(); reports.append(message); lock.unlock() }
        let client = try BlockingWebSocketClient.connect(port: port)
        defer { client.close() }
        XCTAssertTrue(eventually { delegate.opened.count == 1 })
        let connection = delegate.opened[0]
        // On the service thread: silent.
        XCTAssertEqual(server.performAndWait(timeout: 5) { (server.connectionCount, connection.isOpen) }?.0, 1)
        XCTAssertFalse(server.loop.isServiceThreadOrIdle, "the test thread while the server runs")
        lock.lock()
        XCTAssertEqual(reports, [])
        lock.unlock()
        // Off it: each read is reported (and, without a handler, would stop a debug build).
        _ = server.connectionCount
        _ = connection.isOpen
        _ = connection.userData
        lock.lock()
        XCTAssertEqual(reports.count, 3, "\(reports)")
        XCTAssertTrue(reports.allSatisfy { $0.contains("service thread only") })
        XCTAssertTrue(reports[0].hasPrefix("connectionCount"), reports[0])
        XCTAssertTrue(reports[1].hasPrefix("isOpen"), reports[1])
        lock.unlock()
        #else
        throw XCTSkip("the thread check is a debug-build assertion")
        #endif
    }

    func testTheCheckAllowsEveryThreadBeforeStartAndAfterShutdown() throws {
        var configuration = WebSocketServerConfiguration(subprotocol: testSubprotocol)
        configuration.port = 0
        let server = WebSocketServer(configuration: configuration, delegate: RecordingServerDelegate())
        XCTAssertTrue(server.loop.isServiceThreadOrIdle, "no service thread yet")
        _ = try server.start()
        XCTAssertFalse(server.loop.isServiceThreadOrIdle)
        XCTAssertEqual(server.performAndWait(timeout: 5) { server.loop.isServiceThreadOrIdle }, true)
        server.shutdown()
        XCTAssertTrue(server.loop.isServiceThreadOrIdle, "the service thread has finished")
    }
}
