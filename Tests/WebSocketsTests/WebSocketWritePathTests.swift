import Foundation
import TestSupport
import XCTest
@testable import WebSockets

/// The pull-based write path over real sockets: the delegate decides every frame, and the
/// server re-arms a connection on the delegate's `morePending` (or a queued close) alone.
final class WebSocketWritePathTests: XCTestCase {
    /// Queues `texts` for the one open connection in a single service-thread turn, then asks
    /// for one write.
    private func enqueue(_ texts: [String], on server: WebSocketServer, _ delegate: RecordingServerDelegate) {
        server.perform {
            guard let connection = server.openConnections.first else { return }
            for text in texts { delegate.enqueue(OutboundFrame(text: text), to: connection) }
        }
    }

    func testAConnectionIsAskedOnlyWhileTheDelegateHasMore() throws {
        let (server, delegate, port) = try startServer()
        defer { server.shutdown() }
        let client = try BlockingWebSocketClient.connect(port: port)
        XCTAssertTrue(eventually { delegate.opened.count == 1 })
        let id = delegate.opened[0].id
        enqueue(["a", "b", "c", "d", "e"], on: server, delegate)
        for text in ["a", "b", "c", "d", "e"] {
            XCTAssertEqual(try client.receiveText(), text)
        }
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertEqual(delegate.pulls(id), 5, "one pull per frame, and none after the last said nothing follows")
        client.close()
    }

    /// A frame of 12 KB goes to the kernel in one write: lws caps each send at the
    /// protocol's `tx_packet_size` (or, when 0, at its receive buffer, 2 KiB here), and a
    /// snapshot sent 2 KiB per writable callback held every other viewer's selection back.
    func testAFrameOfTwelveKilobytesIsWrittenWholeToAReadingClient() throws {
        let (server, delegate, port) = try startServer()
        defer { server.shutdown() }
        let client = try BlockingWebSocketClient.connect(port: port)
        XCTAssertTrue(eventually { delegate.opened.count == 1 })
        let text = String(repeating: "x", count: 12_000)
        for _ in 0..<10 {
            // One at a time, each into an empty socket: nothing makes the kernel refuse part of it.
            enqueue([text], on: server, delegate)
            XCTAssertEqual(try client.receiveText().count, text.count)
        }
        let partial = server.performAndWait(timeout: 5) { server.openConnections.first?.framesLeftPartial }
        XCTAssertEqual(partial, 0, "no frame was left partly written")
        client.close()
    }

