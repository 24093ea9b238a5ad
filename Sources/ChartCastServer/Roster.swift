/// An object that can be on a `Roster`: it remembers its own slot, so removal needs no search.
protocol RosterMember: AnyObject {
    /// The member's slot in its roster, -1 when on none. Maintained by the roster.
    var rosterSlot: Int { get set }
}

/// Members in join order, with O(1) removal: the mirror of an append, so a crowd leaving costs
/// no more than a crowd arriving.
///
/// A removal empties the member's slot (a tombstone) instead of shifting everyone behind it.
/// Once tombstones outnumber the members (and there are at least `compactionThreshold` of
/// them), one compaction closes the gaps; it moves each member once, which the removals since
/// the previous compaction paid for, so removal is O(1) amortised and a walk costs O(members).
/// - Note: service thread only.
struct Roster<Member: RosterMember> {
    /// Tombstones tolerated before any compaction, so small rosters never bother.
    static var compactionThreshold: Int { 32 }

    private var slots: [Member?] = []
    /// Members on the roster.
    private(set) var count = 0
    /// How many compactions ran (tests check they stay amortised).
    private(set) var compactions = 0

    /// Slots in use, members and tombstones; what a walk visits.
    var slotCount: Int { slots.count }

    /// Adds `member` at the end.
    /// - Complexity: amortised O(1).
    mutating func append(_ member: Member) {
        member.rosterSlot = slots.count
        slots.append(member)
        count += 1
    }

    /// Takes `member` off the roster; a member that is not on it is ignored.
    /// - Complexity: amortised O(1); touches only `member`'s slot unless it triggers a compaction.
    mutating func remove(_ member: Member) {
        let slot = member.rosterSlot
        guard slot >= 0, slot < slots.count, slots[slot] === member else { return }
        slots[slot] = nil
        member.rosterSlot = -1
        count -= 1
        let tombstones = slots.count - count
        if tombstones >= Roster.compactionThreshold && tombstones > count {
            compact()
        }
    }

    /// The first `limit` members in join order.
    /// - Complexity: O(limit + tombstones before the last of them).
    func prefix(_ limit: Int) -> [Member] {
        var result: [Member] = []
        result.reserveCapacity(Swift.min(limit, count))
        for member in self {
            guard result.count < limit else { break }
            result.append(member)
        }
        return result
    }

    /// Closes every gap, keeping join order, and renumbers the members.
    /// - Complexity: O(slots).
    private mutating func compact() {
        var write = 0
        for read in slots.indices {
            guard let member = slots[read] else { continue }
            member.rosterSlot = write
            slots[write] = member
            write += 1
        }
        slots.removeSubrange(write...)
        compactions += 1
    }
}

extension Roster: Sequence {
    /// Walks the members in join order, skipping tombstones.
    func makeIterator() -> Iterator {
        Iterator(slots: slots.makeIterator())
    }

    struct Iterator: IteratorProtocol {
        fileprivate var slots: IndexingIterator<[Member?]>

        mutating func next() -> Member? {
            while let slot = slots.next() {
                if let member = slot { return member }
            }
            return nil
        }
    }
}
