import XCTest
@testable import ChartEngine

/// Selection inputs in data space (`recognize` on the instance holding the viewer, `apply`
/// everywhere): on a chart whose data does not move they select what raw pointer events
/// select, and engines that apply the same inputs in the same order hold the same selection
/// whatever geometry each viewer had.
final class DataInputTests: XCTestCase {
    private let viewport = DemoCharts.viewport

    /// One raw event for one viewer.
    private struct Event {
        var viewer: String
        var phase: PointerPhase
        var x: Double
        var y: Double = 100
    }

    /// Feeds `events` to one engine as raw pointer events and to another as recognised inputs,
    /// checking after every event that both hold the same selection.
    private func assertSameAsPointer(_ make: () -> ChartStore, _ events: [Event], file: StaticString = #filePath, line: UInt = #line) {
        let raw = SelectionEngine(store: make()), data = SelectionEngine(store: make())
        for (i, event) in events.enumerated() {
            _ = raw.pointer(viewer: event.viewer, phase: event.phase, x: event.x, y: event.y, viewport: viewport)
            if let input = data.recognize(viewer: event.viewer, phase: event.phase, x: event.x, y: event.y, viewport: viewport) {
                _ = data.apply(input, from: event.viewer)
            }
            XCTAssertEqual(data.selection, raw.selection, "after event \(i) (\(event.phase) at \(event.x))", file: file, line: line)
            XCTAssertEqual(data.dragOwner, raw.dragOwner, "after event \(i)", file: file, line: line)
        }
    }

    func testCategoryScrubHoverAndTapMatchRawPointerEvents() {
        let workouts = (0..<7).map { DemoCharts.centreX($0, of: 7) }
        assertSameAsPointer(DemoCharts.workouts, [
            Event(viewer: "v1", phase: .down, x: workouts[1]), Event(viewer: "v1", phase: .move, x: workouts[2], y: 40),
            Event(viewer: "v2", phase: .move, x: workouts[4]), Event(viewer: "v1", phase: .move, x: viewport.x - 50, y: 400),
            Event(viewer: "v1", phase: .move, x: viewport.x + viewport.width + 30), Event(viewer: "v1", phase: .up, x: workouts[6]),
            Event(viewer: "v2", phase: .leave, x: 0),
        ])
        let sales = (0..<12).map { DemoCharts.centreX($0, of: 12) }
        assertSameAsPointer(DemoCharts.sales, [
            Event(viewer: "v1", phase: .move, x: sales[2]), Event(viewer: "v2", phase: .move, x: sales[8]),
            Event(viewer: "v1", phase: .move, x: sales[2] + 3), Event(viewer: "v1", phase: .move, x: viewport.x - 5),
            Event(viewer: "v2", phase: .down, x: sales[5]), Event(viewer: "v2", phase: .up, x: sales[5] + 1),
            Event(viewer: "v2", phase: .leave, x: 0),
        ])
    }

    func testTimeRangesTapsAndPinsMatchRawPointerEvents() {
        let store = DemoCharts.intake()
        let at = { (t: Double) in DemoCharts.pixel(DemoCharts.may1 + t * DemoCharts.day, in: store) }
        assertSameAsPointer(DemoCharts.intake, [
            Event(viewer: "v1", phase: .move, x: at(3)), Event(viewer: "v1", phase: .down, x: at(4)),
            Event(viewer: "v1", phase: .move, x: at(9)), Event(viewer: "v2", phase: .down, x: at(20)),
            Event(viewer: "v2", phase: .move, x: at(24)), Event(viewer: "v1", phase: .move, x: viewport.x + viewport.width + 90),
            Event(viewer: "v2", phase: .up, x: at(24)), Event(viewer: "v1", phase: .up, x: at(22)),
            Event(viewer: "v2", phase: .down, x: at(12)), Event(viewer: "v2", phase: .up, x: at(12) + 2),
            Event(viewer: "v1", phase: .down, x: at(12)), Event(viewer: "v1", phase: .up, x: at(12)),
            Event(viewer: "v1", phase: .down, x: at(16)), Event(viewer: "v1", phase: .up, x: at(16)),
            Event(viewer: "v1", phase: .down, x: viewport.x - 20), Event(viewer: "v1", phase: .up, x: viewport.x - 20),
            Event(viewer: "v2", phase: .up, x: at(2)),
        ])
    }

