import CLibWebsockets
import Foundation

/// Severity of a log line, from the most to the least important.
///
/// A sink configured at a level receives every line at that level or a more
/// important one (`.warn` receives `.error` and `.warn`).
public enum WebSocketLogLevel: Int, Comparable, CustomStringConvertible {
    case error, warn, info, debug

    public static func < (lhs: WebSocketLogLevel, rhs: WebSocketLogLevel) -> Bool {
        return lhs.rawValue < rhs.rawValue
    }

    public var description: String {
        switch self {
        case .error: return "error"
        case .warn: return "warn"
        case .info: return "info"
        case .debug: return "debug"
        }
    }

    /// The libwebsockets `LLL_*` bits enabled at this level.
    var lwsMask: Int32 {
        let error = LLL_ERR
        let warn = error | LLL_WARN
        let info = warn | LLL_NOTICE | LLL_USER
        switch self {
        case .error: return error
        case .warn: return warn
        case .info: return info
        case .debug: return info | LLL_INFO | LLL_DEBUG
        }
    }

    /// Maps one libwebsockets `LLL_*` bit to a level.
    init(lwsLevel: Int32) {
        if lwsLevel & LLL_ERR != 0 {
            self = .error
        } else if lwsLevel & LLL_WARN != 0 {
            self = .warn
        } else if lwsLevel & (LLL_NOTICE | LLL_USER) != 0 {
            self = .info
        } else {
            self = .debug
        }
    }
}

/// One place where libwebsockets' own log lines and this module's messages go.
///
/// Until `configure(level:sink:)` is called, lines at `.warn` and above are
/// written to standard error.
///
/// - Note: thread-safe. The sink is called on whichever thread logs (usually a
///   service thread), possibly on several threads at once, so it must be
///   thread-safe itself.
public enum WebSocketLog {
    private static let lock = NSLock()
    private static var level: WebSocketLogLevel = .warn
    private static var sink: (WebSocketLogLevel, String) -> Void = WebSocketLog.standardError
    private static var installedInLibrary = false

    /// Routes every line at `level` or more important to `sink`, including the
    /// lines libwebsockets emits itself.
    public static func configure(level: WebSocketLogLevel, sink: @escaping (WebSocketLogLevel, String) -> Void) {
        lock.lock()
        self.level = level
        self.sink = sink
        lock.unlock()
        installInLibrary(force: true)
    }

    /// The default sink: `[ws:level] message` on standard error.
    public static func standardError(_ level: WebSocketLogLevel, _ message: String) {
        FileHandle.standardError.write(Data("[ws:\(level)] \(message)\n".utf8))
    }

    /// Logs a message of this module; the text is built only when it passes the threshold.
    static func log(_ messageLevel: WebSocketLogLevel, _ message: @autoclosure () -> String) {
        lock.lock()
        let threshold = level
        let target = sink
        lock.unlock()
        guard messageLevel <= threshold else { return }
        target(messageLevel, message())
    }

    /// Points libwebsockets' emitter at the sink (once, unless `force`).
    static func installInLibrary(force: Bool = false) {
        lock.lock()
        if installedInLibrary && !force {
            lock.unlock()
            return
        }
        installedInLibrary = true
        let mask = level.lwsMask
        lock.unlock()
        lws_set_log_level(mask, libraryEmit)
    }

    /// Forwards one libwebsockets line (already formatted, with its own
    /// timestamp prefix and a trailing newline) to the sink.
    fileprivate static func forward(lwsLevel: Int32, line: UnsafePointer<CChar>?) {
        guard let line = line else { return }
        var text = String(cString: line)
        while text.last == "\n" || text.last == "\r" {
            text.removeLast()
        }
        LibraryErrorCapture.record(WebSocketLogLevel(lwsLevel: lwsLevel), text)
        log(WebSocketLogLevel(lwsLevel: lwsLevel), "lws: " + text)
    }
}

/// The C emitter handed to `lws_set_log_level`.
private let libraryEmit: @convention(c) (Int32, UnsafePointer<CChar>?) -> Void = { level, line in
    WebSocketLog.forward(lwsLevel: level, line: line)
}
