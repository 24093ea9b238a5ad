import WebSockets

extension ServerCore {
    /// The one decision of what `connection` is sent next: the frame to write now, and whether
    /// more is pending after it (the server re-arms the connection on that answer alone).
    ///
    /// Order: personal frames (welcome, errors), the viewer list if newer, then the charts
    /// round-robin — for each, a snapshot if needed, else its next logged append, else the
    /// newest selection if unseen. Appends before selections keeps `seq` increasing per chart.
    /// `morePending` comes out of the same walk: every chart the walk passes over is known to
    /// be up to date, so only the charts after the chosen one (and the chosen one itself) are
    /// checked again.
    /// - Complexity: O(charts); no work proportional to viewers or points (a snapshot is encoded
    ///   at most once per chart state and shared), no allocation.
    /// - Note: service thread only.
    func nextFrame(for connection: ViewerConnection) -> NextFrame {
        guard let session = session(for: connection) else { return .nothing }
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

    /// The charts' turn, round-robin from `session.nextChart`.
    private func nextChartFrame(for session: Session) -> NextFrame {
        let count = channels.count
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
            return NextFrame(sent(frame), morePending: more)
        }
        return .nothing
    }

    /// Whether the viewer list or any chart has something for `session`.
    /// - Complexity: O(charts).
    private func hasSharedFrames(for session: Session) -> Bool {
        session.viewersVersion != currentViewersVersion || hasChartFrames(for: session)
    }

    /// Whether any chart has something for `session`.
    /// - Complexity: O(charts).
    private func hasChartFrames(for session: Session) -> Bool {
        for channel in channels where !isUpToDate(session.cursors[channel.index], on: channel) { return true }
        return false
    }

    /// True when `cursor` has nothing to send on `channel`: the viewer knows this definition of
    /// the chart (or, once removed, that it is gone), and no snapshot is owed, no append unsent,
    /// no selection unseen. When false, `nextFrame(of:for:)` returns a frame.
    private func isUpToDate(_ cursor: Session.Cursor, on channel: ChartChannel) -> Bool {
        if channel.isRemoved { return cursor.specVersion == 0 }
        return cursor.specVersion == channel.specVersion && !cursor.needsSnapshot
            && cursor.nextAppend >= channel.appendLog.nextNumber
            && (cursor.selectionVersion == channel.selectionVersion || channel.selectionFrame == nil)
    }

    private func nextFrame(of channel: ChartChannel, for session: Session) -> OutboundFrame? {
        // Fast path, the common case on every write: nothing new on this chart for this viewer.
        if isUpToDate(session.cursors[channel.index], on: channel) { return nil }
        var cursor = session.cursors[channel.index]
        defer { session.cursors[channel.index] = cursor }
        if channel.isRemoved {
            // Told once; the slot's viewport and cursor are forgotten with the chart.
            cursor = Session.Cursor()
            session.viewports[channel.index] = nil
            return channel.removedFrame
        }
        if cursor.specVersion != channel.specVersion {
            // A chart defined or replaced since: its spec, then (next pull) its snapshot.
            cursor = Session.Cursor(specVersion: channel.specVersion)
            return channel.chartFrame()
        }
        if !cursor.needsSnapshot, cursor.nextAppend < channel.appendLog.oldestNumber {
            cursor.needsSnapshot = true   // fell off the log: a fresh snapshot, never a backlog
        }
        if cursor.needsSnapshot {
            if cursor.hadSnapshot { metrics.snapshotsResent += 1 }
            cursor.needsSnapshot = false
            cursor.hadSnapshot = true
            cursor.nextAppend = channel.appendLog.nextNumber
            cursor.selectionVersion = channel.selectionVersion
            return channel.snapshotFrame()
        }
        if let frame = channel.appendLog.frame(cursor.nextAppend) {
            cursor.nextAppend += 1
            return frame
        }
        if cursor.selectionVersion != channel.selectionVersion, let frame = channel.selectionFrame {
            metrics.statesCoalesced += channel.selectionVersion - cursor.selectionVersion - 1
            cursor.selectionVersion = channel.selectionVersion
            metrics.eventToWrite.observe(Double(ServerCore.now() &- channel.selectionChangedAt) / 1e9)
            return frame
        }
        return nil
    }

    private func sent(_ frame: OutboundFrame) -> OutboundFrame {
        metrics.framesOut += 1
        metrics.bytesOut += frame.count
        return frame
    }
}
