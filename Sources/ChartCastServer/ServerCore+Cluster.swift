import ChartCastCluster
import ChartCastProtocol
import ChartEngine
import WebSockets

/// The seam between one instance and the dashboard it shares with others (`--redis`,
/// `docs/scale-out.md`). Without a cluster (`cluster == nil`) every change is applied where it
/// happens, as it always was. With one, a change of shared state is added to the dashboard's
/// stream (`submit`) and applied when it comes back in stream order (`applyRecords`), on this
/// instance and every other alike; what concerns only this instance's viewers (connections,
/// gestures, geometry, zoom, the fan-out) stays here.
extension ServerCore {
    // MARK: Joining

    /// The dashboard as it starts, before any entry: what every instance must start from
    /// (its charts' specs, as JSON).
    func startingFingerprint() -> [UInt8] {
        Dashboard(title: dashboardTitle, charts: liveChannels.map(\.spec)).encode()
    }

    /// Takes the joined link as this instance's cluster: its snapshot (when it did not claim the
    /// dashboard with its own state) and the stream after it.
    /// - Note: before the service thread starts (or on it).
    func attach(cluster join: ClusterJoin) {
        assertOwningThread()
        let cluster = ClusterState(link: join.link)
        self.cluster = cluster
        let (epoch, birth) = join.link.epoch
        cluster.epoch = epoch
        cluster.epochIsBirth = birth
        if let snapshot = join.snapshot { installSnapshot(snapshot, at: join.position) }
        cluster.lastApplied = join.position
        applyRecords(join.backlog)
        logger.info("cluster: joined \(join.link.endpoint) as instance \(join.link.instance); "
                    + (join.snapshot == nil ? "claimed the dashboard" : "took its snapshot") + ", then applied \(join.backlog.count) entries")
    }

    /// Starts the link's threads: entries, snapshots and link changes come back through
    /// `runOnServiceThread`; the link's claims wait for `captureForCluster`.
    func startCluster() {
        guard let cluster else { return }
        let back = runOnServiceThread, capture = captureForCluster
        cluster.link.start(ClusterHandlers(deliver: { [weak self] records in
            back { self?.applyRecords(records) }
        }, linkChanged: { [weak self] up in
            back { self?.clusterLinkChanged(up: up) }
        }, capture: {
            capture()
        }, install: { [weak self] snapshot, at in
            back { self?.installSnapshot(snapshot, at: at) }
        }, claimed: { [weak self] epoch, at in
            back { self?.clusterClaimed(epoch: epoch, at: at) }
        }))
    }

    /// Redis became unreachable, or reachable again.
    func clusterLinkChanged(up: Bool) {
        assertOwningThread()
        guard let cluster, cluster.isUp != up else { return }
        cluster.isUp = up
        if up {
            logger.info("cluster: \(cluster.link.endpoint) reachable again")
            reconcileViewers()
        } else {
            logger.warn("cluster: \(cluster.link.endpoint) unreachable; serving what is here, refusing input and writes until it is back")
        }
    }

    // MARK: Adding entries

    /// Adds `entry` to the dashboard's stream; `then` (when given) runs on the service thread
    /// once the entry has been applied here, or at once with the error when it could not be
    /// added. `tracked`: an answer is owed whatever happens (a write, a definition): the entry's
    /// id is noted so that it is answered `orphaned` if a snapshot taken here covers it.
    func submit(_ entry: ClusterEntry, tracked: Bool = false, then: ((ClusterResult) -> Void)? = nil) {
        guard let cluster else { return }
        let ticket = cluster.takeTicket()
        if let then { cluster.waiting[ticket] = ClusterWaiter(run: then, tracked: tracked) }
        let payload = ClusterEnvelope(origin: cluster.instance, ticket: ticket, entry: entry).encode()
        let back = runOnServiceThread
        let noteID = then != nil && tracked
        cluster.link.add(payload) { [weak self] result in
            switch result {
            case .success(let id):
                guard noteID else { return }
                back { self?.noteEntryID(id, ticket: ticket) }
            case .failure(let error):
                back {
                    guard let self, let waiter = self.cluster?.waiting.removeValue(forKey: ticket) else { return }
                    waiter.run(.failed(error))
                }
            }
        }
    }

    /// The id a tracked entry got: answered `orphaned` at once when a snapshot taken here covers it.
    private func noteEntryID(_ id: String, ticket: Int) {
        guard let cluster, cluster.waiting[ticket] != nil else { return }
        if let cutoff = cluster.cutoff, !StreamID.precedes(cutoff, id) {
            cluster.waiting.removeValue(forKey: ticket)?.run(.orphaned)
        } else {
            cluster.waiting[ticket]?.id = id
        }
    }

