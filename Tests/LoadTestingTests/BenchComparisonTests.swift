import ChartCastProtocol
import XCTest
@testable import LoadTesting

final class BenchComparisonTests: XCTestCase {
    /// A minimal report JSON with the figures the comparison reads.
    private func report(viewers: Int = 1000, p99: Double, cpuPerFrame: Double = 10, rssPerViewer: Double = 5000,
                        converged: Bool = true, ok: Int? = nil, peakRSS: Double = 50 * 1_048_576) -> JSONValue {
        .object([
            ("viewers", .number(Double(viewers))), ("rate", .number(60)),
            ("connections", .object([("ok", .number(Double(ok ?? viewers + 1))), ("failed", .number(0)), ("dropped", .number(0))])),
            ("fanoutMs", .object([("p50", .number(p99 / 2)), ("p99", .number(p99)), ("max", .number(p99 * 2))])),
            ("server", .object([("cpuMicrosPerFrame", .number(cpuPerFrame)), ("rssPerIdleViewer", .number(rssPerViewer)),
                                ("peakRSS", .number(peakRSS))])),
            ("convergence", .object([("converged", .bool(converged))])),
        ])
    }

    private func row(_ c: BenchComparison, _ scenario: String, _ metricPrefix: String) -> BenchComparison.Row? {
        c.rows.first { $0.scenario == scenario && $0.metric.hasPrefix(metricPrefix) }
    }

    func testHundredViewerLatencyTargetIsRelativeToTheMirror() throws {
        let pass = BenchComparison(scenarios: [.init(name: "n100", chartcast: report(viewers: 100, p99: 1.9), mirror: report(viewers: 100, p99: 1.0))])
        XCTAssertEqual(row(pass, "n100", "fan-out p99")?.met, true)
        let fail = BenchComparison(scenarios: [.init(name: "n100", chartcast: report(viewers: 100, p99: 2.1), mirror: report(viewers: 100, p99: 1.0))])
        XCTAssertEqual(row(fail, "n100", "fan-out p99")?.met, false)
        XCTAssertFalse(fail.allTargetsMet)
        XCTAssertTrue(fail.table.contains("targets missed: n100 fan-out p99"))
    }

    func testAbsoluteLatencyTargetsAndConvergence() {
        let c = BenchComparison(scenarios: [
            .init(name: "n5000", chartcast: report(viewers: 5000, p99: 39, converged: false), mirror: report(viewers: 5000, p99: 20)),
            .init(name: "n1000", chartcast: report(p99: 10.5), mirror: report(p99: 50)),
        ])
        XCTAssertEqual(c.scenarios.map(\.name), ["n1000", "n5000"], "scenarios appear in size order")
        XCTAssertEqual(row(c, "n1000", "fan-out p99")?.met, false, "over 10 ms though a fifth of the mirror's")
        XCTAssertEqual(row(c, "n5000", "fan-out p99")?.met, true)
        XCTAssertEqual(row(c, "n5000", "converged")?.met, false)
        let over = BenchComparison(scenarios: [.init(name: "n5000", chartcast: report(viewers: 5000, p99: 41), mirror: nil)])
        XCTAssertEqual(row(over, "n5000", "fan-out p99")?.met, false, "over 40 ms")
        let relative = BenchComparison(scenarios: [.init(name: "n1000", chartcast: report(p99: 7), mirror: report(p99: 10))])
        XCTAssertEqual(row(relative, "n1000", "fan-out p99")?.met, false, "under 10 ms but 0.7× the mirror's")
    }

    func testIngestLatencyIsShownOnlyWhenABatchWasTimed() {
        func ingest(timed: Int) -> JSONValue {
            guard case .object(var members) = report(viewers: 100, p99: 3) else { return .null }
            members.append(("ingest", .object([("pointsPerSecond", .number(350_000)),
                                               ("requestMs", .object([("p99", .number(90))])),
                                               ("toViewerMs", .object([("count", .number(Double(timed))), ("p99", .number(timed > 0 ? 12 : 0))]))])))
            return .object(members)
        }
        let idle = BenchComparison.Scenario(name: "n100", chartcast: report(viewers: 100, p99: 2), mirror: nil)
        let timed = BenchComparison(scenarios: [idle, .init(name: "ingest100", chartcast: ingest(timed: 40), mirror: nil)])
        XCTAssertEqual(row(timed, "ingest100", "ingest → viewer p99")?.chartcast, 12)
        XCTAssertEqual(row(timed, "ingest100", "fan-out p99")?.met, true, "3 ms is within 2× the idle 2 ms")
        XCTAssertEqual(row(timed, "ingest100", "ingest points/s")?.met, true)
        let untimed = BenchComparison(scenarios: [idle, .init(name: "ingest100", chartcast: ingest(timed: 0), mirror: nil)])
        XCTAssertEqual(row(untimed, "ingest100", "ingest → viewer p99")?.metric, "ingest → viewer p99 (ms), not measured")
        XCTAssertNil(row(untimed, "ingest100", "ingest → viewer p99")?.chartcast, "no samples is not 0 ms")
    }

