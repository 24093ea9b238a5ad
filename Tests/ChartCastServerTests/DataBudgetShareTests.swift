@testable import ChartCastServer
import XCTest

/// `DataBudget`: the share of chart data one service pass writes, and how it grows with the
/// cost of the passes while viewers wait.
final class DataBudgetShareTests: XCTestCase {
    private let ms: UInt64 = 1_000_000

    func testAPassIsSpentAtItsBytesOrItsTimeWhicheverComesFirst() {
        var budget = DataBudget()
        XCTAssertFalse(budget.isSpent(now: 0), "nothing written yet")
        budget.record(DataBudget.baseBytes - 1, now: 10 * ms)
        XCTAssertFalse(budget.isSpent(now: 10 * ms))
        XCTAssertTrue(budget.isSpent(now: 11 * ms), "1 ms after the first frame")
        budget.record(1, now: 10 * ms)
        XCTAssertTrue(budget.isSpent(now: 10 * ms), "256 KiB written")
        XCTAssertEqual(budget.frames, 2)
        budget.finishPass(now: 12 * ms, stillHeld: false)
        XCTAssertEqual(budget.bytes, 0)
        XCTAssertFalse(budget.isSpent(now: 100 * ms), "a new pass starts empty")
    }

    /// Table: (time from the end of a pass that left viewers held to the next pass's first data
    /// frame, the share in ms that pass gets).
    func testWhileViewersAreHeldAPassGetsAsLongAsThePreviousSpentOutsideItsDataUpTo16Ms() {
        let cases: [(overheadMs: UInt64, shareMs: UInt64)] = [(0, 1), (1, 1), (3, 3), (7, 7), (16, 16), (40, 16)]
        for (overheadMs, shareMs) in cases {
            var budget = DataBudget()
            budget.finishPass(now: 100 * ms, stillHeld: true)
            let first = (100 + overheadMs) * ms
            budget.record(1_000, now: first)
            XCTAssertEqual(budget.nanoseconds, shareMs * ms, "overhead \(overheadMs) ms")
            XCTAssertEqual(budget.byteLimit, DataBudget.baseBytes * Int(shareMs), "bytes in proportion, overhead \(overheadMs) ms")
            XCTAssertFalse(budget.isSpent(now: first + shareMs * ms - 1))
            XCTAssertTrue(budget.isSpent(now: first + shareMs * ms))
        }
    }

    func testAfterAPassThatHeldNobodyTheShareIsTheBaseHoweverLongTheWait() {
        var budget = DataBudget()
        budget.finishPass(now: 100 * ms, stillHeld: true)
        budget.record(1_000, now: 110 * ms)
        XCTAssertEqual(budget.nanoseconds, 10 * ms)
        budget.finishPass(now: 111 * ms, stillHeld: false)
        // A quiet second in poll() is not overhead.
        budget.record(1_000, now: 1_111 * ms)
        XCTAssertEqual(budget.nanoseconds, DataBudget.baseNanoseconds)
        XCTAssertEqual(budget.byteLimit, DataBudget.baseBytes)
    }
}
