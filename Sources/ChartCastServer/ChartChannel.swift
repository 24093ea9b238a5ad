import ChartCastIngest
import ChartCastProtocol
import ChartEngine
import WebSockets

/// One chart as the server runs it: data, shared selection, sequence number and the encoded
/// frames every viewer is served from.
///
/// Every change bumps `seq`. An append becomes one frame in the append log; a selection change
/// replaces the single newest selection frame (state, not events); a snapshot is encoded at most
/// once per `seq` and `SnapshotKey` (plot width, view), whoever asks for it: viewers whose plots
/// are equally wide share one frame.
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
    /// The domains last sent, so an append carries them only when they moved; `sentY` is the y
    /// of every live-window snapshot of the current `seq`.
    private(set) var sentX: XAxis
    private(set) var sentY: ClosedRange<Double>
    /// Encoded snapshots of the current `seq`, by key, with when each was last asked for; at
    /// most `maxCachedSnapshots` of them and `maxCachedSnapshotBytes` in all (the least recently
    /// asked for goes first).
    private var snapshotCache: [(key: SnapshotKey, frame: OutboundFrame, used: Int)] = []
    /// Bytes of the snapshots in `snapshotCache`.
    private(set) var snapshotCacheBytes = 0
    /// Snapshots in the cache now.
    var cachedSnapshots: Int { snapshotCache.count }
    private var snapshotCacheSeq = -1
    /// The live-window snapshot keys viewers asked for under the previous `seq` (and since), at
    /// most 4, the most recently used first: what their plots ask for, built ahead after a
    /// write that outgrew them (`prebuildSnapshots`).
    private(set) var recentSnapshotKeys: [SnapshotKey] = []
    /// Whether the last write brought more points per series than the plots of
    /// `recentSnapshotKeys` take as an append (or went to everyone as a snapshot): those viewers
    /// are sent snapshots for it.
    private(set) var writeOutgrewRecentPlots = false
    private var snapshotCacheClock = 0
    /// Snapshots encoded for viewers so far (each cache miss, and each snapshot merged with history).
    private(set) var snapshotsEncoded = 0
    /// The x of the newest row (time/linear charts), `-∞` with none: a viewer whose view ends
    /// before it is zoomed into the past and is sent no appends.
    private(set) var liveEdge = -Double.infinity
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
        updateLiveEdge()
    }

    /// Takes the domains last sent from the snapshot this chart was made from (`--redis`), so
    /// that its next appends carry the same domains as on the instance that took it.
    func restoreSentDomains(x: XAxis, y: ClosedRange<Double>) {
        sentX = x
        sentY = y
    }

    /// Snapshots cached per chart (one per distinct plot width or view being served at one `seq`).
    static let maxCachedSnapshots = 16
    /// Bytes of snapshots cached per chart: a few of the largest (`ProtocolLimits.maxMessagePoints`)
    /// fit, however many widths and views viewers ask for.
    static let maxCachedSnapshotBytes = 32 << 20
    /// The largest `append` encoded: a write whose append would be larger (long series names)
    /// reaches every viewer as a snapshot instead, like one of more than
    /// `ProtocolLimits.maxMessagePoints` points.
    static let maxAppendBytes = 4 << 20

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
        snapshotCache = []
        snapshotCacheBytes = 0
        selectionFrame = nil
    }

    /// What a viewer's snapshot depends on besides the chart's state: the pixel columns it is
    /// downsampled to (0: not downsampled, every point of the domain) and the viewer's view.
    struct SnapshotKey: Equatable {
        var columns: Int
        var view: ClosedRange<Double>?
    }

    /// The pixel columns a snapshot for a plot `columns` wide is downsampled to: the plot's, but
    /// at most `ProtocolLimits.maxSnapshotColumns` and few enough that 4 points per column of
    /// every series stay within `ProtocolLimits.maxMessagePoints`
    /// (`ProtocolLimits.snapshotColumns(forPlot:series:)`).
    /// - Complexity: O(1).
    func snapshotColumns(for columns: Int) -> Int {
        ServerCore.limits.snapshotColumns(forPlot: columns, series: spec.series.count)
    }

    /// The key of a snapshot for a plot `columns` pixels wide showing `view` (nil: the live
    /// window): every point when no pixel column of the domain holds more than 4 rows (so that
    /// every plot wide enough shares one snapshot), else downsampled — to
    /// `snapshotColumns(for: columns)` columns either way, so a snapshot never carries more than
    /// `ProtocolLimits.maxMessagePoints` points.
    /// - Complexity: O(log n) to find the rows, plus O(rows) when there are at most 4 per column
    ///   on average.
    func snapshotKey(columns: Int, view: ClosedRange<Double>?) -> SnapshotKey {
        guard spec.xKind != .category else { return SnapshotKey(columns: 0, view: nil) }
        let columns = snapshotColumns(for: columns)
        let data = store
        let rows = view.map { data.indexRange(fromX: $0.lowerBound, toX: $0.upperBound) } ?? 0..<data.count
        let (d0, d1) = view.map { ($0.lowerBound, $0.upperBound) } ?? data.xDomain
        guard let grid = M4Grid(from: d0, to: d1, columns: columns) else { return SnapshotKey(columns: 0, view: view) }
        return SnapshotKey(columns: grid.holdsAtMostFourPerColumn(rows: rows) { data.xNumber(at: $0) } ? 0 : columns,
                           view: view)
    }

    /// The chart's whole live window, every point, as a `snapshot` message (`GET /api/charts/{id}`).
    /// - Complexity: O(points).
    func snapshot() -> ServerMessage.Snapshot { snapshot(SnapshotKey(columns: 0, view: nil)) }

    /// The chart's state as a `snapshot` message for `key`: the points of the live window (or of
    /// the view), M4-downsampled to `key.columns` pixel columns unless that is 0.
    /// - Complexity: O(points in the domain · series).
    func snapshot(_ key: SnapshotKey) -> ServerMessage.Snapshot {
        let isCategory = spec.xKind == .category
        let rows: Range<Int>
        var x = sentX
        if let view = key.view, !isCategory {
            rows = store.indexRange(fromX: view.lowerBound, toX: view.upperBound)
            x = XAxis(kind: spec.xKind, domain: .numeric(view.lowerBound, view.upperBound))
        } else {
            rows = 0..<store.count
        }
        let (d0, d1) = key.view.map { ($0.lowerBound, $0.upperBound) } ?? store.xDomain
        let plan = isCategory || key.columns == 0 ? nil : M4Grid(from: d0, to: d1, columns: key.columns).map(store.m4Plan)
        var kept: [Int] = []
        var series: [SeriesData] = []
        series.reserveCapacity(spec.series.count)
        for (seriesIndex, name) in spec.series.enumerated() {
            var points: [DataPoint] = []
            if let plan {
                kept.removeAll(keepingCapacity: true)
                store.m4Rows(series: seriesIndex, plan: plan, into: &kept)
                points.reserveCapacity(kept.count)
                for row in kept {
                    if let y = store.y(series: seriesIndex, at: row) { points.append(DataPoint(x: .number(store.xNumber(at: row)), y: y)) }
                }
            } else {
                points.reserveCapacity(rows.count)
                for row in rows {
                    guard let y = store.y(series: seriesIndex, at: row) else { continue }
                    points.append(DataPoint(x: store.x(at: row), y: y))
                }
            }
            series.append(SeriesData(name: name, points: points))
        }
        return ServerMessage.Snapshot(chart: id, seq: seq, x: x, y: sentY, series: series,
                                      selection: engine.selection, view: isCategory ? nil : key.view)
    }

    /// The snapshot for `key`, encoded once per `seq` and key and shared by every viewer asking
    /// for the same (at most `maxCachedSnapshots` keys are kept per `seq`).
    /// - Complexity: O(points in the domain · series) when not cached, else O(cached keys).
    func snapshotFrame(_ key: SnapshotKey) -> OutboundFrame {
        if snapshotCacheSeq != seq {
            // The plots asked for under the previous seq are the ones to build ahead next time;
            // a width nobody asked for since is forgotten.
            recentSnapshotKeys = snapshotCache.sorted { $0.used > $1.used }.map(\.key).filter { $0.view == nil }.prefix(4).map { $0 }
            snapshotCache.removeAll(keepingCapacity: true)
            snapshotCacheBytes = 0
            snapshotCacheSeq = seq
        }
        snapshotCacheClock += 1
        if let i = snapshotCache.firstIndex(where: { $0.key == key }) {
            snapshotCache[i].used = snapshotCacheClock
            return snapshotCache[i].frame
        }
        let frame = OutboundFrame(textBytes: ServerMessage.snapshot(snapshot(key)).encode())
        snapshotsEncoded += 1
        while !snapshotCache.isEmpty, snapshotCache.count >= ChartChannel.maxCachedSnapshots
                || snapshotCacheBytes + frame.count > ChartChannel.maxCachedSnapshotBytes,
              let oldest = snapshotCache.indices.min(by: { snapshotCache[$0].used < snapshotCache[$1].used }) {
            snapshotCacheBytes -= snapshotCache[oldest].frame.count
            snapshotCache.remove(at: oldest)
        }
        snapshotCache.append((key, frame, snapshotCacheClock))
        snapshotCacheBytes += frame.count
        if key.view == nil, !recentSnapshotKeys.contains(key) {
            recentSnapshotKeys.insert(key, at: 0)
            if recentSnapshotKeys.count > 4 { recentSnapshotKeys.removeLast() }
        }
        return frame
    }

    /// Builds (and caches, for the current `seq`) the downsampled snapshots of `recentSnapshotKeys`.
    /// - Complexity: O(rows · series) per key not built yet.
    func prebuildSnapshots() {
        guard !isRemoved else { return }
        for key in recentSnapshotKeys where key.columns > 0 { _ = snapshotFrame(key) }
    }

    /// The snapshot a plot of the default width (1,000 px) is sent for the live window.
    func snapshotFrame() -> OutboundFrame {
        snapshotFrame(snapshotKey(columns: Session.defaultColumns, view: nil))
    }

    /// A view reaching before the live window: `history` (the stored points older than the
    /// first in-memory row, M4-downsampled on the view's grid when many) merged with the
    /// in-memory points of the view, downsampled again on the same grid when a column holds more
    /// than 4. The y domain is the one policy over the
    /// live window's values and the history's. Encoded for one viewer (not cached); returned
    /// with that y domain.
    /// - Complexity: O(points in the view · series).
    func historySnapshotFrame(view: ClosedRange<Double>, grid: M4Grid, history: [HistorySeries])
        -> (frame: OutboundFrame, yDomain: ClosedRange<Double>) {
        let memory = store.indexRange(fromX: view.lowerBound, toX: view.upperBound)
        let firstInMemory = store.count > 0 ? store.xNumber(at: 0) : Double.infinity
        var lo = store.valueExtent?.lowerBound ?? .infinity, hi = store.valueExtent?.upperBound ?? -.infinity
        var series: [SeriesData] = []
        for (seriesIndex, name) in spec.series.enumerated() {
            var xs: [Double] = [], ys: [Double] = []
            if let old = history.first(where: { $0.name == name }) {
                for (x, y) in zip(old.xs, old.ys) where x >= view.lowerBound && x < firstInMemory && y.isFinite {
                    xs.append(x)
                    ys.append(y)
                    lo = Swift.min(lo, y)
                    hi = Swift.max(hi, y)
                }
            }
            for row in memory {
                guard let y = store.y(series: seriesIndex, at: row) else { continue }
                xs.append(store.xNumber(at: row))
                ys.append(y)
            }
            let kept = grid.holdsAtMostFourPerColumn(rows: xs.indices) { xs[$0] }
                ? Array(xs.indices) : M4.downsample(xs: xs, ys: [ys], grid: grid)[0]
            series.append(SeriesData(name: name, points: kept.map { DataPoint(x: .number(xs[$0]), y: ys[$0]) }))
        }
        let (y0, y1) = ChartStore.yDomain(for: spec, dataMin: lo, dataMax: hi, hasData: lo <= hi)
        let snapshot = ServerMessage.Snapshot(chart: id, seq: seq,
                                              x: XAxis(kind: spec.xKind, domain: .numeric(view.lowerBound, view.upperBound)),
                                              y: y0...y1, series: series, selection: engine.selection, view: view)
        snapshotsEncoded += 1
        return (OutboundFrame(textBytes: ServerMessage.snapshot(snapshot).encode()), y0...y1)
    }

    /// Notes the newest row's x after a change of the data.
    private func updateLiveEdge() {
        liveEdge = spec.xKind != .category && store.count > 0 ? store.xNumber(at: store.count - 1) : -.infinity
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
                  evictBefore: nil, pointsPerSeries: 1)
        guard engine.valuesDidChange(category: category) else { return false }
        selectionDidChange(ref: nil, now: now)
        return true
    }

    /// Time/linear charts: upserts one row, evicts beyond the window and logs the `append`.
    /// Returns whether the selection changed too (a range recomputed, a pin evicted…).
    @discardableResult
    func upsert(x: Double, values: [Double?], now: UInt64) -> Bool {
        let change = store.upsert(x: x, values: values)
        updateLiveEdge()
        var points: [SeriesPoint] = []
        for (seriesIndex, value) in values.enumerated() {
            if let value { points.append(SeriesPoint(series: spec.series[seriesIndex], x: .number(x), y: value)) }
        }
        logAppend(points, evictBefore: change.evictedBefore, pointsPerSeries: 1)
        guard engine.dataDidChange(change) else { return false }
        selectionDidChange(ref: nil, now: now)
        return true
    }

    /// Applies a validated write (new series first): one `append` listing every applied point,
    /// or — when the write carries more points than the chart then holds, so that its snapshot is
    /// the smaller message (a write replacing most of a small window), or more than any message
    /// may carry (`ProtocolLimits.maxMessagePoints`, `maxAppendBytes`) — a fresh snapshot for
    /// everyone instead; and the selection brought up to date. The append notes the most points
    /// it carries for one series, so that a viewer whose plot is too narrow for them is sent a
    /// downsampled snapshot instead (`ServerCore.nextFrame`). Returns whether the selection
    /// changed too.
    /// - Throws: `StoreMismatch` (nothing applied) when the batch does not fit the store.
    /// - Complexity: O(points · (series + log n)).
    @discardableResult
    func apply(_ batch: ValidatedBatch, now: UInt64) throws -> Bool {
        var rows: [Int32] = []
        rows.reserveCapacity(batch.rowCount)
        let applied = try batch.apply(to: store) { row in rows.append(Int32(row)) }
        let perSeries = batch.pointsPerSeries(rows: applied.rowsSkipped == 0 ? nil : rows)
        updateLiveEdge()
        let pointCount = perSeries.reduce(0, +)
        if pointCount > store.count * max(1, store.spec.series.count) || pointCount > ServerCore.limits.maxMessagePoints {
            snapshotForEveryone()
            writeOutgrewRecentPlots = recentSnapshotKeys.contains { $0.columns > 0 }
        } else {
            logAppend(of: batch, rows: rows, perSeries: perSeries, evictBefore: applied.evictedBefore)
            let pointsPerSeries = perSeries.max() ?? 0
            writeOutgrewRecentPlots = recentSnapshotKeys.contains { $0.columns > 0 && pointsPerSeries > 4 * $0.columns }
        }
        let change = StoreChange(insertedX: applied.xRange?.lowerBound, insertedUpTo: applied.xRange?.upperBound,
                                 evictedBefore: applied.evictedBefore, xDomainChanged: applied.xDomainChanged,
                                 yDomainChanged: applied.yDomainChanged)
        let changed = spec.xKind == .category ? engine.valuesDidChange(category: 0) : engine.dataDidChange(change)
        if changed { selectionDidChange(ref: nil, now: now) }
        return changed
    }

    /// The logged append numbered `number` (encoded now if it was deferred), nil when not held.
    /// - Complexity: O(1), or its encoding the first time.
    func appendFrame(_ number: Int) -> OutboundFrame? { appendLog.frame(number) }

    /// Bumps `seq` and logs one encoded `append`, with the domains when they moved — or, when it
    /// would be larger than `maxAppendBytes`, sends everyone a snapshot instead.
    private func logAppend(_ points: [SeriesPoint], evictBefore: Double?, pointsPerSeries: Int) {
        seq += 1
        let x = ChartChannel.xAxis(of: store), y = ChartChannel.yRange(of: store)
        let append = ServerMessage.Append(chart: id, seq: seq, points: points, evictBefore: evictBefore,
                                          x: x != sentX ? x : nil, y: y != sentY ? y : nil)
        let bytes = ServerMessage.append(append).encode()
        guard bytes.count <= ChartChannel.maxAppendBytes else { return putEveryoneBehindTheLog() }
        sentX = x
        sentY = y
        appendLog.append(OutboundFrame(textBytes: bytes), pointsPerSeries: pointsPerSeries, yDomain: append.y)
    }

    /// Logs the `append` of a validated write's applied `rows`. Its bytes are made only when a
    /// viewer first takes it: a write with more points per series than the viewers' plots have
    /// room for reaches them as downsampled snapshots, and then nobody does. The size is bounded
    /// from the points' counts and the series names (a number is at most 24 characters); only a
    /// write that might pass `maxAppendBytes` is encoded at once, to decide exactly.
    /// - Complexity: O(series) now; O(points) when (and if) encoded.
    private func logAppend(of batch: ValidatedBatch, rows: [Int32], perSeries: [Int], evictBefore: Double?) {
        let isCategory = spec.xKind == .category, categories = spec.categories, names = batch.series
        let points = { () -> [SeriesPoint] in
            var points: [SeriesPoint] = []
            points.reserveCapacity(perSeries.reduce(0, +))
            for row in rows {
                let x = batch.x(row: Int(row))
                let xValue: XValue = isCategory ? .category(categories[Int(x)]) : .number(x)
                for (series, y) in batch.cells(row: Int(row)) { points.append(SeriesPoint(series: names[series], x: xValue, y: y)) }
            }
            return points
        }
        let pointsPerSeries = perSeries.max() ?? 0
        var bound = 512   // the envelope, axes and domains
        for (s, count) in perSeries.enumerated() where count > 0 {
            var name = JSONWriter(capacity: names[s].utf8.count + 8)
            name.string(names[s])
            bound += count * (name.bytes.count + 72)   // {"series":…,"x":…,"y":…}, each number ≤ 24 bytes
        }
        guard !isCategory, bound <= ChartChannel.maxAppendBytes else {
            return logAppend(points(), evictBefore: evictBefore, pointsPerSeries: pointsPerSeries)
        }
        seq += 1
        let x = ChartChannel.xAxis(of: store), y = ChartChannel.yRange(of: store)
        let envelope = ServerMessage.Append(chart: id, seq: seq, points: [], evictBefore: evictBefore,
                                            x: x != sentX ? x : nil, y: y != sentY ? y : nil)
        sentX = x
        sentY = y
        appendLog.append(deferred: {
            var append = envelope
            append.points = points()
            return OutboundFrame(textBytes: ServerMessage.append(append).encode())
        }, pointsPerSeries: pointsPerSeries, yDomain: envelope.y)
    }

    /// A change too large to send as an append (more points than the chart then holds, more
    /// than `ProtocolLimits.maxMessagePoints`, or over `maxAppendBytes`): a new `seq` and every
    /// viewer behind the append log, so each is sent a (bounded) snapshot next.
    private func snapshotForEveryone() {
        seq += 1
        putEveryoneBehindTheLog()
    }

    /// `snapshotForEveryone` once `seq` is bumped.
    private func putEveryoneBehindTheLog() {
        appendLog.skipAll()
        sentX = ChartChannel.xAxis(of: store)
        sentY = ChartChannel.yRange(of: store)
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
