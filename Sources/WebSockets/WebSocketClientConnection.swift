import CLibWebsockets
import Foundation

/// Receives the events of client connections.
///
/// - Note: called on the client context's service thread.
public protocol WebSocketClientDelegate: AnyObject {
    /// The handshake completed.
    func webSocketClientDidConnect(_ connection: WebSocketClientConnection)
    /// The connection could not be established; no other call follows.
    func webSocketClient(_ connection: WebSocketClientConnection, didFailToConnect reason: String)
    /// A complete (reassembled) message arrived.
    func webSocketClient(_ connection: WebSocketClientConnection, didReceive message: InboundMessage)
    /// The connection closed; `code` is the peer's close code when it sent one.
    func webSocketClient(_ connection: WebSocketClientConnection, didCloseWithCode code: UInt16?)
}

/// One outbound client frame, with its own buffer: a client masks the payload
/// in place while sending, so client buffers are never shared.
final class ClientFrame {
    var storage: [UInt8]
    let flags: Int32

    init(bytes: [UInt8], flags: Int32) {
        var storage = [UInt8](repeating: 0, count: lwsPre)
        storage.append(contentsOf: bytes)
        self.storage = storage
        self.flags = flags
    }

    var count: Int { return storage.count - lwsPre }
}

/// One WebSocket client connection of a `WebSocketClientContext`.
///
/// Sending is queued from any thread and written one frame per writable
/// callback on the service thread. The delegate is held strongly until the
/// connection fails or closes. The object is the wsi's user data: libwebsockets
/// hands it to every callback, and it is retained from `connect` until the
/// wsi is destroyed, so that pointer never dangles.
public final class WebSocketClientConnection: Hashable, CustomStringConvertible {
    enum State { case pending, connecting, open, closed }

    /// Unique within the process, increasing.
    public let id: Int
    public let host: String
    public let port: Int
    public let path: String
    public let subprotocol: String?
    /// The extra header fields the handshake carries.
    public let handshakeHeaders: [HTTPHeaderField]
    /// Whether the connection speaks TLS, and how it checks the server.
    public let tls: WebSocketClientTLS

    /// The subprotocol the server accepted (set at the handshake). - Note: service thread only.
    public var negotiatedSubprotocol: String? {
        owner.loop.assertServiceThread()
        return handshakeSubprotocol
    }
    /// The server's Sec-WebSocket-Extensions answer (set at the handshake). - Note: service thread only.
    public var negotiatedExtensions: String? {
        owner.loop.assertServiceThread()
        return handshakeExtensions
    }

    let owner: WebSocketClientContext
    var delegate: WebSocketClientDelegate?
    /// - Note: the fields below are service thread only.
    var handshakeSubprotocol: String?
    var handshakeExtensions: String?
    var state = State.pending
    var wsi: OpaquePointer?
    var queue = FIFOQueue<ClientFrame>()
    /// The +1 reference lent to libwebsockets as the wsi's user data, until `WSI_DESTROY`.
    var lentToWSI = false
    var closeCode: UInt16?
    var peerCloseCode: UInt16?
    var paused = false
    var writeArmed = false
    var assembler: MessageAssembler
    var allocations: CAllocations?

    init(id: Int, host: String, port: Int, path: String, subprotocol: String?, headers: [HTTPHeaderField],
         tls: WebSocketClientTLS = .off, owner: WebSocketClientContext, delegate: WebSocketClientDelegate, maxMessageSize: Int) {
        self.id = id
        self.host = host
        self.port = port
        self.path = path
        self.subprotocol = subprotocol
        self.handshakeHeaders = headers
        self.tls = tls
        self.owner = owner
        self.delegate = delegate
        self.assembler = MessageAssembler(maxMessageSize: maxMessageSize)
    }

    /// Queues one text message. - Note: any thread.
    public func send(text: String) {
        send(bytes: Array(text.utf8), binary: false)
    }

    /// Queues one message (any size; the peer decides what is too large). - Note: any thread.
    public func send(bytes: [UInt8], binary: Bool) {
        enqueue([ClientFrame(bytes: bytes, flags: cc_write_flags(1, binary ? 1 : 0, 1))])
    }

