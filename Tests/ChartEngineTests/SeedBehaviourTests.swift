import XCTest
@testable import ChartEngine

/// The five source articles' interactions, reproduced on the demo dashboard's data.
final class SeedBehaviourTests: XCTestCase {
    private let viewport = DemoCharts.viewport

    // Seed 000: dragging across the workouts bars shows the day under the finger and its minutes.
    func testWorkoutsScrubOverWednesdayShowsSeventySixMinutes() {
        let engine = SelectionEngine(store: DemoCharts.workouts())
        let wed = DemoCharts.centreX(2, of: 7)
        XCTAssertFalse(engine.pointer(viewer: "v1", phase: .down, x: DemoCharts.centreX(0, of: 7), y: 100, viewport: viewport),
                       "a press alone is not a scrub yet")
        XCTAssertNil(engine.selection.scrub)
        XCTAssertTrue(engine.move("v1", x: wed, y: 152))
        let scrub = engine.selection.scrub
        XCTAssertEqual(scrub?.by, "v1")
        XCTAssertEqual(scrub?.x, .category("Wed"))
        XCTAssertEqual(scrub?.values, [SeriesValue(series: "Minutes", y: 76)])
        XCTAssertEqual(scrub?.fraction ?? -1, 2.5 / 7, accuracy: 1e-12)
        XCTAssertEqual(scrub?.yFraction ?? -1, 0.5, accuracy: 1e-12)
        XCTAssertFalse(engine.move("v1", x: wed + 3, y: 152), "same bar, same height: no change")
        XCTAssertTrue(engine.pointer(viewer: "v1", phase: .up, x: wed, y: 152, viewport: viewport))
        XCTAssertNil(engine.selection.scrub, "cleared on release")
    }

    // Seed 002: the scrubbed index is clamped to the ends outside the plot.
    func testExpensesScrubClampsToJanuaryAndDecember() {
        let engine = SelectionEngine(store: DemoCharts.expenses())
        engine.drag("v1", from: 300, through: [10])
        XCTAssertEqual(engine.selection.scrub?.x, .category("JAN"))
        XCTAssertEqual(engine.selection.scrub?.values.first?.y, 235)
        engine.move("v1", x: 900)
        XCTAssertEqual(engine.selection.scrub?.x, .category("DEC"))
        XCTAssertEqual(engine.selection.scrub?.values.first?.y, 456)
        engine.move("v1", x: DemoCharts.centreX(9, of: 12))
        XCTAssertEqual(engine.selection.scrub?.values.first?.y, 100, "OCT")
    }

    // Seed 003: hovering a month shows every product, trailing in the first half, leading after.
    func testSalesHoverShowsAllProductsWithPlacementByHalfYear() {
        let engine = SelectionEngine(store: DemoCharts.sales())
        XCTAssertTrue(engine.move("v2", x: DemoCharts.centreX(2, of: 12)))
        XCTAssertEqual(engine.selection.hovers, [Hover(
            by: "v2", x: .category("March"), fraction: 2.5 / 12, placement: .trailing,
            values: [SeriesValue(series: "Ice Cream", y: 900), SeriesValue(series: "Coffee", y: 1900),
                     SeriesValue(series: "Muffins", y: 800)])])
        XCTAssertTrue(engine.move("v2", x: DemoCharts.centreX(8, of: 12)))
        XCTAssertEqual(engine.selection.hovers.first?.x, .category("September"))
        XCTAssertEqual(engine.selection.hovers.first?.placement, .leading)
        XCTAssertEqual(engine.selection.hovers.first?.values.map { $0.y }, [620, 1620, 1000])
        // June (index 5) is the last trailing month, July the first leading one.
        engine.move("v2", x: DemoCharts.centreX(5, of: 12))
        XCTAssertEqual(engine.selection.hovers.first?.placement, .trailing)
        engine.move("v2", x: DemoCharts.centreX(6, of: 12))
        XCTAssertEqual(engine.selection.hovers.first?.placement, .leading)
        XCTAssertTrue(engine.move("v2", x: 20), "outside the plot: no hover")
        XCTAssertTrue(engine.selection.hovers.isEmpty)
        engine.move("v2", x: DemoCharts.centreX(0, of: 12))
        XCTAssertTrue(engine.pointer(viewer: "v2", phase: .leave, x: 0, y: 0, viewport: viewport))
        XCTAssertEqual(engine.selection, .empty)
    }

    // Interactions a chart lacks are accepted and ignored: pressing and dragging on sales.
    func testPressingOnAHoverOnlyChartNeitherScrubsNorRanges() {
        let engine = SelectionEngine(store: DemoCharts.sales())
        engine.drag("v1", from: 100, through: [200, 400])
        XCTAssertNil(engine.selection.scrub)
        XCTAssertNil(engine.selection.range)
        XCTAssertNil(engine.dragOwner)
        XCTAssertEqual(engine.selection.hovers.first?.x, .category("July"), "the pointer still hovers")
        XCTAssertFalse(engine.pointer(viewer: "v1", phase: .up, x: 400, y: 100, viewport: viewport))
        XCTAssertNil(engine.selection.pin, "sales has no tap")
    }

