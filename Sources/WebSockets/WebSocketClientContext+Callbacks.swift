import CLibWebsockets

/// The protocol callback of every client context.
let clientCallback: @convention(c) (OpaquePointer?, lws_callback_reasons, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int) -> Int32 = { wsi, reason, user, input, length in
    guard let wsi = wsi, let context = lws_get_context(wsi), let owner = lws_context_user(context) else { return 0 }
    let client = Unmanaged<WebSocketClientContext>.fromOpaque(owner).takeUnretainedValue()
    return client.handle(wsi: wsi, reason: reason, user: user, input: input, length: length)
}

extension WebSocketClientContext {
    /// Dispatches one libwebsockets callback. - Note: service thread only.
    func handle(wsi: OpaquePointer, reason: lws_callback_reasons, user: UnsafeMutableRawPointer?,
                input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        if reason == LWS_CALLBACK_EVENT_WAIT_CANCELLED {
            loop.drain()
            return 0
        }
        // Every wsi of a client context carries its connection as user data (see `begin`).
        guard let connection = WebSocketClientConnection.from(user: user) else { return 0 }
        switch reason {
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            connection.wsi = wsi
            connection.state = .open
            if connection.paused { _ = lws_rx_flow_control(wsi, 0) }
            connection.delegate?.webSocketClientDidConnect(connection)
            if connection.hasQueuedFrames || connection.closeCode != nil {
                connection.requestWrite()
            }
        case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
            // `input` is the `char **` write cursor into the handshake, `length` the room left.
            guard !connection.handshakeHeaders.isEmpty, let input = input else { break }
            let cursorSlot = input.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
            guard let start = cursorSlot.pointee else { break }
            var cursor: UnsafeMutablePointer<UInt8>? = start
            let end = start + length
            for field in connection.handshakeHeaders {
                if lws_add_http_header_by_name(wsi, field.name + ":", field.value, Int32(field.value.utf8.count), &cursor, end) != 0 {
                    WebSocketLog.log(.error, "client connection \(connection.id): handshake headers do not fit")
                    return -1
                }
            }
            cursorSlot.pointee = cursor
        case LWS_CALLBACK_CLIENT_FILTER_PRE_ESTABLISH:
            // The response headers are still available here, not after.
            connection.handshakeSubprotocol = WebSocketClientContext.header(wsi, WSI_TOKEN_PROTOCOL)
            connection.handshakeExtensions = WebSocketClientContext.header(wsi, WSI_TOKEN_EXTENSIONS)
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            var reasonText = "connection failed"
            if let input = input, length > 0 {
                reasonText = String(decoding: UnsafeRawBufferPointer(start: input, count: length), as: UTF8.self)
            } else if let input = input {
                reasonText = String(cString: input.assumingMemoryBound(to: CChar.self))
            }
            finish(connection, failure: reasonText)
        case LWS_CALLBACK_CLIENT_RECEIVE:
            // Anything received proves the connection alive: libwebsockets' idle timer (ping
            // after 300 s without a confirmation, hang up 10 s later) starts over. Without
            // this only pongs count, and a client that pauses reading right after its ping
            // hangs up on a server that is talking to it.
            lws_validity_confirmed(wsi)
            let chunk = UnsafeRawBufferPointer(start: length > 0 ? input : nil, count: max(0, length))
            let event = connection.assembler.append(chunk,
                                                    binary: lws_frame_is_binary(wsi) != 0,
                                                    final: lws_is_final_fragment(wsi) != 0,
                                                    remainingInFrame: Int(lws_remaining_packet_payload(wsi)))
            switch event {
            case .message(let message):
                connection.delegate?.webSocketClient(connection, didReceive: message)
            case .exceededLimit:
                WebSocketLog.log(.warn, "client connection \(connection.id) dropped a message over \(maxMessageSize) bytes")
            case .none:
                break
            }
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            return writable(connection, wsi: wsi)
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            if let input = input, length >= 2 {
                let bytes = input.assumingMemoryBound(to: UInt8.self)
                connection.peerCloseCode = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
            }
        case LWS_CALLBACK_CLIENT_CLOSED:
            finish(connection)
        case LWS_CALLBACK_WSI_DESTROY:
            // Covers connections that end without CLOSED / CONNECTION_ERROR. The last callback
            // for this wsi: libwebsockets gives the user data back.
            finish(connection)
            connection.reclaimFromWSI()
        default:
            break
        }
        return 0
    }

    /// A request/response header, while libwebsockets still holds the headers.
    static func header(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0, length < 4096 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token) > 0 else { return nil }
        return String(cString: buffer)
    }

    /// One frame per writable callback, then the close once the queue is empty.
    private func writable(_ connection: WebSocketClientConnection, wsi: OpaquePointer) -> Int32 {
        connection.writeArmed = false
        if let frame = connection.popFrame() {
            let count = frame.count
            let result = frame.storage.withUnsafeMutableBufferPointer { buffer in
                cc_lws_write(wsi, buffer.baseAddress! + lwsPre, count, frame.flags)
            }
            if result < 0 { return -1 }
            if connection.hasQueuedFrames || connection.closeCode != nil {
                connection.requestWrite()
            }
            return 0
        }
        if let code = connection.closeCode {
            lws_close_reason(wsi, lws_close_status(rawValue: UInt32(code)), nil, 0)
            return -1
        }
        return 0
    }
}
