import ChartCastIngest
import ChartCastProtocol
import ChartEngine
import WebSockets

/// One chart as the server runs it: data, shared selection, sequence number and the encoded
/// frames every viewer is served from.
///
/// Every change bumps `seq`. An append becomes one frame in the append log; a selection change
/// replaces the single newest selection frame (state, not events); a snapshot is encoded at most
/// once per `seq`, whoever asks for it.
///
/// A channel sits in one slot of the server's chart list (`index`) for its whole life. Defining
/// a chart makes a channel with a new `specVersion`; replacing it makes another in the same slot;
/// removing it leaves the channel in its slot, `isRemoved`, until every viewer has been told.
/// - Note: service thread only.
final class ChartChannel {
    let index: Int
    let store: ChartStore
    let engine: SelectionEngine
    /// Identifies this definition of the chart: unique per server, never 0 (a viewer's cursor
    /// with version 0 knows no chart in the slot).
    let specVersion: Int
    /// Set once the chart was removed; the slot then only tells viewers so.
    private(set) var isRemoved = false
    /// Where the chart stands in the dashboard: charts are listed in the order they were first
    /// defined (a replaced chart keeps its place), whatever slot they occupy, so every viewer
    /// sees one order — the one a newly defined chart is appended to.
    let position: Int

    /// The chart's spec; its series grow when data names a new one.
    var spec: ChartSpec { store.spec }
    var id: String { store.spec.id }

    private(set) var seq: Int
    private(set) var appendLog: AppendLog
    /// The newest `selection` message, nil until the first change.
    private(set) var selectionFrame: OutboundFrame?
    /// Counts selection changes; a viewer that skips versions had states coalesced.
    private(set) var selectionVersion = 0
    /// Monotonic time (ns) of the newest selection change, for the event-to-write histogram.
    private(set) var selectionChangedAt: UInt64 = 0
    /// The domains last sent, so an append carries them only when they moved.
    private var sentX: XAxis
    private var sentY: ClosedRange<Double>
    private var snapshotCache: (seq: Int, frame: OutboundFrame)?
    private var chartFrameCache: (series: Int, frame: OutboundFrame)?
    /// The `chart_removed` message, once removed.
    private(set) var removedFrame: OutboundFrame?

    /// A channel over `store`, whose data is already loaded; `seq` starts at `seq` (a replaced
    /// chart continues its predecessor's count).
    init(index: Int, store: ChartStore, appendLogCapacity: Int, specVersion: Int, seq: Int = 0, position: Int? = nil) {
        self.index = index
        self.position = position ?? specVersion
        self.store = store
        self.engine = SelectionEngine(store: store)
        self.appendLog = AppendLog(capacity: appendLogCapacity)
        self.specVersion = specVersion
        self.seq = seq
        self.sentX = ChartChannel.xAxis(of: store)
        self.sentY = ChartChannel.yRange(of: store)
    }

    /// The `chart` message announcing this definition (re-encoded when data added series).
    func chartFrame() -> OutboundFrame {
        if let cached = chartFrameCache, cached.series == spec.series.count { return cached.frame }
        let frame = OutboundFrame(textBytes: ServerMessage.chart(spec).encode())
        chartFrameCache = (spec.series.count, frame)
        return frame
    }

    /// Marks the chart removed: from now on viewers that knew it are sent `chart_removed`.
    func markRemoved() {
        isRemoved = true
        removedFrame = OutboundFrame(textBytes: ServerMessage.chartRemoved(id).encode())
        snapshotCache = nil
        selectionFrame = nil
    }

    /// The chart's state as a `snapshot` message.
    /// - Complexity: O(points).
    func snapshot() -> ServerMessage.Snapshot {
        var series: [SeriesData] = []
        series.reserveCapacity(spec.series.count)
        for (seriesIndex, name) in spec.series.enumerated() {
            var points: [DataPoint] = []
            points.reserveCapacity(store.count)
            for row in 0..<store.count {
                guard let y = store.y(series: seriesIndex, at: row) else { continue }
                points.append(DataPoint(x: store.x(at: row), y: y))
            }
            series.append(SeriesData(name: name, points: points))
        }
        return ServerMessage.Snapshot(chart: id, seq: seq, x: sentX, y: sentY, series: series,
                                      selection: engine.selection)
    }

    /// The snapshot of the current state, encoded once per `seq`.
    /// - Complexity: O(points) when the state changed since the last call, else O(1).
    func snapshotFrame() -> OutboundFrame {
        if let cached = snapshotCache, cached.seq == seq { return cached.frame }
        let frame = OutboundFrame(textBytes: ServerMessage.snapshot(snapshot()).encode())
        snapshotCache = (seq, frame)
        return frame
    }

