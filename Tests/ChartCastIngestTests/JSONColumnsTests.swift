import XCTest
@testable import ChartCastIngest

final class JSONColumnsTests: XCTestCase {
    func testColumnsBecomePointsPositionByPosition() throws {
        let batch = try JSONPointsParser.parse(bytes("""
            {"x":[1,2,3],
             "series":{"user":[10,null,30],
                       "system":[1,2,3]}}
            """))
        XCTAssertEqual(batch.source, .jsonColumns)
        XCTAssertEqual(batch.series, ["user", "system"])
        XCTAssertEqual(batch.count, 5)
        let points = triples(batch)
        XCTAssertEqual(points.map(\.0), ["user", "system", "system", "user", "system"])
        XCTAssertEqual(points.map(\.1), [.number(1), .number(1), .number(2), .number(3), .number(3)])
        XCTAssertEqual(points.map(\.2), [10, 1, 2, 30, 3])
        // The value's line and the x's line are kept apart.
        XCTAssertEqual(batch[1].origin, PointOrigin(line: 3, xLine: 1, index: 0))
        XCTAssertEqual(batch[0].origin, PointOrigin(line: 2, xLine: 1, index: 0))
    }

    func testSeriesBeforeXWorkToo() throws {
        let batch = try JSONPointsParser.parse(bytes(#"{"series":{"a":[5,6]},"x":["Mon","Tue"]}"#))
        XCTAssertEqual(triples(batch).map(\.1), [.string("Mon"), .string("Tue")])
        XCTAssertEqual(triples(batch).map(\.2), [5, 6])
    }

    func testAllNullSeriesAddsNothing() throws {
        let batch = try JSONPointsParser.parse(bytes(#"{"x":[1],"series":{"quiet":[null],"loud":[1]}}"#))
        XCTAssertEqual(batch.series, ["loud"])
    }

    func testMismatchedLengthsAreBadRequestNamingTheSeriesAndBothLengths() {
        let cases: [(String, Int, String)] = [
            ("{\"x\":[1,2,3],\n\"series\":{\"user\":[1,2,3],\n\"system\":[1,2]}}", 3, #"series "system" has 2 values but "x" has 3"#),
            ("{\"x\":[1],\"series\":{\"user\":[1,\n2]}}", 2, #"series "user" has 2 values but "x" has 1"#),
            ("{\"series\":{\"user\":[1,2]\n},\n\"x\":[1,2,3]}", 1, #"series "user" has 2 values but "x" has 3"#),
            (#"{"x":[],"series":{"a":[null]}}"#, 1, #"series "a" has 1 value but "x" has 0"#),
        ]
        for (text, line, message) in cases {
            assertIngestError(ExpectedError(code: .badRequest, line: line, contains: message), text) {
                try JSONPointsParser.parse(bytes(text))
            }
        }
    }

    func testShapeErrorsAreBadRequest() {
        let cases: [(String, String)] = [
            (#"{"x":[1]}"#, #""x" without "series""#),
            (#"{"series":{}}"#, #""series" without "x""#),
            (#"{"x":{},"series":{}}"#, #""x" must be an array, got an object"#),
            (#"{"x":[],"series":[]}"#, #""series" must be an object, got an array"#),
            (#"{"x":[1],"series":{"a":1}}"#, #"series "a" must be an array, got a number"#),
            (#"{"x":[1],"series":{"a":[1],"a":[2]}}"#, #"series "a" appears twice"#),
            (#"{"x":[1],"series":{"a":[null],"a":[null]}}"#, #"series "a" appears twice"#),
            (#"{"x":[1],"x":[1],"series":{}}"#, #""x" appears twice"#),
        ]
        for (text, message) in cases {
            assertIngestError(ExpectedError(code: .badRequest, line: 1, contains: message), text) {
                try JSONPointsParser.parse(bytes(text))
            }
        }
    }

    func testWrongColumnElementsAreBadPointWithTheirPosition() {
        let cases: [(String, Int, Int, String)] = [
            ("{\"x\":[1,2],\"series\":{\"user\":[1,\n\"2\"]}}", 2, 1, #"series "user"[1] must be a number or null, got a string"#),
            (#"{"x":[1,2],"series":{"user":[1,NaN]}}"#, 1, 1, #"series "user"[1] is not finite (NaN)"#),
            (#"{"x":[1,2],"series":{"user":[1e400,1]}}"#, 1, 0, "is not finite"),
            (#"{"x":[1,true],"series":{"user":[1,1]}}"#, 1, 1, "x[1] must be a number or a string, got a boolean"),
            (#"{"x":[1,Infinity],"series":{"user":[1,1]}}"#, 1, 1, "x[1] is not finite (Infinity)"),
        ]
        for (text, line, index, message) in cases {
            assertIngestError(ExpectedError(code: .badPoint, line: line, index: index, contains: message), text) {
                try JSONPointsParser.parse(bytes(text))
            }
        }
    }

    func testColumnLimitsStopEarly() {
        var limits = IngestLimits.standard
        limits.maxColumnLength = 3
        assertIngestError(ExpectedError(code: .tooLarge, line: 1, contains: #""x" has more than 3 values"#)) {
            try JSONPointsParser.parse(bytes(#"{"x":[1,2,3,4,5],"series":{}}"#), limits: limits)
        }
        assertIngestError(ExpectedError(code: .tooLarge, line: 1, contains: #"series "a" has more than 3 values"#)) {
            try JSONPointsParser.parse(bytes(#"{"series":{"a":[null,null,null,null]},"x":[]}"#), limits: limits)
        }
        limits = .standard
        limits.maxPoints = 3
        assertIngestError(ExpectedError(code: .tooLarge, line: 2, contains: "more than 3 points")) {
            try JSONPointsParser.parse(bytes("{\"x\":[1,2],\"series\":{\"a\":[1,2],\n\"b\":[1,2]}}"), limits: limits)
        }
    }
}
