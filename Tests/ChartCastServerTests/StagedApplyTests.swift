import ChartCastIngest
import ChartCastProtocol
import ChartEngine
import Foundation
import TestSupport
import XCTest
@testable import ChartCastServer

/// Applies of writes take turns with the sockets: each service pass runs them for a budget (at
/// least one), in order, and asks for another pass when some are left, so pointer input is read
/// between two big writes instead of after all of them.
final class StagedApplyTests: XCTestCase {
    func testEachPassRunsAppliesForItsBudgetInOrderAndAsksForAnotherPass() throws {
        let harness = CoreHarness()
        var ran: [Int] = []
        for i in 0..<3 {
            harness.core.stageApply {
                ran.append(i)
                Thread.sleep(forTimeInterval: 2 * ServerCore.applyBudget)   // a big write: over the budget alone
            }
        }
        XCTAssertEqual(ran, [], "staged, not run")
        harness.core.finishServicePass()
        XCTAssertEqual(ran, [0], "one big apply per pass")
        XCTAssertEqual(harness.handedBackCount, 1, "and another pass asked for at once")
        harness.runHandedBack()
        XCTAssertEqual(ran, [0, 1])
        harness.runHandedBack()
        XCTAssertEqual(ran, [0, 1, 2])
        XCTAssertEqual(harness.handedBackCount, 0, "nothing left: no pass asked for")
        for i in 3..<13 { harness.core.stageApply { ran.append(i) } }
        harness.core.finishServicePass()
        XCTAssertEqual(ran, Array(0..<13), "small applies share one pass")
    }

    func testAWriteIsAnsweredOnlyOnceItsApplyRan() throws {
        let harness = CoreHarness()
        _ = try harness.api("PUT", "/api/charts/c", json: #"{"mark":"line","x":{"kind":"linear"},"retention":"0"}"#)
        let core = harness.core
        var answer: APIResponse?
        let body = PointsBody.columns(x: [1, 2, 3], series: [(name: "v", values: [1, 2, 3])])
        let request = APIRequest(method: "POST", path: "/api/charts/c/points", query: nil,
                                 headers: ["content-type": "application/json"], body: body, peerIP: "127.0.0.1")
        XCTAssertTrue(core.handleAPI(request, reply: { answer = $0 }))
        XCTAssertTrue(eventually { harness.handedBackCount > 0 }, "the worker parsed the body")
        // Run the worker's result without ending the pass: the apply is staged, not done.
        harness.runHandedBackWithoutEndingThePass()
        XCTAssertNil(answer)
        XCTAssertEqual(core.channelsByID["c"]?.store.count, 0)
        core.finishServicePass()
        XCTAssertEqual(answer?.status, 200)
        XCTAssertEqual(core.channelsByID["c"]?.store.count, 3)
    }
}

/// A service pass writes at most `bulkBytesPerPass` of chart data to all viewers together; the
/// rest is asked for again in the next pass, while selections still go out in this one.
final class DataBudgetTests: XCTestCase {
    func testAPassWritesItsShareOfChartDataThenHoldsTheRestButNotSelections() throws {
        let charts = BigCharts()
        let harness = charts.harness
        // 30,000 rows: a snapshot for a 1,000 px plot is a good part of the budget.
        try charts.bigChart("big", rows: 30_000, series: ["a"], window: 100_000)
        try charts.bigChart("hover", rows: 100, series: ["a"])
        let viewers = try (0..<12).map { _ in try charts.openViewer().0 }
        let (driver, _) = try charts.openViewer()
        harness.send(charts.viewport("hover", width: 600), from: driver)
        for viewer in viewers { harness.send(charts.viewport("big", width: 1_000), from: viewer) }
        // A write every viewer takes as a snapshot (more than 4 points per pixel column).
        let xs = (0..<5_000).map { BigCharts.t0 + Double(30_000 + $0) * 1_000 }
        try charts.write("big", series: "a", xs: xs, ys: Array(repeating: 1, count: xs.count))   // ends a pass too
        var written = 0, held: [CoreHarness.Connection] = []
        for viewer in viewers {
            let next = harness.core.nextFrame(for: viewer)
            if next.isLater { held.append(viewer) } else { written += next.frame?.count ?? 0 }
        }
        XCTAssertGreaterThan(written, 0, "at least one viewer is served in a pass")
        XCTAssertFalse(held.isEmpty, "the rest wait for the next pass")
        XCTAssertLessThan(written, 2 * ServerCore.bulkBytesPerPass, "at most one frame past the budget")
        // Over the budget, a selection still goes out in this pass.
        harness.core.receive(.text(ClientMessage.pointer(.init(chart: "hover", phase: .move, x: 130, y: 90, ref: "now")).encode()),
                             from: driver)
        let waiting = try XCTUnwrap(held.last)
        guard case .selection(let update)? = try harness.core.nextFrame(for: waiting).frame.map({ try ServerMessage.decode($0.bytes) }) else {
            return XCTFail("the selection did not jump the held data")
        }
        XCTAssertEqual(update.ref, "now")
        XCTAssertTrue(harness.core.nextFrame(for: waiting).isLater, "and its data still waits for the next pass")
        harness.core.finishServicePass()
        for viewer in held {
            let messages = try harness.drain(viewer)   // the held data arrives over the next passes
            XCTAssertTrue(messages.contains { if case .snapshot(let s) = $0 { return s.chart == "big" }; return false })
        }
        XCTAssertGreaterThan(harness.core.metrics.dataWritesDeferred, 0)
    }
}
