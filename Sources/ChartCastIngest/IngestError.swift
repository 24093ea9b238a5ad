import ChartCastProtocol

/// Why a write body was refused: the code, a message naming the line and the field, series or
/// column, and where the first problem is.
///
/// Every parser and validator of this module throws only this type, so the server answers every
/// refused write the same way: `httpStatus` and `httpBody()`.
public struct IngestError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The `code` of the HTTP error body. The raw values are the wire names.
    public enum Code: String, Sendable, CaseIterable {
        /// The body is not parseable as its content type (syntax, encoding, shape).
        case badRequest = "bad_request"
        /// A point is invalid: wrong type, non-finite, wrong x for the chart, unknown category,
        /// too many series.
        case badPoint = "bad_point"
        /// Over a limit: too many points or values, or a body that inflates past its limit.
        case tooLarge = "too_large"
    }

    /// What kind of problem.
    public var code: Code
    /// Human-readable, starting with `line N: ` when the line is known (`line 3: field "user" is
    /// not a number`).
    public var message: String
    /// 1-based line of the body where the first problem is (a CSV header is line 1); `nil` when
    /// the problem has no line (a corrupt gzip stream).
    public var line: Int?
    /// 0-based position of the offending point in `points`, in the columns or among the CSV data
    /// rows, when a point is wrong; `nil` otherwise and for line protocol (one line, one point
    /// per field).
    public var index: Int?

    /// Creates an error; `problem` is prefixed with `line N: ` when `line` is given.
    public init(_ code: Code, _ problem: String, line: Int? = nil, index: Int? = nil) {
        self.code = code
        self.message = line.map { "line \($0): \(problem)" } ?? problem
        self.line = line
        self.index = index
    }

    /// 413 for `too_large`, else 400.
    public var httpStatus: Int { code == .tooLarge ? 413 : 400 }

    /// The HTTP error body: `{"error":{"code":…,"message":…,"line":…,"index":…}}`, `line` and
    /// `index` present when known.
    public func httpBody() -> [UInt8] {
        APIBody.encode(APIBody.Failure(code: code.rawValue, message: message, line: line, index: index))
    }

    public var description: String { "\(code.rawValue): \(message)" }

    static func badRequest(_ problem: String, line: Int? = nil) -> IngestError {
        IngestError(.badRequest, problem, line: line)
    }

    /// A wrong point; `line` 0 is a point with no body line (a WebSocket `publish`).
    static func badPoint(_ problem: String, line: Int, index: Int? = nil) -> IngestError {
        IngestError(.badPoint, problem, line: line > 0 ? line : nil, index: index)
    }

    static func tooLarge(_ problem: String, line: Int? = nil) -> IngestError {
        IngestError(.tooLarge, problem, line: line)
    }
}

/// Short, printable quotations of body bytes for error messages.
enum Quote {
    /// `bytes` as a JSON-style quoted string, at most `limit` characters (then `…`); invalid
    /// UTF-8 is shown as U+FFFD.
    static func bytes(_ bytes: some Collection<UInt8>, limit: Int = 32) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        return string(text, limit: limit)
    }

    /// `text` quoted, control characters escaped, at most `limit` characters.
    static func string(_ text: String, limit: Int = 32) -> String {
        var out = "\""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit { out += "…"; break }
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
            count += 1
        }
        return out + "\""
    }
}
