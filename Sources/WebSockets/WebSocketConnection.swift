import CLibWebsockets

/// One accepted WebSocket connection of a `WebSocketServer`.
///
/// The connection holds no frames: when it is writable the server asks the delegate for the
/// next one. The object stays valid after the connection closes (calls then do nothing), so it
/// can be used as a dictionary key by the delegate.
///
/// While open, the connection is retained by its wsi's per-session user data, which is how the
/// callbacks find it.
///
/// - Note: service thread only, except `id`, `remoteAddress` and the handshake (`handshake`,
///   `authorization`, `origin`). Debug builds check this.
public final class WebSocketConnection: Hashable, CustomStringConvertible {
    // What `writeNow` and every frame written read comes first, in declaration order (how
    // Swift lays out a class), so that a fan-out's visit to this connection touches one cache
    // line or two rather than three.
    /// The server this connection belongs to. It outlives its connections' use: every call
    /// that reaches it runs on the service thread, which the server owns and stops before it
    /// goes. Debug builds (every test) hold it `unowned`, so a use after the server is gone
    /// traps; release builds hold it `unowned(unsafe)`: loading the reference costs no retain
    /// and release, which for an object with a side table (the server is held weakly
    /// elsewhere) take the runtime's slow path — once per viewer per fan-out.
    #if DEBUG
    unowned let server: WebSocketServer
    #else
    unowned(unsafe) let server: WebSocketServer
    #endif
    /// The lws connection; nil once closed.
    var wsi: OpaquePointer?
    /// The socket frames are sent to directly (`WebSocketServer.sendDirect`), or -1 where they
    /// must go through `lws_write` (TLS, HTTP/2, permessage-deflate).
    var directSocket: Int32 = -1
    private var storedUserData: AnyObject?
    /// A writable callback was requested and has not arrived yet.
    var writeArmed = false
    /// A ping is due: the next writable callback writes it before any frame.
    var pingDue = false
    /// The idle sweep hung up on this connection (it closes in the next service pass).
    var hungUp = false
    /// The peer's close frame arrived (libwebsockets echoes it and closes; nothing more is
    /// written outside its callbacks).
    var peerClosed = false
    /// The close queued by `close(code:reason:)`.
    var pendingClose: (code: UInt16, reason: [UInt8])?
    /// Unique per server, increasing in accept order.
    public let id: Int
    /// The peer, e.g. "127.0.0.1:53422".
    public let remoteAddress: String
    /// The handshake request: its path, query, headers (those libwebsockets parses, and the
    /// configured custom ones) and the peer's IP address. Its body is empty.
    public let handshake: HTTPRequest

    var assembler: MessageAssembler
    /// Inflates this connection's compressed messages (permessage-deflate); made on the first one.
    var inflater: PermessageInflater?
    /// Whether a message is being received (its first chunk came, its last not yet).
    var receivingMessage = false
    /// Whether the message being received is compressed (RSV1 on its first frame).
    var messageCompressed = false
    /// Frames written since the close was queued (bounded, so a close always happens).
    var framesSinceClose = 0
    /// When the peer was last heard from (opened, a message chunk, a pong), on the coarse
    /// monotonic clock in ns (`WebSocketServer.idleClock`; the idle sweep compares it).
    var lastHeard = WebSocketServer.idleClock()
    /// A ping went out (or is due) for the current silence.
    var pinged = false

    init(id: Int, remoteAddress: String, handshake: HTTPRequest, server: WebSocketServer, wsi: OpaquePointer, maxMessageSize: Int) {
        self.id = id
        self.remoteAddress = remoteAddress
        self.handshake = handshake
        self.server = server
        self.wsi = wsi
        self.assembler = MessageAssembler(maxMessageSize: maxMessageSize)
    }

    /// The handshake's `Authorization` header, nil when it had none.
    public var authorization: String? { handshake.headers["authorization"] }
    /// The handshake's `Origin` header (browsers send it), nil when it had none.
    public var origin: String? { handshake.headers["origin"] }

    /// Free for the delegate: attach its per-connection state here.
    /// - Note: service thread only.
    public var userData: AnyObject? {
        // Read once per frame written: the check (and the load of the unowned server it needs,
        // a slow-path retain and release) only where it checks something, in debug builds.
        get {
            #if DEBUG
            server.loop.assertServiceThread()
            #endif
            return storedUserData
        }
        set {
            #if DEBUG
            server.loop.assertServiceThread()
            #endif
            storedUserData = newValue
        }
    }

    /// Asks for a writable callback; the server then asks the delegate for the next frame, and
    /// keeps asking after each write while the delegate reports more pending. Idempotent and cheap.
    /// - Note: service thread only.
    public func requestWrite() {
        unowned(unsafe) let loop = server.loop   // no retain, no release (see `writeNow`)
        loop.assertServiceThread()
        loop.requestWritable(wsi, armed: &writeArmed)
    }

