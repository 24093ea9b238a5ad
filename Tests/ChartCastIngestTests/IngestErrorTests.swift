import XCTest
@testable import ChartCastIngest

final class IngestErrorTests: XCTestCase {
    func testTheHTTPBodyIsTheBriefsShape() {
        let error = IngestError(.badPoint, #"field "user" is not a number"#, line: 3)
        XCTAssertEqual(error.message, #"line 3: field "user" is not a number"#)
        XCTAssertEqual(String(decoding: error.httpBody(), as: UTF8.self),
                       #"{"error":{"code":"bad_point","message":"line 3: field \"user\" is not a number","line":3}}"#)
        XCTAssertEqual(error.httpStatus, 400)
    }

    func testIndexIsIncludedWhenKnownAndLineOmittedWhenNot() {
        let point = IngestError(.badPoint, "points[2].y is not finite (NaN)", line: 4, index: 2)
        XCTAssertEqual(String(decoding: point.httpBody(), as: UTF8.self),
                       #"{"error":{"code":"bad_point","message":"line 4: points[2].y is not finite (NaN)","line":4,"index":2}}"#)
        let large = IngestError(.tooLarge, "the gzip body inflates to more than 64 MiB")
        XCTAssertEqual(String(decoding: large.httpBody(), as: UTF8.self),
                       #"{"error":{"code":"too_large","message":"the gzip body inflates to more than 64 MiB"}}"#)
        XCTAssertEqual(large.httpStatus, 413)
        XCTAssertEqual(IngestError.Code.allCases.map(\.rawValue), ["bad_request", "bad_point", "too_large"])
    }

    func testQuotedInputIsShortAndPrintable() {
        XCTAssertEqual(Quote.string("a\"b\\c\n\u{1}"), #""a\"b\\c\n\u{1}""#)
        XCTAssertEqual(Quote.string(String(repeating: "x", count: 40), limit: 4), "\"xxxx…\"")
        XCTAssertEqual(Quote.bytes([0x61, 0xFF]), "\"a\u{FFFD}\"")
    }
}
