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
    /// handling both HTTP and WebSocket callbacks, with `PerSessionData` as its
    /// per-session user data, plus the terminator.
    func makeProtocols(_ allocations: CAllocations) -> UnsafeMutablePointer<lws_protocols> {
        let protocols = allocations.array(of: lws_protocols.self, count: 2)
        protocols[0].name = UnsafePointer(allocations.string(configuration.subprotocol))
        protocols[0].callback = serverCallback
        protocols[0].per_session_data_size = PerSessionData.size
        // Each WebSocket connection's receive buffer (lws allocates it at the upgrade; 0 would
        // mean `pt_serv_buf_size`, 32 KiB). Viewers send messages of a few hundred bytes; a
        // bigger one (a `publish` up to `maxMessageBytes`) arrives in 2 KiB pieces, which the
        // connection's `MessageAssembler` joins. Measured: 6.2-6.4 KiB resident per idle viewer
        // against 8.2-8.4 KiB with 32 KiB (docs/performance.md, "Memory per idle viewer").
        protocols[0].rx_buffer_size = 2048
        // What one send may carry. lws caps each send at `tx_packet_size`, or when that is 0 at
        // `rx_buffer_size`: without this, a 100 KB snapshot would go out 2 KiB per writable
        // callback (ingest100 measured a 5x worse hover p99 so). 32 KiB, `pt_serv_buf_size`, as
        // before the receive buffer shrank.
        protocols[0].tx_packet_size = WebSocketServer.maxBytesPerSend
        return protocols
    }

    /// Dispatches one libwebsockets callback.
    /// - Note: service thread only (or the creating thread during `lws_create_context`).
    func handle(wsi: OpaquePointer, reason: lws_callback_reasons, user: UnsafeMutableRawPointer?,
                input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        let session = PerSessionData(user)
        switch reason {
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            loop.drain()
            return 0
        case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
            return confirmUpgrade(wsi, input: input)
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            return acceptsUpgrade(wsi) ? 0 : 1
        case LWS_CALLBACK_ESTABLISHED:
            return opened(wsi, session: session)
        case LWS_CALLBACK_RECEIVE:
            guard let connection = session.connection else { return 0 }
            received(connection, wsi: wsi, input: input, length: length)
            return 0
        case LWS_CALLBACK_RECEIVE_PONG:
            if let connection = session.connection { heard(from: connection) }
            return 0
        case LWS_CALLBACK_SERVER_WRITEABLE:
            guard let connection = session.connection else { return 0 }
            return writable(connection, wsi: wsi)
        case LWS_CALLBACK_CLOSED:
            closed(session.detachConnection())
            return 0
        case LWS_CALLBACK_HTTP:
            return handleHTTP(wsi, session: session, input: input, length: length)
        case LWS_CALLBACK_HTTP_BODY:
            return httpBody(session, input: input, length: length)
        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            return httpBodyCompletion(session)
        case LWS_CALLBACK_HTTP_WRITEABLE:
            return httpWritable(wsi, session: session)
        case LWS_CALLBACK_HTTP_FILE_COMPLETION:
            return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
        case LWS_CALLBACK_HTTP_DROP_PROTOCOL, LWS_CALLBACK_CLOSED_HTTP, LWS_CALLBACK_WS_SERVER_DROP_PROTOCOL:
            // The binding (and with it the user data) goes away: the request in progress is
            // abandoned, and a responder still holding it finds nothing.
            session.detachExchange()
            return 0
        case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
            return filterConnection(user)
        case LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED:
            admitConnection(wsi)
            return 0
        case LWS_CALLBACK_RAW_ADOPT:
            return refuseRawConnection(wsi)
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            sanitizePeerClose(input, length: length)
            session.connection?.peerClosed = true
            return 0
        case LWS_CALLBACK_WSI_DESTROY:
            admission.release(wsi)
            // The last callback with this user data; normally both slots are empty by now.
            session.detachExchange()
            closed(session.detachConnection())
            return 0
        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
    }

    /// `HTTP_CONFIRM_UPGRADE`: a WebSocket handshake is answered with an HTTP response instead
    /// of `101` when it is not on `webSocketPath` (404), the server is shutting down (503), or
    /// the delegate refuses it. The response is written now, and the connection closes once it
    /// is out. Other upgrades (`h2c`) are left to libwebsockets.
    private func confirmUpgrade(_ wsi: OpaquePointer, input: UnsafeMutableRawPointer?) -> Int32 {
        guard let input = input,
              String(cString: input.assumingMemoryBound(to: CChar.self)).lowercased() == "websocket" else { return 0 }
        let path = RequestHeadReader.path(wsi, input: nil, length: 0, method: "GET")
        let refusal: HTTPResponse?
        if isShuttingDown {
            refusal = .text("shutting down\n", status: 503)
        } else if path != configuration.webSocketPath {
            WebSocketLog.log(.debug, "refusing WebSocket upgrade on \(path)")
            refusal = .text("no WebSocket endpoint here\n", status: 404)
        } else if let tooLarge = headRefusal(wsi) {
            refusal = tooLarge
        } else if let full = webSocketCapRefusal() {
            refusal = full
        } else {
            refusal = delegate?.webSocketServer(self, shouldAcceptUpgrade: headReader.request(wsi, method: "GET", path: path))
        }
        guard let response = refusal else { return 0 }
        if !writeWholeResponse(wsi, response) {
            WebSocketLog.log(.info, "could not write the refusal of a WebSocket upgrade")
        }
        return -1
    }

    /// Backstop for `FILTER_PROTOCOL_CONNECTION` (`confirmUpgrade` answers these first):
    /// upgrades are accepted on `webSocketPath` only, and not during shutdown.
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

    /// `ESTABLISHED`: a connection object, kept in the wsi's user data until `CLOSED`.
    /// The handshake's headers are still in libwebsockets' table here (it drops them after this
    /// callback): they are copied onto the connection.
    private func opened(_ wsi: OpaquePointer, session: PerSessionData) -> Int32 {
        let path = RequestHeadReader.path(wsi, input: nil, length: 0, method: "GET")
        let handshake = headReader.request(wsi, method: "GET", path: path)
        let connection = WebSocketConnection(id: nextConnectionID,
                                             remoteAddress: ListenSupport.peerAddress(fd: Int32(lws_get_socket_fd(wsi))),
                                             handshake: handshake, server: self, wsi: wsi,
                                             maxMessageSize: configuration.maxMessageSize)
        connection.directSocket = directSocket(for: wsi)
        guard session.attach(connection) else {
            WebSocketLog.log(.error, "no per-session user data for a new WebSocket; dropping it")
            return -1
        }
        nextConnectionID += 1
        connections[connection.id] = connection
        delegate?.webSocketServer(self, didOpen: connection)
        if isShuttingDown {
            connection.close(code: shutdownCloseCode, reason: "server shutting down")
        }
        return 0
    }

    /// `RECEIVE`: one chunk into the assembler (inflated first when the message is compressed);
    /// a whole message goes to the delegate.
    private func received(_ connection: WebSocketConnection, wsi: OpaquePointer, input: UnsafeMutableRawPointer?, length: Int) {
        heard(from: connection)   // a peer that talks is alive: its silence starts over
        let chunk = UnsafeRawBufferPointer(start: length > 0 ? input : nil, count: length > 0 ? length : 0)
        let binary = lws_frame_is_binary(wsi) != 0
        let final = lws_is_final_fragment(wsi) != 0
        if !connection.receivingMessage {
            connection.receivingMessage = true
            connection.messageCompressed = configuration.permessageDeflate && (lws_get_reserved_bits(wsi) & 0x40) != 0
        }
        if final { connection.receivingMessage = false }
        let event: MessageAssembler.Event
        if connection.messageCompressed {
            guard let inflated = inflate(chunk, binary: binary, final: final, on: connection) else { return }
            event = inflated
        } else {
            event = connection.assembler.append(chunk, binary: binary, final: final,
                                                remainingInFrame: Int(lws_remaining_packet_payload(wsi)))
        }
        if connection.pendingClose != nil {
            // A close waiting for the rest of an oversize message can go out now (see `writable`).
            if !connection.assembler.closeWaitsForRest { connection.requestWrite() }
            return
        }
        switch event {
        case .none:
            break
        case .message(let message):
            if configuration.permessageDeflate, case .text(let bytes) = message, !WebSocketServer.isUTF8(bytes) {
                // libwebsockets checks text itself only without permessage-deflate (see `applyLimits`).
                WebSocketLog.log(.info, "connection \(connection.id) sent a text message that is not UTF-8")
                connection.close(code: WebSocketCloseCode.invalidPayload, reason: "invalid UTF-8")
                return
            }
            delegate?.webSocketServer(self, connection: connection, didReceive: message)
        case .exceededLimit:
            WebSocketLog.log(.info, "connection \(connection.id) sent a message over \(configuration.maxMessageSize) bytes")
            delegate?.webSocketServer(self, connectionDidExceedMessageSize: connection)
            if connection.messageCompressed && connection.pendingClose == nil {
                // The rest is dropped uninflated, which leaves the inflater unusable.
                connection.close(code: WebSocketCloseCode.messageTooBig, reason: "message too large")
            }
        }
    }

    /// `CLOSED` (or `WSI_DESTROY` without it): the connection taken back from the user data,
    /// nil when that already happened.
    private func closed(_ connection: WebSocketConnection?) {
        guard let connection = connection else { return }
        connections[connection.id] = nil
        connection.wsi = nil
        delegate?.webSocketServer(self, didClose: connection)
        if isShuttingDown && connections.isEmpty {
            loop.requestStop()
        }
    }
}
