import ChartEngine

/// Every limit protocol v1 enforces, declared once and announced to clients in `welcome`.
///
/// The server checks incoming messages against these values and the page reads them from
/// `welcome.limits`, so both sides refuse the same names, refs and message sizes. The last two
/// bound what the server sends: no snapshot or append carries more than `maxMessagePoints`
/// points (docs/protocol.md, "Message sizes", gives the largest message that results). The hover cap
/// and range row cap are the engine's (`Selection.maxHovers`, `Selection.maxRangeRows`); they are
/// listed here so that clients learn them from the same place.
public struct ProtocolLimits: Equatable, Sendable {
    /// Largest message accepted, in bytes (after reassembly of fragments).
    public var maxMessageBytes: Int
    /// Longest viewer name, in Unicode scalars (after normalisation).
    public var maxNameLength: Int
    /// Longest viewer name, in UTF-8 bytes (after normalisation).
    public var maxNameBytes: Int
    /// Longest `ref`, in UTF-8 bytes.
    public var maxRefLength: Int
    /// Pointer and key messages accepted per second per viewer, sustained.
    public var messagesPerSecond: Double
    /// Pointer and key messages accepted in a burst.
    public var messageBurst: Double
    /// Hovers kept per chart (newest first).
    public var maxHovers: Int
    /// Range rows listed in a `selection` (`truncated` beyond).
    public var maxRangeRows: Int
    /// Largest magnitude of a pointer coordinate or plot frame value, in CSS pixels.
    public var maxCoordinate: Double
    /// Most pixel columns a snapshot is downsampled for: a plot wider than this (in CSS pixels)
    /// is sent the snapshot of a plot this wide. No screen is that wide (8K UHD is 7,680 px).
    public var maxSnapshotColumns: Int
    /// Most data points in one `snapshot` or `append`, over all its series: a chart with many
    /// series is downsampled for fewer columns (at most `maxMessagePoints / (4 · series)`), and a
    /// write bringing more points reaches viewers as a snapshot. Up to 1,024 columns for 32
    /// series, 8,192 for 4 or fewer.
    public var maxMessagePoints: Int

    /// The limits of protocol v1 as this server enforces them.
    public static let v1 = ProtocolLimits(
        maxMessageBytes: 65_536, maxNameLength: 40, maxNameBytes: 160, maxRefLength: 64,
        messagesPerSecond: 240, messageBurst: 480,
        maxHovers: Selection.maxHovers, maxRangeRows: Selection.maxRangeRows, maxCoordinate: 1_000_000,
        maxSnapshotColumns: 8_192, maxMessagePoints: 131_072)

    /// Creates a set of limits.
    public init(maxMessageBytes: Int, maxNameLength: Int, maxNameBytes: Int, maxRefLength: Int,
                messagesPerSecond: Double, messageBurst: Double, maxHovers: Int, maxRangeRows: Int,
                maxCoordinate: Double, maxSnapshotColumns: Int = 8_192, maxMessagePoints: Int = 131_072) {
        self.maxMessageBytes = maxMessageBytes
        self.maxNameLength = maxNameLength
        self.maxNameBytes = maxNameBytes
        self.maxRefLength = maxRefLength
        self.messagesPerSecond = messagesPerSecond
        self.messageBurst = messageBurst
        self.maxHovers = maxHovers
        self.maxRangeRows = maxRangeRows
        self.maxCoordinate = maxCoordinate
        self.maxSnapshotColumns = maxSnapshotColumns
        self.maxMessagePoints = maxMessagePoints
    }

    /// The largest message the server sends but `welcome` (which lists every chart's spec), as
    /// the limits above and the chart schema's add up at worst: a snapshot of `maxMessagePoints`
    /// points with the longest numbers, 32 series named with characters JSON escapes six-fold,
    /// and the largest selection (`maxHovers`, `maxRangeRows`); or a category chart's. Not a
    /// check at run time but what the other bounds guarantee (`MessageBoundsTests` builds those
    /// messages). Typical snapshots are a few hundred KB.
    public static let largestMessageBytes = 10 << 20

    /// The pixel columns a snapshot of a chart with `series` series, for a plot `columns` wide,
    /// is downsampled to: at most `maxSnapshotColumns`, and few enough that 4 points per column
    /// of every series stay within `maxMessagePoints`. At least 1.
    public func snapshotColumns(forPlot columns: Int, series: Int) -> Int {
        Swift.max(1, Swift.min(columns, maxSnapshotColumns, maxMessagePoints / (4 * Swift.max(1, series))))
    }
}

extension ProtocolLimits {
    /// Writes the `limits` object of `welcome`.
    func encode(into w: inout JSONWriter) {
        w.beginObject()
        w.key("maxMessageBytes"); w.number(maxMessageBytes)
        w.key("maxNameLength"); w.number(maxNameLength)
        w.key("maxNameBytes"); w.number(maxNameBytes)
        w.key("maxRefLength"); w.number(maxRefLength)
        w.key("messagesPerSecond"); w.number(messagesPerSecond)
        w.key("messageBurst"); w.number(messageBurst)
        w.key("maxHovers"); w.number(maxHovers)
        w.key("maxRangeRows"); w.number(maxRangeRows)
        w.key("maxCoordinate"); w.number(maxCoordinate)
        w.key("maxSnapshotColumns"); w.number(maxSnapshotColumns)
        w.key("maxMessagePoints"); w.number(maxMessagePoints)
        w.endObject()
    }
}
