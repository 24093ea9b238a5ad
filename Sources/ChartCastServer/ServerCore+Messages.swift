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
                    sendError(ProtocolError(.rateLimited, "more than \(Int(ServerCore.messageRate)) messages a second; message dropped"),
                              to: session)
                }
                return
            }
            do {
                try handle(try ClientMessage.decode(bytes), from: session, now: now)
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
        sendError(ProtocolError(.tooLarge, "message exceeds 65536 bytes"), to: session)
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
        switch message {
        case .hello(let name):
            guard name != session.info.name else { return }
            session.info.name = name
            rosterChanged()
            logger.info("viewer \(session.info.id) is now called \"\(name)\"")
        case .viewport(let chartID, let viewport):
            let channel = try channel(chartID)
            session.viewports[channel.index] = viewport
        case .pointer(let chartID, let phase, let x, let y, let ref):
            let channel = try channel(chartID)
            guard let viewport = session.viewports[channel.index] else {
                throw ProtocolError(.noViewport, "send a viewport for \"\(chartID)\" before pointer events")
            }
            if channel.engine.pointer(viewer: session.info.id, phase: phase, x: x, y: y, viewport: viewport) {
                channel.selectionDidChange(ref: ref, now: now)
                wakeAll()
            }
        case .key(let chartID, let command, let shift, let ref):
            let channel = try channel(chartID)
            if channel.engine.key(viewer: session.info.id, command: command, shift: shift,
                                  viewport: session.viewports[channel.index]) {
                channel.selectionDidChange(ref: ref, now: now)
                wakeAll()
            }
        }
    }
}
