import CLibWebsockets
import Foundation

/// The server's limits (`WebSocketServerLimits`) and where libwebsockets enforces them.
///
/// - Request heads: one header table per connection (the pool is as large as the file limit, so
///   slow clients never make others wait for a table), held at most `headerTimeout` seconds.
/// - Idle WebSockets: the idle sweep (`WebSocketServer+Idle.swift`) pings after `pingInterval`
///   seconds without a message or pong and hangs up after `idleTimeout`.
/// - Connections: refused at accept (`FILTER_NETWORK_CONNECTION`) with a `503` written straight
///   to the socket when the accepted descriptor is within `reservedFileDescriptors` of the
///   process limit, or the peer's address already has `maxConnectionsPerAddress` open. The
///   socket is always accepted and closed, so a full process never leaves the listener readable
///   (libwebsockets 4.1 would retry a failing `accept` in a loop, logging each time).
/// - WebSockets: a handshake beyond `maxWebSockets` open ones is answered `503`.
/// Refusals are logged at most once a second per reason, with their count.
extension WebSocketServer {
    /// Sets the context fields behind the limits.
    func applyLimits(to info: inout lws_context_creation_info, allocations: CAllocations, fileLimit: Int) {
        let limits = configuration.limits
        fileDescriptorLimit = fileLimit
        info.max_http_header_pool = 0
        info.max_http_header_pool2 = UInt32(max(64, min(fileLimit, 1 << 20)))
        info.max_http_header_data = 0
        info.max_http_header_data2 = UInt32(max(1024, limits.headerBufferBytes))
        info.timeout_secs_ah_idle = UInt32(max(1, limits.headerTimeout))
        // libwebsockets stops storing a header (or the target) at its token limit and reads on, so
        // an oversize one is kept one byte over our bound — enough for `headRefusal` to see it.
        let tokenLimits = allocations.array(of: lws_token_limits.self, count: 1)
        withUnsafeMutableBytes(of: &tokenLimits.pointee.token_limit) { raw in
            let slots = raw.bindMemory(to: UInt16.self)
            for index in slots.indices { slots[index] = UInt16(clamping: limits.maxHeaderBytes + 1) }
            for token in RequestHeadReader.uriTokens + [WSI_TOKEN_HTTP_URI_ARGS] where Int(token.rawValue) < slots.count {
                slots[Int(token.rawValue)] = UInt16(clamping: limits.maxURIBytes + 1)
            }
        }
        info.token_limits = UnsafePointer(tokenLimits)
        // libwebsockets' validity timer stays disarmed (hang-up 0): the idle sweep pings and
        // hangs up instead (`WebSocketServer+Idle.swift` says why).
        let policy = allocations.array(of: lws_retry_bo_t.self, count: 1)
        policy.pointee.secs_since_valid_ping = 0
        policy.pointee.secs_since_valid_hangup = 0
        info.retry_and_idle_policy = UnsafePointer(policy)
        // Text messages (also fragmented) that are not UTF-8 close with 1007. With permessage-deflate
        // libwebsockets hands the payload over compressed, so `received` checks the inflated text.
        if !configuration.permessageDeflate {
            info.options |= UInt64(LWS_SERVER_OPTION_VALIDATE_UTF8)
        }
    }

    /// `FILTER_NETWORK_CONNECTION`: a connection just accepted (`args` holds its descriptor and
    /// peer). Nonzero refuses it: libwebsockets closes the socket.
    /// - Note: service thread only.
    func filterConnection(_ args: UnsafeMutableRawPointer?) -> Int32 {
        guard let args = args?.assumingMemoryBound(to: lws_filter_network_conn_args.self) else { return 0 }
        let fd = args.pointee.accept_fd
        let address = WebSocketServer.ipAddress(of: &args.pointee.cli_addr)
        pendingPeerAddress = nil
        let limits = configuration.limits
        if Int(fd) >= fileDescriptorLimit - limits.reservedFileDescriptors {
            refuseAtAccept(fd, .fileDescriptors)
            return 1
        }
        if let cap = limits.maxConnectionsPerAddress, admission.count(for: address) >= cap {
            refuseAtAccept(fd, .perAddress)
            return 1
        }
        pendingPeerAddress = address
        return 0
    }

    /// `SERVER_NEW_CLIENT_INSTANTIATED`: the accepted connection has its wsi; it counts against
    /// its peer's address until `WSI_DESTROY`.
    func admitConnection(_ wsi: OpaquePointer) {
        let address = pendingPeerAddress ?? ListenSupport.peerIP(fd: Int32(lws_get_socket_fd(wsi)))
        pendingPeerAddress = nil
        admission.admit(wsi, address: address)
    }

