import CLibWebsockets

/// The write path: what one `SERVER_WRITEABLE` callback sends.
extension WebSocketServer {
    /// Writes one frame as its own WebSocket message: framed here and sent on the socket where
    /// the connection allows it (`sendDirect`), else through `lws_write`, which frames it.
    /// - Returns: false when the write failed.
    private func write(_ frame: OutboundFrame, on connection: WebSocketConnection, wsi: OpaquePointer) -> Bool {
        let header = ServerFrameHeader.bytes(for: frame.count)
        if connection.directSocket >= 0, header + frame.count <= WebSocketServer.maxBytesPerSend {
            // The headroom takes the header, as it would from lws (the same bytes).
            let start = frame.payload - header
            ServerFrameHeader.write(at: start, count: frame.count, isBinary: frame.isBinary)
            return sendFramed(start, count: header + frame.count, frames: 1, on: connection, wsi: wsi)
        }
        let flags = cc_write_flags(1, frame.isBinary ? 1 : 0, 1)
        if cc_lws_write(wsi, frame.payload, frame.count, flags) < 0 {
            WebSocketLog.log(.info, "write failed on connection \(connection.id)")
            return false
        }
        connection.didWriteFrame(partial: lws_partial_buffered(wsi) != 0)
        return true
    }

    /// Sends `count` bytes of `frames` whole frames, headers included, from `start`: on the
    /// socket directly when the connection allows it and lws holds nothing unsent for it
    /// (`sendDirect`), else as a raw `lws_write` (`LWS_WRITE_HTTP`). Counts the frames.
    /// - Returns: false when the write failed.
    private func sendFramed(_ start: UnsafeMutablePointer<UInt8>, count: Int, frames: Int,
                            on connection: WebSocketConnection, wsi: OpaquePointer) -> Bool {
        var partial = false
        if connection.directSocket >= 0, count <= WebSocketServer.maxBytesPerSend, lws_partial_buffered(wsi) == 0 {
            switch sendDirect(start, count: count, socket: connection.directSocket, wsi: wsi) {
            case .whole: break
            case .restKept: partial = lws_partial_buffered(wsi) != 0
            case .failed:
                WebSocketLog.log(.info, "write failed on connection \(connection.id)")
                return false
            }
            connection.didWriteDirect()
        } else {
            guard cc_lws_write(wsi, start, count, Int32(LWS_WRITE_HTTP.rawValue)) >= 0 else {
                WebSocketLog.log(.info, "write failed on connection \(connection.id)")
                return false
            }
            partial = lws_partial_buffered(wsi) != 0
        }
        for index in 0..<frames { connection.didWriteFrame(partial: partial && index == frames - 1) }
        return true
    }

    /// Whether small frames are batched into one send: not with permessage-deflate (lws must
    /// compress each message).
    private var batchesFrames: Bool { !configuration.permessageDeflate }

    /// Frames `first` and the delegate's next frames while it has more and they are small and
    /// fit (`FrameBatch`), writes them in one send, then a frame that did not fit on its own.
    /// - Returns: whether the delegate has more after these; nil when a write failed.
    private func writeBatch(startingWith first: OutboundFrame, on connection: WebSocketConnection,
                            wsi: OpaquePointer) -> Bool? {
        let batch = frameBatch
        batch.reset()
        var more = true
        var leftOver: OutboundFrame?
        // `first` is copied into the batch only once a second frame joins it.
        while more && connection.mayTakeFrame(afterPending: max(1, batch.frames)) {
            let next = delegate?.webSocketServer(self, nextFrameFor: connection) ?? .nothing
            more = next.morePending
            guard let frame = next.frame else { break }
            // Two admitted frames always fit together.
            if batch.frames == 0 && FrameBatch.admits(frame) { batch.append(first) }
            if FrameBatch.admits(frame) && batch.fits(frame) {
                batch.append(frame)
            } else {
                leftOver = frame
                break
            }
        }
        let frames = batch.frames
        if frames == 0 {
            guard write(first, on: connection, wsi: wsi) else { return nil }
        } else {
            guard sendFramed(batch.start, count: batch.count, frames: frames, on: connection, wsi: wsi) else { return nil }
            connection.didWriteBatch()
        }
        if let leftOver, !write(leftOver, on: connection, wsi: wsi) { return nil }
        return more
    }

    /// Whether `WebSocketConnection.writeNow` may write outside a writable callback: not with
    /// permessage-deflate (its compressor may still be draining a message, which libwebsockets
    /// finishes from its own writable callbacks; a frame written meanwhile would be taken as
    /// that message's continuation).
    var writesNow: Bool { !configuration.permessageDeflate }

    /// `WebSocketConnection.writeNow`: what a writable callback would write, written now. A
    /// failed write hangs up the connection (it closes in the next pass, as a failed write in a
    /// callback would); a nested `writeNow` (the delegate asking again) arms a callback instead.
    /// - Note: service thread only, between passes.
    func writeNow(_ connection: WebSocketConnection, wsi: OpaquePointer) {
        isWritingNow = true
        defer { isWritingNow = false }
        if writable(connection, wsi: wsi) < 0 {
            lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC)
        }
    }

    /// `SERVER_WRITEABLE`: the delegate's next frame — or, when it has more and they are small,
    /// the next several in one send (`writeBatch`) — as the delegate decides; the queued close
    /// once the delegate has nothing more (or the bound on frames after a close is reached).
    ///
    /// The only place that re-arms a connection after a write: while the delegate reported
    /// more pending, or a close is queued.
    func writable(_ connection: WebSocketConnection, wsi: OpaquePointer) -> Int32 {
        connection.writeArmed = false
        if connection.pingDue {
            // The ping alone in this callback; the frames pending follow in the next.
            guard writePing(on: connection, wsi: wsi) else { return -1 }
            connection.requestWrite()
            return 0
        }
        let next = connection.mayTakeFrame ? delegate?.webSocketServer(self, nextFrameFor: connection) ?? .nothing : .nothing
        if let frame = next.frame {
            var morePending = next.morePending
            if morePending, batchesFrames, FrameBatch.admits(frame) {
                // Small frames ready together go out in one send (`FrameBatch`).
                guard let more = writeBatch(startingWith: frame, on: connection, wsi: wsi) else { return -1 }
                morePending = more
            } else {
                guard write(frame, on: connection, wsi: wsi) else { return -1 }
            }
            if morePending || connection.pendingClose != nil {
                connection.requestWrite()
            }
            return 0
        }
        guard let close = connection.pendingClose else { return 0 }
        // Closing while the peer is still sending an oversize message would reset the
        // connection and lose the frames written before the close (the peer's kernel drops
        // its receive buffer on a reset). Wait until the rest has been read and dropped;
        // `received` re-arms then, and the close timeout bounds a peer that never stops. A frame
        // claiming more than `MessageAssembler.maxDrainBytes` is not waited for.
        if connection.assembler.closeWaitsForRest { return 0 }
        var reason = close.reason
        reason.withUnsafeMutableBufferPointer { buffer in
            lws_close_reason(wsi, lws_close_status(rawValue: UInt32(close.code)), buffer.baseAddress, buffer.count)
        }
        return -1
    }
}
