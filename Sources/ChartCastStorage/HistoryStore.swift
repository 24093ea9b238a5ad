import Foundation
import ChartEngine
import ChartCastProtocol

/// The server's history: saved chart specs and the stored points of every chart whose
/// retention is not 0, in one SQLite database (WAL mode) in a directory of its own.
///
/// **Writes** (`save`, `delete`, `append`, `sweep`) only enqueue: one storage thread owned by
/// the store groups everything enqueued within `Options.groupingDelay` into one transaction and
/// calls each write's completion after that transaction committed, or with the error (then
/// nothing of the write is in the database). Writes are applied in the order they were enqueued.
///
/// **Durability.** WAL with `synchronous=FULL` by default (`Options.durability`): when a
/// completion reports success, the write's pages are in the `-wal` file and flushed to the
/// disk. It survives `kill -9` (the next open replays the WAL) and an OS crash or power cut.
///
/// **Reads** (`loadCharts`, `latest`, `read`) run on the calling thread with a read connection
/// of their own, concurrently with the storage thread and with each other; each sees every
/// transaction committed before it started and nothing of one in progress. They wait on the
/// disk: call them from a worker, never from the service thread.
///
/// Errors are `StorageError`s: one sentence with the database's path and the cause.
///
/// - Note: thread-safe: every member may be called from any thread. Completions run on the
///   storage thread and must not block it.
public final class HistoryStore: @unchecked Sendable {
    /// Called once per write: success after its transaction committed, or the failure.
    public typealias Completion = @Sendable (Result<Void, StorageError>) -> Void

    /// The counters of the storage thread.
    public struct Statistics: Equatable, Sendable {
        /// Transactions committed.
        public var transactions = 0
        /// Transactions that failed (rolled back).
        public var failedTransactions = 0
        /// Writes (any kind) whose transaction committed.
        public var writesCommitted = 0
        /// Writes whose transaction failed.
        public var writesFailed = 0
        /// Points of the committed appends, as given (before duplicates were folded).
        public var pointsCommitted = 0
        /// Writes waiting for the storage thread.
        public var queuedWrites = 0
    }

    /// The database file's name inside `directory`.
    public static let fileName = DatabaseFiles.fileName

    /// The directory given to `open`.
    public let directory: String
    /// The database file.
    public let path: String
    /// The options the store was opened with.
    public let options: Options

    private let thread: StorageThread
    private let readers: ReadPool
    private let lock: DirectoryLock

    private init(directory: String, path: String, options: Options, thread: StorageThread, lock: DirectoryLock) {
        self.directory = directory
        self.path = path
        self.options = options
        self.thread = thread
        self.readers = ReadPool(path: path)
        self.lock = lock
    }

    deinit { close() }

    /// Opens the store in `directory` (created with its parents when missing), checks the
    /// database (`PRAGMA quick_check`), deletes what retention no longer keeps, and starts the
    /// storage thread.
    ///
    /// The directory is claimed (a `flock`ed `lock` file) until `close`: a second store on it,
    /// in this process or another, fails to open instead of sharing the database.
    ///
    /// - Throws: `StorageError`: `.cannotOpen` when the directory or file cannot be created or
    ///   written, or another store holds the directory; `.corrupt` when the file is not a SQLite database or fails the check;
    ///   `.newerSchema` when a newer ChartCast wrote it. A broken file is never replaced.
    /// - Complexity: O(database size) for the check (it reads every page once).
    public static func open(directory: String, options: Options = Options()) throws -> HistoryStore {
        try DatabaseFiles.ensureDirectory(directory)
        let lock = try DirectoryLock(directory: directory)
        let path = (directory.hasSuffix("/") ? directory : directory + "/") + DatabaseFiles.fileName
        let db = try DatabaseFiles.openWriter(path: path, durability: options.durability)
        let writer = HistoryWriter(db: db, options: options)
        if let error = writer.commit([.sweep(now: wallClockMilliseconds())]) {
            db.close()
            throw error
        }
        let thread = StorageThread(writer: writer, options: options)
        thread.start()
        return HistoryStore(directory: directory, path: path, options: options, thread: thread, lock: lock)
    }

