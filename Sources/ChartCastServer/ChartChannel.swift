import ChartCastProtocol
import ChartEngine
import WebSockets

/// One chart as the server runs it: data, shared selection, sequence number and the encoded
/// frames every viewer is served from.
///
/// Every change bumps `seq`. An append becomes one frame in the append log; a selection change
/// replaces the single newest selection frame (state, not events); a snapshot is encoded at most
/// once per `seq`, whoever asks for it.
/// - Note: service thread only.
final class ChartChannel {
    let index: Int
    let spec: ChartSpec
    let store: ChartStore
    let engine: SelectionEngine
    /// The spec as JSON, cached for `welcome` and `/api/charts`.
    let specJSON: [UInt8]
    private let includeZero: Bool

    private(set) var seq = 0
    private(set) var appendLog: AppendLog
    /// The newest `selection` message, nil until the first change.
    private(set) var selectionFrame: OutboundFrame?
    /// Counts selection changes; a viewer that skips versions had states coalesced.
    private(set) var selectionVersion = 0
    /// Monotonic time (ns) of the newest selection change, for the event-to-write histogram.
    private(set) var selectionChangedAt: UInt64 = 0
    private(set) var xDomain: XDomain
    private(set) var yDomain: (Double, Double)
    private var snapshotCache: (seq: Int, frame: OutboundFrame)?

    init(index: Int, spec: ChartSpec, appendLogCapacity: Int) {
        self.index = index
        self.spec = spec
        self.store = ChartStore(spec: spec)
        self.engine = SelectionEngine(store: store)
        self.specJSON = ServerMessage.chartSpec(spec)
        self.includeZero = spec.mark == .bar
        self.appendLog = AppendLog(capacity: appendLogCapacity)
        self.xDomain = .numeric(0, 1)
        self.yDomain = (0, 1)
        self.xDomain = currentXDomain()
        self.yDomain = currentYDomain()
    }

    /// Recomputes the domains after the initial data was loaded without messages.
    func dataLoaded() {
        xDomain = currentXDomain()
        yDomain = currentYDomain()
        snapshotCache = nil
    }

    /// The snapshot of the current state, encoded once per `seq`.
    /// - Complexity: O(points) when the state changed since the last call, else O(1).
    func snapshotFrame() -> OutboundFrame {
        if let cached = snapshotCache, cached.seq == seq { return cached.frame }
        let bytes = ServerMessage.snapshot(store: store, seq: seq, xDomain: xDomain, yDomain: yDomain,
                                           selection: engine.selection)
        let frame = OutboundFrame(textBytes: bytes)
        snapshotCache = (seq, frame)
        return frame
    }

    /// Records that the engine's selection changed: new `seq`, one encoded frame for everyone.
    func selectionDidChange(ref: String?, now: UInt64) {
        seq += 1
        selectionVersion += 1
        selectionChangedAt = now
        selectionFrame = OutboundFrame(textBytes: ServerMessage.selection(chart: spec.id, seq: seq, ref: ref,
                                                                           selection: engine.selection))
    }

    /// Category charts: sets one value and logs the `append`. Returns whether the selection changed too.
    func setCategoryValue(_ y: Double, series: Int, category: Int, now: UInt64) -> Bool {
        store.setValue(y, series: series, category: category)
        let newY = currentYDomain()
        let yChanged = newY != yDomain
        yDomain = newY
        seq += 1
        let point = AppendPoint(series: spec.series[series], x: .category(spec.categories[category]), y: y)
        appendLog.append(OutboundFrame(textBytes: ServerMessage.append(
            chart: spec.id, kind: spec.xKind, seq: seq, points: [point], evictBefore: nil,
            xDomain: nil, yDomain: yChanged ? newY : nil)))
        guard engine.valuesDidChange(category: category) else { return false }
        selectionDidChange(ref: nil, now: now)
        return true
    }

    /// Time/linear charts: upserts one row, evicts beyond the window and logs the `append`.
    /// Returns whether the selection changed too (a range recomputed, a pin evicted…).
    func upsert(x: Double, values: [Double?], now: UInt64) -> Bool {
        let change = store.upsert(x: x, values: values)
        let newX = currentXDomain(), newY = currentYDomain()
        let xChanged = newX != xDomain, yChanged = newY != yDomain
        xDomain = newX
        yDomain = newY
        seq += 1
        var points: [AppendPoint] = []
        for (seriesIndex, value) in values.enumerated() {
            if let value { points.append(AppendPoint(series: spec.series[seriesIndex], x: .number(x), y: value)) }
        }
        appendLog.append(OutboundFrame(textBytes: ServerMessage.append(
            chart: spec.id, kind: spec.xKind, seq: seq, points: points, evictBefore: change.evictedBefore,
            xDomain: xChanged ? newX : nil, yDomain: yChanged ? newY : nil)))
        guard engine.dataDidChange(change) else { return false }
        selectionDidChange(ref: nil, now: now)
        return true
    }

    private func currentXDomain() -> XDomain {
        if spec.xKind == .category { return .categories(spec.categories) }
        let (d0, d1) = store.xDomain
        return .numeric(d0, d1)
    }

    /// A nice y extent (d3's `nice()`, 10 ticks) over every series' values in the window; bars include zero.
    /// - Complexity: O(series × log n).
    private func currentYDomain() -> (Double, Double) {
        var lo = Double.infinity, hi = -Double.infinity
        let all = 0..<store.count
        for seriesIndex in spec.series.indices {
            let totals = store.totals(series: seriesIndex, in: all)
            if let min = totals.min { lo = Swift.min(lo, min) }
            if let max = totals.max { hi = Swift.max(hi, max) }
        }
        guard lo <= hi else { return (0, 1) }
        if includeZero { lo = Swift.min(lo, 0); hi = Swift.max(hi, 0) }
        if lo == hi { lo -= 1; hi += 1 }
        return NiceNumbers.nice(lo, hi, count: 10)
    }
}
