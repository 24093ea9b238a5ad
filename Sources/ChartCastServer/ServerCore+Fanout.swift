import WebSockets

extension ServerCore {
    /// The one decision of what `connection` is sent next: the frame to write now, and whether
    /// more is pending after it (the server re-arms the connection on that answer alone).
    ///
    /// Order: personal frames (welcome, errors), the viewer list if newer, then any chart whose
    /// only news is its newest selection, then the charts round-robin — for each, a snapshot if needed (downsampled for the viewer's plot width and
    /// view), else its next logged append (or a snapshot when that write is too large for the
    /// plot; nothing while the viewer is zoomed into the past), else the newest selection if
    /// unseen. Appends before selections keeps `seq` increasing per chart.
    /// `morePending` comes out of the same walk: every chart the walk passes over is known to
    /// be up to date, so only the charts after the chosen one (and the chosen one itself) are
    /// checked again.
    /// - Complexity: O(charts); no work proportional to viewers or points (a snapshot is encoded
    ///   at most once per chart state and shared), no allocation.
    /// - Note: service thread only.
    func nextFrame(for connection: ViewerConnection) -> NextFrame {
        guard let session = session(for: connection) else { return .nothing }
        session.writeCallbacks &+= 1
        let next = nextFrame(of: session)
        session.lastFrameBytes = next.frame?.count ?? 0
        return next
    }

    /// `nextFrame(for:)` once the session is known.
    private func nextFrame(of session: Session) -> NextFrame {
        if let frame = session.dequeuePersonal() {
            let more = session.hasPersonalFrames || (!session.closing && hasSharedFrames(for: session))
            return NextFrame(sent(frame), morePending: more)
        }
        if session.closing { return .nothing }
        if session.viewersVersion != currentViewersVersion {
            session.viewersVersion = currentViewersVersion
            return NextFrame(sent(currentViewersFrame()), morePending: hasChartFrames(for: session))
        }
        return nextChartFrame(for: session)
    }

    /// The charts' turn: a chart whose only news for the viewer is its newest selection goes
    /// first (a selection is small and is what people interact with; it never waits behind
    /// another chart's snapshot or append), then round-robin from `session.nextChart` — unless
    /// this service pass already wrote its share of chart data to anyone (`DataBudget`: 256 KiB
    /// or 1 ms, more while a crowd waits on a costly poll; snapshots are built then too): then the
    /// viewer is held (`hold`) and woken in a later pass, after the sockets were polled, so that
    /// input is read and selections go out between the pieces of a big fan-out (a write's
    /// snapshots to every viewer, a tick's appends, a crowd's first snapshots) instead of after
    /// all of it.
    private func nextChartFrame(for session: Session) -> NextFrame {
        let count = channels.count
        for channel in channels where isSelectionOnly(session.cursors[channel.index], on: channel) {
            guard let frame = nextFrame(of: channel, for: session) else { continue }
            return NextFrame(sent(frame), morePending: hasChartFrames(for: session))
        }
        if dataBudget.isSpent(now: ServerCore.now()) {
            guard hasChartFrames(for: session) else { return .nothing }
            // Held for a later pass: not re-armed now (a crowd of held viewers asked again every
            // pass would cost a callback each per pass), but queued and woken a batch at a time
            // (`wakeHeldViewers`).
            hold(session)
            return .nothing
        }
        var index = session.nextChart
        var remaining = count
        while remaining > 0 {
            let channel = channels[index]
            index = index + 1 == count ? 0 : index + 1
            remaining -= 1
            guard let frame = nextFrame(of: channel, for: session) else { continue }
            session.nextChart = index
            // The charts walked past are up to date: only this one and those not reached yet
            // can have more.
            var more = !isUpToDate(session.cursors[channel.index], on: channel)
            while !more && remaining > 0 {
                more = !isUpToDate(session.cursors[index], on: channels[index])
                index = index + 1 == count ? 0 : index + 1
                remaining -= 1
            }
            dataBudget.record(frame.count, now: ServerCore.now())
            return NextFrame(sent(frame), morePending: more)
        }
        return .nothing
    }

    /// Whether the viewer list or any chart has something for `session`.
    /// - Complexity: O(charts).
    func hasSharedFrames(for session: Session) -> Bool {
        session.viewersVersion != currentViewersVersion || hasChartFrames(for: session)
    }

