import Foundation
import TestSupport
import XCTest
@testable import WebSockets

/// Counts events of many client connections.
private final class CountingClientDelegate: WebSocketClientDelegate {
    private let lock = NSLock()
    private(set) var connected = 0
    private(set) var failed = 0
    private(set) var received = 0
    private(set) var closed = 0
    private(set) var reasons: [String: Int] = [:]

    private func bump(_ body: () -> Void) { lock.lock(); body(); lock.unlock() }
    var snapshot: (connected: Int, failed: Int, received: Int, closed: Int) {
        lock.lock(); defer { lock.unlock() }
        return (connected, failed, received, closed)
    }

    func webSocketClientDidConnect(_ connection: WebSocketClientConnection) { bump { connected += 1 } }
    func webSocketClient(_ connection: WebSocketClientConnection, didFailToConnect reason: String) {
        bump { failed += 1; reasons[reason, default: 0] += 1 }
    }
    func webSocketClient(_ connection: WebSocketClientConnection, didReceive message: InboundMessage) { bump { received += 1 } }
    func webSocketClient(_ connection: WebSocketClientConnection, didCloseWithCode code: UInt16?) { bump { closed += 1 } }
}

final class WebSocketRobustnessTests: XCTestCase {
    /// Opens a raw TCP connection and sends `bytes` (reading for up to 0.2 s if asked), then
    /// closes it abruptly.
    private func rawSend(port: Int, _ bytes: [UInt8], readBack: Bool = false) throws {
        let fd = try loopbackSocket(port: port, timeout: 0.2)
        defer { close(fd) }
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if readBack {
            var buffer = [UInt8](repeating: 0, count: 4096)
            _ = recv(fd, &buffer, buffer.count, 0)
        }
    }

    func testGarbageAndVanishingPeersLeaveTheServerHealthy() throws {
        let (server, delegate, port) = try startServer()
        defer { server.shutdown() }
        try rawSend(port: port, Array("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n".utf8))   // half a handshake
        try rawSend(port: port, (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 131) }, readBack: true)  // binary noise
        try rawSend(port: port, Array("GET / HTTP/1.1\r\n".utf8) + [UInt8](repeating: 65, count: 20_000))  // endless header
        // A real WebSocket handshake followed by a broken frame header.
        let handshake = "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        try rawSend(port: port, Array(handshake.utf8) + [0x81, 0xFF, 0xFF, 0xFF], readBack: true)

        // Clients that disappear mid-stream without a close frame.
        for _ in 0..<5 {
            let context = try WebSocketClientContext()
            let counter = CountingClientDelegate()
            let connection = context.connect(host: "127.0.0.1", port: port, path: "/ws", subprotocol: testSubprotocol, delegate: counter)
            XCTAssertTrue(eventually { counter.snapshot.connected == 1 })
            connection.send(bytes: [UInt8](repeating: 1, count: 50_000), binary: true)
            context.shutdown()
        }
        XCTAssertTrue(eventually { delegate.closed.count == delegate.opened.count })

        let client = try BlockingWebSocketClient.connect(port: port)
        client.send(text: "still here")
        XCTAssertEqual(try client.receiveText(), "still here")
        XCTAssertEqual(try rawHTTP(port: port, path: "/healthz").status, 200)
        client.close()
    }

    func testStalledViewerIsChokedAndOthersKeepFlowing() throws {
        let (server, delegate, port) = try startServer()
        defer { server.shutdown(grace: 0.1) }
        let stalled = try BlockingWebSocketClient.connect(port: port)
        let healthy = try BlockingWebSocketClient.connect(port: port)
        stalled.pauseReading()
        XCTAssertTrue(eventually { delegate.opened.count == 2 })
        XCTAssertTrue(floodUntilChoked(server, delegate, connection: delegate.opened[0].id, byte: 9, frames: 400))
        healthy.send(text: "ping")
        XCTAssertEqual(try healthy.receiveText(timeout: 2), "ping")
        // Resuming lets the backlog drain.
        stalled.resumeReading()
        XCTAssertEqual(try stalled.receive(timeout: 5).bytes.count, 64 * 1024)
    }

    /// Thousands of connections from one client context. Run with `WS_STRESS=<count>`.
    func testThousandsOfConnections() throws {
        guard let count = ProcessInfo.processInfo.environment["WS_STRESS"].flatMap(Int.init) else {
            throw XCTSkip("set WS_STRESS=<connections> to run")
        }
        let (server, delegate, port) = try startServer()
        defer { server.shutdown() }
        let context = try WebSocketClientContext()
        defer { context.shutdown() }
        let counter = CountingClientDelegate()
        let started = Date()
        let connections = (0..<count).map { _ in
            context.connect(host: "127.0.0.1", port: port, path: "/ws", subprotocol: testSubprotocol, delegate: counter)
        }
        XCTAssertTrue(eventually(timeout: 60) { counter.snapshot.connected + counter.snapshot.failed == count })
        print("connected \(counter.snapshot) in \(Date().timeIntervalSince(started)) s; failures: \(counter.reasons)")
        XCTAssertEqual(counter.snapshot.connected, count)
        let frame = OutboundFrame(text: "viewers: none")
        delegate.broadcast(frame)
        XCTAssertTrue(eventually(timeout: 30) { counter.snapshot.received == count })
        connections.forEach { $0.close() }
        XCTAssertTrue(eventually(timeout: 30) { counter.snapshot.closed == count })
        print("done \(counter.snapshot) in \(Date().timeIntervalSince(started)) s")
    }
}
