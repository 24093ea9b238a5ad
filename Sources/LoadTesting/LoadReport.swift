/// The figures of one run: what `chartcast-load` prints as a table and writes as JSON.
public struct LoadReport: Sendable {
    /// Milliseconds percentiles of one distribution.
    public struct Distribution: Sendable, Equatable {
        public var count: UInt64
        public var p50: Double
        public var p95: Double
        public var p99: Double
        public var max: Double

        public init(_ histogram: LatencyHistogram) {
            count = histogram.count
            p50 = Double(histogram.percentile(0.50)) / 1e6
            p95 = Double(histogram.percentile(0.95)) / 1e6
            p99 = Double(histogram.percentile(0.99)) / 1e6
            max = Double(histogram.maxNanoseconds) / 1e6
        }
    }

    /// The server process's resources, when it is local.
    public struct Server: Sendable, Equatable {
        public var pid: Int32
        /// RSS before any load connection opened.
        public var baselineRSS: Int
        /// RSS once every connection was ready and idle.
        public var idleRSS: Int
        /// Highest RSS sampled during the run.
        public var peakRSS: Int
        /// CPU seconds the server used while the drivers ran.
        public var driveCPUSeconds: Double
        /// `driveCPUSeconds` over the drive phase's wall time, in percent of one core.
        public var driveCPUPercent: Double
        /// Server CPU per frame delivered to the load connections during the drive phase (µs).
        public var cpuMicrosPerFrame: Double
        /// (idle − baseline) RSS per connection, in bytes.
        public var rssPerIdleViewer: Double
        /// CPU seconds the server used from the first connection attempt until every
        /// connection was ready (handshakes, welcomes, snapshots, viewer lists).
        public var arrivalCPUSeconds: Double = 0
        /// CPU seconds the server used from the moment every connection was closed at once until
        /// it had closed their sockets; nil when the departures were not seen to finish.
        public var departureCPUSeconds: Double?
        /// Wall seconds from closing every connection until the server held no more of them.
        public var departureSeconds: Double?
        /// Connections that arrived and left (the denominators of the per-viewer figures).
        public var connections: Int = 0

        /// Server CPU per arrival, in µs.
        public var arrivalCPUMicrosPerViewer: Double { connections > 0 ? arrivalCPUSeconds * 1e6 / Double(connections) : 0 }
        /// Server CPU per departure, in µs; nil when not measured.
        public var departureCPUMicrosPerViewer: Double? {
            guard let departureCPUSeconds, connections > 0 else { return nil }
            return departureCPUSeconds * 1e6 / Double(connections)
        }
    }

    public var options: LoadOptions
    public var counters: LoadCounters
    /// Connect time (attempt → handshake complete).
    public var connect: Distribution
    /// Handshakes completed per second over the connect phase.
    public var handshakesPerSecond: Double
    /// Fan-out latency: driver's pointer send → the selection carrying its ref reaches a viewer's
    /// socket (the kernel's receive stamp with the raw client; with libwebsockets' client, when read).
    public var fanout: Distribution
    /// The same, to the moment the load tester read the selection: `fanout` plus the tester's
    /// own queue when one thread reads thousands of viewers' frames.
    public var fanoutRead: Distribution = .init(LatencyHistogram())
    /// How far behind the newest state each viewer was, sampled each second while driving.
    public var freshness: Distribution
    /// The largest seq gap seen in those samples.
    public var maxSeqLag: Int
    /// Frames received while the drivers ran (the denominator of CPU per frame).
    public var driveFrames: Int
    /// Pointer events the drivers' timers sent while driving (the closing release events excluded).
    public var drivePointers: Int
    /// Wall seconds of the drive phase.
    public var driveSeconds: Double
    /// The load tester's own CPU seconds for the whole run.
    public var clientCPUSeconds: Double
    public var server: Server?
    public var convergence: ConvergenceResult
    /// Seconds from the drivers stopping until every viewer converged (nil if they never did).
    public var convergenceSeconds: Double?
    /// Server-assigned ids of the stalled viewers.
    public var stalledViewerIDs: [String]
    /// How many `seq`s the stalled viewers were behind the newest when they resumed reading.
    public var stalledLag: Int = 0
    /// What the publishers did, when there were any.
    public var ingest: Ingest?

    /// HTTP ingest while the viewers watched (`--publishers`).
    public struct Ingest: Sendable, Equatable {
        public var publishers: Int
        public var batchPoints: Int
        /// Points per second asked for.
        public var targetRate: Double
        public var pointsAccepted: Int
        /// Points accepted per second of the drive phase.
        public var pointsPerSecond: Double
        public var batches: Int
        public var failures: Int
        public var firstFailure: String?
        /// One write: request sent → answer read.
        public var request: Distribution
        /// One batch: sent → a viewer receives the `append` carrying it.
        public var toViewer: Distribution
    }

    /// Mean bytes per state message received (selections, or mirrored messages).
    public var meanSelectionBytes: Double {
        counters.selectionsReceived == 0 ? 0 : Double(counters.selectionBytes) / Double(counters.selectionsReceived)
    }

    /// Pointer events per driver per second actually sent while driving; below `options.rate`
    /// when the load tester's own service thread could not keep up (its timers skip late ticks).
    public var achievedRate: Double {
        guard options.drivers > 0, driveSeconds > 0 else { return 0 }
        return Double(drivePointers) / Double(options.drivers) / driveSeconds
    }

    /// True when every connection succeeded, none dropped, and every viewer converged.
    public var succeeded: Bool {
        counters.failed == 0 && counters.dropped == 0 && counters.connected == options.connectionCount
            && counters.ready == options.connectionCount && convergence.converged && (ingest?.failures ?? 0) == 0
    }

    /// Why the run failed, one line per reason (empty when it succeeded).
    public var failures: [String] {
        var reasons: [String] = []
        if counters.failed > 0 { reasons.append("\(counters.failed) connection(s) failed") }
        if let ingest, ingest.failures > 0 {
            reasons.append("\(ingest.failures) write(s) failed" + (ingest.firstFailure.map { ", first: \($0)" } ?? ""))
        }
        if counters.dropped > 0 { reasons.append("\(counters.dropped) connection(s) dropped by the server") }
        let missing = options.connectionCount - counters.connected - counters.failed
        if missing > 0 { reasons.append("\(missing) connection(s) never completed") }
        let unready = counters.connected - counters.ready
        if unready > 0 { reasons.append("\(unready) connection(s) never got welcome and every snapshot") }
        if !convergence.converged {
            let charts = convergence.charts.filter { $0.divergent > 0 }.map { "\($0.id): \($0.divergent)" }
            reasons.append("\(convergence.divergentConnections) viewer(s) did not converge (\(charts.joined(separator: ", ")))")
        }
        return reasons
    }
}
