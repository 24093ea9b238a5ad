import ChartCastIngest
import ChartCastProtocol
import ChartEngine
import Foundation
import TestSupport
import WebSockets
import XCTest
@testable import ChartCastServer
@testable import ChartCastStorage

/// A server keeping history in a temporary directory: writes answered after their commit,
/// charts and live windows back after a restart, retention, and writes refused with 503 and
/// nothing applied while the store cannot take them.
final class HistoryIntegrationTests: XCTestCase {
    private let json = "Content-Type: application/json"
    private var directory: TemporaryDirectory!

    override func setUp() { directory = TemporaryDirectory("history") }
    override func tearDown() { directory.remove() }

    private func server(sweep: Double = 60, dashboard: Dashboard? = nil) throws -> TestServer {
        try TestServer(dataDirectory: directory.path, historySweepInterval: sweep, dashboard: dashboard)
    }

    private func spec(_ id: String = "cpu", window: Int = 100, retentionSeconds: Int = 7 * 86_400) -> ChartSpec {
        ChartSpec(id: id, title: "CPU", mark: .line, xKind: .time, series: ["user", "system"],
                  interactions: ChartSpec.defaultInteractions(for: .time), window: window, retentionSeconds: retentionSeconds)
    }

    @discardableResult
    private func put(_ server: TestServer, _ spec: ChartSpec, status: Int = 201,
                     file: StaticString = #filePath, line: UInt = #line) throws -> RawHTTPResponse {
        let response = try server.request("PUT", "/api/charts/\(spec.id)", headers: [json], body: spec.encoded())
        XCTAssertEqual(response.status, status, response.bodyText, file: file, line: line)
        return response
    }

    /// Writes `user` = x / 1000 at each x (epoch ms) and returns the answer.
    private func write(_ server: TestServer, _ xs: [Double], chart: String = "cpu") throws -> RawHTTPResponse {
        let rows = xs.map { (series: "user", x: XValue.number($0), y: Optional($0 / 1000)) }
        return try server.request("POST", "/api/charts/\(chart)/points", headers: [json], body: PointsBody.rows(rows))
    }

    private func state(_ server: TestServer, _ chart: String) throws -> APIBody.ChartState {
        let response = try server.request("GET", "/api/charts/\(chart)")
        XCTAssertEqual(response.status, 200, response.bodyText)
        return try APIBody.decodeChartState(response.body)
    }

    private func xs(_ state: APIBody.ChartState, _ series: String = "user") -> [Double] {
        state.series.first { $0.name == series }?.points.compactMap { if case .number(let x) = $0.x { return x }; return nil } ?? []
    }

    /// A minute ago, in whole seconds (epoch ms): recent enough for any retention the tests use.
    private let t0 = ((Date().timeIntervalSince1970 - 60).rounded(.down)) * 1_000
    private func times(_ range: Range<Int>) -> [Double] { range.map { t0 + Double($0) * 1_000 } }

    // MARK: Restart

    func testAnsweredWritesAndAPICreatedChartsComeBackWithTheirLiveWindowRefilled() throws {
        do {
            let first = try server()
            try put(first, spec(window: 5))
            XCTAssertEqual(try write(first, times(0..<4)).status, 200)
            XCTAssertEqual(try write(first, times(4..<8)).status, 200)
            first.server.shutdown()
        }
        let second = try server()
        let back = try state(second, "cpu")
        XCTAssertEqual(back.spec, spec(window: 5))
        XCTAssertEqual(xs(back), times(3..<8), "the window's newest 5 x values, refilled from history")
        XCTAssertEqual(back.series.first { $0.name == "user" }?.points.last?.y, (t0 + 7_000) / 1000)
        // Writing on continues from there.
        XCTAssertEqual(try write(second, times(8..<9)).status, 200)
        XCTAssertEqual(xs(try state(second, "cpu")), times(4..<9))
    }

