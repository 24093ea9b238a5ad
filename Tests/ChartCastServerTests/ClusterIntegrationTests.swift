import ChartCastCluster
import ChartCastProtocol
import ChartCastServer
import ChartEngine
import Foundation
import TestSupport
import XCTest

/// Two servers joined through a real redis-server (`--redis`), each with its own viewers over
/// real WebSockets: one dashboard, one selection, the same `seq`s and frames on both.
final class ClusterIntegrationTests: XCTestCase {
    var redis: RedisServer!
    private let plot = TestPlot.standard

    override func setUpWithError() throws { redis = try RedisServer() }
    override func tearDown() { redis.stop() }

    private func instance(dashboard: Dashboard? = nil, dragLease: Double = 10) throws -> TestServer {
        let url = redis.url
        return try TestServer(dashboard: dashboard) { options in
            options.redis = try? RedisEndpoint.parse(url)
            options.dragLease = dragLease
        }
    }

    /// A viewer's raw frames of one kind for one chart, keyed by `seq`, until `done` says so.
    private func frames(_ viewer: TestViewer, type: String, chart: String, timeout: Double = 5,
                        until done: ([Int: [UInt8]]) -> Bool) throws -> [Int: [UInt8]] {
        var seen: [Int: [UInt8]] = [:]
        let deadline = Date().addingTimeInterval(timeout)
        while !done(seen) {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw TestFailure("\(type) frames for \(chart) did not arrive: have seqs \(seen.keys.sorted())") }
            guard case .text(let bytes) = try viewer.client.receive(timeout: left) else { continue }
            let header = try ServerMessage.decode(bytes)
            switch header {
            case .selection(let update) where type == "selection" && update.chart == chart: seen[update.seq] = bytes
            case .append(let append) where type == "append" && append.chart == chart: seen[append.seq] = bytes
            default: continue
            }
        }
        return seen
    }

    /// The `seq` of `chart`'s selection once both instances answer the same one and it stayed
    /// so for 300 ms (the newest state is never coalesced away, so every viewer gets its frame).
    private func settledSelectionSeq(_ one: TestServer, _ two: TestServer, chart: String) throws -> Int {
        var previous = "", stableSince = Date()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let a = try one.request("GET", "/api/charts/\(chart)/selection").bodyText
            let b = try two.request("GET", "/api/charts/\(chart)/selection").bodyText
            if a == b && a == previous {
                if Date().timeIntervalSince(stableSince) > 0.3, case .selection(let update) = try ServerMessage.decode(Array(a.utf8)) {
                    return update.seq
                }
            } else {
                previous = a == b ? a : ""
                stableSince = Date()
            }
            usleep(20_000)
        }
        throw TestFailure("the instances did not settle on one selection of \(chart)")
    }

    func testViewersOnTwoInstancesGetTheSameSelectionFrames() throws {
        let one = try instance(), two = try instance()
        let a = try one.viewer(), b = try two.viewer()
        XCTAssertNotEqual(a.id, b.id, "viewer ids are unique across instances")
        a.sendViewport("sales")
        b.sendViewport("sales", plot: TestPlot(x: 10, y: 0, width: 1200, height: 500))   // another geometry
        for i in 0..<12 {
            a.pointer("sales", .move, x: plot.categoryX(i, of: 12), ref: "a\(i)")
            b.pointer("sales", .move, x: 10 + (Double(11 - i) + 0.5) / 12 * 1200, ref: "b\(i)")
            usleep(2_000)
        }
        a.pointer("sales", .leave, x: 0, y: 0, ref: "a-left")
        // The last state: both instances answer the same selection over HTTP, and it holds still.
        let last = try settledSelectionSeq(one, two, chart: "sales")
        let onA = try frames(a, type: "selection", chart: "sales") { $0[last] != nil }
        let onB = try frames(b, type: "selection", chart: "sales") { $0[last] != nil }
        let common = Set(onA.keys).intersection(onB.keys)
        XCTAssertTrue(common.contains(last), "both viewers got the last state (a slow one may have had earlier ones coalesced)")
        for seq in common { XCTAssertEqual(onA[seq], onB[seq], "selection seq \(seq) differs between the instances") }
        let finalA = onA[onA.keys.max()!].flatMap { try? ServerMessage.decode($0) }
        guard case .selection(let update)? = finalA else { return XCTFail("no final selection") }
        XCTAssertEqual(Set(update.selection.hovers.map(\.by)).isSubset(of: [a.id, b.id]), true)
        // Both instances answer the same shared selection over HTTP too.
        let httpA = try one.request("GET", "/api/charts/sales/selection").bodyText
        XCTAssertTrue(eventually { (try? two.request("GET", "/api/charts/sales/selection").bodyText) == httpA })
    }

    func testAWriteOnOneInstanceReachesViewersOfBothWithTheSameSeq() throws {
        let one = try instance(), two = try instance()
        let a = try one.viewer(), b = try two.viewer()
        let spec = #"{"mark":"line","x":{"kind":"linear"},"series":["load"],"retention":"0"}"#
        XCTAssertEqual(try one.request("PUT", "/api/charts/cpu", headers: ["Content-Type: application/json"], body: Array(spec.utf8)).status, 201)
        XCTAssertTrue(eventually { (try? two.request("GET", "/api/charts/cpu").status) == 200 }, "the chart is defined on the other instance")
        let answer = try two.request("POST", "/api/charts/cpu/points", headers: ["Content-Type: application/json"],
                                     body: Array(#"{"points":[{"series":"load","x":1,"y":0.5},{"series":"load","x":2,"y":0.75}]}"#.utf8))
        XCTAssertEqual(answer.status, 200, answer.bodyText)
        let body = try JSONReader.parse(answer.body)
        let seq = try XCTUnwrap(body["seq"]?.number.flatMap { Int(exactly: $0) })
        XCTAssertEqual(body["accepted"]?.number, 2)
        let onA = try frames(a, type: "append", chart: "cpu") { $0[seq] != nil }
        let onB = try frames(b, type: "append", chart: "cpu") { $0[seq] != nil }
        XCTAssertEqual(onA[seq], onB[seq], "the append is the same frame on both instances")
        XCTAssertEqual(try one.request("GET", "/api/charts/cpu").bodyText, try two.request("GET", "/api/charts/cpu").bodyText)
        // A bad write is refused by the instance it reaches and never applied anywhere.
        let bad = try one.request("POST", "/api/charts/cpu/points", headers: ["Content-Type: application/json"],
                                  body: Array(#"{"points":[{"series":"load","x":"late","y":1}]}"#.utf8))
        XCTAssertEqual(bad.status, 400)
        // Line protocol through the other instance: a chart created and written on both.
        XCTAssertEqual(try one.request("POST", "/api/v2/write", body: Array("mem used=42 1733011200000000000".utf8)).status, 204)
        XCTAssertTrue(eventually { (try? two.request("GET", "/api/charts/mem").bodyText) == (try? one.request("GET", "/api/charts/mem").bodyText) })
        XCTAssertEqual(try two.request("DELETE", "/api/charts/mem").status, 204)
        XCTAssertTrue(eventually { (try? one.request("GET", "/api/charts/mem").status) == 404 })
    }

    func testADragOnOneInstanceBlocksADragOnTheOther() throws {
        let one = try instance(), two = try instance()
        let a = try one.viewer(), b = try two.viewer()
        a.sendViewport("intake")
        b.sendViewport("intake")
        let domain = try a.numericDomain("intake")
        let day = 86_400_000.0, may1 = 1_651_363_200_000.0
        let x = { (days: Double) in self.plot.numericX(may1 + days * day, domain: domain) }
        a.pointer("intake", .down, x: x(2))
        a.pointer("intake", .move, x: x(10), ref: "a-drag")
        _ = try b.selection("intake") { $0.ref == "a-drag" && $0.selection.range?.by == a.id }
        // b's drag on the other instance is ignored while a holds the chart.
        b.pointer("intake", .down, x: x(14))
        b.pointer("intake", .move, x: x(24), ref: "b-drag")
        b.pointer("intake", .up, x: x(24), ref: "b-up")
        a.pointer("intake", .move, x: x(12), ref: "a-more")
        let later = try a.selection("intake") { $0.ref == "a-more" }
        XCTAssertEqual(later.selection.range?.by, a.id)
        XCTAssertEqual(later.selection.range?.to, .number(may1 + 12 * day))
        a.pointer("intake", .up, x: x(12), ref: "a-up")
        _ = try b.selection("intake") { $0.ref == "a-up" && $0.selection.range == nil }
        // Released: b may drag now.
        b.pointer("intake", .down, x: x(14))
        b.pointer("intake", .move, x: x(24), ref: "b-now")
        let bs = try a.selection("intake") { $0.ref == "b-now" }
        XCTAssertEqual(bs.selection.range?.by, b.id)
    }

    func testTheViewerListSpansInstancesAndDepartureClearsHovers() throws {
        let one = try instance(), two = try instance()
        let a = try one.viewer(), b = try two.viewer()
        a.hello("Ana")
        _ = try b.viewers { list in list.viewers.contains { $0.id == a.id && $0.name == "Ana" } && list.total == 2 }
        a.sendViewport("sales")
        a.pointer("sales", .move, x: plot.categoryX(3, of: 12), ref: "ana")
        _ = try b.selection("sales") { $0.ref == "ana" && $0.selection.hovers.first?.by == a.id }
        a.client.close()
        _ = try b.selection("sales") { $0.selection.hovers.isEmpty }
        _ = try b.viewers { $0.total == 1 }
    }

    func testAnInstanceStartingLaterCatchesUpFromTheStream() throws {
        let one = try instance()
        let a = try one.viewer()
        a.sendViewport("sales")
        a.pointer("sales", .move, x: plot.categoryX(5, of: 12), ref: "early")
        _ = try a.selection("sales") { $0.ref == "early" }
        let spec = #"{"mark":"bar","x":{"kind":"category","categories":["x","y"]},"series":["n"],"retention":"0"}"#
        XCTAssertEqual(try one.request("PUT", "/api/charts/late", headers: ["Content-Type: application/json"], body: Array(spec.utf8)).status, 201)
        let two = try instance()
        XCTAssertEqual(try two.request("GET", "/api/charts/sales/selection").bodyText, try one.request("GET", "/api/charts/sales/selection").bodyText)
        XCTAssertEqual(try two.request("GET", "/api/dashboard").bodyText, try one.request("GET", "/api/dashboard").bodyText)
        XCTAssertEqual(try one.server.statistics()?.seqByChart, try two.server.statistics()?.seqByChart)
    }

    func testAnotherDashboardInTheSameDatabaseIsRefusedAtStart() throws {
        _ = try instance()
        let other = Dashboard(title: "Other", charts: [ChartSpec(id: "solo", title: "Solo", mark: .line, xKind: .linear, xLabel: "",
                                                                 series: ["s"], interactions: ChartSpec.defaultInteractions(for: .linear),
                                                                 window: 10, retentionSeconds: 0)])
        XCTAssertThrowsError(try instance(dashboard: other)) { error in
            XCTAssertTrue("\(error)".contains("holds another dashboard"), "\(error)")
        }
    }

    func testRedisRestartedMidRunRefusesInputAndWritesThenRecoversAndConverges() throws {
        let one = try instance(), two = try instance()
        let a = try one.viewer(), b = try two.viewer()
        a.sendViewport("sales")
        b.sendViewport("sales")
        a.pointer("sales", .move, x: plot.categoryX(1, of: 12), ref: "before")
        _ = try b.selection("sales") { $0.ref == "before" }
        redis.kill()
        // Input is refused with `unavailable` once the instance has noticed; the page stays served.
        var refused: ProtocolError?
        XCTAssertTrue(eventually(timeout: 5) {
            a.pointer("sales", .move, x: self.plot.categoryX(Int.random(in: 2...9), of: 12), ref: "during")
            refused = try? a.error(timeout: 0.3)
            return refused?.code == .unavailable
        }, "pointer input while Redis is gone gets unavailable")
        let write = try two.request("PUT", "/api/charts/x", headers: ["Content-Type: application/json"],
                                    body: Array(#"{"mark":"line","x":{"kind":"linear"},"retention":"0"}"#.utf8))
        XCTAssertEqual(write.status, 503, write.bodyText)
        XCTAssertTrue(write.bodyText.contains("\"unavailable\""), write.bodyText)
        XCTAssertEqual(try one.request("GET", "/api/charts/sales").status, 200, "reads are still served")
        try redis.restart()
        // Back: input flows again on both, and both instances agree.
        var accepted = false
        for i in 0..<100 where !accepted {
            b.pointer("sales", .move, x: plot.categoryX(i % 2 == 0 ? 10 : 11, of: 12), ref: "after\(i)")
            accepted = (try? a.selection("sales", timeout: 0.2) { $0.ref == "after\(i)" }) != nil
        }
        XCTAssertTrue(accepted, "input reaches the other instance after Redis restarted")
        a.pointer("sales", .move, x: plot.categoryX(4, of: 12), ref: "a-after")
        _ = try b.selection("sales") { $0.ref == "a-after" && $0.selection.hovers.contains { $0.by == a.id } }
        _ = try settledSelectionSeq(one, two, chart: "sales")
        XCTAssertEqual(try one.request("PUT", "/api/charts/x", headers: ["Content-Type: application/json"],
                                       body: Array(#"{"mark":"line","x":{"kind":"linear"},"retention":"0"}"#.utf8)).status, 201)
        XCTAssertTrue(eventually { (try? two.request("GET", "/api/dashboard").bodyText) == (try? one.request("GET", "/api/dashboard").bodyText) })
        // A viewer arriving after the restart is listed with both others, and gets a new id.
        let c = try one.viewer()
        XCTAssertFalse([a.id, b.id].contains(c.id))
        _ = try b.viewers { list in list.total == 3 && Set(list.viewers.map(\.id)) == [a.id, b.id, c.id] }
    }

    func testRedisUnreachableAtStartStopsTheServer() throws {
        let url = redis.url
        redis.kill()
        XCTAssertThrowsError(try TestServer { $0.redis = try? RedisEndpoint.parse(url) }) { error in
            XCTAssertTrue("\(error)".hasPrefix("cannot connect to Redis: \(url)"), "\(error)")
        }
    }
}
