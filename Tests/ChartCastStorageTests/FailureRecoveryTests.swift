import XCTest
import TestSupport
import ChartEngine
@testable import ChartCastStorage

/// Writes failing while the store runs: a full disk (simulated with `PRAGMA max_page_count`,
/// SQLite's own size limit, which fails exactly like a full file system with `SQLITE_FULL`) and
/// a database that became read-only (`PRAGMA query_only`, `SQLITE_READONLY`; chmod does not stop
/// root, nor a process that already holds the file open).
final class FailureRecoveryTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUp() { directory = TemporaryDirectory("failure") }
    override func tearDown() { directory.remove() }

    func run(_ store: HistoryStore, _ body: @escaping (SQLiteConnection) throws -> Void) {
        XCTAssertSuccess(waitFor { store.maintenance(body, completion: $0) }, "maintenance")
    }

    func testAFullDiskFailsTheGroupWithNothingAppliedAndTheStoreRecovers() throws {
        let store = try HistoryStore.open(directory: directory.path, options: .init(groupingDelay: .milliseconds(300)))
        defer { store.close() }
        let spec = linearSpec("cpu", series: ["user", "system"])
        store.appendAndWait(spec, (0..<100).map { HistoryPoint(series: "user", x: Double($0), y: 1) })
        run(store) { db in
            let pages = try db.integer("PRAGMA page_count") ?? 0
            try db.execute("PRAGMA max_page_count = \(pages + 2)")
        }

        // Two writes grouped into one transaction: a small one and one too big for the limit.
        // Both are built first, so they are enqueued well within the grouping delay.
        let big = HistoryBatch((100..<100_100).map { HistoryPoint(series: "user", x: Double($0), y: 2) })
        let small = HistoryBatch([HistoryPoint(series: "system", x: 1, y: 1)])
        let completions = Completions()
        store.append(chart: spec, batch: small, completion: completions.handler)
        store.append(chart: spec, batch: big, completion: completions.handler)
        let results = completions.wait(2)
        for result in results {
            let error = failure(of: result)
            XCTAssertEqual(error?.kind, .unavailable)
            XCTAssertTrue(error?.isUnavailable ?? false)
            XCTAssertTrue(error?.message.contains(directory.database) ?? false, error?.message ?? "")
            XCTAssertTrue(error?.message.contains("disk is full") ?? false, error?.message ?? "")
        }
        XCTAssertEqual(try store.points("cpu", "user").count, 100, "nothing of the failed group was applied")
        XCTAssertEqual(try store.points("cpu", "system"), [])
        XCTAssertEqual(store.statistics.failedTransactions, 1)

        // Space returns: the same writes succeed.
        run(store) { db in try db.execute("PRAGMA max_page_count = 1073741823") }
        XCTAssertSuccess(waitFor { store.append(chart: spec, batch: big, completion: $0) })
        store.appendAndWait(spec, [HistoryPoint(series: "system", x: 1, y: 1)])
        XCTAssertEqual(try store.points("cpu", "user").count, 100_100)
        XCTAssertEqual(try store.points("cpu", "system"), [[1, 1]])
    }

    func testAReadOnlyDatabaseFailsWritesUntilItIsWritableAgain() throws {
        let store = try HistoryStore.open(directory: directory.path)
        defer { store.close() }
        let spec = linearSpec()
        store.appendAndWait(spec, [HistoryPoint(series: "a", x: 1, y: 1)])
        run(store) { db in try db.execute("PRAGMA query_only = 1") }
        let error = failure(of: waitFor { store.save(spec: spec, completion: $0) })
        XCTAssertEqual(error?.kind, .unavailable)
        XCTAssertTrue(error?.message.contains("read-only") ?? false, error?.message ?? "")
        XCTAssertEqual(try store.loadCharts(), [])

        run(store) { db in try db.execute("PRAGMA query_only = 0") }
        XCTAssertSuccess(waitFor { store.save(spec: spec, completion: $0) })
        store.appendAndWait(spec, [HistoryPoint(series: "a", x: 2, y: 2)])
        XCTAssertEqual(try store.loadCharts().map(\.spec), [spec])
        XCTAssertEqual(try store.points("lin", "a"), [[1, 1], [2, 2]])
    }
}
