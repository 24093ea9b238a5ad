import ChartEngine
import ChartCastProtocol

/// One queued write.
enum WriteOp {
    /// Save (or replace) an API-created chart's spec.
    case save(ChartSpec)
    /// Remove a chart's spec and points.
    case delete(String)
    /// Store points of a chart, written at the given time (epoch ms).
    case append(ChartSpec, HistoryBatch, writtenAt: Double)
    /// Delete what retention no longer keeps, as of the given time (epoch ms).
    case sweep(now: Double)
    /// Several writes that commit or fail together, in this order (`HistoryStore.write`).
    indirect case all([WriteOp])
    /// Runs code on the writer between transactions, in a group of its own (tests: size
    /// limits, `query_only`).
    case maintenance((SQLiteConnection) throws -> Void)

    /// The points this write stores; 0 for the others.
    var appendedPoints: Int {
        switch self {
        case .append(_, let batch, _): return batch.count
        case .all(let ops): return ops.reduce(0) { $0 + $1.appendedPoints }
        default: return 0
        }
    }

    /// Its weight against the per-transaction cap: its points, and at least 1.
    var weight: Int { max(1, appendedPoints) }

    /// Whether the write runs alone, outside any transaction.
    var isSolo: Bool {
        if case .maintenance = self { return true }
        return false
    }
}

/// Applies groups of writes to the database, one transaction per group, on the storage thread.
///
/// Points of one series from every append of a group are gathered and stored once at the end
/// of the group (or before the next write that is not an append, so that the order of saves,
/// deletes and sweeps is kept): a hundred small appends to one series in one group make one
/// chunk, not a hundred.
///
/// - Note: storage thread only.
final class HistoryWriter {
    let db: SQLiteConnection
    let chunks: ChunkWriter

    /// The `chart` row's columns the write path compares against.
    struct ChartRow: Equatable {
        var kind: Int64
        var axis: String
        var retention: Int
    }

    /// `chart` rows read or written so far; cleared when a transaction rolls back.
    private var charts: [String: ChartRow] = [:]
    /// Series ids by chart and name; cleared when a transaction rolls back.
    private var seriesIDs: [String: [String: Int64]] = [:]
    /// Points gathered per series id, not yet stored, in first-touched order.
    private var pending: [Int64: (points: ChunkPoints, writeTime: Double)] = [:]
    private var pendingOrder: [Int64] = []

    init(db: SQLiteConnection, options: HistoryStore.Options) {
        self.db = db
        self.chunks = ChunkWriter(db: db, capacity: options.chunkCapacity, mergeRun: options.mergeRun)
    }

    /// Applies `ops` in one transaction and commits it.
    /// - Returns: nil once committed; the error otherwise, with the transaction rolled back
    ///   (nothing of any of `ops` is in the database).
    /// - Complexity: O(points written + points of the chunks they overlap).
    func commit(_ ops: [WriteOp]) -> StorageError? {
        do {
            if ops.count == 1, case .maintenance(let body) = ops[0] {
                try body(db)
                return nil
            }
            try db.execute("BEGIN IMMEDIATE")
            for op in ops { try apply(op) }
            try flushPending()
            try db.execute("COMMIT")
            return nil
        } catch {
            pending.removeAll()
            pendingOrder.removeAll()
            db.rollbackIfNeeded()
            charts.removeAll()
            seriesIDs.removeAll()
            switch error {
            case let storage as StorageError: return storage
            case let failure as SQLiteFailure: return StorageError(failure, while: .writing, path: db.path)
            default:
                return StorageError(kind: .unavailable, path: db.path, message: "Writing to the history database \(db.path) failed: \(error).")
            }
        }
    }

    private func apply(_ op: WriteOp) throws {
        switch op {
        case .save(let spec):
            try flushPending()
            try note(spec, json: spec.encoded())
        case .delete(let id):
            try flushPending()
            try removePoints(chart: id)
            let s = try db.statement("DELETE FROM chart WHERE id = ?1")
            defer { s.reset() }
            s.bind(1, id)
            try s.step()
            charts[id] = nil
        case .append(let spec, let batch, let writtenAt):
            try append(spec, batch, writtenAt: writtenAt)
        case .sweep(let now):
            try flushPending()
            try Retention(db: db, chunks: chunks).sweep(now: now)
        case .all(let ops):
            for op in ops { try apply(op) }
        case .maintenance:
            preconditionFailure("a maintenance write runs alone, outside transactions")
        }
    }

