import XCTest
import ChartEngine
@testable import ChartCastIngest

final class ValidationTests: XCTestCase {
    private func json(_ text: String) throws -> PointBatch { try JSONPointsParser.parse(bytes(text)) }

    func testTimeChartsTakeEpochMillisecondsAndRFC3339AndGroupRowsInXOrder() throws {
        let batch = try json("""
            {"points":[{"series":"user","x":"2024-12-01T00:00:01Z","y":2},
                       {"series":"system","x":1733011200000,"y":3},
                       {"series":"user","x":"2024-12-01T01:00:00+01:00","y":1}]}
            """)
        let v = try batch.validate(against: timeSpec())
        XCTAssertEqual(v.chart, "cpu")
        XCTAssertEqual(v.series, ["user", "system"])
        XCTAssertEqual(v.newSeries, [])
        XCTAssertEqual(v.accepted, 3)
        let r = rows(v)
        XCTAssertEqual(r.map(\.0), [1_733_011_200_000, 1_733_011_201_000])
        XCTAssertEqual(r[0].1, ["system": 3, "user": 1])
        XCTAssertEqual(r[1].1, ["user": 2])
    }

    func testTheLaterValueForTheSameSeriesAndXWins() throws {
        let batch = try json(#"{"points":[{"series":"y","x":5,"y":1},{"series":"y","x":4,"y":0},{"series":"y","x":5,"y":2}]}"#)
        let v = try batch.validate(against: linearSpec())
        var values: [Double?] = [nil]
        v.fill(row: 1, into: &values)
        XCTAssertEqual(values, [2])
        XCTAssertEqual(v.accepted, 3)
        XCTAssertEqual(v.rowCount, 2)
    }

    func testPointColumnsSpellOutEveryAcceptedPointInBodyOrderPerRow() throws {
        let batch = try json(#"{"points":[{"series":"b","x":5,"y":1},{"series":"a","x":4,"y":0},{"series":"b","x":5,"y":2}]}"#)
        let v = try batch.validate(against: linearSpec(series: ["a"]))
        let columns = v.pointColumns
        XCTAssertEqual(v.series, ["a", "b"])
        XCTAssertEqual(columns.series, [0, 1, 1])
        XCTAssertEqual(columns.xs, [4, 5, 5])
        XCTAssertEqual(columns.ys, [0, 1, 2], "both values of x 5, the later last")
        XCTAssertEqual(columns.xs.count, v.accepted)
    }

    func testNewSeriesAreAddedAfterTheExistingOnesUpToThirtyTwo() throws {
        let names = (1...30).map { "s\($0)" }
        let ok = try CSVPointsParser.parse(bytes("x,s1,new1,new2\n1,1,2,3\n"))
        let v = try ok.validate(against: timeSpec(series: []), existingSeries: names)
        XCTAssertEqual(v.series, names + ["new1", "new2"])
        XCTAssertEqual(v.newSeries, ["new1", "new2"])
        XCTAssertEqual(v.cells(row: 0).map(\.series), [0, 30, 31])

        let tooMany = try CSVPointsParser.parse(bytes("x,s1,new1,new2,new3\n1,1,,,\n2,1,2,3,4\n"))
        assertIngestError(ExpectedError(code: .badPoint, line: 3, index: 1,
                                        contains: #"series "new3" would be series 33 of chart "cpu" (at most 32)"#)) {
            try tooMany.validate(against: timeSpec(series: names))
        }
    }

    func testXOfTheWrongKindIsBadPointWithTheLineOfTheX() throws {
        let cases: [(String, ChartSpec, Int, Int, String)] = [
            ("{\"points\":[{\"series\":\"y\",\"x\":1,\"y\":1},\n{\"series\":\"y\",\n\"x\":\"one\",\"y\":2}]}", linearSpec(), 3, 1,
             "points[1].x must be a number, got a string (chart \"curve\" has a linear x)"),
            (#"{"points":[{"series":"user","x":"yesterday","y":1}]}"#, timeSpec(), 1, 0,
             #"points[0].x "yesterday" is not an RFC 3339 date-time"#),
            (#"{"points":[{"series":"user","x":"1733011200000","y":1}]}"#, timeSpec(), 1, 0, "epoch ms must be a JSON number"),
            (#"{"points":[{"series":"minutes","x":3,"y":1}]}"#, categorySpec(), 1, 0,
             #"points[0].x must be a category name of chart "workouts", got a number"#),
            (#"{"points":[{"series":"minutes","x":"Funday","y":1}]}"#, categorySpec(), 1, 0,
             #"points[0].x "Funday" is not a category of chart "workouts""#),
            ("{\"x\":[\"Mon\",\n\"Funday\"],\n\"series\":{\"minutes\":[1,2]}}", categorySpec(), 2, 1,
             #"x[1] "Funday" is not a category"#),
        ]
        for (body, spec, line, index, message) in cases {
            let batch = try json(body)
            assertIngestError(ExpectedError(code: .badPoint, line: line, index: index, contains: message), body) {
                try batch.validate(against: spec)
            }
        }
    }

    func testCSVCellsAreReadAsTheChartNeeds() throws {
        let time = try CSVPointsParser.parse(bytes("x,user\n1733011200000,1\n2024-12-01T00:00:01.5Z,2\n"))
        XCTAssertEqual(rows(try time.validate(against: timeSpec())).map(\.0), [1_733_011_200_000, 1_733_011_201_500])
        // A numeric-looking category name is a category on a category chart.
        let years = ChartSpec(id: "y", title: "Y", mark: .bar, xKind: .category, series: ["v"], categories: ["2023", "2024"])
        let category = try CSVPointsParser.parse(bytes("x,v\n2024,1\n2023,2\n"))
        XCTAssertEqual(rows(try category.validate(against: years)).map(\.0), [0, 1])
        assertIngestError(ExpectedError(code: .badPoint, line: 3, index: 1, contains: #"x "two" is not a number"#)) {
            try CSVPointsParser.parse(bytes("x,y\n1,1\ntwo,2\n")).validate(against: linearSpec())
        }
        assertIngestError(ExpectedError(code: .badPoint, line: 2, index: 0, contains: #"x "noon" is not an RFC 3339 date-time or a number"#)) {
            try CSVPointsParser.parse(bytes("x,user\nnoon,1\n")).validate(against: timeSpec())
        }
    }

    func testCategoryRowsFollowTheAxisOrderWithIndices() throws {
        let batch = try json(#"{"points":[{"series":"minutes","x":"Sun","y":10},{"series":"minutes","x":"Mon","y":23}]}"#)
        let v = try batch.validate(against: categorySpec())
        XCTAssertEqual(rows(v).map(\.0), [0, 6])
        XCTAssertEqual(rows(v).map { $0.1["minutes"] }, [23, 10])
    }

    func testRFC3339Variants() {
        let cases: [(String, Double?)] = [
            ("2024-12-01T00:00:00Z", 1_733_011_200_000),
            ("2024-12-01t00:00:00z", 1_733_011_200_000),
            ("2024-12-01 00:00:00Z", 1_733_011_200_000),
            ("2024-12-01T01:30:00+01:30", 1_733_011_200_000),
            ("2024-11-30T19:00:00-05:00", 1_733_011_200_000),
            ("2024-12-01T00:00:00.5Z", 1_733_011_200_500),
            ("2024-12-01T00:00:00.123Z", 1_733_011_200_123),
            ("2024-12-01T00:00:00.123456789Z", 1_733_011_200_123.456_789),
            ("2024-12-01T00:00:00.1234567891234Z", 1_733_011_200_123.456_789),
            ("1970-01-01T00:00:00Z", 0),
            ("1969-12-31T23:59:59.999Z", -1),
            ("2016-12-31T23:59:60Z", 1_483_228_800_000),
            ("2024-02-29T00:00:00Z", 1_709_164_800_000),
            ("2023-02-29T00:00:00Z", nil),
            ("2024-13-01T00:00:00Z", nil),
            ("2024-12-01T24:00:00Z", nil),
            ("2024-12-01T00:60:00Z", nil),
            ("2024-12-01T00:00:00", nil),
            ("2024-12-01T00:00:00.Z", nil),
            ("2024-12-01T00:00:00+0100", nil),
            ("2024-12-01T00:00:00+24:00", nil),
            ("2024-12-01", nil),
            ("2024-12-01T00:00:00Z ", nil),
            ("", nil),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(RFC3339.epochMilliseconds(text), expected, text)
        }
    }

    func testValidationErrorsOfAMultiLineJSONBodyNameTheRightLine() throws {
        let body = """
            {
              "points": [
                {"series": "user", "x": "2024-12-01T00:00:00Z", "y": 1},
                {"series": "user",
                 "x": "2024-12-01T00:00:00",
                 "y": 2}
              ]
            }
            """
        let batch = try json(body)
        assertIngestError(ExpectedError(code: .badPoint, line: 5, index: 1, contains: #"points[1].x "2024-12-01T00:00:00""#)) {
            try batch.validate(against: timeSpec())
        }
    }

    func testOutOfOrderPointsAreSortedWithBodyOrderKeptWithinAnX() throws {
        let body = PointsBody.rows((0..<1_000).map { k in (series: "y", x: .number(Double((k * 7_919) % 500)), y: Double(k)) })
        let v = try JSONPointsParser.parse(body).validate(against: linearSpec())
        XCTAssertEqual(v.rowCount, 500)
        XCTAssertEqual((0..<v.rowCount).map { v.x(row: $0) }, (0..<500).map(Double.init))
        for r in 0..<v.rowCount {
            let ys = v.cells(row: r).map(\.y)
            XCTAssertEqual(ys, ys.sorted(), "row \(r) keeps body order")
        }
    }

    func testValidationAcrossChartsReportsTheFirstBadLine() throws {
        let write = try LineProtocolParser.parse(bytes("days v=1 0\ncpu v=2 0\ncpu w=3 0\n"), receivedAt: 0)
        let specs = ["cpu": timeSpec(series: ["v"]), "days": categorySpec()]
        // `days` (line 1) is a category chart: timestamps cannot be its x.
        assertIngestError(ExpectedError(code: .badPoint, line: 1, contains: #"the timestamp cannot be the x of category chart "workouts""#)) {
            try write.validate { ChartTarget(spec: specs[$0]!) }
        }
        let ok = try LineProtocolParser.parse(bytes("cpu v=2 0\ncpu w=3 1000000\n"), receivedAt: 0)
            .validate { ChartTarget(spec: specs[$0]!) }
        XCTAssertEqual(ok.map(\.chart), ["cpu"])
        XCTAssertEqual(ok[0].batch.newSeries, ["w"])
        XCTAssertEqual(ok[0].batch.rowCount, 2)
    }
}
