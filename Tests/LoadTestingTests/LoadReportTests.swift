import ChartCastProtocol
import XCTest
@testable import LoadTesting

final class LoadReportTests: XCTestCase {
    private func report(failed: Int = 0, converged: Bool = true) -> LoadReport {
        var counters = LoadCounters()
        counters.attempted = 11; counters.connected = 11 - failed; counters.failed = failed; counters.ready = 11 - failed
        counters.selectionsReceived = 4; counters.selectionBytes = 1000
        var fanout = LatencyHistogram()
        for ms in 1...100 { fanout.record(nanoseconds: UInt64(ms) * 1_000_000) }
        let conv = ConvergenceResult(compared: 11, divergentConnections: converged ? 0 : 2,
                                     charts: [.init(id: "sales", newestSeq: 9, divergent: converged ? 0 : 2)])
        return LoadReport(options: LoadOptions(viewers: 10, drivers: 1), counters: counters, connect: .init(LatencyHistogram()),
                          handshakesPerSecond: 100, fanout: .init(fanout), freshness: .init(LatencyHistogram()), maxSeqLag: 0,
                          driveFrames: 40, drivePointers: 10, driveSeconds: 1, clientCPUSeconds: 0.1, server: nil, convergence: conv,
                          convergenceSeconds: converged ? 0.3 : nil, stalledViewerIDs: [])
    }

    func testSuccessNeedsEveryConnectionAndConvergence() {
        XCTAssertTrue(report().succeeded)
        XCTAssertEqual(report().failures, [])
        XCTAssertFalse(report(failed: 1).succeeded)
        XCTAssertTrue(report(failed: 1).failures.contains("1 connection(s) failed"))
        XCTAssertFalse(report(converged: false).succeeded)
        XCTAssertTrue(report(converged: false).failures.contains { $0.contains("did not converge (sales: 2)") })
    }

    func testTableAndJSONShowTheSameFigures() throws {
        let r = report()
        XCTAssertTrue(r.table.contains("p99 99."), r.table)
        XCTAssertTrue(r.table.contains("PASS"))
        let doc = try JSONReader.parse(r.json)
        XCTAssertEqual(doc["fanoutMs"]?["p99"]?.number ?? 0, 99, accuracy: 1)
        XCTAssertEqual(doc["meanStateBytes"]?.number, 250)
        XCTAssertEqual(doc["connections"]?["ok"]?.number, 11)
        XCTAssertEqual(doc["succeeded"]?.bool, true)
        XCTAssertTrue(doc["server"]?.isNull == true)
    }
}

extension LoadReportTests {
    func testAchievedRateCountsOnlyTimerDrivenEvents() {
        // 10 events by 1 driver over 1 s of driving; the report's pointersSent may include releases.
        XCTAssertEqual(report().achievedRate, 10, accuracy: 1e-9)
    }
}
