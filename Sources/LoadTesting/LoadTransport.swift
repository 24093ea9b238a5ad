import WebSockets

/// One connection of the load tester, whichever client carries it.
/// - Note: each call may be made from any thread; it runs on the transport's service thread.
protocol LoadConnection: AnyObject {
    /// Queues one message.
    func send(bytes: [UInt8], binary: Bool)
    /// Sends a close frame with `code` after what is queued.
    func close(code: UInt16)
    /// Drops the connection without a close frame, as a killed process would.
    func abort()
    /// Stops reading (the server's sends back up) until `resumeReading`.
    func pauseReading()
    func resumeReading()
}

/// The events of one load connection, on the transport's service thread. Exactly one of
/// `loadConnectionDidFail` (before the handshake completed) or `loadConnectionDidClose` ends it.
protocol LoadConnectionDelegate: AnyObject {
    func loadConnectionDidConnect()
    func loadConnectionDidFail(_ reason: String)
    /// A whole message. `arrivedAt` (`MonotonicClock` ns) is when its last bytes reached the
    /// socket: the kernel's receive stamp where the client has one (the raw client), else when it
    /// was read; a busy load tester reads late, and the difference is its own delay, not the server's.
    func loadConnectionDidReceive(_ message: InboundMessage, arrivedAt: UInt64)
    func loadConnectionDidClose(code: UInt16?)
}

/// A timer of a transport's service thread. - Note: service thread only.
protocol LoadTimer: AnyObject {
    func cancel()
}

/// What the runners need from a WebSocket client: connections, one service thread owning them,
/// timers on it, and a way to run work there from the runner's thread.
protocol LoadTransport: AnyObject {
    /// Opens a connection; its delegate hears how it went. - Note: service thread only.
    func connect(_ url: LoadURL, subprotocol: String?, tls: WebSocketClientTLS, delegate: LoadConnectionDelegate) -> LoadConnection
    /// Runs `work` on the service thread and returns its result, nil after `timeout` seconds or
    /// once the transport stopped. - Note: any thread.
    func performAndWait<T>(timeout: Double, _ work: @escaping () -> T) -> T?
    /// - Note: service thread only.
    func schedule(every seconds: Double, _ tick: @escaping () -> Void) -> LoadTimer
    /// - Note: service thread only.
    func schedule(after seconds: Double, _ fire: @escaping () -> Void) -> LoadTimer
    /// Stops the service thread and drops every connection. - Note: not on the service thread.
    func shutdown()
}

/// Which WebSocket client the load tester's connections use (`--client`).
public enum LoadClientKind: String, Sendable, CaseIterable {
    /// The tester's own epoll client (`RawWebSocketLoop`): `ws://` only, cheap per byte.
    case raw
    /// libwebsockets' client, the project's `WebSocketClientContext`: `ws://` and `wss://`.
    case lws

    /// The client for `options` when none is asked for: the raw one unless TLS is needed.
    static func automatic(for url: LoadURL) -> LoadClientKind { url.tls ? .lws : .raw }

    /// A new transport of this kind.
    /// - Throws: when the client context cannot be created.
    func makeTransport(receiveBufferSize: Int = 0) throws -> LoadTransport {
        switch self {
        case .raw: return try RawWebSocketLoop()
        case .lws: return LibwebsocketsTransport(try WebSocketClientContext(receiveBufferSize: receiveBufferSize))
        }
    }
}

extension WebSocketClientConnection: LoadConnection {}
extension WebSocketTimer: LoadTimer {}

/// The libwebsockets client as a `LoadTransport`.
final class LibwebsocketsTransport: LoadTransport {
    let context: WebSocketClientContext

    init(_ context: WebSocketClientContext) { self.context = context }

    func connect(_ url: LoadURL, subprotocol: String?, tls: WebSocketClientTLS, delegate: LoadConnectionDelegate) -> LoadConnection {
        context.connect(host: url.host, port: url.port, path: url.path, subprotocol: subprotocol, tls: tls,
                        delegate: Bridge(delegate))
    }

    func performAndWait<T>(timeout: Double, _ work: @escaping () -> T) -> T? { context.performAndWait(timeout: timeout, work) }
    func schedule(every seconds: Double, _ tick: @escaping () -> Void) -> LoadTimer { context.schedule(every: seconds, tick) }
    func schedule(after seconds: Double, _ fire: @escaping () -> Void) -> LoadTimer { context.schedule(after: seconds, fire) }
    func shutdown() { context.shutdown() }

    /// Forwards libwebsockets' client events (the connection holds it until it ends).
    private final class Bridge: WebSocketClientDelegate {
        let target: LoadConnectionDelegate
        init(_ target: LoadConnectionDelegate) { self.target = target }
        func webSocketClientDidConnect(_ connection: WebSocketClientConnection) { target.loadConnectionDidConnect() }
        func webSocketClient(_ connection: WebSocketClientConnection, didFailToConnect reason: String) { target.loadConnectionDidFail(reason) }
        func webSocketClient(_ connection: WebSocketClientConnection, didReceive message: InboundMessage) {
            target.loadConnectionDidReceive(message, arrivedAt: MonotonicClock.now())
        }
        func webSocketClient(_ connection: WebSocketClientConnection, didCloseWithCode code: UInt16?) {
            target.loadConnectionDidClose(code: code)
        }
    }
}
