import TestSupport
import XCTest
@testable import WebSockets

final class WebSocketRoundTripTests: XCTestCase {
    func testHandshakeAcceptsTheConfiguredSubprotocol() throws {
        let (server, delegate, port) = try startServer()
        defer { server.shutdown() }
        let client = try BlockingWebSocketClient.connect(port: port, subprotocol: testSubprotocol)
        XCTAssertEqual(client.negotiatedSubprotocol, testSubprotocol)
        XCTAssertTrue(eventually { delegate.opened.count == 1 })
        XCTAssertTrue(delegate.opened[0].remoteAddress.hasPrefix("127.0.0.1:"), delegate.opened[0].remoteAddress)
        client.close()
    }

    func testTextRoundTrip() throws {
        let (server, delegate, port) = try startServer()
        defer { server.shutdown() }
        let client = try BlockingWebSocketClient.connect(port: port)
        client.send(text: "hello, Ana")
        XCTAssertEqual(try client.receiveText(), "hello, Ana")
        XCTAssertEqual(delegate.received.first?.1, .text(Array("hello, Ana".utf8)))
        XCTAssertEqual(delegate.callsOffServiceThread, 0)
        client.close()
    }
}
