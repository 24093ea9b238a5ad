import ChartCastStorage

/// History with a cluster (`--redis`, `docs/scale-out.md` "Writes"): every instance stores in
/// its own history store what it applied from the dashboard's stream — chart specs saved and
/// deleted, points written — at the moment it applied it, so every instance's history holds
/// the same changes in the same order as its memory: nothing of a write the stream refused,
/// everything of one it applied.
///
/// The stream, not a local disk, decides whether a write happened: an entry accepted at apply is
/// applied on every instance whatever one store does. A store that fails (disk full) misses that
/// change on that instance only; the failure is logged and counted
/// (`chartcast_history_writes_failed_total`), and the instance that added the entry still
/// answers it as applied — it is, everywhere. A store that is behind holds later writes back
/// instead (`HistoryLink.refusal`: 503 before anything reaches the stream).
extension ServerCore {
    /// Hands what applying one entry changed to the history store (after everything handed to
    /// it before, so stores commit in stream order); `then`, on the service thread, gets the
    /// commit's error or nil. Without a store `then` runs at once.
    /// - Note: service thread only.
    func storeApplied(_ writes: [HistoryWrite], then: @escaping (StorageError?) -> Void) {
        assertOwningThread()
        guard let history, !writes.isEmpty else { return then(nil) }
        let points = HistoryLink.points(in: writes)
        history.take(points)
        let back = runOnServiceThread
        history.store.write(writes) { result in
            back {
                history.release(points)
                guard case .failure(let error) = result else { return then(nil) }
                self.metrics.historyWritesFailed += 1
                if history.shouldWarn(now: ServerCore.now()) {
                    self.logger.warn("history: a change applied from the dashboard's stream was not stored here: \(error)")
                }
                then(error)
            }
        }
    }
}
