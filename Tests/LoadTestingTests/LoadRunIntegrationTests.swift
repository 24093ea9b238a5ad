import ChartCastServer
import XCTest
@testable import LoadTesting

/// Short load runs against an in-process ChartCast server: every connection succeeds and every
/// viewer ends on the same state, whatever the gesture mix, and a viewer that stops reading
/// costs the server bounded memory and converges once it reads again.
final class LoadRunIntegrationTests: XCTestCase {
    private var server: ChartCastServer!
    private var port = 0

    override func setUpWithError() throws {
        server = ChartCastServer(options: ServerOptions(host: "127.0.0.1", port: 0, webRoot: nil, tick: 0.2, window: 60, logLevel: .error))
        port = try server.start()
    }

    override func tearDown() {
        server.shutdown()
        server = nil
    }

    private func options(viewers: Int, drivers: Int, rate: Double, duration: Double, pattern: LoadPattern) -> LoadOptions {
        LoadOptions(url: LoadURL(host: "127.0.0.1", port: port, path: "/ws"), viewers: viewers, drivers: drivers,
                    rate: rate, duration: duration, ramp: 0.2, pattern: pattern, settleTimeout: 5, idleTime: 0.1,
                    progress: false)
    }

    private func assertHealthy(_ report: LoadReport, _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(report.counters.failed, 0, "\(label): failed connections", file: file, line: line)
        XCTAssertEqual(report.counters.dropped, 0, "\(label): dropped connections", file: file, line: line)
        XCTAssertEqual(report.counters.ready, report.options.connectionCount, "\(label): not every viewer got welcome + snapshots", file: file, line: line)
        XCTAssertTrue(report.convergence.converged, "\(label): \(report.failures)", file: file, line: line)
        XCTAssertTrue(report.succeeded, "\(label): \(report.failures)", file: file, line: line)
        XCTAssertGreaterThan(report.counters.pointersSent, 0, "\(label): drivers sent nothing", file: file, line: line)
        XCTAssertGreaterThan(report.fanout.count, 0, "\(label): no selection carried a driver's ref back", file: file, line: line)
        XCTAssertEqual(report.counters.errorsReceived, 0, "\(label): server errors \(report.counters.errorCodes)", file: file, line: line)
    }

    func testShortLoadRunConvergesForEveryPattern() throws {
        for (pattern, duration) in [(LoadPattern.mixed, 3.0), (.hover, 1.0), (.scrub, 1.0), (.range, 1.0)] {
            let report = try LoadRunner(options: options(viewers: 200, drivers: 2, rate: 20, duration: duration, pattern: pattern)).run()
            assertHealthy(report, pattern.rawValue)
            // Each timed selection reached (nearly) every viewer: far more samples than events.
            XCTAssertGreaterThan(report.fanout.count, UInt64(report.counters.pointersSent), pattern.rawValue)
            XCTAssertLessThanOrEqual(report.fanout.p50, report.fanout.p99)
        }
    }

    func testLibwebsocketsClientRunsTheSameLoad() throws {
        var lws = options(viewers: 100, drivers: 2, rate: 20, duration: 1, pattern: .mixed)
        lws.client = .lws
        let report = try LoadRunner(options: lws).run()
        assertHealthy(report, "libwebsockets' client")
        XCTAssertGreaterThan(report.fanout.count, UInt64(report.counters.pointersSent))
    }

    func testArrivalsAndDeparturesAreMeasuredOnTheServer() throws {
        let report = try LoadRunner(options: options(viewers: 100, drivers: 1, rate: 10, duration: 0.5, pattern: .hover)).run()
        assertHealthy(report, "arrive and leave")
        let server = try XCTUnwrap(report.server, "the in-process server is found by its port")
        XCTAssertEqual(server.connections, 101)
        XCTAssertGreaterThan(server.arrivalCPUSeconds, 0)
        let departure = try XCTUnwrap(server.departureSeconds, "every socket closed after the crowd left")
        XCTAssertLessThan(departure, 30)
        XCTAssertNotNil(server.departureCPUMicrosPerViewer)
        XCTAssertTrue(report.table.contains("server CPU (departures)"))
    }

    func testStalledViewerCostsBoundedMemoryAndConvergesAfterResuming() throws {
        var options = options(viewers: 40, drivers: 2, rate: 60, duration: 3, pattern: .range)
        options.stalledViewers = 1
        let runner = LoadRunner(options: options)
        var maxPending = 0
        var sampled = 0
        runner.onProgress = { [server] progress in
            guard progress.phase == .driving, let id = progress.stalledViewerIDs.first, let server else { return }
            guard let statistics = server.statistics() else { return XCTFail("the server did not answer") }
            maxPending = max(maxPending, statistics.pendingBytes(forViewer: id))
            sampled += 1
        }
        let report = try runner.run()
        assertHealthy(report, "stalled")
        XCTAssertEqual(report.stalledViewerIDs.count, 1)
        XCTAssertGreaterThanOrEqual(sampled, 2, "server memory was watched while the viewer was stalled")
        XCTAssertLessThanOrEqual(maxPending, 64 * 1024, "the server holds at most a bounded amount for a viewer that does not read")
        // Appends arrive every 0.2 s, so a viewer that really stopped reading for 3 s is far behind.
        XCTAssertGreaterThanOrEqual(report.stalledLag, 5, "the stalled viewer did not read while stalled")
        XCTAssertLessThanOrEqual(report.convergenceSeconds ?? .infinity, 5, "it caught up after resuming")
    }
}
