import ChartCastIngest
import ChartCastProtocol
import ChartEngine
import WebSockets

extension ServerCore {
    /// Handles one complete message from a viewer. Every failure becomes an `error` reply; the
    /// connection stays open and no other viewer is affected.
    /// - Note: service thread only.
    func receive(_ message: InboundMessage, from connection: ViewerConnection) {
        guard let session = session(for: connection), !session.closing else { return }
        metrics.framesIn += 1
        switch message {
        case .binary(let bytes):
            metrics.bytesIn += bytes.count
            sendError(ProtocolError(.unsupported, "binary frames are not supported; send JSON text frames"), to: session)
        case .text(let bytes):
            metrics.bytesIn += bytes.count
            let now = ServerCore.now()
            guard session.rateLimiter.allow(now: now) else {
                warnRateLimited(session, now: now, "more than \(Int(ServerCore.limits.messagesPerSecond)) messages a second; message dropped")
                return
            }
            do {
                let decoded = try ClientMessage.decode(bytes, limits: ServerCore.limits)
                if let budget = session.addressBudget, AddressBudgets.covers(decoded), !budget.allow(now: now) {
                    metrics.addressBudgetDrops += 1
                    warnRateLimited(session, now: now, "more than \(Int(addressBudgets.rate)) pointer, key and view messages a second "
                                    + "from this address (all its connections together); message dropped")
                    return
                }
                try handle(decoded, from: session, now: now)
            } catch let error as ProtocolError {
                sendError(error, to: session)
            } catch {
                sendError(ProtocolError(.badJSON, "\(error)"), to: session)
            }
        }
    }

    /// A `rate_limited` error, one a second at most per viewer, so a flood cannot fill its queue.
    private func warnRateLimited(_ session: Session, now: UInt64, _ message: String) {
        guard now &- session.rateLimiter.lastWarning > 1_000_000_000 else { return }
        session.rateLimiter.lastWarning = now
        sendError(ProtocolError(.rateLimited, message), to: session)
    }

    /// A message over the size limit: `too_large`, then close 1009.
    func messageTooLarge(on connection: ViewerConnection) {
        guard let session = session(for: connection), !session.closing else { return }
        sendError(ProtocolError(.tooLarge, "message exceeds \(ServerCore.limits.maxMessageBytes) bytes"), to: session)
        session.closing = true
        connection.close(code: 1009, reason: "message too large")
    }

    private func channel(_ id: String) throws -> ChartChannel {
        guard let channel = channelsByID[id] else {
            throw ProtocolError(.unknownChart, "no chart with id \"\(id.prefix(64))\"")
        }
        return channel
    }

    private func handle(_ message: ClientMessage, from session: Session, now: UInt64) throws {
        do {
            try apply(message, from: session, now: now)
        } catch var error as ProtocolError {
            error.ref = error.ref ?? message.ref
            throw error
        }
    }

    private func apply(_ message: ClientMessage, from session: Session, now: UInt64) throws {
        switch message {
        case .hello(let hello):
            guard hello.name != session.info.name else { return }
            session.info.name = hello.name
            if cluster != nil { submit(.renamed(viewer: session.info.id, name: hello.name)) }
            rosterChanged()
            logger.log(.info, key: "rename", "viewer \(session.info.id) is now called \(Logger.quoted(hello.name))")
        case .viewport(let report):
            let channel = try channel(report.chart)
            session.viewports[channel.index] = report.viewport
            plotWidthChanged(to: Session.columns(forWidth: report.viewport.width), on: channel, for: session)
        case .view(let request):
            try view(request, from: session)
        case .pointer(let input):
            let channel = try channel(input.chart)
            guard let viewport = session.geometry(channel.index) else {
                throw ProtocolError(.noViewport, "send a viewport for \"\(input.chart)\" before pointer events")
            }
            if cluster != nil { return try clusterPointer(input, on: channel, viewport: viewport, from: session, now: now) }
            let changed = channel.engine.pointer(viewer: session.info.id, phase: input.phase, x: input.x, y: input.y,
                                                 viewport: viewport)
            channel.engine.noteInput(from: session.info.id, at: Double(now) / 1e9)   // renews its drag lease
            if changed {
                channel.selectionDidChange(ref: input.ref, now: now)
                wakeAtEndOfPass()
            }
        case .publish(let publish):
            try self.publish(publish, from: session, now: now)
        case .key(let input):
            let channel = try channel(input.chart)
            if cluster != nil { return try clusterKey(input, on: channel, from: session, now: now) }
            let changed = channel.engine.key(viewer: session.info.id, command: input.command, shift: input.shift,
                                             viewport: session.geometry(channel.index))
            channel.engine.noteInput(from: session.info.id, at: Double(now) / 1e9)
            if changed {
                channel.selectionDidChange(ref: input.ref, now: now)
                wakeAtEndOfPass()
            }
        }
    }

    /// A viewport's width in pixel columns: a viewer already shown the chart gets a fresh
    /// snapshot when the new width changes what it should hold (downsampled to another number
    /// of columns, or no longer downsampled), and a history read under way is made again for
    /// the new width.
    private func plotWidthChanged(to columns: Int, on channel: ChartChannel, for session: Session) {
        var cursor = session.cursors[channel.index]
        guard columns != cursor.columns else { return }
        cursor.columns = columns
        session.cursors[channel.index] = cursor
        guard cursor.specVersion == channel.specVersion else { return }
        if cursor.awaitingHistory || session.histories[channel.index] != nil {
            // History was read on the old width's grid: read it again on the new one.
            requestViewSnapshot(on: channel, for: session)
        } else if cursor.hadSnapshot, !cursor.needsSnapshot,
                  channel.snapshotKey(columns: columns, view: cursor.view).columns != cursor.sentColumns {
            session.cursors[channel.index].needsSnapshot = true
            session.connection.requestWrite()
        }
    }

