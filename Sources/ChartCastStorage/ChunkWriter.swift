/// Writes a series' points into chunks inside the writer's open transaction: upsert, merge of
/// small neighbours, removal. The layout and its invariants are described on `Schema`.
///
/// - Note: storage thread only (it uses the writer connection).
struct ChunkWriter {
    let db: SQLiteConnection
    /// Most points in a chunk.
    let capacity: Int
    /// Neighbouring small chunks that trigger a merge.
    let mergeRun: Int

    /// A chunk as the write path sees it: its key, size, blob id and newest write time.
    struct Ref {
        var x0: Double
        var x1: Double
        var count: Int
        var data: Int64
        var t1: Double
    }

    /// A chunk below this many points counts as small.
    var smallBelow: Int { max(1, capacity / 2) }

    /// Stores `points` (normalized: ascending, unique x) in series `series`: a point at an x the
    /// series already has replaces the stored one; the chunks it overlaps are rewritten.
    /// - Parameter writeTime: the write time recorded for untracked points (time charts).
    /// - Complexity: O(points + points of the overlapped chunks), plus a bounded merge.
    func upsert(series: Int64, _ points: ChunkPoints, writeTime: Double) throws {
        guard let lo = points.xs.first, let hi = points.xs.last else { return }
        var overlapped: [Ref] = []
        do {
            let s = try db.statement("SELECT x0, x1, n, data, t1 FROM chunk WHERE series = ?1 AND x0 <= ?2 ORDER BY x0 DESC")
            defer { s.reset() }
            s.bind(1, series)
            s.bind(2, hi)
            while try s.step() {
                let ref = Ref(x0: s.double(0), x1: s.double(1), count: s.int(2), data: s.int64(3), t1: s.double(4))
                if ref.x1 < lo { break }
                overlapped.append(ref)
            }
        }
        var merged = points
        if !overlapped.isEmpty {
            let old = try concatenate(overlapped.reversed(), tracksTimes: points.tracksTimes)
            merged = ChunkPoints.merge(old, points)
            for ref in overlapped { try remove(series: series, ref) }
        }
        let pieces = try insert(series: series, merged, writeTime: writeTime)
        if pieces == 1 && merged.count < smallBelow {
            try mergeSmallRun(series: series, around: merged.xs[0], tracksTimes: points.tracksTimes)
        }
    }

    /// Inserts `points` as chunks of at most `capacity` points, balanced (a write of
    /// capacity + 1 points makes two halves, not a full chunk and a one-point chunk).
    /// - Returns: the number of chunks written.
    @discardableResult
    func insert(series: Int64, _ points: ChunkPoints, writeTime: Double) throws -> Int {
        let n = points.count
        guard n > 0 else { return 0 }
        let pieces = (n + capacity - 1) / capacity
        var start = 0
        for piece in 0..<pieces {
            let size = n / pieces + (piece < n % pieces ? 1 : 0)
            let range = start..<(start + size)
            start += size
            let blob = try db.statement("INSERT INTO chunk_data (points) VALUES (?1)")
            defer { blob.reset() }
            blob.bind(1, blob: points.encoded(range))
            try blob.step()
            let summary = points.summary(range, writeTime: writeTime)
            let row = try db.statement("""
                INSERT INTO chunk (series, x0, x1, n, y0, y1, xmin, ymin, xmax, ymax, t0, t1, data)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
                """)
            defer { row.reset() }
            row.bind(1, series)
            row.bind(2, summary.x0); row.bind(3, summary.x1); row.bind(4, summary.count)
            row.bind(5, summary.y0); row.bind(6, summary.y1)
            row.bind(7, summary.xMin); row.bind(8, summary.yMin)
            row.bind(9, summary.xMax); row.bind(10, summary.yMax)
            row.bind(11, summary.t0); row.bind(12, summary.t1)
            row.bind(13, db.lastInsertRowID)
            try row.step()
        }
        return pieces
    }

