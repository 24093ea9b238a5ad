import Foundation
import XCTest
import TestSupport
import ChartEngine
@testable import ChartCastStorage

final class GroupCommitTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUp() { directory = TemporaryDirectory("group") }
    override func tearDown() { directory.remove() }

    func testWritesFromSeveralThreadsShareFewTransactionsAndCompleteAfterTheirCommit() throws {
        let store = try HistoryStore.open(directory: directory.path, options: .init(groupingDelay: .milliseconds(50)))
        defer { store.close() }
        let spec = timeSpec(series: [])
        let threads = 8, perThread = 50
        let completions = Completions()
        let unseen = Counter()
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            for i in 0..<perThread {
                let x = Double(t * perThread + i)
                store.append(chart: spec, points: [HistoryPoint(series: "s\(t)", x: x, y: -x)]) { result in
                    // Called after the commit: a read transaction started now sees the point.
                    if (try? store.points("cpu", "s\(t)", from: x, to: x)) != [[x, -x]] { unseen.increment() }
                    completions.handler(result)
                }
            }
        }
        let results = completions.wait(threads * perThread)
        XCTAssertEqual(results.count, threads * perThread)
        for result in results { XCTAssertSuccess(result) }
        XCTAssertEqual(unseen.value, 0, "every completion came after its write was readable")
        let statistics = store.statistics
        XCTAssertEqual(statistics.writesCommitted, threads * perThread)
        XCTAssertEqual(statistics.pointsCommitted, threads * perThread)
        XCTAssertLessThanOrEqual(statistics.transactions, 20, "\(threads * perThread) writes in \(statistics.transactions) transactions")
        let stored = try store.read(chart: "cpu", maxPerSeries: .max)
        XCTAssertEqual(stored.map(\.xs.count).reduce(0, +), threads * perThread)
    }

    func testWritesApplyInTheOrderTheyWereEnqueued() throws {
        let store = try HistoryStore.open(directory: directory.path, options: .init(groupingDelay: .milliseconds(200)))
        defer { store.close() }
        let spec = timeSpec()
        let completions = Completions()
        store.append(chart: spec, points: [HistoryPoint(series: "user", x: 1, y: 1)], completion: completions.handler)
        store.append(chart: spec, points: [HistoryPoint(series: "user", x: 1, y: 2)], completion: completions.handler)
        store.delete(chart: "cpu", completion: completions.handler)
        store.append(chart: spec, points: [HistoryPoint(series: "user", x: 2, y: 3)], completion: completions.handler)
        store.append(chart: spec, points: [HistoryPoint(series: "user", x: 2, y: 4)], completion: completions.handler)
        for result in completions.wait(5) { XCTAssertSuccess(result) }
        XCTAssertEqual(try store.points("cpu", "user"), [[2, 4]])
        XCTAssertLessThanOrEqual(store.statistics.transactions, 2)
    }

    func testManySmallWritesToOneSeriesMakeFewChunks() throws {
        let store = try HistoryStore.open(directory: directory.path, options: .init(groupingDelay: .zero, chunkCapacity: 64))
        defer { store.close() }
        let spec = linearSpec()
        for i in 0..<300 { store.appendAndWait(spec, [HistoryPoint(series: "a", x: Double(i), y: Double(i))]) }
        XCTAssertEqual(try store.points("lin", "a").map { $0[0] }, (0..<300).map(Double.init))
        // Runs of 8 chunks under 32 points merge: about 300 / 32 chunks plus a run in progress.
        XCTAssertLessThanOrEqual(try store.chunkCount(), 300 / 32 + 8, "small chunks are merged")
    }

    func testABigWriteIsSplitIntoBalancedChunks() throws {
        let store = try HistoryStore.open(directory: directory.path, options: .init(chunkCapacity: 1_024))
        defer { store.close() }
        store.appendAndWait(linearSpec(), (0..<1_025).map { HistoryPoint(series: "a", x: Double($0), y: 0) })
        let db = try SQLiteConnection(path: store.path, create: false)
        defer { db.close() }
        XCTAssertEqual(try db.texts("SELECT n FROM chunk ORDER BY x0"), ["513", "512"])
    }

    func testCloseCommitsWhatIsQueuedAndLaterWritesFailWithClosed() throws {
        let store = try HistoryStore.open(directory: directory.path, options: .init(groupingDelay: .seconds(5)))
        let spec = linearSpec("cpu", series: ["user"])
        let completions = Completions()
        store.append(chart: spec, points: [HistoryPoint(series: "user", x: 1, y: 1)], completion: completions.handler)
        store.close()
        XCTAssertSuccess(completions.wait(1)[0], "the queued write")
        let late = waitFor { store.append(chart: spec, points: [HistoryPoint(series: "user", x: 2, y: 2)], completion: $0) }
        XCTAssertEqual(failure(of: late)?.kind, .closed)
        XCTAssertThrowsError(try store.loadCharts()) { XCTAssertEqual(($0 as? StorageError)?.kind, .closed) }

        let reopened = try HistoryStore.open(directory: directory.path)
        defer { reopened.close() }
        XCTAssertEqual(try reopened.points("cpu", "user"), [[1, 1]])
    }
}

/// A counter several threads increment.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
