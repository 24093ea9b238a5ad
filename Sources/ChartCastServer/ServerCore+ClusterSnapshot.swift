import ChartCastCluster
import ChartCastProtocol
import ChartCastStorage
import ChartEngine

/// Snapshots with a cluster (`docs/scale-out.md`, "Catching up"): the dashboard's shared state
/// taken as one value, installed by an instance that joins or has to catch up, and refreshed in
/// Redis by the instance holding the snapshot lease, after which the stream is trimmed.
extension ServerCore {
    // MARK: Taking

    /// The shared state now: every live chart in dashboard order (spec, data, `seq`, the domains
    /// last sent, the selection engine's shared state) and the viewer directory.
    /// - Complexity: O(points + viewers).
    /// - Note: service thread only.
    func captureSnapshot() -> ClusterSnapshot {
        assertOwningThread()
        let charts = liveChannels.map { channel -> ClusterSnapshot.Chart in
            let store = channel.store
            let rows = 0..<store.count
            let xs = rows.map { store.xNumber(at: $0) }
            let columns = store.spec.series.indices.map { s in rows.map { store.y(series: s, at: $0) } }
            return ClusterSnapshot.Chart(spec: channel.spec, seq: channel.seq, sentX: channel.sentX, sentY: channel.sentY,
                                         xs: xs, columns: columns, selection: channel.engine.sharedState())
        }
        let viewers = cluster?.directory.map { ClusterSnapshot.Viewer(info: $0.info, instance: $0.instance) } ?? []
        return ClusterSnapshot(epoch: cluster?.epoch ?? "", fresh: cluster?.epochIsBirth ?? true, charts: charts, viewers: viewers)
    }

    /// The periodic snapshot (every second it checks): on the instance holding the snapshot
    /// lease, when `options.snapshotInterval` has passed since the last and entries were applied
    /// since, the state is taken here and handed to the link, which stores it and trims the
    /// stream (`ClusterScripts.store`).
    /// - Note: service thread only.
    func clusterSnapshotIfDue(now: UInt64 = ServerCore.now()) {
        assertOwningThread()
        guard let cluster, cluster.isUp, !cluster.snapshotPending, cluster.link.holdsSnapshotLease,
              cluster.lastApplied != cluster.lastSnapshotPosition,
              Double(now &- cluster.lastSnapshotAt) / 1e9 >= options.snapshotInterval else { return }
        let snapshot = captureSnapshot(), at = cluster.lastApplied
        cluster.snapshotPending = true
        cluster.lastSnapshotAt = now
        let back = runOnServiceThread
        cluster.link.offerSnapshot(snapshot, at: at) { [weak self] stored in
            back {
                guard let cluster = self?.cluster else { return }
                cluster.snapshotPending = false
                if stored {
                    cluster.lastSnapshotPosition = at
                    self?.metrics.clusterSnapshotsStored += 1
                }
            }
        }
    }

    // MARK: Installing

    /// Takes `snapshot` as the whole shared state, as of stream entry `at`: charts it does not
    /// hold are removed, each of its charts is installed afresh (in its slot when this instance
    /// has it, after the others otherwise; viewers here are sent its definition and a snapshot,
    /// and keep their gestures), the directory is replaced. This instance's history gets the
    /// same charts and their live windows. Entries of this instance's it covers are answered
    /// (`resolveOrphans`); the viewers here join again where the directory lacks them.
    /// - Complexity: O(points + viewers).
    /// - Note: service thread only (or before it starts).
    func installSnapshot(_ snapshot: ClusterSnapshot, at: String) {
        assertOwningThread()
        guard let cluster else { return }
        let wanted = Set(snapshot.charts.map(\.spec.id))
        var writes: [HistoryWrite] = []
        for channel in liveChannels where !wanted.contains(channel.id) {
            remove(chart: channel.id)
            writes.append(.delete(channel.id))
        }
        for chart in snapshot.charts {
            let old = channelsByID[chart.spec.id]
            let channel = ChartChannel(index: old?.index ?? freeSlot(), store: ServerCore.store(of: chart),
                                       appendLogCapacity: ServerCore.appendLogCapacity, specVersion: nextSpecVersion(),
                                       seq: chart.seq, position: nextSpecVersion())
            channel.restoreSentDomains(x: chart.sentX, y: chart.sentY)
            channel.engine.restore(chart.selection, keepingGesturesOf: old?.engine)
            old?.markRemoved()
            install(channel)
            writes.append(.save(chart.spec))
            if let window = ServerCore.window(of: chart) { writes.append(window) }
        }
        cluster.replaceDirectory(snapshot.viewers)
        cluster.epoch = snapshot.epoch
        cluster.epochIsBirth = snapshot.fresh
        cluster.lastApplied = at
        cluster.lastSnapshotPosition = at
        cluster.link.noteApplied(at)
        metrics.clusterSnapshotsInstalled += 1
        if history != nil { storeApplied(writes) { _ in } }
        resolveOrphans(upTo: at)
        rosterChanged()
        wakeAtEndOfPass()
        if roster.count > 0 {
            logger.warn("cluster: caught up from the dashboard's snapshot (\(snapshot.charts.count) charts, \(snapshot.viewers.count) viewers)")
        }
        reconcileViewers()
    }

