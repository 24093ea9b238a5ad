import Foundation
import WebSockets

/// Severity of a log line, from least to most verbose.
public enum LogLevel: Int, Comparable, CaseIterable, Sendable {
    case error, warn, info, debug

    public init?(name: String) {
        switch name.lowercased() {
        case "error": self = .error
        case "warn", "warning": self = .warn
        case "info": self = .info
        case "debug": self = .debug
        default: return nil
        }
    }

    public var name: String {
        switch self {
        case .error: return "error"
        case .warn: return "warn"
        case .info: return "info"
        case .debug: return "debug"
        }
    }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Writes timestamped lines to standard error; libwebsockets' own log lines go through it too.
///
/// Thread-safe: lws logs from its service thread while the executable logs from the main thread.
public final class Logger: @unchecked Sendable {
    public let level: LogLevel
    private let lock = NSLock()
    private let sink: (String) -> Void
    /// Monotonic seconds, for `RepeatedLines`.
    private let clock: () -> Double
    private var repeats = RepeatedLines()

    /// - Parameters:
    ///   - sink: where finished lines go; standard error by default.
    ///   - clock: monotonic seconds for rate-limiting repeated lines (tests pass their own).
    public init(level: LogLevel, sink: ((String) -> Void)? = nil, clock: (() -> Double)? = nil) {
        self.level = level
        self.sink = sink ?? { line in FileHandle.standardError.write((line + "\n").data(using: .utf8)!) }
        self.clock = clock ?? { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
    }

    /// Routes libwebsockets' log lines into this logger, tagged `lws`.
    public func captureLibWebsocketsLogs() {
        let lwsLevel: WebSocketLogLevel
        switch level {
        case .error: lwsLevel = .error
        case .warn: lwsLevel = .warn
        case .info: lwsLevel = .warn   // lws's info level is a firehose; keep it for debug
        case .debug: lwsLevel = .debug
        }
        WebSocketLog.configure(level: lwsLevel) { [weak self] wsLevel, message in
            let mapped: LogLevel
            switch wsLevel {
            case .error: mapped = .error
            case .warn: mapped = .warn
            case .info: mapped = .info
            case .debug: mapped = .debug
            }
            let text = Logger.sanitized(message.trimmingCharacters(in: .whitespacesAndNewlines), limit: 300)
            // Lines that differ only in numbers (fds, counts, addresses) are one kind.
            let kind = "lws:" + String(text.unicodeScalars.filter { !("0"..."9").contains($0) }.prefix(48))
            self?.log(mapped, key: kind, "lws: " + text)
        }
    }

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level <= self.level else { return }
        let line = "\(Logger.timestamp()) \(level.name) \(message())"
        lock.lock()
        sink(line)
        lock.unlock()
    }

    /// Logs a line of kind `key` at most once a second; the ones in between are counted and the
    /// next line written says how many were left out. For lines a client can cause at will.
    public func log(_ level: LogLevel, key: String, _ message: @autoclosure () -> String) {
        guard level <= self.level else { return }
        lock.lock()
        defer { lock.unlock() }
        guard let suppressed = repeats.admit(key, now: clock()) else { return }
        sink("\(Logger.timestamp()) \(level.name) \(message())" + RepeatedLines.suffix(suppressed))
    }

    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    public func warn(_ message: @autoclosure () -> String) { log(.warn, message()) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }

    private static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var parts = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                      parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min, parts.tm_sec, Int(now.tv_nsec / 1_000_000))
    }
}
