/// The dynamic HTTP endpoints: which path is which resource, and the methods each takes.
enum APIRoute: Equatable, Sendable {
    case healthz
    case metrics
    /// `/api/charts`
    case charts
    /// `/api/charts/{id}`
    case chart(String)
    /// `/api/charts/{id}/points`
    case chartPoints(String)
    /// `/api/charts/{id}/selection`
    case chartSelection(String)
    /// `/api/dashboard`
    case dashboard
    /// `/api/v2/write` (InfluxDB line protocol)
    case influxWrite

    /// The route of `path` (without its query), nil for paths the API does not own (the page's
    /// static files). Anything under `/api/` that names no endpoint is `nil` too and answered 404.
    static func match(_ path: String) -> APIRoute? {
        switch path {
        case "/healthz": return .healthz
        case "/metrics": return .metrics
        case "/api/charts", "/api/charts/": return .charts
        case "/api/dashboard": return .dashboard
        case "/api/v2/write": return .influxWrite
        default: break
        }
        guard path.hasPrefix("/api/charts/") else { return nil }
        let rest = path.dropFirst("/api/charts/".count).split(separator: "/", omittingEmptySubsequences: false)
        guard let id = rest.first, !id.isEmpty else { return nil }
        switch rest.count {
        case 1: return .chart(String(id))
        case 2 where rest[1] == "points": return .chartPoints(String(id))
        case 2 where rest[1] == "selection": return .chartSelection(String(id))
        default: return nil
        }
    }

    /// Whether `path` is under the API's prefix (so an unknown one is a JSON 404, not a file).
    static func isAPIPath(_ path: String) -> Bool { path == "/api" || path.hasPrefix("/api/") }

    /// The methods the resource takes (`HEAD` goes with every `GET`), for `405` and `Allow`.
    var allowedMethods: [String] {
        switch self {
        case .healthz, .metrics, .charts, .chartSelection, .dashboard: return ["GET", "HEAD"]
        case .chart: return ["GET", "HEAD", "PUT", "DELETE"]
        case .chartPoints: return ["GET", "HEAD", "POST"]
        case .influxWrite: return ["POST"]
        }
    }

    /// Whether a request with `method` changes state (and so needs write access).
    static func isWrite(_ method: String) -> Bool { ["PUT", "POST", "DELETE", "PATCH"].contains(method) }
}
