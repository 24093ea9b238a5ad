import ChartCastProtocol
import ChartCastStorage
import ChartEngine

/// One series of a points answer: ascending x (category charts: the category index), y
/// parallel.
struct PointsColumn: Equatable {
    var name: String
    var xs: [Double] = []
    var ys: [Double] = []
}

extension ServerCore {
    /// What a history read for `GET …/points` brought back, with the range and grid it chose.
    private struct StoredPart {
        var lo: Double
        var hi: Double
        var grid: M4Grid?
        var series: [StoredSeries]
    }

    /// `GET /api/charts/{id}/points`: the chart's points in [from, to], at most `max` per series
    /// (M4 over `max / 4` pixel columns of [from, to] when there are more), as JSON or CSV.
    ///
    /// Charts that keep history (and a server that has a store) answer from the stored points
    /// older than the live window and the live window's own points from then on, on one M4 grid,
    /// so the merge is exact; the store is read on a worker. Other charts answer from the live
    /// window. Category charts answer every category's value.
    /// - Complexity: on the service thread O(log n + max · series); the rest on workers.
    /// - Note: service thread only.
    func readPoints(_ id: String, _ request: APIRequest, attempt: Int = 1, reply: @escaping (APIResponse) -> Void) {
        assertOwningThread()
        guard let channel = channelsByID[id] else { return reply(.unknownChart(id)) }
        let spec = channel.spec
        let query: PointsQuery
        switch PointsQuery.parse(request, kind: spec.xKind) {
        case .failure(let refusal): return reply(.error(400, "bad_request", refusal.message))
        case .success(let parsed): query = parsed
        }
        let store = channel.store
        guard spec.xKind != .category else {
            return encodeOnWorker(ServerCore.categoryColumns(of: store), spec: spec, csv: query.csv, reply: reply)
        }
        let firstInMemory = store.count > 0 ? store.xNumber(at: 0) : Double.infinity
        let lastInMemory = store.count > 0 ? store.xNumber(at: store.count - 1) : -Double.infinity
        guard let history, HistoryLink.keeps(spec), (query.from ?? -.infinity) < firstInMemory else {
            let lo = query.from ?? firstInMemory, hi = query.to ?? lastInMemory
            let grid = M4Grid(from: lo, to: hi, columns: query.max / 4)
            let columns = ServerCore.pointColumns(of: store, lo: lo, hi: hi, grid: grid, max: query.max, stored: [])
            return encodeOnWorker(columns, spec: spec, csv: query.csv, reply: reply)
        }
        let historyStore = history.store
        onWorker({ () throws -> StoredPart in
            let extent = try historyStore.extent(chart: id)
            let lo = query.from ?? Swift.min(extent?.lowerBound ?? .infinity, firstInMemory)
            let hi = query.to ?? Swift.max(extent?.upperBound ?? -.infinity, lastInMemory)
            let grid = M4Grid(from: lo, to: hi, columns: query.max / 4)
            let until = Swift.min(hi, firstInMemory.nextDown)
            guard lo <= until else { return StoredPart(lo: lo, hi: hi, grid: grid, series: []) }
            let series = try grid.map { try historyStore.read(chart: id, from: lo, to: until, grid: $0) }
                ?? historyStore.read(chart: id, from: lo, to: until, maxPerSeries: query.max)
            return StoredPart(lo: lo, hi: hi, grid: grid, series: series)
        }, then: { result in
            switch result {
            case .failure(let error):
                reply(.unavailable(error as? StorageError ?? StorageError(kind: .unavailable, path: historyStore.path,
                                                                          message: "Reading the history failed: \(error).")))
            case .success(let part):
                guard let channel = self.channelsByID[id] else { return reply(.unknownChart(id)) }
                let now = channel.store.count > 0 ? channel.store.xNumber(at: 0) : Double.infinity
                if now != firstInMemory && attempt < 3 {
                    // The window moved on while the store was read: read again from the new edge.
                    return self.readPoints(id, request, attempt: attempt + 1, reply: reply)
                }
                let columns = ServerCore.pointColumns(of: channel.store, lo: Swift.max(part.lo, firstInMemory), hi: part.hi,
                                                      grid: part.grid, max: query.max, stored: part.series)
                self.encodeOnWorker(columns, spec: channel.spec, csv: query.csv, reply: reply)
            }
        })
    }

    /// Encodes the answer on a worker and replies on the service thread.
    private func encodeOnWorker(_ columns: [PointsColumn], spec: ChartSpec, csv: Bool, reply: @escaping (APIResponse) -> Void) {
        onWorker({ csv ? PointsEncoding.csv(columns, spec: spec) : PointsEncoding.json(columns, spec: spec) },
                 then: { result in
            switch result {
            case .success(let response): reply(response)
            case .failure(let error): reply(.error(500, "internal", "\(error)"))
            }
        })
    }

    /// The live window's rows in [lo, hi] after `stored` (points older than the window), per
    /// series: every point when they are at most `max`, else M4 on `grid` (each part is either
    /// whole or M4 on that grid, so M4 of their concatenation is M4 of all the points).
    /// Stored series the chart no longer lists come last.
    /// - Complexity: O(log n + min(rows, max) · series).
    static func pointColumns(of store: ChartStore, lo: Double, hi: Double, grid: M4Grid?, max: Int,
                             stored: [StoredSeries]) -> [PointsColumn] {
        let rows = lo <= hi ? store.indexRange(fromX: lo, toX: hi) : 0..<0
        let memoryIsM4 = grid.map { rows.count > 4 * $0.columns } ?? false
        let plan = memoryIsM4 ? grid.map(store.m4Plan) : nil
        var kept: [Int] = []
        var columns: [PointsColumn] = []
        for (s, name) in store.spec.series.enumerated() {
            var column = PointsColumn(name: name)
            var downsampled = memoryIsM4
            if let old = stored.first(where: { $0.name == name }) {
                column.xs = old.xs
                column.ys = old.ys
                downsampled = downsampled || old.isDownsampled
            }
            if let plan {
                kept.removeAll(keepingCapacity: true)
                store.m4Rows(series: s, plan: plan, into: &kept)
                for row in kept { column.append(store, series: s, row: row) }
            } else {
                for row in rows { column.append(store, series: s, row: row) }
            }
            if let grid, downsampled || column.xs.count > max {
                let keep = M4.downsample(xs: column.xs, ys: [column.ys], grid: grid)[0]
                column.xs = keep.map { column.xs[$0] }
                column.ys = keep.map { column.ys[$0] }
            }
            columns.append(column)
        }
        for old in stored where !store.spec.series.contains(old.name) {
            columns.append(PointsColumn(name: old.name, xs: old.xs, ys: old.ys))
        }
        return columns
    }

    /// A category chart's values: x is the category's index.
    static func categoryColumns(of store: ChartStore) -> [PointsColumn] {
        store.spec.series.enumerated().map { s, name in
            var column = PointsColumn(name: name)
            for row in 0..<store.count {
                guard let y = store.y(series: s, at: row) else { continue }
                column.xs.append(Double(row))
                column.ys.append(y)
            }
            return column
        }
    }
}

private extension PointsColumn {
    /// Adds row `row` of the store's series `series` when it has a value there.
    mutating func append(_ store: ChartStore, series: Int, row: Int) {
        guard let y = store.y(series: series, at: row) else { return }
        xs.append(store.xNumber(at: row))
        ys.append(y)
    }
}
