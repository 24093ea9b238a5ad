import TestSupport
import XCTest
@testable import LoadTesting

/// A load run spread over two real `chartcast` processes joined through a real redis-server: the
/// connections alternate between the two URLs (drivers on both), every viewer ends on the same
/// state whichever instance it is on, and selections made on one instance reach viewers of the
/// other.
final class ClusterLoadRunTests: XCTestCase {
    private var redis: RedisServer!
    private var servers: [LaunchedChartcast] = []

    override func setUpWithError() throws { redis = try RedisServer() }

    override func tearDown() {
        for server in servers { server.stop() }
        redis.stop()
    }

    func testViewersSpreadOverTwoInstancesConvergeOnOneState() throws {
        for _ in 0..<2 { servers.append(try LaunchedChartcast(["--redis", redis.url, "--tick", "0.2"])) }
        let ports = servers.map(\.port)
        var options = LoadOptions(url: LoadURL(host: "127.0.0.1", port: ports[0], path: "/ws"), viewers: 60, drivers: 2, rate: 20,
                                  duration: 2, ramp: 0.2, pattern: .mixed, settleTimeout: 5, idleTime: 0.1, progress: false)
        options.urls.append(LoadURL(host: "127.0.0.1", port: ports[1], path: "/ws"))
        let report = try LoadRunner(options: options).run()
        XCTAssertEqual(report.counters.failed, 0)
        XCTAssertEqual(report.counters.ready, 62)
        XCTAssertTrue(report.convergence.converged, "\(report.failures)")
        XCTAssertEqual(report.counters.errorsReceived, 0, "\(report.counters.errorCodes)")
        // Each driver's timed selections came back to (nearly) every viewer, on both instances.
        XCTAssertGreaterThan(report.fanout.count, UInt64(report.counters.pointersSent) * 30)
        XCTAssertTrue(report.table.contains("127.0.0.1:\(ports[1])"), report.table)
    }
}
