import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Collects the error lines libwebsockets emits on one thread while a call runs, so a failure
/// it only reports by returning NULL (`lws_create_context`) can be explained to the user.
///
/// The lines still reach the log sink as usual.
/// - Note: thread-safe; each thread captures only its own lines.
enum LibraryErrorCapture {
    private static let lock = NSLock()
    private static var active: [pthread_t: [String]] = [:]

    /// Runs `body` and returns its result with the libwebsockets error lines emitted on this
    /// thread meanwhile (without lws' timestamp prefix).
    static func capturing<T>(_ body: () throws -> T) rethrows -> (T, [String]) {
        let me = pthread_self()
        lock.lock()
        active[me] = []
        lock.unlock()
        defer {
            lock.lock()
            active[me] = nil
            lock.unlock()
        }
        let result = try body()
        lock.lock()
        let lines = active[me] ?? []
        lock.unlock()
        return (result, lines)
    }

    /// Records one libwebsockets line if this thread is capturing and the line is an error.
    static func record(_ level: WebSocketLogLevel, _ line: String) {
        guard level == .error else { return }
        let me = pthread_self()
        lock.lock()
        defer { lock.unlock() }
        guard active[me] != nil else { return }
        // "[2026/12/01 07:00:00:0000] E: problem getting cert …" → "problem getting cert …"
        var text = Substring(line)
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            text = text[text.index(after: close)...].drop(while: { $0 == " " })
            if text.hasPrefix("E: ") { text = text.dropFirst(3) }
        }
        active[me]?.append(String(text))
    }
}
