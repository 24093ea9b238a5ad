import XCTest
@testable import ChartCastIngest

final class CSVTests: XCTestCase {
    func testHeaderThenRowsWithEmptyCellsMissing() throws {
        let batch = try CSVPointsParser.parse(bytes("x,user,system\n1733011200000,12.5,3\n1733011201000,,4\n"))
        XCTAssertEqual(batch.source, .csv)
        XCTAssertEqual(batch.series, ["user", "system"])
        let points = triples(batch)
        XCTAssertEqual(points.map(\.0), ["user", "system", "system"])
        XCTAssertEqual(points.map(\.1), [.cell("1733011200000"), .cell("1733011200000"), .cell("1733011201000")])
        XCTAssertEqual(points.map(\.2), [12.5, 3, 4])
        XCTAssertEqual(batch[2].origin, PointOrigin(line: 3, xLine: 3, index: 1))
    }

    func testQuotedCellsDoubledQuotesCRLFAndByteOrderMark() throws {
        let body = [0xEF, 0xBB, 0xBF] + bytes("time,\"cpu, \"\"user\"\"\"\r\n\"Mon\",\" 1.5 \"\r\n\"Tue\",-2e1\r\n")
        let batch = try CSVPointsParser.parse(body)
        XCTAssertEqual(batch.series, [#"cpu, "user""#])
        XCTAssertEqual(triples(batch).map(\.1), [.cell("Mon"), .cell("Tue")])
        XCTAssertEqual(triples(batch).map(\.2), [1.5, -20])
        XCTAssertEqual(batch[1].origin.line, 3)
    }

    func testQuotedNewlinesCountForLineNumbers() throws {
        let body = "x,\"a\nb\"\n\"Mon\ntag\",1\nTue,oops\n"
        // Header: lines 1–2; the first row: lines 3–4; the bad row starts on line 5.
        assertIngestError(ExpectedError(code: .badPoint, line: 5, index: 1, contains: #"column "a\nb" is not a number ("oops")"#)) {
            try CSVPointsParser.parse(bytes(body))
        }
        let good = try CSVPointsParser.parse(bytes("x,\"a\nb\"\n\"Mon\ntag\",1\nTue,2"))
        XCTAssertEqual(good[0].x, .cell("Mon\ntag"))
        XCTAssertEqual(good[1].origin.line, 5)
    }

    func testEmptyLinesAreSkippedAndNoTrailingNewlineIsFine() throws {
        let batch = try CSVPointsParser.parse(bytes("\nx,a\n\n1,1\n\n2,2"))
        XCTAssertEqual(triples(batch).map(\.2), [1, 2])
        XCTAssertEqual(batch[1].origin.line, 6)
        XCTAssertEqual(try CSVPointsParser.parse(bytes("x,a\n")).count, 0)
    }

    func testWrongCellCountsAreBadRequestNamingTheLine() {
        let cases: [(String, Int, String)] = [
            ("x,a,b\n1,1,1\n2,2\n", 3, "row has 2 cells, the header has 3"),
            ("x,a,b\n1,1,1\n2,2,2,2\n", 3, "more cells than the header's 3"),
            ("x,a\n1\n", 2, "row has 1 cell, the header has 2"),
        ]
        for (text, line, message) in cases {
            assertIngestError(ExpectedError(code: .badRequest, line: line, contains: message), text) {
                try CSVPointsParser.parse(bytes(text))
            }
        }
    }

    func testMalformedCSVIsBadRequest() {
        let cases: [(String, Int, String)] = [
            ("", 1, "the body is empty"),
            ("x\n1\n", 1, "the header names no series"),
            ("x,a,\n", 1, "header cell 3 is empty"),
            ("x,a,a\n", 1, #"series "a" appears twice"#),
            ("x,a\n1,2\n\"3,4\n", 3, "a quoted cell is not closed"),
            ("x,a\n1,2\"\n", 2, "a quote inside an unquoted cell"),
            ("x,a\n\"1\"2,2\n", 2, "unexpected character '2' after a closing quote"),
            ("x,a\r1,2\n", 1, "a carriage return not followed by a line feed"),
        ]
        for (text, line, message) in cases {
            assertIngestError(ExpectedError(code: .badRequest, line: line, contains: message), text) {
                try CSVPointsParser.parse(bytes(text))
            }
        }
        assertIngestError(ExpectedError(code: .badRequest, line: 2, contains: "x is not valid UTF-8")) {
            try CSVPointsParser.parse(bytes("x,a\n") + [0xFF] + bytes(",1\n"))
        }
    }

    func testBadValuesAreBadPointWithTheDataRowIndex() {
        let cases: [(String, Int, Int, String)] = [
            ("x,user\n1,1\n2,abc\n", 3, 1, #"column "user" is not a number ("abc")"#),
            ("x,user\n1,NaN\n", 2, 0, #"column "user" is not finite ("NaN")"#),
            ("x,user\n1,-inf\n", 2, 0, "is not finite"),
            ("x,user\n1,Infinity\n", 2, 0, "is not finite"),
            ("x,user\n1,1e400\n", 2, 0, #"is not finite ("1e400")"#),
            ("x,user\n,1\n", 2, 0, "x is empty"),
        ]
        for (text, line, index, message) in cases {
            assertIngestError(ExpectedError(code: .badPoint, line: line, index: index, contains: message), text) {
                try CSVPointsParser.parse(bytes(text))
            }
        }
    }

    func testMorePointsThanTheLimitStopAtTheFirstPointOver() {
        var limits = IngestLimits.standard
        limits.maxPoints = 5
        let body = "x,a,b\n" + (0..<50).map { "\($0),1,2" }.joined(separator: "\n")
        assertIngestError(ExpectedError(code: .tooLarge, line: 4, contains: "more than 5 points")) {
            try CSVPointsParser.parse(bytes(body), limits: limits)
        }
    }

    func testMoreThanAMillionPointsIsTooLarge() {
        // The standard limit itself: 1,000,001 values, refused at the last one's line.
        let body = bytes("x,a\n") + Array([[UInt8]](repeating: bytes("7,1\n"), count: 1_000_001).joined())
        assertIngestError(ExpectedError(code: .tooLarge, line: 1_000_002, contains: "more than 1,000,000 points")) {
            try CSVPointsParser.parse(body)
        }
    }
}
