import Foundation
import TestSupport
import XCTest
@testable import WebSockets

/// Connections reach the callbacks through the wsi's per-session user data, which keeps each
/// one alive exactly while it is open.
final class WebSocketConnectionLifetimeTests: XCTestCase {
    func testConnectionsAreReleasedOnceClosed() throws {
        final class WeakConnections: WebSocketServerDelegate {
            private let lock = NSLock()
            private var refs: [() -> WebSocketConnection?] = []
            var alive: Int { lock.lock(); defer { lock.unlock() }; return refs.filter { $0() != nil }.count }
            var opened: Int { lock.lock(); defer { lock.unlock() }; return refs.count }
            func webSocketServer(_ server: WebSocketServer, didOpen connection: WebSocketConnection) {
                lock.lock(); refs.append { [weak connection] in connection }; lock.unlock()
                connection.requestWrite()
            }
            func webSocketServer(_ server: WebSocketServer, connection: WebSocketConnection, didReceive message: InboundMessage) {}
            func webSocketServer(_ server: WebSocketServer, didClose connection: WebSocketConnection) {}
            func webSocketServer(_ server: WebSocketServer, nextFrameFor connection: WebSocketConnection) -> NextFrame { .nothing }
        }
        let delegate = WeakConnections()
        var configuration = WebSocketServerConfiguration(subprotocol: testSubprotocol)
        configuration.port = 0
        let server = WebSocketServer(configuration: configuration, delegate: delegate)
        let port = try server.start()
        defer { server.shutdown() }
        let clients = try (0..<10).map { _ in try BlockingWebSocketClient.connect(port: port) }
        XCTAssertTrue(eventually { delegate.opened == 10 })
        XCTAssertEqual(delegate.alive, 10, "an open connection is kept alive by its wsi's user data")
        clients.forEach { $0.close() }
        XCTAssertTrue(eventually { server.performAndWait(timeout: 1) { server.connectionCount } == 0 })
        XCTAssertTrue(eventually { delegate.alive == 0 }, "\(delegate.alive) connection(s) outlived their close")
    }
}
