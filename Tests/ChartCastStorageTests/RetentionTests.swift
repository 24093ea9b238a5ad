import XCTest
import TestSupport
import ChartEngine
@testable import ChartCastStorage

final class RetentionTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUp() { directory = TemporaryDirectory("retention") }
    override func tearDown() { directory.remove() }

    func sweep(_ store: HistoryStore, now: Double) {
        XCTAssertSuccess(waitFor { store.sweep(now: now, completion: $0) }, "sweep")
    }

    func testTimeChartsKeepPointsFromNowMinusRetention() throws {
        let store = try openSmall(directory)
        defer { store.close() }
        let now = 1_733_011_200_000.0
        let spec = timeSpec(retention: 60)
        // One point a second over the last two minutes, in chunks of 8 (one straddles the cut).
        store.appendAndWait(spec, (0...120).map { HistoryPoint(series: "user", x: now - Double($0) * 1_000, y: Double($0)) })
        sweep(store, now: now)
        let kept = try store.points("cpu", "user")
        XCTAssertEqual(kept.map { $0[0] }, (0...60).reversed().map { now - Double($0) * 1_000 })
        XCTAssertEqual(try store.latest(chart: "cpu", limit: 1).rows.first?.x, now)
    }

    func testLinearChartsKeepPointsByWriteTime() throws {
        let store = try openSmall(directory)
        defer { store.close() }
        let t0 = 1_000_000.0
        let spec = linearSpec(retention: 60)
        store.appendAndWait(spec, (0..<10).map { HistoryPoint(series: "a", x: Double($0), y: 1) }, writtenAt: t0)
        store.appendAndWait(spec, (5..<15).map { HistoryPoint(series: "a", x: Double($0), y: 2) }, writtenAt: t0 + 100_000)
        sweep(store, now: t0 + 130_000)   // cut at t0 + 70 s: the first write's surviving points go
        XCTAssertEqual(try store.points("lin", "a"), (5..<15).map { [Double($0), 2] })
        sweep(store, now: t0 + 200_000)
        XCTAssertEqual(try store.points("lin", "a"), [])
    }

    func testCategoryChartsKeepValuesByWriteTime() throws {
        let store = try openSmall(directory)
        defer { store.close() }
        let t0 = 5_000_000.0
        let spec = categorySpec(retention: 60)
        store.appendAndWait(spec, [HistoryPoint(series: "minutes", x: 0, y: 1), HistoryPoint(series: "minutes", x: 1, y: 1)], writtenAt: t0)
        store.appendAndWait(spec, [HistoryPoint(series: "minutes", x: 1, y: 2)], writtenAt: t0 + 50_000)
        sweep(store, now: t0 + 90_000)
        XCTAssertEqual(try store.points("days", "minutes"), [[1, 2]], "Mon (written at t0) expired, Tue rewritten later")
    }

    func testRetentionZeroDropsEverythingAtTheNextSweep() throws {
        let store = try openSmall(directory)
        defer { store.close() }
        store.appendAndWait(timeSpec(retention: 3_600), [HistoryPoint(series: "user", x: 1, y: 1)])
        store.appendAndWait(timeSpec(retention: 0), [HistoryPoint(series: "user", x: 2, y: 2)])
        XCTAssertEqual(try store.points("cpu", "user"), [[1, 1]], "nothing new stored")
        sweep(store, now: 3)
        XCTAssertEqual(try store.points("cpu", "user"), [])
    }

    func testOpenSweeps() throws {
        let store = try openSmall(directory)
        let now = HistoryStore.wallClockMilliseconds()
        store.appendAndWait(timeSpec(retention: 60), [HistoryPoint(series: "user", x: now - 86_400_000, y: 1),
                                                     HistoryPoint(series: "user", x: now + 3_600_000, y: 2)])
        store.close()
        let reopened = try HistoryStore.open(directory: directory.path)
        defer { reopened.close() }
        XCTAssertEqual(try reopened.points("cpu", "user"), [[now + 3_600_000, 2]])
    }
}
