// chartcast-bench --storage: the history store (ChartCastStorage) on this machine's disk.
//
// With n points (10^7 by default, 10^6 with --quick) of one time series:
//   - ingest: batches of 10,000 points enqueued by one producer with up to 16 batches in
//     flight (a busy server's workers), timed from the first enqueue to the last completion,
//     i.e. committed: durability FULL (the default, fsync per transaction) and, on a fresh
//     database, NORMAL for comparison;
//   - one batch in flight: each batch waits for the previous commit (commit latency);
//   - small writes: 20,000 one-point appends from 4 threads, grouped into few transactions;
//   - bytes on disk per point after a clean close, and the time `open` takes on that file
//     (PRAGMA quick_check reads every page);
//   - reads of the n-point series: M4 to 2,000 points over all of it and over a tenth,
//     a raw read of 10,000 points, and `latest(limit: 1,000)` (median of several runs, warm).
// The table goes to stdout (Markdown); progress to stderr. The databases live in a temporary
// directory that is removed at the end.

import ChartCastDemo
import ChartCastStorage
import ChartEngine
import Foundation

struct StorageRow {
    var operation: String
    var result: String
    var detail: String
}

/// A store, a chart and a producer of 10,000-point batches of a random walk.
struct StorageWorkload {
    static let batchSize = 10_000
    let spec = ChartSpec(id: "load", title: "Load", mark: .line, xKind: .time, series: ["load"],
                         window: 1_000, retentionSeconds: 3_650 * 86_400)
    /// x of point 0: far enough back that the sweep at open keeps everything.
    let x0 = (Date().timeIntervalSince1970 * 1_000).rounded(.down) - 1e9

    /// Appends `count` points starting at point `first`, `inFlight` batches at most in flight;
    /// returns the seconds until the last completion.
    func ingest(_ store: HistoryStore, first: Int = 0, count: Int, inFlight: Int) -> Double {
        let slots = DispatchSemaphore(value: inFlight)
        let done = DispatchSemaphore(value: 0)
        let failures = FailureNote()
        var probe = SplitMix64(seed: UInt64(first + 1))
        var y = 0.0
        let batches = count / Self.batchSize
        let start = clock.now
        for b in 0..<batches {
            slots.wait()
            var batch = HistoryBatch(series: ["load"])
            batch.reserveCapacity(Self.batchSize)
            for i in 0..<Self.batchSize {
                y += probe.unit() - 0.5
                batch.append(series: 0, x: x0 + Double(first + b * Self.batchSize + i), y: y)
            }
            store.append(chart: spec, batch: batch, completion: { result in
                if case .failure(let error) = result { failures.note(error) }
                slots.signal()
                done.signal()
            })
        }
        for _ in 0..<batches { done.wait() }
        let elapsed = seconds(clock.now - start)
        if let error = failures.first { fail("ingest: \(error)") }
        return elapsed
    }
}

/// The first failure seen by completions on the storage thread.
final class FailureNote: @unchecked Sendable {
    private let lock = NSLock()
    private var error: StorageError?
    func note(_ e: StorageError) { lock.lock(); if error == nil { error = e }; lock.unlock() }
    var first: StorageError? { lock.lock(); defer { lock.unlock() }; return error }
}

func openStore(_ path: String, _ options: HistoryStore.Options = .init()) -> HistoryStore {
    do { return try HistoryStore.open(directory: path, options: options) } catch { fail("\(error)") }
}

func fileSize(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
}

/// Median seconds of `runs` calls of `body` after one warm-up.
func medianSeconds(runs: Int, _ body: () throws -> Void) -> Double {
    do {
        try body()
        var times: [Double] = []
        for _ in 0..<runs {
            let start = clock.now
            try body()
            times.append(seconds(clock.now - start))
        }
        times.sort()
        return times[times.count / 2]
    } catch {
        fail("read: \(error)")
    }
}

