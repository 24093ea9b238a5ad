/// Where a point came from in the body, so that validation can name the failing point.
public struct PointOrigin: Equatable, Sendable {
    /// 1-based line of the point's value (JSON: the `y` or column element; CSV: the line where
    /// the row starts; line protocol: the line).
    public var line: Int
    /// 1-based line of the point's x; differs from `line` only for JSON columns, where x is in
    /// the `x` array.
    public var xLine: Int
    /// 0-based position in `points`, in the columns or among the CSV data rows; `nil` for line
    /// protocol.
    public var index: Int?

    /// Creates an origin.
    public init(line: Int, xLine: Int, index: Int?) {
        self.line = line
        self.xLine = xLine
        self.index = index
    }
}

/// The x of a parsed point, before a chart says what it means.
public enum RawX: Equatable, Sendable {
    /// A JSON number, or a line-protocol timestamp already in epoch milliseconds.
    case number(Double)
    /// A JSON string: an RFC 3339 time or a category name.
    case string(String)
    /// A CSV cell, untyped: a number, an RFC 3339 time or a category name.
    case cell(String)
}

/// One parsed point, as `PointBatch` lists it.
public struct BatchPoint: Equatable, Sendable {
    /// Index into `PointBatch.series`.
    public var series: Int
    public var x: RawX
    /// Always finite.
    public var y: Double
    public var origin: PointOrigin

    /// Creates a point.
    public init(series: Int, x: RawX, y: Double, origin: PointOrigin) {
        self.series = series
        self.x = x
        self.y = y
        self.origin = origin
    }
}

/// The points of one write body for one chart, parsed but not yet checked against the chart.
///
/// Produced by `JSONPointsParser`, `CSVPointsParser` and (one per measurement)
/// `LineProtocolParser`; checked and grouped by `validate(against:existingSeries:)`. Missing
/// values (`"y":null`, an empty CSV cell) are not stored, and a series enters `series` with its
/// first stored point. Storage is columnar and compact (one fixed-size record per point, x text
/// in one byte arena), so a million-point batch costs tens of megabytes, not a million objects.
public struct PointBatch: Sendable {
    /// The body format the points came from; it decides how messages name a point.
    public enum Source: Equatable, Sendable {
        /// `{"points":[…]}`.
        case jsonRows
        /// `{"x":[…],"series":{…}}`.
        case jsonColumns
        /// `text/csv`.
        case csv
        /// InfluxDB line protocol.
        case lineProtocol
    }

    /// One point; `x` is NaN when the x is text only, `textCount` is -1 when it has no text.
    struct Stored {
        var x: Double
        var y: Double
        var series: Int32
        var line: Int32
        var xLine: Int32
        var index: Int32
        var textStart: Int32
        var textCount: Int32
    }

    /// The body format.
    public internal(set) var source: Source
    /// Series names in first-seen order.
    public private(set) var series: [String] = []
    var stored: [Stored] = []
    /// The x texts, back to back (well-formed UTF-8).
    var text: [UInt8] = []

    init(source: Source) { self.source = source }

    /// Number of points.
    public var count: Int { stored.count }

    /// Point `i` (0 ≤ i < count).
    public subscript(i: Int) -> BatchPoint {
        let s = stored[i]
        let x: RawX
        if s.textCount < 0 {
            x = .number(s.x)
        } else if source == .csv {
            x = .cell(textString(s))
        } else {
            x = .string(textString(s))
        }
        return BatchPoint(series: Int(s.series), x: x, y: s.y, origin: origin(s))
    }

    func origin(_ s: Stored) -> PointOrigin {
        PointOrigin(line: Int(s.line), xLine: Int(s.xLine), index: s.index < 0 ? nil : Int(s.index))
    }

    func textBytes(_ s: Stored) -> ArraySlice<UInt8> {
        let start = Int(s.textStart)
        return text[start..<(start + Int(s.textCount))]
    }

    func textString(_ s: Stored) -> String { String(decoding: textBytes(s), as: UTF8.self) }

    // MARK: Building (parsers only)

    /// Adds a series name and returns its index.
    mutating func addSeries(_ name: String) -> Int32 {
        series.append(name)
        return Int32(series.count - 1)
    }

    /// Copies an x text into the arena; returns its start and length.
    mutating func appendText(_ bytes: UnsafeBufferPointer<UInt8>) -> (start: Int32, count: Int32) {
        let start = text.count
        text.append(contentsOf: bytes)
        return (Int32(truncatingIfNeeded: start), Int32(truncatingIfNeeded: bytes.count))
    }

    /// Drops arena bytes from `start` on (an x text whose point turned out missing).
    mutating func truncateText(to start: Int32) {
        text.removeSubrange(Int(start)...)
    }

    @inline(__always)
    mutating func append(_ point: Stored) { stored.append(point) }

    mutating func reserve(_ n: Int) { stored.reserveCapacity(n) }
}

/// The most bytes a parser accepts at all: line numbers, offsets and lengths are kept as
/// 32-bit integers. Far above every configured limit; larger bodies are `too_large`.
let maxParsableBytes = Int(Int32.max) - 1

/// The points parsed for one chart of a multi-chart write (line protocol).
public struct ChartPoints: Sendable {
    /// The chart id (the measurement).
    public var chart: String
    /// Its points.
    public var points: PointBatch
}