    /// Records that the engine's selection changed: new `seq`, one encoded frame for everyone.
    func selectionDidChange(ref: String?, now: UInt64) {
        seq += 1
        selectionVersion += 1
        selectionChangedAt = now
        let update = ServerMessage.SelectionUpdate(chart: id, seq: seq, ref: ref, selection: engine.selection)
        selectionFrame = OutboundFrame(textBytes: ServerMessage.selection(update).encode())
    }

    /// Category charts: sets one value and logs the `append`. Returns whether the selection changed too.
    @discardableResult
    func setCategoryValue(_ y: Double, series: Int, category: Int, now: UInt64) -> Bool {
        store.setValue(y, series: series, category: category)
        logAppend([SeriesPoint(series: spec.series[series], x: .category(spec.categories[category]), y: y)],
                  evictBefore: nil)
        guard engine.valuesDidChange(category: category) else { return false }
        selectionDidChange(ref: nil, now: now)
        return true
    }

    /// Time/linear charts: upserts one row, evicts beyond the window and logs the `append`.
    /// Returns whether the selection changed too (a range recomputed, a pin evicted…).
    @discardableResult
    func upsert(x: Double, values: [Double?], now: UInt64) -> Bool {
        let change = store.upsert(x: x, values: values)
        var points: [SeriesPoint] = []
        for (seriesIndex, value) in values.enumerated() {
            if let value { points.append(SeriesPoint(series: spec.series[seriesIndex], x: .number(x), y: value)) }
        }
        logAppend(points, evictBefore: change.evictedBefore)
        guard engine.dataDidChange(change) else { return false }
        selectionDidChange(ref: nil, now: now)
        return true
    }

    /// Applies a validated write (new series first): one `append` listing every applied point,
    /// or — when the write carries more points than the chart then holds, so that its snapshot is
    /// the smaller message (a write replacing most of a small window) — a fresh snapshot for
    /// everyone instead; and the selection brought up to date. Returns whether the selection
    /// changed too.
    /// - Throws: `StoreMismatch` (nothing applied) when the batch does not fit the store.
    /// - Complexity: O(points · (series + log n)).
    @discardableResult
    func apply(_ batch: ValidatedBatch, now: UInt64) throws -> Bool {
        var points: [SeriesPoint] = []
        points.reserveCapacity(batch.accepted)
        let categories = spec.categories, isCategory = spec.xKind == .category
        let applied = try batch.apply(to: store) { row in
            let x = batch.x(row: row)
            let xValue: XValue = isCategory ? .category(categories[Int(x)]) : .number(x)
            for (series, y) in batch.cells(row: row) {
                points.append(SeriesPoint(series: self.store.spec.series[series], x: xValue, y: y))
            }
        }
        if points.count > store.count * max(1, store.spec.series.count) {
            seq += 1
            appendLog.skipAll()   // every viewer is behind the log now: each gets the snapshot
            sentX = ChartChannel.xAxis(of: store)
            sentY = ChartChannel.yRange(of: store)
        } else {
            logAppend(points, evictBefore: applied.evictedBefore)
        }
        let change = StoreChange(insertedX: applied.xRange?.lowerBound, insertedUpTo: applied.xRange?.upperBound,
                                 evictedBefore: applied.evictedBefore, xDomainChanged: applied.xDomainChanged,
                                 yDomainChanged: applied.yDomainChanged)
        let changed = isCategory ? engine.valuesDidChange(category: 0) : engine.dataDidChange(change)
        if changed { selectionDidChange(ref: nil, now: now) }
        return changed
    }

    /// Bumps `seq` and logs one encoded `append`, with the domains when they moved.
    private func logAppend(_ points: [SeriesPoint], evictBefore: Double?) {
        seq += 1
        let x = ChartChannel.xAxis(of: store), y = ChartChannel.yRange(of: store)
        let append = ServerMessage.Append(chart: id, seq: seq, points: points, evictBefore: evictBefore,
                                          x: x != sentX ? x : nil, y: y != sentY ? y : nil)
        sentX = x
        sentY = y
        appendLog.append(OutboundFrame(textBytes: ServerMessage.append(append).encode()))
    }

    /// The store's x axis as sent: category names, or the numeric domain.
    static func xAxis(of store: ChartStore) -> XAxis {
        if store.spec.xKind == .category { return XAxis(kind: .category, domain: .categories(store.spec.categories)) }
        let (d0, d1) = store.xDomain
        return XAxis(kind: store.spec.xKind, domain: .numeric(d0, d1))
    }

    /// The store's y domain (the engine's one policy) as sent.
    static func yRange(of store: ChartStore) -> ClosedRange<Double> {
        let (y0, y1) = store.yDomain
        return y0...y1
    }
}
