import XCTest
@testable import ChartEngine

/// The drag lease: a drag owner that sends no input for the lease loses the drag, with time
/// passed in by the caller.
final class DragLeaseTests: XCTestCase {
    private let viewport = DemoCharts.viewport

    /// A pointer event of `viewer` at `time`, noted as the server does after each input.
    @discardableResult
    private func pointer(_ engine: SelectionEngine, _ viewer: String, _ phase: PointerPhase, x: Double, at time: Double) -> Bool {
        let changed = engine.pointer(viewer: viewer, phase: phase, x: x, y: 100, viewport: viewport)
        engine.noteInput(from: viewer, at: time)
        return changed
    }

    func testASilentOwnerLosesTheDragAfterTheLeaseAndOthersCanDrag() {
        let engine = SelectionEngine(store: DemoCharts.intake())
        pointer(engine, "v1", .down, x: 100, at: 0)
        pointer(engine, "v1", .move, x: 300, at: 1)
        XCTAssertEqual(engine.dragOwner, "v1")
        XCTAssertEqual(engine.selection.range?.by, "v1")
        XCTAssertNil(engine.releaseIdleDrag(now: 10.9, lease: 10), "9.9 s of silence: the lease holds")
        XCTAssertEqual(engine.dragOwner, "v1")
        XCTAssertEqual(engine.releaseIdleDrag(now: 11, lease: 10), "v1")
        XCTAssertNil(engine.dragOwner)
        XCTAssertNil(engine.selection.range, "the range ends as when its owner leaves")
        XCTAssertNil(engine.releaseIdleDrag(now: 12, lease: 10), "nothing left to release")
        XCTAssertTrue(engine.drag("v2", from: 200, through: [400]), "the chart is free again")
        XCTAssertEqual(engine.selection.range?.by, "v2")
    }

    func testEveryInputFromTheOwnerRenewsTheLease() {
        let engine = SelectionEngine(store: DemoCharts.workouts())
        pointer(engine, "v1", .down, x: 100, at: 0)
        for step in 1...30 {
            pointer(engine, "v1", .move, x: 100 + Double(step * 10), at: Double(step))
            XCTAssertNil(engine.releaseIdleDrag(now: Double(step) + 9.5, lease: 10))
        }
        XCTAssertEqual(engine.dragOwner, "v1")
        XCTAssertNotNil(engine.selection.scrub)
        // Another viewer's input does not renew it.
        engine.move("v2", x: 500)
        engine.noteInput(from: "v2", at: 39)
        XCTAssertEqual(engine.releaseIdleDrag(now: 40, lease: 10), "v1")
        XCTAssertNil(engine.selection.scrub)
    }

    func testTheFormerOwnerWakingUpMidGestureDoesNotTakeTheChartBack() {
        let engine = SelectionEngine(store: DemoCharts.intake())
        pointer(engine, "v1", .down, x: 100, at: 0)
        pointer(engine, "v1", .move, x: 300, at: 0)
        XCTAssertEqual(engine.releaseIdleDrag(now: 10, lease: 10), "v1")
        XCTAssertFalse(pointer(engine, "v1", .move, x: 350, at: 11), "the rest of its press is ignored")
        XCTAssertNil(engine.dragOwner)
        XCTAssertFalse(pointer(engine, "v1", .up, x: 350, at: 11))
        // Its next press is a new gesture and works as usual.
        XCTAssertTrue(engine.drag("v1", from: 120, through: [260]))
        XCTAssertEqual(engine.selection.range?.by, "v1")
    }

    func testAKeyboardRangeIsADragAndHoldsTheSameLease() {
        let engine = SelectionEngine(store: DemoCharts.intake())
        engine.key(viewer: "v1", command: .right, shift: true, viewport: nil)
        engine.noteInput(from: "v1", at: 0)
        engine.key(viewer: "v1", command: .right, shift: true, viewport: nil)
        engine.noteInput(from: "v1", at: 5)
        XCTAssertEqual(engine.selection.range?.by, "v1")
        XCTAssertNil(engine.releaseIdleDrag(now: 14, lease: 10))
        XCTAssertEqual(engine.releaseIdleDrag(now: 15, lease: 10), "v1")
        XCTAssertNil(engine.selection.range)
        XCTAssertNil(engine.dragOwner)
    }

    func testADragNeverNotedStartsItsLeaseAtTheFirstSweep() {
        let engine = SelectionEngine(store: DemoCharts.intake())
        engine.drag("v1", from: 100, through: [300])
        XCTAssertNil(engine.releaseIdleDrag(now: 100, lease: 10), "first sweep: the lease starts now")
        XCTAssertNil(engine.releaseIdleDrag(now: 109, lease: 10))
        XCTAssertEqual(engine.releaseIdleDrag(now: 110, lease: 10), "v1")
    }

    func testANewOwnerGetsAFreshLease() {
        let engine = SelectionEngine(store: DemoCharts.intake())
        pointer(engine, "v1", .down, x: 100, at: 0)
        pointer(engine, "v1", .move, x: 300, at: 0)
        pointer(engine, "v1", .up, x: 300, at: 1)
        pointer(engine, "v2", .down, x: 100, at: 20)
        pointer(engine, "v2", .move, x: 300, at: 20)
        XCTAssertNil(engine.releaseIdleDrag(now: 29, lease: 10), "v2's lease began at 20, not at v1's input")
        XCTAssertEqual(engine.releaseIdleDrag(now: 30, lease: 10), "v2")
    }

    func testRevokingKeepsThePin() {
        let engine = SelectionEngine(store: DemoCharts.temperature())
        XCTAssertTrue(engine.tap("v3", x: 300))
        engine.drag("v1", from: 100, through: [400])
        let pin = engine.selection.pin
        XCTAssertNotNil(pin)
        XCTAssertEqual(engine.revokeDrag(), "v1")
        XCTAssertNil(engine.selection.range)
        XCTAssertEqual(engine.selection.pin, pin)
        XCTAssertNil(engine.revokeDrag())
    }
}
