import XCTest
@testable import ChartCastIngest

final class LineProtocolTests: XCTestCase {
    private func parse(_ text: String, precision: LineProtocolPrecision = .nanoseconds,
                       receivedAt: Double = 42, limits: IngestLimits = .standard) throws -> LineProtocolWrite {
        try LineProtocolParser.parse(bytes(text), precision: precision, receivedAt: receivedAt, limits: limits)
    }

    func testFieldsBecomeSeriesOfTheMeasurementsChart() throws {
        let write = try parse("cpu user=12.5,system=3i 1733011200000000000\ncpu user=13 1733011201000000000\n")
        XCTAssertEqual(write.charts.map(\.chart), ["cpu"])
        XCTAssertEqual(write.pointCount, 3)
        let batch = write.charts[0].points
        XCTAssertEqual(batch.source, .lineProtocol)
        XCTAssertEqual(batch.series, ["user", "system"])
        XCTAssertEqual(batch[0], BatchPoint(series: 0, x: .number(1_733_011_200_000), y: 12.5,
                                            origin: PointOrigin(line: 1, xLine: 1, index: nil)))
        XCTAssertEqual(batch[1].y, 3)
        XCTAssertEqual(batch[2].x, .number(1_733_011_201_000))
        XCTAssertEqual(batch[2].origin.line, 2)
    }

    func testTagsNameTheSeriesSortedByKey() throws {
        let write = try parse("cpu,region=eu,host=a usage=1 0\ncpu,host=b usage=2 0\ncpu usage=3 0")
        XCTAssertEqual(write.charts[0].points.series, ["usage{host=a,region=eu}", "usage{host=b}", "usage"])
    }

    func testSeveralMeasurementsGroupByChartInFirstSeenOrder() throws {
        let write = try parse("mem used=1 1\ncpu user=2 2\nmem used=3 3\n")
        XCTAssertEqual(write.charts.map(\.chart), ["mem", "cpu"])
        XCTAssertEqual(triples(write.charts[0].points).map(\.2), [1, 3])
        XCTAssertEqual(write.charts[0].points[1].origin.line, 3)
        XCTAssertEqual(write.charts[1].points.count, 1)
    }

