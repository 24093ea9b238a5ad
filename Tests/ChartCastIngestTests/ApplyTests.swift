import XCTest
import ChartEngine
@testable import ChartCastIngest

final class ApplyTests: XCTestCase {
    func testTimeRowsUpsertInXOrderAndKeepValuesOfSeriesTheWriteDoesNotSet() throws {
        let store = ChartStore(spec: timeSpec())
        store.upsert(x: 1_000, values: [1, 10])
        let batch = try CSVPointsParser.parse(bytes("x,user\n1000,2\n3000,3\n2000,4\n"))
        let applied = try batch.validate(against: store.spec).apply(to: store)
        XCTAssertEqual(applied.rowsApplied, 3)
        XCTAssertEqual(applied.xRange, 1_000...3_000)
        XCTAssertTrue(applied.xDomainChanged)
        XCTAssertEqual(store.count, 3)
        XCTAssertEqual((0..<3).map { store.xNumber(at: $0) }, [1_000, 2_000, 3_000])
        XCTAssertEqual(store.y(series: 0, at: 0), 2)
        XCTAssertEqual(store.y(series: 1, at: 0), 10, "system at x=1000 is untouched")
        XCTAssertEqual(store.y(series: 1, at: 1), nil)
    }

    func testRowsOlderThanAFullWindowAreSkippedAndTheWindowRolls() throws {
        let store = ChartStore(spec: timeSpec(series: ["user"], window: 3))
        for x in [10.0, 11, 12] { store.upsert(x: x, values: [x]) }
        let batch = try JSONPointsParser.parse(bytes(
            #"{"x":[1,2,13,14],"series":{"user":[1,2,13,14]}}"#))
        let applied = try batch.validate(against: store.spec).apply(to: store)
        XCTAssertEqual(applied.rowsSkipped, 2)
        XCTAssertEqual(applied.rowsApplied, 2)
        XCTAssertEqual(applied.evictedBefore, 12)
        XCTAssertEqual((0..<store.count).map { store.xNumber(at: $0) }, [12, 13, 14])
    }

    func testCategoryRowsSetValues() throws {
        let store = ChartStore(spec: categorySpec())
        let batch = try JSONPointsParser.parse(bytes(#"{"points":[{"series":"minutes","x":"Wed","y":76},{"series":"minutes","x":"Mon","y":23}]}"#))
        let applied = try batch.validate(against: store.spec).apply(to: store)
        XCTAssertEqual(applied.rowsApplied, 2)
        XCTAssertEqual(store.y(series: 0, at: 0), 23)
        XCTAssertEqual(store.y(series: 0, at: 2), 76)
        XCTAssertEqual(store.y(series: 0, at: 1), nil)
        XCTAssertTrue(applied.yDomainChanged)
    }

    func testABatchThatAddsSeriesAddsThemToTheStore() throws {
        let store = ChartStore(spec: timeSpec(series: ["user"]))
        let validated = try CSVPointsParser.parse(bytes("x,user,guest\n1,1,2\n")).validate(against: store.spec)
        XCTAssertEqual(validated.newSeries, ["guest"])
        try validated.apply(to: store)
        XCTAssertEqual(store.spec.series, ["user", "guest"])
        XCTAssertEqual(store.y(series: 1, at: 0), 2)
    }

    func testABatchValidatedAgainstOtherSeriesIsRefusedAndNothingIsApplied() throws {
        let store = ChartStore(spec: timeSpec(series: ["user"]))
        let validated = try CSVPointsParser.parse(bytes("x,user,guest\n1,1,2\n")).validate(against: store.spec)
        store.addSeries("system")   // a write in between added another series
        XCTAssertThrowsError(try validated.apply(to: store)) { error in
            XCTAssertTrue(error is StoreMismatch)
        }
        XCTAssertEqual(store.count, 0)
        XCTAssertEqual(store.spec.series, ["user", "system"])
    }

    func testAValidatedLineProtocolWriteAppliesToEachChart() throws {
        let cpu = ChartStore(spec: timeSpec(series: ["user{host=a}"]))
        let write = try LineProtocolParser.parse(bytes("cpu,host=a user=1 1000000000\ncpu,host=a user=2 2000000000\n"),
                                                 receivedAt: 0)
        let validated = try write.validate { _ in ChartTarget(spec: cpu.spec) }
        try validated[0].batch.apply(to: cpu)
        XCTAssertEqual((0..<cpu.count).map { cpu.xNumber(at: $0) }, [1_000, 2_000])
    }
}

/// The writers of the write formats produce what the parsers read.
final class PointsBodyTests: XCTestCase {
    func testRowsAndColumnsRoundTripThroughTheParsers() throws {
        let rows = try JSONPointsParser.parse(PointsBody.rows([("user", .number(1_000), 1.5), ("user", .category("2024-12-01T00:00:00Z"), nil),
                                                               ("sys", .number(2_000), -2)]))
        XCTAssertEqual(rows.series, ["user", "sys"])
        XCTAssertEqual(rows.count, 2, "a null is a missing value")
        let columns = try JSONPointsParser.parse(PointsBody.columns(x: [1, 2, 3], series: [("a", [1, nil, 3]), ("b", [nil, nil, 0.25])]))
        XCTAssertEqual(columns.count, 3)
        XCTAssertEqual(columns[2], BatchPoint(series: 1, x: .number(3), y: 0.25, origin: columns[2].origin))
    }
}
