import Foundation

/// Who is connected from where, and the refusals since the last log line: the state behind the
/// per-address cap, the file-descriptor reserve and the WebSocket cap.
///
/// Every accepted connection is counted against its peer's IP address from the moment
/// libwebsockets creates its wsi until it destroys it.
/// - Note: service thread only.
final class ConnectionAdmission {
    /// Why a connection, handshake or request was refused.
    enum Refusal: String, CaseIterable {
        case fileDescriptors = "near the file-descriptor limit"
        case perAddress = "over the per-address connection cap"
        case webSockets = "over the WebSocket cap"
        case longTarget = "with a request target over the limit (414)"
        case largeHeaders = "with request headers over the limit (431)"

        /// What was refused: a connection, or a request.
        var noun: String {
            switch self {
            case .longTarget, .largeHeaders: return "request"
            default: return "connection"
            }
        }
    }

    /// The peer address of each open server wsi.
    private var peers: [OpaquePointer: String] = [:]
    /// Open connections per peer address.
    private(set) var perAddress: [String: Int] = [:]
    private var logs: [Refusal: RateLimitedLog] = [:]

    /// Open connections from `address`.
    func count(for address: String) -> Int { perAddress[address] ?? 0 }

    /// Open connections counted in total.
    var total: Int { peers.count }

    /// Counts `wsi` against `address`.
    func admit(_ wsi: OpaquePointer, address: String) {
        guard peers[wsi] == nil else { return }
        peers[wsi] = address
        perAddress[address, default: 0] += 1
    }

    /// Forgets `wsi` (nothing when it was never counted).
    func release(_ wsi: OpaquePointer) {
        guard let address = peers.removeValue(forKey: wsi) else { return }
        let left = (perAddress[address] ?? 1) - 1
        perAddress[address] = left > 0 ? left : nil
    }

    /// Notes one refusal; the log line to write now, if one is due (at most one a second per
    /// reason, counting the refusals since the previous one).
    func refused(_ reason: Refusal, now: Double = ProcessInfo.processInfo.systemUptime) -> String? {
        var log = logs[reason] ?? RateLimitedLog()
        let line = log.record(now: now).map { count, since in
            "refused \(count) \(reason.noun)\(count == 1 ? "" : "s") \(reason.rawValue)"
                + (since.isFinite ? String(format: " in the last %.1f s", since) : "")
        }
        logs[reason] = log
        return line
    }
}

/// Counts events and allows one log line per interval, reporting how many events it stands for.
struct RateLimitedLog {
    /// Seconds between lines.
    var interval: Double = 1
    private var lastLine: Double = -.infinity
    private var pending = 0

    /// Counts one event; when a line is due now, the number of events since the previous line
    /// and the seconds since it (infinite for the first); nil when this event is folded into
    /// the next line.
    mutating func record(now: Double) -> (count: Int, since: Double)? {
        pending += 1
        let since = now - lastLine
        guard since >= interval else { return nil }
        lastLine = now
        defer { pending = 0 }
        return (pending, since)
    }
}