    /// Whether any chart has something for `session`.
    /// - Complexity: O(charts).
    private func hasChartFrames(for session: Session) -> Bool {
        for channel in channels where !isUpToDate(session.cursors[channel.index], on: channel) { return true }
        return false
    }

    /// True when `cursor` has nothing to send on `channel`: the viewer knows this definition of
    /// the chart (or, once removed, that it is gone), and no snapshot is owed, no append unsent
    /// (or appends are not for it: its view ends before the chart's newest x), no selection
    /// unseen. When false, `nextFrame(of:for:)` returns a frame.
    /// - Complexity: a few comparisons (the fan-out's fast path, once per chart per pull).
    private func isUpToDate(_ cursor: Session.Cursor, on channel: ChartChannel) -> Bool {
        if channel.isRemoved { return cursor.specVersion == 0 }
        return cursor.specVersion == channel.specVersion && !cursor.needsSnapshot
            && (cursor.nextAppend >= channel.appendLog.nextNumber || cursor.viewEnd < channel.liveEdge)
            && (cursor.selectionVersion == channel.selectionVersion || channel.selectionFrame == nil)
    }

    /// True when the newest selection is all `channel` has for `cursor`: the viewer holds this
    /// definition, no snapshot is owed and no append is unsent (so sending the selection now keeps
    /// the chart's `seq` increasing).
    /// - Complexity: a few comparisons.
    private func isSelectionOnly(_ cursor: Session.Cursor, on channel: ChartChannel) -> Bool {
        !channel.isRemoved && cursor.specVersion == channel.specVersion && !cursor.needsSnapshot
            && (cursor.nextAppend >= channel.appendLog.nextNumber || cursor.viewEnd < channel.liveEdge)
            && cursor.selectionVersion != channel.selectionVersion && channel.selectionFrame != nil
    }

    /// The per-viewer decision for one chart: its spec, a snapshot (first contact, fell off the
    /// append log, a new width or view, or a write too large for the viewer's plot), its next
    /// append, or its newest selection.
    private func nextFrame(of channel: ChartChannel, for session: Session) -> OutboundFrame? {
        // Fast path, the common case on every write: nothing new on this chart for this viewer.
        if isUpToDate(session.cursors[channel.index], on: channel) { return nil }
        if needsFreshHistory(session, on: channel) { requestViewSnapshot(on: channel, for: session) }
        var cursor = session.cursors[channel.index]
        defer { session.cursors[channel.index] = cursor }
        if channel.isRemoved {
            // Told once; the slot's viewport, view and cursor are forgotten with the chart.
            cursor = Session.Cursor()
            session.viewports[channel.index] = nil
            session.histories[channel.index] = nil
            return channel.removedFrame
        }
        if cursor.specVersion != channel.specVersion {
            // A chart defined or replaced since: its spec, then (next pull) its snapshot. The
            // plot keeps its width; a view of the old definition ends.
            cursor = Session.Cursor(specVersion: channel.specVersion, columns: cursor.columns)
            session.histories[channel.index] = nil
            return channel.chartFrame()
        }
        if cursor.viewEnd < channel.liveEdge && !cursor.needsSnapshot {
            // Zoomed into the past: the picture holds still, appends are skipped.
            cursor.nextAppend = channel.appendLog.nextNumber
        }
        // Whether the data outran what appends can bring this viewer (counted as a resend;
        // snapshots for a new width or view are not).
        var outran = false
        if !cursor.needsSnapshot, cursor.nextAppend < channel.appendLog.oldestNumber {
            cursor.needsSnapshot = true   // fell off the log: a fresh snapshot, never a backlog
            outran = true
        }
        if !cursor.needsSnapshot, channel.appendLog.holds(cursor.nextAppend) {
            // A write bringing more points per series than the plot has room for (4 per pixel
            // column of its snapshot) comes as a downsampled snapshot instead, covering it and
            // what follows (so an append that no viewer takes is never encoded).
            if channel.appendLog.pointsPerSeries(cursor.nextAppend) <= 4 * channel.snapshotColumns(for: cursor.columns),
               let frame = channel.appendFrame(cursor.nextAppend) {
                if let y = channel.appendLog.yDomain(cursor.nextAppend) {
                    // As the page does: a zoomed picture's y domain only widens.
                    cursor.drawnY = cursor.drawnZoomed ? cursor.drawnY.map { ServerCore.widen($0, y) } ?? y : y
                }
                cursor.nextAppend += 1
                return frame
            }
            cursor.needsSnapshot = true
            outran = true
        }
        if cursor.needsSnapshot {
            if outran && cursor.hadSnapshot { metrics.snapshotsResent += 1 }
            cursor.needsSnapshot = false
            cursor.hadSnapshot = true
            cursor.nextAppend = channel.appendLog.nextNumber
            cursor.selectionVersion = channel.selectionVersion
            if let view = cursor.view, let history = session.histories[channel.index],
               history.generation == cursor.viewGeneration,
               history.grid.columns <= channel.snapshotColumns(for: cursor.columns) {
                cursor.sentColumns = history.grid.columns
                let sent = channel.historySnapshotFrame(view: view, grid: history.grid, history: history.series)
                cursor.drawnY = sent.yDomain
                cursor.drawnZoomed = true
                return sent.frame
            }
            // (A history answer read on a grid too fine for the chart's series now — a write
            // added series since — is not used; `needsFreshHistory` has it read again.)
            let key = channel.snapshotKey(columns: cursor.columns, view: cursor.view)
            cursor.sentColumns = key.columns
            cursor.drawnY = channel.sentY
            cursor.drawnZoomed = key.view != nil
            return channel.snapshotFrame(key)
        }
        if cursor.selectionVersion != channel.selectionVersion, let frame = channel.selectionFrame {
            metrics.statesCoalesced += channel.selectionVersion - cursor.selectionVersion - 1
            cursor.selectionVersion = channel.selectionVersion
            metrics.eventToWrite.observe(Double(ServerCore.now() &- channel.selectionChangedAt) / 1e9)
            return frame
        }
        return nil
    }

