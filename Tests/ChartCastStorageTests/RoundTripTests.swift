import XCTest
import TestSupport
import ChartEngine
import ChartCastProtocol
@testable import ChartCastStorage

final class RoundTripTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUp() { directory = TemporaryDirectory("roundtrip") }
    override func tearDown() { directory.remove() }

    func testSpecsComeBackInDefinitionOrderAndReplacingKeepsThePlace() throws {
        var store: HistoryStore? = try HistoryStore.open(directory: directory.path)
        let a = timeSpec("a"), b = linearSpec("b"), c = categorySpec("c")
        for spec in [a, b, c] { XCTAssertSuccess(waitFor { store!.save(spec: spec, completion: $0) }) }
        var renamed = a
        renamed.title = "Renamed"
        XCTAssertSuccess(waitFor { store!.save(spec: renamed, completion: $0) })
        XCTAssertSuccess(waitFor { store!.delete(chart: "b", completion: $0) })
        XCTAssertSuccess(waitFor { store!.delete(chart: "never-saved", completion: $0) }, "deleting an unknown chart")
        store!.close()
        store = nil

        let reopened = try HistoryStore.open(directory: directory.path)
        defer { reopened.close() }
        let charts = try reopened.loadCharts()
        XCTAssertEqual(charts.map(\.spec), [renamed, c])
        XCTAssertEqual(charts.map(\.spec.title), ["Renamed", "c"])
    }

    func testPointsRoundTripAndALaterValueReplacesAnEarlierOne() throws {
        let store = try openSmall(directory)
        defer { store.close() }
        let spec = timeSpec()
        store.appendAndWait(spec, (0..<20).map { HistoryPoint(series: "user", x: Double($0) * 1_000, y: Double($0)) })
        store.appendAndWait(spec, [HistoryPoint(series: "system", x: 5_000, y: 50),
                                   HistoryPoint(series: "user", x: 5_000, y: -5),      // replaces 5
                                   HistoryPoint(series: "user", x: 7_000, y: 70),      // replaced in the same write
                                   HistoryPoint(series: "user", x: 7_000, y: -7),
                                   HistoryPoint(series: "user", x: 2_500, y: 25)])     // between stored points
        let user = try store.points("cpu", "user")
        XCTAssertEqual(user.count, 21)
        XCTAssertEqual(user.map { $0[0] }, user.map { $0[0] }.sorted(), "ascending x")
        XCTAssertEqual(user.first { $0[0] == 5_000 }?[1], -5)
        XCTAssertEqual(user.first { $0[0] == 7_000 }?[1], -7)
        XCTAssertEqual(user.first { $0[0] == 2_500 }?[1], 25)
        XCTAssertEqual(try store.points("cpu", "system"), [[5_000, 50]])
        XCTAssertEqual(try store.read(chart: "cpu", maxPerSeries: 100).map(\.name), ["user", "system"])
    }

    func testUpsertAcrossChunksKeepsOnePointPerX() throws {
        let store = try openSmall(directory, capacity: 4)
        defer { store.close() }
        let spec = linearSpec()
        store.appendAndWait(spec, (0..<40).map { HistoryPoint(series: "a", x: Double($0), y: 1) })
        // Overwrite a stretch spanning several chunks, plus new points in between.
        store.appendAndWait(spec, stride(from: 5.0, through: 30, by: 0.5).map { HistoryPoint(series: "a", x: $0, y: 2) })
        let points = try store.points("lin", "a")
        XCTAssertEqual(points.count, 40 + 25)
        XCTAssertEqual(Set(points.map { $0[0] }).count, points.count, "one point per x")
        for point in points { XCTAssertEqual(point[1], (5...30).contains(point[0]) ? 2 : 1, "x \(point[0])") }
    }

    func testLatestGivesTheNewestDistinctXWithEverySeriesValue() throws {
        let store = try openSmall(directory)
        defer { store.close() }
        let spec = timeSpec()
        var points: [HistoryPoint] = []
        for i in 0..<30 { points.append(HistoryPoint(series: "user", x: Double(i), y: Double(i))) }
        for i in stride(from: 1, to: 33, by: 2) { points.append(HistoryPoint(series: "system", x: Double(i), y: -Double(i))) }
        store.appendAndWait(spec, points)
        let rows = try store.latest(chart: "cpu", limit: 5)
        XCTAssertEqual(rows.series, ["user", "system"])
        XCTAssertEqual(rows.rows.map(\.x), [26, 27, 28, 29, 31])
        XCTAssertEqual(rows.rows.first { $0.x == 29 }?.values, [29, -29])
        XCTAssertEqual(rows.rows.first { $0.x == 28 }?.values, [28, nil])
        XCTAssertEqual(rows.rows.first { $0.x == 27 }?.values, [27, -27])
        XCTAssertEqual(rows.rows.first { $0.x == 31 }?.values, [nil, -31])
        XCTAssertEqual(try store.latest(chart: "cpu", limit: 1_000).rows.count, 31, "0…29 and 31")
        XCTAssertEqual(try store.latest(chart: "unknown", limit: 10), HistoryRows(series: [], rows: []))
    }

    func testCategoryPointsComeBackAsNames() throws {
        let store = try openSmall(directory)
        defer { store.close() }
        let spec = categorySpec()
        store.appendAndWait(spec, [HistoryPoint(series: "minutes", x: 2, y: 76), HistoryPoint(series: "minutes", x: 0, y: 23)])
        store.appendAndWait(spec, [HistoryPoint(series: "minutes", x: 2, y: 80)])
        let series = try store.read(chart: "days", maxPerSeries: 10)
        XCTAssertEqual(series.map { $0.seriesData(for: spec) },
                       [SeriesData(name: "minutes", points: [DataPoint(x: .category("Mon"), y: 23), DataPoint(x: .category("Wed"), y: 80)])])
        XCTAssertEqual(try store.latest(chart: "days", limit: 3).rows.map(\.x), [0, 2])
    }

    func testRetentionZeroAndNonFinitePointsAreNotStored() throws {
        let store = try openSmall(directory)
        defer { store.close() }
        store.appendAndWait(timeSpec("demo", retention: 0), [HistoryPoint(series: "user", x: 1, y: 1)])
        XCTAssertEqual(try store.read(chart: "demo", maxPerSeries: 10), [])
        store.appendAndWait(timeSpec(), [HistoryPoint(series: "user", x: .nan, y: 1), HistoryPoint(series: "user", x: 1, y: .infinity),
                                         HistoryPoint(series: "user", x: 2, y: 2)])
        XCTAssertEqual(try store.points("cpu", "user"), [[2, 2]])
    }

    func testAChartWhoseAxisChangesLosesItsPoints() throws {
        let store = try openSmall(directory)
        defer { store.close() }
        store.appendAndWait(categorySpec(), [HistoryPoint(series: "minutes", x: 1, y: 5)])
        store.appendAndWait(categorySpec(categories: ["Mon", "Tue", "Wed"]), [HistoryPoint(series: "minutes", x: 2, y: 6)])
        XCTAssertEqual(try store.points("days", "minutes"), [[1, 5], [2, 6]], "same axis: kept")
        XCTAssertSuccess(waitFor { store.save(spec: categorySpec(categories: ["Wed", "Tue", "Mon"]), completion: $0) })
        XCTAssertEqual(try store.points("days", "minutes"), [], "reordered categories: indices mean other days")
        store.appendAndWait(linearSpec("days", series: ["minutes"]), [HistoryPoint(series: "minutes", x: 10, y: 1)])
        XCTAssertEqual(try store.points("days", "minutes"), [[10, 1]])
    }

    func testDeleteRemovesSpecAndPoints() throws {
        let store = try openSmall(directory)
        defer { store.close() }
        let spec = timeSpec()
        XCTAssertSuccess(waitFor { store.save(spec: spec, completion: $0) })
        store.appendAndWait(spec, (0..<50).map { HistoryPoint(series: "user", x: Double($0), y: 1) })
        XCTAssertSuccess(waitFor { store.delete(chart: "cpu", completion: $0) })
        XCTAssertEqual(try store.loadCharts(), [])
        XCTAssertEqual(try store.read(chart: "cpu", maxPerSeries: 10), [])
        XCTAssertEqual(try store.chunkCount(), 0)
    }
}
