import ChartCastProtocol
import ChartEngine
import Foundation
import TestSupport
import XCTest
@testable import ChartCastCluster
@testable import ChartCastServer
@testable import ChartCastStorage

/// Catching up from the snapshot kept in Redis, with real servers joined through a real
/// redis-server: an instance started after the stream was trimmed serves exactly the state the
/// others hold, the stream stays short, a Redis that came back empty has every instance agree
/// again, and a running dashboard is not lost to an instance that started meanwhile.
final class ClusterSnapshotTests: XCTestCase {
    private var redis: RedisServer!
    private var directories: [TemporaryDirectory] = []
    private let plot = TestPlot.standard
    private let t0 = ((Date().timeIntervalSince1970 - 60).rounded(.down)) * 1_000

    override func setUpWithError() throws { redis = try RedisServer() }

    override func tearDown() {
        redis.stop()
        for directory in directories { directory.remove() }
    }

    private func instance(snapshotInterval: Double = 0.2, data: TemporaryDirectory? = nil) throws -> TestServer {
        let url = redis.url
        return try TestServer(dataDirectory: data?.path) { options in
            options.redis = try? RedisEndpoint.parse(url)
            options.snapshotInterval = snapshotInterval
        }
    }

    /// The instance's whole shared state, as it would store it.
    private func state(_ server: TestServer) throws -> ClusterSnapshot {
        let core = server.server.core
        let state: ClusterSnapshot?? = server.server.server.performAndWait(timeout: 5) { core.cluster == nil ? nil : core.captureSnapshot() }
        return try XCTUnwrap(state ?? nil)
    }

    private func link(_ server: TestServer) throws -> ClusterLink {
        let core = server.server.core
        let link: ClusterLink?? = server.server.server.performAndWait(timeout: 5) { core.cluster?.link }
        return try XCTUnwrap(link ?? nil)
    }

    private func redisCommand(_ arguments: [String]) throws -> RedisReply {
        try RedisConnection(endpoint: RedisEndpoint(host: "127.0.0.1", port: redis.port)).command(arguments).checked()
    }

