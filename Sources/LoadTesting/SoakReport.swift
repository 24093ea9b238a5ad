/// The outcome of a soak run: the server's RSS series, what was done to the crowd, every
/// failure, and whether everyone converged at the end.
public struct SoakReport: Sendable {
    /// One RSS reading of the server.
    public struct Sample: Sendable, Equatable {
        /// Seconds since the start of the run.
        public var at: Double
        public var rssBytes: Int
        public init(at: Double, rssBytes: Int) {
            self.at = at
            self.rssBytes = rssBytes
        }
    }

    /// How the RSS behaved after the warm-up.
    public struct Memory: Sendable, Equatable {
        /// The first sample after the warm-up: every later one is compared with it.
        public var reference: Int
        public var minimum: Int
        public var maximum: Int
        public var last: Int
        /// The largest |sample − reference| / reference.
        public var maxDeviation: Double
        /// Least-squares slope of the samples after the warm-up, in bytes per hour.
        public var slopePerHour: Double
        /// Samples after the warm-up (the reference included).
        public var samples: Int
    }

    public var options: SoakOptions
    public var seconds: Double
    public var samples: [Sample]
    public var counters: LoadCounters
    /// Viewers and drivers dropped without a close frame (and replaced).
    public var vanishedViewers: Int
    public var vanishedDrivers: Int
    /// Stall periods begun, and driver freezes.
    public var stalls: Int
    public var freezes: Int
    /// Connections opened in all (the crowd and every replacement).
    public var connectionsOpened: Int
    /// The first connections closed by the server or the network (what each was doing, its
    /// close code), at most 20.
    public var drops: [String] = []
    public var convergence: ConvergenceResult
    public var convergenceSeconds: Double?
    /// Whether the server process was still there at the end (unknown: nil).
    public var serverAlive: Bool?

    /// The memory figures after the warm-up; nil with fewer than two samples after it.
    public var memory: Memory? { SoakReport.memory(samples, warmup: options.effectiveWarmup) }

    /// The figures of `samples` taken after `warmup` seconds.
    public static func memory(_ samples: [Sample], warmup: Double) -> Memory? {
        let steady = samples.filter { $0.at >= warmup }
        guard steady.count >= 2, let first = steady.first, first.rssBytes > 0 else { return nil }
        let reference = Double(first.rssBytes)
        let deviation = steady.map { abs(Double($0.rssBytes) - reference) / reference }.max() ?? 0
        let n = Double(steady.count)
        let meanT = steady.map(\.at).reduce(0, +) / n
        let meanR = steady.map { Double($0.rssBytes) }.reduce(0, +) / n
        var covariance = 0.0, variance = 0.0
        for s in steady {
            covariance += (s.at - meanT) * (Double(s.rssBytes) - meanR)
            variance += (s.at - meanT) * (s.at - meanT)
        }
        return Memory(reference: first.rssBytes, minimum: steady.map(\.rssBytes).min() ?? 0,
                      maximum: steady.map(\.rssBytes).max() ?? 0, last: steady.last?.rssBytes ?? 0,
                      maxDeviation: deviation, slopePerHour: variance > 0 ? covariance / variance * 3_600 : 0,
                      samples: steady.count)
    }

    /// Everything that failed, one line each; empty when the soak passed.
    public var failures: [String] {
        var out: [String] = []
        if counters.failed > 0 { out.append("\(counters.failed) connections failed") }
        if counters.dropped > 0 {
            out.append("\(counters.dropped) connections dropped by the server (\(drops.joined(separator: ", ")))")
        }
        if counters.errorsReceived > 0 { out.append("\(counters.errorsReceived) protocol errors received \(counters.errorCodes)") }
        if !convergence.converged {
            out.append("\(convergence.divergentConnections) of \(convergence.compared) viewers did not converge")
        }
        if serverAlive == false { out.append("the server process is gone") }
        if let memory {
            if memory.maxDeviation > options.rssTolerance {
                out.append("server RSS moved \(Format.fixed(memory.maxDeviation * 100, 1)) % from \(Format.bytes(memory.reference)) after the warm-up (limit \(Format.fixed(options.rssTolerance * 100, 1)) %)")
            }
        } else {
            out.append("fewer than two RSS samples after the warm-up (server not found, or the soak too short)")
        }
        return out
    }

    public var succeeded: Bool { failures.isEmpty }

    /// The final summary.
    public var text: String {
        var lines = ["soak: \(Format.fixed(seconds, 0)) s, \(options.viewers) viewers, \(options.drivers) drivers at \(Format.fixed(options.rate, 1)) Hz"]
        lines.append("  connections opened \(connectionsOpened), failed \(counters.failed), dropped \(counters.dropped), errors \(counters.errorsReceived)")
        lines.append("  vanished: \(vanishedViewers) viewers, \(vanishedDrivers) drivers mid-drag; stalls \(stalls) x \(Format.fixed(options.stallSeconds, 0)) s; freezes \(freezes) x \(Format.fixed(options.freezeSeconds, 0)) s")
        lines.append("  traffic: \(counters.pointersSent) pointer events sent, \(counters.framesReceived) frames (\(Format.bytes(counters.bytesReceived))) received")
        if let memory {
            lines.append("  server RSS after \(Format.fixed(options.effectiveWarmup, 0)) s warm-up: \(Format.bytes(memory.reference)) first, min \(Format.bytes(memory.minimum)), max \(Format.bytes(memory.maximum)), last \(Format.bytes(memory.last)); max deviation \(Format.fixed(memory.maxDeviation * 100, 2)) %, slope \(Format.bytes(Int(memory.slopePerHour)))/h over \(memory.samples) samples")
        }
        if let first = samples.first {
            lines.append("  server RSS at start \(Format.bytes(first.rssBytes)), peak \(Format.bytes(samples.map(\.rssBytes).max() ?? 0))")
        }
        let converged = convergence.converged ? "converged" : "DIVERGED"
        lines.append("  end: \(convergence.compared) viewers \(converged)\(convergenceSeconds.map { " in \(Format.fixed($0, 2)) s" } ?? "")")
        let failures = self.failures
        lines.append(failures.isEmpty ? "  PASS" : "  FAIL: " + failures.joined(separator: "; "))
        return lines.joined(separator: "\n") + "\n"
    }
}