    func testARetentionZeroChartKeepsItsSpecButNoPoints() throws {
        do {
            let first = try server()
            try put(first, spec(retentionSeconds: 0))
            XCTAssertEqual(try write(first, times(0..<3)).status, 200)
            first.server.shutdown()
        }
        let second = try server()
        XCTAssertEqual(try state(second, "cpu").series.flatMap(\.points), [])
    }

    func testADeletedChartAndItsHistoryStayGone() throws {
        do {
            let first = try server()
            try put(first, spec())
            XCTAssertEqual(try write(first, times(0..<3)).status, 200)
            XCTAssertEqual(try first.request("DELETE", "/api/charts/cpu").status, 204)
            first.server.shutdown()
        }
        let second = try server()
        XCTAssertEqual(try second.request("GET", "/api/charts/cpu").status, 404)
        try put(second, spec())
        XCTAssertEqual(try state(second, "cpu").series.flatMap(\.points), [], "no points of the deleted chart")
    }

    func testTheDashboardsDefinitionWinsButItsPointsComeBack() throws {
        let file = Dashboard(title: "Plant", charts: [
            ChartSpec(id: "cpu", title: "From the file", mark: .line, xKind: .time, series: ["user"],
                      interactions: ChartSpec.defaultInteractions(for: .time), window: 10,
                      retentionSeconds: ChartSpec.defaultRetentionSeconds),
        ])
        do {
            let first = try server(dashboard: file)
            var replaced = spec()
            replaced.title = "Replaced over the API"
            try put(first, replaced, status: 200)
            XCTAssertEqual(try write(first, times(0..<3)).status, 200)
            first.server.shutdown()
        }
        let second = try server(dashboard: file)
        let back = try state(second, "cpu")
        XCTAssertEqual(back.spec.title, "From the file")
        XCTAssertEqual(xs(back), times(0..<3))
    }

    func testLineProtocolChartsAndPublishedPointsAreStored() throws {
        do {
            let first = try server()
            let ns = Int64(t0) * 1_000_000
            let lines = "disk,host=a used=1 \(ns)\ndisk,host=a used=2 \(ns + 1_000_000_000)\n"
            let response = try first.request("POST", "/api/v2/write", headers: ["Content-Type: text/plain"], body: Array(lines.utf8))
            XCTAssertEqual(response.status, 204, response.bodyText)
            try put(first, spec())
            let publisher = try first.viewer()
            publisher.send(.publish(.init(chart: "cpu", points: [.init(series: "system", x: .number(t0), y: 3)], ref: "p1")))
            let ack = try publisher.next("ack") { if case .ack(let ack) = $0 { return ack }; return nil }
            XCTAssertEqual(ack.ref, "p1")
            XCTAssertEqual(ack.accepted, 1)
            first.server.shutdown()
        }
        let second = try server()
        XCTAssertEqual(xs(try state(second, "disk"), "used{host=a}"), [t0, t0 + 1_000])
        XCTAssertEqual(xs(try state(second, "cpu"), "system"), [t0])
    }

    func testChartsDefinedInSwiftPublishThroughTheStoreAndAreRefilledWhenDefinedAgain() throws {
        do {
            let first = try server()
            XCTAssertTrue(try first.server.define(spec()))
            let seq = try first.server.publish([Point(series: "user", x: .number(t0), y: 1),
                                                Point(series: "user", x: .number(t0 + 1_000), y: 2)], to: "cpu")
            XCTAssertGreaterThan(seq, 0)
            first.server.shutdown()
        }
        let second = try server()
        XCTAssertEqual(try second.request("GET", "/api/charts/cpu").status, 404, "a Swift-defined chart's spec is not stored")
        XCTAssertTrue(try second.server.define(spec()))
        XCTAssertEqual(xs(try state(second, "cpu")), [t0, t0 + 1_000], "defining it again brings its points back")
    }

    // MARK: Zoom

