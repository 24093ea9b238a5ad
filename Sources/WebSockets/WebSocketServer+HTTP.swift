import CLibWebsockets

/// The HTTP side of the server: every request goes to the delegate (any method, with its whole
/// body), then to static files (GET, HEAD) or `405`.
///
/// One `HTTPExchange` per request lives in the wsi's per-session user data from the request
/// head (`LWS_CALLBACK_HTTP`) through its body (`HTTP_BODY`, `HTTP_BODY_COMPLETION`) to the last
/// byte of the response (`HTTP_WRITEABLE`). Responses are written only from `HTTP_WRITEABLE`:
/// the headers in one callback, then the body in chunks of `httpChunkSize`.
///
/// Bodies. libwebsockets 4.1 delimits a request body by `Content-Length` only; a POST, PUT or
/// PATCH without one makes it expect 100 MiB, and it does not decode chunked coding. So:
/// - `Content-Length: N`: N bytes are collected (capacity reserved once, one copy) and the
///   request goes to the delegate on `HTTP_BODY_COMPLETION`; keep-alive goes on afterwards.
/// - `Transfer-Encoding: chunked` (POST, PUT, PATCH): decoded here as it arrives; the request
///   goes to the delegate when the last chunk ends, and the connection closes after the answer
///   (libwebsockets would read whatever follows as more body).
/// - no length on a POST, PUT or PATCH: an empty body, and the connection closes after the
///   answer, for the same reason.
/// - malformed framing (`Content-Length` not a number, or together with `Transfer-Encoding`; a
///   transfer coding other than chunked; chunked on a method libwebsockets reads no body of):
///   400, 501 or 411 at once, and close.
/// Before a body is read the delegate may refuse it (`shouldReadBodyOf`); a declared length over
/// `maxRequestBodyBytes` is refused with 413, a chunked body with 413 as soon as it passes the
/// limit. A refused body is never buffered, and the connection closes after the refusal. A
/// client that sent `Expect: 100-continue` is told `100 Continue` once its body is wanted.
extension WebSocketServer {
    /// How a request's body is to be read, decided from its head.
    private enum BodyPlan {
        /// No body to read; `consumed` says whether libwebsockets is done with the request.
        case none(consumed: Bool)
        /// A body to read with this framing.
        case read(HTTPExchange.Framing)
        /// A framing the server does not take: answer this and close.
        case refuse(HTTPResponse)
    }

    /// `LWS_CALLBACK_HTTP`: the request head. Bodyless requests go to the delegate now; for the
    /// others the delegate may refuse before the body is read.
    /// - Note: service thread only.
    func handleHTTP(_ wsi: OpaquePointer, session: PerSessionData, input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        let method = RequestHeadReader.method(wsi)
        let path = RequestHeadReader.path(wsi, input: input, length: length, method: method)
        let request = headReader.request(wsi, method: method ?? "UNKNOWN", path: path)
        let plan = method == nil ? .refuse(.text("method not implemented\n", status: 501))
            : headRefusal(wsi).map(BodyPlan.refuse) ?? bodyPlan(for: request)
        let exchange = HTTPExchange(wsi: wsi, request: request, framing: .none, requestConsumed: false)
        guard session.attach(exchange) else {
            WebSocketLog.log(.error, "no per-session user data for an HTTP request; dropping it")
            return -1
        }
        switch plan {
        case .refuse(let response):
            send(response, on: exchange)
            return 0
        case .none(let consumed):
            exchange.requestConsumed = consumed
            return dispatch(exchange, wsi: wsi, session: session)
        case .read(let framing):
            exchange.framing = framing
            if let refusal = delegate?.webSocketServer(self, shouldReadBodyOf: request) {
                send(refusal, on: exchange)
                return 0
            }
            if case .length(let declared) = framing {
                guard declared <= configuration.maxRequestBodyBytes else {
                    WebSocketLog.log(.info, "refused a \(declared)-byte \(request.method) body for \(request.path)")
                    send(tooLarge(exchange.request), on: exchange)
                    return 0
                }
                exchange.body.reserveCapacity(declared)
            }
            exchange.phase = .readingBody
            if request.headers["expect"]?.lowercased() == "100-continue" && !continueInterim(wsi) {
                return -1
            }
            return 0
        }
    }

