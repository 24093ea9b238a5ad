import XCTest
@testable import ChartCastIngest

final class JSONRowsTests: XCTestCase {
    func testRowsParseSeriesInFirstSeenOrderWithNumberAndStringX() throws {
        let batch = try JSONPointsParser.parse(bytes("""
            {"points":[{"series":"user","x":1733011200000,"y":12.5},
                       {"series":"system","x":"2024-12-01T00:00:00Z","y":-3},
                       {"series":"user","x":1733011201000,"y":1e2}]}
            """))
        XCTAssertEqual(batch.source, .jsonRows)
        XCTAssertEqual(batch.series, ["user", "system"])
        XCTAssertEqual(batch.count, 3)
        XCTAssertEqual(batch[0], BatchPoint(series: 0, x: .number(1_733_011_200_000), y: 12.5,
                                            origin: PointOrigin(line: 1, xLine: 1, index: 0)))
        XCTAssertEqual(batch[1].x, .string("2024-12-01T00:00:00Z"))
        XCTAssertEqual(batch[1].origin, PointOrigin(line: 2, xLine: 2, index: 1))
        XCTAssertEqual(batch[2].y, 100)
        XCTAssertEqual(batch[2].origin.index, 2)
    }

    func testNullYIsSkippedNotCountedAndAddsNoSeries() throws {
        let batch = try JSONPointsParser.parse(bytes("""
            {"points":[{"series":"ghost","x":"Mon","y":null},{"series":"user","x":"Tue","y":4}]}
            """))
        XCTAssertEqual(batch.series, ["user"])
        XCTAssertEqual(batch.count, 1)
        XCTAssertEqual(batch[0].x, .string("Tue"))
        XCTAssertEqual(batch[0].origin.index, 1)
    }

    func testUnknownMembersAtAnyLevelAreCheckedAndIgnored() throws {
        let batch = try JSONPointsParser.parse(bytes("""
            {"v":[1,{"a":[true,false,null,"s\\u00e9"]}],"points":[{"note":{"k":[]},"y":2,"x":5,"series":"a","z":-0.5e-3}],"tail":{}}
            """))
        XCTAssertEqual(batch.count, 1)
        XCTAssertEqual(batch[0], BatchPoint(series: 0, x: .number(5), y: 2, origin: PointOrigin(line: 1, xLine: 1, index: 0)))
    }