func runStorageBench(points requested: Int, quick: Bool) {
    let n = max(StorageWorkload.batchSize, requested / StorageWorkload.batchSize * StorageWorkload.batchSize)
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("chartcast-bench-storage-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: base) }
    let work = StorageWorkload()
    var rows: [StorageRow] = []
    func rate(_ points: Int, _ s: Double) -> String { "\(formatRate(Double(points) / s)) points/s" }

    progress("storage: ingest \(n) points, FULL …")
    var store = openStore(base + "/full")
    let fullSeconds = work.ingest(store, count: n, inFlight: 16)
    let stats = store.statistics
    rows.append(StorageRow(operation: "ingest, batches of 10,000, 16 in flight, FULL", result: rate(n, fullSeconds),
                           detail: "\(n) points in \(formatTime(fullSeconds)); \(stats.transactions) transactions, "
                               + "\(n / max(1, stats.transactions)) points each"))

    progress("storage: one batch in flight …")
    let serialCount = min(n, quick ? 200_000 : 1_000_000)
    let serialSeconds = work.ingest(store, first: n, count: serialCount, inFlight: 1)
    rows.append(StorageRow(operation: "ingest, one batch in flight, FULL", result: rate(serialCount, serialSeconds),
                           detail: "\(formatTime(serialSeconds / Double(serialCount / StorageWorkload.batchSize))) per 10,000-point commit"))
    store.close()
    let total = n + serialCount
    let bytes = fileSize(base + "/full/" + HistoryStore.fileName) + fileSize(base + "/full/" + HistoryStore.fileName + "-wal")
    rows.append(StorageRow(operation: "disk", result: "\(Double(Int(Double(bytes) / Double(total) * 100)) / 100) bytes/point",
                           detail: "\(formatBytes(bytes)) for \(total) points (1,024-point chunks, 16 B of x and y each)"))

    progress("storage: open with quick_check …")
    let openStart = clock.now
    store = openStore(base + "/full")
    rows.append(StorageRow(operation: "open (quick_check, sweep)", result: formatTime(seconds(clock.now - openStart)),
                           detail: "\(formatBytes(bytes)) database"))

    progress("storage: reads …")
    let first = work.x0, last = work.x0 + Double(n - 1)
    var kept = 0
    let whole = medianSeconds(runs: quick ? 5 : 9) {
        kept = try store.read(chart: "load", from: first, to: last, maxPerSeries: 2_000).first?.xs.count ?? 0
    }
    rows.append(StorageRow(operation: "read \(n) points → M4 2,000", result: formatTime(whole), detail: "\(kept) points returned, median"))
    let tenth = medianSeconds(runs: quick ? 5 : 9) {
        let from = first + Double(n / 3)
        kept = try store.read(chart: "load", from: from, to: from + Double(n / 10), maxPerSeries: 2_000).first?.xs.count ?? 0
    }
    rows.append(StorageRow(operation: "read \(n / 10) points → M4 2,000", result: formatTime(tenth), detail: "\(kept) points returned, median"))
    let raw = medianSeconds(runs: quick ? 5 : 9) {
        kept = try store.read(chart: "load", from: first + Double(n / 2), to: first + Double(n / 2 + 9_999), maxPerSeries: 10_000).first?.xs.count ?? 0
    }
    rows.append(StorageRow(operation: "read 10,000 points raw", result: formatTime(raw), detail: "\(kept) points returned, median"))
    let latest = medianSeconds(runs: quick ? 5 : 9) { kept = try store.latest(chart: "load", limit: 1_000).rows.count }
    rows.append(StorageRow(operation: "latest(limit: 1,000)", result: formatTime(latest), detail: "\(kept) rows, median"))
    store.close()

    progress("storage: small writes from 4 threads …")
    store = openStore(base + "/small")
    let small = 20_000
    let start = clock.now
    DispatchQueue.concurrentPerform(iterations: 4) { t in
        let done = DispatchSemaphore(value: 0)
        for i in 0..<(small / 4) {
            let x = work.x0 + Double(t * small + i)
            store.append(chart: work.spec, points: [HistoryPoint(series: "s\(t)", x: x, y: 1)], completion: { _ in done.signal() })
        }
        for _ in 0..<(small / 4) { done.wait() }
    }
    let smallSeconds = seconds(clock.now - start)
    let smallStats = store.statistics
    rows.append(StorageRow(operation: "20,000 one-point appends, 4 threads, FULL", result: "\(formatRate(Double(small) / smallSeconds)) writes/s",
                           detail: "\(smallStats.transactions) transactions, \(small / max(1, smallStats.transactions)) writes each"))
    store.close()

    let normalCount = min(n, quick ? 1_000_000 : 2_000_000)
    progress("storage: ingest \(normalCount) points, NORMAL …")
    store = openStore(base + "/normal", .init(durability: .processCrashOnly))
    let normalSeconds = work.ingest(store, count: normalCount, inFlight: 16)
    rows.append(StorageRow(operation: "ingest, batches of 10,000, 16 in flight, NORMAL", result: rate(normalCount, normalSeconds),
                           detail: "for comparison: no fsync per commit (survives kill -9, not power loss)"))
    store.close()

    print("| storage operation | result | detail |")
    print("|---|---:|---|")
    for row in rows { print("| \(row.operation) | \(row.result) | \(row.detail) |") }
}
