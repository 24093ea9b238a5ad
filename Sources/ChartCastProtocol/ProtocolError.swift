/// The `code` of a protocol v1 `error` message. The raw values are the wire names.
public enum ErrorCode: String, CaseIterable, Sendable {
    case badJSON = "bad_json"
    case unknownType = "unknown_type"
    case unknownChart = "unknown_chart"
    case badField = "bad_field"
    case noViewport = "no_viewport"
    case unsupported = "unsupported"
    case tooLarge = "too_large"
    case rateLimited = "rate_limited"
    /// The connection may not do this (a viewer publishing without write rights).
    case forbidden = "forbidden"
    /// A published point is invalid (non-finite, wrong x kind, unknown category, a 33rd
    /// series…); nothing of the message was applied.
    case badPoint = "bad_point"
    /// The server cannot store the write now (its history store is failing — a full or
    /// read-only disk — or too far behind); nothing was applied, the same write may succeed later.
    case unavailable = "unavailable"
}

/// A message that cannot be acted on: the code, a human-readable reason, and the `ref` of the
/// client message that caused it when that message carried one (so a client can tell which of
/// its requests was refused).
public struct ProtocolError: Error, Equatable, CustomStringConvertible, Sendable {
    public var code: ErrorCode
    public var message: String
    public var ref: String?

    public init(_ code: ErrorCode, _ message: String, ref: String? = nil) {
        self.code = code
        self.message = message
        self.ref = ref
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// Longest `message` an `error` frame carries, in Unicode scalars (at most 6,000 bytes of
    /// JSON); a longer one is cut, ending in `…`. Messages quote input only clipped, so this is a
    /// backstop that bounds the frame whatever a message says.
    public static let maxMessageScalars = 1_000

    /// `message` as an `error` frame carries it: at most `maxMessageScalars` scalars.
    var boundedMessage: String {
        guard message.unicodeScalars.count > ProtocolError.maxMessageScalars else { return message }
        return message.clipped(to: ProtocolError.maxMessageScalars - 1) + "…"
    }
}
