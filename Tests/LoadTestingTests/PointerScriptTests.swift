import ChartCastDemo
import ChartCastProtocol
import ChartEngine
import XCTest
@testable import LoadTesting

final class PointerScriptTests: XCTestCase {
    /// The demo dashboard's specs, as a driver reads them from `welcome`.
    let demo = DemoDashboard.specs(window: 60)
    let plot = Viewport.loadTestStandard

    private func take(_ script: inout PointerScript, _ n: Int) -> [ClientMessage.PointerInput] {
        (0..<n).compactMap { _ in script.next() }
    }

    /// The category index a canvas x falls in.
    private func category(_ x: Double, of n: Int) -> Int { Int((x - plot.x) / (plot.width / Double(n))) }

    func testHoverVisitsANewCategoryWithEveryMove() {
        var script = PointerScript(pattern: .hover, charts: demo, driver: 0)
        let steps = take(&script, 30)
        XCTAssertEqual(steps.count, 30)
        XCTAssertTrue(steps.allSatisfy { $0.chart == "sales" && $0.phase == .move })
        let cats = steps.map { category($0.x, of: 12) }
        for (a, b) in zip(cats, cats.dropFirst()) { XCTAssertNotEqual(a, b) }
        XCTAssertTrue(steps.allSatisfy { $0.x > plot.x && $0.x < plot.x + plot.width && $0.y > plot.y && $0.y < plot.y + plot.height })
    }

    func testScrubIsPressDragAcrossEveryMarkRelease() {
        var script = PointerScript(pattern: .scrub, charts: demo, driver: 0)
        let steps = take(&script, 8)
        XCTAssertEqual(steps.map(\.chart), Array(repeating: "workouts", count: 8))
        XCTAssertEqual(steps.first?.phase, .down)
        XCTAssertEqual(steps.last?.phase, .up)
        XCTAssertEqual(steps.dropFirst().dropLast().map { category($0.x, of: 7) }, [1, 2, 3, 4, 5, 6])
        XCTAssertGreaterThan(steps[1].x - steps[0].x, 5, "the first move must exceed the 5 px drag threshold")
    }

    func testDriversSpreadOverChartsAcceptingTheGesture() {
        var d0 = PointerScript(pattern: .scrub, charts: demo, driver: 0)
        var d1 = PointerScript(pattern: .scrub, charts: demo, driver: 1)
        XCTAssertEqual(d0.next()?.chart, "workouts")
        XCTAssertEqual(d1.next()?.chart, "expenses")
    }

    func testRangeWidensMonotonicallyThenReleases() {
        var script = PointerScript(pattern: .range, charts: demo, driver: 0)
        let steps = take(&script, 18)
        XCTAssertEqual(steps.first?.phase, .down)
        XCTAssertEqual(steps.last?.phase, .up)
        let moves = steps.filter { $0.phase == .move }.map(\.x)
        XCTAssertEqual(moves.count, 16)
        XCTAssertEqual(moves, moves.sorted())
        XCTAssertEqual(Set(moves).count, moves.count, "every move changes the range")
        XCTAssertTrue(["intake", "temperature"].contains(steps[0].chart))
    }

    func testMixedCyclesThroughEveryGestureIncludingPinTaps() {
        var script = PointerScript(pattern: .mixed, charts: demo, driver: 0)
        let steps = take(&script, 200)
        XCTAssertEqual(Set(steps.map(\.chart)), ["sales", "workouts", "expenses", "intake", "temperature"])
        // A tap on the tap chart: down then up at the same point.
        let taps = zip(steps, steps.dropFirst()).filter { $0.0.chart == "temperature" && $0.0.phase == .down && $0.1.phase == .up && $0.0.x == $0.1.x }
        XCTAssertFalse(taps.isEmpty)
    }

    func testMixedSkipsGesturesNoChartAccepts() {
        var script = PointerScript(pattern: .mixed, charts: [demo[3]], driver: 0)
        let steps = take(&script, 40)
        XCTAssertEqual(steps.count, 40)
        XCTAssertTrue(steps.allSatisfy { $0.chart == "sales" })
    }

    func testNoEligibleChartYieldsNothing() {
        var script = PointerScript(pattern: .range, charts: [demo[3]], driver: 0)
        XCTAssertNil(script.next())
    }

    func testFinishReleasesThePressAndLeavesTouchedCharts() {
        var script = PointerScript(pattern: .mixed, charts: demo, driver: 0)
        _ = take(&script, 14)   // 12 hover moves + leave on sales, then the scrub press
        let finish = script.finish()
        XCTAssertEqual(finish.first?.phase, .up)
        XCTAssertEqual(finish.first?.chart, "workouts")
        XCTAssertTrue(finish.contains { $0.phase == .leave && $0.chart == "workouts" })
        XCTAssertFalse(finish.contains { $0.chart == "sales" }, "sales was already left")
        XCTAssertTrue(script.finish().isEmpty, "finishing twice sends nothing more")
    }

    func testIsDraggingOnlyBetweenAPressThatMovedAndItsRelease() {
        var script = PointerScript(pattern: .scrub, charts: demo, driver: 0)
        XCTAssertEqual(script.next()?.phase, .down)
        XCTAssertTrue(script.isPressed)
        XCTAssertFalse(script.isDragging, "pressed, not moved yet")
        XCTAssertEqual(script.next()?.phase, .move)
        XCTAssertTrue(script.isDragging)
        while let step = script.next(), step.phase != .up {}
        XCTAssertFalse(script.isPressed)
        XCTAssertFalse(script.isDragging)
        // A pin tap presses without moving: never a drag.
        var taps = PointerScript(pattern: .mixed, charts: demo, driver: 0)
        var sawTapPress = false
        for _ in 0..<200 {
            guard let step = taps.next() else { break }
            if step.phase == .down, step.chart == "temperature" { sawTapPress = true; XCTAssertFalse(taps.isDragging) }
        }
        XCTAssertTrue(sawTapPress)
    }

    func testHoverAimsAtTheCentreOfEveryCategoryOfTheSpec() {
        let spec = ChartSpec(id: "h", title: "h", mark: .bar, xKind: .category, series: ["s"], categories: ["a", "b", "c", "d"],
                             interactions: Interactions(hover: true))
        var script = PointerScript(pattern: .hover, charts: [spec], driver: 0)
        XCTAssertEqual(take(&script, 4).map { category($0.x, of: 4) }, [0, 1, 2, 3])
    }
}
