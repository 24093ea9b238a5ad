import ChartCastProtocol
import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Real `chartcast` processes joined through a real redis-server: what happens when one dies.
final class ClusterProcessTests: XCTestCase {
    var redis: RedisServer!
    private var launched: [LaunchedServer] = []

    override func setUpWithError() throws { redis = try RedisServer() }

    override func tearDown() {
        for server in launched { server.stop() }
        redis.stop()
    }

    private func instance() throws -> (LaunchedServer, Int) {
        let server = try LaunchedServer(["--port", "0", "--redis", redis.url, "--tick", "3600"])
        launched.append(server)
        return (server, try server.waitForPort())
    }

    func testKillingAnInstanceMidDragReleasesTheDragAndItsViewersEverywhereWithinFiveSeconds() throws {
        let (doomed, portA) = try instance()
        let (_, portB) = try instance()
        let a = try TestViewer(port: portA), b = try TestViewer(port: portB)
        let plot = TestPlot.standard
        a.sendViewport("intake")
        a.hello("Doomed")
        a.pointer("intake", .down, x: plot.x + 100)
        a.pointer("intake", .move, x: plot.x + 300, ref: "held")
        _ = try b.selection("intake") { $0.ref == "held" && $0.selection.range?.by == a.id }
        _ = try b.viewers { list in list.viewers.contains { $0.id == a.id } }
        kill(doomed.process.processIdentifier, SIGKILL)
        let killedAt = Date()
        _ = try b.selection("intake", timeout: 5) { $0.selection.range == nil }
        XCTAssertLessThan(Date().timeIntervalSince(killedAt), 5, "the drag is released within 5 s")
        _ = try b.viewers(timeout: 5) { list in !list.viewers.contains { $0.id == a.id } }
        XCTAssertLessThan(Date().timeIntervalSince(killedAt), 5.5, "and the viewer is gone from the list")
        // The chart is free for the survivors.
        b.sendViewport("intake")
        b.pointer("intake", .down, x: plot.x + 200)
        b.pointer("intake", .move, x: plot.x + 400, ref: "mine")
        let mine = try b.selection("intake") { $0.ref == "mine" }
        XCTAssertEqual(mine.selection.range?.by, b.id)
    }

    func testTwoProcessesOnOnePortBothServeOneDashboard() throws {
        let first = try LaunchedServer(["--port", "0", "--redis", redis.url, "--tick", "3600", "--reuse-port", "--data", "none"])
        launched.append(first)
        let port = try first.waitForPort()
        let second = try LaunchedServer(["--port", String(port), "--redis", redis.url, "--tick", "3600", "--reuse-port", "--data", "none"])
        launched.append(second)
        XCTAssertEqual(try second.waitForPort(), port, "the second instance listens on the same port")
        // Viewers connecting to the one port land on either instance (the kernel spreads them)
        // and are one dashboard: every viewer is listed, whichever instance holds it.
        var viewers: [TestViewer] = []
        for _ in 0..<16 { viewers.append(try TestViewer(port: port)) }
        let instances = Set(viewers.map { $0.id.dropFirst().split(separator: "-").first.map(String.init) ?? "" })
        XCTAssertEqual(instances.count, 2, "both instances took viewers: \(viewers.map(\.id))")
        let last = viewers[viewers.count - 1]
        _ = try last.viewers { $0.total == 16 }
        // A hover through one instance reaches the viewers of both.
        let plot = TestPlot.standard
        viewers[0].sendViewport("sales")
        viewers[0].pointer("sales", .move, x: plot.categoryX(4, of: 12), ref: "one-port")
        for viewer in viewers {
            _ = try viewer.selection("sales") { $0.ref == "one-port" && $0.selection.hovers.first?.by == viewers[0].id }
        }
    }

    func testRedisAbsentAtStartExitsNonZeroWithOneClearLine() throws {
        let url = redis.url
        redis.kill()
        let server = try LaunchedServer(["--port", "0", "--redis", url])
        let (status, stderr) = server.finish()
        XCTAssertEqual(status, 1)
        let lines = stderr.split(separator: "\n").filter { $0.hasPrefix("chartcast: ") }
        XCTAssertEqual(lines, ["chartcast: cannot connect to Redis: \(url)/0: Connection refused"], stderr)
    }
}