    /// `LWS_CALLBACK_HTTP_BODY`: body bytes, appended (chunked coding removed) while the body is
    /// being read; ignored once the request was answered.
    /// - Note: service thread only.
    func httpBody(_ session: PerSessionData, input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        guard let exchange = session.exchange, exchange.phase == .readingBody, let wsi = exchange.wsi,
              let input = input, length > 0 else { return 0 }
        let bytes = UnsafeRawBufferPointer(start: input, count: length)
        switch exchange.framing {
        case .none:
            return 0
        case .length(let declared):
            // libwebsockets never hands over more than the declared length.
            let take = min(bytes.count, declared - exchange.body.count)
            if take > 0 {
                exchange.body.append(contentsOf: UnsafeBufferPointer(start: input.assumingMemoryBound(to: UInt8.self), count: take))
            }
            return 0
        case .chunked(var decoder):
            let event = decoder.feed(bytes, into: &exchange.body)
            exchange.framing = .chunked(decoder)
            switch event {
            case .needMore:
                return 0
            case .complete:
                return dispatch(exchange, wsi: wsi, session: session)
            case .tooLarge:
                WebSocketLog.log(.info, "refused a chunked \(exchange.request.method) body for \(exchange.request.path) over \(configuration.maxRequestBodyBytes) bytes")
                send(tooLarge(exchange.request), on: exchange)
                return 0
            case .malformed(let reason):
                WebSocketLog.log(.info, "malformed chunked body for \(exchange.request.path): \(reason)")
                send(.text("bad request: \(reason)\n", status: 400), on: exchange)
                return 0
            }
        }
    }

    /// `LWS_CALLBACK_HTTP_BODY_COMPLETION`: libwebsockets read the declared length; the request
    /// goes to the delegate.
    /// - Note: service thread only.
    func httpBodyCompletion(_ session: PerSessionData) -> Int32 {
        guard let exchange = session.exchange, exchange.phase == .readingBody, let wsi = exchange.wsi else { return 0 }
        switch exchange.framing {
        case .length:
            exchange.requestConsumed = true
            return dispatch(exchange, wsi: wsi, session: session)
        case .chunked, .none:
            // libwebsockets' own bound (100 MiB of coded bytes) ran out before the last chunk.
            send(tooLarge(exchange.request), on: exchange)
            return 0
        }
    }

    /// `100 Continue`: the client asked whether to send its body (`Expect: 100-continue`, as curl
    /// does for large bodies) and the body is wanted. libwebsockets does not send it itself; a
    /// refused body gets its final answer instead.
    private func continueInterim(_ wsi: OpaquePointer) -> Bool {
        let line = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
        let payload = (httpScratch + lwsPre).assumingMemoryBound(to: UInt8.self)
        payload.update(from: line, count: line.count)
        return cc_lws_write(wsi, payload, line.count, Int32(LWS_WRITE_HTTP_HEADERS.rawValue)) == line.count
    }

    /// The body framing of a request head (see the type's comment).
    private func bodyPlan(for request: HTTPRequest) -> BodyPlan {
        let headers = request.headers
        let lwsExpectsBody = ["POST", "PUT", "PATCH"].contains(request.method)
        if let coding = headers["transfer-encoding"] {
            guard headers["content-length"] == nil else {
                return .refuse(.text("bad request: both Content-Length and Transfer-Encoding\n", status: 400))
            }
            guard coding.lowercased() == "chunked" else {
                return .refuse(.text("transfer coding \(coding.prefix(32)) is not implemented\n", status: 501))
            }
            guard lwsExpectsBody else {
                return .refuse(.text("a \(request.method) body needs a Content-Length\n", status: 411))
            }
            return .read(.chunked(ChunkedBodyDecoder(limit: configuration.maxRequestBodyBytes)))
        }
        if let text = headers["content-length"] {
            guard let declared = WebSocketServer.contentLength(text) else {
                return .refuse(.text("bad request: Content-Length \(text.prefix(32))\n", status: 400))
            }
            // Past what fits an Int, the 413 for any realistic limit.
            return declared > 0 ? .read(.length(declared)) : .none(consumed: true)
        }
        return .none(consumed: !lwsExpectsBody)
    }

    /// A `Content-Length` value: decimal digits only (no sign, no list), clamped to `Int.max`.
    static func contentLength(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int(text) ?? Int.max
    }

    /// The 413 for a body over the limit: the delegate's, or a plain one.
    func tooLarge(_ request: HTTPRequest) -> HTTPResponse {
        let limit = configuration.maxRequestBodyBytes
        return delegate?.webSocketServer(self, responseToOversizedBodyOf: request, limit: limit)
            ?? .text("request body over \(limit) bytes\n", status: 413)
    }
}
