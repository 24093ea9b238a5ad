/// The top-level members of one JSON object, found without building a document tree.
///
/// A headless viewer receives every selection the server fans out; at thousands of viewers the
/// load tester must spend less time reading a message than the server spends sending it. So
/// `ServerMessageHeader` locates the few members it needs (`type`, `chart`, `seq`, `ref` and the
/// selection state) as byte ranges with this scanner, which skips nested values by bracket
/// depth, string escapes respected. It does not validate what it skips: full decoding
/// (`ServerMessage.decode`) is for rare messages (`welcome`, a driver's `snapshot`).
public struct JSONMemberScanner {
    /// One member: the key's bytes (without quotes) and the raw value's bytes.
    public struct Member {
        public var key: Range<Int>
        public var value: Range<Int>
    }

    /// The scanned bytes.
    public let bytes: [UInt8]
    /// Members in document order.
    public private(set) var members: [Member] = []
    /// True when the whole object was scanned (not only a prefix of its members).
    public private(set) var complete = true
    /// Where scanning stopped: the index just past the last scanned member's value.
    public private(set) var scannedTo = 0

    /// Scans the object at `range` of `bytes` (the whole array by default); nil when it is not
    /// a well-formed object at the top level.
    /// - Complexity: O(n) in the object's size, one small allocation for the member list.
    public init?(_ bytes: [UInt8], range: Range<Int>? = nil) {
        self.init(bytes, range: range, maxMembers: .max)
    }

    /// Scans at most the first `maxMembers` members (a prefix of a large message: the members
    /// after it are not looked at); `complete` tells whether the whole object was scanned.
    /// - Complexity: O(bytes of the scanned members).
    public init?(_ bytes: [UInt8], range: Range<Int>? = nil, maxMembers: Int) {
        self.bytes = bytes
        let r = range ?? 0..<bytes.count
        var i = Self.skipSpace(bytes, r.lowerBound, r.upperBound)
        guard i < r.upperBound, bytes[i] == UInt8(ascii: "{") else { return nil }
        i = Self.skipSpace(bytes, i + 1, r.upperBound)
        if i < r.upperBound, bytes[i] == UInt8(ascii: "}") { return }
        while i < r.upperBound {
            guard bytes[i] == UInt8(ascii: "\""), let keyEnd = Self.endOfString(bytes, i, r.upperBound) else { return nil }
            let key = (i + 1)..<(keyEnd - 1)
            i = Self.skipSpace(bytes, keyEnd, r.upperBound)
            guard i < r.upperBound, bytes[i] == UInt8(ascii: ":") else { return nil }
            i = Self.skipSpace(bytes, i + 1, r.upperBound)
            guard let valueEnd = Self.endOfValue(bytes, i, r.upperBound) else { return nil }
            members.append(Member(key: key, value: i..<valueEnd))
            scannedTo = valueEnd
            if members.count >= maxMembers {
                complete = false
                return
            }
            i = Self.skipSpace(bytes, valueEnd, r.upperBound)
            guard i < r.upperBound else { return nil }
            if bytes[i] == UInt8(ascii: "}") { return }
            guard bytes[i] == UInt8(ascii: ",") else { return nil }
            i = Self.skipSpace(bytes, i + 1, r.upperBound)
        }
        return nil
    }

    /// The raw value of the first member named `key`.
    /// - Complexity: O(members · key length).
    public func value(_ key: StaticString) -> Range<Int>? {
        for member in members where equals(member.key, key) { return member.value }
        return nil
    }

    /// The value of `key` as an unescaped-ASCII string's content bytes (no quotes), or nil when
    /// it is not a string.
    public func stringContent(_ key: StaticString) -> Range<Int>? {
        guard let r = value(key), r.count >= 2, bytes[r.lowerBound] == UInt8(ascii: "\"") else { return nil }
        return (r.lowerBound + 1)..<(r.upperBound - 1)
    }

    /// The value of `key` when it is a non-negative integer literal.
    public func integer(_ key: StaticString) -> Int? {
        guard let r = value(key), !r.isEmpty else { return nil }
        var result = 0
        for i in r {
            let b = bytes[i]
            guard b >= 0x30, b <= 0x39 else { return nil }
            result = result &* 10 &+ Int(b - 0x30)
        }
        return result
    }

    /// Whether the bytes at `range` spell `literal`.
    public func equals(_ range: Range<Int>, _ literal: StaticString) -> Bool {
        guard range.count == literal.utf8CodeUnitCount else { return false }
        let p = literal.utf8Start
        for (k, i) in range.enumerated() where bytes[i] != p[k] { return false }
        return true
    }

    static func skipSpace(_ b: [UInt8], _ start: Int, _ end: Int) -> Int {
        var i = start
        while i < end, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
        return i
    }

    /// The index just past the string starting with the quote at `start`.
    static func endOfString(_ b: [UInt8], _ start: Int, _ end: Int) -> Int? {
        var i = start + 1
        while i < end {
            switch b[i] {
            case UInt8(ascii: "\\"): i += 2
            case UInt8(ascii: "\""): return i + 1
            default: i += 1
            }
        }
        return nil
    }

    /// The index just past the value starting at `start` (object, array, string or scalar).
    static func endOfValue(_ b: [UInt8], _ start: Int, _ end: Int) -> Int? {
        guard start < end else { return nil }
        switch b[start] {
        case UInt8(ascii: "\""):
            return endOfString(b, start, end)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var i = start
            while i < end {
                switch b[i] {
                case UInt8(ascii: "\""):
                    guard let next = endOfString(b, i, end) else { return nil }
                    i = next
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return i + 1 }
                default: break
                }
                i += 1
            }
            return nil
        default:
            var i = start
            while i < end {
                let c = b[i]
                if c == UInt8(ascii: ",") || c == UInt8(ascii: "}") || c == UInt8(ascii: "]")
                    || c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { break }
                i += 1
            }
            return i > start ? i : nil
        }
    }
}
