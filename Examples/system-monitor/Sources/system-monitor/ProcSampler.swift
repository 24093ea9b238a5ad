import Foundation

/// Readings of this machine from /proc: CPU time split, memory, load averages and network bytes.
struct ProcSample {
    /// Jiffies per CPU state summed over all cores (`/proc/stat`'s first line).
    var cpu: (user: Double, system: Double, iowait: Double, total: Double)
    /// MiB (`/proc/meminfo`).
    var memory: (used: Double, cached: Double, free: Double)
    /// 1, 5 and 15 minute load averages (`/proc/loadavg`).
    var load: (Double, Double, Double)
    /// Bytes received and sent over every interface but loopback (`/proc/net/dev`).
    var network: (received: Double, sent: Double)
    var at: Date

    /// Reads /proc now; nil where it is missing (not Linux).
    static func read() -> ProcSample? {
        guard let stat = text("/proc/stat"), let meminfo = text("/proc/meminfo"),
              let loadavg = text("/proc/loadavg"), let netdev = text("/proc/net/dev") else { return nil }
        let cpuFields = stat.split(separator: "\n").first?.split(separator: " ").dropFirst().compactMap { Double($0) } ?? []
        guard cpuFields.count >= 5 else { return nil }
        // user nice system idle iowait irq softirq steal …
        let user = cpuFields[0] + cpuFields[1], system = cpuFields[2] + (cpuFields.count > 6 ? cpuFields[5] + cpuFields[6] : 0)
        let iowait = cpuFields[4], total = cpuFields.prefix(8).reduce(0, +)
        var kib: [String: Double] = [:]
        for line in meminfo.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if parts.count >= 2 { kib[String(parts[0].dropLast())] = Double(parts[1]) }
        }
        let totalMiB = (kib["MemTotal"] ?? 0) / 1024, freeMiB = (kib["MemFree"] ?? 0) / 1024
        let cachedMiB = ((kib["Cached"] ?? 0) + (kib["Buffers"] ?? 0)) / 1024
        let loads = loadavg.split(separator: " ").prefix(3).compactMap { Double($0) }
        var received = 0.0, sent = 0.0
        for line in netdev.split(separator: "\n").dropFirst(2) {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) != "lo" else { continue }
            let numbers = parts[1].split(separator: " ", omittingEmptySubsequences: true).compactMap { Double($0) }
            if numbers.count >= 9 { received += numbers[0]; sent += numbers[8] }
        }
        return ProcSample(cpu: (user, system, iowait, total),
                          memory: (max(0, totalMiB - freeMiB - cachedMiB), cachedMiB, freeMiB),
                          load: (loads.count == 3 ? (loads[0], loads[1], loads[2]) : (0, 0, 0)),
                          network: (received, sent), at: Date())
    }

    private static func text(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }
}
