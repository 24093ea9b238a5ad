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
                // One error a second at most, so a flood cannot fill the viewer's queue.
                if now &- session.rateLimiter.lastWarning > 1_000_000_000 {
                    session.rateLimiter.lastWarning = now
                    sendError(ProtocolError(.rateLimited, "more than \(Int(ServerCore.limits.messagesPerSecond)) messages a second; message dropped"),
                              to: session)
                }
                return
            }
            do {
                try handle(try ClientMessage.decode(bytes, limits: ServerCore.limits), from: session, now: now)
            } catch let error as ProtocolError {
                sendError(error, to: session)
            } catch {
                sendError(ProtocolError(.badJSON, "\(error)"), to: session)
            }
        }
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
            rosterChanged()
            logger.info("viewer \(session.info.id) is now called \"\(hello.name)\"")
        case .viewport(let report):
            let channel = try channel(report.chart)
            session.viewports[channel.index] = report.viewport
        case .pointer(let input):
            let channel = try channel(input.chart)
            guard let viewport = session.viewports[channel.index] else {
                throw ProtocolError(.noViewport, "send a viewport for \"\(input.chart)\" before pointer events")
            }
            if channel.engine.pointer(viewer: session.info.id, phase: input.phase, x: input.x, y: input.y,
                                      viewport: viewport) {
                channel.selectionDidChange(ref: input.ref, now: now)
                wakeAtEndOfPass()
            }
        case .publish(let publish):
            try self.publish(publish, from: session, now: now)
        case .key(let input):
            let channel = try channel(input.chart)
            if channel.engine.key(viewer: session.info.id, command: input.command, shift: input.shift,
                                  viewport: session.viewports[channel.index]) {
                channel.selectionDidChange(ref: input.ref, now: now)
                wakeAtEndOfPass()
            }
        }
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