    /// Writes the delegate's next frame at once when that is safe, else asks for a writable
    /// callback as `requestWrite` does.
    ///
    /// At once means between two service passes (`ServiceLoop.isAfterPass`, where the server
    /// wakes viewers for a selection), on a connection with nothing in flight: no writable
    /// callback requested, nothing left over from a partial write, no ping due, no close
    /// queued or received, not hung up; and without permessage-deflate (`WebSocketServer.writesNow`).
    /// A selection's fan-out then costs one `send` per viewer, without arming and
    /// disarming `POLLOUT` (two `epoll_ctl`) and a poll to be told what is already known; a write
    /// that does not go through whole is kept and finished by libwebsockets as always.
    /// - Note: service thread only.
    public func writeNow() {
        // The server and its loop have side tables (something holds each weakly), so every
        // retain and release of them takes the runtime's slow path: these locals are
        // `unowned(unsafe)`, which takes none — once per viewer per fan-out. Both are alive for
        // the call (it runs on the loop's thread, which the server stops before it goes).
        unowned(unsafe) let server = self.server
        unowned(unsafe) let loop = server.loop
        loop.assertServiceThread()
        guard server.writesNow, loop.isAfterPass, !server.isWritingNow, !writeArmed, !pingDue,
              pendingClose == nil, !peerClosed, !hungUp, let wsi, lws_partial_buffered(wsi) == 0 else {
            loop.requestWritable(wsi, armed: &writeArmed)
            return
        }
        // Called through a +0 reference: a plain call would retain and release the server
        // around it (the slow path, above).
        Unmanaged.passUnretained(server)._withUnsafeGuaranteedRef { $0.writeNow(self, wsi: wsi) }
    }

    /// Queues a close: the delegate's pending frames are written first (at most
    /// `maxFramesAfterClose` of them), then the close frame with `code` and `reason` (truncated
    /// to 123 bytes). A code that may not be sent (1005, 1006, …) becomes 1000.
    /// A connection that cannot get its close out within the configured close
    /// timeout is dropped.
    /// - Note: service thread only.
    public func close(code: UInt16, reason: String) {
        server.loop.assertServiceThread()
        guard let wsi = wsi, pendingClose == nil else { return }
        pendingClose = (WebSocketCloseCode.sendable(code), Array(reason.utf8.prefix(123)))
        if !server.loop.isTearingDown {
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, Int32(max(1, server.configuration.closeTimeout)))
        }
        requestWrite()
    }

    /// True while the connection is open.
    /// - Note: service thread only.
    public var isOpen: Bool {
        server.loop.assertServiceThread()
        return wsi != nil
    }

    /// True when the socket cannot take more data right now (`lws_send_pipe_choked`).
    /// A closed connection counts as choked.
    /// - Note: service thread only.
    public var isChoked: Bool {
        server.loop.assertServiceThread()
        guard let wsi = wsi else { return true }
        return lws_send_pipe_choked(wsi) != 0
    }

    /// True while libwebsockets holds the unsent rest of the last frame (`lws_partial_buffered`):
    /// the kernel did not take all of it. No writable callback comes until lws has sent it.
    /// A closed connection has none.
    /// - Note: service thread only.
    public var hasPartialWrite: Bool {
        server.loop.assertServiceThread()
        guard let wsi = wsi else { return false }
        return lws_partial_buffered(wsi) != 0
    }

    /// Bytes the kernel still holds in this connection's send queue: written but not yet
    /// acknowledged by the peer (`TIOCOUTQ`). With `hasPartialWrite`, what a viewer that stopped
    /// reading leaves unsent. 0 when closed or when the kernel does not say.
    /// - Complexity: one `ioctl`.
    /// - Note: service thread only.
    public var kernelUnsentBytes: Int {
        server.loop.assertServiceThread()
        guard let wsi = wsi else { return 0 }
        return Int(max(0, cc_socket_unsent_bytes(Int32(lws_get_socket_fd(wsi)))))
    }

    /// Whether the delegate may still be asked for a frame: always, until a close was queued
    /// and `maxFramesAfterClose` frames have gone out since.
    var mayTakeFrame: Bool { mayTakeFrame(afterPending: 0) }

    /// `mayTakeFrame` with `pending` frames already taken and not yet written (a batch).
    func mayTakeFrame(afterPending pending: Int) -> Bool {
        return pendingClose == nil || framesSinceClose + pending < server.configuration.maxFramesAfterClose
    }

    /// Frames written to this connection whose write libwebsockets could not hand to the kernel
    /// whole (it kept the rest, `hasPartialWrite` right after `lws_write`): a full socket, or a
    /// frame over the protocol's `tx_packet_size`. - Note: service thread only.
    public private(set) var framesLeftPartial = 0

    /// Writes that carried several frames in one send (`FrameBatch`). - Note: service thread only.
    public private(set) var batchedWrites = 0

    /// Writes that the server framed and sent on the socket itself rather than through
    /// `lws_write` (`WebSocketServer.sendDirect`). - Note: service thread only.
    public private(set) var directWrites = 0

    /// Counts one write of several frames.
    func didWriteBatch() { batchedWrites += 1 }

    /// Counts one write sent on the socket directly.
    func didWriteDirect() { directWrites += 1 }

    /// Counts one written frame against the bound on frames after a close, and whether lws kept
    /// part of it (`partial`).
    func didWriteFrame(partial: Bool) {
        if pendingClose != nil { framesSinceClose += 1 }
        if partial { framesLeftPartial += 1 }
    }

    public static func == (lhs: WebSocketConnection, rhs: WebSocketConnection) -> Bool {
        return lhs === rhs
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }

    public var description: String {
        return "WebSocketConnection(\(id), \(remoteAddress))"
    }
}
