import Foundation
import TestSupport
import XCTest
@testable import WebSockets

/// `WebSocketConnection.writeNow`: between two service passes a connection with nothing in
/// flight is written at once, without a writable callback; everywhere else it asks for one.
final class WebSocketWriteNowTests: XCTestCase {
    /// Stages `texts` for the one open connection and, at the end of the next service pass,
    /// asks it for a write with `writeNow`.
    private func writeNowAtPassEnd(_ texts: [String], _ server: WebSocketServer, _ delegate: RecordingServerDelegate) {
        server.perform {
            guard let connection = server.openConnections.first else { return }
            for text in texts { delegate.stage(OutboundFrame(text: text), for: connection) }
            delegate.onPassEnd = {
                delegate.onPassEnd = nil
                connection.writeNow()
            }
        }
    }

    /// A started server with one client connected and its connection open.
    private func serverWithOneClient(_ configure: (inout WebSocketServerConfiguration) -> Void = { _ in }) throws
        -> (WebSocketServer, RecordingServerDelegate, BlockingWebSocketClient) {
        let (server, delegate, port) = try startServer(configure)
        let client = try BlockingWebSocketClient.connect(port: port)
        XCTAssertTrue(eventually { delegate.opened.count == 1 })
        return (server, delegate, client)
    }

    func testAtAPassEndTheFrameIsWrittenAtOnceAndTheRestByCallbacksInOrder() throws {
        let (server, delegate, client) = try serverWithOneClient()
        defer { server.shutdown(); client.close() }
        delegate.understatePending = true   // one frame per write: the second needs a callback
        writeNowAtPassEnd(["first", "second"], server, delegate)
        XCTAssertEqual(try client.receiveText(), "first")
        XCTAssertEqual(delegate.pullsBetweenPasses, [true], "the first frame was taken between passes")
        server.perform { server.openConnections.first?.requestWrite() }
        XCTAssertEqual(try client.receiveText(), "second")
        XCTAssertEqual(delegate.pullsBetweenPasses, [true, false], "the next one in a writable callback")
    }

    func testWhenTheDelegateHasMoreTheConnectionIsArmedForTheRest() throws {
        let (server, delegate, client) = try serverWithOneClient()
        defer { server.shutdown(); client.close() }
        let big = String(repeating: "x", count: 20_000)   // too big to batch: one frame per write
        writeNowAtPassEnd([big, "a", "b"], server, delegate)
        XCTAssertEqual(try client.receiveText(), big)
        XCTAssertEqual(try client.receiveText(), "a")
        XCTAssertEqual(try client.receiveText(), "b")
        XCTAssertEqual(delegate.pullsBetweenPasses.first, true)
        XCTAssertEqual(delegate.pullsBetweenPasses.count, 3)
    }

    func testInsideACallbackItAsksForAWritableCallbackInstead() throws {
        let (server, delegate, client) = try serverWithOneClient()
        defer { server.shutdown(); client.close() }
        server.perform {
            guard let connection = server.openConnections.first else { return }
            delegate.stage(OutboundFrame(text: "queued"), for: connection)
            connection.writeNow()   // from a queued job: inside libwebsockets' service
        }
        XCTAssertEqual(try client.receiveText(), "queued")
        XCTAssertEqual(delegate.pullsBetweenPasses, [false])
    }

    func testWithPermessageDeflateItAlwaysWaitsForTheCallback() throws {
        let (server, delegate, client) = try serverWithOneClient { $0.permessageDeflate = true }
        defer { server.shutdown(); client.close() }
        writeNowAtPassEnd(["deflated"], server, delegate)
        XCTAssertEqual(try client.receiveText(), "deflated")
        XCTAssertEqual(delegate.pullsBetweenPasses, [false])
    }
}
