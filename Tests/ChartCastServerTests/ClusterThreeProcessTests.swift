import ChartCastProtocol
import Foundation
import TestSupport
import WebSockets
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Three real `chartcast` processes and one real redis-server: viewers on different instances
/// receive the same `selection` and `append` bodies for the same `seq` while drivers on two
/// instances hover and drag and a publisher writes to the third; one drag owner dashboard-wide;
/// `kill -9` of the instance holding a drag releases it everywhere within 5 s; Redis restarted
/// mid-run gives `unavailable`, then recovery and one state again.
final class ClusterThreeProcessTests: XCTestCase {
    private var redis: RedisServer!
    private var launched: [LaunchedServer] = []
    private let plot = TestPlot.standard
    private let t0 = ((Date().timeIntervalSince1970 - 60).rounded(.down)) * 1_000

    override func setUpWithError() throws { redis = try RedisServer() }

    override func tearDown() {
        for server in launched { server.stop() }
        redis.stop()
    }

    /// Three instances, each on its own port (so that each viewer's instance is known).
    private func threeInstances() throws -> [(server: LaunchedServer, port: Int)] {
        try (0..<3).map { _ in
            let server = try LaunchedServer(["--port", "0", "--redis", redis.url, "--tick", "3600",
                                             "--drag-lease", "30"])
            launched.append(server)
            return (server, try server.waitForPort())
        }
    }

    /// Records every raw `selection` and `append` frame an observer receives, by chart and seq,
    /// on a thread of its own (it reads all the time, as a page does).
    private final class Recorder: @unchecked Sendable {
        private let lock = NSLock()
        private var frames: [String: [Int: [UInt8]]] = [:]
        private var order: [String: [Int]] = [:]
        private var running = true
        private let done = DispatchSemaphore(value: 0)

        init(_ viewer: TestViewer) {
            DispatchQueue.global().async {
                while self.isRunning {
                    guard case .text(let bytes)? = try? viewer.client.receive(timeout: 0.2),
                          let message = try? ServerMessage.decode(bytes) else { continue }
                    switch message {
                    case .selection(let update): self.add("selection:" + update.chart, update.seq, bytes)
                    case .append(let append): self.add("append:" + append.chart, append.seq, bytes)
                    default: break
                    }
                }
                self.done.signal()
            }
        }

        private var isRunning: Bool { lock.lock(); defer { lock.unlock() }; return running }

        private func add(_ stream: String, _ seq: Int, _ bytes: [UInt8]) {
            lock.lock()
            frames[stream, default: [:]][seq] = bytes
            order[stream, default: []].append(seq)
            lock.unlock()
        }

        func stop() -> (frames: [String: [Int: [UInt8]]], order: [String: [Int]]) {
            lock.lock()
            running = false
            lock.unlock()
            done.wait()
            lock.lock()
            defer { lock.unlock() }
            return (frames, order)
        }
    }

    private func selectionBody(_ port: Int, _ chart: String) throws -> String {
        try rawHTTP(port: port, path: "/api/charts/\(chart)/selection").bodyText
    }

    /// Waits until every instance answers the same for each path (the stream reached them all).
    private func converged(_ ports: [Int], _ paths: [String], timeout: Double = 10) -> Bool {
        eventually(timeout: timeout) {
            paths.allSatisfy { path in
                let answers = ports.map { (try? rawHTTP(port: $0, path: path).bodyText) ?? "?" }
                return !answers.contains("?") && Set(answers).count == 1
            }
        }
    }

