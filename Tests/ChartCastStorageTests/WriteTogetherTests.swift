import Foundation
import XCTest
import TestSupport
import ChartEngine
@testable import ChartCastStorage

/// `HistoryStore.write`: several writes that commit or fail together; columnar batches; the
/// directory lock that keeps a second store off a database in use.
final class WriteTogetherTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUp() { directory = TemporaryDirectory("together") }
    override func tearDown() { directory.remove() }

    func testSavesAndAppendsOfOneWriteCommitTogether() throws {
        let store = try HistoryStore.open(directory: directory.path)
        defer { store.close() }
        let cpu = timeSpec("cpu", series: ["user"]), mem = timeSpec("mem", series: ["used"])
        XCTAssertSuccess(waitFor { store.write([
            .save(cpu), .save(mem),
            .append(cpu, HistoryBatch([HistoryPoint(series: "user", x: 1_000, y: 1)]), writtenAt: nil),
            .append(mem, HistoryBatch([HistoryPoint(series: "used", x: 1_000, y: 2)]), writtenAt: nil),
        ], completion: $0) })
        XCTAssertEqual(try store.loadCharts().map(\.spec.id), ["cpu", "mem"])
        XCTAssertEqual(try store.points("cpu", "user"), [[1_000, 1]])
        XCTAssertEqual(try store.points("mem", "used"), [[1_000, 2]])
        XCTAssertEqual(store.statistics.pointsCommitted, 2)
    }

    func testAFailingWriteLeavesNoneOfItsPartsBehind() throws {
        let store = try HistoryStore.open(directory: directory.path)
        defer { store.close() }
        let cpu = timeSpec("cpu", series: ["user"])
        XCTAssertSuccess(waitFor { store.maintenance({ db in
            let pages = try db.integer("PRAGMA page_count") ?? 0
            try db.execute("PRAGMA max_page_count = \(pages + 2)")
        }, completion: $0) })
        let big = HistoryBatch((0..<100_000).map { HistoryPoint(series: "user", x: Double($0), y: 2) })
        let error = failure(of: waitFor { store.write([.save(cpu), .append(cpu, big, writtenAt: nil)], completion: $0) })
        XCTAssertEqual(error?.kind, .unavailable)
        XCTAssertEqual(try store.loadCharts(), [], "the spec saved by the failed write is not there either")
        XCTAssertEqual(try store.points("cpu", "user"), [])
    }

    func testAColumnarBatchStoresTheSamePointsAsOneBuiltFromPoints() throws {
        let store = try HistoryStore.open(directory: directory.path)
        defer { store.close() }
        let spec = timeSpec("cpu", series: ["user", "system"])
        let batch = HistoryBatch(series: ["system", "user"], seriesIndex: [1, 0, 1], xs: [10, 10, 20], ys: [1, 2, 3])
        XCTAssertEqual(batch.count, 3)
        XCTAssertSuccess(waitFor { store.append(chart: spec, batch: batch, completion: $0) })
        XCTAssertEqual(try store.points("cpu", "user"), [[10, 1], [20, 3]])
        XCTAssertEqual(try store.points("cpu", "system"), [[10, 2]])
    }

    func testASecondStoreOnADirectoryInUseIsRefusedNamingTheHolder() throws {
        let first = try HistoryStore.open(directory: directory.path)
        XCTAssertThrowsError(try HistoryStore.open(directory: directory.path)) { error in
            let storage = error as? StorageError
            XCTAssertEqual(storage?.kind, .cannotOpen)
            XCTAssertTrue(storage?.message.contains("in use by process \(getpid())") ?? false, "\(error)")
            XCTAssertTrue(storage?.message.contains(self.directory.path) ?? false, "\(error)")
        }
        first.close()
        let second = try HistoryStore.open(directory: directory.path)
        second.close()
    }

    func testAnAbruptCloseReleasesTheDirectory() throws {
        let first = try HistoryStore.open(directory: directory.path)
        first.closeAbruptly()
        let second = try HistoryStore.open(directory: directory.path)
        second.close()
    }
}