    func testCPUAndMemoryRatios() {
        let c = BenchComparison(scenarios: [.init(name: "n1000", chartcast: report(p99: 1, cpuPerFrame: 4.9, rssPerViewer: 8000),
                                                 mirror: report(p99: 1, cpuPerFrame: 10, rssPerViewer: 5000))])
        XCTAssertEqual(row(c, "n1000", "server CPU / frame")?.met, true)
        XCTAssertEqual(row(c, "n1000", "RSS / idle viewer")?.met, false, "8000 B is more than 1.5 × 5000 B")
        XCTAssertTrue(c.table.contains("0.49×"), "the ratio column shows chartcast / mirror")
    }

    /// CPU per frame against the mirror: 0.8× at 100 viewers, 0.5× at 1,000, 0.4× at 5,000 (and
    /// there no more than 1.1× ChartCast's own cost at 1,000), 1.0× elsewhere.
    func testCPUPerFrameTargetsTightenWithTheAudience() {
        let table: [(scenario: String, viewers: Int, ours: Double, met: Bool)] = [
            ("n100", 100, 7.9, true), ("n100", 100, 8.1, false),
            ("n1000", 1000, 4.9, true), ("n1000", 1000, 5.1, false),
            ("n5000", 5000, 3.9, true), ("n5000", 5000, 4.1, false),
            ("range1000", 1000, 9.9, true), ("range1000", 1000, 10.1, false),
        ]
        for t in table {
            let c = BenchComparison(scenarios: [.init(name: t.scenario, chartcast: report(viewers: t.viewers, p99: 1, cpuPerFrame: t.ours),
                                                      mirror: report(viewers: t.viewers, p99: 1, cpuPerFrame: 10))])
            XCTAssertEqual(row(c, t.scenario, "server CPU / frame (µs)")?.met, t.met, "\(t.scenario) at \(t.ours) µs against 10")
        }
        func own(_ n5000: Double) -> BenchComparison {
            BenchComparison(scenarios: [.init(name: "n1000", chartcast: report(p99: 1, cpuPerFrame: 3), mirror: report(p99: 1, cpuPerFrame: 10)),
                                        .init(name: "n5000", chartcast: report(viewers: 5000, p99: 1, cpuPerFrame: n5000),
                                              mirror: report(viewers: 5000, p99: 1, cpuPerFrame: 10))])
        }
        XCTAssertEqual(row(own(3.3), "n5000", "server CPU / frame ÷ own")?.met, true)
        XCTAssertEqual(row(own(3.4), "n5000", "server CPU / frame ÷ own")?.met, false, "3.4 is more than 1.1 × 3")
    }

    func testTheSendFloorPutsEachServerAndTheTargetAgainstABareLoopOfSends() {
        let floor: JSONValue = .object([("cpuMicrosPerFrame", .number(8)), ("frameMs", .object([("p99", .number(9.5))]))])
        let c = BenchComparison(scenarios: [.init(name: "n1000", chartcast: report(p99: 12, cpuPerFrame: 10),
                                                  mirror: report(p99: 40, cpuPerFrame: 16), floor: floor)])
        XCTAssertEqual(row(c, "n1000", "send() floor: CPU / frame")?.chartcast, 8)
        let over = row(c, "n1000", "server CPU / frame ÷ send() floor")
        XCTAssertEqual(over?.chartcast, 1.25)
        XCTAssertEqual(over?.mirror, 2)
        XCTAssertEqual(row(c, "n1000", "CPU target (0.5× mirror) ÷ send() floor")?.chartcast, 1, "0.5 × 16 µs is the floor itself")
        XCTAssertEqual(row(c, "n1000", "send() floor: fan-out p99")?.chartcast, 9.5)
        XCTAssertTrue(c.rows.filter { $0.metric.contains("send() floor") }.allSatisfy { $0.met == nil }, "the floor sets no target")
        let without = BenchComparison(scenarios: [.init(name: "n1000", chartcast: report(p99: 12), mirror: report(p99: 40))])
        XCTAssertNil(row(without, "n1000", "send() floor: CPU / frame"), "no floor report, no floor rows")
    }