    /// Gathers the batch's finite points per series; a chart with retention 0 stores nothing.
    private func append(_ spec: ChartSpec, _ batch: HistoryBatch, writtenAt: Double) throws {
        guard spec.retentionSeconds > 0 else {
            // Defensive: the caller does not append such charts. Record the new retention of a
            // chart that had some, so the next sweep removes what it kept.
            if try chartRow(spec.id) != nil { try note(spec, json: nil) }
            return
        }
        try note(spec, json: nil)
        // Linear and category points keep their write time: their retention goes by it.
        let tracksTimes = spec.xKind != .time
        var gathered = batch.series.map { _ in ChunkPoints(tracksTimes: tracksTimes) }
        for k in 0..<batch.count {
            let x = batch.xs[k], y = batch.ys[k]
            guard x.isFinite, y.isFinite else { continue }
            gathered[Int(batch.seriesIndex[k])].append(x: x, y: y, time: writtenAt)
        }
        for (s, points) in gathered.enumerated() where !points.isEmpty {
            let id = try seriesID(chart: spec.id, name: batch.series[s])
            var entry = pending.removeValue(forKey: id) ?? (ChunkPoints(tracksTimes: tracksTimes), writtenAt)
            if entry.points.isEmpty { pendingOrder.append(id) }
            entry.points.xs += points.xs
            entry.points.ys += points.ys
            entry.points.times += points.times   // a series' kind is the same all through a group
            entry.writeTime = max(entry.writeTime, writtenAt)
            pending[id] = entry
        }
    }

    /// Stores the gathered points, series by series.
    private func flushPending() throws {
        for id in pendingOrder {
            guard var entry = pending.removeValue(forKey: id) else { continue }
            entry.points.normalize()
            try chunks.upsert(series: id, entry.points, writeTime: entry.writeTime)
        }
        pendingOrder.removeAll()
    }

    /// The chart's row, from the cache or the database.
    private func chartRow(_ id: String) throws -> ChartRow? {
        if let row = charts[id] { return row }
        let s = try db.statement("SELECT kind, axis, retention FROM chart WHERE id = ?1")
        defer { s.reset() }
        s.bind(1, id)
        guard try s.step() else { return nil }
        let row = ChartRow(kind: s.int64(0), axis: s.text(1) ?? "", retention: s.int(2))
        charts[id] = row
        return row
    }

    /// Creates or updates the chart's row (and its spec when `json` is given). A chart whose x
    /// kind or categories changed loses its points: their x values mean something else now.
    private func note(_ spec: ChartSpec, json: [UInt8]?) throws {
        let wanted = ChartRow(kind: Self.kindCode(spec.xKind),
                              axis: spec.xKind == .category ? spec.categories.joined(separator: "\u{1F}") : "",
                              retention: spec.retentionSeconds)
        if let row = try chartRow(spec.id) {
            if row.kind != wanted.kind || row.axis != wanted.axis {
                try flushPending()
                try removePoints(chart: spec.id)
            }
            guard row != wanted || json != nil else { return }
            let s = try db.statement("UPDATE chart SET kind = ?2, axis = ?3, retention = ?4, spec = coalesce(?5, spec) WHERE id = ?1")
            defer { s.reset() }
            s.bind(1, spec.id); s.bind(2, wanted.kind); s.bind(3, wanted.axis); s.bind(4, wanted.retention)
            if let json { s.bind(5, blob: json) } else { s.bindNull(5) }
            try s.step()
        } else {
            let s = try db.statement("""
                INSERT INTO chart (id, position, kind, axis, retention, spec)
                VALUES (?1, (SELECT coalesce(max(position), 0) + 1 FROM chart), ?2, ?3, ?4, ?5)
                """)
            defer { s.reset() }
            s.bind(1, spec.id); s.bind(2, wanted.kind); s.bind(3, wanted.axis); s.bind(4, wanted.retention)
            if let json { s.bind(5, blob: json) } else { s.bindNull(5) }
            try s.step()
        }
        charts[spec.id] = wanted
    }

    /// The id of a chart's series, created on first use.
    private func seriesID(chart: String, name: String) throws -> Int64 {
        if let id = seriesIDs[chart]?[name] { return id }
        let find = try db.statement("SELECT id FROM series WHERE chart = ?1 AND name = ?2")
        defer { find.reset() }
        find.bind(1, chart)
        find.bind(2, name)
        let id: Int64
        if try find.step() {
            id = find.int64(0)
        } else {
            let add = try db.statement("INSERT INTO series (chart, name) VALUES (?1, ?2)")
            defer { add.reset() }
            add.bind(1, chart)
            add.bind(2, name)
            try add.step()
            id = db.lastInsertRowID
        }
        seriesIDs[chart, default: [:]][name] = id
        return id
    }

    /// Deletes every point and series of a chart (its row stays).
    private func removePoints(chart: String) throws {
        let list = try db.statement("SELECT id FROM series WHERE chart = ?1")
        defer { list.reset() }
        list.bind(1, chart)
        var ids: [Int64] = []
        while try list.step() { ids.append(list.int64(0)) }
        list.reset()
        for id in ids {
            try chunks.removeAll(series: id)
            if pending.removeValue(forKey: id) != nil { pendingOrder.removeAll { $0 == id } }
        }
        let drop = try db.statement("DELETE FROM series WHERE chart = ?1")
        defer { drop.reset() }
        drop.bind(1, chart)
        try drop.step()
        seriesIDs[chart] = nil
    }

    /// The `chart.kind` column of an x kind.
    static func kindCode(_ kind: XKind) -> Int64 {
        switch kind {
        case .time: return 0
        case .linear: return 1
        case .category: return 2
        }
    }
}
