/// The points of one series read from stored history: x ascending, `ys` parallel to `xs`.
public struct HistorySeries: Equatable, Sendable {
    /// The series name, as in the chart's spec.
    public var name: String
    public var xs: [Double]
    public var ys: [Double]

    public init(name: String, xs: [Double], ys: [Double]) {
        precondition(xs.count == ys.count, "one y per x")
        self.name = name
        self.xs = xs
        self.ys = ys
    }
}

/// Reads a chart's stored history for a view that reaches before the live window (a viewer
/// zoomed into the past). The server asks only for the part older than the chart's first
/// in-memory x and merges the answer with the in-memory points; with no reader set it shows
/// memory alone.
///
/// A reader must not block the caller (the server's service thread): it answers through
/// `completion`, once, from any thread.
public protocol HistoryReading: AnyObject, Sendable {
    /// The stored points of chart `chart` with `from ≤ x < to`, per series (series without
    /// points may be left out): every one when a series has at most `4 · grid.columns` there,
    /// else downsampled with M4 on `grid` — the grid of the viewer's whole view, which covers
    /// `[from, to)` (`M4.downsample(xs:ys:grid:)` does it over arrays). The server merges the
    /// answer with the in-memory points from `to` on and downsamples again on the same grid,
    /// which is exact.
    func read(chart: String, from: Double, to: Double, grid: M4Grid,
              completion: @escaping @Sendable (Result<[HistorySeries], Error>) -> Void)
}
