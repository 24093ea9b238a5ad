import Foundation
import XCTest
@testable import LoadTesting

/// A flood of viewers arriving and leaving: the real `chartcast`'s RSS goes back near where it
/// was, because the server hands freed memory back to the system after mass departures
/// (`malloc_trim`; glibc keeps it otherwise).
final class FloodMemoryIntegrationTests: XCTestCase {
    private var server: LaunchedChartcast?

    override func tearDown() { server?.stop() }

    func testRSSReturnsNearTheBaselineAfterTwoThousandViewersLeave() throws {
        let viewers = 2_000
        // The server inherits the raised limit.
        XCTAssertGreaterThanOrEqual(FileLimit.raise(to: viewers + 1_024), viewers + 64, "not enough file descriptors for the flood")
        // The whole flood comes from 127.0.0.1: lift the per-address cap (1,000 by default).
        let server = try LaunchedChartcast(["--tick", "1", "--max-per-address", "30000"])
        self.server = server
        Thread.sleep(forTimeInterval: 1)
        let baseline = try XCTUnwrap(server.observed.sample()).rssBytes
        let options = LoadOptions(url: LoadURL(host: "127.0.0.1", port: server.port, path: "/ws"), viewers: viewers, drivers: 0,
                                  rate: 1, duration: 0, ramp: 2, serverPID: server.process.processIdentifier, settleTimeout: 10,
                                  connectTimeout: 60, idleTime: 0.5, progress: false)
        let report = try LoadRunner(options: options).run()
        XCTAssertEqual(report.counters.ready, viewers, report.failures.joined(separator: "; "))
        let during = try XCTUnwrap(report.server).idleRSS
        let cost = during - baseline
        XCTAssertGreaterThan(cost, 4 << 20, "\(viewers) viewers should cost the server several MiB (baseline \(baseline), during \(during))")
        // Every socket is gone (the runner waited); the next sweep trims.
        var trims = 0
        var after = Int.max
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            trims = try server.metric("chartcast_memory_trims_total") ?? 0
            after = try XCTUnwrap(server.observed.sample()).rssBytes
            if trims >= 1 && after - baseline < cost / 3 { break }
            Thread.sleep(forTimeInterval: 0.25)
        }
        print("flood of \(viewers) viewers: server RSS \(baseline >> 10) KiB before, \(during >> 10) KiB with them, \(after >> 10) KiB after (\(trims) trims)")
        XCTAssertGreaterThanOrEqual(trims, 1, "mass departures trigger a trim")
        XCTAssertEqual(try server.metric("chartcast_viewers"), 0)
        XCTAssertLessThan(after - baseline, cost / 3,
                          "RSS after the flood \(after >> 10) KiB, baseline \(baseline >> 10) KiB, during \(during >> 10) KiB")
    }
}
