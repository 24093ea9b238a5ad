import ChartCastIngest
import ChartCastStorage
import ChartCastProtocol
import Foundation

/// One HTTP request as the API sees it: the transport's request reduced to what the endpoints
/// read, so the API can be driven without sockets.
struct APIRequest: Sendable {
    var method: String
    /// The path without its query.
    var path: String
    /// The query string without `?`.
    var query: String?
    /// Request headers by lower-cased name.
    var headers: [String: String]
    var body: [UInt8]
    /// The peer's IP address (no port).
    var peerIP: String

    init(method: String, path: String, query: String? = nil, headers: [String: String] = [:], body: [UInt8] = [],
         peerIP: String = "127.0.0.1") {
        self.method = method
        self.path = path
        self.query = query
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
        self.peerIP = peerIP
    }

    func header(_ name: String) -> String? { headers[name] }

    /// The first value of query parameter `name` (`a=1&b=2`), nil when absent.
    func queryValue(_ name: String) -> String? {
        guard let query else { return nil }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts[0] == name { return parts.count > 1 ? String(parts[1]) : "" }
        }
        return nil
    }

    /// The media type of `Content-Type` without parameters, lower-cased (`application/json`).
    var mediaType: String? {
        guard let value = header("content-type") else { return nil }
        return value.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }
}

/// One HTTP answer of the API.
struct APIResponse: Equatable, Sendable {
    var status: Int
    var contentType: String
    var body: [UInt8]
    /// Extra headers (`Allow`).
    var headers: [Header] = []

    struct Header: Equatable, Sendable {
        var name: String
        var value: String
    }

    static func json(_ body: [UInt8], status: Int = 200) -> APIResponse {
        APIResponse(status: status, contentType: "application/json", body: body)
    }

    static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> APIResponse {
        APIResponse(status: status, contentType: contentType, body: Array(text.utf8))
    }

    /// 204, no body.
    static let noContent = APIResponse(status: 204, contentType: "text/plain; charset=utf-8", body: [])

    /// The error body of the brief with `status`.
    static func error(_ status: Int, _ code: String, _ message: String, line: Int? = nil, index: Int? = nil) -> APIResponse {
        .json(APIBody.encode(APIBody.Failure(code: code, message: message, line: line, index: index)), status: status)
    }

    static func error(_ error: IngestError) -> APIResponse {
        APIResponse(status: error.httpStatus, contentType: "application/json", body: error.httpBody())
    }

    static func methodNotAllowed(_ method: String, allowed: [String]) -> APIResponse {
        var response = error(405, "method_not_allowed", "\(method.prefix(16)) is not allowed here; use \(allowed.joined(separator: ", "))")
        response.headers.append(Header(name: "allow", value: allowed.joined(separator: ", ")))
        return response
    }

    static func unknownEndpoint(_ path: String) -> APIResponse {
        error(404, "not_found", "no API endpoint at \(path.prefix(200))")
    }

    static func unknownChart(_ id: String) -> APIResponse {
        error(404, "unknown_chart", "no chart with id \"\(id.prefix(80))\"")
    }

    /// 503 `unavailable`: the history store could not take the write; nothing was applied and
    /// the same request may succeed later (`Retry-After: 1`).
    static func unavailable(_ error: StorageError) -> APIResponse {
        var response = APIResponse.error(503, "unavailable", error.message)
        response.headers.append(Header(name: "retry-after", value: "1"))
        return response
    }

    /// A body that could not be read (decompressed, parsed): its `IngestError`'s answer; 500
    /// for anything else, which would be a bug.
    static func unreadable(_ error: Error) -> APIResponse {
        if let error = error as? IngestError { return .error(error) }
        return .error(500, "internal", "\(error)")
    }
}

extension APIResponse {
    /// The answer to a write of points: `{"accepted":N,"seq":S}`, or its error.
    init(_ outcome: WriteOutcome) {
        switch outcome {
        case .applied(let seq, let accepted): self = .json(APIBody.accepted(accepted, seq: seq))
        case .unknownChart(let id): self = .unknownChart(id)
        case .rejected(let error): self = .error(error)
        case .unavailable(let error): self = .unavailable(error)
        }
    }
}
