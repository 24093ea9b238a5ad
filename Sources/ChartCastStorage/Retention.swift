/// Deletes the points each chart's retention no longer keeps, inside the writer's transaction.
///
/// - Time charts: points whose x is before `now − retention` (x is epoch ms). Chunks are in x
///   order, so whole chunks before the cut are dropped and at most one per series is rewritten.
/// - Linear and category charts: points written before `now − retention`, by the write time
///   each point carries. Whole chunks written before the cut are dropped, chunks written on both
///   sides of it rewritten with the newer points.
/// - Retention 0: every point (the chart is not stored any more).
///
/// - Note: storage thread only.
struct Retention {
    let db: SQLiteConnection
    let chunks: ChunkWriter

    /// Sweeps every chart as of `now` (epoch ms).
    /// - Returns: the number of points deleted.
    /// - Complexity: time charts O(chunks dropped + one chunk's points) per series; linear and
    ///   category charts O(the series' chunks + points of the rewritten ones).
    @discardableResult
    func sweep(now: Double) throws -> Int {
        var charts: [(id: String, kind: Int64, retention: Int)] = []
        do {
            let s = try db.statement("SELECT id, kind, retention FROM chart")
            defer { s.reset() }
            while try s.step() { charts.append((s.text(0) ?? "", s.int64(1), s.int(2))) }
        }
        var deleted = 0
        for chart in charts {
            let cutoff = now - Double(chart.retention) * 1_000
            let byX = chart.kind == HistoryWriter.kindCode(.time)
            for series in try seriesIDs(chart: chart.id) {
                deleted += try sweep(series: series, cutoff: chart.retention > 0 ? cutoff : .infinity, byX: byX)
            }
        }
        return deleted
    }

    private func seriesIDs(chart: String) throws -> [Int64] {
        let s = try db.statement("SELECT id FROM series WHERE chart = ?1")
        defer { s.reset() }
        s.bind(1, chart)
        var ids: [Int64] = []
        while try s.step() { ids.append(s.int64(0)) }
        return ids
    }

    /// Deletes the points of one series older than `cutoff` (by x or by write time).
    private func sweep(series: Int64, cutoff: Double, byX: Bool) throws -> Int {
        // Collect first, then change: a statement never walks rows its own transaction deletes.
        var candidates: [(ref: ChunkWriter.Ref, oldest: Double, newest: Double)] = []
        do {
            let sql = byX
                ? "SELECT x0, x1, n, data, t1, x0, x1 FROM chunk WHERE series = ?1 AND x0 < ?2 ORDER BY x0"
                : "SELECT x0, x1, n, data, t1, t0, t1 FROM chunk WHERE series = ?1 AND t0 < ?2"
            let s = try db.statement(sql)
            defer { s.reset() }
            s.bind(1, series)
            s.bind(2, cutoff)
            while try s.step() {
                let ref = ChunkWriter.Ref(x0: s.double(0), x1: s.double(1), count: s.int(2), data: s.int64(3), t1: s.double(4))
                candidates.append((ref, s.double(5), s.double(6)))
            }
        }
        var deleted = 0
        for candidate in candidates {
            if candidate.newest < cutoff {
                try chunks.remove(series: series, candidate.ref)
                deleted += candidate.ref.count
                continue
            }
            // Both sides of the cut: keep the newer points.
            let points = try chunks.load(candidate.ref, tracksTimes: !byX)
            try chunks.remove(series: series, candidate.ref)
            var kept = ChunkPoints(tracksTimes: points.tracksTimes)
            for i in 0..<points.count where (byX ? points.xs[i] : points.times[i]) >= cutoff {
                kept.append(points, at: i)
            }
            deleted += points.count - kept.count
            try chunks.insert(series: series, kept, writeTime: candidate.ref.t1)
        }
        return deleted
    }
}