    /// Commits what is queued, stops the storage thread and closes the database. Later writes
    /// complete at once with `.closed`, later reads throw it. Idempotent.
    public func close() {
        thread.stop(abandon: false)
        readers.close()
        lock.release()
    }

    /// The storage thread's counters.
    public var statistics: Statistics { thread.statistics }

    // MARK: - Writes

    /// Saves an API-created chart's spec (its JSON, `ChartSpec.encoded()`), replacing a spec
    /// saved under the same id. A replaced chart keeps its place in `loadCharts`; one whose x
    /// kind or categories changed loses its stored points.
    /// - Complexity: O(spec size) on the storage thread.
    public func save(spec: ChartSpec, completion: Completion? = nil) {
        thread.enqueue(.save(spec), completion: completion)
    }

    /// Deletes a chart: its spec and every stored point. Deleting an unknown chart succeeds.
    /// - Complexity: O(the chart's chunks) on the storage thread.
    public func delete(chart id: String, completion: Completion? = nil) {
        thread.enqueue(.delete(id), completion: completion)
    }

    /// Stores points of `spec`'s chart. A point at an x its series already has replaces the
    /// stored value (and a later point of the same write an earlier one); points with a
    /// non-finite x or y are left out. The spec's x kind and retention decide how the points
    /// are swept; a chart with retention 0 stores nothing (the completion still succeeds).
    /// - Parameters:
    ///   - writtenAt: the write time (epoch ms) linear and category charts' retention goes by;
    ///     nil for now.
    /// - Complexity: O(points + points of stored chunks they overlap) on the storage thread.
    public func append(chart spec: ChartSpec, points: [HistoryPoint], writtenAt: Double? = nil,
                       completion: Completion?) {
        append(chart: spec, batch: HistoryBatch(points), writtenAt: writtenAt, completion: completion)
    }

    /// `append(chart:points:)` with the points already columnar.
    /// - Complexity: O(points + points of stored chunks they overlap) on the storage thread.
    public func append(chart spec: ChartSpec, batch: HistoryBatch, writtenAt: Double? = nil,
                       completion: Completion?) {
        thread.enqueue(.append(spec, batch, writtenAt: writtenAt ?? Self.wallClockMilliseconds()),
                       completion: completion)
    }

    /// Applies `writes` in this order in one transaction: the completion reports them all
    /// committed or all failed (nothing of any of them stored). What a write that creates
    /// charts and stores their points in one go needs.
    /// - Complexity: the sum of the single writes' costs, on the storage thread.
    public func write(_ writes: [HistoryWrite], completion: Completion?) {
        let now = Self.wallClockMilliseconds()
        let ops = writes.map { write -> WriteOp in
            switch write {
            case .save(let spec): return .save(spec)
            case .delete(let id): return .delete(id)
            case .append(let spec, let batch, let writtenAt): return .append(spec, batch, writtenAt: writtenAt ?? now)
            }
        }
        thread.enqueue(ops.count == 1 ? ops[0] : .all(ops), completion: completion)
    }

    /// Deletes the points each chart's retention no longer keeps as of `now` (epoch ms): time
    /// charts by x, linear and category charts by write time, charts with retention 0 entirely.
    /// `open` sweeps once; call this periodically (every minute is plenty).
    /// - Complexity: O(chunks dropped + chunks rewritten × capacity) on the storage thread,
    ///   plus a scan of the summaries of linear and category series.
    public func sweep(now: Double, completion: Completion? = nil) {
        thread.enqueue(.sweep(now: now), completion: completion)
    }

    // MARK: - Reads

