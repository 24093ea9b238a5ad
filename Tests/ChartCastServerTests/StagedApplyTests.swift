import ChartCastIngest
import ChartCastProtocol
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
