/// Byte-level readers of JSON for the fast paths (`PointerFastPath`, `ViewportFastPath`): each
/// accepts only the plain form of what it reads — strings of printable ASCII without escapes,
/// numbers in JSON's grammar converted as `JSONReader` converts them, the three literals — and
/// answers nil for anything else, so that the generic decoder has the last word on it.
enum PlainJSON {
    static func skipSpace(_ b: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int {
        var i = start
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
        return i
    }

    /// The index of the closing quote of a string whose bytes from `start` are printable ASCII
    /// without a backslash; nil for any other string (escapes, controls, DEL, non-ASCII).
    static func plainString(_ b: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
        var i = start
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\"") { return i }
            guard c >= 0x20, c < 0x7F, c != UInt8(ascii: "\\") else { return nil }
            i += 1
        }
        return nil
    }

    /// The end of a number in JSON's grammar starting at `start` (at most 400 bytes, as
    /// `JSONReader` allows); nil when it is not one.
    static func numberLiteral(_ b: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
        var i = start
        func digits() -> Bool {
            let from = i
            while i < b.count, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") { i += 1 }
            return i > from
        }
        if b[i] == UInt8(ascii: "-") { i += 1 }
        guard i < b.count else { return nil }
        if b[i] == UInt8(ascii: "0") { i += 1 } else if !digits() { return nil }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() else { return nil }
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() else { return nil }
        }
        return i - start <= 400 ? i : nil
    }

    /// The value of a number literal, converted exactly as `JSONReader` converts it.
    static func number(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Double? {
        Double(text(b, range))
    }

    /// The end of `true`, `false` or `null` at `start`; nil for anything else.
    static func literal(_ b: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
        let word: StaticString
        switch b[start] {
        case UInt8(ascii: "t"): word = "true"
        case UInt8(ascii: "f"): word = "false"
        case UInt8(ascii: "n"): word = "null"
        default: return nil
        }
        let count = word.utf8CodeUnitCount
        guard start + count <= b.count, equals(b, start..<(start + count), word) else { return nil }
        return start + count
    }

    static func equals(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard range.count == count else { return false }
        return word.withUTF8Buffer { w in (0..<count).allSatisfy { b[range.lowerBound + $0] == w[$0] } }
    }

    /// The bytes as a string: they are printable ASCII, so valid UTF-8 as they are.
    static func text(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: b[range]), as: UTF8.self)
    }
}

extension PlainJSON {
    /// Walks the plain object whose `{` is at `start`: for each member, `member` gets the key's
    /// range (inside its quotes) and the index of the value's first byte, and returns the index
    /// just past the value (nil to give up). Returns the index just past the closing `}`; nil when
    /// the object is not plain (a key that is not a plain string, a missing `:` or `,`, a trailing
    /// comma, or `member` gave up).
    /// - Complexity: O(bytes of the object) plus what `member` does.
    static func object(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ member: (Range<Int>, Int) -> Int?) -> Int? {
        let end = b.count
        guard start < end, b[start] == UInt8(ascii: "{") else { return nil }
        var i = skipSpace(b, start + 1)
        if i < end, b[i] == UInt8(ascii: "}") { return i + 1 }
        while true {
            guard i < end, b[i] == UInt8(ascii: "\""), let keyEnd = plainString(b, i + 1) else { return nil }
            let key = (i + 1)..<keyEnd
            i = skipSpace(b, keyEnd + 1)
            guard i < end, b[i] == UInt8(ascii: ":") else { return nil }
            i = skipSpace(b, i + 1)
            guard i < end, let valueEnd = member(key, i) else { return nil }
            i = skipSpace(b, valueEnd)
            guard i < end else { return nil }
            if b[i] == UInt8(ascii: "}") { return i + 1 }
            guard b[i] == UInt8(ascii: ",") else { return nil }
            i = skipSpace(b, i + 1)
        }
    }

    /// The index just past the plain string, number or literal at `start`; nil for anything else
    /// (an object, an array, a string with escapes, not JSON).
    static func scalarEnd(_ b: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
        let first = b[start]
        if first == UInt8(ascii: "\"") { return plainString(b, start + 1).map { $0 + 1 } }
        if first == UInt8(ascii: "-") || (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) { return numberLiteral(b, start) }
        return literal(b, start)
    }
}
