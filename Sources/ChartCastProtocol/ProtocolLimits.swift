import ChartEngine

/// Every limit protocol v1 enforces, declared once and announced to clients in `welcome`.
///
/// The server checks incoming messages against these values and the page reads them from
/// `welcome.limits`, so both sides refuse the same names, refs and message sizes. The hover cap
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

    /// The limits of protocol v1 as this server enforces them.
    public static let v1 = ProtocolLimits(
        maxMessageBytes: 65_536, maxNameLength: 40, maxNameBytes: 160, maxRefLength: 64,
        messagesPerSecond: 240, messageBurst: 480,
        maxHovers: Selection.maxHovers, maxRangeRows: Selection.maxRangeRows, maxCoordinate: 1_000_000)

    /// Creates a set of limits.
    public init(maxMessageBytes: Int, maxNameLength: Int, maxNameBytes: Int, maxRefLength: Int,
                messagesPerSecond: Double, messageBurst: Double, maxHovers: Int, maxRangeRows: Int,
                maxCoordinate: Double) {
        self.maxMessageBytes = maxMessageBytes
        self.maxNameLength = maxNameLength
        self.maxNameBytes = maxNameBytes
        self.maxRefLength = maxRefLength
        self.messagesPerSecond = messagesPerSecond
        self.messageBurst = messageBurst
        self.maxHovers = maxHovers
        self.maxRangeRows = maxRangeRows
        self.maxCoordinate = maxCoordinate
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
        w.endObject()
    }
}
