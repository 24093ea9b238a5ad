/// M4 downsampling (Jugel et al., "M4: A Visualization-Oriented Time Series Data Aggregation",
/// VLDB 2014): split an x domain into one column per pixel and keep, per column and series, the
/// first, last, smallest and largest point. A line through the kept points covers exactly the
/// pixels per column that the line through every point covers (the inner points of a column
/// lie between its minimum and maximum, and the segments between columns are the same), so a
/// viewer is sent at most 4 points per series per pixel column and draws the same picture.
///
/// The column grid is the page's own mapping of x to the plot: `fraction · width`, with
/// `fraction = (x − from) / (to − from)`.
public struct M4Grid: Equatable, Sendable {
    /// The domain's first x (left edge of column 0).
    public let from: Double
    /// The domain's last x (right edge of the last column; a point at `to` is in the last column).
    public let to: Double
    /// Number of columns: the plot width in pixels.
    public let columns: Int

    /// A grid of `columns` equal columns over `[from, to]`; nil unless `from < to`, both finite,
    /// and `columns ≥ 1`.
    public init?(from: Double, to: Double, columns: Int) {
        guard from.isFinite, to.isFinite, from < to, columns >= 1 else { return nil }
        self.from = from
        self.to = to
        self.columns = columns
    }

    /// The column of `x`: `⌊(x − from) / (to − from) · columns⌋`, clamped to `0 ..< columns`.
    /// Monotonic in `x`, so the rows of a sorted x column fall into consecutive runs.
    @inline(__always)
    public func column(of x: Double) -> Int {
        let c = (x - from) / (to - from) * Double(columns)
        guard c >= 0 else { return 0 }
        return c < Double(columns) ? Int(c) : columns - 1
    }

    /// Whether no column holds more than 4 of `rows` of an ascending x column read through `x`
    /// (then M4 would keep at most as many points, and sending them all obeys its bound).
    /// - Complexity: O(1) when there are more than `4 · columns` rows (some column must hold
    ///   more), else O(rows).
    public func holdsAtMostFourPerColumn(rows: Range<Int>, x: (Int) -> Double) -> Bool {
        guard rows.count <= 4 * columns else { return false }
        guard rows.count > 4 else { return true }
        var current = -1, run = 0
        for row in rows {
            let c = column(of: x(row))
            if c == current {
                run += 1
                if run > 4 { return false }
            } else {
                current = c
                run = 1
            }
        }
        return true
    }

    /// Where each column's rows start among `rows` of an ascending x column read through `x`:
    /// column `c` holds rows `starts[c] ..< starts[c + 1]`; `starts.count == columns + 1`,
    /// `starts[0] == rows.lowerBound`, `starts[columns] == rows.upperBound`. Every row of `rows`
    /// must lie in `[from, to]`.
    ///
    /// - Complexity: O(rows + columns) by one pass when the rows are few; otherwise a search
    ///   per column that starts where the previous column ended, one previous column's length
    ///   further (exact for evenly spaced x), and gallops from there: O(columns · log n) at
    ///   worst, a handful of reads per column for evenly spaced data.
    public func columnStarts(rows: Range<Int>, x: (Int) -> Double) -> [Int] {
        var starts = [Int](repeating: rows.upperBound, count: columns + 1)
        starts[0] = rows.lowerBound
        if rows.count <= 16 * columns {
            // One pass: each row's column, and the start of every column up to it.
            var next = 1
            for row in rows {
                let c = column(of: x(row))
                while next <= c {
                    starts[next] = row
                    next += 1
                }
            }
            return starts
        }
        let end = rows.upperBound
        var lo = rows.lowerBound
        var expected = Swift.max(1, rows.count / columns)
        for c in 1..<columns {
            // The first row r in lo...end with column(x(r)) ≥ c (row `end` counts as one).
            func reached(_ r: Int) -> Bool { r >= end || column(of: x(r)) >= c }
            let guess = Swift.min(end, lo &+ expected)
            var a = lo, b = guess, step = 1
            if reached(guess) {
                // Gallop left while still reached: the answer is in a...b.
                while true {
                    let q = b &- step
                    if q < lo { break }
                    if reached(q) { b = q; step &<<= 1 } else { a = q &+ 1; break }
                }
            } else {
                // Gallop right until reached.
                a = guess &+ 1
                b = end
                while true {
                    let q = Swift.min(end, guess &+ step)
                    if reached(q) { b = q; break }
                    a = q &+ 1
                    step &<<= 1
                }
            }
            while a < b {
                let mid = (a &+ b) >> 1
                if reached(mid) { b = mid } else { a = mid &+ 1 }
            }
            starts[c] = a
            expected = Swift.max(1, a &- lo)
            lo = a
        }
        return starts
    }
}

