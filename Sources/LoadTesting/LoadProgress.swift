#if canImport(Glibc)
import Glibc
#endif

/// A once-a-second view of a run in progress (the stderr progress line, and the hook tests use
/// to watch the server while a viewer is stalled).
public struct LoadProgress: Sendable {
    public enum Phase: String, Sendable { case connecting, driving }
    public var phase: Phase
    /// Seconds since the first connection attempt.
    public var elapsed: Double
    public var counters: LoadCounters
    /// Fan-out p99 so far, in milliseconds.
    public var fanoutP99: Double
    /// The local server's RSS and CPU now, when it was found.
    public var server: ServerProcess.Sample?
    /// Server-assigned ids of the stalled viewers (those that have been welcomed).
    public var stalledViewerIDs: [String]

    /// One line: phase, connections, traffic, latency, server memory.
    public var line: String {
        var parts = [
            "\(Format.fixed(elapsed, 1))s \(phase.rawValue)",
            "conn \(counters.connected)/\(counters.attempted) ready \(counters.ready) fail \(counters.failed + counters.dropped)",
            "sent \(counters.pointersSent)",
            "recv \(counters.framesReceived) frames \(Format.bytes(counters.bytesReceived))",
            "p99 \(Format.fixed(fanoutP99, 2)) ms",
        ]
        if let server { parts.append("server rss \(Format.bytes(server.rssBytes))") }
        return parts.joined(separator: " | ")
    }
}

/// Writes text to standard error unbuffered.
func writeStandardError(_ text: String) {
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { fwrite($0.baseAddress, 1, $0.count, stderr) }
}

/// Number formatting without Foundation.
enum Format {
    /// `value` rounded to `digits` decimals (0…6), e.g. `fixed(2.5, 2)` is "2.50".
    static func fixed(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite, abs(value) < 1e15 else { return value.isFinite ? String(value) : "-" }
        let digits = min(max(digits, 0), 6)
        var scale: Int64 = 1
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int64((abs(value) * Double(scale)).rounded())
        let sign = value < 0 && scaled != 0 ? "-" : ""
        let whole = "\(sign)\(scaled / scale)"
        guard digits > 0 else { return whole }
        let fraction = String(scaled % scale)
        return whole + "." + String(repeating: "0", count: digits - fraction.count) + fraction
    }

    /// A byte count as B, KiB, MiB or GiB.
    static func bytes(_ count: Int) -> String {
        let v = Double(count)
        if abs(v) >= 1_073_741_824 { return fixed(v / 1_073_741_824, 2) + " GiB" }
        if abs(v) >= 1_048_576 { return fixed(v / 1_048_576, 1) + " MiB" }
        if abs(v) >= 1024 { return fixed(v / 1024, 1) + " KiB" }
        return "\(count) B"
    }
}
