import CLibWebsockets

/// Copies a request's head out of libwebsockets' header table into an `HTTPRequest` (a value,
/// so nothing points into the table once the callback returns).
/// - Note: service thread only, inside a callback whose wsi still has its headers
///   (`HTTP`, `HTTP_CONFIRM_UPGRADE`, `ESTABLISHED`).
struct RequestHeadReader {
    /// The tokens libwebsockets files request headers under, with their lower-cased names:
    /// every token whose name is a header name (`content-type:`), not a method, the URI
    /// arguments, an HTTP/2 pseudo-header or a client-side slot.
    static let headerTokens: [(token: lws_token_indexes, name: String)] = {
        var tokens: [(lws_token_indexes, String)] = []
        for raw in 0...WSI_TOKEN_X_AUTH_TOKEN.rawValue {
            let token = lws_token_indexes(rawValue: raw)
            guard let text = lws_token_to_string(token) else { continue }
            let name = String(cString: text)
            guard name.count > 1, name.hasSuffix(":"), !name.hasPrefix(":") else { continue }
            tokens.append((token, String(name.dropLast())))
        }
        return tokens
    }()

    private static let methodTokens: [(lws_token_indexes, String)] = [
        (WSI_TOKEN_GET_URI, "GET"), (WSI_TOKEN_HEAD_URI, "HEAD"), (WSI_TOKEN_POST_URI, "POST"),
        (WSI_TOKEN_PUT_URI, "PUT"), (WSI_TOKEN_PATCH_URI, "PATCH"), (WSI_TOKEN_DELETE_URI, "DELETE"),
        (WSI_TOKEN_OPTIONS_URI, "OPTIONS"),
    ]

    /// The tokens a request target can be filed under (one per method).
    static var uriTokens: [lws_token_indexes] { methodTokens.map { $0.0 } }

    /// Custom header names as libwebsockets matches them: lower-cased, with the colon.
    private let customNames: [(name: String, key: [CChar])]

    init(customHeaders: [String]) {
        var seen = Set<String>()
        customNames = customHeaders.compactMap { raw in
            let name = raw.lowercased().trimmingASCIIWhitespace()
            guard !name.isEmpty, seen.insert(name).inserted else { return nil }
            return (name, Array((name + ":").utf8CString.dropLast()))
        }
    }

    /// Bytes of the configured custom headers' values present.
    func customHeaderBytes(_ wsi: OpaquePointer) -> Int {
        var total = 0
        for (_, key) in customNames {
            total += max(0, Int(lws_hdr_custom_length(wsi, key, Int32(key.count))))
        }
        return total
    }

    /// The request's method, nil for one libwebsockets does not name.
    static func method(_ wsi: OpaquePointer) -> String? {
        for (token, name) in methodTokens where lws_hdr_total_length(wsi, token) > 0 {
            return name
        }
        return nil
    }

    /// The request path as libwebsockets normalised it: the callback's `input` for
    /// `LWS_CALLBACK_HTTP`, else the URI token of `method`.
    static func path(_ wsi: OpaquePointer, input: UnsafeMutableRawPointer?, length: Int, method: String?) -> String {
        if let input = input, length > 0 {
            return String(decoding: UnsafeRawBufferPointer(start: input, count: length), as: UTF8.self)
        }
        if let input = input {
            return String(cString: input.assumingMemoryBound(to: CChar.self))
        }
        let token = methodTokens.first { $0.1 == method }?.0 ?? WSI_TOKEN_GET_URI
        return copy(wsi, token) ?? "/"
    }

    /// The query string (libwebsockets keeps it as `&`-separated fragments), nil when none.
    static func query(_ wsi: OpaquePointer) -> String? {
        let total = Int(lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_URI_ARGS))
        guard total > 0 else { return nil }
        var parts: [String] = []
        var buffer = [CChar](repeating: 0, count: total + 1)
        for index in 0..<256 {
            let n = lws_hdr_copy_fragment(wsi, &buffer, Int32(buffer.count), WSI_TOKEN_HTTP_URI_ARGS, Int32(index))
            if n < 0 { break }
            parts.append(String(cString: buffer))
        }
        return parts.joined(separator: "&")
    }

    /// Every known header present, then the configured custom ones, each value trimmed and at
    /// most `HTTPHeaders.maxValueBytes` long (longer ones are left out).
    func headers(_ wsi: OpaquePointer) -> HTTPHeaders {
        var headers = HTTPHeaders()
        var buffer = [CChar](repeating: 0, count: 512)
        for (token, name) in RequestHeadReader.headerTokens {
            let length = Int(lws_hdr_total_length(wsi, token))
            guard length > 0 else { continue }
            guard length <= HTTPHeaders.maxValueBytes else {
                WebSocketLog.log(.info, "dropping a \(name) header of \(length) bytes")
                continue
            }
            if buffer.count <= length { buffer = [CChar](repeating: 0, count: length + 1) }
            let n = Int(lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token))
            guard n >= 0 else { continue }
            headers.add(name: name, value: RequestHeadReader.value(buffer, count: n))
        }
        for (name, key) in customNames {
            let length = Int(lws_hdr_custom_length(wsi, key, Int32(key.count)))
            guard length >= 0 else { continue }
            guard length <= HTTPHeaders.maxValueBytes else {
                WebSocketLog.log(.info, "dropping a \(name) header of \(length) bytes")
                continue
            }
            if buffer.count <= length { buffer = [CChar](repeating: 0, count: length + 1) }
            let n = Int(lws_hdr_custom_copy(wsi, &buffer, Int32(buffer.count), key, Int32(key.count)))
            guard n >= 0 else { continue }
            headers.add(name: name, value: RequestHeadReader.value(buffer, count: n))
        }
        return headers
    }

    /// The whole request head: method, path, query, headers and peer.
    func request(_ wsi: OpaquePointer, method: String, path: String) -> HTTPRequest {
        return HTTPRequest(method: method, path: path, query: RequestHeadReader.query(wsi), headers: headers(wsi),
                           peerIP: ListenSupport.peerIP(fd: Int32(lws_get_socket_fd(wsi))))
    }

    private static func copy(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0, length <= 8192 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        let n = Int(lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token))
        guard n >= 0 else { return nil }
        return value(buffer, count: n)
    }

    private static func value(_ buffer: [CChar], count: Int) -> String {
        let bytes = buffer.prefix(min(count, buffer.count)).prefix { $0 != 0 }
        return String(decoding: bytes.map { UInt8(bitPattern: $0) }, as: UTF8.self).trimmingASCIIWhitespace()
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    func trimmingASCIIWhitespace() -> String {
        let utf8 = self.utf8
        guard let first = utf8.firstIndex(where: { $0 != 32 && $0 != 9 }) else { return "" }
        let last = utf8.lastIndex(where: { $0 != 32 && $0 != 9 })!
        return String(self[first...last])
    }
}
