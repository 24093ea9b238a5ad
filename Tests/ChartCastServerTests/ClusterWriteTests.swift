import ChartCastProtocol
import ChartEngine
import Foundation
import TestSupport
import XCTest
@testable import ChartCastCluster
@testable import ChartCastServer
@testable import ChartCastStorage

/// Writes with `--redis` decided where their entries are applied: two servers, each with its own
/// history directory, joined through a real redis-server. A write is validated by the instance it
/// reaches and added to the stream; when a `PUT`, a `DELETE` or an auto-creation reached the
/// stream before it, every instance refuses it alike, the writer is answered with the error,
/// and no memory or history holds any of it. These tests hold the writing instance's appends
/// (`ClusterLink.appendsHeld`) so that the other instance's entry lands in between.
final class ClusterWriteTests: XCTestCase {
    private var redis: RedisServer!
    private var directories: [TemporaryDirectory] = []
    /// A minute ago in whole seconds (epoch ms): within the default retention.
    private let t0 = ((Date().timeIntervalSince1970 - 60).rounded(.down)) * 1_000

    override func setUpWithError() throws { redis = try RedisServer() }

    override func tearDown() {
        redis.stop()
        for directory in directories { directory.remove() }
    }

    private func instance() throws -> (TestServer, TemporaryDirectory) {
        let directory = TemporaryDirectory("cluster-write")
        directories.append(directory)
        let url = redis.url
        let server = try TestServer(dataDirectory: directory.path) { $0.redis = try? RedisEndpoint.parse(url) }
        return (server, directory)
    }

    private func link(of server: TestServer) throws -> ClusterLink {
        let core = server.server.core
        let link: ClusterLink?? = server.server.server.performAndWait(timeout: 5) { core.cluster?.link }
        return try XCTUnwrap(link ?? nil)
    }

    /// Sends `request` on another thread (it is answered only once its entry was applied).
    private func later(_ request: @escaping () throws -> RawHTTPResponse) -> () throws -> RawHTTPResponse {
        let done = DispatchSemaphore(value: 0)
        let box = AnswerBox()
        DispatchQueue.global().async {
            box.result = Result { try request() }
            done.signal()
        }
        return {
            guard done.wait(timeout: .now() + 10) == .success, let result = box.result else {
                throw TestFailure("the request was not answered")
            }
            return try result.get()
        }
    }

    private func put(_ server: TestServer, _ id: String, _ spec: String) throws -> Int {
        try server.request("PUT", "/api/charts/\(id)", headers: ["Content-Type: application/json"], body: Array(spec.utf8)).status
    }

    private func points(_ server: TestServer, _ id: String, _ body: String) -> () throws -> RawHTTPResponse {
        later { try server.request("POST", "/api/charts/\(id)/points", headers: ["Content-Type: application/json"], body: Array(body.utf8)) }
    }

    /// What a stopped server's history holds for `chart`: its saved spec (nil when none) and rows.
    private func stored(_ directory: TemporaryDirectory, _ chart: String) throws -> (spec: ChartSpec?, rows: HistoryRows) {
        let store = try HistoryStore.open(directory: directory.path)
        defer { store.close() }
        return (try store.loadCharts().first { $0.spec.id == chart }?.spec, try store.latest(chart: chart, limit: 1_000))
    }

    private let lineSpec = #"{"mark":"line","x":{"kind":"time"},"series":["load"]}"#
    private let categorySpec = #"{"mark":"bar","x":{"kind":"category","categories":["a","b"]},"series":["load"]}"#

