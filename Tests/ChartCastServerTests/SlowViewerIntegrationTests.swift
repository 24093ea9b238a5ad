import ChartCastIngest
import ChartCastProtocol
import ChartEngine
import Foundation
import TestSupport
import XCTest

/// Viewers that stop reading are closed once their unsent backlog stays over the bound, or
/// once nothing could be written to them for the choke timeout; an honest viewer keeps
/// receiving the live ticks throughout. Real sockets: the stalled viewer pauses reading (lws
/// flow control) and keeps asking for multi-megabyte snapshots, so the kernel's buffers fill
/// and libwebsockets holds the rest of a frame.
final class SlowViewerIntegrationTests: XCTestCase {
    /// A linear chart of 4 series of `points` points: its snapshot for the widest plot
    /// (8,192 columns, 131,072 points) is a few megabytes, for a 1,000 px plot a few hundred KB.
    private func addBigChart(_ server: TestServer, points: Int = 120_000) throws {
        let names = ["a", "b", "c", "d"]
        let spec = ChartSpec(id: "big", title: "big", mark: .line, xKind: .linear, series: names,
                             interactions: ChartSpec.defaultInteractions(for: .linear), window: points)
        XCTAssertEqual(try server.request("PUT", "/api/charts/big", headers: ["Content-Type: application/json"],
                                          body: spec.encoded()).status, 201)
        let xs = (0..<points).map(Double.init)
        let columns = names.enumerated().map { s, name in
            (name: name, values: xs.map { Optional(((1_000 + sin(($0 + Double(7 * s)) / 50) * 333.3333) * 10_000).rounded() / 10_000) })
        }
        let written = try server.request("POST", "/api/charts/big/points", headers: ["Content-Type: application/json"],
                                         body: PointsBody.columns(x: xs, series: columns))
        XCTAssertEqual(written.status, 200, written.bodyText)
    }

    private func metric(_ server: TestServer, _ reason: String) throws -> Int {
        let text = try server.request("GET", "/metrics").bodyText
        let prefix = "chartcast_viewers_closed_slow_total{reason=\"\(reason)\"} "
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }),
              let value = Int(line.dropFirst(prefix.count)) else { throw TestFailure("no \(prefix) in /metrics") }
        return value
    }

    /// Runs the scenario: `stalled` stops reading and asks for full snapshots of the big chart
    /// until the server counts it closed for `reason`; `honest` reads the live ticks all along.
    /// Returns the seconds from the first request to the count, and the honest viewer's longest
    /// gap between two appends.
    private func stallUntilClosed(_ server: TestServer, reason: String, within limit: Double) throws -> (closedAfter: Double, gap: Double) {
        let honest = try server.viewer()
        let stalled = try server.viewer()
        stalled.client.pauseReading()
        let began = Date()
        var lastAppend = Date(), longestGap = 0.0, appends = 0
        var wide = true
        var closedAfter: Double?
        while Date().timeIntervalSince(began) < limit {
            // Each width change owes the stalled viewer a fresh snapshot: megabytes when wide.
            let viewport = Viewport(x: 0, y: 0, width: wide ? 1_000_000 : 1_000, height: 300, rtl: false)
            stalled.send(.viewport(.init(chart: "big", viewport: viewport)))
            wide.toggle()
            let until = Date().addingTimeInterval(0.2)
            while Date() < until {
                guard let message = try? honest.nextMessage(timeout: until.timeIntervalSinceNow), case .append = message else { continue }
                let now = Date()
                longestGap = max(longestGap, now.timeIntervalSince(lastAppend))
                lastAppend = now
                appends += 1
            }
            if try metric(server, reason) == 1 { closedAfter = Date().timeIntervalSince(began); break }
        }
        let closed = try XCTUnwrap(closedAfter, "the stalled viewer was not closed for \(reason) within \(limit) s")
        // Its connection goes (the close frame cannot get through: the close timeout drops it);
        // the honest viewer stays and keeps receiving.
        XCTAssertTrue(eventually(timeout: 15) { server.server.statistics()?.viewers == 1 }, "the stalled connection is dropped")
        let more = try honest.append(timeout: 5)
        XCTAssertGreaterThan(more.seq, 0)
        XCTAssertGreaterThan(appends, 10)
        return (closed, longestGap)
    }

    func testAViewerWhoseBacklogStaysOverTheBoundIsClosedAndCounted() throws {
        let server = try TestServer(tick: 0.1) {
            $0.maxBacklogBytes = 1 << 20
            $0.backlogGrace = 1
            $0.chokeTimeout = 600
        }
        try addBigChart(server)
        let (closedAfter, gap) = try stallUntilClosed(server, reason: "backlog", within: 60)
        XCTAssertLessThan(closedAfter, 60)
        XCTAssertLessThan(gap, 3, "the honest viewer kept receiving ticks")
        XCTAssertEqual(try metric(server, "choked"), 0)
    }

    func testAViewerThatTakesNoOutputForTheChokeTimeoutIsClosedAndCounted() throws {
        let server = try TestServer(tick: 0.1) {
            $0.maxBacklogBytes = 1 << 34
            $0.chokeTimeout = 2
        }
        try addBigChart(server)
        let (closedAfter, gap) = try stallUntilClosed(server, reason: "choked", within: 60)
        XCTAssertGreaterThanOrEqual(closedAfter, 2, "not before the choke timeout")
        XCTAssertLessThan(gap, 3, "the honest viewer kept receiving ticks")
        XCTAssertEqual(try metric(server, "backlog"), 0)
    }

    func testAViewerThatReadsSlowlyButSteadilyIsNotClosed() throws {
        let server = try TestServer(tick: 0.05) {
            $0.maxBacklogBytes = 1 << 20
            $0.backlogGrace = 1
            $0.chokeTimeout = 1
        }
        let slow = try server.viewer()
        let began = Date()
        var appends = 0
        // Reads in bursts with pauses shorter than the timeouts: never closed.
        while Date().timeIntervalSince(began) < 5 {
            slow.client.pauseReading()
            Thread.sleep(forTimeInterval: 0.3)
            slow.client.resumeReading()
            let until = Date().addingTimeInterval(0.2)
            while Date() < until, let message = try? slow.nextMessage(timeout: max(0.01, until.timeIntervalSinceNow)) {
                if case .append = message { appends += 1 }
            }
        }
        XCTAssertGreaterThan(appends, 20)
        XCTAssertFalse(slow.client.isClosed)
        XCTAssertEqual(try metric(server, "backlog") + metric(server, "choked"), 0)
    }
}