/// The M4 kernel over contiguous columns: the rows kept of one pixel column of one series.
public enum M4 {
    /// What one column keeps of one series: indices of its first and last present value and of
    /// its (first) smallest and largest value.
    public struct Pick: Equatable, Sendable {
        public var first: Int
        public var low: Int
        public var high: Int
        public var last: Int
        public var lowValue: Double
        public var highValue: Double
    }

    /// Scans `ys[lo ..< hi]` (`NaN` = missing). Nil when every value is missing.
    ///
    /// Reads through a raw pointer, unchecked, for speed: `lo ..< hi` must lie inside the buffer
    /// `ys` points into. Its two callers, `downsample` and `ChartStore.m4Rows`, pass ranges of a
    /// column they hold in `withUnsafeBufferPointer`, bounded as their comments say.
    /// - Complexity: O(hi − lo), two comparisons per value.
    @inline(__always)
    static func scan(_ ys: UnsafePointer<Double>, _ lo: Int, _ hi: Int) -> Pick? {
        var i = lo
        while i < hi && ys[i].isNaN { i &+= 1 }
        guard i < hi else { return nil }
        var j = hi &- 1
        while ys[j].isNaN { j &-= 1 }
        var low = ys[i], high = low
        var lowAt = i, highAt = i
        var k = i &+ 1
        while k <= j {
            let v = ys[k]
            // NaN compares false both ways: a missing value is never picked.
            if v < low { low = v; lowAt = k }
            if v > high { high = v; highAt = k }
            k &+= 1
        }
        return Pick(first: i, low: lowAt, high: highAt, last: j, lowValue: low, highValue: high)
    }

    /// The picks of two consecutive pieces of one column (`a` before `b`), with `b`'s indices
    /// already comparable to `a`'s: ties go to the earlier piece.
    @inline(__always)
    static func merge(_ a: Pick?, _ b: Pick?) -> Pick? {
        guard let a else { return b }
        guard let b else { return a }
        var merged = a
        merged.last = b.last
        if b.lowValue < a.lowValue { merged.low = b.low; merged.lowValue = b.lowValue }
        if b.highValue > a.highValue { merged.high = b.high; merged.highValue = b.highValue }
        return merged
    }

    /// Appends a pick's indices to `out` in ascending order, each once.
    @inline(__always)
    static func emit(_ pick: Pick, into out: inout [Int]) {
        let a = Swift.min(pick.low, pick.high), b = Swift.max(pick.low, pick.high)
        out.append(pick.first)
        if a != pick.first { out.append(a) }
        if b != a { out.append(b) }
        if pick.last != b { out.append(pick.last) }
    }

    /// M4 over plain arrays: `xs` ascending, each of `ys` as long as `xs` (`NaN` = missing).
    /// Returns, per y column, the indices kept among the points with `grid.from ≤ x ≤ grid.to`,
    /// ascending: at most 4 per pixel column.
    /// - Complexity: O(points in the domain · series), plus O(log n) to find them.
    public static func downsample(xs: [Double], ys: [[Double]], grid: M4Grid) -> [[Int]] {
        let lo = lowerBound(xs, grid.from), hi = Swift.max(lo, upperBound(xs, grid.to))
        // `columnStarts` reads x only at rows of `lo ..< hi` (found by the binary searches, so
        // inside `xs`) and returns starts within it; each y column is as long as `xs`.
        let starts = xs.withUnsafeBufferPointer { x in
            grid.columnStarts(rows: lo..<hi) { x[$0] }
        }
        return ys.map { column in
            precondition(column.count == xs.count, "every y column must be as long as the x column")
            var out: [Int] = []
            out.reserveCapacity(Swift.min(hi - lo, 4 * grid.columns))
            column.withUnsafeBufferPointer { y in
                guard let base = y.baseAddress else { return }
                for c in 0..<grid.columns where starts[c] < starts[c + 1] {
                    if let pick = scan(base, starts[c], starts[c + 1]) { emit(pick, into: &out) }
                }
            }
            return out
        }
    }

    /// The first index with `xs[i] >= value`.
    static func lowerBound(_ xs: [Double], _ value: Double) -> Int {
        var lo = 0, hi = xs.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if xs[mid] < value { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The first index with `xs[i] > value`.
    static func upperBound(_ xs: [Double], _ value: Double) -> Int {
        var lo = 0, hi = xs.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if xs[mid] <= value { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