    func testAWriteOrderedAfterAReplacementIsRefusedEverywhereAndStoredNowhere() throws {
        let (one, dirOne) = try instance(), (two, dirTwo) = try instance()
        XCTAssertEqual(try put(one, "cpu", lineSpec), 201)
        XCTAssertTrue(eventually { (try? two.request("GET", "/api/charts/cpu").status) == 200 })
        let linkOne = try link(of: one)
        linkOne.appendsHeld = true
        let answer = points(one, "cpu", #"{"points":[{"series":"load","x":\#(t0),"y":1},{"series":"load","x":\#(t0 + 1000),"y":2}]}"#)
        XCTAssertTrue(eventually { linkOne.queuedAppends == 1 }, "the write was validated on its instance and waits to be added")
        // Meanwhile the other instance replaces the chart by a category chart: its entry comes first.
        XCTAssertEqual(try put(two, "cpu", categorySpec), 200)
        XCTAssertTrue(eventually { (try? one.request("GET", "/api/charts/cpu").bodyText.contains("category")) == true })
        linkOne.appendsHeld = false
        let refused = try answer()
        XCTAssertEqual(refused.status, 400, refused.bodyText)
        XCTAssertTrue(refused.bodyText.contains("\"bad_point\""), refused.bodyText)
        let live = try one.request("GET", "/api/charts/cpu").bodyText
        XCTAssertEqual(live, try two.request("GET", "/api/charts/cpu").bodyText, "both instances hold the same chart")
        XCTAssertTrue(live.contains(#""points":[]"#), "no point of the refused write: \(live)")
        XCTAssertEqual(try one.server.statistics()?.seqByChart, try two.server.statistics()?.seqByChart)
        one.server.shutdown()
        two.server.shutdown()
        for directory in [dirOne, dirTwo] {
            let (spec, rows) = try stored(directory, "cpu")
            XCTAssertEqual(spec?.xKind, .category, "the replacement is stored on every instance")
            XCTAssertEqual(rows.rows, [], "no history holds a point of the refused write")
        }
    }

    func testAWriteOrderedAfterARemovalIsAnsweredUnknownChartAndStoredNowhere() throws {
        let (one, dirOne) = try instance(), (two, dirTwo) = try instance()
        XCTAssertEqual(try put(one, "cpu", lineSpec), 201)
        XCTAssertTrue(eventually { (try? two.request("GET", "/api/charts/cpu").status) == 200 })
        let linkOne = try link(of: one)
        linkOne.appendsHeld = true
        let answer = points(one, "cpu", #"{"points":[{"series":"load","x":\#(t0),"y":1}]}"#)
        XCTAssertTrue(eventually { linkOne.queuedAppends == 1 })
        XCTAssertEqual(try two.request("DELETE", "/api/charts/cpu").status, 204)
        XCTAssertTrue(eventually { (try? one.request("GET", "/api/charts/cpu").status) == 404 })
        linkOne.appendsHeld = false
        let refused = try answer()
        XCTAssertEqual(refused.status, 404, refused.bodyText)
        XCTAssertTrue(refused.bodyText.contains("\"unknown_chart\""), refused.bodyText)
        XCTAssertEqual(try two.request("GET", "/api/charts/cpu").status, 404, "the write did not bring the chart back")
        one.server.shutdown()
        two.server.shutdown()
        for directory in [dirOne, dirTwo] {
            let (spec, rows) = try stored(directory, "cpu")
            XCTAssertNil(spec)
            XCTAssertEqual(rows.rows, [])
        }
    }

    func testALineProtocolWriteOrderedAfterAnotherDefinitionOfItsChartIsRefusedWhole() throws {
        let (one, dirOne) = try instance(), (two, dirTwo) = try instance()
        XCTAssertEqual(try put(one, "cpu", lineSpec), 201)
        XCTAssertTrue(eventually { (try? two.request("GET", "/api/charts/cpu").status) == 200 })
        let linkOne = try link(of: one)
        linkOne.appendsHeld = true
        // Two charts in one write: "cpu" exists, "mem" is auto-created by it.
        let ns = Int(t0) * 1_000_000
        let answer = later { try one.request("POST", "/api/v2/write", body: Array("cpu load=1 \(ns)\nmem used=2 \(ns)".utf8)) }
        XCTAssertTrue(eventually { linkOne.queuedAppends == 1 })
        // The other instance defines "mem" as a category chart first: the write's x cannot go there.
        XCTAssertEqual(try put(two, "mem", categorySpec), 201)
        XCTAssertTrue(eventually { (try? one.request("GET", "/api/charts/mem").status) == 200 })
        linkOne.appendsHeld = false
        let refused = try answer()
        XCTAssertEqual(refused.status, 400, refused.bodyText)
        for server in [one, two] {
            let cpu = try server.request("GET", "/api/charts/cpu").bodyText
            XCTAssertTrue(cpu.contains(#""points":[]"#), "no point reached cpu either (all or nothing): \(cpu)")
        }
        XCTAssertEqual(try one.request("GET", "/api/charts/mem").bodyText, try two.request("GET", "/api/charts/mem").bodyText)
        one.server.shutdown()
        two.server.shutdown()
        for directory in [dirOne, dirTwo] {
            XCTAssertEqual(try stored(directory, "cpu").rows.rows, [])
            XCTAssertEqual(try stored(directory, "mem").spec?.xKind, .category)
            XCTAssertEqual(try stored(directory, "mem").rows.rows, [])
        }
    }

    func testEveryInstanceStoresWhatTheStreamAppliedInOrderAndTheWriterAnswersAfterItsCommit() throws {
        let (one, dirOne) = try instance(), (two, dirTwo) = try instance()
        XCTAssertEqual(try put(one, "cpu", lineSpec), 201)
        XCTAssertTrue(eventually { (try? two.request("GET", "/api/charts/cpu").status) == 200 })
        // Writes through both instances at once, each adding a series of its own and rewriting
        // the other's rows: the stream orders them, every history ends as every memory does.
        var answers: [() throws -> RawHTTPResponse] = []
        for i in 0..<20 {
            let x = t0 + Double(i % 5) * 1000
            answers.append(points(one, "cpu", #"{"points":[{"series":"a","x":\#(x),"y":\#(i)},{"series":"load","x":\#(x),"y":\#(100 + i)}]}"#))
            answers.append(points(two, "cpu", #"{"points":[{"series":"b","x":\#(x),"y":\#(i)},{"series":"load","x":\#(x),"y":\#(200 + i)}]}"#))
        }
        for answer in answers { XCTAssertEqual(try answer().status, 200) }
        let live = try one.request("GET", "/api/charts/cpu").bodyText
        XCTAssertTrue(eventually { (try? two.request("GET", "/api/charts/cpu").bodyText) == live })
        let state = try JSONReader.parse(Array(live.utf8))
        let series = try XCTUnwrap(state["series"]?.array)
        one.server.shutdown()
        two.server.shutdown()
        let (_, storedOne) = try stored(dirOne, "cpu"), (_, storedTwo) = try stored(dirTwo, "cpu")
        XCTAssertEqual(Set(storedOne.series), ["load", "a", "b"])
        XCTAssertEqual(storedOne.rows.count, 5)
        for name in ["load", "a", "b"] {
            let live = series.first { $0["name"]?.string == name }?["points"]?.array?.compactMap { $0.array?.compactMap(\.number) } ?? []
            for (store, label) in [(storedOne, "one"), (storedTwo, "two")] {
                let s = try XCTUnwrap(store.series.firstIndex(of: name))
                let rows = store.rows.compactMap { row in row.values[s].map { [row.x, $0] } }
                XCTAssertEqual(rows, live, "history of instance \(label) holds what memory holds for \(name)")
            }
        }
    }
}

/// One answer handed from the thread that waited for it (written before the semaphore is
/// signalled, read after it was waited for).
private final class AnswerBox: @unchecked Sendable {
    var result: Result<RawHTTPResponse, Error>?
}
