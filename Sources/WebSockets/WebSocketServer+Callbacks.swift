import CLibWebsockets

/// The protocol callback for every server context: recovers the server from
/// the context user pointer and forwards to `handle`.
private let serverCallback: @convention(c) (OpaquePointer?, lws_callback_reasons, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int) -> Int32 = { wsi, reason, user, input, length in
    guard let wsi = wsi else { return 0 }
    guard let context = lws_get_context(wsi), let owner = lws_context_user(context) else {
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    let server = Unmanaged<WebSocketServer>.fromOpaque(owner).takeUnretainedValue()
    return server.handle(wsi: wsi, reason: reason, user: user, input: input, length: length)
}

extension WebSocketServer {
    /// Builds the protocol table: one protocol, named after the subprotocol,
    /// handling both HTTP and WebSocket callbacks, plus the terminator.
    func makeProtocols(_ allocations: CAllocations) -> UnsafeMutablePointer<lws_protocols> {
        let protocols = allocations.array(of: lws_protocols.self, count: 2)
        protocols[0].name = UnsafePointer(allocations.string(configuration.subprotocol))
        protocols[0].callback = serverCallback
        protocols[0].per_session_data_size = 0
        protocols[0].rx_buffer_size = 0
        return protocols
    }

    /// Dispatches one libwebsockets callback.
    /// - Note: service thread only (or the creating thread during `lws_create_context`).
    func handle(wsi: OpaquePointer, reason: lws_callback_reasons, user: UnsafeMutableRawPointer?,
                input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        switch reason {
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            loop.drain()
            return 0
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            return acceptsUpgrade(wsi) ? 0 : 1
        case LWS_CALLBACK_ESTABLISHED:
            opened(wsi)
            return 0
        case LWS_CALLBACK_RECEIVE:
            received(wsi, input: input, length: length)
            return 0
        case LWS_CALLBACK_SERVER_WRITEABLE:
            return writable(wsi)
        case LWS_CALLBACK_CLOSED:
            closed(wsi)
            return 0
        case LWS_CALLBACK_HTTP:
            return handleHTTP(wsi, input: input, length: length)
        case LWS_CALLBACK_HTTP_WRITEABLE:
            return httpWritable(wsi)
        case LWS_CALLBACK_HTTP_FILE_COMPLETION:
            return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
        case LWS_CALLBACK_CLOSED_HTTP:
            httpResponses[wsi] = nil
            return 0
        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
    }

    /// Upgrades are accepted on `webSocketPath` only, and not during shutdown.
    private func acceptsUpgrade(_ wsi: OpaquePointer) -> Bool {
        if isShuttingDown { return false }
        let length = Int(lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI))
        guard length > 0, length < 4096 else { return false }
        var buffer = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_copy(wsi, &buffer, Int32(buffer.count), WSI_TOKEN_GET_URI) >= 0 else { return false }
        let path = String(cString: buffer)
        if path != configuration.webSocketPath {
            WebSocketLog.log(.debug, "refusing WebSocket upgrade on \(path)")
            return false
        }
        return true
    }

    private func opened(_ wsi: OpaquePointer) {
        let connection = WebSocketConnection(id: nextConnectionID,
                                             remoteAddress: ListenSupport.peerAddress(fd: Int32(lws_get_socket_fd(wsi))),
                                             server: self, wsi: wsi,
                                             maxMessageSize: configuration.maxMessageSize)
        nextConnectionID += 1
        connections[wsi] = connection
        delegate?.webSocketServer(self, didOpen: connection)
        if isShuttingDown {
            connection.close(code: shutdownCloseCode, reason: "server shutting down")
        }
    }

    private func received(_ wsi: OpaquePointer, input: UnsafeMutableRawPointer?, length: Int) {
        guard let connection = connections[wsi] else { return }
        let chunk = UnsafeRawBufferPointer(start: length > 0 ? input : nil, count: length > 0 ? length : 0)
        let event = connection.assembler.append(chunk,
                                                binary: lws_frame_is_binary(wsi) != 0,
                                                final: lws_is_final_fragment(wsi) != 0,
                                                remainingInFrame: Int(lws_remaining_packet_payload(wsi)))
        if connection.pendingClose != nil {
            // A close waiting for the rest of an oversize message can go out now.
            if !connection.assembler.isDiscarding { connection.requestWrite() }
            return
        }
        switch event {
        case .none:
            break
        case .message(let message):
            delegate?.webSocketServer(self, connection: connection, didReceive: message)
        case .exceededLimit:
            WebSocketLog.log(.info, "connection \(connection.id) sent a message over \(configuration.maxMessageSize) bytes")
            delegate?.webSocketServer(self, connectionDidExceedMessageSize: connection)
        }
    }

    /// One frame per writable callback; re-armed while the delegate has more pending;
    /// the queued close once nothing is left.
    private func writable(_ wsi: OpaquePointer) -> Int32 {
        guard let connection = connections[wsi] else { return 0 }
        connection.writeArmed = false
        if let frame = connection.nextFrame(delegate: delegate) {
            let flags = cc_write_flags(1, frame.isBinary ? 1 : 0, 1)
            if cc_lws_write(wsi, frame.payload, frame.count, flags) < 0 {
                WebSocketLog.log(.info, "write failed on connection \(connection.id)")
                return -1
            }
            if connection.hasDirectFrames || connection.pendingClose != nil
                || delegate?.webSocketServer(self, hasFrameFor: connection) == true {
                connection.requestWrite()
            }
            return 0
        }
        if let close = connection.pendingClose {
            // Closing while the peer is still sending an oversize message would reset the
            // connection and lose the frames written before the close (the peer's kernel drops
            // its receive buffer on a reset). Wait until the rest has been read and dropped;
            // `received` re-arms then, and the close timeout bounds a peer that never stops.
            if connection.assembler.isDiscarding { return 0 }
            var reason = close.reason
            reason.withUnsafeMutableBufferPointer { buffer in
                lws_close_reason(wsi, lws_close_status(rawValue: UInt32(close.code)), buffer.baseAddress, buffer.count)
            }
            return -1
        }
        return 0
    }

    private func closed(_ wsi: OpaquePointer) {
        guard let connection = connections.removeValue(forKey: wsi) else { return }
        connection.wsi = nil
        connection.directQueue.removeAll()
        delegate?.webSocketServer(self, didClose: connection)
        if isShuttingDown && connections.isEmpty {
            loop.requestStop()
        }
    }
}
