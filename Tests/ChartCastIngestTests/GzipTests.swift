import XCTest
@testable import ChartCastIngest

final class GzipTests: XCTestCase {
    func testInflateUndoesCompress() throws {
        let text = bytes(String(repeating: "cpu,host=a user=12.5 1733011200000000000\n", count: 5_000))
        let compressed = Gzip.compress(text)
        XCTAssertEqual(Array(compressed.prefix(2)), [0x1F, 0x8B])
        XCTAssertLessThan(compressed.count, text.count / 20)
        XCTAssertEqual(try Gzip.inflate(compressed), text)
        XCTAssertEqual(try Gzip.inflate(Gzip.compress([])), [])
    }

    func testMembersBackToBackInflateToTheirConcatenation() throws {
        let body = Gzip.compress(bytes("cpu a=1 1\n")) + Gzip.compress(bytes("cpu a=2 2\n"), level: 1)
        XCTAssertEqual(try Gzip.inflate(body), bytes("cpu a=1 1\ncpu a=2 2\n"))
    }

    func testAGzipBombIsStoppedWhileInflating() throws {
        // 65 MiB of zeros streamed through the compressor: a body of about 65 KB.
        let writer = try XCTUnwrap(GzipWriter(level: 9))
        let megabyte = [UInt8](repeating: 0, count: 1 << 20)
        for _ in 0..<65 { writer.write(megabyte) }
        let bomb = writer.finish()
        XCTAssertLessThan(bomb.count, 200_000)
        assertIngestError(ExpectedError(code: .tooLarge, line: nil, contains: "inflates to more than 64 MiB")) {
            try Gzip.inflate(bomb)
        }
        // A smaller limit stops it sooner; exactly the limit is fine.
        let small = Gzip.compress([UInt8](repeating: 7, count: 100_000))
        assertIngestError(ExpectedError(code: .tooLarge, line: nil, contains: "more than 99,999 bytes")) {
            try Gzip.inflate(small, limit: 99_999)
        }
        XCTAssertEqual(try Gzip.inflate(small, limit: 100_000).count, 100_000)
    }

    func testCorruptTruncatedOrTrailingBytesAreBadRequest() {
        let good = Gzip.compress(bytes(String(repeating: "m v=1 1\n", count: 100)))
        var corrupt = good
        corrupt[corrupt.count / 2] ^= 0xFF
        var badCRC = good
        badCRC[badCRC.count - 6] ^= 0x01
        let cases: [([UInt8], String)] = [
            ([], "the body is empty"),
            (bytes("cpu user=1"), "gzip: incorrect header check"),
            (corrupt, "gzip:"),
            (badCRC, "gzip: incorrect data check"),
            (Array(good.prefix(good.count - 4)), "ends inside a compressed stream"),
            (Array(good.prefix(5)), "ends inside a compressed stream"),
            (good + bytes("junk"), "gzip: incorrect header check"),
        ]
        for (body, message) in cases {
            assertIngestError(ExpectedError(code: .badRequest, line: nil, contains: message), message) {
                try Gzip.inflate(body)
            }
        }
    }
}