    /// The points of one chunk. Points stored without write times get `ref.t1` when
    /// `tracksTimes` asks for them.
    /// - Throws: `StorageError(.corrupt)` when the blob is missing or has the wrong size.
    func load(_ ref: Ref, tracksTimes: Bool) throws -> ChunkPoints {
        let s = try db.statement("SELECT points FROM chunk_data WHERE id = ?1")
        defer { s.reset() }
        s.bind(1, ref.data)
        guard try s.step(), let points = s.withBlob(0, { ChunkPoints.decode($0, count: ref.count) }) else {
            throw StorageError.corrupt(path: db.path, "the points of the chunk at x \(ref.x0) (blob \(ref.data)) are missing or do not hold \(ref.count) points")
        }
        guard points.tracksTimes != tracksTimes else { return points }
        var converted = ChunkPoints(tracksTimes: tracksTimes)
        converted.reserveCapacity(points.count)
        for i in 0..<points.count { converted.append(x: points.xs[i], y: points.ys[i], time: ref.t1) }
        return converted
    }

    /// The points of consecutive chunks (ascending, non-overlapping) in one run.
    func concatenate(_ refs: some Sequence<Ref>, tracksTimes: Bool) throws -> ChunkPoints {
        var all = ChunkPoints(tracksTimes: tracksTimes)
        for ref in refs {
            let points = try load(ref, tracksTimes: tracksTimes)
            all.xs += points.xs
            all.ys += points.ys
            if tracksTimes { all.times += points.times }
        }
        return all
    }

    /// Deletes one chunk and its blob.
    func remove(series: Int64, _ ref: Ref) throws {
        let blob = try db.statement("DELETE FROM chunk_data WHERE id = ?1")
        defer { blob.reset() }
        blob.bind(1, ref.data)
        try blob.step()
        let row = try db.statement("DELETE FROM chunk WHERE series = ?1 AND x0 = ?2")
        defer { row.reset() }
        row.bind(1, series)
        row.bind(2, ref.x0)
        try row.step()
    }

    /// Deletes every chunk of a series.
    func removeAll(series: Int64) throws {
        let blobs = try db.statement("DELETE FROM chunk_data WHERE id IN (SELECT data FROM chunk WHERE series = ?1)")
        defer { blobs.reset() }
        blobs.bind(1, series)
        try blobs.step()
        let rows = try db.statement("DELETE FROM chunk WHERE series = ?1")
        defer { rows.reset() }
        rows.bind(1, series)
        try rows.step()
    }

    /// Merges the run of small chunks around the chunk starting at `x0` when it has at least
    /// `mergeRun` chunks: at most `2 × mergeRun` neighbours each side are looked at.
    /// - Complexity: O(mergeRun × capacity) at most.
    private func mergeSmallRun(series: Int64, around x0: Double, tracksTimes: Bool) throws {
        let before = try smallNeighbours(series: series, x0: x0, sql:
            "SELECT x0, x1, n, data, t1 FROM chunk WHERE series = ?1 AND x0 <= ?2 ORDER BY x0 DESC LIMIT ?3")
        let after = try smallNeighbours(series: series, x0: x0, sql:
            "SELECT x0, x1, n, data, t1 FROM chunk WHERE series = ?1 AND x0 > ?2 ORDER BY x0 LIMIT ?3")
        let run = before.reversed() + after
        guard run.count >= mergeRun else { return }
        let points = try concatenate(run, tracksTimes: tracksTimes)
        for ref in run { try remove(series: series, ref) }
        try insert(series: series, points, writeTime: run.map(\.t1).max() ?? 0)
    }

    /// The chunks `sql` lists from `x0`, while they are small.
    private func smallNeighbours(series: Int64, x0: Double, sql: String) throws -> [Ref] {
        let s = try db.statement(sql)
        defer { s.reset() }
        s.bind(1, series)
        s.bind(2, x0)
        s.bind(3, 2 * mergeRun)
        var refs: [Ref] = []
        while try s.step() {
            let ref = Ref(x0: s.double(0), x1: s.double(1), count: s.int(2), data: s.int64(3), t1: s.double(4))
            if ref.count >= smallBelow { break }
            refs.append(ref)
        }
        return refs
    }
}
