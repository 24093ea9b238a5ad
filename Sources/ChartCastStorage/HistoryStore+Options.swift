extension HistoryStore {
    /// How a store groups, commits and chunks its writes.
    public struct Options: Sendable {
        /// How long the storage thread keeps a transaction open for more writes after the first
        /// one arrives: everything enqueued within this delay is committed together.
        /// Default 3 ms; 0 commits whatever is queued the moment the thread gets to it.
        public var groupingDelay: Duration
        /// How far a commit must reach before its writes' completions are called.
        public var durability: Durability
        /// Most points in one chunk (default 1,024). Only new chunks follow a changed value.
        public var chunkCapacity: Int
        /// How many neighbouring chunks below half the capacity make the write that completes
        /// the run merge them (default 8).
        public var mergeRun: Int
        /// Most points one transaction takes before it commits and the next one starts
        /// (default 1,000,000), so a burst of writes does not build one huge transaction.
        public var maxPointsPerTransaction: Int

        /// The defaults: 3 ms grouping, `.full` durability, 1,024-point chunks.
        public init(groupingDelay: Duration = .milliseconds(3), durability: Durability = .full,
                    chunkCapacity: Int = 1_024, mergeRun: Int = 8, maxPointsPerTransaction: Int = 1_000_000) {
            self.groupingDelay = groupingDelay
            self.durability = durability
            self.chunkCapacity = max(2, chunkCapacity)
            self.mergeRun = max(2, mergeRun)
            self.maxPointsPerTransaction = max(1, maxPointsPerTransaction)
        }
    }

    /// What has happened to a write when its completion reports success.
    ///
    /// Both modes use SQLite's write-ahead log (WAL): a commit appends the transaction's pages to
    /// the `-wal` file with `write(2)` before `COMMIT` returns, and a checkpoint later copies them
    /// into the database file. A process killed with `kill -9` loses nothing that was written to
    /// the kernel, so under *either* mode every write whose completion was called survives
    /// `kill -9`: the next open replays the WAL. What differs is the machine going down.
    public enum Durability: Sendable {
        /// `PRAGMA synchronous=FULL`: the WAL is flushed to the disk (`fsync`) at every commit,
        /// before the completions run. An answered write also survives an OS crash or a power
        /// cut (on a disk that honours flushes). One flush per transaction, shared by every
        /// write grouped into it. The default.
        case full
        /// `PRAGMA synchronous=NORMAL`: the WAL is flushed only at checkpoints. An answered
        /// write survives `kill -9`, but the last transactions before an OS crash or a power
        /// cut may be lost, which breaks the data API's promise; for benchmarks and
        /// throwaway data only.
        case processCrashOnly

        /// The PRAGMA value.
        var synchronous: String {
            switch self {
            case .full: return "FULL"
            case .processCrashOnly: return "NORMAL"
            }
        }
    }
}
