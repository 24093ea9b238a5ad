/// A 64-bit FNV-1a digest of a selection's state: the raw bytes of its `hovers`, `scrub`,
/// `range` and `pin` members (and `body`, the payload of a mirror-mode message).
///
/// The server writes selection members with one encoder whether they travel in a `selection`
/// message or inside a `snapshot`'s `selection` object, so equal states have equal bytes and
/// equal digests; `ref` and `seq` are deliberately left out.
public enum SelectionDigest {
    static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    static let prime: UInt64 = 0x0000_0100_0000_01b3

    /// The digest of the state members found in `fields`.
    /// - Complexity: O(bytes of the state members).
    public static func digest(_ fields: MessageFields) -> UInt64 {
        var h = offsetBasis
        for member in fields.members {
            let tag: UInt8
            if fields.equals(member.key, "hovers") { tag = 1 }
            else if fields.equals(member.key, "scrub") { tag = 2 }
            else if fields.equals(member.key, "range") { tag = 3 }
            else if fields.equals(member.key, "pin") { tag = 4 }
            else if fields.equals(member.key, "body") { tag = 5 }
            else { continue }
            h = (h ^ UInt64(tag)) &* prime
            fields.bytes.withUnsafeBufferPointer { buffer in
                for i in member.value { h = (h ^ UInt64(buffer[i])) &* prime }
            }
        }
        return h
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

    public init() {}
}
