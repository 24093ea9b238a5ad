import XCTest
@testable import LoadTesting

final class ConvergenceTests: XCTestCase {
    private func view(seq: Int, digest: UInt64, snapshot: Bool = false) -> ChartView {
        var v = ChartView()
        v.seq = seq
        v.stateSeq = seq
        v.stateDigest = digest
        v.stateFromSnapshot = snapshot
        return v
    }

    func testEveryoneOnTheNewestSelectionConverges() {
        let r = ConvergenceResult.evaluate(views: [[view(seq: 5, digest: 1)], [view(seq: 5, digest: 1)]], chartIDs: ["a"])
        XCTAssertTrue(r.converged)
        XCTAssertEqual(r.charts, [.init(id: "a", newestSeq: 5, divergent: 0)])
    }

    func testALaggingViewerIsDivergent() {
        let r = ConvergenceResult.evaluate(views: [[view(seq: 5, digest: 1)], [view(seq: 4, digest: 1)], [view(seq: 5, digest: 1)]], chartIDs: ["a"])
        XCTAssertFalse(r.converged)
        XCTAssertEqual(r.divergentConnections, 1)
    }

    func testSameSeqDifferentBodyIsDivergent() {
        let r = ConvergenceResult.evaluate(views: [[view(seq: 5, digest: 1)], [view(seq: 5, digest: 2)]], chartIDs: ["a"])
        XCTAssertEqual(r.charts[0].divergent, 1)
    }

    func testALaterSnapshotWithTheSameStateConverges() {
        // The resumed viewer was re-sent a snapshot whose seq also counts later appends.
        let r = ConvergenceResult.evaluate(views: [[view(seq: 5, digest: 1)], [view(seq: 9, digest: 1, snapshot: true)]], chartIDs: ["a"])
        XCTAssertTrue(r.converged)
    }

    func testAnOlderSnapshotDoesNotConverge() {
        let r = ConvergenceResult.evaluate(views: [[view(seq: 5, digest: 1)], [view(seq: 3, digest: 1, snapshot: true)]], chartIDs: ["a"])
        XCTAssertFalse(r.converged)
    }

    func testChartsWithOnlySnapshotsCompareBodies() {
        let same = ConvergenceResult.evaluate(views: [[view(seq: 3, digest: 7, snapshot: true)], [view(seq: 4, digest: 7, snapshot: true)]], chartIDs: ["a"])
        XCTAssertTrue(same.converged)
        let different = ConvergenceResult.evaluate(views: [[view(seq: 3, digest: 7, snapshot: true)], [view(seq: 4, digest: 8, snapshot: true)]], chartIDs: ["a"])
        XCTAssertFalse(different.converged)
    }

    func testAViewerMissingAChartIsDivergentAndCountedOnce() {
        let r = ConvergenceResult.evaluate(views: [[view(seq: 5, digest: 1), view(seq: 2, digest: 3)], []], chartIDs: ["a", "b"])
        XCTAssertEqual(r.divergentConnections, 1)
        XCTAssertEqual(r.charts.map(\.divergent), [1, 1])
    }
}
