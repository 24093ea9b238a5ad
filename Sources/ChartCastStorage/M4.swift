import ChartEngine

/// M4 downsampling (Jugel, Jerzak, Hackenbroich, Markl: "M4: A Visualization-Oriented Time
/// Series Data Aggregation", VLDB 2014).
///
/// [lo, hi] is split into `columns` columns of equal width; of the points falling in each
/// column it keeps the first, the last, the one with the smallest y and the one with the largest
/// y (the first such point on ties), in x order, each point once. With one column per pixel
/// (four points per pixel column) a line drawn from the result is the line drawn from all the
/// points. The first and last point of the whole range and its min and max always survive.
///
/// Because the columns depend only on lo, hi and their number, M4 of a union of point sets
/// equals M4 of the union of their M4 results over the same columns: the server may downsample
/// history and the live window separately and M4 the concatenation again.
///
/// Points must be added in ascending x. A chunk whose points all fall in one column can be
/// added by its summary alone, which is what makes chunked history reads fast.
struct M4 {
    /// One column's four candidates; `count == 0` when no point fell in it.
    private struct Column {
        var count = 0
        var firstX = 0.0, firstY = 0.0
        var lastX = 0.0, lastY = 0.0
        var minX = 0.0, minY = 0.0
        var maxX = 0.0, maxY = 0.0
    }

    let lo: Double
    let hi: Double
    let columnCount: Int
    /// The engine's grid, so that history and memory fall into the same columns bit for bit;
    /// nil when `lo == hi` (every point in the one column).
    private let grid: M4Grid?
    private var columns: [Column]

    /// Columns over [lo, hi]; `columns` is at least 1.
    init(lo: Double, hi: Double, columns: Int) {
        self.lo = lo
        self.hi = hi
        self.columnCount = max(1, columns)
        self.grid = M4Grid(from: lo, to: hi, columns: max(1, columns))
        self.columns = Array(repeating: Column(), count: columnCount)
    }

    /// The columns of `grid`.
    init(grid: M4Grid) {
        self.init(lo: grid.from, hi: grid.to, columns: grid.columns)
    }

    /// The column of `x` (clamped: lo → 0, hi → the last column): `M4Grid.column(of:)`.
    @inline(__always)
    func column(of x: Double) -> Int {
        grid?.column(of: x) ?? 0
    }

    /// Adds one point (after every point of smaller x).
    @inline(__always)
    mutating func add(x: Double, y: Double) {
        let c = column(of: x)
        if columns[c].count == 0 {
            columns[c] = Column(count: 1, firstX: x, firstY: y, lastX: x, lastY: y, minX: x, minY: y, maxX: x, maxY: y)
            return
        }
        columns[c].count += 1
        columns[c].lastX = x
        columns[c].lastY = y
        if y < columns[c].minY { columns[c].minX = x; columns[c].minY = y }
        if y > columns[c].maxY { columns[c].maxX = x; columns[c].maxY = y }
    }

    /// Adds a whole chunk whose points all fall in one column (`column(of: x0) == column(of: x1)`),
    /// after every point of smaller x.
    mutating func add(_ s: ChunkSummary) {
        let c = column(of: s.x0)
        if columns[c].count == 0 {
            columns[c] = Column(count: s.count, firstX: s.x0, firstY: s.y0, lastX: s.x1, lastY: s.y1,
                                minX: s.xMin, minY: s.yMin, maxX: s.xMax, maxY: s.yMax)
            return
        }
        columns[c].count += s.count
        columns[c].lastX = s.x1
        columns[c].lastY = s.y1
        if s.yMin < columns[c].minY { columns[c].minX = s.xMin; columns[c].minY = s.yMin }
        if s.yMax > columns[c].maxY { columns[c].maxX = s.xMax; columns[c].maxY = s.yMax }
    }

    /// The kept points, ascending x: at most 4 per column.
    /// - Complexity: O(columns).
    func result() -> (xs: [Double], ys: [Double]) {
        var xs: [Double] = [], ys: [Double] = []
        xs.reserveCapacity(4 * columnCount)
        ys.reserveCapacity(4 * columnCount)
        for column in columns where column.count > 0 {
            var kept = [(column.firstX, column.firstY), (column.minX, column.minY),
                        (column.maxX, column.maxY), (column.lastX, column.lastY)]
            kept.sort { $0.0 < $1.0 }
            for (k, point) in kept.enumerated() where k == 0 || point.0 != kept[k - 1].0 {
                xs.append(point.0)
                ys.append(point.1)
            }
        }
        return (xs, ys)
    }
}
