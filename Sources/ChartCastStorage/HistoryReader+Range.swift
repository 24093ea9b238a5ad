import ChartEngine

extension HistoryReader {
    /// The smallest maximum a downsampling read honours: M4's first, last, min and max.
    static let minimumPerSeries = 4

    /// Every series of a chart in [from, to], each M4-downsampled to at most `maxPerSeries`
    /// points when it has more there.
    static func read(_ db: SQLiteConnection, chart: String, from: Double, to: Double,
                     maxPerSeries: Int, grid: M4Grid? = nil) throws -> [StoredSeries] {
        try series(db, chart: chart).map { id, name in
            try read(db, series: id, name: name, from: from, to: to, maxPerSeries: maxPerSeries, grid: grid)
        }
    }

    /// One series in [from, to]: all its points there when they are at most `maxPerSeries`,
    /// else M4 over `maxPerSeries / 4` columns spanning [from, to] (an infinite bound stands for
    /// the first or last point in the range), or over `grid`'s columns when given.
    ///
    /// Only chunks reaching outside [from, to] and chunks that straddle a column boundary are
    /// decoded; every other chunk lies inside one column and joins M4 through its summary row.
    ///
    /// - Complexity: O(log chunks + chunks in range) rows, plus O(capacity) points decoded per
    ///   column boundary and per end of the range; O(points in range) when not downsampled.
    static func read(_ db: SQLiteConnection, series: Int64, name: String, from: Double, to: Double,
                     maxPerSeries: Int, grid: M4Grid? = nil) throws -> StoredSeries {
        guard !from.isNaN, !to.isNaN, from <= to else {
            return StoredSeries(name: name, xs: [], ys: [], pointsInRange: 0)
        }
        let list = try chunks(db, series: series, from: from, to: to)

        // Pass 1: count, decoding only the chunks that reach outside the range.
        var clipped: [Int: ChunkPoints] = [:]
        var total = 0
        var firstX: Double?, lastX: Double?
        for (i, chunk) in list.enumerated() {
            let s = chunk.summary
            if s.x0 >= from && s.x1 <= to {
                total += s.count
                if firstX == nil { firstX = s.x0 }
                lastX = s.x1
                continue
            }
            let all = try points(db, chunk)
            var inside = ChunkPoints(tracksTimes: false)
            for k in 0..<all.count where all.xs[k] >= from && all.xs[k] <= to {
                inside.append(x: all.xs[k], y: all.ys[k], time: 0)
            }
            clipped[i] = inside
            total += inside.count
            if let x = inside.xs.first, firstX == nil { firstX = x }
            if let x = inside.xs.last { lastX = x }
        }

        let limit = max(minimumPerSeries, maxPerSeries)
        guard total > limit, let firstX, let lastX else {
            var xs: [Double] = [], ys: [Double] = []
            xs.reserveCapacity(total)
            ys.reserveCapacity(total)
            for (i, chunk) in list.enumerated() {
                let decoded = try clipped[i] ?? HistoryReader.points(db, chunk)
                xs += decoded.xs
                ys += decoded.ys
            }
            return StoredSeries(name: name, xs: xs, ys: ys, pointsInRange: total)
        }

        // Pass 2: M4, summaries where a chunk fits one column.
        var m4 = grid.map { M4(grid: $0) } ?? M4(lo: from.isFinite ? from : firstX, hi: to.isFinite ? to : lastX, columns: limit / 4)
        for (i, chunk) in list.enumerated() {
            let decoded: ChunkPoints
            if let inside = clipped[i] {
                decoded = inside
            } else if m4.column(of: chunk.summary.x0) == m4.column(of: chunk.summary.x1) {
                m4.add(chunk.summary)
                continue
            } else {
                decoded = try HistoryReader.points(db, chunk)
            }
            for k in 0..<decoded.count { m4.add(x: decoded.xs[k], y: decoded.ys[k]) }
        }
        let kept = m4.result()
        return StoredSeries(name: name, xs: kept.xs, ys: kept.ys, pointsInRange: total)
    }
}
