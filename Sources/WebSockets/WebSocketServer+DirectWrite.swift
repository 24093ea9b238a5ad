import CLibWebsockets
import Glibc

/// Writing frames straight to a plain connection's socket.
///
/// Why: `lws_write` for one WebSocket message walks libwebsockets' role dispatch, its
/// extension hooks and `lws_issue_raw` before it reaches `send()`, and every frame of a fan-out
/// pays it (its write path was 5.8 % of the server's samples at 1,000 viewers). A server frame
/// is a fixed header and the payload (RFC 6455: FIN set, unmasked, no extension on these
/// connections), so for a connection whose bytes go to its socket as they are — no TLS, not a
/// stream inside an HTTP/2 connection, no permessage-deflate — the server frames it itself and
/// sends it with one `send()`. What the kernel does not take is handed to libwebsockets as a
/// raw write (`LWS_WRITE_HTTP`, which the WebSocket role passes to `lws_issue_raw` unchanged):
/// lws keeps the rest and finishes it when the socket drains, exactly as after a partial write
/// of its own, and asks for no writable callback of ours until it has.
extension WebSocketServer {
    /// The most one send carries: libwebsockets' cap (the protocol's `tx_packet_size`) and the
    /// largest direct write, so that a larger frame goes out in lws's pieces, one per writable
    /// callback, and cannot hold the other viewers back.
    static let maxBytesPerSend = 32 * 1024

    /// How a direct write went.
    enum DirectWrite {
        /// The kernel took every byte.
        case whole
        /// The kernel took part (or none); libwebsockets holds the rest and sends it next.
        case restKept
        /// The socket failed (or lws could not keep the rest): the connection closes.
        case failed
    }

    /// The socket `connection`'s frames may be sent to directly, or -1: for a plain WebSocket
    /// connection of a server without permessage-deflate. Decided once, when it opens.
    func directSocket(for wsi: OpaquePointer) -> Int32 {
        guard !configuration.permessageDeflate, lws_is_ssl(wsi) == 0, lws_get_network_wsi(wsi) == wsi else { return -1 }
        return Int32(lws_get_socket_fd(wsi))
    }

    /// Sends `count` bytes from `start` — whole frames, headers included — on `socket`; what
    /// the kernel does not take goes to libwebsockets, which keeps it for the next writable
    /// moment. - Precondition: lws holds nothing unsent for `wsi` (`lws_partial_buffered`),
    /// so these bytes cannot overtake earlier ones.
    /// - Complexity: one `send()`; one `lws_write` more when the socket is full.
    func sendDirect(_ start: UnsafeMutablePointer<UInt8>, count: Int, socket: Int32, wsi: OpaquePointer) -> DirectWrite {
        let sent = Glibc.send(socket, start, count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
        if sent == count { return .whole }
        if sent < 0 {
            let error = errno
            guard error == EAGAIN || error == EWOULDBLOCK || error == EINTR else { return .failed }
        }
        let taken = max(0, sent)
        return cc_lws_write(wsi, start + taken, count - taken, Int32(LWS_WRITE_HTTP.rawValue)) >= 0 ? .restKept : .failed
    }
}

/// The header of a server frame (RFC 6455 §5.2: FIN set, no mask), written in front of its payload.
enum ServerFrameHeader {
    /// The header a frame of `count` payload bytes needs: 2 bytes up to 125, 4 up to 65,535, else 10.
    static func bytes(for count: Int) -> Int { count < 126 ? 2 : count < 65_536 ? 4 : 10 }

    /// Writes the header of a frame of `count` payload bytes at `base`.
    /// - Returns: the header's length, `bytes(for: count)`.
    @discardableResult
    static func write(at base: UnsafeMutablePointer<UInt8>, count: Int, isBinary: Bool) -> Int {
        base[0] = 0x80 | (isBinary ? 0x2 : 0x1)
        if count < 126 {
            base[1] = UInt8(count)
            return 2
        }
        if count < 65_536 {
            base[1] = 126
            base[2] = UInt8(count >> 8)
            base[3] = UInt8(count & 0xFF)
            return 4
        }
        base[1] = 127
        for index in 0..<8 { base[2 + index] = UInt8(truncatingIfNeeded: UInt64(count) >> (56 - 8 * UInt64(index))) }
        return 10
    }
}