    func testStalledScenarioComparesWithTheUnstalledRun() {
        let c = BenchComparison(scenarios: [
            .init(name: "n1000", chartcast: report(p99: 10, peakRSS: 50 * 1_048_576), mirror: nil),
            .init(name: "stall1000", chartcast: report(p99: 10.8, peakRSS: 52 * 1_048_576), mirror: nil),
        ])
        XCTAssertEqual(row(c, "stall1000", "fan-out p99")?.met, true)
        XCTAssertEqual(row(c, "stall1000", "peak RSS")?.chartcast, 2)
        XCTAssertEqual(row(c, "stall1000", "peak RSS")?.met, true)
        let worse = BenchComparison(scenarios: [
            .init(name: "n1000", chartcast: report(p99: 10), mirror: nil),
            .init(name: "stall1000", chartcast: report(p99: 11.5), mirror: nil),
        ])
        XCTAssertEqual(row(worse, "stall1000", "fan-out p99")?.met, false)
        XCTAssertNil(row(worse, "stall1000", "server CPU / frame"), "no mirror run, no ratio target")
        let faster = BenchComparison(scenarios: [
            .init(name: "n1000", chartcast: report(p99: 10), mirror: nil),
            .init(name: "stall1000", chartcast: report(p99: 8.5), mirror: nil),
        ])
        XCTAssertEqual(row(faster, "stall1000", "fan-out p99")?.met, true, "run-to-run noise downwards is not harm")
    }

    func testStalledScenarioPrefersTheSameLoadWithoutTheStall() {
        let c = BenchComparison(scenarios: [
            .init(name: "n1000", chartcast: report(p99: 5), mirror: nil),
            .init(name: "range1000", chartcast: report(p99: 40), mirror: nil),
            .init(name: "stall1000", chartcast: report(p99: 42), mirror: nil),
        ])
        XCTAssertEqual(row(c, "stall1000", "fan-out p99")?.met, true, "compared with range1000, not n1000")
        XCTAssertTrue(row(c, "stall1000", "fan-out p99")?.target.contains("range1000") ?? false)
        XCTAssertEqual(c.scenarios.map(\.name), ["n1000", "range1000", "stall1000"])
    }

    func testHoldScenarioNeedsTenThousandConnections() {
        let held = BenchComparison(scenarios: [.init(name: "hold10k", chartcast: report(viewers: 10_000, p99: 100), mirror: nil)])
        XCTAssertEqual(row(held, "hold10k", "concurrent viewers held")?.met, true)
        let short = BenchComparison(scenarios: [.init(name: "hold10k", chartcast: report(viewers: 10_000, p99: 100, ok: 9000), mirror: nil)])
        XCTAssertEqual(row(short, "hold10k", "concurrent viewers held")?.met, false)
    }

    func testJSONCarriesRowsAndReports() throws {
        let c = BenchComparison(scenarios: [.init(name: "n100", chartcast: report(viewers: 100, p99: 1), mirror: report(viewers: 100, p99: 1))])
        let doc = try JSONReader.parse(c.json)
        XCTAssertEqual(doc["allTargetsMet"]?.bool, c.allTargetsMet)
        XCTAssertEqual(doc["rows"]?.array?.count, c.rows.count)
        XCTAssertEqual(doc["scenarios"]?["n100"]?["mirror"]?["viewers"]?.number, 100)
    }

    func testLeavingCrowdIsComparedWithItsArrival() {
        func leave(arrival: Double, departure: Double) -> JSONValue {
            guard case .object(var members) = report(viewers: 5000, p99: 1) else { return .null }
            members.removeAll { $0.0 == "server" }
            members.append(("server", .object([("arrivalCPUMicrosPerViewer", .number(arrival)),
                                               ("departureCPUMicrosPerViewer", .number(departure)),
                                               ("departureSeconds", .number(0.4))])))
            return .object(members)
        }
        let cheap = BenchComparison(scenarios: [.init(name: "leave5000", chartcast: leave(arrival: 900, departure: 120), mirror: nil)])
        XCTAssertEqual(row(cheap, "leave5000", "server CPU / departure")?.met, true)
        XCTAssertEqual(row(cheap, "leave5000", "server CPU / arrival")?.chartcast, 900)
        let quadratic = BenchComparison(scenarios: [.init(name: "leave5000", chartcast: leave(arrival: 900, departure: 4000), mirror: nil)])
        XCTAssertEqual(row(quadratic, "leave5000", "server CPU / departure")?.met, false)
    }
}
