import ChartEngine
import ChartCastProtocol

/// One point to store: its series, x and y.
public struct HistoryPoint: Equatable, Sendable {
    /// The series name.
    public var series: String
    /// Epoch milliseconds (time charts), the value (linear charts) or the category index.
    public var x: Double
    /// The value.
    public var y: Double

    /// Creates a point.
    public init(series: String, x: Double, y: Double) {
        self.series = series
        self.x = x
        self.y = y
    }
}

/// The points of one write, columnar: each series name once, then per point its series index,
/// x and y. The form `HistoryStore.append` queues; building one from `HistoryPoint`s costs a
/// dictionary lookup per point, appending by index costs nothing more than the three arrays.
public struct HistoryBatch: Sendable {
    /// The series names the points refer to by index.
    public private(set) var series: [String]
    /// Per point: index into `series`.
    private(set) var seriesIndex: [Int32] = []
    /// Per point: x.
    private(set) var xs: [Double] = []
    /// Per point: y.
    private(set) var ys: [Double] = []

    /// An empty batch whose points will name these series by index.
    public init(series: [String] = []) {
        self.series = series
    }

    /// A batch from its columns: per point, the index into `series`, x and y.
    /// - Precondition: the three columns have the same length and every index is in `series`.
    public init(series: [String], seriesIndex: [Int32], xs: [Double], ys: [Double]) {
        precondition(seriesIndex.count == xs.count && xs.count == ys.count,
                     "columns of \(seriesIndex.count), \(xs.count) and \(ys.count) points")
        precondition(seriesIndex.allSatisfy { $0 >= 0 && Int($0) < series.count },
                     "a series index outside the batch's \(series.count) series")
        self.series = series
        self.seriesIndex = seriesIndex
        self.xs = xs
        self.ys = ys
    }

    /// A batch of `points`, series in first-seen order.
    public init(_ points: [HistoryPoint]) {
        self.init()
        reserveCapacity(points.count)
        var index: [String: Int] = [:]
        for point in points {
            let s: Int
            if let known = index[point.series] {
                s = known
            } else {
                s = series.count
                series.append(point.series)
                index[point.series] = s
            }
            append(series: s, x: point.x, y: point.y)
        }
    }

    /// Makes room for `count` points.
    public mutating func reserveCapacity(_ count: Int) {
        seriesIndex.reserveCapacity(count)
        xs.reserveCapacity(count)
        ys.reserveCapacity(count)
    }

    /// Adds a point of `series[index]`; a later point of the same series and x replaces an
    /// earlier one when stored.
    /// - Precondition: `index` is a valid index of `series`.
    public mutating func append(series index: Int, x: Double, y: Double) {
        precondition(series.indices.contains(index), "series index \(index) is not in the batch's \(series.count) series")
        seriesIndex.append(Int32(index))
        xs.append(x)
        ys.append(y)
    }

    /// Adds a series name and returns its index.
    public mutating func addSeries(_ name: String) -> Int {
        series.append(name)
        return series.count - 1
    }

    /// Number of points.
    public var count: Int { xs.count }
}

/// One of the writes `HistoryStore.write` commits together.
public enum HistoryWrite: Sendable {
    /// `HistoryStore.save(spec:)`.
    case save(ChartSpec)
    /// `HistoryStore.delete(chart:)`.
    case delete(String)
    /// `HistoryStore.append(chart:batch:writtenAt:)`; nil `writtenAt` for now.
    case append(ChartSpec, HistoryBatch, writtenAt: Double?)
}

/// A chart saved with `HistoryStore.save(spec:)`, as `loadCharts` returns it for a restart.
public struct StoredChart: Equatable, Sendable {
    /// The spec as saved (parsed back from its JSON).
    public var spec: ChartSpec
    /// The names of the series that have stored points, in the order they were first stored
    /// (may name series the data added after the spec was saved).
    public var storedSeries: [String]

    /// Creates a stored chart.
    public init(spec: ChartSpec, storedSeries: [String]) {
        self.spec = spec
        self.storedSeries = storedSeries
    }
}

/// One series of a history read: points in ascending x, columnar.
public struct StoredSeries: Equatable, Sendable {
    /// The series name.
    public var name: String
    /// x per point, ascending, unique.
    public var xs: [Double]
    /// y per point.
    public var ys: [Double]
    /// Stored points of this series in the range read, before downsampling.
    public var pointsInRange: Int

    /// Creates a series.
    public init(name: String, xs: [Double], ys: [Double], pointsInRange: Int) {
        self.name = name
        self.xs = xs
        self.ys = ys
        self.pointsInRange = pointsInRange
    }

    /// Whether M4 dropped points (the range held more than the maximum asked for).
    public var isDownsampled: Bool { pointsInRange > xs.count }

    /// The protocol's form of the series: numeric x for time and linear charts; for category
    /// charts the index turned into the category name of `spec` (indices outside are left out).
    public func seriesData(for spec: ChartSpec) -> SeriesData {
        var points: [DataPoint] = []
        points.reserveCapacity(xs.count)
        for (x, y) in zip(xs, ys) {
            if spec.xKind == .category {
                guard let i = Int(exactly: x), spec.categories.indices.contains(i) else { continue }
                points.append(DataPoint(x: .category(spec.categories[i]), y: y))
            } else {
                points.append(DataPoint(x: .number(x), y: y))
            }
        }
        return SeriesData(name: name, points: points)
    }
}

/// The newest rows of a chart, as `HistoryStore.latest` returns them to refill a live window:
/// ascending x, one value per series (nil where that series has no point at that x).
public struct HistoryRows: Equatable, Sendable {
    /// One x and the value of each series there.
    public struct Row: Equatable, Sendable {
        /// Epoch ms, the value, or the category index.
        public var x: Double
        /// In `HistoryRows.series` order.
        public var values: [Double?]

        /// Creates a row.
        public init(x: Double, values: [Double?]) {
            self.x = x
            self.values = values
        }
    }

    /// The series names, in the order they were first stored. A live `ChartStore` whose series
    /// are in another order maps them by name (`ChartStore.addSeries` returns the index).
    public var series: [String]
    /// The rows, ascending x.
    public var rows: [Row]

    /// Creates rows.
    public init(series: [String], rows: [Row]) {
        self.series = series
        self.rows = rows
    }
}
