import XCTest
@testable import ChartEngine

final class KeyboardTests: XCTestCase {
    func testArrowsMoveTheCursorAndHoverOnAnyChart() {
        let engine = SelectionEngine(store: DemoCharts.workouts())   // no hover interaction
        XCTAssertTrue(engine.key(viewer: "v1", command: .right, shift: false, viewport: nil))
        XCTAssertEqual(engine.selection.hovers.first?.x, .category("Mon"))
        engine.key(viewer: "v1", command: .right, shift: false, viewport: nil)
        engine.key(viewer: "v1", command: .right, shift: false, viewport: nil)
        XCTAssertEqual(engine.selection.hovers.first?.x, .category("Wed"))
        XCTAssertEqual(engine.selection.hovers.first?.values.first?.y, 76)
        engine.key(viewer: "v1", command: .end, shift: false, viewport: nil)
        XCTAssertEqual(engine.selection.hovers.first?.x, .category("Sun"))
        XCTAssertEqual(engine.selection.hovers.first?.placement, .leading)
        XCTAssertFalse(engine.key(viewer: "v1", command: .right, shift: false, viewport: nil), "clamped at the end")
        engine.key(viewer: "v1", command: .home, shift: false, viewport: nil)
        XCTAssertEqual(engine.selection.hovers.first?.x, .category("Mon"))
        XCTAssertTrue(engine.key(viewer: "v1", command: .escape, shift: false, viewport: nil))
        XCTAssertTrue(engine.selection.hovers.isEmpty)
    }

    func testArrowsStartFromThePointerHover() {
        let engine = SelectionEngine(store: DemoCharts.sales())
        engine.move("v1", x: DemoCharts.centreX(4, of: 12))
        engine.key(viewer: "v1", command: .right, shift: false, viewport: nil)
        XCTAssertEqual(engine.selection.hovers.first?.x, .category("June"))
    }

    func testShiftArrowsExtendAKeyboardRangeUntilEscapeOrAPlainArrow() {
        let store = DemoCharts.intake()
        let engine = SelectionEngine(store: store)
        engine.key(viewer: "v1", command: .right, shift: false, viewport: nil)   // cursor on bar 0
        engine.key(viewer: "v1", command: .right, shift: false, viewport: nil)   // bar 1
        XCTAssertTrue(engine.key(viewer: "v1", command: .right, shift: true, viewport: nil))
        engine.key(viewer: "v1", command: .right, shift: true, viewport: nil)
        let range = engine.selection.range
        XCTAssertEqual(range?.from, .number(store.xNumber(at: 1)))
        XCTAssertEqual(range?.to, .number(store.xNumber(at: 3)))
        XCTAssertEqual(range?.count, 3)
        XCTAssertEqual(engine.dragOwner, "v1")
        // Another viewer's drag is ignored while the keyboard range is owned.
        XCTAssertFalse(engine.drag("v2", from: 100, through: [500]))
        engine.pointer(viewer: "v2", phase: .up, x: 500, y: 100, viewport: DemoCharts.viewport)
        // Shift+left past the anchor reverses it, normalised.
        for _ in 0..<4 { engine.key(viewer: "v1", command: .left, shift: true, viewport: nil) }
        XCTAssertEqual(engine.selection.range?.from, .number(store.xNumber(at: 0)))
        XCTAssertEqual(engine.selection.range?.to, .number(store.xNumber(at: 1)))
        XCTAssertTrue(engine.key(viewer: "v1", command: .left, shift: false, viewport: nil))
        XCTAssertNil(engine.selection.range, "a plain arrow ends the keyboard range")
        engine.key(viewer: "v1", command: .right, shift: true, viewport: nil)
        XCTAssertNotNil(engine.selection.range)
        XCTAssertTrue(engine.key(viewer: "v1", command: .escape, shift: false, viewport: nil))
        XCTAssertNil(engine.selection.range)
        XCTAssertNil(engine.dragOwner)
    }

    func testCategoryKeyboardRangeSpansWholeSteps() {
        let store = ChartStore(spec: ChartSpec(id: "c", title: "C", mark: .bar, xKind: .category, series: ["s"],
                                               categories: ["a", "b", "c", "d"],
                                               interactions: Interactions(drag: .range)))
        for i in 0..<4 { store.setValue(Double(i + 1), series: 0, category: i) }
        let engine = SelectionEngine(store: store)
        engine.key(viewer: "v1", command: .home, shift: false, viewport: nil)
        engine.key(viewer: "v1", command: .right, shift: true, viewport: nil)
        engine.key(viewer: "v1", command: .right, shift: true, viewport: nil)
        let range = engine.selection.range
        XCTAssertEqual(range?.from, .category("a"))
        XCTAssertEqual(range?.to, .category("c"))
        XCTAssertEqual(range?.fromFraction, 0)
        XCTAssertEqual(range?.toFraction, 0.75)
        XCTAssertEqual(range?.totals.first?.sum, 6)
        XCTAssertEqual(range?.rows.map { $0.y }, [1, 2, 3])
    }

    func testEnterPinsAndUnpinsTheCursorAndEscapeClearsThePin() {
        let store = DemoCharts.temperature()
        let engine = SelectionEngine(store: store)
        engine.key(viewer: "v1", command: .end, shift: false, viewport: nil)
        XCTAssertTrue(engine.key(viewer: "v1", command: .enter, shift: false, viewport: nil))
        XCTAssertEqual(engine.selection.pin?.x, .number(store.xNumber(at: 29)))
        XCTAssertTrue(engine.key(viewer: "v1", command: .enter, shift: false, viewport: nil))
        XCTAssertNil(engine.selection.pin)
        engine.key(viewer: "v1", command: .enter, shift: false, viewport: nil)
        XCTAssertTrue(engine.key(viewer: "v2", command: .escape, shift: false, viewport: nil), "escape clears the pin")
        XCTAssertNil(engine.selection.pin)
        let sales = SelectionEngine(store: DemoCharts.sales())
        sales.key(viewer: "v1", command: .right, shift: false, viewport: nil)
        XCTAssertFalse(sales.key(viewer: "v1", command: .enter, shift: false, viewport: nil), "sales has no tap")
    }

    func testShiftArrowsOnlyMoveTheCursorWhileAnotherViewerDrags() {
        let store = DemoCharts.intake()
        let engine = SelectionEngine(store: store)
        engine.drag("v1", from: 100, through: [300])
        let range = engine.selection.range
        engine.key(viewer: "v2", command: .home, shift: false, viewport: nil)
        XCTAssertTrue(engine.key(viewer: "v2", command: .right, shift: true, viewport: nil))
        XCTAssertEqual(engine.selection.range, range, "v1 keeps the range")
        XCTAssertEqual(engine.dragOwner, "v1")
        XCTAssertEqual(engine.selection.hovers.first { $0.by == "v2" }?.x, .number(store.xNumber(at: 1)))
    }
}