    /// The `503` for a handshake beyond `maxWebSockets`, nil when there is room.
    func webSocketCapRefusal() -> HTTPResponse? {
        guard let cap = configuration.limits.maxWebSockets, connections.count >= cap else { return nil }
        if let line = admission.refused(.webSockets) {
            WebSocketLog.log(.warn, line + " (\(cap) open)")
        }
        return HTTPResponse(status: 503, contentType: "text/plain; charset=utf-8", body: Array("too many viewers\n".utf8),
                            headers: [HTTPHeaderField(name: "Retry-After", value: "5")])
    }

    /// The `414` for a request target over `maxURIBytes`, the `431` for header values over
    /// `maxHeaderBytes` (logged at most once a second each); nil for a head within both.
    func headRefusal(_ wsi: OpaquePointer) -> HTTPResponse? {
        let limits = configuration.limits
        var target = Int(lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_URI_ARGS))
        for token in RequestHeadReader.uriTokens { target += Int(lws_hdr_total_length(wsi, token)) }
        if target > limits.maxURIBytes {
            if let line = admission.refused(.longTarget) { WebSocketLog.log(.info, line) }
            return .text("request target over \(limits.maxURIBytes) bytes\n", status: 414)
        }
        var headerBytes = 0
        for (token, _) in RequestHeadReader.headerTokens { headerBytes += Int(lws_hdr_total_length(wsi, token)) }
        headerBytes += headReader.customHeaderBytes(wsi)
        if headerBytes > limits.maxHeaderBytes {
            if let line = admission.refused(.largeHeaders) { WebSocketLog.log(.info, line) }
            return .text("request headers over \(limits.maxHeaderBytes) bytes\n", status: 431)
        }
        return nil
    }

    /// Answers `503` on a just-accepted socket that libwebsockets will close: reads what the
    /// client already sent (so the close is not a reset that would destroy the answer), writes
    /// the answer without blocking, and logs at most once a second.
    private func refuseAtAccept(_ fd: Int32, _ reason: ConnectionAdmission.Refusal) {
        var scratch = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<16 where recv(fd, &scratch, scratch.count, Int32(MSG_DONTWAIT)) > 0 {}
        let body = "server busy: \(reason.rawValue)\n"
        let answer = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\nRetry-After: 5\r\nConnection: close\r\n\r\n" + body
        _ = answer.withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
        if let line = admission.refused(reason) {
            WebSocketLog.log(.warn, line)
        }
    }

    /// `RAW_ADOPT`: libwebsockets 4.1 turns a `CONNECT` request into a raw socket with no
    /// timeout (it would stay open, unanswered, forever). The server proxies nothing: it answers
    /// `405` and closes. The request head was consumed, so the close does not reset the answer.
    func refuseRawConnection(_ wsi: OpaquePointer) -> Int32 {
        let body = "method not allowed: this server is no proxy\n"
        let answer = "HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, HEAD\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
        let fd = Int32(lws_get_socket_fd(wsi))
        if fd >= 0 {
            _ = answer.withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
        }
        WebSocketLog.log(.info, "answered a CONNECT request with 405")
        return -1
    }

    /// A peer's IP address from a `sockaddr_storage` (IPv4-mapped IPv6 as plain IPv4).
    static func ipAddress(of storage: UnsafeMutablePointer<sockaddr_storage>) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(storage.pointee.ss_family) {
        case AF_INET:
            return storage.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                var addr = sin.pointee.sin_addr
                inet_ntop(AF_INET, &addr, &text, socklen_t(text.count))
                return String(cString: text)
            }
        case AF_INET6:
            return storage.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
                var addr = sin6.pointee.sin6_addr
                inet_ntop(AF_INET6, &addr, &text, socklen_t(text.count))
                let ip = String(cString: text)
                return ip.hasPrefix("::ffff:") && ip.contains(".") ? String(ip.dropFirst(7)) : ip
            }
        default:
            return "unknown"
        }
    }

    /// `WS_PEER_INITIATED_CLOSE`: the peer's close frame, which libwebsockets echoes. It already
    /// turns most codes an endpoint may not send into 1002; this covers the rest (codes from
    /// 5000 up), so an invalid code is never echoed.
    func sanitizePeerClose(_ input: UnsafeMutableRawPointer?, length: Int) {
        guard let payload = input?.assumingMemoryBound(to: UInt8.self), length >= 2 else { return }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        if !WebSocketCloseCode.isValidReceived(code) {
            payload[0] = UInt8(WebSocketCloseCode.protocolError >> 8)
            payload[1] = UInt8(WebSocketCloseCode.protocolError & 0xFF)
        }
    }
}
