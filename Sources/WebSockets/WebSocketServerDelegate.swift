/// What a connection is sent next, as decided by the delegate in one go.
///
/// `morePending` says whether another frame would be ready right after this one; the server
/// re-arms the connection on it, so a connection is offered writes only while something is
/// pending. It can only be true together with a frame.
public struct NextFrame {
    /// The frame to write now, nil when the connection is up to date.
    public let frame: OutboundFrame?
    /// Whether more is pending after `frame`.
    public let morePending: Bool

    /// `frame` now, and whether more is pending after it.
    @inlinable
    public init(_ frame: OutboundFrame, morePending: Bool) {
        self.init(frame: frame, morePending: morePending)
    }

    @usableFromInline
    init(frame: OutboundFrame?, morePending: Bool) {
        self.frame = frame
        self.morePending = morePending
    }

    /// Nothing to write, nothing pending.
    @inlinable
    public static var nothing: NextFrame { NextFrame(frame: nil, morePending: false) }
}

/// Receives the events of a `WebSocketServer` and decides its outbound frames.
///
/// The delegate is the only source of frames: the server never queues any itself. It pulls
/// one frame per writable callback with `nextFrameFor`, which is therefore the one place that
/// decides what a connection is sent next.
///
/// - Note: every method is called on the server's service thread only.
public protocol WebSocketServerDelegate: AnyObject {
    /// A WebSocket handshake completed on `webSocketPath`.
    func webSocketServer(_ server: WebSocketServer, didOpen connection: WebSocketConnection)
    /// A complete (reassembled) message arrived.
    func webSocketServer(_ server: WebSocketServer, connection: WebSocketConnection, didReceive message: InboundMessage)
    /// A message went over `maxMessageSize`; its remainder is discarded. Called once per such message.
    func webSocketServer(_ server: WebSocketServer, connectionDidExceedMessageSize connection: WebSocketConnection)
    /// The connection is gone (closed by either side or dropped). It accepts no more calls.
    func webSocketServer(_ server: WebSocketServer, didClose connection: WebSocketConnection)
    /// The connection can take one frame: the frame to write now, or `.nothing`, and whether
    /// more is pending after it. Called after `requestWrite()`, and again after each write for
    /// as long as the previous answer said `morePending` (or a close is queued).
    func webSocketServer(_ server: WebSocketServer, nextFrameFor connection: WebSocketConnection) -> NextFrame
    /// Answers an HTTP request of any method, with its complete body: `.now(response)`,
    /// `.later` (then `responder.respond(_:)` once, on the service thread), or `.notHandled` to
    /// fall back to static files (GET, HEAD; else 404) or `405` with `Allow: GET, HEAD`.
    ///
    /// The default asks `webSocketServer(_:respondTo:)` and answers at once.
    func webSocketServer(_ server: WebSocketServer, handle request: HTTPRequest, responder: HTTPResponder) -> HTTPAnswer
    /// Answers an HTTP request at once, or returns nil for `.notHandled`. Only asked by the
    /// default `webSocketServer(_:handle:responder:)`.
    func webSocketServer(_ server: WebSocketServer, respondTo request: HTTPRequest) -> HTTPResponse?
    /// Before a request body is read: the request's head (`body` empty) and the chance to refuse
    /// it now (401, 404, 405, 413, 415, …). A refusal is sent at once without reading the body,
    /// and the connection closes after it. Nil (the default) reads the body, up to
    /// `maxRequestBodyBytes`, and then hands the whole request to `handle`.
    /// Asked only for requests that have a body.
    func webSocketServer(_ server: WebSocketServer, shouldReadBodyOf request: HTTPRequest) -> HTTPResponse?
    /// The `413` for a body over `maxRequestBodyBytes` (declared, or a chunked body growing past
    /// it), to answer in the delegate's own format; nil (the default) sends a plain-text one.
    func webSocketServer(_ server: WebSocketServer, responseToOversizedBodyOf request: HTTPRequest, limit: Int) -> HTTPResponse?
    /// A WebSocket handshake on `webSocketPath`, before the upgrade: the handshake request
    /// (GET, its path, query, headers and peer) and the chance to refuse it with an HTTP
    /// response (403, 401, 503, …), which the client receives instead of `101`; the connection
    /// closes after it. Nil (the default) accepts; the headers stay readable on the
    /// `WebSocketConnection` (`handshake`).
    func webSocketServer(_ server: WebSocketServer, shouldAcceptUpgrade request: HTTPRequest) -> HTTPResponse?
    /// One service pass is over: every callback of the events one poll returned has run. The
    /// place to do once what many events of the same pass asked for.
    func webSocketServerDidFinishServicePass(_ server: WebSocketServer)
}

extension WebSocketServerDelegate {
    public func webSocketServer(_ server: WebSocketServer, connectionDidExceedMessageSize connection: WebSocketConnection) {
        connection.close(code: 1009, reason: "message too large")
    }

    public func webSocketServer(_ server: WebSocketServer, handle request: HTTPRequest, responder: HTTPResponder) -> HTTPAnswer {
        return webSocketServer(server, respondTo: request).map(HTTPAnswer.now) ?? .notHandled
    }

    public func webSocketServer(_ server: WebSocketServer, respondTo request: HTTPRequest) -> HTTPResponse? {
        return nil
    }

    public func webSocketServer(_ server: WebSocketServer, shouldReadBodyOf request: HTTPRequest) -> HTTPResponse? {
        return nil
    }

    public func webSocketServer(_ server: WebSocketServer, responseToOversizedBodyOf request: HTTPRequest, limit: Int) -> HTTPResponse? {
        return nil
    }

    public func webSocketServer(_ server: WebSocketServer, shouldAcceptUpgrade request: HTTPRequest) -> HTTPResponse? {
        return nil
    }

    public func webSocketServerDidFinishServicePass(_ server: WebSocketServer) {}
}