    /// A `view`: the viewer's plot of a time/linear chart zoomed to a domain, or back to the live
    /// window; either way a fresh snapshot follows.
    private func view(_ request: ClientMessage.ViewRequest, from session: Session) throws {
        let channel = try channel(request.chart)
        guard channel.spec.xKind != .category else {
            throw ProtocolError(.badField, "chart \"\(channel.id)\" has category x: views are for time and linear charts")
        }
        var cursor = session.cursors[channel.index]
        cursor.view = request.domain
        cursor.viewEnd = request.domain?.upperBound ?? .infinity
        session.cursors[channel.index] = cursor
        requestViewSnapshot(on: channel, for: session)
    }

    /// Owes the viewer a snapshot of its current view: from memory at once, or — when the view
    /// reaches before the live window, the chart keeps history and a reader is set — after the
    /// history reader answered (`historyArrived`).
    func requestViewSnapshot(on channel: ChartChannel, for session: Session) {
        let slot = channel.index
        var cursor = session.cursors[slot]
        session.histories[slot] = nil
        cursor.viewGeneration += 1   // an answer to an earlier request is stale from now on
        cursor.awaitingHistory = false
        cursor.needsSnapshot = true
        defer {
            session.cursors[slot] = cursor
            session.connection.requestWrite()
        }
        guard let reader = historyReader, let view = cursor.view, channel.spec.retentionSeconds != 0,
              cursor.specVersion == channel.specVersion else { return }
        let firstInMemory = channel.store.count > 0 ? channel.store.xNumber(at: 0) : Double.infinity
        let until = Swift.min(firstInMemory, view.upperBound.nextUp)
        guard view.lowerBound < until,
              let grid = M4Grid(from: view.lowerBound, to: view.upperBound,
                                columns: channel.snapshotColumns(for: cursor.columns)) else { return }
        cursor.needsSnapshot = false
        cursor.awaitingHistory = true
        let generation = cursor.viewGeneration, specVersion = channel.specVersion, chart = channel.id
        let back = runOnServiceThread
        reader.read(chart: chart, from: view.lowerBound, to: until, grid: grid) { [weak self, weak session] result in
            back {
                guard let self, let session else { return }
                self.historyArrived(result, chart: chart, grid: grid, generation: generation, specVersion: specVersion,
                                    slot: slot, for: session)
            }
        }
    }

    /// A history answer, on the service thread: kept for the view it was read for and its
    /// snapshot owed; dropped when the viewer has moved on (another view, live, a replaced chart,
    /// gone). A failed read falls back to memory.
    private func historyArrived(_ result: Result<[HistorySeries], Error>, chart: String, grid: M4Grid, generation: Int,
                                specVersion: Int, slot: Int, for session: Session) {
        assertOwningThread()
        guard session.connection.userData === session, slot < session.cursors.count else { return }
        var cursor = session.cursors[slot]
        guard cursor.awaitingHistory, cursor.viewGeneration == generation, cursor.specVersion == specVersion else { return }
        cursor.awaitingHistory = false
        cursor.needsSnapshot = true
        switch result {
        case .success(let series):
            // Only the chart's series are kept (a store may hold more, from earlier definitions).
            let names = Set(channels[slot].spec.series)
            session.histories[slot] = Session.HistoryPart(generation: generation, grid: grid,
                                                          series: series.filter { names.contains($0.name) })
        case .failure(let error):
            logger.info("viewer \(session.info.id): reading the history of \(chart) failed (\(error)); its view shows the points in memory")
        }
        session.cursors[slot] = cursor
        session.connection.requestWrite()
    }

    /// A `publish`: the points validated like an HTTP write (all or nothing), committed when
    /// the chart keeps history, applied, and an `ack` with the chart's new `seq` for the
    /// publisher (or the error, with the message's `ref`).
    private func publish(_ publish: ClientMessage.Publish, from session: Session, now: UInt64) throws {
        guard session.canWrite else {
            throw ProtocolError(.forbidden, options.writeToken == nil
                ? "only connections from loopback may publish (start chartcast with --write-token to allow others)"
                : "this connection may not publish: connect with Authorization: Bearer <write token>")
        }
        _ = try channel(publish.chart)
        let rows = publish.points.map { point -> PublishedRow in
            switch point.x {
            case .number(let x): return PublishedRow(series: point.series, x: .number(x), y: point.y)
            case .category(let text): return PublishedRow(series: point.series, x: .string(text), y: point.y)
            }
        }
        let batch: PointBatch
        do {
            batch = try PointBatch(published: rows)
        } catch let error as IngestError {
            throw ProtocolError(.badPoint, error.message)
        }
        let ref = publish.ref
        write(batch, to: publish.chart) { outcome in
            guard session.rosterSlot >= 0, !session.closing else { return }   // the publisher left
            switch outcome {
            case .applied(let seq, let accepted):
                let ack = ServerMessage.ack(.init(ref: ref, seq: seq, accepted: accepted))
                if session.enqueuePersonal(OutboundFrame(textBytes: ack.encode())) {
                    session.connection.requestWrite()
                } else {
                    self.metrics.personalFramesDropped += 1
                }
            case .unknownChart(let id):
                self.sendError(ProtocolError(.unknownChart, "no chart with id \"\(id.prefix(64))\"", ref: ref), to: session)
            case .rejected(let error):
                self.sendError(ProtocolError(.badPoint, error.message, ref: ref), to: session)
            case .unavailable(let error):
                self.sendError(ProtocolError(.unavailable, error.message, ref: ref), to: session)
            }
        }
    }
}
