/// One reply of a Redis server, copied out of hiredis' reply tree (which is freed at once).
public enum RedisReply: Equatable, Sendable {
    /// A bulk string: binary-safe bytes.
    case bytes([UInt8])
    /// A status reply (`+OK`).
    case status(String)
    case integer(Int)
    case array([RedisReply])
    /// A nil bulk string or nil array (a missing key, an `XREAD BLOCK` that timed out).
    case null
    /// An error reply (`-ERR …`, `-WRONGTYPE …`): the command failed, the connection is fine.
    case error(String)

    /// The bytes of a bulk string as UTF-8 text (status replies too), else nil.
    public var string: String? {
        switch self {
        case .bytes(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .status(let text): return text
        default: return nil
        }
    }

    /// An integer reply, or a bulk string holding a decimal integer (what `GET` of a counter gives).
    public var integer: Int? {
        switch self {
        case .integer(let value): return value
        case .bytes: return string.flatMap { Int($0) }
        default: return nil
        }
    }

    /// The elements of an array reply, else nil.
    public var array: [RedisReply]? {
        if case .array(let items) = self { return items }
        return nil
    }

    public var isNull: Bool { self == .null }

    /// The reply itself, or `RedisError.server` for an error reply.
    @discardableResult
    public func checked() throws -> RedisReply {
        if case .error(let message) = self { throw RedisError.server(message) }
        return self
    }
}

/// Why a Redis command did not get a reply it can use.
public enum RedisError: Error, Equatable, CustomStringConvertible {
    /// No connection could be made (refused, unreachable, timed out).
    case connectionFailed(String)
    /// The connection broke during a command (the server went away, a read timed out); it is
    /// closed, and the next command connects again.
    case connectionLost(String)
    /// The server answered with an error reply.
    case server(String)
    /// A reply of an unexpected shape.
    case unexpectedReply(String)

    public var description: String {
        switch self {
        case .connectionFailed(let why): return "cannot connect to Redis: \(why)"
        case .connectionLost(let why): return "lost the connection to Redis: \(why)"
        case .server(let message): return "Redis answered: \(message)"
        case .unexpectedReply(let what): return "unexpected reply from Redis: \(what)"
        }
    }

    /// Whether the connection itself failed (as opposed to the server refusing a command).
    public var isConnectionError: Bool {
        switch self {
        case .connectionFailed, .connectionLost: return true
        case .server, .unexpectedReply: return false
        }
    }
}