    func testEnginesApplyingTheSameInputsAgreeWhateverEachViewersGeometry() {
        // Two "instances": each recognises its own viewer's events in that viewer's geometry;
        // both apply every input in one order.
        let a = SelectionEngine(store: DemoCharts.temperature()), b = SelectionEngine(store: DemoCharts.temperature())
        let narrow = Viewport(x: 10, y: 5, width: 300, height: 120), wide = Viewport(x: 60, y: 20, width: 1400, height: 500, rtl: true)
        var log: [(String, SelectionInput)] = []
        func event(_ engine: SelectionEngine, _ viewer: String, _ phase: PointerPhase, fraction: Double, in plot: Viewport) {
            let local = fraction * plot.width
            let x = plot.rtl ? plot.x + plot.width - local : plot.x + local
            if let input = engine.recognize(viewer: viewer, phase: phase, x: x, y: plot.y + plot.height / 2, viewport: plot) {
                log.append((viewer, input))
            }
        }
        event(a, "v1", .move, fraction: 0.2, in: narrow)
        event(b, "v2", .move, fraction: 0.7, in: wide)
        event(a, "v1", .down, fraction: 0.3, in: narrow)
        event(a, "v1", .move, fraction: 0.6, in: narrow)
        event(b, "v2", .down, fraction: 0.1, in: wide)   // v1 drags: this press is ignored
        event(b, "v2", .move, fraction: 0.9, in: wide)
        event(b, "v2", .up, fraction: 0.9, in: wide)
        for (viewer, input) in log {
            _ = a.apply(input, from: viewer)
            _ = b.apply(input, from: viewer)
            XCTAssertEqual(a.selection, b.selection)
        }
        XCTAssertEqual(a.dragOwner, "v1")
        XCTAssertEqual(a.selection.range?.by, "v1")
        XCTAssertEqual(b.dragOwner, "v1", "v2's press while v1 dragged was ignored on both")
        // The same fractions of two different plots mean the same data.
        let range = try! XCTUnwrap(a.selection.range)
        XCTAssertEqual(range.fromFraction, 0.3, accuracy: 1e-9)
        XCTAssertEqual(range.toFraction, 0.6, accuracy: 1e-9)
    }

    func testAnExpiredDragIsReportedOnceAndRevokedAlikeEverywhere() {
        let a = SelectionEngine(store: DemoCharts.temperature()), b = SelectionEngine(store: DemoCharts.temperature())
        var inputs: [SelectionInput] = []
        for (phase, x) in [(PointerPhase.down, 100.0), (.move, 300)] {
            if let input = a.recognize(viewer: "v1", phase: phase, x: x, y: 100, viewport: viewport) { inputs.append(input) }
        }
        for input in inputs {
            _ = a.apply(input, from: "v1")
            _ = b.apply(input, from: "v1")
        }
        a.noteInput(from: "v1", at: 10)
        XCTAssertNil(a.idleDragOwner(now: 15, lease: 10))
        XCTAssertEqual(a.idleDragOwner(now: 20, lease: 10), "v1")
        XCTAssertNil(a.idleDragOwner(now: 21, lease: 10), "reported once per lease")
        XCTAssertNotNil(a.dragOwner, "reporting does not end the drag")
        let pressed = a.isPressing("v1")
        XCTAssertTrue(pressed)
        XCTAssertEqual(a.revokeDrag(ownerPressed: pressed), "v1")
        XCTAssertEqual(b.revokeDrag(ownerPressed: pressed), "v1")
        XCTAssertEqual(a.selection, b.selection)
        XCTAssertNil(b.selection.range)
        // The rest of the owner's press is ignored on both: its next move takes nothing back.
        let move = a.recognize(viewer: "v1", phase: .move, x: 500, y: 100, viewport: viewport)!
        XCTAssertFalse(a.apply(move, from: "v1"))
        XCTAssertFalse(b.apply(move, from: "v1"))
        XCTAssertNil(b.dragOwner)
    }
}