    func testViewersOnThreeInstancesGetTheSameSequencesWhileTwoDriveAndOneIsWrittenTo() throws {
        let instances = try threeInstances()
        let ports = instances.map(\.port)
        let spec = #"{"mark":"line","x":{"kind":"time"},"series":["load"],"retention":"0"}"#
        XCTAssertEqual(try rawHTTP(port: ports[2], method: "PUT", path: "/api/charts/cpu",
                                   extraHeaders: ["Content-Type: application/json"], body: Array(spec.utf8)).status, 201)
        XCTAssertTrue(converged(ports, ["/api/charts/cpu"]))
        let observers = try ports.map { try TestViewer(port: $0) }
        let recorders = observers.map(Recorder.init)
        let hoverer = try TestViewer(port: ports[0]), dragger = try TestViewer(port: ports[1])
        hoverer.sendViewport("sales")
        dragger.sendViewport("intake")
        let domain = try dragger.numericDomain("intake")
        let at = { (f: Double) in self.plot.numericX(domain.0 + (domain.1 - domain.0) * f, domain: domain) }
        dragger.pointer("intake", .down, x: at(0.1))
        // Two seconds of input on two instances and writes to the third, interleaved.
        var written = 0
        for i in 0..<60 {
            hoverer.pointer("sales", .move, x: plot.categoryX(i % 12, of: 12), ref: "h\(i)")
            dragger.pointer("intake", .move, x: at(0.15 + Double(i % 30) / 40), ref: "d\(i)")
            if i % 3 == 0 {
                let body = #"{"points":[{"series":"load","x":\#(t0 + Double(i) * 1000),"y":\#(i)}]}"#
                let answer = try rawHTTP(port: ports[2], method: "POST", path: "/api/charts/cpu/points",
                                         extraHeaders: ["Content-Type: application/json"], body: Array(body.utf8))
                XCTAssertEqual(answer.status, 200, answer.bodyText)
                written += 1
            }
            usleep(30_000)
        }
        dragger.pointer("intake", .up, x: at(0.5), ref: "d-up")
        hoverer.pointer("sales", .leave, x: 0, y: 0, ref: "h-left")
        XCTAssertTrue(converged(ports, ["/api/charts/sales/selection", "/api/charts/intake/selection", "/api/charts/cpu"]))
        usleep(500_000)   // the last frames reach the observers
        let recorded = recorders.map { $0.stop() }
        withExtendedLifetime(observers) {}
        // Every frame two observers both got for one seq is the same bytes.
        var compared = 0
        for stream in ["selection:sales", "selection:intake", "append:cpu"] {
            for (i, j) in [(0, 1), (0, 2), (1, 2)] {
                let a = recorded[i].frames[stream] ?? [:], b = recorded[j].frames[stream] ?? [:]
                for seq in Set(a.keys).intersection(b.keys) {
                    XCTAssertEqual(a[seq], b[seq], "\(stream) seq \(seq) differs between instances \(i) and \(j)")
                    compared += 1
                }
            }
            // Each observer's frames come in increasing seq, and all end on the same last one.
            let lasts = recorded.map { $0.order[stream]?.last }
            XCTAssertEqual(Set(lasts.map { $0 ?? -1 }).count, 1, "\(stream): every observer reached the last state: \(lasts)")
            for observer in recorded { XCTAssertEqual(observer.order[stream], observer.order[stream]?.sorted(), stream) }
        }
        // The appends are not coalesced: each observer got every write, the same sequence.
        let appends = recorded.map { $0.order["append:cpu"] ?? [] }
        XCTAssertEqual(appends[0].count, written)
        XCTAssertEqual(appends[0], appends[1])
        XCTAssertEqual(appends[1], appends[2])
        XCTAssertGreaterThan(compared, 3 * written, "observers shared most frames")
    }