    // Seeds 001 and 004a: a range from press to pointer, normalised, with rows and totals.
    func testIntakeRangeIsTheSameForwardsAndReversed() {
        let store = DemoCharts.intake()
        let a = DemoCharts.pixel(DemoCharts.may1 + 2 * DemoCharts.day, in: store) - 4    // just before May 3
        let b = DemoCharts.pixel(DemoCharts.may1 + 14 * DemoCharts.day, in: store) + 4   // just after May 15
        let forward = SelectionEngine(store: store)
        forward.drag("v1", from: a, through: [b])
        let reversed = SelectionEngine(store: store)
        reversed.drag("v1", from: b, through: [a])
        guard let f = forward.selection.range, let r = reversed.selection.range else { return XCTFail("no range") }
        XCTAssertEqual(f, r)
        XCTAssertLessThan(f.fromFraction, f.toFraction)
        XCTAssertEqual(f.rows.map { $0.x }, (1...7).map { .number(DemoCharts.may1 + Double(2 * $0) * DemoCharts.day) },
                       "May 3 … May 15")
        XCTAssertEqual(f.count, 7)
        XCTAssertFalse(f.truncated)
        let sum = f.rows.reduce(0) { $0 + $1.y }
        XCTAssertEqual(f.totals, [SeriesTotals(series: "Calories", count: 7, sum: sum,
                                               min: f.rows.map { $0.y }.min(), max: f.rows.map { $0.y }.max(),
                                               mean: sum / 7)])
        XCTAssertTrue(forward.pointer(viewer: "v1", phase: .up, x: b, y: 100, viewport: viewport))
        XCTAssertNil(forward.selection.range, "cleared on release")
    }

    func testRangeEndsAreClampedToTheDomain() {
        let store = DemoCharts.intake()
        let engine = SelectionEngine(store: store)
        engine.drag("v1", from: 0, through: [2000])
        let range = engine.selection.range
        XCTAssertEqual(range?.from, .number(store.xDomain.0))
        XCTAssertEqual(range?.to, .number(store.xDomain.1))
        XCTAssertEqual(range?.fromFraction, 0)
        XCTAssertEqual(range?.toFraction, 1)
        XCTAssertEqual(range?.count, 15)
    }

    // Seed 004b: a tap pins the nearest day; tapping the same day again clears it.
    func testTemperatureTapPinsNearestDayAndSecondTapClears() throws {
        let store = DemoCharts.temperature()
        let engine = SelectionEngine(store: store)
        let may10 = DemoCharts.may1 + 9 * DemoCharts.day
        let nearMay10 = DemoCharts.pixel(may10 + 0.3 * DemoCharts.day, in: store)
        XCTAssertTrue(engine.tap("v1", x: nearMay10))
        XCTAssertEqual(engine.selection.pin, Pin(by: "v1", x: .number(may10),
                                                 values: [SeriesValue(series: "Temperature", y: try XCTUnwrap(store.y(series: 0, at: 9)))],
                                                 fraction: (9.5) / 30))
        XCTAssertNil(engine.selection.range, "a tap is not a range")
        XCTAssertTrue(engine.tap("v1", x: DemoCharts.pixel(may10 - 0.2 * DemoCharts.day, in: store) + 1),
                      "same nearest day again")
        XCTAssertNil(engine.selection.pin)
        // Last writer wins, `by` updated.
        engine.tap("v1", x: nearMay10)
        XCTAssertTrue(engine.tap("v2", x: DemoCharts.pixel(may10 + DemoCharts.day, in: store)))
        XCTAssertEqual(engine.selection.pin?.by, "v2")
        XCTAssertEqual(engine.selection.pin?.x, .number(may10 + DemoCharts.day))
    }

    func testRightToLeftPointerAtTheLeftEdgeIsTheLastCategory() {
        let rtl = Viewport(x: 48, y: 12, width: 620, height: 280, rtl: true)
        let sales = SelectionEngine(store: DemoCharts.sales())
        sales.move("v1", x: 49, viewport: rtl)
        XCTAssertEqual(sales.selection.hovers.first?.x, .category("December"))
        XCTAssertEqual(sales.selection.hovers.first?.fraction ?? -1, 11.5 / 12, accuracy: 1e-12,
                       "fractions stay in data order")
        let expenses = SelectionEngine(store: DemoCharts.expenses())
        expenses.drag("v1", from: 600, through: [20], viewport: rtl)
        XCTAssertEqual(expenses.selection.scrub?.x, .category("DEC"), "left of an rtl plot clamps to the last")
    }

    func testCategoryRangeFromAPointerDragUsesCategoriesAndClamps() {
        let store = ChartStore(spec: ChartSpec(id: "w", title: "W", mark: .bar, xKind: .category, series: ["Minutes"],
                                               categories: DemoCharts.weekdays,
                                               interactions: Interactions(drag: .range)))
        for (i, v) in [23.0, 45, 76, 21, 15, 35, 10].enumerated() { store.setValue(v, series: 0, category: i) }
        let engine = SelectionEngine(store: store)
        engine.drag("v1", from: DemoCharts.centreX(1, of: 7), through: [DemoCharts.centreX(3, of: 7), 5])
        let range = engine.selection.range
        XCTAssertEqual(range?.from, .category("Mon"), "left of the plot clamps to the first")
        XCTAssertEqual(range?.to, .category("Tue"))
        XCTAssertEqual(range?.fromFraction, 0)
        XCTAssertEqual(range?.toFraction ?? -1, 2.0 / 7, accuracy: 1e-12)
        XCTAssertEqual(range?.rows, [SeriesPoint(series: "Minutes", x: .category("Mon"), y: 23),
                                     SeriesPoint(series: "Minutes", x: .category("Tue"), y: 45)])
        XCTAssertEqual(range?.totals.first?.mean, 34)
    }
}

