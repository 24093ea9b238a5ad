import XCTest
@testable import ChartEngine

/// The selection following data that arrives while viewers interact.
final class LiveDataTests: XCTestCase {
    private let viewport = DemoCharts.viewport
    private let day = DemoCharts.day

    private func linearStore(points: Int, series: [String] = ["a"], window: Int? = nil) -> ChartStore {
        let store = ChartStore(spec: ChartSpec(id: "l", title: "L", mark: .point, xKind: .linear, series: series,
                                               interactions: Interactions(hover: true, drag: .range, tap: true),
                                               window: window))
        for i in 0..<points { store.upsert(x: Double(i), values: series.map { _ in Double(i) }) }
        return store
    }

    func testRangeIsRecomputedWhenDataArrivesInsideIt() {
        let store = linearStore(points: 11)   // x 0…10, domain (0, 10)
        let engine = SelectionEngine(store: store)
        engine.drag("v1", from: 48 + 0.2 * 620, through: [48 + 0.8 * 620])   // x 2…8
        XCTAssertEqual(engine.selection.range?.count, 7)
        let change = store.upsert(x: 5.5, values: [100])
        XCTAssertTrue(engine.dataDidChange(change))
        XCTAssertEqual(engine.selection.range?.count, 8)
        XCTAssertEqual(engine.selection.range?.totals.first?.max, 100)
        XCTAssertTrue(engine.selection.range?.rows.contains(SeriesPoint(series: "a", x: .number(5.5), y: 100)) ?? false)
        // A replacement outside the range with no domain change leaves it alone.
        XCTAssertFalse(engine.dataDidChange(store.upsert(x: 9, values: [9])))
    }

    func testRangeFollowsEvictionAndClampsToTheNewDomain() {
        let store = DemoCharts.temperature()          // 30 days, window 30
        let engine = SelectionEngine(store: store)
        engine.drag("v1", from: 40, through: [DemoCharts.pixel(DemoCharts.may1 + 3 * day, in: store)])
        XCTAssertEqual(engine.selection.range?.count, 4, "May 1 … May 4")
        let change = store.upsert(x: DemoCharts.may1 + 30 * day, values: [36.6])
        XCTAssertEqual(change.evictedBefore, DemoCharts.may1 + day)
        XCTAssertTrue(engine.dataDidChange(change))
        let range = engine.selection.range
        XCTAssertEqual(range?.count, 3, "May 1 left the window")
        XCTAssertEqual(range?.from, .number(store.xDomain.0), "clamped to the new domain")
        XCTAssertEqual(range?.rows.first?.x, .number(DemoCharts.may1 + day))
    }

    func testAPinnedPointThatLeavesTheWindowIsCleared() {
        let store = DemoCharts.temperature()
        let engine = SelectionEngine(store: store)
        engine.tap("v1", x: DemoCharts.pixel(DemoCharts.may1 + day, in: store))
        XCTAssertEqual(engine.selection.pin?.x, .number(DemoCharts.may1 + day))
        let pinnedFraction = engine.selection.pin?.fraction ?? -1
        // First append evicts May 1: the pin (May 2) stays, its fraction moves with the domain.
        XCTAssertTrue(engine.dataDidChange(store.upsert(x: DemoCharts.may1 + 30 * day, values: [36.1])))
        XCTAssertEqual(engine.selection.pin?.x, .number(DemoCharts.may1 + day))
        XCTAssertLessThan(engine.selection.pin?.fraction ?? 1, pinnedFraction)
        // Second append evicts May 2.
        XCTAssertTrue(engine.dataDidChange(store.upsert(x: DemoCharts.may1 + 31 * day, values: [36.2])))
        XCTAssertNil(engine.selection.pin)
    }

    func testScrubAndHoverValuesFollowCategoryUpdates() {
        let store = DemoCharts.workouts()
        let engine = SelectionEngine(store: store)
        engine.drag("v1", from: 300, through: [DemoCharts.centreX(6, of: 7)])
        engine.key(viewer: "v2", command: .end, shift: false, viewport: nil)
        XCTAssertEqual(engine.selection.scrub?.values.first?.y, 10)
        store.setValue(42, series: 0, category: 6)
        XCTAssertTrue(engine.valuesDidChange(category: 6))
        XCTAssertEqual(engine.selection.scrub?.values.first?.y, 42)
        XCTAssertEqual(engine.selection.hovers.first?.values.first?.y, 42)
        XCTAssertFalse(engine.valuesDidChange(category: 6), "nothing new")
    }

    func testKeyboardHoverOnAnEvictedPointIsDroppedAndPointerHoverIsRecomputed() {
        let store = linearStore(points: 10, window: 10)
        let engine = SelectionEngine(store: store)
        engine.key(viewer: "v1", command: .home, shift: false, viewport: nil)
        engine.move("v2", x: 48 + 620)                 // nearest: the last point (9)
        XCTAssertEqual(engine.selection.hovers.map { $0.x }, [.number(9), .number(0)])
        XCTAssertTrue(engine.dataDidChange(store.upsert(x: 10, values: [10])))
        XCTAssertEqual(engine.selection.hovers.map { $0.by }, ["v2"], "v1's point left the window")
        XCTAssertEqual(engine.selection.hovers.first?.x, .number(10), "the pointer now hovers the new last point")
    }

    func testRangeRowsAreCappedAtFiveHundred() {
        let store = linearStore(points: 400, series: ["a", "b"])
        let engine = SelectionEngine(store: store)
        engine.drag("v1", from: 0, through: [1000])
        let range = engine.selection.range
        XCTAssertEqual(range?.count, 800)
        XCTAssertEqual(range?.rows.count, 500)
        XCTAssertEqual(range?.truncated, true)
        XCTAssertEqual(range?.rows[0], SeriesPoint(series: "a", x: .number(0), y: 0))
        XCTAssertEqual(range?.rows[1], SeriesPoint(series: "b", x: .number(0), y: 0))
        XCTAssertEqual(range?.totals.map { $0.sum }, [79_800, 79_800])
    }

    func testTimeHoverPlacementAndNearestTies() {
        let store = linearStore(points: 3)          // 0, 1, 2; domain (0, 2)
        let engine = SelectionEngine(store: store)
        engine.move("v1", x: 48 + 0.25 * 620)     // x = 0.5: tie between 0 and 1 → 0
        XCTAssertEqual(engine.selection.hovers.first?.x, .number(0))
        XCTAssertEqual(engine.selection.hovers.first?.placement, .trailing)
        engine.move("v1", x: 48 + 0.5 * 620)      // x = 1, fraction 0.5 → leading
        XCTAssertEqual(engine.selection.hovers.first?.placement, .leading)
        XCTAssertTrue(engine.move("v1", x: 47))
        XCTAssertTrue(engine.selection.hovers.isEmpty, "outside the plot: none")
    }
}