    /// The refusal of input or a write while Redis is unreachable.
    func clusterUnavailable() -> ProtocolError? {
        guard let cluster, !cluster.isUp else { return nil }
        return ProtocolError(.unavailable, "the dashboard's Redis (\(cluster.link.endpoint)) is unreachable; try again shortly")
    }

    // MARK: Viewers

    /// The id and name of a viewer opened on this instance.
    func clusterViewerInfo() -> ViewerInfo? {
        cluster?.nextViewer(color: ServerCore.palette)
    }

    /// A viewer opened here joins the dashboard.
    func clusterOpened(_ session: Session) {
        guard let cluster else { return }
        submit(.joined(session.info, instance: cluster.instance))
    }

    /// A viewer here left: its hovers and drags leave every chart when the entry is applied.
    func clusterClosed(_ session: Session) {
        submit(.left(viewer: session.info.id))
    }

    /// The viewers listed dashboard-wide: the first `limit` in join order, and how many there are.
    func clusterViewerList(limit: Int) -> (listed: [ViewerInfo], total: Int)? {
        guard let cluster else { return nil }
        return (cluster.directory.prefix(limit).map(\.info), cluster.viewerCount)
    }

    // MARK: Input

    /// A pointer event of a viewer here: recognised and mapped through its geometry at once,
    /// then added to the stream; the selection changes when the entry is applied.
    /// - Throws: `ProtocolError(.unavailable)` while Redis is unreachable.
    func clusterPointer(_ input: ClientMessage.PointerInput, on channel: ChartChannel, viewport: Viewport,
                        from session: Session, now: UInt64) throws {
        if let refusal = clusterUnavailable() { throw refusal }
        let viewer = session.info.id
        guard let data = channel.engine.recognize(viewer: viewer, phase: input.phase, x: input.x, y: input.y,
                                                  viewport: viewport) else { return }
        channel.engine.noteInput(from: viewer, at: Double(now) / 1e9)   // renews its drag lease
        submit(.input(chart: channel.id, viewer: viewer, data, ref: input.ref), then: refusalSender(for: session, ref: input.ref))
    }

    /// A key command of a viewer here, added to the stream.
    /// - Throws: `ProtocolError(.unavailable)` while Redis is unreachable.
    func clusterKey(_ input: ClientMessage.KeyInput, on channel: ChartChannel, from session: Session, now: UInt64) throws {
        if let refusal = clusterUnavailable() { throw refusal }
        channel.engine.noteInput(from: session.info.id, at: Double(now) / 1e9)
        submit(.key(chart: channel.id, viewer: session.info.id, input.command, shift: input.shift, ref: input.ref),
               then: refusalSender(for: session, ref: input.ref))
    }

    /// Tells the viewer when its input could not be added.
    private func refusalSender(for session: Session, ref: String?) -> (ClusterResult) -> Void {
        return { [weak self, weak session] result in
            guard let self, let session, session.rosterSlot >= 0, !session.closing, case .failed(let error) = result else { return }
            self.sendError(ProtocolError(.unavailable, "the input did not reach the dashboard: \(error)", ref: ref), to: session)
        }
    }

    // MARK: Timers

    /// The demo feed's step on the instance holding the feed lease: computed here, applied by
    /// every instance when its entry comes back. One step at a time.
    func clusterTick() {
        guard let cluster, cluster.link.holdsFeedLease, cluster.isUp, !cluster.feedStepPending,
              let ops = feeds?.plan(channels), !ops.isEmpty else { return }
        cluster.feedStepPending = true
        submit(.feed(ops)) { [weak self] _ in self?.cluster?.feedStepPending = false }
    }

    /// Drag leases with a cluster: only the instance holding a drag's owner knows when it last
    /// sent input; it adds the expiry to the stream, and every instance ends the drag there.
    func clusterExpireDragLeases(now: UInt64) {
        guard let cluster else { return }
        let seconds = Double(now) / 1e9
        for channel in channels where !channel.isRemoved {
            guard let owner = channel.engine.dragOwner, cluster.isLocal(owner),
                  channel.engine.idleDragOwner(now: seconds, lease: options.dragLease) == owner else { continue }
            logger.info("viewer \(owner) loses the drag on \(channel.id): no input for \(options.dragLease) s")
            submit(.dragExpired(chart: channel.id, owner: owner, pressed: channel.engine.isPressing(owner)))
        }
    }
}

extension ServerCore {
    /// Leaves the dashboard (shutdown): every viewer still listed for this instance leaves with
    /// one entry, and the link's threads stop after appending what was queued.
    /// - Note: once the service thread has stopped (or before it started).
    func leaveCluster() {
        guard let cluster else { return }
        submit(.instanceGone(cluster.instance))
        cluster.link.stop()
        self.cluster = nil
    }
}
