import ChartEngine

extension PointBatch {
    /// Checks every point against the chart, all-or-nothing, and groups the points by x.
    ///
    /// - x must fit the chart's kind: time — a number (epoch ms) or an RFC 3339 date-time
    ///   (CSV: a cell that is either); linear — a number; category — one of `spec.categories`
    ///   (CSV: the cell's text; a JSON number or a line-protocol timestamp never is one);
    /// - a series not in `existingSeries` is added after them, and the chart may have at most
    ///   `limits.maxSeriesPerChart` series in all.
    ///
    /// The first point, in batch order, that breaks a rule is reported as `bad_point` with its
    /// line (the line of its x for x problems) and index. Batch order is body order, except for
    /// JSON columns, where it is position by position.
    /// - Parameter existingSeries: the chart's series now; `nil` means `spec.series`.
    /// - Complexity: O(n) when x values arrive in order (or on category charts), else
    ///   O(n log n) for the sort.
    public func validate(against spec: ChartSpec, existingSeries: [String]? = nil,
                         limits: IngestLimits = .standard) throws -> ValidatedBatch {
        let existing = existingSeries ?? spec.series
        var known: [String: Int] = [:]
        for (s, name) in existing.enumerated() where known[name] == nil { known[name] = s }
        var chartSeries = existing
        var newSeries: [String] = []
        // Batch series → chart series; a new series gets its index when its first point is met.
        var seriesMap = series.map { known[$0] ?? -1 }
        var categories: [String: Int] = [:]
        if spec.xKind == .category {
            for (k, name) in spec.categories.enumerated() where categories[name] == nil { categories[name] = k }
        }

        var xs = [Double](repeating: 0, count: count)
        var sorted = true
        var previous = -Double.infinity
        for k in 0..<count {
            let point = stored[k]
            let x = try resolveX(point, k, spec, categories)
            xs[k] = x
            if x < previous { sorted = false }
            previous = x
            let s = Int(point.series)
            if seriesMap[s] < 0 {
                guard chartSeries.count < limits.maxSeriesPerChart else {
                    throw IngestError.badPoint(
                        "series \(Quote.string(series[s])) would be series \(chartSeries.count + 1) of chart "
                            + "\(Quote.string(spec.id)) (at most \(limits.maxSeriesPerChart))",
                        line: Int(point.line), index: point.index < 0 ? nil : Int(point.index))
                }
                seriesMap[s] = chartSeries.count
                chartSeries.append(series[s])
                newSeries.append(series[s])
            }
        }

        let order = spec.xKind == .category
            ? categoryOrder(xs, categoryCount: spec.categories.count)
            : (sorted ? nil : sortedOrder(xs))
        var rowXs: [Double] = []
        var rowStarts: [Int32] = []
        var cellSeries = [Int32](repeating: 0, count: count)
        var cellValues = [Double](repeating: 0, count: count)
        for c in 0..<count {
            let k = order.map { Int($0[c]) } ?? c
            let x = xs[k]
            if rowXs.isEmpty || x != rowXs[rowXs.count - 1] {
                rowXs.append(x)
                rowStarts.append(Int32(truncatingIfNeeded: c))
            }
            cellSeries[c] = Int32(truncatingIfNeeded: seriesMap[Int(stored[k].series)])
            cellValues[c] = stored[k].y
        }
        rowStarts.append(Int32(truncatingIfNeeded: count))
        return ValidatedBatch(chart: spec.id, xKind: spec.xKind, series: chartSeries, newSeries: newSeries,
                              categories: spec.categories, rowXs: rowXs, rowStarts: rowStarts, cellSeries: cellSeries, cellValues: cellValues)
    }

    /// The x of point `k` as the chart reads it, or the `bad_point` naming it.
    private func resolveX(_ point: Stored, _ k: Int, _ spec: ChartSpec, _ categories: [String: Int]) throws -> Double {
        let hasText = point.textCount >= 0
        switch spec.xKind {
        case .time:
            if !point.x.isNaN { return point.x }
            guard hasText else { throw xProblem(point, k, "is not a number") }
            let ms = text.withUnsafeBufferPointer { all in
                RFC3339.epochMilliseconds(UnsafeBufferPointer(rebasing: all[Int(point.textStart)..<Int(point.textStart + point.textCount)]))
            }
            if let ms { return ms }
            throw xProblem(point, k, "\(quotedText(point)) is not an RFC 3339 date-time"
                + (source == .csv ? " or a number (epoch ms)" : " (epoch ms must be a JSON number)"))
        case .linear:
            if !point.x.isNaN { return point.x }
            throw xProblem(point, k, (source == .csv ? "\(quotedText(point)) is not a number" : "must be a number, got a string")
                + " (chart \(Quote.string(spec.id)) has a linear x)")
        case .category:
            guard hasText else {
                let what = source == .lineProtocol ? "cannot be the x of category chart \(Quote.string(spec.id))"
                    : "must be a category name of chart \(Quote.string(spec.id)), got a number"
                throw xProblem(point, k, what)
            }
            if let index = categories[textString(point)] { return Double(index) }
            throw xProblem(point, k, "\(quotedText(point)) is not a category of chart \(Quote.string(spec.id))")
        }
    }

    private func quotedText(_ point: Stored) -> String { Quote.bytes(textBytes(point)) }

    private func xProblem(_ point: Stored, _ k: Int, _ problem: String) -> IngestError {
        let subject: String
        switch source {
        case .jsonRows: subject = "points[\(point.index)].x"
        case .jsonColumns: subject = "x[\(point.index)]"
        case .csv: subject = "x"
        case .lineProtocol: subject = "the timestamp"
        }
        return .badPoint("\(subject) \(problem)", line: Int(point.xLine), index: point.index < 0 ? nil : Int(point.index))
    }

    /// Point indices sorted by (x, batch order).
    private func sortedOrder(_ xs: [Double]) -> [Int32] {
        var order = (0..<Int32(truncatingIfNeeded: xs.count)).map { $0 }
        xs.withUnsafeBufferPointer { x in
            order.sort { a, b in
                let xa = x[Int(a)], xb = x[Int(b)]
                return xa < xb || (xa == xb && a < b)
            }
        }
        return order
    }

    /// Point indices by category index, batch order within a category (a counting sort).
    private func categoryOrder(_ xs: [Double], categoryCount: Int) -> [Int32] {
        var starts = [Int](repeating: 0, count: categoryCount + 1)
        for x in xs { starts[Int(x) + 1] += 1 }
        for k in 0..<categoryCount { starts[k + 1] += starts[k] }
        var order = [Int32](repeating: 0, count: xs.count)
        for (k, x) in xs.enumerated() {
            order[starts[Int(x)]] = Int32(truncatingIfNeeded: k)
            starts[Int(x)] += 1
        }
        return order
    }
}
