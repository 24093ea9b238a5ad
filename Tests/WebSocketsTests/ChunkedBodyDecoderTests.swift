import TestSupport
import XCTest
@testable import WebSockets

final class ChunkedBodyDecoderTests: XCTestCase {
    private func decode(_ coded: [UInt8], limit: Int = 1 << 20, pieces: Int = 1) -> (ChunkedBodyDecoder.Event, [UInt8]) {
        var decoder = ChunkedBodyDecoder(limit: limit)
        var body: [UInt8] = []
        var event = ChunkedBodyDecoder.Event.needMore
        let size = max(1, (coded.count + pieces - 1) / pieces)
        var offset = 0
        while offset < coded.count {
            let end = min(coded.count, offset + size)
            event = coded[offset..<end].withUnsafeBytes { decoder.feed($0, into: &body) }
            if case .needMore = event {} else {
                if case .complete(let consumed) = event { return (.complete(consumed: offset + consumed), body) }
                return (event, body)
            }
            offset = end
        }
        return (event, body)
    }

    func testDecodesInAnySplit() {
        let parts = [Array("hello, ".utf8), Array(repeating: UInt8(ascii: "x"), count: 300), Array("world".utf8)]
        let coded = chunkedBody(parts, trailers: ["X-Sum: 1", "X-Other: two"])
        for pieces in [1, 2, 7, coded.count] {
            let (event, body) = decode(coded + Array("GET / HTTP/1.1".utf8), pieces: pieces)
            XCTAssertEqual(event, .complete(consumed: coded.count), "\(pieces) pieces")
            XCTAssertEqual(body, parts.flatMap { $0 }, "\(pieces) pieces")
        }
    }

    func testExtensionsAndUpperCaseHex() {
        let coded = Array("A;name=value\r\n0123456789\r\n0\r\n\r\n".utf8)
        XCTAssertEqual(decode(coded).0, .complete(consumed: coded.count))
        XCTAssertEqual(decode(coded).1, Array("0123456789".utf8))
    }

    func testTheLimitIsEnforcedAsTheBodyCrossesIt() {
        let coded = chunkedBody([[UInt8](repeating: 1, count: 10), [UInt8](repeating: 2, count: 10)])
        XCTAssertEqual(decode(coded, limit: 20).0, .complete(consumed: coded.count))
        let (event, body) = decode(coded, limit: 19, pieces: coded.count)
        XCTAssertEqual(event, .tooLarge)
        XCTAssertEqual(body.count, 10, "nothing past the limit was kept")
        // A chunk announced past the limit is refused before its data; sizes cannot overflow.
        XCTAssertEqual(decode(Array("fffffff\r\n".utf8), limit: 1 << 20).0, .tooLarge)
        XCTAssertEqual(decode(Array("ffffffffffffffffffffffff\r\n".utf8), limit: Int.max).0, .malformed("chunk size too long"))
        XCTAssertEqual(decode(Array("00000000000000001\r\n".utf8)).0, .malformed("chunk size too long"))
    }

    func testMalformedCodingIsReported() {
        for bad in ["zz\r\n", "\r\n", "5\r\nhello!\r\n", "5\nhello\r\n", "5\r\nhello\r\n0\r\nX: y\n\r\n", "-1\r\n", ";x\r\n"] {
            guard case .malformed = decode(Array(bad.utf8)).0 else { return XCTFail("\(bad.debugDescription) accepted") }
        }
        XCTAssertEqual(decode(Array("5\r\nhel".utf8)).0, .needMore)
    }
}
