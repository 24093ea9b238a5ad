/// One HTTP request/response on a server wsi, from its head to the last byte of the answer.
///
/// Kept in the wsi's per-session user data (`PerSessionData.exchange`), which holds the only
/// strong reference: when libwebsockets drops the binding (keep-alive's next transaction, the
/// peer going away, `WSI_DESTROY`), the slot is cleared and the exchange dies with it. An
/// `HTTPResponder` only holds it weakly, so a late answer finds nothing and does nothing, and
/// nothing keeps a wsi pointer alive past its wsi.
/// - Note: service thread only.
final class HTTPExchange {
    enum Phase {
        /// Body bytes are arriving (`LWS_CALLBACK_HTTP_BODY`).
        case readingBody
        /// The delegate has the request; its answer has not come yet.
        case awaitingAnswer
        /// The response is being written (headers first, then the body in chunks).
        case writing
        /// Done; nothing more happens on this exchange.
        case finished
    }

    /// How the request's body is delimited.
    enum Framing {
        /// No body, or one whose bytes libwebsockets does not deliver.
        case none
        /// `Content-Length` bytes.
        case length(Int)
        /// `Transfer-Encoding: chunked`, decoded as it arrives.
        case chunked(ChunkedBodyDecoder)
    }

    /// The wsi this exchange belongs to; nil once detached from it (see `PerSessionData`).
    private(set) var wsi: OpaquePointer?
    var phase: Phase
    /// The request head; the body is moved in when complete.
    var request: HTTPRequest
    var framing: Framing
    /// The body collected so far.
    var body: [UInt8] = []
    /// Whether libwebsockets has consumed the whole request, so the connection may serve another
    /// (keep-alive). False while body bytes it will still read are unread, and for bodies
    /// libwebsockets cannot delimit itself (chunked, or a POST/PUT/PATCH without a length, for
    /// which it expects 100 MiB).
    var requestConsumed: Bool
    /// HEAD: the response's headers are sent, its body is not.
    let headOnly: Bool

    var response: HTTPResponse?
    var headersSent = false
    var bodyOffset = 0
    /// Close the connection once the response is out.
    var closeAfter = false

    init(wsi: OpaquePointer, request: HTTPRequest, framing: Framing, requestConsumed: Bool) {
        self.wsi = wsi
        self.request = request
        self.framing = framing
        self.requestConsumed = requestConsumed
        self.headOnly = request.method == "HEAD"
        self.phase = .awaitingAnswer
    }

    /// Forgets the wsi: called when the per-session slot lets go of the exchange.
    func detach() {
        wsi = nil
        phase = .finished
    }

    /// Whether an answer may still be given: the delegate has the request, nothing was sent yet.
    var mayAnswer: Bool {
        return wsi != nil && (phase == .readingBody || phase == .awaitingAnswer)
    }
}

/// Answers one HTTP request later: handed to the delegate with the request, for `.later`.
///
/// The responder does not keep the connection alive: if the client went away before the answer
/// (or the server stopped), `respond` does nothing. The first answer wins; later ones are
/// ignored.
///
/// - Note: `respond` is service thread only. A delegate answering from another thread goes
///   through `WebSocketServer.perform { responder.respond(…) }`.
public final class HTTPResponder {
    private weak var exchange: HTTPExchange?
    private weak var server: WebSocketServer?

    init(exchange: HTTPExchange, server: WebSocketServer) {
        self.exchange = exchange
        self.server = server
    }

    /// Sends `response` (headers only for a HEAD request). A no-op when the request was already
    /// answered or its client is gone.
    /// - Note: service thread only.
    public func respond(_ response: HTTPResponse) {
        guard let server = server else { return }
        server.loop.assertServiceThread()
        guard let exchange = exchange, exchange.mayAnswer else { return }
        server.send(response, on: exchange)
    }

    /// Whether the request still waits for its answer: not answered, and its client still there.
    /// - Note: service thread only.
    public var isPending: Bool {
        server?.loop.assertServiceThread()
        return exchange?.mayAnswer ?? false
    }
}
