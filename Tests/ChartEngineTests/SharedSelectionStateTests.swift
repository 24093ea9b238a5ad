import XCTest
@testable import ChartEngine

/// A selection engine's shared state taken as a value and given to another engine over the
/// same data (what an instance that joins a dashboard does): the new engine holds the same
/// selection and decides every later input as the first does.
final class SharedSelectionStateTests: XCTestCase {
    private let viewport = DemoCharts.viewport

    /// Applies a raw event as data-space input (recognised on `recogniser`, applied on each engine).
    private func input(_ viewer: String, _ phase: PointerPhase, x: Double, recogniser: SelectionEngine, engines: [SelectionEngine]) {
        guard let data = recogniser.recognize(viewer: viewer, phase: phase, x: x, y: 100, viewport: viewport) else { return }
        for engine in engines { _ = engine.apply(data, from: viewer) }
    }

    func testARestoredEngineHoldsTheSelectionAndDecidesLaterInputsAlike() {
        let store = DemoCharts.temperature()   // range drags and taps that pin
        let at = { (t: Double) in DemoCharts.pixel(DemoCharts.may1 + t * DemoCharts.day, in: store) }
        let first = SelectionEngine(store: store)
        // v1 drags a range and holds it; v2 presses while v1 drags (its press is ignored); v3 has
        // a keyboard cursor; a pin.
        input("v3", .down, x: at(12), recogniser: first, engines: [first])
        input("v3", .up, x: at(12), recogniser: first, engines: [first])
        _ = first.key(viewer: "v3", command: .right, shift: false, viewport: nil)
        input("v1", .down, x: at(4), recogniser: first, engines: [first])
        input("v1", .move, x: at(9), recogniser: first, engines: [first])
        input("v2", .down, x: at(20), recogniser: first, engines: [first])
        input("v2", .move, x: at(24), recogniser: first, engines: [first])
        let state = first.sharedState()
        XCTAssertEqual(state.drag?.owner, "v1")
        XCTAssertTrue(state.viewers.contains { $0.viewer == "v2" && $0.pressIgnored }, "v2's press is ignored")
        XCTAssertNotNil(state.pinnedX)
        // Another engine over a copy of the data, restored from the state, keeping the gestures of
        // the engine it replaces on its instance (v1 and v2 are pressing there).
        let copy = DemoCharts.temperature()
        let second = SelectionEngine(store: copy)
        second.restore(state, keepingGesturesOf: first)
        XCTAssertEqual(second.selection, first.selection)
        XCTAssertEqual(second.sharedState(), state)
        XCTAssertEqual(second.dragOwner, "v1")
        // Later inputs: both decide alike (v2's ignored press stays ignored, v1 moves and releases).
        for (viewer, phase, t) in [("v2", PointerPhase.move, 26.0), ("v1", .move, 14), ("v2", .up, 26), ("v1", .up, 14),
                                   ("v2", .down, 2), ("v2", .move, 6)] {
            input(viewer, phase, x: at(t), recogniser: second, engines: [first, second])
            XCTAssertEqual(second.selection, first.selection, "\(viewer) \(phase) at \(t)")
            XCTAssertEqual(second.dragOwner, first.dragOwner)
        }
        XCTAssertEqual(second.dragOwner, "v2", "once v1 let go, v2's new drag took the chart")
        XCTAssertEqual(second.sharedState(), first.sharedState())
    }

    func testViewersWithoutSharedStateAreLeftOut() {
        let engine = SelectionEngine(store: DemoCharts.sales())
        // A recognised move that is not applied yet leaves a recogniser here and nothing shared.
        _ = engine.recognize(viewer: "v9", phase: .move, x: DemoCharts.centreX(2, of: 12), y: 100, viewport: viewport)
        XCTAssertEqual(engine.sharedState().viewers, [])
        XCTAssertEqual(engine.sharedState(), SelectionEngine(store: DemoCharts.sales()).sharedState())
    }
}
