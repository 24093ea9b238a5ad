import XCTest
@testable import ChartEngine

/// Several viewers sharing one chart's selection.
final class MultiViewerTests: XCTestCase {
    private let viewport = DemoCharts.viewport

    func testHoversArePerViewerNewestFirstAndCappedAtEight() {
        let engine = SelectionEngine(store: DemoCharts.sales())
        engine.move("v1", x: DemoCharts.centreX(0, of: 12))
        engine.move("v2", x: DemoCharts.centreX(1, of: 12))
        XCTAssertEqual(engine.selection.hovers.map { $0.by }, ["v2", "v1"])
        XCTAssertEqual(engine.selection.hovers.map { $0.x }, [.category("February"), .category("January")])
        XCTAssertFalse(engine.move("v1", x: DemoCharts.centreX(0, of: 12) + 2), "unchanged hover keeps its place")
        XCTAssertTrue(engine.move("v1", x: DemoCharts.centreX(3, of: 12)))
        XCTAssertEqual(engine.selection.hovers.map { $0.by }, ["v1", "v2"], "a changed hover is the newest")
        for v in 3...10 { engine.move("v\(v)", x: DemoCharts.centreX(v, of: 12) - 40) }
        XCTAssertEqual(engine.selection.hovers.count, Selection.maxHovers)
        XCTAssertEqual(engine.selection.hovers.first?.by, "v10")
        XCTAssertFalse(engine.selection.hovers.contains { $0.by == "v2" || $0.by == "v1" }, "the oldest drop out")
    }

    func testASecondViewersDragDuringTheFirstsIsIgnoredEntirely() {
        let store = DemoCharts.temperature()
        let engine = SelectionEngine(store: store)
        engine.drag("v1", from: 100, through: [300])
        let range = engine.selection.range
        XCTAssertEqual(range?.by, "v1")
        XCTAssertEqual(engine.dragOwner, "v1")
        XCTAssertFalse(engine.drag("v2", from: 400, through: [600, 650]), "v2's drag changes nothing")
        XCTAssertEqual(engine.selection.range, range)
        XCTAssertFalse(engine.pointer(viewer: "v2", phase: .up, x: 650, y: 100, viewport: viewport))
        XCTAssertFalse(engine.tap("v2", x: 500), "v2's tap is ignored too while v1 drags")
        XCTAssertNil(engine.selection.pin)
        // v1 releases: v2's later press works again.
        XCTAssertTrue(engine.pointer(viewer: "v1", phase: .up, x: 300, y: 100, viewport: viewport))
        XCTAssertNil(engine.dragOwner)
        XCTAssertTrue(engine.drag("v2", from: 400, through: [600]))
        XCTAssertEqual(engine.selection.range?.by, "v2")
    }

    func testAPressThatBeganDuringAnotherDragStaysIgnoredAfterItEnds() {
        let engine = SelectionEngine(store: DemoCharts.workouts())
        engine.drag("v1", from: 100, through: [200])
        engine.pointer(viewer: "v2", phase: .down, x: 400, y: 100, viewport: viewport)
        engine.pointer(viewer: "v1", phase: .up, x: 200, y: 100, viewport: viewport)
        XCTAssertFalse(engine.move("v2", x: 600))
        XCTAssertNil(engine.selection.scrub)
    }

    func testRemovingTheDragOwnerMidDragClearsTheRangeAndItsHover() {
        let engine = SelectionEngine(store: DemoCharts.intake())
        engine.drag("v1", from: 100, through: [400])
        XCTAssertNotNil(engine.selection.range)
        XCTAssertFalse(engine.removeViewer("v9"), "unknown viewer: nothing changes")
        XCTAssertTrue(engine.removeViewer("v1"))
        XCTAssertNil(engine.selection.range)
        XCTAssertNil(engine.dragOwner)
        XCTAssertTrue(engine.drag("v2", from: 100, through: [300]), "the chart is free again")
    }

    func testLeaveEndsTheDragAndClearsTheHover() {
        let engine = SelectionEngine(store: DemoCharts.workouts())
        engine.drag("v1", from: 100, through: [300])
        XCTAssertNotNil(engine.selection.scrub)
        XCTAssertTrue(engine.pointer(viewer: "v1", phase: .leave, x: 700, y: 100, viewport: viewport))
        XCTAssertEqual(engine.selection, .empty)
        XCTAssertNil(engine.dragOwner)
    }

    func testRemovingAViewerKeepsThePin() {
        let engine = SelectionEngine(store: DemoCharts.temperature())
        engine.tap("v1", x: 300)
        XCTAssertNotNil(engine.selection.pin)
        XCTAssertFalse(engine.removeViewer("v1"))
        XCTAssertNotNil(engine.selection.pin)
    }

    func testEachViewerUsesItsOwnViewport() {
        let engine = SelectionEngine(store: DemoCharts.sales())
        let small = Viewport(x: 10, y: 10, width: 120, height: 80, rtl: false)
        engine.move("v1", x: 10 + 2.5 * 10, viewport: small)
        engine.move("v2", x: DemoCharts.centreX(2, of: 12))
        XCTAssertEqual(engine.selection.hovers.map { $0.x }, [.category("March"), .category("March")])
    }
}
