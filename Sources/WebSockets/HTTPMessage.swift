/// One header line: a name and its value.
public struct HTTPHeaderField: Equatable, Sendable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// Header fields with case-insensitive lookup, in the order they were added.
///
/// Request headers arrive with lower-cased names (libwebsockets lower-cases them as it parses);
/// several lines of one header are joined with `,` (`Cookie` with nothing), as libwebsockets
/// keeps them.
public struct HTTPHeaders: Equatable, Sendable, Sequence, ExpressibleByDictionaryLiteral {
    /// Header values longer than this are not kept: libwebsockets' header space (4 KiB per
    /// request by default) bounds them anyway.
    public static let maxValueBytes = 8 * 1024

    public private(set) var fields: [HTTPHeaderField]

    public init(_ fields: [HTTPHeaderField] = []) {
        self.fields = fields
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { HTTPHeaderField(name: $0.0, value: $0.1) }
    }

    /// The first value of `name` (any case), nil when absent.
    public subscript(name: String) -> String? {
        for field in fields where HTTPHeaders.sameName(field.name, name) {
            return field.value
        }
        return nil
    }

    /// Whether a field called `name` (any case) is present.
    public func contains(_ name: String) -> Bool {
        return self[name] != nil
    }

    /// Appends a field (an existing one of the same name stays and keeps precedence).
    public mutating func add(name: String, value: String) {
        fields.append(HTTPHeaderField(name: name, value: value))
    }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    public func makeIterator() -> IndexingIterator<[HTTPHeaderField]> {
        return fields.makeIterator()
    }

    /// ASCII case-insensitive equality (header names are ASCII tokens).
    static func sameName(_ a: String, _ b: String) -> Bool {
        let x = a.utf8, y = b.utf8
        guard x.count == y.count else { return false }
        for (p, q) in zip(x, y) where p != q {
            let lp = p >= 65 && p <= 90 ? p + 32 : p
            let lq = q >= 65 && q <= 90 ? q + 32 : q
            if lp != lq { return false }
        }
        return true
    }
}

/// An HTTP request as the delegate sees it (`WebSocketServerDelegate.webSocketServer(_:handle:responder:)`).
///
/// A value: everything is copied out of libwebsockets before the delegate sees it, so it can be
/// kept, or handed to another thread, for as long as needed.
public struct HTTPRequest: Equatable, Sendable {
    /// `GET`, `HEAD`, `POST`, `PUT`, `DELETE`, `PATCH` or `OPTIONS`.
    public var method: String
    /// The request path without the query, as libwebsockets parsed it: starts
    /// with `/`, percent-escapes decoded, `.`/`..` segments and `//` resolved
    /// (so `/x/../api/%65cho` arrives as `/api/echo`).
    public var path: String
    /// The query string without `?` (its escapes decoded by libwebsockets), or nil when there was none.
    public var query: String?
    /// The request headers: every header libwebsockets parses itself (`content-type`,
    /// `content-length`, `content-encoding`, `transfer-encoding`, `authorization`, `host`,
    /// `origin`, `accept`, `user-agent`, …) and those named in
    /// `WebSocketServerConfiguration.customRequestHeaders`. Names are lower-cased; lookup
    /// ignores case.
    public var headers: HTTPHeaders
    /// The complete body (chunked transfer coding removed); empty when there was none, and
    /// always empty in `shouldReadBodyOf` and `shouldAcceptUpgrade`.
    public var body: [UInt8]
    /// The peer's IP address without the port (`127.0.0.1`, `::1`; IPv4-mapped IPv6
    /// addresses as plain IPv4), `unknown` when the socket could not tell.
    public var peerIP: String

    public init(method: String, path: String, query: String?, headers: HTTPHeaders = HTTPHeaders(),
                body: [UInt8] = [], peerIP: String = "unknown") {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.peerIP = peerIP
    }
}

/// A complete HTTP response: status, content type, extra headers and the whole body.
///
/// Every dynamic response also carries `Cache-Control: no-store` and its `Content-Length`;
/// a `204` or `304` carries neither a body nor a length, whatever `body` holds.
public struct HTTPResponse: Equatable, Sendable {
    public var status: Int
    public var contentType: String
    public var body: [UInt8]
    /// Extra header fields (`Allow`, `Retry-After`, …). Names must be header tokens and values
    /// must not contain CR, LF or NUL; a field that breaks either rule is not sent.
    /// `Content-Length`, `Content-Type`, `Connection` and `Transfer-Encoding` are the server's.
    public var headers: [HTTPHeaderField]

    public init(status: Int, contentType: String, body: [UInt8], headers: [HTTPHeaderField] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
    }

    /// A `text/plain; charset=utf-8` response.
    public static func text(_ s: String, status: Int = 200) -> HTTPResponse {
        return HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array(s.utf8))
    }

    /// An `application/json` response with already-encoded bytes.
    public static func json(_ bytes: [UInt8], status: Int = 200) -> HTTPResponse {
        return HTTPResponse(status: status, contentType: "application/json", body: bytes)
    }

    /// `204 No Content`.
    public static var noContent: HTTPResponse {
        return HTTPResponse(status: 204, contentType: "", body: [])
    }

    /// Whether the status forbids a body (and a `Content-Length`): 1xx, 204, 304.
    public var statusForbidsBody: Bool {
        return status < 200 || status == 204 || status == 304
    }
}

/// The delegate's answer to an HTTP request.
public enum HTTPAnswer: Equatable {
    /// The response, sent at once.
    case now(HTTPResponse)
    /// The delegate answers later through the `HTTPResponder` it was handed.
    case later
    /// Not the delegate's: the server answers with a static file (GET, HEAD), or 404, or
    /// `405` with `Allow: GET, HEAD` for other methods.
    case notHandled
}
