import ChartCastProtocol
import ChartCastStorage

/// Why a WebSocket handshake was refused.
enum HandshakeRefusal: String, CaseIterable {
    /// An `Origin` neither allowed nor the server's own (403).
    case origin
    /// No valid viewer token (401).
    case token
}

/// Server counters, rendered in the Prometheus text format at `GET /metrics`.
/// - Note: service thread only.
struct Metrics {
    var framesIn = 0
    var bytesIn = 0
    var framesOut = 0
    var bytesOut = 0
    /// Selection states a viewer never saw because a newer one replaced them first.
    var statesCoalesced = 0
    /// Viewers' writes of chart data held for a later service pass (`DataBudget`).
    var dataWritesDeferred = 0
    /// Snapshots sent again to viewers that fell off the append log.
    var snapshotsResent = 0
    var connectionsTotal = 0
    var personalFramesDropped = 0
    /// Points accepted by writes (HTTP and publish).
    var pointsWritten = 0
    /// Writes the history store failed (answered 503 `unavailable`, nothing applied).
    var historyWritesFailed = 0
    /// Writes refused because too many points were waiting for the history store.
    var historyWritesRefused = 0
    var errors: [ErrorCode: Int] = [:]
    /// Pointer, key and view messages dropped because their address's shared budget was spent.
    var addressBudgetDrops = 0
    /// WebSocket handshakes refused before the upgrade, by reason.
    var handshakesRefused: [HandshakeRefusal: Int] = [:]
    /// Drags ended because their owner sent no input for the drag lease.
    var dragLeasesExpired = 0
    /// Entries of the dashboard's Redis stream applied (`--redis`).
    var clusterEntriesApplied = 0
    /// Snapshots of the dashboard this instance stored in Redis, and took from it.
    var clusterSnapshotsStored = 0
    var clusterSnapshotsInstalled = 0
    /// Viewers closed because their unsent output stayed over the backlog bound.
    var viewersClosedBacklog = 0
    /// Viewers closed because their output was pending, without a write, for the choke timeout.
    var viewersClosedChoked = 0
    /// Times the allocator was asked to return free memory after many viewers left.
    var memoryTrims = 0
    /// Seconds from a selection change to its write to a viewer.
    var eventToWrite = Histogram(bounds: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5])

    /// What the history store reports, for `render`.
    struct HistoryFigures {
        var statistics: HistoryStore.Statistics
        var pendingPoints: Int
    }

    func render(viewers: Int, charts: [ChartChannel], rssBytes: Int?, history: HistoryFigures? = nil) -> String {
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String, _ lines: [(String, String)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for (labels, value) in lines { out += "\(name)\(labels) \(value)\n" }
        }
        metric("chartcast_viewers", "gauge", "Connected WebSocket viewers.", [("", "\(viewers)")])
        metric("chartcast_connections_total", "counter", "WebSocket connections accepted.", [("", "\(connectionsTotal)")])
        metric("chartcast_frames_in_total", "counter", "WebSocket messages received.", [("", "\(framesIn)")])
        metric("chartcast_bytes_in_total", "counter", "WebSocket payload bytes received.", [("", "\(bytesIn)")])
        metric("chartcast_frames_out_total", "counter", "WebSocket messages written.", [("", "\(framesOut)")])
        metric("chartcast_bytes_out_total", "counter", "WebSocket payload bytes written.", [("", "\(bytesOut)")])
        metric("chartcast_states_coalesced_total", "counter",
               "Selection states replaced by a newer one before a viewer was sent them.", [("", "\(statesCoalesced)")])
        metric("chartcast_data_writes_deferred_total", "counter",
               "Writes of chart data to a viewer held for a later service pass (a pass writes at most 256 KiB of it).",
               [("", "\(dataWritesDeferred)")])
        metric("chartcast_snapshots_resent_total", "counter",
               "Snapshots sent again to viewers that fell behind the append log.", [("", "\(snapshotsResent)")])
        metric("chartcast_personal_frames_dropped_total", "counter",
               "Per-viewer frames (errors) dropped because the viewer was not reading.", [("", "\(personalFramesDropped)")])
        metric("chartcast_points_written_total", "counter", "Points accepted by writes (HTTP and publish).",
               [("", "\(pointsWritten)")])
        metric("chartcast_drag_leases_expired_total", "counter",
               "Drags ended because their owner sent no input for the drag lease.", [("", "\(dragLeasesExpired)")])
        metric("chartcast_cluster_entries_applied_total", "counter",
               "Entries of the dashboard's Redis stream applied (0 without --redis).", [("", "\(clusterEntriesApplied)")])
        metric("chartcast_cluster_snapshots_stored_total", "counter",
               "Snapshots of the dashboard this instance stored in Redis (the stream is trimmed behind each).",
               [("", "\(clusterSnapshotsStored)")])
        metric("chartcast_cluster_snapshots_installed_total", "counter",
               "Snapshots of the dashboard this instance took from Redis (joining, or catching up).",
               [("", "\(clusterSnapshotsInstalled)")])
        metric("chartcast_viewers_closed_slow_total", "counter",
               "Viewers closed for not reading: unsent output over the bound (backlog) or no write for the choke timeout (choked).",
               [("{reason=\"backlog\"}", "\(viewersClosedBacklog)"), ("{reason=\"choked\"}", "\(viewersClosedChoked)")])
        metric("chartcast_memory_trims_total", "counter",
               "Times free memory was returned to the system after many viewers left.", [("", "\(memoryTrims)")])
        metric("chartcast_errors_total", "counter", "Protocol errors sent, by code.",
               ErrorCode.allCases.map { ("{code=\"\($0.rawValue)\"}", "\(errors[$0, default: 0])") })
        metric("chartcast_handshakes_refused_total", "counter",
               "WebSocket handshakes refused before the upgrade, by reason (origin: 403, token: 401).",
               HandshakeRefusal.allCases.map { ("{reason=\"\($0.rawValue)\"}", "\(handshakesRefused[$0, default: 0])") })
        metric("chartcast_address_budget_drops_total", "counter",
               "Pointer, key and view messages dropped because their address's shared budget was spent.",
               [("", "\(addressBudgetDrops)")])
        metric("chartcast_chart_seq", "gauge", "Current sequence number of each chart.",
               charts.map { ("{chart=\"\($0.spec.id)\"}", "\($0.seq)") })
        metric("chartcast_chart_points", "gauge", "Points held per chart (x positions).",
               charts.map { ("{chart=\"\($0.spec.id)\"}", "\($0.store.count)") })
        if let history {
            let stats = history.statistics
            metric("chartcast_history_transactions_total", "counter", "History store transactions committed.",
                   [("", "\(stats.transactions)")])
            metric("chartcast_history_points_committed_total", "counter", "Points committed to the history store.",
                   [("", "\(stats.pointsCommitted)")])
            metric("chartcast_history_writes_failed_total", "counter",
                   "Writes the history store failed (answered unavailable, nothing applied).", [("", "\(historyWritesFailed)")])
            metric("chartcast_history_writes_refused_total", "counter",
                   "Writes refused because too many points were waiting for the history store.", [("", "\(historyWritesRefused)")])
            metric("chartcast_history_pending_points", "gauge", "Points waiting for their commit.", [("", "\(history.pendingPoints)")])
        }
        if let rssBytes {
            metric("chartcast_resident_memory_bytes", "gauge", "Resident set size of the server process.", [("", "\(rssBytes)")])
        }
        out += eventToWrite.render(name: "chartcast_event_to_write_seconds",
                                   help: "Time from a selection change to its write to a viewer.")
        return out
    }
}

/// A cumulative histogram with fixed upper bounds.
struct Histogram {
    let bounds: [Double]
    private(set) var counts: [Int]
    private(set) var sum = 0.0
    private(set) var count = 0

    init(bounds: [Double]) {
        self.bounds = bounds
        self.counts = Array(repeating: 0, count: bounds.count)
    }

    /// - Complexity: O(buckets), a dozen comparisons.
    mutating func observe(_ value: Double) {
        sum += value
        count += 1
        if let bucket = bounds.firstIndex(where: { value <= $0 }) { counts[bucket] += 1 }
    }

    func render(name: String, help: String) -> String {
        var out = "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        var cumulative = 0
        for (bound, bucketCount) in zip(bounds, counts) {
            cumulative += bucketCount
            out += "\(name)_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        out += "\(name)_bucket{le=\"+Inf\"} \(count)\n\(name)_sum \(sum)\n\(name)_count \(count)\n"
        return out
    }
}