    /// This instance claimed the dashboard with its own state (Redis came back empty, or it took
    /// the dashboard back from an instance that had just started): the state goes on as it is,
    /// from the epoch entry `at` of `epoch`.
    /// - Note: service thread only.
    func clusterClaimed(epoch: String, at: String) {
        assertOwningThread()
        guard let cluster else { return }
        logger.warn("cluster: \(cluster.link.endpoint) held another state of the dashboard or none; this instance's is the dashboard's again")
        cluster.epoch = epoch
        cluster.epochIsBirth = false
        cluster.lastApplied = at
        cluster.lastSnapshotPosition = at
        resolveOrphans(upTo: at)
        reconcileViewers()
    }

    /// Answers the callers whose entries cannot come back any more — added before `at`, which the
    /// state now holds everything up to: tracked ones (writes, definitions) get `orphaned` now, or
    /// when their id is known; untracked ones (input refusals, feed steps) are dropped.
    private func resolveOrphans(upTo at: String) {
        guard let cluster else { return }
        cluster.cutoff = at
        cluster.feedStepPending = false
        for (ticket, waiter) in cluster.waiting {
            guard waiter.tracked else {
                cluster.waiting.removeValue(forKey: ticket)
                continue
            }
            if let id = waiter.id, !StreamID.precedes(at, id) { cluster.waiting.removeValue(forKey: ticket)?.run(.orphaned) }
        }
    }

    /// Makes the directory agree with the viewers connected here: those it lacks join, those it
    /// lists for this instance that are gone leave (their entries were refused while Redis was
    /// unreachable, or a snapshot did not have them). Duplicates are harmless: a join of a
    /// listed viewer and a departure of an unlisted one change nothing.
    /// - Note: service thread only.
    func reconcileViewers() {
        guard let cluster, cluster.isUp else { return }
        var here = Set<String>()
        for session in roster where !session.closing {
            here.insert(session.info.id)
            if cluster.viewer(session.info.id) == nil { submit(.joined(session.info, instance: cluster.instance)) }
        }
        for viewer in cluster.viewers(of: cluster.instance) where !here.contains(viewer.info.id) {
            submit(.left(viewer: viewer.info.id))
        }
    }

    // MARK: Charts of a snapshot

    /// A store holding a snapshot chart's rows.
    /// - Complexity: O(rows · (series + log rows)).
    private static func store(of chart: ClusterSnapshot.Chart) -> ChartStore {
        let store = ChartStore(spec: chart.spec)
        if chart.spec.xKind == .category {
            for (row, _) in chart.xs.enumerated() where row < chart.spec.categories.count {
                for (s, column) in chart.columns.enumerated() {
                    if let y = column[row] { store.setValue(y, series: s, category: row) }
                }
            }
            return store
        }
        var values = [Double?](repeating: nil, count: chart.columns.count)
        store.batch {
            for (row, x) in chart.xs.enumerated() {
                for s in values.indices { values[s] = chart.columns[s][row] }
                store.upsert(x: x, values: values)
            }
        }
        return store
    }

    /// A snapshot chart's live window as a history append, nil when the chart keeps no history
    /// or holds no values.
    private static func window(of chart: ClusterSnapshot.Chart) -> HistoryWrite? {
        guard HistoryLink.keeps(chart.spec) else { return nil }
        var series: [Int32] = [], xs: [Double] = [], ys: [Double] = []
        for (row, x) in chart.xs.enumerated() {
            for (s, column) in chart.columns.enumerated() {
                guard let y = column[row] else { continue }
                series.append(Int32(s))
                xs.append(x)
                ys.append(y)
            }
        }
        guard !xs.isEmpty else { return nil }
        return .append(chart.spec, HistoryBatch(series: chart.spec.series, seriesIndex: series, xs: xs, ys: ys), writtenAt: nil)
    }
}
