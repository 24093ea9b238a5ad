import CZlib
import Foundation
import TestSupport
import XCTest
@testable import WebSockets

/// permessage-deflate received by the server: inflated by the server itself, bounded by the
/// message limit, and never fatal.
final class WebSocketDeflateTests: XCTestCase {
    /// `bytes` as a permessage-deflate payload: raw DEFLATE with a sync flush, the trailing
    /// 00 00 FF FF removed (RFC 7692 §7.2.1) — or, `ending` the stream, with a final block.
    private func compress(_ bytes: [UInt8], level: Int32 = 9, ending: Bool = false) -> [UInt8] {
        var stream = z_stream()
        precondition(cc_deflate_init_gzip(&stream, level) == Z_OK)
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: bytes.count + 1024)
        var input = bytes
        let produced = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = source.baseAddress
                stream.avail_in = UInt32(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = UInt32(target.count)
                _ = deflate(&stream, ending ? Z_FINISH : Z_SYNC_FLUSH)
                return target.count - Int(stream.avail_out)
            }
        }
        // The gzip wrapper's 10-byte header off, and the sync flush's empty block (00 00 FF FF)
        // or the gzip trailer (CRC-32 and length).
        return Array(output[10..<(produced - (ending ? 8 : 4))])
    }

    private func deflateClient(port: Int) throws -> RawWebSocket {
        try RawWebSocket(port: port, subprotocol: testSubprotocol,
                         extraHeaders: ["Sec-WebSocket-Extensions: permessage-deflate; client_no_context_takeover"])
    }

    func testCompressedMessagesOfEveryShapeArriveWholeAndNeverStopTheServer() throws {
        let (server, delegate, port) = try startServer {
            $0.permessageDeflate = true
        }
        defer { server.shutdown(grace: 0.1) }
        delegate.echo = false
        let client = try deflateClient(port: port)
        XCTAssertTrue(eventually { delegate.opened.count == 1 })
        // Many sizes of long runs (a match whose output outlasts the input), each inflated whole.
        var sent: [[UInt8]] = []
        for length in stride(from: 1000, through: 6000, by: 13) {
            let text = Array("{\"n\":\(length),\"s\":\"".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: length) + Array("\"}".utf8)
            sent.append(text)
            XCTAssertTrue(client.send(first: 0xC1, payload: compress(text)), "message of \(length)")
        }
        XCTAssertTrue(eventually(timeout: 10) { delegate.received.count == sent.count }, "\(delegate.received.count) of \(sent.count)")
        XCTAssertEqual(delegate.received.map { $0.1 }, sent.map { InboundMessage.text($0) })
        // Uncompressed messages on the same connection still pass.
        client.send(first: 0x81, payload: Array("plain".utf8))
        XCTAssertTrue(eventually { delegate.received.last?.1 == .text(Array("plain".utf8)) })
    }

    func testABombIsDroppedAtTheLimitAndGarbageIsRefused() throws {
        let (server, delegate, port) = try startServer {
            $0.permessageDeflate = true
        }
        defer { server.shutdown(grace: 0.1) }
        let bomb = try deflateClient(port: port)
        bomb.send(first: 0xC2, payload: compress([UInt8](repeating: 0, count: 8 << 20)))
        XCTAssertEqual(bomb.readCloseCode(), 1009)
        XCTAssertEqual(delegate.exceeded.count, 1)
        // A bomb that ends its deflate stream (a final block) is dropped the same way.
        let ended = try deflateClient(port: port)
        ended.send(first: 0xC2, payload: compress([UInt8](repeating: 0, count: 8 << 20), ending: true))
        XCTAssertEqual(ended.readCloseCode(), 1009)
        let garbage = try deflateClient(port: port)
        garbage.send(first: 0xC1, payload: [0xFF, 0xFF, 0xFF, 0xFF, 0x00])
        XCTAssertEqual(garbage.readCloseCode(), 1007, "invalid deflate data")
        let invalidText = try deflateClient(port: port)
        invalidText.send(first: 0xC1, payload: compress([0x61, 0xC3, 0x28]))
        XCTAssertEqual(invalidText.readCloseCode(), 1007, "inflated text that is not UTF-8")
        XCTAssertTrue(delegate.received.isEmpty)
        // An honest client is served.
        let honest = try BlockingWebSocketClient.connect(port: port)
        honest.send(text: String(repeating: "fine ", count: 2000))
        XCTAssertEqual(try honest.receiveText(), String(repeating: "fine ", count: 2000))
        honest.close()
    }
}
