extension JSONByteScanner {
    /// At `-` or a digit: scans an RFC 8259 number. Too large for a double: ±infinity.
    @inline(__always)
    mutating func scanNumber() throws -> Double {
        guard let (value, end) = DecimalScanner.scan(p, from: i, grammar: .json) else {
            throw syntax("invalid number")
        }
        i = end
        return value
    }

    /// At `t`, `f` or `n`: consumes `literal` or throws.
    mutating func scanLiteral(_ literal: StaticString) throws {
        let count = literal.utf8CodeUnitCount
        let expected = literal.utf8Start
        for k in 0..<count {
            guard i + k < p.count, p[i + k] == expected[k] else { throw syntax("invalid literal (expected \(literal))") }
        }
        i += count
    }

    /// At a value inside a container at `depth`: checks and skips it, nested values included.
    /// - Complexity: O(size of the value); recursion at most `maxDepth` deep.
    mutating func skipValue(depth: Int) throws {
        switch peek() {
        case UInt8(ascii: "{"):
            guard try open(UInt8(ascii: "}"), depth: depth + 1) else { return }
            repeat {
                _ = try memberName()
                try skipValue(depth: depth + 1)
            } while try next(UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            guard try open(UInt8(ascii: "]"), depth: depth + 1) else { return }
            repeat {
                try skipValue(depth: depth + 1)
            } while try next(UInt8(ascii: "]"))
        case UInt8(ascii: "\""):
            _ = try scanString()
        case UInt8(ascii: "t"):
            try scanLiteral("true")
        case UInt8(ascii: "f"):
            try scanLiteral("false")
        case UInt8(ascii: "n"):
            try scanLiteral("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            _ = try scanNumber()
        default:
            throw unexpected("a value")
        }
    }

    /// At a value that has the wrong type: checks it is valid JSON (else the syntax error wins)
    /// and returns its type as messages name it (`a string`, `null`…).
    mutating func skipWrongValue(depth: Int) throws -> String {
        let kind: String
        switch peek() {
        case UInt8(ascii: "{"): kind = "an object"
        case UInt8(ascii: "["): kind = "an array"
        case UInt8(ascii: "\""): kind = "a string"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): kind = "a boolean"
        case UInt8(ascii: "n"): kind = "null"
        default: kind = "a number"
        }
        try skipValue(depth: depth)
        return kind
    }

    /// When a value position holds `NaN`, `Infinity` or `-Infinity` (not JSON, but what some
    /// encoders write for non-finite doubles), the word; else nil. Does not move.
    @inline(__always)
    func nonFiniteWord() -> String? {
        switch peek() {
        case UInt8(ascii: "N"): return matches("NaN") ? "NaN" : nil
        case UInt8(ascii: "I"): return matches("Infinity") ? "Infinity" : nil
        case UInt8(ascii: "-"):
            guard i + 1 < p.count, p[i + 1] == UInt8(ascii: "I") else { return nil }
            return matches("-Infinity") ? "-Infinity" : nil
        default: return nil
        }
    }

    private func matches(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        let bytes = word.utf8Start
        guard i + count <= p.count else { return false }
        for k in 0..<count where p[i + k] != bytes[k] { return false }
        // The word must end there (`NaNa` is a syntax error, not a non-finite number).
        if i + count < p.count {
            let b = p[i + count] | 0x20
            if (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (p[i + count] &- UInt8(ascii: "0") < 10) { return false }
        }
        return true
    }
}
