import ChartCastProtocol
import ChartCastStorage
import ChartEngine

extension ServerCore {
    /// What attaching a history store brought back, for the start-up log line.
    struct RestoreSummary: Equatable {
        /// Charts saved through the API and defined again.
        var chartsRestored = 0
        /// Charts whose live window was refilled from stored points.
        var chartsRefilled = 0
        /// Values loaded into live windows.
        var valuesLoaded = 0
    }

    /// Attaches a history store at start (`restore` false: only attaches it, for a server whose
    /// state comes from elsewhere — its cluster, which calls `restore(from:)` itself when it
    /// claims the dashboard): defines the charts it saved (a chart the dashboard
    /// defines under the same id keeps the dashboard's definition: the file or the code is
    /// what the operator edits) and refills the live window of every chart that keeps history
    /// with its newest stored points.
    /// - Throws: `StorageError` when the store cannot be read (nothing is attached then).
    /// - Complexity: O(charts × window) values read and loaded.
    /// - Note: before the service thread starts: it reads the disk on the calling thread.
    func attach(history link: HistoryLink, restore: Bool = true) throws -> RestoreSummary {
        assertOwningThread()
        let summary = restore ? try self.restore(from: link.store) : RestoreSummary()
        history = link
        historyReader = StoredHistoryReader(store: link.store)
        return summary
    }

    /// What `attach(history:)` restores, from `store`: the charts it saved and the live windows.
    /// With `--redis` it runs when the instance claims the dashboard (Redis holds none), so that
    /// what the instance brought back becomes the dashboard's starting state.
    /// - Throws: `StorageError` when the store cannot be read (nothing is changed then).
    /// - Note: before the service thread starts: it reads the disk on the calling thread.
    func restore(from store: HistoryStore) throws -> RestoreSummary {
        assertOwningThread()
        var summary = RestoreSummary()
        let saved = try store.loadCharts()
        var refills: [String: HistoryRows] = [:]
        for chart in saved where channelsByID[chart.spec.id] == nil && HistoryLink.keeps(chart.spec) {
            refills[chart.spec.id] = try store.latest(chart: chart.spec.id, limit: ServerCore.refillLimit(of: chart.spec))
        }
        for channel in liveChannels where HistoryLink.keeps(channel.spec) {
            refills[channel.id] = try store.latest(chart: channel.id, limit: ServerCore.refillLimit(of: channel.spec))
        }
        for chart in saved {
            let id = chart.spec.id
            if let existing = channelsByID[id] {
                if existing.spec != chart.spec {
                    logger.info("chart \(id): the dashboard's definition is served, not the one saved through the API")
                }
                continue
            }
            let rows = refills.removeValue(forKey: id)
            define(chart.spec, refill: rows)
            summary.chartsRestored += 1
            if let rows, !rows.rows.isEmpty {
                summary.chartsRefilled += 1
                summary.valuesLoaded += rows.rows.reduce(0) { $0 + $1.values.count { $0 != nil } }
            }
        }
        for channel in liveChannels {
            guard let rows = refills[channel.id], !rows.rows.isEmpty else { continue }
            summary.chartsRefilled += 1
            summary.valuesLoaded += reload(channel, with: rows)
        }
        return summary
    }

    /// Puts a fresh channel in `channel`'s slot with its store refilled from `rows` (before any
    /// viewer: nobody is told). Returns the number of values loaded.
    private func reload(_ channel: ChartChannel, with rows: HistoryRows) -> Int {
        let store = ChartStore(spec: channel.spec)
        let loaded = ServerCore.refill(store, from: rows)
        install(ChartChannel(index: channel.index, store: store, appendLogCapacity: ServerCore.appendLogCapacity,
                             specVersion: channel.specVersion, seq: channel.seq, position: channel.position))
        return loaded
    }
}