    func testOneDragOwnerAcrossInstancesAndAKilledOwnerReleasesItEverywhereWithinFiveSeconds() throws {
        let instances = try threeInstances()
        let ports = instances.map(\.port)
        let owner = try TestViewer(port: ports[0]), rival = try TestViewer(port: ports[1]), watcher = try TestViewer(port: ports[2])
        for viewer in [owner, rival, watcher] { viewer.sendViewport("intake") }
        let domain = try owner.numericDomain("intake")
        let at = { (f: Double) in self.plot.numericX(domain.0 + (domain.1 - domain.0) * f, domain: domain) }
        owner.hello("Owner")
        owner.pointer("intake", .down, x: at(0.1))
        owner.pointer("intake", .move, x: at(0.4), ref: "owns")
        _ = try watcher.selection("intake") { $0.ref == "owns" && $0.selection.range?.by == owner.id }
        // The rival on another instance presses and drags: ignored while the owner holds the chart.
        rival.pointer("intake", .down, x: at(0.6))
        rival.pointer("intake", .move, x: at(0.9), ref: "rival")
        owner.pointer("intake", .move, x: at(0.45), ref: "still")
        let still = try watcher.selection("intake") { $0.ref == "still" }
        XCTAssertEqual(still.selection.range?.by, owner.id, "one drag owner dashboard-wide")
        XCTAssertTrue(converged(ports, ["/api/charts/intake/selection"]))
        rival.pointer("intake", .up, x: at(0.9))
        // The owner's instance dies mid-drag.
        kill(instances[0].server.process.processIdentifier, SIGKILL)
        let killedAt = Date()
        _ = try watcher.selection("intake", timeout: 5) { $0.selection.range == nil }
        _ = try rival.selection("intake", timeout: 5) { $0.selection.range == nil }
        XCTAssertLessThan(Date().timeIntervalSince(killedAt), 5, "released on both survivors within 5 s")
        _ = try watcher.viewers(timeout: 5) { list in !list.viewers.contains { $0.id == owner.id } }
        // The rival may drag now, and the last survivor sees it.
        rival.pointer("intake", .down, x: at(0.6))
        rival.pointer("intake", .move, x: at(0.8), ref: "mine")
        let mine = try watcher.selection("intake") { $0.ref == "mine" }
        XCTAssertEqual(mine.selection.range?.by, rival.id)
    }

    func testRedisRestartedUnderThreeProcessesRefusesThenRecoversAndConverges() throws {
        let instances = try threeInstances()
        let ports = instances.map(\.port)
        let viewers = try ports.map { try TestViewer(port: $0) }
        for viewer in viewers { viewer.sendViewport("sales") }
        viewers[0].pointer("sales", .move, x: plot.categoryX(2, of: 12), ref: "before")
        _ = try viewers[2].selection("sales") { $0.ref == "before" }
        redis.kill()
        var refused: ProtocolError?
        XCTAssertTrue(eventually(timeout: 5) {
            viewers[1].pointer("sales", .move, x: self.plot.categoryX(Int.random(in: 3...9), of: 12), ref: "during")
            refused = try? viewers[1].error(timeout: 0.3)
            return refused?.code == .unavailable
        }, "input while Redis is gone gets unavailable")
        let write = try rawHTTP(port: ports[2], method: "PUT", path: "/api/charts/x", extraHeaders: ["Content-Type: application/json"],
                                body: Array(#"{"mark":"line","x":{"kind":"linear"},"retention":"0"}"#.utf8))
        XCTAssertEqual(write.status, 503, write.bodyText)
        XCTAssertEqual(try rawHTTP(port: ports[0], path: "/api/charts/sales").status, 200, "reads are served meanwhile")
        try redis.restart()
        var accepted = false
        for i in 0..<100 where !accepted {
            viewers[2].pointer("sales", .move, x: plot.categoryX(i % 2 == 0 ? 10 : 11, of: 12), ref: "after\(i)")
            accepted = (try? viewers[0].selection("sales", timeout: 0.2) { $0.ref == "after\(i)" }) != nil
        }
        XCTAssertTrue(accepted, "input flows again after Redis restarted")
        XCTAssertEqual(try rawHTTP(port: ports[1], method: "PUT", path: "/api/charts/x", extraHeaders: ["Content-Type: application/json"],
                                   body: Array(#"{"mark":"line","x":{"kind":"linear"},"retention":"0"}"#.utf8)).status, 201)
        XCTAssertTrue(converged(ports, ["/api/dashboard", "/api/charts/sales/selection", "/api/charts/x"]), "one state on all three")
        // Every instance lists the three viewers again (each re-announced its own): a new viewer
        // on any of them is the fourth.
        for port in ports {
            let late = try TestViewer(port: port)
            _ = try late.viewers(timeout: 10) { list in Set(viewers.map(\.id)).isSubset(of: Set(list.viewers.map(\.id))) }
            late.client.close()
        }
    }
}
