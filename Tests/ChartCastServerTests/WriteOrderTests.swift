import ChartCastIngest
import ChartCastProtocol
import ChartEngine
import Foundation
import TestSupport
import XCTest
@testable import ChartCastServer
@testable import ChartCastStorage

/// Writes racing the changes of their charts, against the server core and a real history store
/// in a temporary directory: a write is validated on the service thread, committed, and applied
/// when the commit is reported — these tests put a `PUT`, a `DELETE`, an auto-creation or another
/// write in between. Every write is all or nothing in memory and in history alike: answered 2xx,
/// all of it is applied and stored; answered with an error, none of it is either.
final class WriteOrderTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var store: HistoryStore!
    private var harness: CoreHarness!
    private var core: ServerCore { harness.core }
    /// A minute ago in whole seconds (epoch ms): within every retention used here.
    private let t0 = ((Date().timeIntervalSince1970 - 60).rounded(.down)) * 1_000

    override func setUpWithError() throws {
        try open(autoCreate: true)
    }

    override func tearDown() {
        store?.close()
        directory?.remove()
    }

    private func open(autoCreate: Bool) throws {
        store?.close()
        directory?.remove()
        directory = TemporaryDirectory("write-order")
        var options = ServerOptions(port: 0, logLevel: .error)
        options.autoCreate = autoCreate
        harness = CoreHarness(options: options, dashboard: Dashboard(title: "Order", charts: []))
        store = try HistoryStore.open(directory: directory.path)
        _ = try harness.core.attach(history: HistoryLink(store: store))
    }

    // MARK: Helpers

    private let timeSpec = #"{"mark":"line","x":{"kind":"time"},"retention":"7d"}"#
    private let categorySpec = #"{"mark":"bar","x":{"kind":"category","categories":["p","q"]},"retention":"7d"}"#

    private func put(_ id: String, _ spec: String, status: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let response = try harness.api("PUT", "/api/charts/\(id)", json: spec)
        XCTAssertEqual(response.status, status, response.text, file: file, line: line)
    }

    private func startPut(_ id: String, _ spec: String) throws -> CoreHarness.Pending {
        try harness.start("PUT", "/api/charts/\(id)", headers: ["content-type": "application/json"], body: Array(spec.utf8))
    }

    /// Starts a line-protocol write of `lines` (ms timestamps) at once, as its parsed body
    /// reaches the service thread.
    private func startLineWrite(_ lines: [String]) throws -> CoreHarness.Pending {
        let pending = CoreHarness.Pending()
        let write = try LineProtocolParser.parse(Array(lines.joined(separator: "\n").utf8), precision: .milliseconds,
                                                 receivedAt: t0)
        core.write(write) { pending.response = $0 }
        return pending
    }

    /// Starts a write of one point per x of `series` to `chart`, as `POST /api/charts/{id}/points`
    /// does once its body is parsed.
    private func startPointsWrite(_ chart: String, series: [String], xs: [Double]) throws -> CoreHarness.Pending {
        let pending = CoreHarness.Pending()
        var rows: [PublishedRow] = []
        for name in series { for x in xs { rows.append(PublishedRow(series: name, x: .number(x), y: x / 1_000)) } }
        core.write(try PointBatch(published: rows), to: chart) { pending.response = APIResponse($0) }
        return pending
    }

    private func settle(_ pending: CoreHarness.Pending...) throws {
        try harness.settle { pending.allSatisfy { $0.response != nil } }
    }

    /// The x values of every series of `chart` in memory (nil: no such chart).
    private func inMemory(_ chart: String) -> [String: [Double]]? {
        guard let channel = core.channelsByID[chart] else { return nil }
        var out: [String: [Double]] = [:]
        for series in channel.snapshot().series where !series.points.isEmpty {
            out[series.name] = series.points.map { if case .number(let x) = $0.x { return x }; return .nan }
        }
        return out
    }

    /// The x values of every series of `chart` in the history store (series without points left out).
    private func inHistory(_ chart: String) throws -> [String: [Double]] {
        var out: [String: [Double]] = [:]
        for series in try store.read(chart: chart, maxPerSeries: 1_000_000) where !series.xs.isEmpty {
            out[series.name] = series.xs
        }
        return out
    }

    /// Memory and history hold the same points of `chart` (nothing of one without the other),
    /// and the saved spec, if any, is the one served.
    private func assertConsistent(_ chart: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(inMemory(chart) ?? [:], try inHistory(chart), "\(chart): memory and history", file: file, line: line)
        let saved = try store.loadCharts().first { $0.spec.id == chart }?.spec
        let served = core.channelsByID[chart]?.spec
        XCTAssertEqual(saved?.title, served?.title, "\(chart): the saved spec is the one served", file: file, line: line)
        XCTAssertEqual(saved?.xKind, served?.xKind, file: file, line: line)
        XCTAssertEqual(saved?.categories, served?.categories, file: file, line: line)
    }

    private func code(_ response: APIResponse?) throws -> String {
        try XCTUnwrap(response).failure().code
    }

    // MARK: Replaced

    func testAWriteWhoseChartIsReplacedBeforeItsTurnIsCheckedAgainstTheReplacementAndAppliesNothingAnywhere() throws {
        try put("a", timeSpec, status: 201)
        try put("b", timeSpec, status: 201)
        // b becomes a category chart; its save is committing when the write arrives.
        let replace = try startPut("b", categorySpec)
        let write = try startLineWrite(["a v=1 \(Int(t0))", "b v=2 \(Int(t0))"])
        try settle(replace, write)

        XCTAssertEqual(replace.response?.status, 200)
        XCTAssertEqual(write.response?.status, 400, write.response?.text ?? "")
        XCTAssertEqual(try code(write.response), "bad_point", "a timestamp cannot be the x of category chart b")
        XCTAssertEqual(inMemory("a"), [:], "nothing of the write reached chart a")
        XCTAssertEqual(try inHistory("a"), [:], "nor its history")
        XCTAssertEqual(try inHistory("b"), [:])
        XCTAssertEqual(core.channelsByID["b"]?.spec.xKind, .category)
        try assertConsistent("a")
        try assertConsistent("b")
    }

    func testAWriteUnderWayWhenItsChartIsReplacedIsAppliedWhollyToTheOldDefinitionFirst() throws {
        try put("a", timeSpec, status: 201)
        try put("b", timeSpec, status: 201)
        let write = try startLineWrite(["a v=1 \(Int(t0))", "b v=2 \(Int(t0))"])
        let replace = try startPut("b", categorySpec)
        try settle(replace, write)

        XCTAssertEqual(write.response?.status, 204, write.response?.text ?? "")
        XCTAssertEqual(replace.response?.status, 200)
        XCTAssertEqual(inMemory("a"), ["v": [t0]], "the write is applied whole")
        XCTAssertEqual(try inHistory("a"), ["v": [t0]])
        XCTAssertEqual(inMemory("b"), [:], "then b was replaced with another x kind: its points went with it")
        XCTAssertEqual(try inHistory("b"), [:], "in history too")
        try assertConsistent("a")
        try assertConsistent("b")
    }

    func testPointsForAChartReplacedWithOtherCategoriesAreCheckedAgainstTheNewOnes() throws {
        try put("c", categorySpec, status: 201)
        let replace = try startPut("c", #"{"mark":"bar","x":{"kind":"category","categories":["q","r"]},"retention":"7d"}"#)
        let pending = CoreHarness.Pending()
        core.write(try PointBatch(published: [PublishedRow(series: "s", x: .string("p"), y: 1)]), to: "c") {
            pending.response = APIResponse($0)
        }
        try settle(replace, pending)
        XCTAssertEqual(pending.response?.status, 400, "\"p\" is no longer a category of c")
        XCTAssertEqual(try code(pending.response), "bad_point")
        XCTAssertEqual(core.channelsByID["c"]?.snapshot().series.flatMap(\.points) ?? [], [])
        XCTAssertEqual(try inHistory("c"), [:])
    }

    // MARK: Removed

    func testALineProtocolWriteToAChartBeingRemovedCreatesItAnewWholeAfterTheRemoval() throws {
        try put("a", timeSpec, status: 201)
        try put("b", timeSpec, status: 201)
        let delete = try harness.start("DELETE", "/api/charts/b")
        let write = try startLineWrite(["a v=1 \(Int(t0))", "b v=2 \(Int(t0))"])
        try settle(delete, write)

        XCTAssertEqual(delete.response?.status, 204)
        XCTAssertEqual(write.response?.status, 204, write.response?.text ?? "")
        XCTAssertEqual(inMemory("a"), ["v": [t0]])
        XCTAssertEqual(inMemory("b"), ["v": [t0]], "b was auto-created again, after its removal, with the write's point")
        XCTAssertEqual(try inHistory("b"), ["v": [t0]])
        XCTAssertEqual(try store.loadCharts().map(\.spec.id).sorted(), ["a", "b"], "b's new spec is saved")
        try assertConsistent("a")
        try assertConsistent("b")
    }

    func testWithoutAutoCreateALineProtocolWriteToAChartBeingRemovedIsRefusedWhole() throws {
        try open(autoCreate: false)
        try put("a", timeSpec, status: 201)
        try put("b", timeSpec, status: 201)
        let delete = try harness.start("DELETE", "/api/charts/b")
        let write = try startLineWrite(["a v=1 \(Int(t0))", "b v=2 \(Int(t0))"])
        try settle(delete, write)

        XCTAssertEqual(delete.response?.status, 204)
        XCTAssertEqual(write.response?.status, 404, write.response?.text ?? "")
        XCTAssertEqual(try code(write.response), "unknown_chart")
        XCTAssertEqual(inMemory("a"), [:], "nothing of the write reached a")
        XCTAssertEqual(try inHistory("a"), [:])
        XCTAssertEqual(try inHistory("b"), [:], "no points left behind for the removed chart")
        XCTAssertNil(core.channelsByID["b"])
        try assertConsistent("a")
    }

    func testPointsForAChartBeingRemovedAreAnswered404AndNeverStored() throws {
        try put("b", timeSpec, status: 201)
        let delete = try harness.start("DELETE", "/api/charts/b")
        let write = try startPointsWrite("b", series: ["v"], xs: [t0, t0 + 1_000])
        try settle(delete, write)

        XCTAssertEqual(delete.response?.status, 204)
        XCTAssertEqual(write.response?.status, 404, write.response?.text ?? "")
        XCTAssertEqual(try inHistory("b"), [:], "no orphan points under the removed chart's id")
        try put("b", timeSpec, status: 201)
        XCTAssertEqual(inMemory("b"), [:], "defined again, it starts empty: nothing of the refused write comes back")
    }

    func testTheSwiftAPIsRemoveWaitsForTheWriteUnderWay() throws {
        try put("b", timeSpec, status: 201)
        let write = try startPointsWrite("b", series: ["v"], xs: [t0])
        var removed: Bool?
        core.removeInTurn("b") { removed = $0 }
        XCTAssertNil(removed, "the remove waits for the write's commit")
        try harness.settle { write.response != nil && removed != nil }
        XCTAssertEqual(write.response?.status, 200, "applied to the chart before it was removed")
        XCTAssertEqual(removed, true)
        XCTAssertEqual(try inHistory("b"), ["v": [t0]], "answered 200: stored")
    }

    // MARK: Created and grown

    func testALineProtocolWriteToAChartBeingCreatedByPUTWaitsForItAndKeepsItsSpec() throws {
        let create = try startPut("x", #"{"title":"Made by PUT","mark":"area","x":{"kind":"time"},"retention":"7d"}"#)
        let write = try startLineWrite(["x v=1 \(Int(t0))"])
        try settle(create, write)

        XCTAssertEqual(create.response?.status, 201, "created by the PUT, not replacing an auto-created chart")
        XCTAssertEqual(write.response?.status, 204, write.response?.text ?? "")
        XCTAssertEqual(core.channelsByID["x"]?.spec.title, "Made by PUT")
        XCTAssertEqual(core.channelsByID["x"]?.spec.mark, .area)
        XCTAssertEqual(inMemory("x"), ["v": [t0]])
        try assertConsistent("x")
    }

    func testTwoAutoCreatingWritesThatTogetherPassThirtyTwoSeriesRefuseTheSecondUpFront() throws {
        let fields = { (range: Range<Int>) in range.map { "f\($0)=1" }.joined(separator: ",") }
        let first = try startLineWrite(["y \(fields(0..<20)) \(Int(t0))"])
        let second = try startLineWrite(["y \(fields(20..<40)) \(Int(t0) + 1_000)"])
        try settle(first, second)

        XCTAssertEqual(first.response?.status, 204)
        XCTAssertEqual(second.response?.status, 400, second.response?.text ?? "")
        XCTAssertEqual(try code(second.response), "bad_point", "a 33rd series")
        XCTAssertEqual(core.channelsByID["y"]?.spec.series.count, 20)
        XCTAssertEqual(try inHistory("y").count, 20, "only the first write's series are stored")
        XCTAssertEqual(try inHistory("y").values.map(\.count).max(), 1, "and only its point")
        try assertConsistent("y")
    }

    func testTwoWritesThatTogetherPassThirtyTwoSeriesOfAChartRefuseTheSecondUpFront() throws {
        try put("z", timeSpec, status: 201)
        let first = try startPointsWrite("z", series: (0..<20).map { "s\($0)" }, xs: [t0])
        let second = try startPointsWrite("z", series: (20..<40).map { "s\($0)" }, xs: [t0 + 1_000])
        let third = try startPointsWrite("z", series: ["s0"], xs: [t0 + 2_000])
        try settle(first, second, third)

        XCTAssertEqual(first.response?.status, 200)
        XCTAssertEqual(second.response?.status, 400, second.response?.text ?? "")
        XCTAssertEqual(third.response?.status, 200, "a write to series that exist goes through")
        XCTAssertEqual(core.channelsByID["z"]?.spec.series.count, 20)
        XCTAssertEqual(try inHistory("z")["s0"], [t0, t0 + 2_000])
        XCTAssertNil(try inHistory("z")["s20"], "nothing of the refused write is stored")
        try assertConsistent("z")
    }

    // MARK: The order itself

    func testOperationsOnAChartStartInArrivalOrderAndOthersAreNotHeldUp() {
        let order = ChartOrder()
        var log: [String] = []
        var tickets: [String: ChartOrder.Ticket] = [:]
        func run(_ name: String, _ ids: [String], exclusive: Bool) {
            order.run(ids, exclusive: exclusive) { ticket in
                log.append(name)
                tickets[name] = ticket
            }
        }
        run("w1", ["a"], exclusive: false)
        run("w2", ["a", "b"], exclusive: false)
        run("put-a", ["a"], exclusive: true)
        run("w3", ["a"], exclusive: false)
        run("w4", ["b"], exclusive: false)
        XCTAssertEqual(log, ["w1", "w2", "w4"], "writes share a chart; a definition waits for them, later writes for it")
        order.finish(tickets["w1"]!)
        XCTAssertEqual(log, ["w1", "w2", "w4"])
        order.finish(tickets["w2"]!)
        XCTAssertEqual(log, ["w1", "w2", "w4", "put-a"])
        order.finish(tickets["put-a"]!)
        XCTAssertEqual(log, ["w1", "w2", "w4", "put-a", "w3"])

        // A write that adds series holds its chart alone from then on.
        order.claimExclusive("b", for: tickets["w4"]!)
        run("w5", ["b"], exclusive: false)
        XCTAssertEqual(log.last, "w3")
        order.finish(tickets["w4"]!)
        XCTAssertEqual(log.last, "w5")
        order.finish(tickets["w4"]!)   // twice: nothing
        order.finish(tickets["w3"]!)
        order.finish(tickets["w5"]!)
        XCTAssertFalse(order.isBusy("a"))
        XCTAssertFalse(order.isBusy("b"))
    }

    func testWhatWaitsIsBoundedAndRefusedBeyond() {
        let order = ChartOrder(maxWaitingPoints: 10)
        var put: ChartOrder.Ticket?
        order.run(["a"], exclusive: true) { put = $0 }
        XCTAssertTrue(order.run(["a"], exclusive: false, points: 8) { _ in })
        XCTAssertFalse(order.run(["a"], exclusive: false, points: 8) { _ in XCTFail("refused, never started") })
        XCTAssertTrue(order.run(["b"], exclusive: false, points: 8) { _ in }, "a write that need not wait is not refused")
        order.finish(put!)
        XCTAssertEqual(order.waitingCount, 0)
    }
}
