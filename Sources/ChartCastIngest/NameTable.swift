/// Interns byte strings: each distinct byte string gets a dense id, 0, 1, 2… in first-seen order.
///
/// The parsers meet the same few names (series, measurements, tag sets) on every line; this
/// table finds a name's id from the body's bytes without building a `String` per occurrence.
/// Keys live in one byte arena; the open-addressing index is hashed with the standard library's
/// per-process seeded `Hasher`, so a body crafted to collide cannot make lookups quadratic.
struct NameTable {
    /// Every key's bytes, back to back.
    private var arena: [UInt8] = []
    /// Start of key `id` in `arena`; `starts[id + 1]` (or `arena.count`) is its end.
    private var starts: [Int] = []
    /// Hash of key `id`, kept for rehashing.
    private var hashes: [Int] = []
    /// Ids by hash slot, `-1` when empty; the capacity is a power of two, at most half full.
    private var slots: [Int32] = Array(repeating: -1, count: 16)

    /// Number of distinct keys.
    var count: Int { starts.count }

    /// The id of `key`, adding it when new.
    /// - Complexity: O(key length) expected.
    mutating func intern(_ key: UnsafeBufferPointer<UInt8>) -> (id: Int, isNew: Bool) {
        let hash = NameTable.hash(key)
        let mask = slots.count - 1
        var slot = hash & mask
        while true {
            let id = Int(slots[slot])
            if id < 0 { break }
            if hashes[id] == hash && equals(id, key) { return (id, false) }
            slot = (slot + 1) & mask
        }
        let id = starts.count
        starts.append(arena.count)
        hashes.append(hash)
        arena.append(contentsOf: key)
        slots[slot] = Int32(truncatingIfNeeded: id)
        if starts.count * 2 > slots.count { grow() }
        return (id, true)
    }

    /// The id of `key`, adding it when new.
    mutating func intern(_ key: [UInt8]) -> (id: Int, isNew: Bool) {
        key.withUnsafeBufferPointer { intern($0) }
    }

    /// The bytes of key `id`.
    func bytes(_ id: Int) -> ArraySlice<UInt8> {
        let end = id + 1 < starts.count ? starts[id + 1] : arena.count
        return arena[starts[id]..<end]
    }

    /// Key `id` as a string (the parsers intern only well-formed UTF-8).
    func string(_ id: Int) -> String { String(decoding: bytes(id), as: UTF8.self) }

    private func equals(_ id: Int, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = starts[id]
        let end = id + 1 < starts.count ? starts[id + 1] : arena.count
        guard end - start == key.count else { return false }
        return arena.withUnsafeBufferPointer { stored in
            var k = 0
            while k < key.count {
                if stored[start + k] != key[k] { return false }
                k += 1
            }
            return true
        }
    }

    private mutating func grow() {
        var fresh = [Int32](repeating: -1, count: slots.count * 2)
        let mask = fresh.count - 1
        for id in 0..<starts.count {
            var slot = hashes[id] & mask
            while fresh[slot] >= 0 { slot = (slot + 1) & mask }
            fresh[slot] = Int32(truncatingIfNeeded: id)
        }
        slots = fresh
    }

    private static func hash(_ key: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(key))
        return hasher.finalize()
    }
}
