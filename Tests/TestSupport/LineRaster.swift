/// What a line renderer draws of a polyline in a `width × height` plot, reduced to one span of
/// pixel rows per pixel column: the rows between the lowest and highest y the line reaches
/// inside that column (segments crossing a column boundary are clipped there). Two polylines
/// with equal rasters light the same pixels per column, which is what M4 downsampling promises.
///
/// x maps to pixels as the page maps it, `fraction · width` with `fraction = (x − d0) / (d1 − d0)`;
/// y likewise onto `height`. Points are given in x order.
public struct LineRaster: Equatable, CustomStringConvertible {
    /// Per column: the lowest and highest row covered; `low > high` when nothing is drawn there.
    public private(set) var low: [Int]
    public private(set) var high: [Int]

    public init(xs: [Double], ys: [Double], xDomain: (Double, Double), yDomain: (Double, Double),
                width: Int, height: Int) {
        precondition(xs.count == ys.count && width > 0 && height > 0)
        low = Array(repeating: Int.max, count: width)
        high = Array(repeating: Int.min, count: width)
        let px = xs.map { ($0 - xDomain.0) / (xDomain.1 - xDomain.0) * Double(width) }
        let py = ys.map { ($0 - yDomain.0) / (yDomain.1 - yDomain.0) * Double(height) }
        func column(_ x: Double) -> Int { x >= 0 ? Swift.min(width - 1, Int(x)) : 0 }
        func row(_ y: Double) -> Int { y >= 0 ? Swift.min(height - 1, Int(y)) : 0 }
        func cover(_ c: Int, _ a: Double, _ b: Double) {
            low[c] = Swift.min(low[c], row(Swift.min(a, b)))
            high[c] = Swift.max(high[c], row(Swift.max(a, b)))
        }
        for i in px.indices {
            cover(column(px[i]), py[i], py[i])
            guard i + 1 < px.count else { continue }
            let (x0, y0, x1, y1) = (px[i], py[i], px[i + 1], py[i + 1])
            let c0 = column(x0), c1 = column(x1)
            if c0 == c1 {
                cover(c0, y0, y1)
                continue
            }
            // The segment clipped to each column it crosses; the ends keep their exact y.
            func y(at x: Double) -> Double { y0 + (y1 - y0) * (x - x0) / (x1 - x0) }
            for c in c0...c1 {
                let left = c == c0 ? y0 : y(at: Double(c))
                let right = c == c1 ? y1 : y(at: Double(c + 1))
                cover(c, left, right)
            }
        }
    }

    /// Columns where something is drawn.
    public var drawnColumns: Int { zip(low, high).filter { $0 <= $1 }.count }

    /// The first columns where two rasters differ, for failure messages.
    public func differences(from other: LineRaster, limit: Int = 5) -> [String] {
        var out: [String] = []
        for c in low.indices where low[c] != other.low[c] || high[c] != other.high[c] {
            out.append("column \(c): \(low[c])…\(high[c]) vs \(other.low[c])…\(other.high[c])")
            if out.count == limit { break }
        }
        return out
    }

    public var description: String { "LineRaster(\(low.count) columns, \(drawnColumns) drawn)" }
}
