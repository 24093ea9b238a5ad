import ChartCastProtocol

/// A 64-bit FNV-1a digest of a selection's state: the raw bytes of its state members
/// (`ServerMessageHeader.selectionStateMembers`: `hovers`, `scrub`, `range`, `pin`).
///
/// The server writes selection members with one encoder whether they travel in a `selection`
/// message or inside a `snapshot`'s `selection` object, so equal states have equal bytes and
/// equal digests; `ref` and `seq` are deliberately left out.
public enum SelectionDigest {
    static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    static let prime: UInt64 = 0x0000_0100_0000_01b3

    /// The digest of the state members found in `fields`, each tagged with its position in
    /// `selectionStateMembers` so that moving a value to another member changes the digest.
    /// - Complexity: O(bytes of the state members).
    public static func digest(_ fields: JSONMemberScanner) -> UInt64 {
        var h = offsetBasis
        for member in fields.members {
            guard let tag = stateTag(fields, member.key) else { continue }
            h = (h ^ UInt64(tag)) &* prime
            fields.bytes.withUnsafeBufferPointer { buffer in
                for i in member.value { h = (h ^ UInt64(buffer[i])) &* prime }
            }
        }
        return h
    }

    private static let stateNames: [[UInt8]] = ServerMessageHeader.selectionStateMembers.map { Array($0.utf8) }

    private static func stateTag(_ fields: JSONMemberScanner, _ key: Range<Int>) -> Int? {
        for (tag, name) in stateNames.enumerated() where name.count == key.count {
            if fields.bytes[key].elementsEqual(name) { return tag + 1 }
        }
        return nil
    }

    /// The digest of arbitrary bytes (used for refs).
    public static func digest(_ bytes: [UInt8], _ range: Range<Int>) -> UInt64 {
        var h = offsetBasis
        for i in range { h = (h ^ UInt64(bytes[i])) &* prime }
        return h
    }
}

/// What one connection last saw of one chart.
public struct ChartView: Sendable, Equatable {
    /// The highest `seq` of any message for the chart (snapshot, append or selection).
    public var seq: Int = -1
    /// The `seq` of the message that set the current selection state; -1 before any.
    public var stateSeq: Int = -1
    /// Whether the current state came from a snapshot rather than a `selection` message.
    public var stateFromSnapshot = false
    /// `SelectionDigest` of the current state.
    public var stateDigest: UInt64 = 0
    /// Digest of the last `ref` timed, so a re-sent ref (a range recomputed on new data) is not
    /// timed twice from its original pointer.
    public var lastRefDigest: UInt64 = 0
    /// Ingest charts: the send time of the newest batch timed, so each batch is timed once.
    public var lastIngestSentAt: UInt64 = 0

    public init() {}
}
