import XCTest
@testable import LoadTesting

/// The raw client's framing: headers of server frames read from partial input, frames a client
/// must refuse, and the masked frames it sends.
final class RawFramingTests: XCTestCase {
    private func parse(_ bytes: [UInt8], max: Int = 64 << 20) -> WebSocketFraming.Parsed {
        bytes.withUnsafeBytes { WebSocketFraming.parseHeader($0, maxPayload: max) }
    }

    /// A server frame header with `length` announced the shortest way.
    private func header(fin: Bool = true, opcode: UInt8 = 1, length: UInt64) -> [UInt8] {
        let first: UInt8 = (fin ? 0x80 : 0) | opcode
        if length < 126 { return [first, UInt8(length)] }
        if length <= 0xFFFF { return [first, 126, UInt8(length >> 8), UInt8(length & 0xFF)] }
        return [first, 127] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: length >> (8 * UInt64($0))) }
    }

    func testHeadersOfEveryLengthEncodingAreReadOnlyOnceComplete() {
        let cases: [(length: UInt64, headerLength: Int)] = [(0, 2), (1, 2), (125, 2), (126, 4), (65_535, 4), (65_536, 10), (1 << 32, 10)]
        for (length, headerLength) in cases {
            let bytes = header(length: length)
            XCTAssertEqual(bytes.count, headerLength)
            for cut in 0..<bytes.count {
                XCTAssertEqual(parse(Array(bytes.prefix(cut)), max: Int.max), .needMore, "length \(length) cut at \(cut)")
            }
            XCTAssertEqual(parse(bytes + [0x41], max: Int.max),
                           .header(.init(fin: true, opcode: 1, headerLength: headerLength, payloadLength: Int(length))), "length \(length)")
        }
        XCTAssertEqual(parse(header(fin: false, opcode: 0, length: 3)), .header(.init(fin: false, opcode: 0, headerLength: 2, payloadLength: 3)))
    }

    func testFramesAClientMustFailAreRefusedWithTheirCloseCode() {
        let cases: [(String, [UInt8], UInt16)] = [
            ("masked by the server", [0x81, 0x80 | 3, 1, 2, 3, 4], 1002),
            ("reserved bit", [0xC1, 0], 1002),
            ("unknown opcode 3", [0x83, 0], 1002),
            ("unknown opcode 0xB", [0x8B, 0], 1002),
            ("long ping", header(opcode: 9, length: 126), 1002),
            ("fragmented close", header(fin: false, opcode: 8, length: 2), 1002),
            ("length with the top bit", [0x81, 127, 0x80, 0, 0, 0, 0, 0, 0, 0], 1002),
            ("a 2^63 − 1 byte frame", [0x82, 127, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], 1009),
            ("over the message limit", header(length: 1_001), 1009),
        ]
        for (label, bytes, code) in cases {
            guard case .invalid(let got, _) = parse(bytes, max: 1_000) else { return XCTFail("\(label): not refused") }
            XCTAssertEqual(got, code, label)
        }
    }

    func testClientFramesAreMaskedAndAnnounceTheirLength() {
        for size in [0, 5, 125, 126, 65_535, 65_536, 100_000] {
            let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let frame = WebSocketFraming.clientFrame(opcode: WebSocketFraming.text, payload: payload, mask: 0xA1B2C3D4)
            XCTAssertEqual(frame[0], 0x81)
            XCTAssertEqual(frame[1] & 0x80, 0x80, "size \(size): the mask bit")
            var length = Int(frame[1] & 0x7F), at = 2
            if length == 126 { length = Int(frame[2]) << 8 | Int(frame[3]); at = 4 }
            else if length == 127 { length = frame[2..<10].reduce(0) { $0 << 8 | Int($1) }; at = 10 }
            XCTAssertEqual(length, size)
            XCTAssertEqual(Array(frame[at..<(at + 4)]), [0xA1, 0xB2, 0xC3, 0xD4])
            let unmasked = frame[(at + 4)...].enumerated().map { $0.element ^ frame[at + ($0.offset & 3)] }
            XCTAssertEqual(unmasked, payload, "size \(size)")
        }
    }

    func testClosePayloadsCarryTheCodeInNetworkOrder() {
        XCTAssertEqual(WebSocketFraming.closePayload(code: 1001), [0x03, 0xE9])
        XCTAssertEqual(WebSocketFraming.closePayload(code: nil), [])
        XCTAssertEqual(WebSocketFraming.closePayload(code: 1002, reason: String(repeating: "x", count: 300)).count, 125)
        XCTAssertEqual([UInt8]([0x03, 0xE9]).withUnsafeBytes { WebSocketFraming.closeCode($0) }, 1001)
        XCTAssertNil([UInt8]([0x03]).withUnsafeBytes { WebSocketFraming.closeCode($0) })
    }

    func testTheAcceptValueIsRFC6455s() {
        // RFC 6455 § 1.3's example.
        XCTAssertEqual(RawWebSocketHandshake.accept(for: "dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    func testTheHandshakeAnswerIsChecked() {
        let handshake = RawWebSocketHandshake(key: "dGhlIHNhbXBsZSBub25jZQ==")
        func answer(_ lines: [String]) -> [UInt8] { Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) }
        let good = ["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade",
                    "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", "Sec-WebSocket-Protocol: chartcast.v1"]
        func check(_ bytes: [UInt8], subprotocol: String? = "chartcast.v1") -> RawWebSocketHandshake.Outcome {
            bytes.withUnsafeBytes { handshake.check($0, subprotocol: subprotocol) }
        }
        let head = answer(good)
        XCTAssertEqual(check(head + [0x81, 0]), .accepted(headLength: head.count), "frames may follow the head in the same read")
        XCTAssertEqual(check(Array(head.dropLast(1))), .needMore)
        let refusals: [(String, [String])] = [
            ("404", ["HTTP/1.1 404 Not Found", "Content-Length: 0"]),
            ("wrong accept", good.map { $0.hasPrefix("Sec-WebSocket-Accept") ? "Sec-WebSocket-Accept: AAAA" : $0 }),
            ("no upgrade", good.filter { !$0.hasPrefix("Upgrade") }),
            ("another subprotocol", good.map { $0.hasPrefix("Sec-WebSocket-Protocol") ? "Sec-WebSocket-Protocol: other" : $0 }),
            ("an extension not offered", good + ["Sec-WebSocket-Extensions: permessage-deflate"]),
            ("not HTTP", ["SSH-2.0-OpenSSH"]),
        ]
        for (label, lines) in refusals {
            guard case .refused = check(answer(lines)) else { return XCTFail("\(label): accepted") }
        }
        XCTAssertEqual(check(answer(good.filter { !$0.hasPrefix("Sec-WebSocket-Protocol") }), subprotocol: nil),
                       .accepted(headLength: answer(good.filter { !$0.hasPrefix("Sec-WebSocket-Protocol") }).count))
        guard case .refused = check([UInt8](repeating: 0x41, count: RawWebSocketHandshake.maxHeadBytes + 1)) else {
            return XCTFail("an endless head is refused")
        }
        let request = String(decoding: handshake.request(host: "127.0.0.1", port: 8080, path: "/ws", subprotocol: "chartcast.v1", origin: nil), as: UTF8.self)
        XCTAssertTrue(request.hasPrefix("GET /ws HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"))
        XCTAssertTrue(request.contains("\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"))
        XCTAssertTrue(request.hasSuffix("Sec-WebSocket-Protocol: chartcast.v1\r\n\r\n"))
    }
}
