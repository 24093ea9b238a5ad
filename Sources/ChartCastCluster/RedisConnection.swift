import CHiredis
#if canImport(Glibc)
import Glibc
#endif

/// One blocking connection to a Redis server, through hiredis: commands, pipelines, and a new
/// connection after the old one broke.
///
/// Commands are argument vectors of bytes (`redisCommandArgv`, binary-safe; nothing is
/// formatted from a template). A command that loses the connection throws
/// `RedisError.connectionLost` and closes it; the next command connects again, so a caller
/// that retries (with its own backoff) rides through a server restart. An error reply is not
/// thrown by `command`: it is the `.error` reply (`checked()` turns it into a throw).
///
/// - Note: not thread-safe. Each connection belongs to one thread of `ChartCastCluster`, the
///   only module that imports hiredis; the service thread never holds one.
public final class RedisConnection {
    public let endpoint: RedisEndpoint
    /// Seconds a connect, or a read or write on the socket, may take before the command fails.
    public let timeout: Double
    private var context: UnsafeMutablePointer<redisContext>?

    /// A connection to `endpoint`; it connects on the first command (or `connect()`).
    public init(endpoint: RedisEndpoint, timeout: Double = 5) {
        self.endpoint = endpoint
        self.timeout = timeout
    }

    deinit { disconnect() }

    /// Whether a connection is open (it may still turn out broken on the next command).
    public var isConnected: Bool { context != nil }

    /// Connects (when not connected) and selects the endpoint's database.
    /// - Throws: `RedisError.connectionFailed` with hiredis' reason.
    public func connect() throws {
        guard context == nil else { return }
        let limit = RedisConnection.timeval(seconds: timeout)
        guard let made = redisConnectWithTimeout(endpoint.host, Int32(endpoint.port), limit) else {
            throw RedisError.connectionFailed("\(endpoint): out of memory")
        }
        if made.pointee.err != 0 {
            let why = String(cString: cc_redis_errstr(made))
            redisFree(made)
            throw RedisError.connectionFailed("\(endpoint): \(why)")
        }
        guard redisSetTimeout(made, limit) == REDIS_OK else {
            let why = String(cString: cc_redis_errstr(made))
            redisFree(made)
            throw RedisError.connectionFailed("\(endpoint): \(why)")
        }
        _ = redisEnableKeepAlive(made)
        context = made
        if endpoint.database != 0 {
            do {
                try command(["SELECT", String(endpoint.database)]).checked()
            } catch {
                disconnect()
                throw RedisError.connectionFailed("\(endpoint): \(error)")
            }
        }
    }

    /// Closes the connection (a later command connects again).
    public func disconnect() {
        if let context { redisFree(context) }
        context = nil
    }

    /// Sends one command and waits for its reply.
    /// - Throws: `RedisError.connectionFailed` / `.connectionLost` (the connection is closed).
    public func command(_ arguments: [[UInt8]]) throws -> RedisReply {
        try connect()
        guard let context else { throw RedisError.connectionLost("not connected") }
        let raw = RedisConnection.withArgv(arguments) { argc, argv, lengths in
            redisCommandArgv(context, argc, argv, lengths)
        }
        guard let raw else { throw lost() }
        defer { freeReplyObject(raw) }
        return RedisConnection.reply(raw.assumingMemoryBound(to: redisReply.self))
    }

    /// `command` with text arguments.
    public func command(_ arguments: [String]) throws -> RedisReply {
        try command(arguments.map { Array($0.utf8) })
    }

    /// Sends every command in one write and reads their replies in order: one round trip for
    /// all of them. A broken connection fails the whole pipeline (some commands may have run).
    /// - Throws: `RedisError.connectionFailed` / `.connectionLost`.
    public func pipeline(_ commands: [[[UInt8]]]) throws -> [RedisReply] {
        guard !commands.isEmpty else { return [] }
        try connect()
        guard let context else { throw RedisError.connectionLost("not connected") }
        for arguments in commands {
            let appended = RedisConnection.withArgv(arguments) { argc, argv, lengths in
                redisAppendCommandArgv(context, argc, argv, lengths)
            }
            guard appended == REDIS_OK else { throw lost() }
        }
        var replies: [RedisReply] = []
        replies.reserveCapacity(commands.count)
        for _ in commands {
            var raw: UnsafeMutableRawPointer?
            guard redisGetReply(context, &raw) == REDIS_OK, let raw else { throw lost() }
            replies.append(RedisConnection.reply(raw.assumingMemoryBound(to: redisReply.self)))
            freeReplyObject(raw)
        }
        return replies
    }

    /// The error of a failed call, with the connection closed (hiredis cannot reuse it).
    private func lost() -> RedisError {
        let why = context.map { String(cString: cc_redis_errstr($0)) } ?? "not connected"
        disconnect()
        return .connectionLost("\(endpoint): \(why.isEmpty ? "the connection closed" : why)")
    }

    /// Calls `body` with `argc`, `argv` and `argvlen` for `arguments`, all pointing into one
    /// contiguous copy of the bytes that lives for the call.
    private static func withArgv<R>(_ arguments: [[UInt8]],
                                    _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<Int>) -> R) -> R {
        var flat: [UInt8] = []
        flat.reserveCapacity(arguments.reduce(1) { $0 + $1.count })
        var offsets: [Int] = []
        var lengths: [Int] = []
        offsets.reserveCapacity(arguments.count)
        lengths.reserveCapacity(arguments.count)
        for argument in arguments {
            offsets.append(flat.count)
            lengths.append(argument.count)
            flat.append(contentsOf: argument)
        }
        flat.append(0)   // a base address even when every argument is empty
        return flat.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!)
            var pointers: [UnsafePointer<CChar>?] = offsets.map { base.advanced(by: $0).assumingMemoryBound(to: CChar.self) }
            return pointers.withUnsafeMutableBufferPointer { argv in
                lengths.withUnsafeBufferPointer { argvlen in
                    body(Int32(arguments.count), argv.baseAddress!, argvlen.baseAddress!)
                }
            }
        }
    }

    /// Copies a hiredis reply tree into a `RedisReply`.
    private static func reply(_ raw: UnsafeMutablePointer<redisReply>) -> RedisReply {
        let r = raw.pointee
        switch r.type {
        case REDIS_REPLY_STRING:
            guard let str = r.str else { return .bytes([]) }
            return .bytes(Array(UnsafeRawBufferPointer(start: str, count: r.len)))
        case REDIS_REPLY_STATUS:
            return .status(r.str.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: r.len), as: UTF8.self) } ?? "")
        case REDIS_REPLY_ERROR:
            return .error(r.str.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: r.len), as: UTF8.self) } ?? "")
        case REDIS_REPLY_INTEGER:
            return .integer(Int(r.integer))
        case REDIS_REPLY_ARRAY:
            var items: [RedisReply] = []
            items.reserveCapacity(r.elements)
            for i in 0..<r.elements {
                if let element = r.element[i] { items.append(reply(element)) } else { items.append(.null) }
            }
            return .array(items)
        default:
            return .null
        }
    }

    private static func timeval(seconds: Double) -> Glibc.timeval {
        let whole = seconds.rounded(.down)
        return Glibc.timeval(tv_sec: Int(whole), tv_usec: Int((seconds - whole) * 1_000_000))
    }
}
