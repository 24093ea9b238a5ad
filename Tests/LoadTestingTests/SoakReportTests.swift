import XCTest
@testable import LoadTesting

/// The soak's verdict: the RSS rule after the warm-up, and every failure named.
final class SoakReportTests: XCTestCase {
    private func report(_ rss: [Int], every step: Double = 10, warmup: Double = 20, tolerance: Double = 0.05) -> SoakReport {
        var options = SoakOptions()
        options.seconds = Double(rss.count) * step
        options.warmup = warmup
        options.rssTolerance = tolerance
        let samples = rss.enumerated().map { SoakReport.Sample(at: Double($0.offset) * step, rssBytes: $0.element) }
        let convergence = ConvergenceResult(compared: 10, divergentConnections: 0, charts: [])
        return SoakReport(options: options, seconds: options.seconds, samples: samples, counters: LoadCounters(),
                          vanishedViewers: 3, vanishedDrivers: 2, stalls: 5, freezes: 1, connectionsOpened: 15, drops: [],
                          convergence: convergence, convergenceSeconds: 0.5, serverAlive: true)
    }

    func testSteadyMemoryAfterTheWarmUpPasses() throws {
        // Growth during the warm-up (0 s and 10 s) does not count; then ±4 % around 100 MB.
        let r = report([50, 80, 100, 104, 97, 103, 96].map { $0 * 1_000_000 })
        let memory = try XCTUnwrap(r.memory)
        XCTAssertEqual(memory.reference, 100_000_000)
        XCTAssertEqual(memory.minimum, 96_000_000)
        XCTAssertEqual(memory.maximum, 104_000_000)
        XCTAssertEqual(memory.samples, 5)
        XCTAssertEqual(memory.maxDeviation, 0.04, accuracy: 1e-12)
        XCTAssertTrue(r.succeeded, "\(r.failures)")
        XCTAssertTrue(r.text.contains("PASS"))
    }

    func testAGrowingServerFailsAndItsSlopeIsReported() throws {
        let r = report([100, 100, 100, 102, 104, 106].map { $0 * 1_000_000 })
        let memory = try XCTUnwrap(r.memory)
        XCTAssertEqual(memory.maxDeviation, 0.06, accuracy: 1e-12)
        // 2 MB per 10 s.
        XCTAssertEqual(memory.slopePerHour, 720_000_000, accuracy: 1)
        XCTAssertFalse(r.succeeded)
        XCTAssertTrue(r.failures.contains { $0.contains("server RSS moved 6.0 %") }, "\(r.failures)")
    }

    func testEveryFailureIsNamed() {
        var r = report([100, 100, 100, 100].map { $0 * 1_000_000 })
        XCTAssertTrue(r.succeeded)
        r.counters.failed = 1
        r.counters.dropped = 2
        r.counters.errorsReceived = 3
        r.convergence.divergentConnections = 4
        r.serverAlive = false
        XCTAssertEqual(r.failures.count, 5, "\(r.failures)")
        XCTAssertTrue(r.text.contains("FAIL"))
    }

    func testTooFewSamplesAfterTheWarmUpIsAFailureNotAPass() {
        let r = report([100, 100, 100].map { $0 * 1_000_000 }, warmup: 25)
        XCTAssertNil(r.memory)
        XCTAssertFalse(r.succeeded)
    }

    func testOptions() throws {
        let o = try SoakOptions.parse(["--soak", "120", "--url", "ws://127.0.0.1:9000/ws", "--viewers", "300", "--drivers=2",
                                       "--stalled", "3", "--stall-seconds", "4", "--vanish-every", "2", "--freeze-every", "8",
                                       "--freeze-seconds", "3", "--warmup", "30", "--sample-every", "5", "--rss-tolerance", "0.1",
                                       "--server-pid", "42", "--quiet"])
        XCTAssertEqual(o.seconds, 120)
        XCTAssertEqual(o.url.port, 9000)
        XCTAssertEqual(o.viewers, 300)
        XCTAssertEqual(o.drivers, 2)
        XCTAssertEqual(o.stalled, 3)
        XCTAssertEqual(o.stallSeconds, 4)
        XCTAssertEqual(o.vanishEvery, 2)
        XCTAssertEqual(o.freezeEvery, 8)
        XCTAssertEqual(o.freezeSeconds, 3)
        XCTAssertEqual(o.effectiveWarmup, 30)
        XCTAssertEqual(o.sampleEvery, 5)
        XCTAssertEqual(o.rssTolerance, 0.1)
        XCTAssertEqual(o.serverPID, 42)
        XCTAssertFalse(o.progress)
        let defaults = try SoakOptions.parse(["--soak", "1800"])
        XCTAssertEqual(defaults.viewers, 1_000)
        XCTAssertEqual(defaults.effectiveWarmup, 300)
        XCTAssertEqual(try SoakOptions.parse(["--soak", "120"]).effectiveWarmup, 40)
        for bad in [["--soak", "0"], ["--soak", "60", "--warmup", "60"], ["--soak", "60", "--stalled", "5", "--viewers", "5"],
                    ["--soak", "60", "--bogus"]] {
            XCTAssertThrowsError(try SoakOptions.parse(bad), "\(bad)")
        }
    }
}
