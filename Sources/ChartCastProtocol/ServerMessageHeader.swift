/// The envelope of a server message read without decoding it: its type, chart, `seq`, `ref`,
/// error code and where its selection state lies, as byte ranges into the message.
///
/// For clients that receive every broadcast (the load tester's thousands of viewers) and need
/// only to time and compare them; `ServerMessage.decode` reads a message whole.
/// - Complexity: O(bytes) with one small allocation (the member list).
public struct ServerMessageHeader {
    /// The wire names of the members that make up a chart's selection state, in a `selection`
    /// message and in a snapshot's `selection` object alike (one encoder writes both, so equal
    /// states are equal bytes).
    public static let selectionStateMembers = ["hovers", "scrub", "range", "pin"]

    /// How many members the server writes before a snapshot's `series` and `view`: `type`,
    /// `chart`, `seq`, `x`, `y`, `selection`.
    static let snapshotEnvelopeMembers = 6

    /// The message kinds of protocol v1.
    public enum Kind: Equatable, Sendable {
        case welcome, snapshot, append, selection, viewers, error, chart, chartRemoved, ack
    }

    /// The scanned top-level members.
    public let fields: JSONMemberScanner
    /// The message's kind; nil for a type this client does not know.
    public let kind: Kind?

    /// Scans `bytes`; nil when they are not a JSON object.
    ///
    /// An `append` (which can be large) is scanned only as far as its `type`, `chart` and `seq`,
    /// the members the server writes first; a `snapshot` only up to its `series`, which the
    /// server writes last; every other kind, and messages written in another order, whole.
    public init?(_ bytes: [UInt8]) {
        guard let prefix = JSONMemberScanner(bytes, maxMembers: 3) else { return nil }
        let kind = Self.kind(of: prefix)
        if !prefix.complete, kind == .append,
           prefix.stringContent("chart") != nil, prefix.integer("seq") != nil {
            self.fields = prefix
            self.kind = .append
            return
        }
        if !prefix.complete, kind == .snapshot,
           let envelope = JSONMemberScanner(bytes, maxMembers: Self.snapshotEnvelopeMembers),
           envelope.value("selection") != nil, envelope.stringContent("chart") != nil, envelope.integer("seq") != nil {
            self.fields = envelope
            self.kind = .snapshot
            return
        }
        guard let fields = prefix.complete ? prefix : JSONMemberScanner(bytes) else { return nil }
        self.fields = fields
        self.kind = Self.kind(of: fields)
    }

    private static func kind(of fields: JSONMemberScanner) -> Kind? {
        guard let type = fields.stringContent("type") else { return nil }
        if fields.equals(type, "selection") { return .selection }
        if fields.equals(type, "append") { return .append }
        if fields.equals(type, "snapshot") { return .snapshot }
        if fields.equals(type, "viewers") { return .viewers }
        if fields.equals(type, "welcome") { return .welcome }
        if fields.equals(type, "error") { return .error }
        if fields.equals(type, "chart") { return .chart }
        if fields.equals(type, "chart_removed") { return .chartRemoved }
        if fields.equals(type, "ack") { return .ack }
        return nil
    }

    /// The message bytes.
    public var bytes: [UInt8] { fields.bytes }
    /// The chart id's bytes (unescaped ids only, as the server's are).
    public var chart: Range<Int>? { fields.stringContent("chart") }
    /// The chart's sequence number.
    public var seq: Int? { fields.integer("seq") }
    /// The echoed `ref`'s bytes.
    public var ref: Range<Int>? { fields.stringContent("ref") }
    /// An `error`'s code bytes.
    public var errorCode: Range<Int>? { fields.stringContent("code") }

    /// The object holding the selection state members: the message itself for `selection`, the
    /// `selection` member of a `snapshot`; nil for other kinds.
    public var selectionState: JSONMemberScanner? {
        switch kind {
        case .selection: return fields
        case .snapshot:
            guard let body = fields.value("selection") else { return nil }
            return JSONMemberScanner(fields.bytes, range: body)
        default: return nil
        }
    }
}
