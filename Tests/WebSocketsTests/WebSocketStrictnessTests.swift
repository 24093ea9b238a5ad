import Foundation
import TestSupport
import XCTest
@testable import WebSockets

/// RFC 6455 strictness against hostile clients speaking raw frames, each with an honest viewer
/// (the project's own lws client) that is answered before, during and after.
final class WebSocketStrictnessTests: XCTestCase {
    private var server: WebSocketServer!
    private var delegate: RecordingServerDelegate!
    private var port = 0
    private var honest: BlockingWebSocketClient!
    private var honestRounds = 0

    override func setUpWithError() throws {
        (server, delegate, port) = try startServer()
        honest = try BlockingWebSocketClient.connect(port: port)
        try assertHonestViewerServed()
    }

    override func tearDownWithError() throws {
        try assertHonestViewerServed()
        honest.close()
        server.shutdown(grace: 0.1)
    }

    /// The honest viewer's message comes back.
    private func assertHonestViewerServed(file: StaticString = #filePath, line: UInt = #line) throws {
        honestRounds += 1
        honest.send(text: "honest \(honestRounds)")
        XCTAssertEqual(try honest.receiveText(timeout: 5), "honest \(honestRounds)", file: file, line: line)
    }

    private func hostile() throws -> RawWebSocket {
        try RawWebSocket(port: port, subprotocol: testSubprotocol)
    }

    /// Sends `frames` on a fresh raw connection; the close code the server answers with.
    private func closeCode(after frames: [UInt8]...) throws -> UInt16? {
        let socket = try hostile()
        for frame in frames { socket.send(frame) }
        return socket.readCloseCode()
    }

    func testInvalidUTF8InATextMessageClosesWith1007() throws {
        XCTAssertEqual(try closeCode(after: RawWebSocket.frame(first: 0x81, payload: [0x68, 0xC3, 0x28])), 1007)
        try assertHonestViewerServed()
        // Split across fragments: a valid start, then a continuation that breaks the sequence.
        XCTAssertEqual(try closeCode(after: RawWebSocket.frame(first: 0x01, payload: [0x61, 0xE2, 0x82]),
                                     RawWebSocket.frame(first: 0x80, payload: [0x28])), 1007)
        // A message that ends in the middle of a character.
        XCTAssertEqual(try closeCode(after: RawWebSocket.frame(first: 0x81, payload: [0x61, 0xE2, 0x82])), 1007)
        // An overlong encoding of '/' and an encoded surrogate.
        XCTAssertEqual(try closeCode(after: RawWebSocket.frame(first: 0x81, payload: [0xC0, 0xAF])), 1007)
        XCTAssertEqual(try closeCode(after: RawWebSocket.frame(first: 0x81, payload: [0xED, 0xA0, 0x80])), 1007)
        let honestID = delegate.opened[0].id
        XCTAssertTrue(delegate.received.allSatisfy { $0.0 == honestID }, "no invalid text reached the delegate")
        // Valid multi-byte text split inside a character across fragments is one message.
        let socket = try hostile()
        socket.send(RawWebSocket.frame(first: 0x01, payload: [0x63, 0xE2, 0x82]))
        socket.send(RawWebSocket.frame(first: 0x80, payload: [0xAC]))
        XCTAssertEqual(socket.readFrame()?.payload, Array("c€".utf8))
    }

    func testInvalidCloseCodesAreAnsweredWith1002NotEchoed() throws {
        for code: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535] {
            let frame = RawWebSocket.frame(first: 0x88, payload: [UInt8(code >> 8), UInt8(code & 0xFF)])
            XCTAssertEqual(try closeCode(after: frame), 1002, "close code \(code)")
        }
        try assertHonestViewerServed()
        for code: UInt16 in [1000, 1001, 3000, 4999] {
            let frame = RawWebSocket.frame(first: 0x88, payload: [UInt8(code >> 8), UInt8(code & 0xFF)])
            XCTAssertEqual(try closeCode(after: frame), code, "a valid code \(code) is echoed")
        }
    }

    func testReservedBitsUnknownOpcodesAndOrphanContinuationsClose1002() throws {
        let cases: [(String, UInt8)] = [("RSV1 without an extension", 0xC1), ("RSV2", 0xA1), ("RSV3", 0x91),
                                        ("opcode 3", 0x83), ("opcode 7", 0x87), ("opcode 0xB", 0x8B), ("opcode 0xF", 0x8F),
                                        ("continuation without a start", 0x80), ("fragmented ping", 0x09)]
        for (name, first) in cases {
            XCTAssertEqual(try closeCode(after: RawWebSocket.frame(first: first, payload: Array("x".utf8))), 1002, name)
        }
        // A new message while a fragmented one is open.
        XCTAssertEqual(try closeCode(after: RawWebSocket.frame(first: 0x01, payload: [0x61]),
                                     RawWebSocket.frame(first: 0x81, payload: [0x62])), 1002)
        XCTAssertEqual(delegate.received.count, honestRounds, "only the honest viewer's messages were delivered")
    }

    func testOversizedControlFramesAndAbsurdLengthsEndTheConnectionWithoutAllocating() throws {
        // A ping with a 16-bit length (126 bytes): control frames carry at most 125.
        let bigPing = try hostile()
        bigPing.send(RawWebSocket.frame(first: 0x89, payload: [UInt8](repeating: 1, count: 126)))
        XCTAssertTrue(bigPing.waitForEnd(timeout: 5), "an oversized ping ends the connection")
        // A header claiming 2^63 bytes (the top bit must be zero), and one claiming 2^62.
        let huge = try hostile()
        huge.send(RawWebSocket.frame(first: 0x82, payload: [1, 2, 3], declaredLength: 1 << 63))
        XCTAssertTrue(huge.waitForEnd(timeout: 5), "a 2^63-byte header ends the connection")
        let large = try hostile()
        large.send(RawWebSocket.frame(first: 0x82, payload: [1, 2, 3], declaredLength: 1 << 62))
        XCTAssertEqual(large.readCloseCode(), 1009, "a 2^62-byte frame is over the message limit")
        try assertHonestViewerServed()
        XCTAssertEqual(delegate.received.count, honestRounds)
    }

    func testAPingFloodDoesNotHurtTheHonestViewer() throws {
        let flooder = try hostile()
        let ping = RawWebSocket.frame(first: 0x89, payload: Array("flood".utf8))
        var burst: [UInt8] = []
        for _ in 0..<1000 { burst += ping }
        for round in 0..<10 {
            XCTAssertTrue(flooder.send(burst), "burst \(round) sent")
            try assertHonestViewerServed()
        }
        // The flooder is answered with pongs (lws keeps one pending pong per connection).
        let first = flooder.readFrame()
        XCTAssertEqual(first?.opcode, 0xA)
        XCTAssertEqual(first?.payload, Array("flood".utf8))
    }
}
