import CLibWebsockets

/// A dynamic HTTP response whose body is being written in chunks; kept in the wsi's
/// per-session user data until the body is out.
/// - Note: service thread only.
final class PendingHTTPResponse {
    let body: [UInt8]
    var offset = 0
    /// Close the connection after the body instead of keeping it alive
    /// (used when a request body may still be unread).
    let closeAfter: Bool

    init(body: [UInt8], closeAfter: Bool) {
        self.body = body
        self.closeAfter = closeAfter
    }
}

extension WebSocketServer {
    private static let methodTokens: [(lws_token_indexes, String)] = [
        (WSI_TOKEN_GET_URI, "GET"), (WSI_TOKEN_HEAD_URI, "HEAD"), (WSI_TOKEN_POST_URI, "POST"),
        (WSI_TOKEN_PUT_URI, "PUT"), (WSI_TOKEN_PATCH_URI, "PATCH"), (WSI_TOKEN_DELETE_URI, "DELETE"),
        (WSI_TOKEN_OPTIONS_URI, "OPTIONS"),
    ]

    /// `LWS_CALLBACK_HTTP`: the delegate first, then static files, else 404.
    /// Methods other than GET and HEAD get 405.
    /// - Note: service thread only.
    func handleHTTP(_ wsi: OpaquePointer, session: PerSessionData, input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        let path: String
        if let input = input, length > 0 {
            path = String(decoding: UnsafeRawBufferPointer(start: input, count: length), as: UTF8.self)
        } else if let input = input {
            path = String(cString: input.assumingMemoryBound(to: CChar.self))
        } else {
            path = "/"
        }
        var method = "UNKNOWN"
        for (token, name) in WebSocketServer.methodTokens where lws_hdr_total_length(wsi, token) > 0 {
            method = name
            break
        }
        let query = WebSocketServer.queryString(wsi)
        let request = HTTPRequest(method: method, path: path, query: query)
        guard method == "GET" || method == "HEAD" else {
            return respond(wsi, session, .text("method not allowed\n", status: 405), headOnly: false, closeAfter: true)
        }
        let headOnly = method == "HEAD"
        if let response = delegate?.webSocketServer(self, respondTo: request) {
            return respond(wsi, session, response, headOnly: headOnly, closeAfter: false)
        }
        guard let files = files else {
            return respond(wsi, session, .text("not found\n", status: 404), headOnly: headOnly, closeAfter: false)
        }
        switch files.resolve(path) {
        case .forbidden:
            WebSocketLog.log(.info, "refused static path \(path)")
            return respond(wsi, session, .text("forbidden\n", status: 403), headOnly: headOnly, closeAfter: false)
        case .notFound:
            return respond(wsi, session, .text("not found\n", status: 404), headOnly: headOnly, closeAfter: false)
        case .file(let filePath, let contentType):
            let result = lws_serve_http_file(wsi, filePath, contentType, nil, 0)
            if result < 0 { return -1 }
            if result > 0 { return lws_http_transaction_completed(wsi) != 0 ? -1 : 0 }
            return 0
        }
    }

    /// The query string (libwebsockets keeps it as `&`-separated fragments).
    private static func queryString(_ wsi: OpaquePointer) -> String? {
        let total = Int(lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_URI_ARGS))
        guard total > 0 else { return nil }
        var parts: [String] = []
        var buffer = [CChar](repeating: 0, count: total + 1)
        for index in 0..<64 {
            let n = lws_hdr_copy_fragment(wsi, &buffer, Int32(buffer.count), WSI_TOKEN_HTTP_URI_ARGS, Int32(index))
            if n <= 0 { break }
            parts.append(String(cString: buffer))
        }
        return parts.joined(separator: "&")
    }

    /// Writes the headers now and arms `HTTP_WRITEABLE` for the body.
    private func respond(_ wsi: OpaquePointer, _ session: PerSessionData, _ response: HTTPResponse,
                         headOnly: Bool, closeAfter: Bool) -> Int32 {
        let start = (httpScratch + lwsPre).assumingMemoryBound(to: UInt8.self)
        let end = start + WebSocketServer.httpChunkSize - 1
        var cursor: UnsafeMutablePointer<UInt8>? = start
        let status = UInt32(clamping: max(100, min(599, response.status)))
        if lws_add_http_common_headers(wsi, status, response.contentType, lws_filepos_t(response.body.count), &cursor, end) != 0 {
            return 1
        }
        let noStore = "no-store"
        if lws_add_http_header_by_name(wsi, "cache-control:", noStore, Int32(noStore.utf8.count), &cursor, end) != 0 {
            return 1
        }
        if lws_finalize_write_http_header(wsi, start, &cursor, end) != 0 {
            return 1
        }
        if headOnly || response.body.isEmpty {
            return finishTransaction(wsi, closeAfter: closeAfter)
        }
        guard session.attach(PendingHTTPResponse(body: response.body, closeAfter: closeAfter)) else { return -1 }
        lws_callback_on_writable(wsi)
        return 0
    }

    /// `LWS_CALLBACK_HTTP_WRITEABLE`: one body chunk per callback.
    func httpWritable(_ wsi: OpaquePointer, session: PerSessionData) -> Int32 {
        guard !loop.isTearingDown, let pending = session.httpResponse else { return 0 }
        let remaining = pending.body.count - pending.offset
        let count = min(remaining, WebSocketServer.httpChunkSize)
        let final = count == remaining
        let payload = (httpScratch + lwsPre).assumingMemoryBound(to: UInt8.self)
        pending.body.withUnsafeBufferPointer { body in
            payload.update(from: body.baseAddress! + pending.offset, count: count)
        }
        let flags = Int32(final ? LWS_WRITE_HTTP_FINAL.rawValue : LWS_WRITE_HTTP.rawValue)
        if cc_lws_write(wsi, payload, count, flags) < 0 {
            session.detachHTTPResponse()
            return -1
        }
        pending.offset += count
        if final {
            session.detachHTTPResponse()
            return finishTransaction(wsi, closeAfter: pending.closeAfter)
        }
        lws_callback_on_writable(wsi)
        return 0
    }

    private func finishTransaction(_ wsi: OpaquePointer, closeAfter: Bool) -> Int32 {
        if closeAfter { return -1 }
        return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
    }
}
