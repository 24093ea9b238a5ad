import Foundation
import WebSockets

/// A blocking WebSocket client for tests: one context, one connection and a
/// locked inbox, over the project's own lws client.
///
/// - Note: thread-safe; usually driven from one test thread.
public final class BlockingWebSocketClient {
    private let context: WebSocketClientContext
    /// The underlying connection (for sends not covered here).
    public let connection: WebSocketClientConnection
    private let inbox: BlockingInbox

    private init(context: WebSocketClientContext, connection: WebSocketClientConnection, inbox: BlockingInbox) {
        self.context = context
        self.connection = connection
        self.inbox = inbox
    }

    deinit {
        context.shutdown()
    }

    /// Connects and waits for the handshake.
    /// - Parameters:
    ///   - subprotocol: the subprotocol to offer; nil offers none.
    ///   - headers: extra handshake header fields (`Authorization`, …).
    ///   - tls: wss:// when not `.off`.
    ///   - trustedCertificatePath: a certificate `.verified` trusts besides the system's CAs.
    /// - Throws: `WebSocketError.connectFailed` with the reason, or `.timeout`.
    public static func connect(host: String = "127.0.0.1", port: Int, path: String = "/ws",
                               subprotocol: String? = nil, headers: [HTTPHeaderField] = [],
                               tls: WebSocketClientTLS = .off, trustedCertificatePath: String? = nil,
                               timeout: Double = 5) throws -> BlockingWebSocketClient {
        let context = try WebSocketClientContext(threadName: "ws-blocking-client", trustedCertificatePath: trustedCertificatePath)
        let inbox = BlockingInbox()
        let connection = context.connect(host: host, port: port, path: path, subprotocol: subprotocol, headers: headers,
                                         tls: tls, delegate: inbox)
        do {
            try inbox.waitForHandshake(timeout: timeout)
        } catch {
            context.shutdown()
            throw error
        }
        return BlockingWebSocketClient(context: context, connection: connection, inbox: inbox)
    }

    public func send(text: String) { connection.send(text: text) }
    public func send(bytes: [UInt8], binary: Bool) { connection.send(bytes: bytes, binary: binary) }
    public func sendFragments(_ parts: [[UInt8]], binary: Bool) { connection.sendFragments(parts, binary: binary) }

    /// The next message, waiting up to `timeout` seconds.
    /// - Throws: `.closed(code:)` once the connection closed and the inbox is empty, `.timeout`.
    public func receive(timeout: Double = 5) throws -> InboundMessage {
        return try inbox.next(timeout: timeout)
    }

    /// The next message as text.
    /// - Throws: like `receive`, and `.connectFailed` if the message was binary.
    public func receiveText(timeout: Double = 5) throws -> String {
        let message = try receive(timeout: timeout)
        guard let text = message.text else { throw WebSocketError.connectFailed("expected a text message, got binary") }
        return text
    }

    /// Waits until the connection is closed and returns the peer's close code.
    /// Messages still in the inbox are kept.
    /// - Throws: `.timeout`.
    @discardableResult
    public func waitUntilClosed(timeout: Double = 5) throws -> UInt16? {
        return try inbox.waitForClose(timeout: timeout)
    }

    /// The subprotocol the server accepted, nil when none was negotiated.
    public var negotiatedSubprotocol: String? { return inbox.subprotocol }

    /// The peer's close code, once it closed with one.
    public var closeCode: UInt16? { return inbox.closeState.code }
    /// True once the connection is closed.
    public var isClosed: Bool { return inbox.closeState.closed }

    public func pauseReading() { connection.pauseReading() }
    public func resumeReading() { connection.resumeReading() }

    /// Sends close 1000, waits up to a second for the close to complete, then stops the context.
    public func close() {
        connection.close(code: 1000)
        _ = try? inbox.waitForClose(timeout: 1)
        context.shutdown()
    }
}

/// The delegate behind `BlockingWebSocketClient`, usable on its own with any client
/// connection: a condition-protected inbox.
public final class BlockingInbox: WebSocketClientDelegate {
    private let condition = NSCondition()
    private var messages = FIFOQueue<InboundMessage>()
    private var connected = false
    private var failure: String?
    private var closed = false
    private var code: UInt16?
    private var negotiated: String?

    public init() {}

    /// The subprotocol the server accepted, once connected.
    public var subprotocol: String? {
        condition.lock()
        defer { condition.unlock() }
        return negotiated
    }

    public func webSocketClientDidConnect(_ connection: WebSocketClientConnection) {
        condition.lock()
        connected = true
        negotiated = connection.negotiatedSubprotocol
        condition.broadcast()
        condition.unlock()
    }

    public func webSocketClient(_ connection: WebSocketClientConnection, didFailToConnect reason: String) {
        condition.lock()
        failure = reason
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    public func webSocketClient(_ connection: WebSocketClientConnection, didReceive message: InboundMessage) {
        condition.lock()
        messages.append(message)
        condition.broadcast()
        condition.unlock()
    }

    public func webSocketClient(_ connection: WebSocketClientConnection, didCloseWithCode code: UInt16?) {
        condition.lock()
        closed = true
        self.code = code
        condition.broadcast()
        condition.unlock()
    }

    /// Whether the connection closed, and the peer's close code.
    public var closeState: (closed: Bool, code: UInt16?) {
        condition.lock()
        defer { condition.unlock() }
        return (closed, code)
    }

    /// Waits until the handshake completed.
    /// - Throws: `.connectFailed` with the reason, `.closed`, or `.timeout`.
    public func waitForHandshake(timeout: Double) throws {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !connected && failure == nil && !closed {
            if !condition.wait(until: deadline) { throw WebSocketError.timeout }
        }
        if let failure = failure { throw WebSocketError.connectFailed(failure) }
        if !connected { throw WebSocketError.closed(code: code) }
    }

    /// The next message, waiting up to `timeout` seconds.
    /// - Throws: `.closed(code:)` once the connection closed and the inbox is empty, `.timeout`.
    public func next(timeout: Double) throws -> InboundMessage {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let message = messages.popFirst() { return message }
            if closed { throw WebSocketError.closed(code: code) }
            if !condition.wait(until: deadline) {
                if let message = messages.popFirst() { return message }
                if closed { throw WebSocketError.closed(code: code) }
                throw WebSocketError.timeout
            }
        }
    }

    /// Waits until the connection closed and returns the peer's close code.
    /// - Throws: `.timeout`.
    public func waitForClose(timeout: Double) throws -> UInt16? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !closed {
            if !condition.wait(until: deadline) {
                if closed { break }
                throw WebSocketError.timeout
            }
        }
        return code
    }
}