    func testAViewBeforeTheLiveWindowIsReadFromHistoryAndDownsampled() throws {
        let server = try server()
        try put(server, spec(window: 100))
        let all = (0..<5_000).map { t0 + Double($0) }
        for start in stride(from: 0, to: 5_000, by: 1_000) {
            XCTAssertEqual(try write(server, Array(all[start..<start + 1_000])).status, 200)
        }
        let viewer = try server.viewer()
        viewer.sendViewport("cpu")   // 700 px wide
        viewer.send(.view(.init(chart: "cpu", domain: all[0]...all[4_999], ref: "z1")))
        let snapshot = try viewer.next("the view's snapshot") { message -> ServerMessage.Snapshot? in
            if case .snapshot(let s) = message, s.chart == "cpu", s.view != nil { return s }
            return nil
        }
        XCTAssertEqual(snapshot.view, all[0]...all[4_999])
        let points = snapshot.series.first { $0.name == "user" }?.points ?? []
        let xs = points.compactMap { point -> Double? in if case .number(let x) = point.x { return x }; return nil }
        XCTAssertEqual(xs.first, all[0], "the oldest stored point, long gone from the 100-point window")
        XCTAssertEqual(xs.last, all[4_999])
        XCTAssertLessThanOrEqual(xs.count, 4 * 700, "at most 4 points per pixel column")
        XCTAssertLessThan(xs.count, 5_000, "downsampled")
        XCTAssertGreaterThan(xs.count, 700, "not thinned to nothing")
    }

    // MARK: Retention

    func testRetentionSweepsStoredPointsPeriodically() throws {
        let now = (Date().timeIntervalSince1970 * 1000).rounded()
        let server = try server(sweep: 0.2)
        try put(server, spec(retentionSeconds: 30))
        XCTAssertEqual(try write(server, [now - 3_600_000, now - 60_000, now]).status, 200)
        let store = try XCTUnwrap(server.server.core.history?.store)
        XCTAssertTrue(eventually(timeout: 5) { (try? store.read(chart: "cpu", maxPerSeries: 100).first?.xs) == [now] },
                      "the periodic sweep removed the points older than 30 s")
        XCTAssertEqual(xs(try state(server, "cpu")).count, 3, "the live window keeps them until they leave it")
    }

    /// The sweep at start: points past their retention when the server stopped (no periodic
    /// sweep ran in either life of the server) are gone from the store, and from the live window
    /// refilled from it, when it starts again.
    func testRetentionSweepsStoredPointsAtStart() throws {
        let now = (Date().timeIntervalSince1970 * 1000).rounded()
        do {
            let first = try server(sweep: 3_600)
            try put(first, spec(retentionSeconds: 30))
            XCTAssertEqual(try write(first, [now - 3_600_000, now - 60_000, now]).status, 200)
            let store = try XCTUnwrap(first.server.core.history?.store)
            XCTAssertEqual(try store.read(chart: "cpu", maxPerSeries: 100).first?.xs, [now - 3_600_000, now - 60_000, now],
                           "stored, and not swept while this server ran")
            first.server.shutdown()
        }
        let second = try server(sweep: 3_600)
        let store = try XCTUnwrap(second.server.core.history?.store)
        XCTAssertEqual(try store.read(chart: "cpu", maxPerSeries: 100).first?.xs, [now], "swept when the store opened")
        XCTAssertEqual(xs(try state(second, "cpu")), [now], "the live window refilled after the sweep")
    }

    // MARK: Failures

    /// What the store's disk is like: `.full` fails writes that need more pages with
    /// SQLITE_FULL (SQLite's own size limit fails exactly like a full file system), `.readOnly`
    /// fails every write with SQLITE_READONLY (chmod does not stop root, nor a process holding
    /// the file open), `.fine` lets them through again.
    private enum Disk { case full, readOnly, fine }

    private func make(_ server: TestServer, _ disk: Disk) throws {
        let store = try XCTUnwrap(server.server.core.history?.store)
        let done = DispatchSemaphore(value: 0)
        store.maintenance({ db in
            let pages = try db.integer("PRAGMA page_count") ?? 0
            try db.execute("PRAGMA max_page_count = \(disk == .full ? pages : 1_073_741_823)")
            try db.execute("PRAGMA query_only = \(disk == .readOnly ? 1 : 0)")
        }, completion: { _ in done.signal() })
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
    }

