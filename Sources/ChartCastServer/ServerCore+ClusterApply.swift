import ChartCastCluster
import ChartCastIngest
import ChartCastProtocol
import ChartCastStorage
import ChartEngine

extension ServerCore {
    /// Applies entries of the dashboard's stream, in stream order: the same entries bring every
    /// instance to the same state and the same `seq`s. What an entry changed in charts is stored
    /// in this instance's history in the same order (`storeApplied`). An entry this instance
    /// added is handed to the caller waiting for it — once stored, when it stored anything. An
    /// entry that cannot be read is skipped (by every instance alike) and logged.
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
                cluster.lastApplied = record.id
                continue
            }
            let (outcome, writes) = apply(envelope.entry, now: now)
            cluster.lastApplied = record.id
            metrics.clusterEntriesApplied += 1
            let waiter = envelope.origin == cluster.instance ? cluster.waiting.removeValue(forKey: envelope.ticket) : nil
            if writes.isEmpty {
                waiter?.run(.applied(outcome))
            } else {
                storeApplied(writes) { _ in waiter?.run(.applied(outcome)) }
            }
        }
        if !records.isEmpty { cluster.link.noteApplied(cluster.lastApplied) }
    }

    /// Applies one entry; returns what it did for the caller waiting for it, and what it changed
    /// that this instance's history keeps (nothing for an entry refused or without effect).
    private func apply(_ entry: ClusterEntry, now: UInt64) -> (EntryOutcome, [HistoryWrite]) {
        guard let cluster else { return (.none, []) }
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
            return (.definition(define(spec)), [.save(spec)])
        case .remove(let chart):
            let removed = remove(chart: chart)
            return (.removed(removed), removed ? [.delete(chart)] : [])
        case .points(let charts):
            let (outcome, writes) = applyPoints(charts, now: now)
            return (.write(outcome), writes)
        case .feed(let ops):
            applyFeed(ops, now: now)
        }
        return (.none, [])
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

    /// Applies a write of points, all or nothing, to the charts as they are at this point of
    /// the stream — the same on every instance, so every instance decides alike: each chart's
    /// points validated against it (against the spec the write creates when it is absent), every
    /// part checked to fit before anything is applied, then the charts it creates defined and the
    /// points applied. A refused write changes nothing; an applied one returns, besides its
    /// outcome, what this instance's history keeps of it (the created specs, the points of
    /// charts that keep history).
    private func applyPoints(_ charts: [EntryPoints], now: UInt64) -> (WriteOutcome, [HistoryWrite]) {
        var planned: [(spec: ChartSpec, creates: Bool, batch: ValidatedBatch)] = []
        guard Set(charts.map(\.chart)).count == charts.count else {
            return (.rejected(IngestError(.badPoint, "the write names one chart twice")), [])
        }
        do {
            for part in charts {
                let existing = channelsByID[part.chart]?.spec
                guard let spec = existing ?? part.creates, spec.id == part.chart else { return (.unknownChart(part.chart), []) }
                let rows = try part.points.map { point -> PublishedRow in
                    guard part.series.indices.contains(point.series) else {
                        throw IngestError(.badPoint, "a point names series \(point.series) of \(part.series.count)")
                    }
                    let x: RawX
                    switch point.x {
                    case .number(let n): x = .number(n)
                    case .text(let text): x = .string(text)
                    }
                    return PublishedRow(series: part.series[point.series], x: x, y: point.y)
                }
                let batch = try PointBatch(published: rows).validate(against: spec)
                if let channel = channelsByID[part.chart], let mismatch = batch.mismatch(with: channel.store) {
                    throw IngestError(.badPoint, "the points do not fit chart \"\(part.chart)\" as it is now: \(mismatch)")
                }
                planned.append((spec, existing == nil, batch))
            }
        } catch {
            return (.rejected(ServerCore.ingestError(error)), [])
        }
        var writes: [HistoryWrite] = []
        var seq = 0, accepted = 0
        for item in planned {
            if item.creates {
                define(item.spec)
                writes.append(.save(item.spec))
            }
            guard let channel = channelsByID[item.batch.chart] else { continue }
            do {
                seq = try apply(item.batch, to: channel, now: now)
                accepted += item.batch.accepted
            } catch {
                // Checked above for every part: this would be a bug. What was applied stays
                // applied, on every instance alike, and is stored as applied.
                logger.error("bug: a write checked against its charts did not fit at apply: \(error)")
                return (.rejected(ServerCore.ingestError(error)), writes)
            }
            if HistoryLink.keeps(item.spec) { writes.append(HistoryLink.append(item.batch, of: item.spec)) }
        }
        return (.applied(seq: seq, accepted: accepted), writes)
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
}
