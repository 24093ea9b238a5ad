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
        let plan = method == nil ? .refuse(.text("method not implemented\n", status: 501)) : bodyPlan(for: request)
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
    private func tooLarge(_ request: HTTPRequest) -> HTTPResponse {
        let limit = configuration.maxRequestBodyBytes
        return delegate?.webSocketServer(self, responseToOversizedBodyOf: request, limit: limit)
            ?? .text("request body over \(limit) bytes\n", status: 413)
    }

    /// Hands the complete request to the delegate and acts on its answer.
    private func dispatch(_ exchange: HTTPExchange, wsi: OpaquePointer, session: PerSessionData) -> Int32 {
        var request = exchange.request
        request.body = exchange.body
        exchange.body = []
        exchange.phase = .awaitingAnswer
        let responder = HTTPResponder(exchange: exchange, server: self)
        let answer = delegate?.webSocketServer(self, handle: request, responder: responder) ?? .notHandled
        switch answer {
        case .now(let response):
            send(response, on: exchange)
        case .later:
            break
        case .notHandled:
            // A delegate that answered through the responder and then said `.notHandled` has answered.
            guard exchange.mayAnswer else { return 0 }
            return fallBack(exchange, wsi: wsi, session: session)
        }
        return 0
    }

    /// A request the delegate did not take: a static file for GET and HEAD, 405 for the rest.
    private func fallBack(_ exchange: HTTPExchange, wsi: OpaquePointer, session: PerSessionData) -> Int32 {
        let request = exchange.request
        guard request.method == "GET" || request.method == "HEAD" else {
            send(HTTPResponse(status: 405, contentType: "text/plain; charset=utf-8", body: Array("method not allowed\n".utf8),
                              headers: [HTTPHeaderField(name: "Allow", value: "GET, HEAD")]), on: exchange)
            return 0
        }
        guard let files = files else {
            send(.text("not found\n", status: 404), on: exchange)
            return 0
        }
        switch files.resolve(request.path) {
        case .forbidden:
            WebSocketLog.log(.info, "refused static path \(request.path)")
            send(.text("forbidden\n", status: 403), on: exchange)
            return 0
        case .notFound:
            send(.text("not found\n", status: 404), on: exchange)
            return 0
        case .file(let filePath, let contentType):
            // libwebsockets serves the file itself and reports `HTTP_FILE_COMPLETION`.
            session.detachExchange()
            let result = lws_serve_http_file(wsi, filePath, contentType, nil, 0)
            if result < 0 { return -1 }
            if result > 0 { return lws_http_transaction_completed(wsi) != 0 ? -1 : 0 }
            return 0
        }
    }

    /// Queues `response` as the exchange's answer and asks for a writable callback. Nothing
    /// happens when the exchange was already answered or its wsi is gone. Stops reading the
    /// body: bytes still arriving are dropped, and the connection closes after the response
    /// unless libwebsockets had consumed the whole request.
    /// - Note: service thread only.
    func send(_ response: HTTPResponse, on exchange: HTTPExchange) {
        guard exchange.mayAnswer, let wsi = exchange.wsi else { return }
        exchange.response = response
        exchange.phase = .writing
        exchange.closeAfter = !exchange.requestConsumed
        exchange.body = []
        if !loop.isTearingDown {
            lws_callback_on_writable(wsi)
        }
    }

    /// `LWS_CALLBACK_HTTP_WRITEABLE`: the response headers, then one body chunk per callback.
    /// - Note: service thread only.
    func httpWritable(_ wsi: OpaquePointer, session: PerSessionData) -> Int32 {
        guard !loop.isTearingDown, let exchange = session.exchange, exchange.phase == .writing,
              let response = exchange.response else { return 0 }
        let sendsBody = !exchange.headOnly && !response.statusForbidsBody && !response.body.isEmpty
        if !exchange.headersSent {
            guard writeHeaders(wsi, response, closeAfter: exchange.closeAfter) else {
                session.detachExchange()
                return -1
            }
            exchange.headersSent = true
            guard sendsBody else { return finish(exchange, wsi: wsi, session: session) }
            lws_callback_on_writable(wsi)
            return 0
        }
        let remaining = response.body.count - exchange.bodyOffset
        let count = min(remaining, WebSocketServer.httpChunkSize)
        let final = count == remaining
        let payload = (httpScratch + lwsPre).assumingMemoryBound(to: UInt8.self)
        response.body.withUnsafeBufferPointer { body in
            payload.update(from: body.baseAddress! + exchange.bodyOffset, count: count)
        }
        let flags = Int32(final ? LWS_WRITE_HTTP_FINAL.rawValue : LWS_WRITE_HTTP.rawValue)
        if cc_lws_write(wsi, payload, count, flags) < 0 {
            session.detachExchange()
            return -1
        }
        exchange.bodyOffset += count
        if final { return finish(exchange, wsi: wsi, session: session) }
        lws_callback_on_writable(wsi)
        return 0
    }

    /// The response is out: ready for the next request (keep-alive), or close.
    private func finish(_ exchange: HTTPExchange, wsi: OpaquePointer, session: PerSessionData) -> Int32 {
        let closeAfter = exchange.closeAfter
        session.detachExchange()
        if closeAfter { return -1 }
        return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
    }

    /// Writes the status line and headers: `Content-Type` and `Content-Length` (unless the
    /// status forbids a body), `Cache-Control: no-store`, the response's own fields, and
    /// `Connection: close` when the connection closes after this response.
    func writeHeaders(_ wsi: OpaquePointer, _ response: HTTPResponse, closeAfter: Bool) -> Bool {
        let start = (httpScratch + lwsPre).assumingMemoryBound(to: UInt8.self)
        let end = start + WebSocketServer.httpChunkSize - 1
        var cursor: UnsafeMutablePointer<UInt8>? = start
        let status = UInt32(clamping: max(100, min(599, response.status)))
        guard lws_add_http_header_status(wsi, status, &cursor, end) == 0 else { return false }
        if !response.statusForbidsBody {
            if !response.contentType.isEmpty, WebSocketServer.isFieldValue(response.contentType) {
                let type = response.contentType
                guard lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CONTENT_TYPE, type, Int32(type.utf8.count),
                                                   &cursor, end) == 0 else { return false }
            }
            guard lws_add_http_header_content_length(wsi, lws_filepos_t(response.body.count), &cursor, end) == 0 else {
                return false
            }
        }
        guard WebSocketServer.addHeader(wsi, "cache-control", "no-store", &cursor, end) else { return false }
        for field in response.headers {
            guard WebSocketServer.isFieldName(field.name), WebSocketServer.isFieldValue(field.value),
                  !WebSocketServer.reservedResponseHeaders.contains(field.name.lowercased()) else {
                WebSocketLog.log(.warn, "not sending response header \(field.name.prefix(64).debugDescription)")
                continue
            }
            guard WebSocketServer.addHeader(wsi, field.name, field.value, &cursor, end) else {
                WebSocketLog.log(.error, "response headers do not fit \(WebSocketServer.httpChunkSize) bytes")
                return false
            }
        }
        if closeAfter {
            guard WebSocketServer.addHeader(wsi, "connection", "close", &cursor, end) else { return false }
        }
        return lws_finalize_write_http_header(wsi, start, &cursor, end) == 0
    }

    /// Writes a whole response now, outside the writable callback (headers, then the body in
    /// chunks; libwebsockets keeps what the socket does not take and sends it before it
    /// closes). Used only where the connection closes right after: a refused upgrade.
    func writeWholeResponse(_ wsi: OpaquePointer, _ response: HTTPResponse) -> Bool {
        guard writeHeaders(wsi, response, closeAfter: true) else { return false }
        guard !response.statusForbidsBody, !response.body.isEmpty else { return true }
        let payload = (httpScratch + lwsPre).assumingMemoryBound(to: UInt8.self)
        var offset = 0
        while offset < response.body.count {
            let count = min(response.body.count - offset, WebSocketServer.httpChunkSize)
            let final = offset + count == response.body.count
            response.body.withUnsafeBufferPointer { body in
                payload.update(from: body.baseAddress! + offset, count: count)
            }
            let flags = Int32(final ? LWS_WRITE_HTTP_FINAL.rawValue : LWS_WRITE_HTTP.rawValue)
            if cc_lws_write(wsi, payload, count, flags) < 0 { return false }
            offset += count
        }
        return true
    }

    /// Headers the server writes itself; a response may not set them.
    private static let reservedResponseHeaders: Set<String> = ["content-length", "content-type", "connection", "transfer-encoding"]

    private static func addHeader(_ wsi: OpaquePointer, _ name: String, _ value: String,
                                  _ cursor: inout UnsafeMutablePointer<UInt8>?, _ end: UnsafeMutablePointer<UInt8>) -> Bool {
        return lws_add_http_header_by_name(wsi, name + ":", value, Int32(value.utf8.count), &cursor, end) == 0
    }

    /// An RFC 9110 token: the characters a header name may have.
    static func isFieldName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 256 else { return false }
        return name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }

    /// A header value that cannot end the header or smuggle another: no CR, LF or NUL, and bounded.
    static func isFieldValue(_ value: String) -> Bool {
        return value.utf8.count <= HTTPHeaders.maxValueBytes && !value.utf8.contains { $0 == 13 || $0 == 10 || $0 == 0 }
    }
}
