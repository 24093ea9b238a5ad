/// The `code` of a protocol v1 `error` message.
public enum ErrorCode: String, CaseIterable, Sendable {
    case badJSON = "bad_json"
    case unknownType = "unknown_type"
    case unknownChart = "unknown_chart"
    case badField = "bad_field"
    case noViewport = "no_viewport"
    case unsupported = "unsupported"
    case tooLarge = "too_large"
    case rateLimited = "rate_limited"
}

/// A client message that cannot be acted on: the code and a human-readable reason.
public struct ProtocolError: Error, Equatable, CustomStringConvertible, Sendable {
    public var code: ErrorCode
    public var message: String
    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { "\(code.rawValue): \(message)" }
}
