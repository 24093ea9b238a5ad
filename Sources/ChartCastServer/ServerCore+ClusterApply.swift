import ChartCastCluster
import ChartCastIngest
import ChartCastProtocol
import ChartCastStorage
import ChartEngine

extension ServerCore {
    /// Applies entries of the dashboard's stream, in stream order: the same entries bring every
    /// instance to the same state and the same `seq`s. An entry this instance added is handed
    /// to the caller waiting for it. An entry that cannot be read is skipped (by every
    /// instance alike) and logged.
    /// - Note: service thread only (or before it starts).
    func applyRecords(_ records: [StreamRecord]) {
        assertOwningThread()
        guard let cluster else { return }
        let now = ServerCore.now()
        for record in records {
            let envelope: ClusterEnvelope
            do {
                envelope = try ClusterEnvelope.decode(record.payload)
            } catch {
                logger.warn("cluster: skipped stream entry \(record.id): \(error)")
                continue
            }
            let mine = envelope.origin == cluster.instance
            let outcome = apply(envelope.entry, addedHere: mine, now: now)
            metrics.clusterEntriesApplied += 1
            if mine, let waiter = cluster.waiting.removeValue(forKey: envelope.ticket) { waiter(.applied(outcome)) }
        }
    }

    /// Applies one entry. `addedHere`: this instance added it (and already stored what it
    /// stores in its history, before adding it).
    private func apply(_ entry: ClusterEntry, addedHere: Bool, now: UInt64) -> EntryOutcome {
        guard let cluster else { return .none }
        switch entry {
        case .joined(let info, let instance):
            if cluster.add(info, instance: instance) { rosterChanged() }
        case .left(let viewer):
            viewerLeft(viewer, now: now)
        case .instanceGone(let instance):
            let gone = cluster.viewers(of: instance)
            for viewer in gone { viewerLeft(viewer.info.id, now: now) }
            if instance == cluster.instance {
                // Taken for dead (its heartbeat expired: frozen, or cut off from Redis) while it
                // still serves: its viewers join again, from here on in the stream.
                logger.warn("cluster: the other instances took this one (\(instance)) for gone; its viewers join again")
                for session in roster where !session.closing { submit(.joined(session.info, instance: instance)) }
            } else if !gone.isEmpty {
                logger.info("cluster: instance \(instance) is gone; its \(gone.count) viewers left")
            }
        case .renamed(let viewer, let name):
            guard let member = cluster.viewer(viewer) else { break }
            member.info.name = name
            rosterChanged()
        case .input(let chart, let viewer, let input, let ref):
            guard cluster.viewer(viewer) != nil, let channel = channelsByID[chart] else { break }
            if channel.engine.apply(input, from: viewer) { selectionChanged(channel, ref: ref, now: now) }
        case .key(let chart, let viewer, let command, let shift, let ref):
            guard cluster.viewer(viewer) != nil, let channel = channelsByID[chart] else { break }
            if channel.engine.key(viewer: viewer, command: command, shift: shift, viewport: nil) {
                selectionChanged(channel, ref: ref, now: now)
            }
        case .dragExpired(let chart, let owner, let pressed):
            guard let channel = channelsByID[chart], channel.engine.dragOwner == owner else { break }
            channel.engine.revokeDrag(ownerPressed: pressed)
            metrics.dragLeasesExpired += 1
            selectionChanged(channel, ref: nil, now: now)
            logger.info("viewer \(owner) lost the drag on \(chart): no input for the drag lease")
        case .define(let spec):
            if !addedHere { storeInHistory([.save(spec)]) }
            return .definition(define(spec))
        case .remove(let chart):
            if !addedHere, channelsByID[chart] != nil { storeInHistory([.delete(chart)]) }
            return .removed(remove(chart: chart))
        case .points(let charts):
            return .write(applyPoints(charts, addedHere: addedHere, now: now))
        case .feed(let ops):
            applyFeed(ops, now: now)
        }
        return .none
    }

    /// A viewer left (or its instance is gone): out of the directory and of every chart.
    private func viewerLeft(_ viewer: String, now: UInt64) {
        guard let cluster, cluster.remove(viewer) else { return }
        for channel in channels where channel.engine.removeViewer(viewer) {
            selectionChanged(channel, ref: nil, now: now)
        }
        rosterChanged()
    }

    /// A selection changed by an entry: a new `seq` and frame now (never batched with other
    /// entries, so every instance counts the same), one wake at the end of the pass.
    private func selectionChanged(_ channel: ChartChannel, ref: String?, now: UInt64) {
        channel.selectionDidChange(ref: ref, now: now)
        wakeAtEndOfPass()
    }

    /// Applies a write of points, all or nothing: every chart's points validated against the
    /// chart as it is at this point of the stream (the same on every instance), the charts it
    /// creates defined, then the points applied.
    private func applyPoints(_ charts: [EntryPoints], addedHere: Bool, now: UInt64) -> WriteOutcome {
        var planned: [(spec: ChartSpec, creates: Bool, batch: ValidatedBatch)] = []
        do {
            for part in charts {
                let existing = channelsByID[part.chart]?.spec
                guard let spec = existing ?? part.creates else { return .unknownChart(part.chart) }
                let rows = part.points.map { point -> PublishedRow in
                    let x: RawX
                    switch point.x {
                    case .number(let n): x = .number(n)
                    case .text(let text): x = .string(text)
                    }
                    return PublishedRow(series: part.series[point.series], x: x, y: point.y)
                }
                let batch = try PointBatch(published: rows).validate(against: spec)
                planned.append((spec, existing == nil, batch))
            }
        } catch {
            return .rejected(ServerCore.ingestError(error))
        }
        if !addedHere, history != nil {
            var writes: [HistoryWrite] = planned.filter(\.creates).map { .save($0.spec) }
            for item in planned where HistoryLink.keeps(item.spec) { writes.append(HistoryLink.append(item.batch, of: item.spec)) }
            storeInHistory(writes)
        }
        var seq = 0, accepted = 0
        for item in planned {
            if item.creates { define(item.spec) }
            guard let channel = channelsByID[item.batch.chart] else { continue }
            do {
                seq = try apply(item.batch, to: channel, now: now)
                accepted += item.batch.accepted
            } catch {
                return .rejected(ServerCore.ingestError(error))
            }
        }
        return .applied(seq: seq, accepted: accepted)
    }

    /// Applies a demo feed step.
    private func applyFeed(_ ops: [FeedOp], now: UInt64) {
        for op in ops {
            switch op {
            case .setCategory(let chart, let series, let category, let y):
                guard let channel = channelsByID[chart], channel.spec.xKind == .category,
                      channel.spec.series.indices.contains(series), channel.spec.categories.indices.contains(category) else { continue }
                channel.setCategoryValue(y, series: series, category: category, now: now)
            case .upsert(let chart, let x, let values):
                guard let channel = channelsByID[chart], channel.spec.xKind != .category,
                      values.count == channel.spec.series.count else { continue }
                channel.upsert(x: x, values: values, now: now)
            }
        }
        wakeAtEndOfPass()
    }

    /// Another instance's change, kept in this instance's own history too (without waiting:
    /// memory follows the stream; a failure is logged).
    private func storeInHistory(_ writes: [HistoryWrite]) {
        guard let history, !writes.isEmpty else { return }
        let logger = self.logger
        history.store.write(writes) { result in
            if case .failure(let error) = result { logger.warn("history: a change from another instance was not stored: \(error)") }
        }
    }
}
