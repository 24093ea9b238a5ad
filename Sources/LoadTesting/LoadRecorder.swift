/// Counters and histograms shared by every connection of one run.
///
/// - Note: service thread only. Every connection callback runs on the client context's service
///   thread, so the recorder needs no locks; the runner reads it through `perform` and copies a
///   `LoadCounters` value out.
final class LoadRecorder {
    /// Chart ids in first-seen order; connections keep per-chart state in arrays indexed by these.
    private(set) var chartNames: [[UInt8]] = []
    /// Per chart: the highest `seq` any connection has seen and when each new high was first seen.
    private(set) var newestSeq: [Int] = []
    private var firstSeen: [[(seq: Int, at: UInt64)]] = []

    var counters = LoadCounters()
    /// A driver's pointer sent → a viewer's socket has the selection it caused (the kernel's
    /// receive stamp where the client has one).
    var fanout = LatencyHistogram()
    /// The same, to the moment the load tester read it: `fanout` plus the tester's own backlog.
    var fanoutRead = LatencyHistogram()
    /// Publisher's send → a viewer receives the `append` carrying the batch.
    var ingest = LatencyHistogram()
    var connectTimes = LatencyHistogram()
    /// Time of the most recent `selection` received by anyone (for the quiet period).
    var lastSelectionAt: UInt64 = 0

    /// The index of the chart named by `bytes[range]`, registering it when new.
    /// - Complexity: O(charts · name length); charts are few (5 in the demo, K in mirror mode).
    func chartIndex(_ bytes: [UInt8], _ range: Range<Int>) -> Int {
        for (i, name) in chartNames.enumerated() where name.count == range.count {
            var same = true
            var k = range.lowerBound
            for b in name { if bytes[k] != b { same = false; break }; k += 1 }
            if same { return i }
        }
        chartNames.append(Array(bytes[range]))
        newestSeq.append(-1)
        firstSeen.append([])
        return chartNames.count - 1
    }

    /// Notes that some connection saw `seq` for chart `index` at `now`.
    func observe(chart index: Int, seq: Int, now: UInt64) {
        guard seq > newestSeq[index] else { return }
        newestSeq[index] = seq
        firstSeen[index].append((seq, now))
        // Keep the history bounded: entries older than the newest 4096 are never needed for a
        // lag that large (it is reported as the age of the oldest kept entry, a lower bound).
        if firstSeen[index].count > 8192 { firstSeen[index].removeFirst(4096) }
    }

    /// How long ago the chart moved past `seq` (0 when `seq` is the newest).
    /// - Complexity: O(log history).
    func staleness(chart index: Int, seq: Int, now: UInt64) -> UInt64 {
        guard seq < newestSeq[index] else { return 0 }
        let history = firstSeen[index]
        var lo = 0, hi = history.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if history[mid].seq > seq { hi = mid } else { lo = mid + 1 }
        }
        let at = lo < history.count ? history[lo].at : history[history.count - 1].at
        return now > at ? now - at : 0
    }

    /// The chart id at `index` as a string.
    func chartName(_ index: Int) -> String { String(decoding: chartNames[index], as: UTF8.self) }
}

/// Plain counters of one run, copied out of the recorder for reporting.
public struct LoadCounters: Sendable, Equatable {
    public var attempted = 0
    public var connected = 0
    public var failed = 0
    /// Connections closed by the server (or the network) before the run ended.
    public var dropped = 0
    /// Connections that finished the handshake and the initial exchange (welcome, snapshots).
    public var ready = 0
    public var firstAttemptAt: UInt64 = 0
    public var lastConnectedAt: UInt64 = 0
    public var pointersSent = 0
    public var framesReceived = 0
    public var bytesReceived = 0
    public var selectionsReceived = 0
    public var selectionBytes = 0
    public var snapshotsReceived = 0
    public var appendsReceived = 0
    public var viewerListsReceived = 0
    public var errorsReceived = 0
    /// The first few distinct error codes seen, for the report.
    public var errorCodes: [String: Int] = [:]
    public init() {}
}