    /// Every spec saved with `save(spec:)`, in the order the charts were first defined.
    /// - Throws: `StorageError` (`.corrupt` when a stored spec no longer parses).
    /// - Complexity: O(saved charts + their series).
    /// - Note: waits on the disk; any thread but the service thread.
    public func loadCharts() throws -> [StoredChart] {
        try readers.withConnection { try HistoryReader.loadCharts($0) }
    }

    /// The newest `limit` distinct x values of a chart with each series' value there, ascending:
    /// what refills a live window at start (`limit` = the chart's window, or its category count).
    /// - Throws: `StorageError`.
    /// - Complexity: O(series × (limit + capacity)) points decoded.
    /// - Note: waits on the disk; any thread but the service thread.
    public func latest(chart: String, limit: Int) throws -> HistoryRows {
        try readers.withConnection { try HistoryReader.latest($0, chart: chart, limit: limit) }
    }

    /// The stored points of every series of a chart in [from, to] (infinite bounds: from the
    /// first or to the last point), each series M4-downsampled to at most `maxPerSeries` points
    /// when it has more there (see `M4`; values below 4 count as 4). Every series the chart has
    /// stored is listed, possibly empty, in the order they were first stored.
    /// - Throws: `StorageError`.
    /// - Complexity: O(log chunks + chunks in range) summary rows and O(maxPerSeries × capacity / 4)
    ///   points decoded per series at most; O(points in range) when not downsampled.
    /// - Note: waits on the disk; any thread but the service thread.
    public func read(chart: String, from: Double = -.infinity, to: Double = .infinity,
                     maxPerSeries: Int) throws -> [StoredSeries] {
        try readers.withConnection {
            try HistoryReader.read($0, chart: chart, from: from, to: to, maxPerSeries: maxPerSeries)
        }
    }

    /// The smallest and largest stored x of a chart; nil when it has no stored points.
    /// - Throws: `StorageError`.
    /// - Complexity: O(series · log chunks).
    /// - Note: waits on the disk; any thread but the service thread.
    public func extent(chart: String) throws -> ClosedRange<Double>? {
        try readers.withConnection { try HistoryReader.extent($0, chart: chart) }
    }

    /// The stored points of every series of a chart with `from ≤ x ≤ to`, each series kept
    /// whole when it has at most `4 · grid.columns` points there, else M4-downsampled on `grid`
    /// — a grid that may reach beyond [from, to] (a viewer's whole view, of which this read is
    /// the part older than memory), so that the result merges exactly with points read elsewhere
    /// on the same grid.
    /// - Throws: `StorageError`.
    /// - Complexity: as `read(chart:from:to:maxPerSeries:)` with `4 · grid.columns`.
    /// - Note: waits on the disk; any thread but the service thread.
    public func read(chart: String, from: Double, to: Double, grid: M4Grid) throws -> [StoredSeries] {
        try readers.withConnection {
            try HistoryReader.read($0, chart: chart, from: from, to: to, maxPerSeries: 4 * grid.columns, grid: grid)
        }
    }

    // MARK: - Internals

    /// Now, in epoch milliseconds.
    static func wallClockMilliseconds() -> Double {
        (Date().timeIntervalSince1970 * 1_000).rounded(.down)
    }

    /// Stops as a `kill -9` would leave things: queued writes fail with `.closed`, and every
    /// connection closes without the checkpoint a normal close runs, so the WAL stays unmerged
    /// and the next open has to recover from it. For durability tests.
    func closeAbruptly() {
        readers.close(withoutCheckpoint: true)
        thread.stop(abandon: true)
        lock.release()
    }

    /// Runs `body` with the writer connection on the storage thread, alone and outside any
    /// transaction (tests: size limits, `query_only`).
    func maintenance(_ body: @escaping (SQLiteConnection) throws -> Void, completion: Completion? = nil) {
        thread.enqueue(.maintenance(body), completion: completion)
    }
}
