import ChartCastIngest
import ChartCastProtocol
import ChartCastStorage
import ChartEngine

/// The server's side of its history store: what is stored, how many points wait for a commit,
/// and the bound on them.
///
/// What is stored: the specs of charts created through the API (`PUT`, line-protocol
/// auto-creation) and every accepted point of charts whose `retention` is not 0. Dashboard-file,
/// Swift-defined and demo charts keep their definitions in the file or code; their points are
/// stored like any others (the demo's charts have retention 0).
///
/// - Note: service thread only, apart from `store`, which is thread-safe.
final class HistoryLink {
    /// The store (its reads wait on the disk: call them from a worker).
    let store: HistoryStore
    /// Most points waiting for their commit before further stored writes are answered
    /// `unavailable`: what a slow or stalled disk can make the server hold in memory.
    let maxPendingPoints: Int
    /// Points handed to the store whose commit has not been reported yet.
    private(set) var pendingPoints = 0
    /// When a store failure was last logged (monotonic ns).
    private var lastWarning: UInt64?

    /// The default bound on points waiting for a commit (about 100 MB of batches).
    static let defaultMaxPendingPoints = 4_000_000

    init(store: HistoryStore, maxPendingPoints: Int = HistoryLink.defaultMaxPendingPoints) {
        self.store = store
        self.maxPendingPoints = maxPendingPoints
    }

    /// Whether points of `spec`'s chart are stored.
    static func keeps(_ spec: ChartSpec) -> Bool { spec.retentionSeconds != 0 }

    /// The store's form of a validated write to `spec`'s chart.
    /// - Complexity: O(points) (each point's x is spelled out; values and series indices are
    ///   shared with the batch).
    static func append(_ batch: ValidatedBatch, of spec: ChartSpec) -> HistoryWrite {
        let columns = batch.pointColumns
        return .append(spec, HistoryBatch(series: batch.series, seriesIndex: columns.series, xs: columns.xs, ys: columns.ys),
                       writtenAt: nil)
    }

    /// Points that `writes` append.
    static func points(in writes: [HistoryWrite]) -> Int {
        writes.reduce(0) { total, write in
            if case .append(_, let batch, _) = write { return total + batch.count }
            return total
        }
    }

    /// Reserves room for `points` waiting points, or explains why not.
    /// - Returns: nil when reserved; the `unavailable` error when the bound would be passed
    ///   (a write of any size is taken when nothing else waits).
    func reserve(_ points: Int) -> StorageError? {
        if let refusal = refusal(points) { return refusal }
        pendingPoints += points
        return nil
    }

    /// Why `reserve(points)` would refuse now, without reserving: nil when it would not.
    func refusal(_ points: Int) -> StorageError? {
        guard pendingPoints == 0 || pendingPoints + points <= maxPendingPoints else {
            return StorageError(kind: .unavailable, path: store.path, message:
                "The history store is behind: \(pendingPoints) points are waiting to be written to \(store.path) (at most \(maxPendingPoints)); retry shortly.")
        }
        return nil
    }

    /// Counts `points` as waiting whatever the bound: what an instance stores because the
    /// dashboard's stream applied it (`--redis`) cannot be refused any more; it holds later
    /// writes back (`refusal`) instead.
    func take(_ points: Int) {
        pendingPoints += points
    }

    /// Whether to log a store failure now: at most one line a second, however many writes fail.
    func shouldWarn(now: UInt64) -> Bool {
        if let last = lastWarning, now &- last < 1_000_000_000 { return false }
        lastWarning = now
        return true
    }

    /// Gives back what `reserve` took, once the store reported on the write.
    func release(_ points: Int) {
        pendingPoints -= points
    }
}