    func testAFullOrReadOnlyDiskAnswers503WithNothingAppliedViewersUnaffectedAndWritesRecover() throws {
        let server = try server()
        try put(server, spec())
        XCTAssertEqual(try write(server, times(0..<2)).status, 200)
        let viewer = try server.viewer()
        // Every message the viewer receives from here until its own hover comes back.
        var received: [ServerMessage] = []
        let before = try state(server, "cpu")
        try make(server, .full)

        let refused = try write(server, times(2..<2_002))
        XCTAssertEqual(refused.status, 503, refused.bodyText)
        XCTAssertEqual(try APIBody.decodeFailure(refused.body).code, "unavailable")
        XCTAssertTrue(refused.bodyText.contains("disk is full"), refused.bodyText)
        XCTAssertEqual(refused.headers["retry-after"], "1")
        XCTAssertEqual(try state(server, "cpu"), before, "nothing applied")

        try make(server, .readOnly)
        XCTAssertEqual(try write(server, times(2..<3)).status, 503)
        viewer.send(.publish(.init(chart: "cpu", points: [.init(series: "user", x: .number(t0 + 5_000), y: 1)], ref: "p9")))
        let error = try viewer.next("error") { message -> ProtocolError? in
            received.append(message)
            if case .error(let e) = message { return e }
            return nil
        }
        XCTAssertEqual(error.code, .unavailable)
        XCTAssertEqual(error.ref, "p9")
        XCTAssertTrue(error.message.contains("read-only"), error.message)
        XCTAssertEqual(try state(server, "cpu"), before, "nothing applied")
        let metrics = try server.request("GET", "/metrics").bodyText
        XCTAssertTrue(metrics.contains("chartcast_history_writes_failed_total 3"), metrics)

        // Viewers still get what does not need the store: a selection. A chart's pending appends
        // go out before its newer selection, so any append of the refused writes would be
        // among the messages received before this one.
        viewer.sendViewport("cpu")
        viewer.pointer("cpu", .move, x: 300, ref: "after-refusals")
        _ = try viewer.next("the hover") { message -> ServerMessage.SelectionUpdate? in
            received.append(message)
            guard case .selection(let update) = message, update.chart == "cpu", update.ref == "after-refusals",
                  !update.selection.hovers.isEmpty else { return nil }
            return update
        }
        XCTAssertEqual(received.filter { message in
            switch message {
            case .append(let a): return a.chart == "cpu"
            case .snapshot(let s): return s.chart == "cpu"
            default: return false
            }
        }, [], "a watching viewer saw nothing of the refused writes")

        try make(server, .fine)
        XCTAssertEqual(try write(server, times(2..<2_002)).status, 200)
        XCTAssertEqual(xs(try state(server, "cpu")).count, 100, "the window holds the newest 100")
    }

    func testWritesBeyondThePendingBoundAreRefusedNotQueued() throws {
        let server = try server()
        try put(server, spec())
        let link = try XCTUnwrap(server.server.core.history)
        XCTAssertEqual(server.server.server.performAndWait(timeout: 5) { link.reserve(HistoryLink.defaultMaxPendingPoints) == nil }, true)
        let refused = try write(server, times(0..<3))
        XCTAssertEqual(refused.status, 503, refused.bodyText)
        XCTAssertTrue(refused.bodyText.contains("is behind"), refused.bodyText)
        server.server.server.perform { link.release(HistoryLink.defaultMaxPendingPoints) }
        XCTAssertEqual(try write(server, times(0..<3)).status, 200)
    }

    func testADataDirectoryThatCannotBeUsedStopsTheStart() throws {
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: directory.file(HistoryStore.fileName),
                                       contents: Data(String(repeating: "not a database\n", count: 400).utf8))
        XCTAssertThrowsError(try server()) { error in
            XCTAssertEqual((error as? StorageError)?.kind, .corrupt)
            XCTAssertTrue("\(error)".contains(self.directory.file(HistoryStore.fileName)), "\(error)")
        }
    }
}