    /// Queues one message sent as `parts.count` frames (the first carries the
    /// opcode, the rest are continuations, only the last has FIN).
    /// - Note: any thread.
    public func sendFragments(_ parts: [[UInt8]], binary: Bool) {
        guard !parts.isEmpty else {
            send(bytes: [], binary: binary)
            return
        }
        let frames = parts.enumerated().map { index, part in
            ClientFrame(bytes: part, flags: cc_write_flags(index == 0 ? 1 : 0, binary ? 1 : 0, index == parts.count - 1 ? 1 : 0))
        }
        enqueue(frames)
    }

    /// Sends a close frame with `code` after the queued frames (a code that may
    /// not be sent becomes 1000). - Note: any thread.
    public func close(code: UInt16 = 1000) {
        owner.loop.performOrRun { [self] in
            guard state != .closed, closeCode == nil else { return }
            closeCode = WebSocketCloseCode.sendable(code)
            if state == .open { requestWrite() }
        }
    }

    /// Drops the connection without a close frame, as a killed process or a lost network would:
    /// the socket is shut down and libwebsockets closes the connection when it sees that
    /// (`didCloseWithCode` nil). Does nothing unless open. - Note: any thread.
    public func abort() {
        owner.loop.performOrRun { [self] in
            guard state == .open, let wsi = wsi else { return }
            _ = shutdown(lws_get_socket_fd(wsi), Int32(SHUT_RDWR))
        }
    }

    /// Stops reading from the socket (the peer's sends back up). - Note: any thread.
    public func pauseReading() {
        owner.loop.performOrRun { [self] in
            paused = true
            if state == .open, let wsi = wsi { _ = lws_rx_flow_control(wsi, 0) }
        }
    }

    /// Reads again after `pauseReading()`. - Note: any thread.
    public func resumeReading() {
        owner.loop.performOrRun { [self] in
            paused = false
            if state == .open, let wsi = wsi { _ = lws_rx_flow_control(wsi, 1) }
        }
    }

    /// Lends a +1 reference to libwebsockets as the wsi's user data.
    /// - Note: service thread only.
    func lendToWSI() -> UnsafeMutableRawPointer {
        lentToWSI = true
        return Unmanaged.passRetained(self).toOpaque()
    }

    /// Takes the lent reference back (once); called when the wsi is destroyed, or when none
    /// was created.
    /// - Note: service thread only.
    func reclaimFromWSI() {
        guard lentToWSI else { return }
        lentToWSI = false
        Unmanaged.passUnretained(self).release()
    }

    /// The connection behind a callback's `user` pointer, without taking ownership.
    /// - Complexity: O(1): the pointer is the object.
    static func from(user: UnsafeMutableRawPointer?) -> WebSocketClientConnection? {
        guard let user = user else { return nil }
        return Unmanaged<WebSocketClientConnection>.fromOpaque(user).takeUnretainedValue()
    }

    /// True once the handshake completed and until the connection closes. - Note: service thread only.
    public var isOpen: Bool {
        owner.loop.assertServiceThread()
        return state == .open
    }

    /// Queues `frames` on the service thread (dropped once closing or closed).
    private func enqueue(_ frames: [ClientFrame]) {
        owner.loop.performOrRun { [self] in
            guard state != .closed, closeCode == nil else { return }
            queue.append(contentsOf: frames)
            if state == .open { requestWrite() }
        }
    }

    /// Asks for a writable callback (idempotent). - Note: service thread only.
    func requestWrite() {
        owner.loop.requestWritable(wsi, armed: &writeArmed)
    }

    /// The next queued frame, or nil. - Note: service thread only.
    func popFrame() -> ClientFrame? {
        return queue.popFirst()
    }

    /// True while frames wait. - Note: service thread only.
    var hasQueuedFrames: Bool { return !queue.isEmpty }

    /// Drops everything queued (on close). - Note: service thread only.
    func dropQueue() {
        queue.removeAll()
    }

    public static func == (lhs: WebSocketClientConnection, rhs: WebSocketClientConnection) -> Bool {
        return lhs === rhs
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }

    public var description: String {
        return "WebSocketClientConnection(\(id), \(tls.scheme)://\(ListenSupport.display(host: host, port: port))\(path))"
    }
}
