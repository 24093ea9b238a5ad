import TestSupport
import XCTest
@testable import WebSockets

final class WebSocketFramingTests: XCTestCase {
    func testHandshakeWithUnknownSubprotocolIsRefused() throws {
        let (server, delegate, port) = try startServer()
        defer { server.shutdown() }
        XCTAssertThrowsError(try BlockingWebSocketClient.connect(port: port, subprotocol: "other.v9", timeout: 3))
        XCTAssertEqual(delegate.opened.count, 0)
    }

    func testUpgradeOnAnotherPathIsRefused() throws {
        let (server, delegate, port) = try startServer()
        defer { server.shutdown() }
        XCTAssertThrowsError(try BlockingWebSocketClient.connect(port: port, path: "/elsewhere", timeout: 3))
        XCTAssertEqual(delegate.opened.count, 0)
    }

    /// The header the server writes itself (direct writes, batches): RFC 6455 §5.2, FIN set,
    /// unmasked, the three length forms at their edges.
    func testTheServersOwnFrameHeaderHasTheLengthFormOfRFC6455() {
        let cases: [(count: Int, binary: Bool, header: [UInt8])] = [
            (0, false, [0x81, 0]),
            (125, true, [0x82, 125]),
            (126, false, [0x81, 126, 0, 126]),
            (65_535, false, [0x81, 126, 0xFF, 0xFF]),
            (65_536, true, [0x82, 127, 0, 0, 0, 0, 0, 1, 0, 0]),
            (0x01_0203_0405, false, [0x81, 127, 0, 0, 0, 0x01, 0x02, 0x03, 0x04, 0x05]),
        ]
        for (count, binary, header) in cases {
            var bytes = [UInt8](repeating: 0xEE, count: 12)
            let written = bytes.withUnsafeMutableBufferPointer {
                ServerFrameHeader.write(at: $0.baseAddress!, count: count, isBinary: binary)
            }
            XCTAssertEqual(written, header.count, "\(count) bytes")
            XCTAssertEqual(ServerFrameHeader.bytes(for: count), header.count, "\(count) bytes")
            XCTAssertEqual(Array(bytes.prefix(written)), header, "\(count) bytes")
            XCTAssertEqual(bytes[written], 0xEE, "\(count) bytes: nothing written past the header")
        }
    }

    func testOneFrameReachesThreeClientsIdentically() throws {
        let (server, delegate, port) = try startServer()
        defer { server.shutdown() }
        let clients = try (0..<3).map { _ in try BlockingWebSocketClient.connect(port: port) }
        XCTAssertTrue(eventually { delegate.opened.count == 3 })
        let payload = "selection sales seq 14"
        let frame = OutboundFrame(text: payload)
        delegate.broadcast(frame)
        for client in clients {
            XCTAssertEqual(try client.receive(), .text(Array(payload.utf8)))
        }
        // The very same object was handed to all three connections.
        XCTAssertEqual(delegate.handedOut, Array(repeating: ObjectIdentifier(frame), count: 3))
        clients.forEach { $0.close() }
    }

    func testFragmentedMessageIsReassembledBeforeDelivery() throws {
        let (server, delegate, port) = try startServer()
        defer { server.shutdown() }
        let client = try BlockingWebSocketClient.connect(port: port)
        client.sendFragments([Array("hel".utf8), Array("lo, ".utf8), Array("Bo".utf8)], binary: false)
        XCTAssertEqual(try client.receiveText(), "hello, Bo")
        XCTAssertEqual(delegate.received.count, 1)
        client.sendFragments([[1, 2], [3], [4, 5, 6]], binary: true)
        XCTAssertEqual(try client.receive(), .binary([1, 2, 3, 4, 5, 6]))
        XCTAssertEqual(delegate.received.count, 2)
        client.close()
    }

    func testLargeMessageSplitAcrossReceiveCallbacksArrivesWhole() throws {
        let (server, delegate, port) = try startServer { $0.maxMessageSize = 1 << 20 }
        defer { server.shutdown() }
        let client = try BlockingWebSocketClient.connect(port: port)
        let big = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        client.send(bytes: big, binary: true)
        let echoed = try client.receive()
        XCTAssertTrue(echoed == .binary(big), "echo differs: \(echoed.bytes.count) bytes")
        XCTAssertEqual(delegate.received.count, 1)
        client.close()
    }

    func testBinaryFrameIsFlaggedBinary() throws {
        let (server, delegate, port) = try startServer()
        defer { server.shutdown() }
        let client = try BlockingWebSocketClient.connect(port: port)
        client.send(bytes: [0, 255, 10], binary: true)
        XCTAssertEqual(try client.receive(), .binary([0, 255, 10]))
        client.send(bytes: Array("text".utf8), binary: false)
        XCTAssertEqual(try client.receive(), .text(Array("text".utf8)))
        XCTAssertEqual(delegate.received.map { $0.1 }, [.binary([0, 255, 10]), .text(Array("text".utf8))])
        client.close()
    }

