import WebSockets

extension ServerCore {
    /// Picks the one frame to write to `connection` now, or nil when it is up to date.
    ///
    /// Order: personal frames (welcome, errors), the viewer list if newer, then the charts
    /// round-robin — for each, a snapshot if needed, else its next logged append, else the
    /// newest selection if unseen. Appends before selections keeps `seq` increasing per chart.
    /// - Complexity: O(charts); no work proportional to viewers or points (a snapshot is encoded
    ///   at most once per chart state and shared).
    /// - Note: service thread only.
    func nextFrame(for connection: ViewerConnection) -> OutboundFrame? {
        guard let session = session(for: connection) else { return nil }
        if let frame = session.dequeuePersonal() { return sent(frame) }
        if session.closing { return nil }
        if session.viewersVersion != currentViewersVersion {
            session.viewersVersion = currentViewersVersion
            return sent(currentViewersFrame())
        }
        let count = channels.count
        for step in 0..<count {
            let channel = channels[(session.nextChart + step) % count]
            guard let frame = nextFrame(of: channel, for: session) else { continue }
            session.nextChart = (channel.index + 1) % count
            return sent(frame)
        }
        return nil
    }

    /// Whether `nextFrame(for:)` would return a frame now, without taking it, so a connection
    /// is re-armed only while something is pending.
    /// - Complexity: O(charts).
    /// - Note: service thread only.
    func hasFrame(for connection: ViewerConnection) -> Bool {
        guard let session = session(for: connection) else { return false }
        if session.hasPersonalFrames { return true }
        if session.closing { return false }
        if session.viewersVersion != currentViewersVersion { return true }
        for channel in channels where !isUpToDate(session.cursors[channel.index], on: channel) { return true }
        return false
    }

    /// True when `cursor` has nothing to send on `channel`: no snapshot owed, no unsent append,
    /// no unseen selection.
    private func isUpToDate(_ cursor: Session.Cursor, on channel: ChartChannel) -> Bool {
        !cursor.needsSnapshot && cursor.nextAppend >= channel.appendLog.nextNumber
            && (cursor.selectionVersion == channel.selectionVersion || channel.selectionFrame == nil)
    }

    private func nextFrame(of channel: ChartChannel, for session: Session) -> OutboundFrame? {
        // Fast path, the common case on every write: nothing new on this chart for this viewer.
        if isUpToDate(session.cursors[channel.index], on: channel) { return nil }
        var cursor = session.cursors[channel.index]
        defer { session.cursors[channel.index] = cursor }
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