    /// Whether the history answer kept for the viewer's view was read on a grid finer than the
    /// chart's snapshots may now have (a write added series since): its snapshot would carry
    /// more than `ProtocolLimits.maxMessagePoints` points, so the history is read again.
    /// - Complexity: O(1).
    private func needsFreshHistory(_ session: Session, on channel: ChartChannel) -> Bool {
        let cursor = session.cursors[channel.index]
        guard cursor.needsSnapshot, cursor.specVersion == channel.specVersion, !channel.isRemoved,
              let history = session.histories[channel.index], history.generation == cursor.viewGeneration else { return false }
        return history.grid.columns > channel.snapshotColumns(for: cursor.columns)
    }

    /// The smallest range holding both (`widen` in `web/js/model.js`).
    static func widen(_ a: ClosedRange<Double>, _ b: ClosedRange<Double>) -> ClosedRange<Double> {
        Swift.min(a.lowerBound, b.lowerBound)...Swift.max(a.upperBound, b.upperBound)
    }

    /// Queues `session` to be woken in a later pass (once, however often it is held).
    /// - Complexity: O(1).
    private func hold(_ session: Session) {
        metrics.dataWritesDeferred += 1
        guard !session.isHeld else { return }
        session.isHeld = true
        heldSessions.append(session)
    }

    /// Whether `connection`'s viewer is held for a later pass (its data waits; `nextFrame`
    /// answered nothing although it has some).
    func isHeld(_ connection: ViewerConnection) -> Bool { session(for: connection)?.isHeld ?? false }

    /// End of a pass: wakes held viewers, in the order they were held, as many as the pass
    /// served with chart data (at least 16), so the next passes serve them in turn without
    /// asking the others again and again.
    /// - Complexity: O(viewers woken).
    func wakeHeldViewers() {
        var budget = Swift.max(16, dataBudget.frames)
        while budget > 0, let session = heldSessions.popFirst() {
            session.isHeld = false
            guard session.rosterSlot >= 0, !session.closing else { continue }
            session.connection.requestWrite()
            budget -= 1
        }
    }

    private func sent(_ frame: OutboundFrame) -> OutboundFrame {
        metrics.framesOut += 1
        metrics.bytesOut += frame.count
        return frame
    }
}