    func testEscapesFollowTheInfluxRules() throws {
        // Measurement: comma and space. Tag keys/values, field keys: comma, equals sign, space.
        // Two backslashes are one; a backslash before anything else is itself.
        let write = try parse(#"disk,path=C:\\Program\ Files,mo\=de=r\,w fr\ ee\=k=1,a\b=2 0"#)
        XCTAssertEqual(write.charts.map(\.chart), ["disk"])
        XCTAssertEqual(write.charts[0].points.series,
                       [#"fr ee=k{mo=de=r,w,path=C:\Program Files}"#, #"a\b{mo=de=r,w,path=C:\Program Files}"#])
    }

    func testEscapedCommaAndSpaceInTheMeasurementAreRefusedAsChartIDs() {
        assertIngestError(ExpectedError(code: .badPoint, line: 1, contains: #"measurement "my cpu" is not a valid chart id"#)) {
            try parse(#"my\ cpu user=1"#)
        }
        assertIngestError(ExpectedError(code: .badPoint, line: 1, contains: #"measurement "a,b""#)) {
            try parse(#"a\,b user=1"#)
        }
    }

    func testCommentsBlankLinesCRLFAndTrailingSpacesAreSkipped() throws {
        let write = try parse("# comment\n\n   \r\n  # indented comment\ncpu user=1 5000000 \r\n\ncpu user=2\t\n")
        XCTAssertEqual(triples(write.charts[0].points).map(\.2), [1, 2])
        XCTAssertEqual(write.charts[0].points[0].origin.line, 5)
        XCTAssertEqual(write.charts[0].points[1].origin.line, 7)
        XCTAssertEqual(write.charts[0].points[1].x, .number(42))
    }

    func testNumberForms() throws {
        let write = try parse("m a=1,b=-1.5,c=.5,d=1e+3,e=-1.234456e+78,f=-12i,g=12u,h=9223372036854775807i,i=18446744073709551615u,j=1. 0")
        XCTAssertEqual(triples(write.charts[0].points).map(\.2),
                       [1, -1.5, 0.5, 1000, -1.234456e+78, -12, 12, 0x1p63, 0x1p64, 1])
    }

    func testPrecisionConvertsTimestampsToEpochMilliseconds() throws {
        let cases: [(LineProtocolPrecision, String, Double)] = [
            (.nanoseconds, "1733011200123456789", 1_733_011_200_123.456_789),
            (.microseconds, "1733011200123456", 1_733_011_200_123.456),
            (.milliseconds, "1733011200123", 1_733_011_200_123),
            (.seconds, "1733011200", 1_733_011_200_000),
            (.nanoseconds, "-1500000", -1.5),
            (.nanoseconds, "9223372036854775807", 9_223_372_036_854.775_807),
            (.seconds, "-9223372036854775808", -9.223372036854775808e21),
        ]
        for (precision, timestamp, expected) in cases {
            let write = try parse("m v=1 \(timestamp)", precision: precision)
            XCTAssertEqual(write.charts[0].points[0].x, .number(expected), "\(precision) \(timestamp)")
        }
        XCTAssertEqual(try LineProtocolPrecision.parse(query: nil), .nanoseconds)
        XCTAssertEqual(try LineProtocolPrecision.parse(query: "us"), .microseconds)
        assertIngestError(ExpectedError(code: .badRequest, line: nil, contains: "not one of ns, us, ms, s")) {
            try LineProtocolPrecision.parse(query: "h")
        }
    }

    func testStringsAndBooleansAreBadPointNamingTheField() {
        for value in [#""12""#, #""a \" b""#, "t", "T", "true", "True", "TRUE", "f", "F", "false", "False", "FALSE"] {
            assertIngestError(ExpectedError(code: .badPoint, line: 3, contains: #"line 3: field "user" is not a number"#), value) {
                try parse("cpu system=1 0\n\ncpu,host=a system=2,user=\(value) 0\n")
            }
        }
    }

    func testNonFiniteAndOutOfRangeValuesAreBadPoint() {
        let cases: [(String, String)] = [
            ("m v=1e400", #"field "v" is not finite ("1e400")"#),
            ("m v=9223372036854775808i", #"field "v" is out of range for a 64-bit integer"#),
            ("m v=-1u", #"field "v" has an invalid value"#),
            ("m v=18446744073709551616u", "out of range"),
        ]
        for (text, message) in cases {
            let code: IngestError.Code = message.contains("invalid value") ? .badRequest : .badPoint
            assertIngestError(ExpectedError(code: code, line: 1, contains: message), text) { try parse(text) }
        }
    }

    func testMalformedLinesAreBadRequestNamingTheLine() {
        let cases: [(String, Int, String)] = [
            ("cpu\n", 1, "no fields"),
            ("cpu user=1\ncpu", 2, "no fields"),
            ("cpu user", 1, #"field "user" has no '=' and no value"#),
            ("cpu user=", 1, #"field "user" has no value"#),
            ("cpu =1", 1, "a field has an empty key"),
            ("cpu user=abc", 1, #"field "user" has an invalid value "abc""#),
            ("cpu user=NaN", 1, "invalid value"),
            ("cpu user=1 12x", 1, "where the line should end"),
            ("cpu user=1 x", 1, "where the line should end"),
            ("cpu user=1 99999999999999999999", 1, "is out of range"),
            ("cpu user=1 1 2", 1, "where the line should end"),
            ("cpu user=1;", 1, #"field "user" has an invalid value "1;""#),
            ("cpu user=1\rx", 1, "unexpected byte 0xD after a field value"),
            (",host=a user=1", 1, "no measurement"),
            ("cpu,host user=1", 1, #"tag "host" has no '='"#),
            ("cpu,host= user=1", 1, #"tag "host" has an empty value"#),
            ("cpu,=a user=1", 1, "a tag has an empty key"),
            ("cpu,host=a,host=b user=1", 1, #"tag "host" appears twice"#),
            ("cpu,host=a=b user=1", 1, "an unescaped '='"),
            ("cpu,host=a, user=1", 1, "a tag has an empty key"),
        ]
        for (text, line, message) in cases {
            assertIngestError(ExpectedError(code: .badRequest, line: line, contains: message), text) { try parse(text) }
        }
    }

    func testMorePointsThanTheLimitStopAtTheLineThatCrossesIt() {
        var limits = IngestLimits.standard
        limits.maxPoints = 4
        let body = (0..<100).map { "m a=\($0),b=1 \($0)" }.joined(separator: "\n")
        assertIngestError(ExpectedError(code: .tooLarge, line: 3, contains: "more than 4 points")) {
            try parse(body, limits: limits)
        }
    }

    func testAGzippedLineProtocolBodyParses() throws {
        let body = Gzip.compress(bytes("cpu user=1 1000000\ncpu user=2 2000000\n"))
        let write = try LineProtocolParser.parse(try Gzip.inflate(body), receivedAt: 0)
        XCTAssertEqual(triples(write.charts[0].points).map(\.2), [1, 2])
    }
}
