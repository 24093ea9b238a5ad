/// A plain HTTP request as seen by `WebSocketServerDelegate.webSocketServer(_:respondTo:)`.
public struct HTTPRequest: Equatable {
    /// `GET`, `HEAD`, `POST`, …
    public var method: String
    /// The request path without the query, as libwebsockets parsed it: starts
    /// with `/`, percent-escapes decoded, `.`/`..` segments and `//` resolved
    /// (so `/x/../api/%65cho` arrives as `/api/echo`).
    public var path: String
    /// The query string without `?` (its escapes decoded by libwebsockets), or nil when there was none.
    public var query: String?

    public init(method: String, path: String, query: String?) {
        self.method = method
        self.path = path
        self.query = query
    }
}

/// A complete HTTP response: status, content type and the whole body.
public struct HTTPResponse: Equatable {
    public var status: Int
    public var contentType: String
    public var body: [UInt8]

    public init(status: Int, contentType: String, body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }

    /// A `text/plain; charset=utf-8` response.
    public static func text(_ s: String, status: Int = 200) -> HTTPResponse {
        return HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array(s.utf8))
    }

    /// An `application/json` response with already-encoded bytes.
    public static func json(_ bytes: [UInt8], status: Int = 200) -> HTTPResponse {
        return HTTPResponse(status: status, contentType: "application/json", body: bytes)
    }
}
