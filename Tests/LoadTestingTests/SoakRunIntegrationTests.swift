import Foundation
import TestSupport
import XCTest
@testable import LoadTesting

/// A short soak against the real `chartcast` executable (its RSS is the server's alone):
/// viewers stall, viewers and mid-drag drivers vanish, a driver freezes mid-drag past the drag
/// lease; nothing fails, everyone converges, memory holds after the warm-up.
final class SoakRunIntegrationTests: XCTestCase {
    private var server: LaunchedChartcast?

    override func tearDown() { server?.stop() }

    func testShortSoakWithStallsVanishingsAndAFrozenDragConverges() throws {
        let server = try LaunchedChartcast(["--tick", "0.2", "--drag-lease", "1"])
        self.server = server
        var options = SoakOptions()
        options.url = LoadURL(host: "127.0.0.1", port: server.port, path: "/ws")
        options.serverPID = server.process.processIdentifier
        options.seconds = 16
        options.warmup = 6
        options.sampleEvery = 1
        options.viewers = 100
        options.drivers = 1          // one driver: its drags are never contended, so a freeze always holds the drag
        options.rate = 20
        options.stalled = 3
        options.stallSeconds = 2
        options.vanishEvery = 1
        options.freezeEvery = 4
        options.freezeSeconds = 2.5  // longer than the 1 s lease
        options.ramp = 1
        options.progress = false
        let report = try SoakRunner(options: options).run()
        XCTAssertTrue(report.succeeded, report.text)
        XCTAssertEqual(report.counters.failed, 0)
        XCTAssertEqual(report.counters.dropped, 0)
        XCTAssertEqual(report.counters.errorsReceived, 0)
        XCTAssertTrue(report.convergence.converged)
        XCTAssertEqual(report.convergence.compared, 101, "every viewer and the driver, replacements included")
        XCTAssertGreaterThanOrEqual(report.vanishedViewers, 3, report.text)
        XCTAssertGreaterThanOrEqual(report.vanishedDrivers, 1, report.text)
        XCTAssertGreaterThanOrEqual(report.stalls, 3, report.text)
        XCTAssertGreaterThanOrEqual(report.freezes, 1, report.text)
        XCTAssertGreaterThanOrEqual(report.memory?.samples ?? 0, 5, report.text)
        // Every freeze outlasted the lease while the driver held an uncontended drag.
        let expired = try XCTUnwrap(try server.metric("chartcast_drag_leases_expired_total"))
        XCTAssertGreaterThanOrEqual(expired, report.freezes, report.text)
    }
}