    func testOversizeMessageIsReportedOnceThenClosedWith1009() throws {
        let (server, delegate, port) = try startServer { $0.maxMessageSize = 1024 }
        defer { server.shutdown() }
        let client = try BlockingWebSocketClient.connect(port: port)
        client.send(text: "small")
        XCTAssertEqual(try client.receiveText(), "small")
        // 5000 bytes in four fragments: over the limit after the first two.
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 1250)
        client.sendFragments([chunk, chunk, chunk, chunk], binary: false)
        XCTAssertEqual(try client.receiveText(), delegate.tooLargeErrorText)
        XCTAssertEqual(try client.waitUntilClosed(), 1009)
        XCTAssertEqual(client.closeCode, 1009)
        XCTAssertEqual(delegate.exceeded.count, 1)
        XCTAssertEqual(delegate.received.count, 1, "the oversize message is never delivered")
        XCTAssertTrue(eventually { delegate.closed.count == 1 })
    }

    func testClientCloseCodeReachesServerAndServerCloseCodeReachesClient() throws {
        let (server, delegate, port) = try startServer()
        defer { server.shutdown() }
        let first = try BlockingWebSocketClient.connect(port: port)
        first.close()
        XCTAssertTrue(eventually { delegate.closed.count == 1 })

        let second = try BlockingWebSocketClient.connect(port: port)
        XCTAssertTrue(eventually { delegate.opened.count == 2 })
        server.perform {
            server.openConnections.forEach { $0.close(code: 4001, reason: "bye") }
        }
        XCTAssertEqual(try second.waitUntilClosed(), 4001)
        XCTAssertThrowsError(try second.receive(timeout: 0.2)) { error in
            XCTAssertEqual(error as? WebSocketError, .closed(code: 4001))
        }
    }

    func testPermessageDeflateRoundTrip() throws {
        let (server, _, port) = try startServer { $0.permessageDeflate = true }
        defer { server.shutdown() }
        let context = try WebSocketClientContext(permessageDeflate: true)
        defer { context.shutdown() }
        let inbox = BlockingInbox()
        let connection = context.connect(host: "127.0.0.1", port: port, path: "/ws", subprotocol: testSubprotocol, delegate: inbox)
        try inbox.waitForHandshake(timeout: 3)
        let extensions = context.performAndWait(timeout: 2) { connection.negotiatedExtensions }
        XCTAssertEqual(extensions??.hasPrefix("permessage-deflate"), true)
        let text = String(repeating: "{\"x\":1651363200000,\"y\":1980},", count: 2000)
        connection.send(text: text)
        let echoed = try inbox.next(timeout: 3)
        XCTAssertTrue(echoed == .text(Array(text.utf8)), "echo differs: \(echoed.bytes.count) bytes")
    }

    func testPermessageDeflateIsNotNegotiatedUnlessEnabled() throws {
        let (server, _, port) = try startServer()
        defer { server.shutdown() }
        let context = try WebSocketClientContext(permessageDeflate: true)
        defer { context.shutdown() }
        let inbox = BlockingInbox()
        let connection = context.connect(host: "127.0.0.1", port: port, path: "/ws", subprotocol: testSubprotocol, delegate: inbox)
        try inbox.waitForHandshake(timeout: 3)
        let extensions = context.performAndWait(timeout: 2) { connection.negotiatedExtensions }
        XCTAssertEqual(extensions, .some(nil), "answered, and nothing was negotiated")
        connection.send(text: "plain")
        XCTAssertEqual(try inbox.next(timeout: 3), .text(Array("plain".utf8)))
    }

    func testReservedCloseCodesAreNotSent() throws {
        XCTAssertEqual(WebSocketCloseCode.sendable(1005), 1000)
        XCTAssertEqual(WebSocketCloseCode.sendable(1006), 1000)
        XCTAssertEqual(WebSocketCloseCode.sendable(999), 1000)
        XCTAssertEqual(WebSocketCloseCode.sendable(1009), 1009)
        XCTAssertEqual(WebSocketCloseCode.sendable(4001), 4001)
        let (server, delegate, port) = try startServer()
        defer { server.shutdown() }
        let client = try BlockingWebSocketClient.connect(port: port)
        XCTAssertTrue(eventually { delegate.opened.count == 1 })
        server.perform { server.openConnections.forEach { $0.close(code: 1006, reason: "") } }
        XCTAssertEqual(try client.waitUntilClosed(), 1000)
    }

    func testManyConnectionsFromOneClientContext() throws {
        let (server, delegate, port) = try startServer()
        defer { server.shutdown() }
        let context = try WebSocketClientContext()
        defer { context.shutdown() }
        let inboxes = (0..<200).map { _ in BlockingInbox() }
        let connections = inboxes.map {
            context.connect(host: "127.0.0.1", port: port, path: "/ws", subprotocol: testSubprotocol, delegate: $0)
        }
        for inbox in inboxes { try inbox.waitForHandshake(timeout: 5) }
        for (index, connection) in connections.enumerated() { connection.send(text: "m\(index)") }
        for (index, inbox) in inboxes.enumerated() {
            XCTAssertEqual(try inbox.next(timeout: 5), .text(Array("m\(index)".utf8)))
        }
        XCTAssertTrue(eventually { delegate.received.count == 200 })
        var ids: [Int] = []
        XCTAssertTrue(eventually {
            ids = delegate.opened.map { $0.id }
            return ids.count == 200
        })
        XCTAssertEqual(Set(ids).count, 200)
    }
}
