import Foundation
import TestSupport
import XCTest
@testable import WebSockets

/// The service-thread contract: `performAndWait` never waits on work that cannot run.
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
}
