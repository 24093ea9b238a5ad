import Foundation
import XCTest
import TestSupport
import ChartEngine
@testable import ChartCastStorage

/// What a `kill -9` leaves: the files as they are, WAL not checkpointed. `closeAbruptly()`
/// closes every connection without the checkpoint of a normal close, so the reopened store has
/// to recover from the WAL, as after a killed process.
final class DurabilityTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUp() { directory = TemporaryDirectory("durability") }
    override func tearDown() { directory.remove() }

    func testEveryCommittedWriteSurvivesAnAbruptClose() throws {
        try checkCommittedWritesSurviveAnAbruptClose(.full)
    }

    /// NORMAL skips the fsync, not the write: a killed process loses nothing under it either
    /// (what it risks is an OS crash or a power cut, which no in-process test can show).
    func testEveryCommittedWriteSurvivesAnAbruptCloseUnderNormalToo() throws {
        try checkCommittedWritesSurviveAnAbruptClose(.processCrashOnly)
    }

    func checkCommittedWritesSurviveAnAbruptClose(_ durability: HistoryStore.Durability) throws {
        let store = try HistoryStore.open(directory: directory.path,
                                          options: .init(groupingDelay: .milliseconds(1), durability: durability, chunkCapacity: 64))
        // A linear chart: retention by write time, so the sweep at reopen keeps these points.
        let spec = linearSpec("cpu", series: ["user", "system"])
        XCTAssertSuccess(waitFor { store.save(spec: spec, completion: $0) })
        let completions = Completions()
        let writes = 200, perWrite = 50
        for w in 0..<writes {
            let points = (0..<perWrite).map { HistoryPoint(series: $0 % 2 == 0 ? "user" : "system", x: Double(w * perWrite + $0), y: Double(w)) }
            store.append(chart: spec, points: points, completion: completions.handler)
        }
        let results = completions.wait(writes)
        for result in results { XCTAssertSuccess(result) }
        // Readers hold connections too; they must not checkpoint either.
        XCTAssertEqual(try store.points("cpu", "user").count, writes * perWrite / 2)
        store.closeAbruptly()

        let wal = try FileManager.default.attributesOfItem(atPath: directory.database + "-wal")[.size] as? Int ?? 0
        XCTAssertGreaterThan(wal, 0, "the WAL was left unmerged, as a killed process leaves it")

        let reopened = try HistoryStore.open(directory: directory.path)
        defer { reopened.close() }
        XCTAssertEqual(try reopened.loadCharts().map(\.spec), [spec])
        let user = try reopened.points("cpu", "user"), system = try reopened.points("cpu", "system")
        XCTAssertEqual(user.count + system.count, writes * perWrite)
        XCTAssertEqual(user.last, [Double(writes * perWrite - 2), Double(writes - 1)])
    }

    func testWritesNotYetCommittedWhenTheProcessDiesAreAbsentAndToldSo() throws {
        let spec = linearSpec("cpu", series: ["user"])
        let first = try HistoryStore.open(directory: directory.path)
        first.appendAndWait(spec, [HistoryPoint(series: "user", x: 1, y: 1)])
        first.close()
        // A long grouping delay: the next writes are still queued when the process "dies".
        let store = try HistoryStore.open(directory: directory.path, options: .init(groupingDelay: .seconds(10)))
        let completions = Completions()
        for x in 2...5 {
            store.append(chart: spec, points: [HistoryPoint(series: "user", x: Double(x), y: 1)], completion: completions.handler)
        }
        store.closeAbruptly()
        for result in completions.wait(4) { XCTAssertEqual(failure(of: result)?.kind, .closed) }

        let reopened = try HistoryStore.open(directory: directory.path)
        defer { reopened.close() }
        XCTAssertEqual(try reopened.points("cpu", "user"), [[1, 1]])
    }

    func testTheWriterRunsInWALModeWithFullSynchronousCommits() throws {
        let store = try HistoryStore.open(directory: directory.path)
        defer { store.close() }
        let seen = Box<[String]>([])
        XCTAssertSuccess(waitFor { completion in
            store.maintenance({ db in
                seen.value = try db.texts("PRAGMA journal_mode") + db.texts("PRAGMA synchronous")
            }, completion: completion)
        })
        XCTAssertEqual(seen.value, ["wal", "2"], "journal_mode WAL, synchronous FULL (2)")
    }

    func testNormalDurabilityIsAnExplicitChoice() throws {
        let store = try HistoryStore.open(directory: directory.path, options: .init(durability: .processCrashOnly))
        defer { store.close() }
        let seen = Box<[String]>([])
        XCTAssertSuccess(waitFor { completion in
            store.maintenance({ db in seen.value = try db.texts("PRAGMA synchronous") }, completion: completion)
        })
        XCTAssertEqual(seen.value, ["1"], "synchronous NORMAL (1)")
    }
}

/// A value a closure on another thread sets.
final class Box<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); stored = newValue; lock.unlock() }
    }
}
