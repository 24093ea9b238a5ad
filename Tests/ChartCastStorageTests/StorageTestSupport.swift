import Foundation
import XCTest
import TestSupport
import ChartEngine
@testable import ChartCastStorage

extension TemporaryDirectory {
    /// The database file a store opened on `path` uses.
    var database: String { file(HistoryStore.fileName) }
}

/// Collects the results of completions and waits for them.
final class Completions: @unchecked Sendable {
    private let lock = NSLock()
    private let semaphore = DispatchSemaphore(value: 0)
    private var results: [Result<Void, StorageError>] = []

    /// A completion that records its result.
    var handler: HistoryStore.Completion {
        { [self] result in
            lock.lock()
            results.append(result)
            lock.unlock()
            semaphore.signal()
        }
    }

    /// Waits for `count` more results (10 s at most each) and returns every result so far.
    @discardableResult
    func wait(_ count: Int, file: StaticString = #filePath, line: UInt = #line) -> [Result<Void, StorageError>] {
        for _ in 0..<count {
            if semaphore.wait(timeout: .now() + 10) == .timedOut {
                XCTFail("a completion did not come within 10 s", file: file, line: line)
                break
            }
        }
        lock.lock()
        defer { lock.unlock() }
        return results
    }
}

/// Runs one write and waits for its completion; returns its result.
@discardableResult
func waitFor(_ write: (@escaping HistoryStore.Completion) -> Void, file: StaticString = #filePath, line: UInt = #line) -> Result<Void, StorageError> {
    let completions = Completions()
    write(completions.handler)
    guard let result = completions.wait(1, file: file, line: line).first else {
        return .failure(StorageError(kind: .closed, path: "", message: "timed out"))
    }
    return result
}

/// Fails the test when `result` is a failure.
func XCTAssertSuccess(_ result: Result<Void, StorageError>, _ message: String = "", file: StaticString = #filePath, line: UInt = #line) {
    if case .failure(let error) = result { XCTFail("\(message) failed: \(error)", file: file, line: line) }
}

/// The storage error of a failed result, or nil (and a test failure) when it succeeded.
func failure(of result: Result<Void, StorageError>, file: StaticString = #filePath, line: UInt = #line) -> StorageError? {
    switch result {
    case .success: XCTFail("expected a failure", file: file, line: line); return nil
    case .failure(let error): return error
    }
}

func timeSpec(_ id: String = "cpu", series: [String] = ["user", "system"], retention: Int = 7 * 86_400) -> ChartSpec {
    ChartSpec(id: id, title: id.uppercased(), mark: .line, xKind: .time, series: series,
              interactions: ChartSpec.defaultInteractions(for: .time), window: 1_000, retentionSeconds: retention)
}

func linearSpec(_ id: String = "lin", series: [String] = ["a"], retention: Int = 3_600) -> ChartSpec {
    ChartSpec(id: id, title: id, mark: .point, xKind: .linear, series: series,
              interactions: ChartSpec.defaultInteractions(for: .linear), window: 1_000, retentionSeconds: retention)
}

func categorySpec(_ id: String = "days", categories: [String] = ["Mon", "Tue", "Wed"], retention: Int = 3_600) -> ChartSpec {
    ChartSpec(id: id, title: id, mark: .bar, xKind: .category, series: ["minutes"], categories: categories,
              interactions: ChartSpec.defaultInteractions(for: .category), retentionSeconds: retention)
}

extension HistoryStore {
    /// Appends and waits for the commit; fails the test on an error.
    func appendAndWait(_ spec: ChartSpec, _ points: [HistoryPoint], writtenAt: Double? = nil,
                       file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertSuccess(waitFor { self.append(chart: spec, points: points, writtenAt: writtenAt, completion: $0) },
                         "append", file: file, line: line)
    }

    /// One series' points in [from, to], not downsampled.
    func points(_ chart: String, _ series: String, from: Double = -.infinity, to: Double = .infinity) throws -> [[Double]] {
        let all = try read(chart: chart, from: from, to: to, maxPerSeries: .max)
        guard let s = all.first(where: { $0.name == series }) else { return [] }
        return zip(s.xs, s.ys).map { [$0, $1] }
    }

    /// How many chunks the database holds (through a connection of the test's own).
    func chunkCount() throws -> Int {
        let db = try SQLiteConnection(path: path, create: false)
        defer { db.close() }
        return Int(try db.integer("SELECT count(*) FROM chunk") ?? -1)
    }
}

/// Opens a store with small chunks, so a few dozen points cross chunk boundaries.
func openSmall(_ directory: TemporaryDirectory, capacity: Int = 8, delay: Duration = .milliseconds(2)) throws -> HistoryStore {
    try HistoryStore.open(directory: directory.path, options: .init(groupingDelay: delay, chunkCapacity: capacity))
}
