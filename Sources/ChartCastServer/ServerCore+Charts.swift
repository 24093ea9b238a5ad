import ChartCastIngest
import ChartCastProtocol
import ChartCastStorage
import ChartEngine
import WebSockets

extension ServerCore {
    /// What defining a chart did.
    enum Definition: Equatable {
        /// A new chart (HTTP 201).
        case created
        /// An existing chart replaced (HTTP 200); `keptData` when x kind and categories matched.
        case replaced(keptData: Bool)
    }

    /// Defines or replaces a chart from a validated spec. Viewers are sent `chart` and then a
    /// `snapshot` (`nextFrame`); a replaced chart's selections end. Replacing keeps the data when
    /// the x kind and categories stay the same (series the new spec does not list are kept too,
    /// up to 32; the new window applies). A new chart starts with `refill`'s rows, when given
    /// (its stored history).
    /// - Complexity: O(points) to carry data over, plus O(viewers) when a new slot is added.
    /// - Note: service thread only.
    @discardableResult
    func define(_ spec: ChartSpec, refill: HistoryRows? = nil) -> Definition {
        assertOwningThread()
        let store = ChartStore(spec: spec)
        let definition: Definition
        let slot: Int
        var seq = 0
        var position: Int? = nil
        if let old = channelsByID[spec.id] {
            let keep = old.spec.xKind == spec.xKind && old.spec.categories == spec.categories
            if keep { ServerCore.copyData(from: old.store, to: store) }
            slot = old.index
            seq = old.seq + 1
            position = old.position
            old.markRemoved()
            definition = .replaced(keptData: keep)
        } else {
            slot = freeSlot()
            definition = .created
            if let refill { ServerCore.refill(store, from: refill) }
        }
        let channel = ChartChannel(index: slot, store: store, appendLogCapacity: ServerCore.appendLogCapacity,
                                   specVersion: nextSpecVersion(), seq: seq, position: position)
        install(channel)
        logger.info("chart \(spec.id) \(definition == .created ? "created" : "replaced")")
        wakeAtEndOfPass()
        return definition
    }

    /// Removes a chart: viewers that knew it are sent `chart_removed`, its selections end.
    /// Returns false for an unknown id.
    /// - Note: service thread only.
    @discardableResult
    func remove(chart id: String) -> Bool {
        assertOwningThread()
        guard uninstall(id) != nil else { return false }
        logger.info("chart \(id) removed")
        wakeAtEndOfPass()
        return true
    }

    /// Defines `spec` like `defineRefilled(_:done:)`, in its turn among the chart's operations
    /// (`ChartOrder`): after the writes already under way on it are applied (the Swift API).
    /// - Note: service thread only.
    func defineInTurn(_ spec: ChartSpec, done: @escaping (Definition) -> Void) {
        assertOwningThread()
        chartOrder.run([spec.id], exclusive: true) { ticket in
            self.defineRefilled(spec) { definition in
                done(definition)
                self.chartOrder.finish(ticket)
            }
        }
    }

    /// Removes a chart like `remove(chart:)`, in its turn among its operations (the Swift API).
    /// - Note: service thread only.
    func removeInTurn(_ id: String, done: @escaping (Bool) -> Void) {
        assertOwningThread()
        chartOrder.run([id], exclusive: true) { ticket in
            done(self.remove(chart: id))
            self.chartOrder.finish(ticket)
        }
    }

    /// A slot for a new chart: a removed chart's slot once no viewer still needs to hear of its
    /// removal, else a new one at the end.
    /// - Complexity: O(slots + viewers × removed slots).
    func freeSlot() -> Int {
        for channel in channels where channel.isRemoved {
            if roster.allSatisfy({ $0.cursors[channel.index].specVersion == 0 }) { return channel.index }
        }
        return channels.count
    }

    /// Carries the rows of `old` into `new` (same x kind and categories), series by name.
    private static func copyData(from old: ChartStore, to new: ChartStore) {
        let indices = old.spec.series.map { new.addSeries($0) }
        if old.spec.xKind == .category {
            for row in 0..<old.count {
                for (s, target) in indices.enumerated() {
                    if let target, let y = old.y(series: s, at: row) { new.setValue(y, series: target, category: row) }
                }
            }
            return
        }
        var values = [Double?](repeating: nil, count: new.spec.series.count)
        for row in 0..<old.count {
            for i in values.indices { values[i] = nil }
            for (s, target) in indices.enumerated() {
                if let target { values[target] = old.y(series: s, at: row) }
            }
            new.upsert(x: old.xNumber(at: row), values: values)
        }
    }

    // MARK: Writes

    /// Applies validated points to a live chart: one `append` to every viewer (or a fresh
    /// snapshot, see `ChartChannel.apply`), the selection brought up to
    /// date. Returns the chart's `seq` after the write.
    /// - Throws: `StoreMismatch` when the batch was validated against another state of the chart
    ///   (nothing applied).
    /// - Note: service thread only.
    @discardableResult
    func apply(_ batch: ValidatedBatch, to channel: ChartChannel, now: UInt64 = ServerCore.now()) throws -> Int {
        assertOwningThread()
        try channel.apply(batch, now: now)
        metrics.pointsWritten += batch.accepted
        if channel.writeOutgrewRecentPlots {
            // Its viewers will want snapshots: build them in a pass of their own, then wake
            // everyone (rather than building the first in some viewer's write, in a pass that is
            // already writing), so pointer input is read between the apply and the build.
            stageApply(alone: true) { [weak self, weak channel] in
                channel?.prebuildSnapshots()
                self?.wakeAll()
            }
        } else {
            wakeAtEndOfPass()
        }
        return channel.seq
    }
}
