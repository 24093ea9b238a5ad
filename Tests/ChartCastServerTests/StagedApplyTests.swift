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

/// A service pass writes at most its `DataBudget` share of chart data to all viewers together; the
/// viewers still owed some are held and woken a batch at a time in later passes, while
/// selections still go out in this one.
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
            if next.frame == nil, harness.core.isHeld(viewer) { held.append(viewer) } else { written += next.frame?.count ?? 0 }
        }
        XCTAssertGreaterThan(written, 0, "at least one viewer is served in a pass")
        XCTAssertFalse(held.isEmpty, "the rest wait for the next pass")
        XCTAssertLessThan(written, 2 * DataBudget.baseBytes, "at most one frame past the budget")
        // Over the budget, a selection still goes out in this pass.
        harness.core.receive(.text(ClientMessage.pointer(.init(chart: "hover", phase: .move, x: 130, y: 90, ref: "now")).encode()),
                             from: driver)
        let waiting = try XCTUnwrap(held.last)
        guard case .selection(let update)? = try harness.core.nextFrame(for: waiting).frame.map({ try ServerMessage.decode($0.bytes) }) else {
            return XCTFail("the selection did not jump the held data")
        }
        XCTAssertEqual(update.ref, "now")
        XCTAssertNil(harness.core.nextFrame(for: waiting).frame, "and its data still waits for a later pass")
        XCTAssertTrue(harness.core.isHeld(waiting))
        let wakes = waiting.writeRequests
        harness.core.finishServicePass()
        XCTAssertGreaterThan(waiting.writeRequests, wakes, "held viewers are woken at the end of the pass, a batch at a time")
        XCTAssertFalse(harness.core.isHeld(waiting))
        for viewer in held {
            let messages = try harness.drain(viewer)   // the held data arrives over the next passes
            XCTAssertTrue(messages.contains { if case .snapshot(let s) = $0 { return s.chart == "big" }; return false })
        }
        XCTAssertGreaterThan(harness.core.metrics.dataWritesDeferred, 0)
    }

    /// A crowd owed big snapshots is served over many passes at a cost proportional to the
    /// crowd: a held viewer is not asked again until it is woken (asking every held viewer in
    /// every pass made 5,000 arrivals cost 6.5 ms of CPU each).
    func testACrowdOwedSnapshotsIsServedWithAFewPullsPerViewer() throws {
        let charts = BigCharts()
        let harness = charts.harness
        try charts.bigChart("big", rows: 30_000, series: ["a"], window: 100_000)
        let crowd = (0..<1_500).map { i in
            CoreHarness.Connection(id: 50_000 + i, remoteAddress: "127.0.0.1:\(50_000 + i)", authorization: nil)
        }
        var asked = crowd.map { $0.writeRequests }
        for viewer in crowd { harness.core.open(viewer) }
        // Passes as libwebsockets makes them: each pulls the connections that asked to write
        // since the previous one, once, again while the answer says more is pending.
        var pulls = 0, frames = 0, passes = 0
        while passes < 100_000 {
            let armed = crowd.indices.filter { crowd[$0].writeRequests != asked[$0] }
            guard !armed.isEmpty else { break }
            for i in armed { asked[i] = crowd[i].writeRequests }
            for i in armed {
                var more = true
                while more {
                    let next = harness.core.nextFrame(for: crowd[i])
                    pulls += 1
                    if next.frame != nil { frames += 1 }
                    more = next.morePending && next.frame != nil
                }
            }
            harness.core.finishServicePass()
            harness.core.publishViewersIfNeeded(now: ServerCore.now() + 10_000_000_000)
            passes += 1
        }
        XCTAssertTrue(crowd.allSatisfy { !harness.core.isHeld($0) }, "everyone was served")
        XCTAssertGreaterThan(passes, 10, "the crowd's snapshots took many passes (the budget held)")
        // Asking every held viewer in every pass would be about viewers × passes pulls (here
        // 1,500 × hundreds); held viewers asked only when woken cost a few pulls each.
        XCTAssertLessThan(pulls, frames + 8 * crowd.count,
                          "\(pulls) pulls for \(frames) frames over \(passes) passes, \(harness.core.metrics.dataWritesDeferred) holds")
    }
}