    func testEscapedNamesAndMembersAreDecoded() throws {
        let batch = try JSONPointsParser.parse(bytes(#"{"p\u006fints":[{"series":"us\u00e9r \"1\"","x":"Mon\/Tue","y":1}]}"#))
        XCTAssertEqual(batch.series, ["usér \"1\""])
        XCTAssertEqual(batch[0].x, .string("Mon/Tue"))
    }

    func testEmptyPointsIsAnEmptyBatch() throws {
        XCTAssertEqual(try JSONPointsParser.parse(bytes(#" {"points":[]} "#)).count, 0)
    }

    func testMalformedJSONIsBadRequestWithTheLineOfTheOffendingCharacter() {
        let cases: [(String, Int, String)] = [
            ("", 1, "empty"),
            ("[]", 1, "must be a JSON object"),
            ("{\"points\":[{\"series\":\"a\",\"x\":1,\"y\":1},]}", 1, "unexpected character ']'"),
            ("{\"points\":[\n{\"series\":\"a\",\n\"x\":01,\"y\":1}]}", 3, "expected ',' or '}'"),
            ("{\"points\":[{\"series\":\"a\" \"x\":1}]}", 1, "expected ',' or '}'"),
            ("{\"points\":[]}\n\n{}", 3, "unexpected data after the JSON object"),
            ("{\"points\":[{\"series\":\"a\",\"x\":1,\"y\":1.}]}", 1, "invalid number"),
            ("{\"points\":[{\"series\":\"a\nb\",\"x\":1,\"y\":1}]}", 1, "control character"),
            ("{\"points\":[{\"series\":\"a\",\"x\":\"\\x\",\"y\":1}]}", 1, "invalid escape"),
            ("{\"points\":[{\"series\":\"\\ud800\",\"x\":1,\"y\":1}]}", 1, "unpaired surrogate"),
            ("{\"points\":[{\"series\":\"a\",\"x\":1,\"y\":tru}]}", 1, "invalid literal"),
            ("{\"points\":[{\"series\":\"a\",\"x\":1,\"y\":1}]", 1, "unexpected end of the body"),
            ("{\n\"points\": [\n  {\"series\": \"a\", \"x\": 1, \"y\": 1}\n", 4, "unexpected end of the body"),
            ("{\"points\":[{\"series\":\"a\",\"x\":1,\"y\":1}]}\n,", 2, "unexpected data"),
            ("{\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}", 1, "nesting deeper than 32"),
            ("{\"points\":[],\"points\":[]}", 1, "\"points\" appears twice"),
            ("{\"points\":[],\"x\":[]}", 1, "either \"points\" or \"x\" and \"series\""),
            ("{\"data\":[]}", 1, "expected \"points\" or \"x\" and \"series\""),
            ("{\"points\":{}}", 1, "\"points\" must be an array, got an object"),
            ("{\"points\":[{\"series\":\"a\",\"x\":1,\"y\":1,\"y\":2}]}", 1, "has \"y\" twice"),
        ]
        for (text, line, message) in cases {
            assertIngestError(ExpectedError(code: .badRequest, line: line, contains: message), text) {
                try JSONPointsParser.parse(bytes(text))
            }
        }
    }

    func testInvalidUTF8IsBadRequest() {
        var body = bytes(#"{"points":[{"series":"a"#)
        body += [0xC3, 0x28]  // a lead byte without its continuation
        body += bytes(#"","x":1,"y":1}]}"#)
        assertIngestError(ExpectedError(code: .badRequest, line: 1, contains: "not valid UTF-8")) {
            try JSONPointsParser.parse(body)
        }
        assertIngestError(ExpectedError(code: .badRequest, line: 1, contains: "byte 0xFF")) {
            try JSONPointsParser.parse([0x7B, 0xFF, 0x7D])
        }
    }

    func testWrongPointsAreBadPointWithLineAndIndex() {
        let cases: [(String, Int, Int, String)] = [
            (#"{"points":[{"series":"a","x":1,"y":"12"}]}"#, 1, 0, #"points[0].y must be a number or null, got a string"#),
            ("{\"points\":[\n{\"series\":\"a\",\"x\":1,\"y\":1},\n{\"series\":\"a\",\"x\":2,\n\"y\":NaN}]}", 4, 1,
             "points[1].y is not finite (NaN)"),
            (#"{"points":[{"series":"a","x":1,"y":Infinity}]}"#, 1, 0, "is not finite (Infinity)"),
            (#"{"points":[{"series":"a","x":1,"y":-Infinity}]}"#, 1, 0, "is not finite (-Infinity)"),
            (#"{"points":[{"series":"a","x":1,"y":1e999}]}"#, 1, 0, "points[0].y is not finite (too large for a double)"),
            (#"{"points":[{"series":"a","x":-1e400,"y":1}]}"#, 1, 0, "points[0].x is not finite"),
            (#"{"points":[{"series":"a","x":null,"y":1}]}"#, 1, 0, "points[0].x must be a number or a string, got null"),
            (#"{"points":[{"series":"a","x":[1],"y":1}]}"#, 1, 0, "got an array"),
            (#"{"points":[{"series":7,"x":1,"y":1}]}"#, 1, 0, "points[0].series must be a string, got a number"),
            (#"{"points":[{"series":"","x":1,"y":1}]}"#, 1, 0, "points[0].series is empty"),
            (#"{"points":[{"x":1,"y":1}]}"#, 1, 0, #"points[0] has no "series""#),
            (#"{"points":[{"series":"a","y":1}]}"#, 1, 0, #"points[0] has no "x""#),
            (#"{"points":[{"series":"a","x":1}]}"#, 1, 0, #"points[0] has no "y""#),
            (#"{"points":[{"series":"a","x":1,"y":1},true]}"#, 1, 1, "points[1] must be an object, got a boolean"),
        ]
        for (text, line, index, message) in cases {
            assertIngestError(ExpectedError(code: .badPoint, line: line, index: index, contains: message), text) {
                try JSONPointsParser.parse(bytes(text))
            }
        }
    }

    func testSeriesNamesLongerThanTheLimitAreBadPoint() {
        let name = String(repeating: "s", count: 257)
        assertIngestError(ExpectedError(code: .badPoint, line: 1, index: 0, contains: "longer than 256 bytes")) {
            try JSONPointsParser.parse(bytes(#"{"points":[{"series":"\#(name)","x":1,"y":1}]}"#))
        }
    }

    func testMorePointsThanTheLimitStopAtTheFirstPointOver() {
        let body = "{\"points\":[\n" + (0..<100).map { #"{"series":"a","x":\#($0),"y":1}"# }.joined(separator: ",\n") + "]}"
        var limits = IngestLimits.standard
        limits.maxPoints = 10
        // The 11th point is on line 12: the parse stops there instead of reading the other 89.
        assertIngestError(ExpectedError(code: .tooLarge, line: 12, contains: "more than 10 points")) {
            try JSONPointsParser.parse(bytes(body), limits: limits)
        }
        limits.maxPoints = 100
        XCTAssertEqual(try JSONPointsParser.parse(bytes(body), limits: limits).count, 100)
    }

    func testNullsDoNotCountTowardsThePointLimit() throws {
        var limits = IngestLimits.standard
        limits.maxPoints = 1
        let body = #"{"points":[{"series":"a","x":1,"y":null},{"series":"a","x":2,"y":null},{"series":"a","x":3,"y":3}]}"#
        XCTAssertEqual(try JSONPointsParser.parse(bytes(body), limits: limits).count, 1)
    }
}