    /// Every instance's state once they are equal (the entries reach every instance within moments).
    private func settled(_ servers: [TestServer], timeout: Double = 10) throws -> ClusterSnapshot {
        var last: [ClusterSnapshot] = []
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            last = try servers.map(state)
            if last.dropFirst().allSatisfy({ $0 == last[0] }) { return last[0] }
            usleep(20_000)
        }
        throw TestFailure("the instances did not come to one state: \(difference(last.first!, last.last!))")
    }

    /// Where two states differ, in a line.
    private func difference(_ a: ClusterSnapshot, _ b: ClusterSnapshot) -> String {
        if a.epoch != b.epoch || a.fresh != b.fresh { return "epoch \(a.epoch)/\(a.fresh) vs \(b.epoch)/\(b.fresh)" }
        if a.viewers != b.viewers { return "viewers \(a.viewers.map(\.info.id)) vs \(b.viewers.map(\.info.id))" }
        if a.charts.map(\.spec.id) != b.charts.map(\.spec.id) { return "charts \(a.charts.map(\.spec.id)) vs \(b.charts.map(\.spec.id))" }
        for (x, y) in zip(a.charts, b.charts) where x != y {
            if x.spec != y.spec { return "\(x.spec.id): spec" }
            if x.seq != y.seq { return "\(x.spec.id): seq \(x.seq) vs \(y.seq)" }
            if x.sentX != y.sentX || x.sentY != y.sentY { return "\(x.spec.id): domains sent" }
            if x.xs != y.xs || x.columns != y.columns { return "\(x.spec.id): data (\(x.xs.count) vs \(y.xs.count) rows)" }
            return "\(x.spec.id): selection \(x.selection) vs \(y.selection)"
        }
        return "equal"
    }

    /// Fails with where the states differ (not their whole dump) unless they are equal.
    private func assertSame(_ a: ClusterSnapshot, _ b: ClusterSnapshot, _ message: String, line: UInt = #line) {
        if a != b { XCTFail("\(message): \(difference(a, b))", line: line) }
    }

    private func put(_ server: TestServer, _ id: String, _ spec: String) throws -> Int {
        try server.request("PUT", "/api/charts/\(id)", headers: ["Content-Type: application/json"], body: Array(spec.utf8)).status
    }

    private func post(_ server: TestServer, _ id: String, _ body: String) throws -> RawHTTPResponse {
        try server.request("POST", "/api/charts/\(id)/points", headers: ["Content-Type: application/json"], body: Array(body.utf8))
    }

    /// Activity of every kind through both instances: charts defined and written (series
    /// added), a line-protocol auto-creation, hovers, a pin, a held drag, a keyboard cursor, a
    /// rename; returns the viewers (kept open: they are part of the state).
    private func busy(_ one: TestServer, _ two: TestServer) throws -> [TestViewer] {
        let a = try one.viewer(), b = try two.viewer()
        a.hello("Ana")
        XCTAssertEqual(try put(one, "cpu", #"{"mark":"line","x":{"kind":"time"},"series":["load"],"window":50}"#), 201)
        XCTAssertTrue(eventually { (try? two.request("GET", "/api/charts/cpu").status) == 200 })
        for i in 0..<80 {   // more than the window: rows were evicted
            let x = t0 + Double(i) * 1000
            XCTAssertEqual(try post(i % 2 == 0 ? one : two, "cpu", #"{"points":[{"series":"load","x":\#(x),"y":\#(Double(i) / 3)},{"series":"\#(i % 2 == 0 ? "a" : "b")","x":\#(x),"y":\#(i)}]}"#).status, 200)
        }
        XCTAssertEqual(try two.request("POST", "/api/v2/write", body: Array("mem used=42 \(Int(t0) * 1_000_000)".utf8)).status, 204)
        a.sendViewport("sales")
        b.sendViewport("sales")
        a.pointer("sales", .move, x: plot.categoryX(3, of: 12), ref: "a-hover")
        b.pointer("sales", .move, x: plot.categoryX(7, of: 12), ref: "b-hover")
        a.sendViewport("temperature")   // a tap pins on temperature
        a.pointer("temperature", .down, x: plot.x + plot.width / 2)
        a.pointer("temperature", .up, x: plot.x + plot.width / 2, ref: "pin")
        _ = try b.selection("temperature") { $0.ref == "pin" && $0.selection.pin != nil }
        a.sendViewport("intake")
        let domain = try a.numericDomain("intake")
        a.pointer("intake", .down, x: plot.numericX(domain.0 + (domain.1 - domain.0) * 0.2, domain: domain))
        a.pointer("intake", .move, x: plot.numericX(domain.0 + (domain.1 - domain.0) * 0.6, domain: domain), ref: "a-drag")
        b.sendViewport("cpu")
        b.key("cpu", .right, ref: "b-key")
        _ = try a.selection("cpu") { $0.ref == "b-key" }
        return [a, b]
    }

    func testAnInstanceStartedAfterTheStreamWasTrimmedServesTheIdenticalState() throws {
        let one = try instance(), two = try instance()
        let viewers = try busy(one, two)
        let before = try settled([one, two])
        // A snapshot was stored since and the stream trimmed behind it: it no longer holds the
        // entries of the writes above (more than 80 of them).
        XCTAssertTrue(eventually(timeout: 5) {
            ((try? self.redisCommand(["XLEN", ClusterKeys().log]))?.integer ?? 1_000) < 20
        }, "the stream is trimmed behind the snapshot: \(String(describing: try? redisCommand(["XLEN", ClusterKeys().log])))")
        let three = try instance()
        let joined = try state(three)
        assertSame(joined, try state(one), "the new instance holds what the others hold")
        XCTAssertEqual(joined.charts.map(\.spec.id), before.charts.map(\.spec.id))
        XCTAssertTrue(joined.charts.contains { $0.spec.id == "cpu" && $0.spec.series == ["load", "a", "b"] && $0.xs.count == 50 })
        XCTAssertNotNil(joined.charts.first { $0.spec.id == "intake" }?.selection.drag, "the held drag came across")
        XCTAssertNotNil(joined.charts.first { $0.spec.id == "temperature" }?.selection.pinnedX, "the pin came across")
        for path in ["/api/dashboard", "/api/charts/cpu", "/api/charts/mem", "/api/charts/sales/selection", "/api/charts/intake/selection"] {
            XCTAssertEqual(try three.request("GET", path).bodyText, try one.request("GET", path).bodyText, path)
        }
        XCTAssertEqual(try three.server.statistics()?.seqByChart, try one.server.statistics()?.seqByChart)
        // From here on the three send the same bodies for the same seq: the append that the
        // next write makes (its domains follow the ones last sent) and the next selection.
        let c = try three.viewer(), d = try one.viewer()
        _ = try c.viewers { list in list.total == 4 && list.viewers.contains { $0.name == "Ana" } }
        let answer = try post(two, "cpu", #"{"points":[{"series":"load","x":\#(t0 + 200_000),"y":7}]}"#)
        XCTAssertEqual(answer.status, 200, answer.bodyText)
        // The answer's seq is the chart's after the write: its append's, or the selection's
        // that followed it (a keyboard hover on cpu shows the new values).
        let seq = try XCTUnwrap(try JSONReader.parse(answer.body)["seq"]?.number.map { Int($0) })
        let onC = try c.append { $0.chart == "cpu" }
        let onA = try d.append { $0.chart == "cpu" }
        XCTAssertLessThanOrEqual(onC.seq, seq)
        XCTAssertEqual(onC, onA, "the append is the same on an instance that started from the snapshot")
        XCTAssertNotNil(onC.x, "the write moved the x domain, and both instances send it")
        c.sendViewport("sales")
        c.pointer("sales", .move, x: plot.categoryX(9, of: 12), ref: "c-hover")
        let fromC = try d.selection("sales") { $0.ref == "c-hover" }
        let atC = try c.selection("sales") { $0.ref == "c-hover" }
        XCTAssertEqual(fromC, atC)
        let pinned = try XCTUnwrap(try JSONReader.parse(try three.request("GET", "/api/charts/temperature/selection").body)["pin"]?["by"])
        XCTAssertEqual(pinned.string, viewers[0].id, "the pin from before the snapshot is still there")
        _ = try settled([one, two, three])
    }

    func testTheStreamStaysShortWhileInputFlows() throws {
        let one = try instance(), two = try instance()
        let a = try one.viewer(), b = try two.viewer()
        a.sendViewport("sales")
        b.sendViewport("sales")
        // 40 bursts of 20 moves, 0.1 s apart: 800 entries in about 4 s.
        var lengths: [Int] = []
        for burst in 0..<40 {
            for i in 0..<20 {
                (i % 2 == 0 ? a : b).pointer("sales", .move, x: plot.categoryX((burst + i) % 12, of: 12), ref: "m\(burst)-\(i)")
            }
            usleep(100_000)
            lengths.append(try redisCommand(["XLEN", ClusterKeys().log]).integer ?? 0)
        }
        _ = try settled([one, two])   // every entry applied on both (the two instances' inputs interleave in the stream)
        // Trimming follows the snapshot (every 0.2 s here) and the last entry each live instance
        // reported applied (every heartbeat, 1 s): about two seconds of entries stay.
        XCTAssertLessThan(lengths.suffix(20).max() ?? 0, 500, "the stream is trimmed while input flows: \(lengths)")
        XCTAssertTrue(eventually(timeout: 5) { ((try? self.redisCommand(["XLEN", ClusterKeys().log]))?.integer ?? 1_000) < 50 },
                      "once input stops, the stream is trimmed to what came after the last snapshot")
        XCTAssertEqual(try redisCommand(["EXISTS", ClusterKeys().snapshot]).integer, 1)
        _ = try settled([one, two])
    }

    func testRedisBackEmptyMidRunHasEveryInstanceAgreeAgainAndANewOneJoinsThatState() throws {
        let one = try instance(), two = try instance()
        let viewers = try busy(one, two)
        _ = try settled([one, two])
        // An entry one instance applied and the other never got (lost in flight when Redis
        // died): the two states differ before Redis comes back.
        let core = one.server.core
        _ = one.server.server.performAndWait(timeout: 5) {
            core.define(ChartSpec(id: "lost", title: "Lost", mark: .line, xKind: .linear, xLabel: "", series: ["s"],
                                  interactions: ChartSpec.defaultInteractions(for: .linear), window: 10, retentionSeconds: 0))
        }
        XCTAssertNotEqual(try state(one).charts.map(\.spec.id), try state(two).charts.map(\.spec.id))
        redis.kill()
        XCTAssertTrue(eventually(timeout: 5) { (try? self.link(one).isUp) == false && (try? self.link(two).isUp) == false })
        try redis.restart()
        let agreed = try settled([one, two], timeout: 15)
        XCTAssertTrue(eventually(timeout: 5) { (try? self.link(one).isUp) == true && (try? self.link(two).isUp) == true })
        XCTAssertEqual(agreed.viewers.count, 2, "both instances' viewers are listed again")
        // The instance that reached Redis first kept its state; the other took it.
        XCTAssertEqual(try redisCommand(["EXISTS", ClusterKeys().snapshot]).integer, 1)
        let three = try instance()
        assertSame(try state(three), try state(one), "a new instance starts from the running state, not the file's")
        XCTAssertTrue(try state(three).charts.contains { $0.spec.id == "cpu" })
        _ = try settled([one, two, three])
        withExtendedLifetime(viewers) {}
    }

    func testARunningDashboardIsTakenBackFromAnInstanceThatStartedOnAnEmptyRedis() throws {
        let one = try instance()
        XCTAssertEqual(try put(one, "cpu", #"{"mark":"line","x":{"kind":"time"},"series":["load"]}"#), 201)
        XCTAssertEqual(try post(one, "cpu", #"{"points":[{"series":"load","x":\#(t0),"y":5}]}"#).status, 200)
        let kept = try state(one)
        // The running instance does not notice Redis coming back before a new one started on it.
        let linkOne = try link(one)
        linkOne.readsHeld = true
        redis.kill()
        XCTAssertTrue(eventually(timeout: 5) { !linkOne.isUp }, "the presence thread notices Redis gone")
        try redis.restart()
        let newcomer = try instance()
        XCTAssertFalse(try state(newcomer).charts.contains { $0.spec.id == "cpu" }, "it claimed Redis with the file's dashboard")
        linkOne.readsHeld = false
        // The running instance finds a dashboard that only just started and takes it back.
        let agreed = try settled([one, newcomer], timeout: 15)
        XCTAssertTrue(agreed.charts == kept.charts, "the running dashboard's charts and data win: \(agreed.charts.map(\.spec.id))")
        XCTAssertFalse(agreed.fresh)
        let markers = try StreamRecord.records(try redisCommand(["XRANGE", ClusterKeys().log, "-", "+"])).filter { $0.epoch != nil }
        XCTAssertEqual(markers.count, 2, "the newcomer's epoch, then the one that took the dashboard back")
    }

    func testAnInstanceClaimingAnEmptyRedisStartsTheDashboardFromItsHistory() throws {
        let data = TemporaryDirectory("cluster-claim")
        directories.append(data)
        do {
            let first = try instance(data: data)
            XCTAssertEqual(try put(first, "cpu", #"{"mark":"line","x":{"kind":"time"},"series":["load"]}"#), 201)
            XCTAssertEqual(try post(first, "cpu", #"{"points":[{"series":"load","x":\#(t0),"y":5},{"series":"load","x":\#(t0 + 1000),"y":6}]}"#).status, 200)
            first.server.shutdown()
        }
        // Redis lost everything while no instance ran.
        redis.kill()
        try redis.restart()
        let again = try instance(data: data)
        let other = try instance()
        let cpu = try other.request("GET", "/api/charts/cpu")
        XCTAssertEqual(cpu.status, 200, "the chart came back from the first instance's history, for every instance")
        XCTAssertTrue(cpu.bodyText.contains("[\(Int(t0 + 1000)),6]"), cpu.bodyText)
        assertSame(try state(other), try state(again), "both hold the restored dashboard")
    }
}
