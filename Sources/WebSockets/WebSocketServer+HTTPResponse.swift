import CLibWebsockets

/// The answering side of the server's HTTP: handing a complete request to the delegate, falling
/// back to static files, and writing the response — the headers in one `HTTP_WRITEABLE`
/// callback, then the body in chunks of `httpChunkSize`. See `WebSocketServer+HTTP.swift` for
/// how requests and their bodies are read.
extension WebSocketServer {
    /// Hands the complete request to the delegate and acts on its answer.
    func dispatch(_ exchange: HTTPExchange, wsi: OpaquePointer, session: PerSessionData) -> Int32 {
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
            guard isServedFile(filePath) else {
                send(.text("not found\n", status: 404), on: exchange)
                return 0
            }
            // libwebsockets serves the file itself and reports `HTTP_FILE_COMPLETION`.
            session.detachExchange()
            let extra = staticHeaderBlock
            let result = lws_serve_http_file(wsi, filePath, contentType, extra.isEmpty ? nil : extra, Int32(extra.utf8.count))
            if result < 0 { return -1 }
            if result > 0 { return lws_http_transaction_completed(wsi) != 0 ? -1 : 0 }
            return 0
        }
    }

    /// Whether `configuration.staticFileExtensions` lets the file at `path` be served.
    private func isServedFile(_ path: String) -> Bool {
        guard let extensions = configuration.staticFileExtensions else { return true }
        let name = path.split(separator: "/").last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
        return extensions.contains(name[name.index(after: dot)...].lowercased())
    }

    /// `configuration.staticFileHeaders` as the header lines libwebsockets inserts after its own
    /// (`name: value\r\n` each), invalid fields left out.
    var staticHeaderBlock: String {
        configuration.staticFileHeaders
            .filter { WebSocketServer.isFieldName($0.name) && WebSocketServer.isFieldValue($0.value) }
            .map { "\($0.name): \($0.value)\r\n" }
            .joined()
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
