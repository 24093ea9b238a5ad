import CLibWebsockets

/// One accepted WebSocket connection of a `WebSocketServer`.
///
/// The object stays valid after the connection closes (calls then do
/// nothing), so it can be used as a dictionary key by the delegate.
///
/// While open, the connection is retained by its wsi's per-session user data, which is how the
/// callbacks find it.
///
/// - Note: service thread only, except `id` and `remoteAddress`. Debug builds check this.
public final class WebSocketConnection: Hashable, CustomStringConvertible {
    /// Unique per server, increasing in accept order.
    public let id: Int
    /// The peer, e.g. "127.0.0.1:53422".
    public let remoteAddress: String

    unowned let server: WebSocketServer
    /// The lws connection; nil once closed.
    var wsi: OpaquePointer?
    var assembler: MessageAssembler
    /// A writable callback was requested and has not arrived yet.
    var writeArmed = false
    /// Frames queued with `send(_:)`, written before the delegate is asked.
    var directQueue = FIFOQueue<OutboundFrame>()
    /// The close queued by `close(code:reason:)`.
    var pendingClose: (code: UInt16, reason: [UInt8])?
    /// Frames written since the close was queued (bounded, so a close always happens).
    var framesSinceClose = 0
    private var storedUserData: AnyObject?

    init(id: Int, remoteAddress: String, server: WebSocketServer, wsi: OpaquePointer, maxMessageSize: Int) {
        self.id = id
        self.remoteAddress = remoteAddress
        self.server = server
        self.wsi = wsi
        self.assembler = MessageAssembler(maxMessageSize: maxMessageSize)
    }

    /// Free for the delegate: attach its per-connection state here.
    /// - Note: service thread only.
    public var userData: AnyObject? {
        get {
            server.loop.assertServiceThread()
            return storedUserData
        }
        set {
            server.loop.assertServiceThread()
            storedUserData = newValue
        }
    }

    /// Asks for a writable callback; the server then calls the delegate's
    /// `nextFrameFor` until it returns nil. Idempotent and cheap.
    /// - Note: service thread only.
    public func requestWrite() {
        server.loop.assertServiceThread()
        server.loop.requestWritable(wsi, armed: &writeArmed)
    }

    /// Queues one frame for this connection only, ahead of the delegate's frames.
    /// - Note: service thread only.
    public func send(_ frame: OutboundFrame) {
        server.loop.assertServiceThread()
        guard wsi != nil, pendingClose == nil else { return }
        directQueue.append(frame)
        requestWrite()
    }

    /// Queues a close: frames already pending are written first, then the
    /// close frame with `code` and `reason` (truncated to 123 bytes). A code
    /// that may not be sent (1005, 1006, …) becomes 1000.
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

    /// Whether frames queued with `send(_:)` are waiting.
    var hasDirectFrames: Bool { !directQueue.isEmpty }

    /// The next frame to write: direct frames first, then the delegate's.
    func nextFrame(delegate: WebSocketServerDelegate?) -> OutboundFrame? {
        if let frame = directQueue.popFirst() { return frame }
        if pendingClose != nil && framesSinceClose >= 64 { return nil }
        guard let frame = delegate?.webSocketServer(server, nextFrameFor: self) else { return nil }
        if pendingClose != nil { framesSinceClose += 1 }
        return frame
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