    /// Frames of 0 to 4,000 bytes (both header lengths), text and binary, and one frame too big
    /// to batch in the middle.
    private func mixedFrames() -> [OutboundFrame] {
        var frames: [OutboundFrame] = []
        for (i, size) in [0, 1, 125, 126, 127, 300, 4_000, 65, 20_000, 7, 126, 2].enumerated() {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i) }
            frames.append(i % 3 == 1 ? OutboundFrame(binary: bytes) : OutboundFrame(textBytes: bytes.map { 0x41 + $0 % 26 }))
        }
        return frames
    }

    func testSmallFramesReadyTogetherGoOutInOneSendFramedExactlyAndInOrder() throws {
        let (server, delegate, port) = try startServer()
        defer { server.shutdown() }
        let raw = try RawWebSocket(port: port, subprotocol: testSubprotocol)
        XCTAssertTrue(eventually { delegate.opened.count == 1 })
        let frames = mixedFrames()
        server.perform {
            guard let connection = server.openConnections.first else { return }
            for frame in frames { delegate.enqueue(frame, to: connection) }
        }
        for (i, sent) in frames.enumerated() {
            let got = try XCTUnwrap(raw.readFrame(), "frame \(i)")
            XCTAssertTrue(got.fin, "frame \(i): one whole message")
            XCTAssertEqual(got.opcode, sent.isBinary ? 0x2 : 0x1, "frame \(i)")
            XCTAssertEqual(got.payload, sent.bytes, "frame \(i): \(sent.count) bytes")
        }
        let (batched, pulls) = try XCTUnwrap(server.performAndWait(timeout: 5) {
            (server.openConnections.first?.batchedWrites ?? -1, delegate.pulls(delegate.opened[0].id))
        })
        XCTAssertGreaterThanOrEqual(batched, 1, "small frames shared a send")
        XCTAssertLessThanOrEqual(batched, 3, "a batch holds many frames")
        XCTAssertEqual(pulls, frames.count, "one pull per frame, none after the last")
    }

    /// 300 frames of 10,000 bytes with a distinct tail each; too big to batch, so each is its own send.
    private func numberedFrames() -> [OutboundFrame] {
        (0..<300).map { index in
            OutboundFrame(textBytes: Array(repeating: 0x41 + UInt8(index % 26), count: 9_990) + Array(String(format: "%010d", index).utf8))
        }
    }

    /// Reads `frames` from `raw`, each one whole text message with exactly the bytes sent.
    private func assertReceives(_ frames: [OutboundFrame], on raw: RawWebSocket, file: StaticString = #filePath, line: UInt = #line) throws {
        for (index, sent) in frames.enumerated() {
            let got = try XCTUnwrap(raw.readFrame(), "frame \(index)", file: file, line: line)
            XCTAssertTrue(got.fin && got.opcode == 0x1, "frame \(index): one whole text message", file: file, line: line)
            guard got.payload == sent.bytes else {
                return XCTFail("frame \(index) arrived as \(got.payload.count) bytes ending \(got.payload.suffix(10))", file: file, line: line)
            }
        }
    }

    /// The server's send buffer cut to its least, so that a reader that waits fills it fast.
    private func shrinkSendBuffer(of connection: WebSocketConnection) {
        var size: Int32 = 4_096
        _ = setsockopt(connection.directSocket, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Frames the server sends on the socket itself to a reader that waits: the writes stop when
    /// the socket is full, go on when it drains, and every frame arrives whole and in order.
    func testFramesSentDirectlyToAReaderThatWaitsArriveWholeAndInOrder() throws {
        let (server, delegate, port) = try startServer()
        defer { server.shutdown() }
        let raw = try RawWebSocket(port: port, subprotocol: testSubprotocol, timeout: 10)
        XCTAssertTrue(eventually { delegate.opened.count == 1 })
        let frames = numberedFrames()
        server.perform {
            guard let connection = server.openConnections.first else { return }
            self.shrinkSendBuffer(of: connection)
            for frame in frames { delegate.enqueue(frame, to: connection) }
        }
        XCTAssertTrue(eventually(timeout: 10) {
            server.performAndWait(timeout: 5) { (server.openConnections.first?.kernelUnsentBytes ?? 0) > 0 } ?? false
        }, "the socket filled while the reader waited")
        XCTAssertLessThan(delegate.pulls(delegate.opened[0].id), frames.count, "the writes stopped at a full socket")
        try assertReceives(frames, on: raw)
        let (direct, pulls) = try XCTUnwrap(server.performAndWait(timeout: 5) {
            (server.openConnections.first?.directWrites ?? -1, delegate.pulls(delegate.opened[0].id))
        })
        XCTAssertEqual(direct, frames.count, "every frame went straight to the socket")
        XCTAssertEqual(pulls, frames.count, "one pull per frame")
    }

    /// `sendDirect` on a socket that cannot take the whole frame: libwebsockets keeps the rest
    /// (`hasPartialWrite`) and sends it when the socket drains, after what went before.
    func testADirectWriteTheSocketCannotTakeWholeIsFinishedByLibwebsockets() throws {
        let (server, delegate, port) = try startServer()
        defer { server.shutdown() }
        let raw = try RawWebSocket(port: port, subprotocol: testSubprotocol, timeout: 10)
        XCTAssertTrue(eventually { delegate.opened.count == 1 })
        let frames = numberedFrames()
        // Sent one after another without waiting for the socket, until one is not taken whole.
        let outcome = try XCTUnwrap(server.performAndWait(timeout: 5) { () -> (sent: Int, keptRest: Bool) in
            guard let connection = server.openConnections.first, let wsi = connection.wsi else { return (0, false) }
            self.shrinkSendBuffer(of: connection)
            for (index, frame) in frames.enumerated() {
                let header = ServerFrameHeader.bytes(for: frame.count)
                ServerFrameHeader.write(at: frame.payload - header, count: frame.count, isBinary: false)
                switch server.sendDirect(frame.payload - header, count: header + frame.count,
                                         socket: connection.directSocket, wsi: wsi) {
                case .whole: continue
                case .restKept: return (index + 1, connection.hasPartialWrite)
                case .failed: return (index, false)
                }
            }
            return (frames.count, false)
        })
        XCTAssertLessThan(outcome.sent, frames.count, "the socket filled")
        XCTAssertTrue(outcome.keptRest, "libwebsockets holds what the kernel did not take")
        try assertReceives(Array(frames.prefix(outcome.sent)), on: raw)
        XCTAssertEqual(server.performAndWait(timeout: 5) { server.openConnections.first?.hasPartialWrite }, false,
                       "nothing is left once the reader drained")
    }

    func testWithPermessageDeflateEveryFrameIsItsOwnWrite() throws {
        let (server, delegate, port) = try startServer { $0.permessageDeflate = true }
        defer { server.shutdown() }
        let client = try BlockingWebSocketClient.connect(port: port)
        XCTAssertTrue(eventually { delegate.opened.count == 1 })
        enqueue(["a", "b", "c", "d"], on: server, delegate)
        for text in ["a", "b", "c", "d"] { XCTAssertEqual(try client.receiveText(), text) }
        XCTAssertEqual(server.performAndWait(timeout: 5) { server.openConnections.first?.batchedWrites }, 0)
        client.close()
    }

    func testMorePendingFalseLeavesTheRestUntilTheNextRequest() throws {
        let delegate = RecordingServerDelegate()
        delegate.understatePending = true
        let (server, _, port) = try startServer(delegate: delegate)
        defer { server.shutdown() }
        let client = try BlockingWebSocketClient.connect(port: port)
        XCTAssertTrue(eventually { delegate.opened.count == 1 })
        let id = delegate.opened[0].id
        enqueue(["first", "second"], on: server, delegate)
        XCTAssertEqual(try client.receiveText(), "first")
        XCTAssertThrowsError(try client.receive(timeout: 0.3), "not re-armed: the delegate said nothing more")
        XCTAssertEqual(delegate.pulls(id), 1)
        server.perform { server.openConnections.first?.requestWrite() }
        XCTAssertEqual(try client.receiveText(), "second")
        client.close()
    }

    func testACloseWaitsForPendingFramesButNotForever() throws {
        let (server, delegate, port) = try startServer { $0.maxFramesAfterClose = 5 }
        defer { server.shutdown() }
        let client = try BlockingWebSocketClient.connect(port: port)
        XCTAssertTrue(eventually { delegate.opened.count == 1 })
        let id = delegate.opened[0].id
        server.perform {
            // A delegate that always has more: the close must still go out after 5 frames.
            delegate.floodFrames[id] = (OutboundFrame(text: "more"), 1_000)
            server.openConnections.first?.close(code: 4002, reason: "enough")
        }
        var frames: [String] = []
        while frames.count <= 1_000 {
            do {
                frames.append(try client.receiveText())
            } catch WebSocketError.closed(let code) {
                XCTAssertEqual(code, 4002)
                break
            }
        }
        XCTAssertEqual(frames, Array(repeating: "more", count: 5))
    }

    func testEveryServicePassEndsWithTheDelegateHook() throws {
        let (server, delegate, port) = try startServer()
        defer { server.shutdown() }
        let client = try BlockingWebSocketClient.connect(port: port)
        for index in 0..<20 { client.send(text: "m\(index)") }
        for index in 0..<20 { XCTAssertEqual(try client.receiveText(), "m\(index)") }
        XCTAssertTrue(eventually { delegate.receivedPerPass.reduce(0, +) == 20 },
                      "every message was followed by the end of its pass: \(delegate.receivedPerPass)")
        XCTAssertEqual(delegate.callsOffServiceThread, 0)
        client.close()
    }
}
