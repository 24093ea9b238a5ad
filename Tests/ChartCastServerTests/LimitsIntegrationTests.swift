import ChartCastServer
import Foundation
import TestSupport
import XCTest

/// The `chartcast` limit options reach the server: the viewer cap, the per-address cap and the
/// ping and idle timeouts, each with an honest viewer receiving the live feed throughout.
final class LimitsIntegrationTests: XCTestCase {
    private func start(_ configure: (inout ServerOptions) -> Void) throws -> (ChartCastServer, Int) {
        var options = ServerOptions(host: "127.0.0.1", port: 0, tick: 0.05, logLevel: .error)
        configure(&options)
        let server = ChartCastServer(options: options, logger: Logger(level: .error))
        return (server, try server.start())
    }

    private func handshake(port: Int) throws -> RawHTTPResponse {
        try rawHTTP(port: port, path: "/ws", extraHeaders: [
            "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Version: 13",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Protocol: \(ChartCastServer.subprotocol)"])
    }

    func testTheViewerCapAnswers503WhileViewersInAreServed() throws {
        let (server, port) = try start { $0.maxViewers = 2 }
        defer { server.shutdown() }
        let first = try TestViewer(port: port)
        let second = try TestViewer(port: port)
        let refused = try handshake(port: port)
        XCTAssertEqual(refused.status, 503)
        XCTAssertEqual(refused.headers["retry-after"], "5")
        _ = try first.append()
        _ = try second.append()
    }

    func testThePerAddressCapRefusesTheConnectionBeyond() throws {
        let (server, port) = try start { $0.maxPerAddress = 3 }
        defer { server.shutdown() }
        let viewer = try TestViewer(port: port)
        let held = try (0..<2).map { _ in try RawHTTPConnection(port: port) }
        // Connections are accepted in the order they arrive: the third is judged after the others.
        let refused = try RawHTTPConnection(port: port)
        XCTAssertEqual(try refused.readResponse().status, 503)
        _ = try viewer.append()
        withExtendedLifetime(held) {}
    }

    func testASilentViewerIsPingedAndDroppedWhileALiveOneStays() throws {
        let (server, port) = try start {
            $0.pingInterval = 1
            $0.idleTimeout = 3
        }
        defer { server.shutdown() }
        let live = try TestViewer(port: port)
        let silent = try RawWebSocket(port: port, subprotocol: ChartCastServer.subprotocol)
        let start = Date()
        XCTAssertTrue(silent.waitForEnd(timeout: 8), "a viewer answering no ping is dropped")
        let after = Date().timeIntervalSince(start)
        XCTAssertGreaterThan(after, 2, "not before the idle timeout")
        XCTAssertTrue(silent.bufferedFrames().contains { $0.opcode == 0x9 }, "it was pinged first")
        // The live viewer (libwebsockets answers pings) received throughout and still does.
        let deadline = Date(timeIntervalSinceNow: 1.5)
        while Date() < deadline { _ = try live.append() }
    }
}
