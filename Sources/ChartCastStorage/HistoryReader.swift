import ChartEngine
import ChartCastProtocol

/// The store's reads, each run inside one read transaction of a reader connection.
///
/// - Note: any thread, with a connection of its own (`ReadPool`).
enum HistoryReader {
    /// A chunk's summary row and the id of its blob.
    struct Chunk {
        var summary: ChunkSummary
        var data: Int64
    }

    /// Every saved spec, in the order the charts were first defined.
    /// - Throws: `StorageError(.corrupt)` when a saved spec no longer parses.
    static func loadCharts(_ db: SQLiteConnection) throws -> [StoredChart] {
        var rows: [(String, [UInt8])] = []
        do {
            let s = try db.statement("SELECT id, spec FROM chart WHERE spec IS NOT NULL ORDER BY position")
            defer { s.reset() }
            while try s.step() { rows.append((s.text(0) ?? "", s.bytes(1))) }
        }
        return try rows.map { id, json in
            let spec: ChartSpec
            do {
                spec = try ChartSpec.parse(json)
            } catch {
                throw StorageError.corrupt(path: db.path, "the saved spec of chart \"\(id)\" does not parse (\(error))")
            }
            return StoredChart(spec: spec, storedSeries: try series(db, chart: id).map(\.name))
        }
    }

    /// The smallest and largest stored x of a chart, over all its series; nil when it has no
    /// stored points.
    /// - Complexity: O(series · log chunks): a series' chunks do not overlap, so its first
    ///   chunk starts its extent and its last chunk ends it.
    static func extent(_ db: SQLiteConnection, chart: String) throws -> ClosedRange<Double>? {
        var lo = Double.infinity, hi = -Double.infinity
        let first = try db.statement("SELECT x0 FROM chunk WHERE series = ?1 ORDER BY x0 LIMIT 1")
        let last = try db.statement("SELECT x1 FROM chunk WHERE series = ?1 ORDER BY x0 DESC LIMIT 1")
        defer {
            first.reset()
            last.reset()
        }
        for (id, _) in try series(db, chart: chart) {
            first.bind(1, id)
            if try first.step() { lo = min(lo, first.double(0)) }
            first.reset()
            last.bind(1, id)
            if try last.step() { hi = max(hi, last.double(0)) }
            last.reset()
        }
        return lo <= hi ? lo...hi : nil
    }

    /// A chart's series with their ids, in the order they were first stored.
    static func series(_ db: SQLiteConnection, chart: String) throws -> [(id: Int64, name: String)] {
        let s = try db.statement("SELECT id, name FROM series WHERE chart = ?1 ORDER BY id")
        defer { s.reset() }
        s.bind(1, chart)
        var list: [(Int64, String)] = []
        while try s.step() { list.append((s.int64(0), s.text(1) ?? "")) }
        return list
    }

    /// The points of one chunk.
    /// - Throws: `StorageError(.corrupt)` for a missing or mis-sized blob.
    static func points(_ db: SQLiteConnection, _ chunk: Chunk) throws -> ChunkPoints {
        let s = try db.statement("SELECT points FROM chunk_data WHERE id = ?1")
        defer { s.reset() }
        s.bind(1, chunk.data)
        guard try s.step(), let points = s.withBlob(0, { ChunkPoints.decode($0, count: chunk.summary.count) }) else {
            throw StorageError.corrupt(path: db.path, "the points of the chunk at x \(chunk.summary.x0) (blob \(chunk.data)) are missing or do not hold \(chunk.summary.count) points")
        }
        return points
    }

    /// The summaries of a series' chunks that may hold points in [from, to], ascending.
    /// - Complexity: O(log chunks + chunks returned).
    static func chunks(_ db: SQLiteConnection, series: Int64, from: Double, to: Double) throws -> [Chunk] {
        // The chunk holding `from` starts at or before it: begin the range scan there.
        var start = from
        do {
            let s = try db.statement("SELECT x0 FROM chunk WHERE series = ?1 AND x0 <= ?2 ORDER BY x0 DESC LIMIT 1")
            defer { s.reset() }
            s.bind(1, series)
            s.bind(2, from)
            if try s.step() { start = s.double(0) }
        }
        let s = try db.statement("""
            SELECT x0, x1, n, y0, y1, xmin, ymin, xmax, ymax, t0, t1, data FROM chunk
            WHERE series = ?1 AND x0 >= ?2 AND x0 <= ?3 ORDER BY x0
            """)
        defer { s.reset() }
        s.bind(1, series)
        s.bind(2, start)
        s.bind(3, to)
        var list: [Chunk] = []
        while try s.step() {
            let summary = ChunkSummary(x0: s.double(0), x1: s.double(1), count: s.int(2), y0: s.double(3), y1: s.double(4),
                                       xMin: s.double(5), yMin: s.double(6), xMax: s.double(7), yMax: s.double(8),
                                       t0: s.double(9), t1: s.double(10))
            if summary.x1 < from { continue }
            list.append(Chunk(summary: summary, data: s.int64(11)))
        }
        return list
    }

    /// The newest `limit` distinct x values of a chart with each series' value there.
    /// - Complexity: O(series × (limit + one chunk)) points decoded, plus O(rows × series).
    static func latest(_ db: SQLiteConnection, chart: String, limit: Int) throws -> HistoryRows {
        let list = try series(db, chart: chart)
        guard limit > 0 else { return HistoryRows(series: list.map(\.name), rows: []) }
        // Each series' newest `limit` points: the union's newest `limit` x values are among them.
        var perSeries: [(xs: ArraySlice<Double>, ys: ArraySlice<Double>)] = []
        for (id, _) in list {
            var xs: [Double] = [], ys: [Double] = []
            var refs: [Chunk] = []
            do {
                let s = try db.statement("SELECT x0, x1, n, data FROM chunk WHERE series = ?1 ORDER BY x0 DESC")
                defer { s.reset() }
                s.bind(1, id)
                var taken = 0
                while taken < limit, try s.step() {
                    let summary = ChunkSummary(x0: s.double(0), x1: s.double(1), count: s.int(2), y0: 0, y1: 0,
                                               xMin: 0, yMin: 0, xMax: 0, yMax: 0, t0: 0, t1: 0)
                    refs.append(Chunk(summary: summary, data: s.int64(3)))
                    taken += summary.count
                }
            }
            for ref in refs.reversed() {
                let chunk = try points(db, ref)
                xs += chunk.xs
                ys += chunk.ys
            }
            let keep = min(limit, xs.count)
            perSeries.append((xs[(xs.count - keep)...], ys[(ys.count - keep)...]))
        }
        var all = perSeries.flatMap(\.xs)
        all.sort()
        var distinct: [Double] = []
        distinct.reserveCapacity(min(all.count, limit))
        for x in all where distinct.last != x { distinct.append(x) }
        let rowXs = distinct.suffix(limit)
        var rows = rowXs.map { HistoryRows.Row(x: $0, values: Array(repeating: nil, count: list.count)) }
        for (s, points) in perSeries.enumerated() {
            // Both ascending: one merge walk per series.
            var r = 0
            for (x, y) in zip(points.xs, points.ys) {
                while r < rows.count && rows[r].x < x { r += 1 }
                if r < rows.count && rows[r].x == x { rows[r].values[s] = y }
            }
        }
        return HistoryRows(series: list.map(\.name), rows: rows)
    }
}
