/// UTF-8 well-formedness (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF)
/// checked on raw body bytes, so that every name and category a parser keeps is valid text.
enum UTF8Validation {
    /// The length of the well-formed sequence starting at `p[i]`, a byte ≥ 0x80; 0 when the
    /// bytes there are not well-formed UTF-8 (or the buffer ends inside the sequence).
    @inline(__always)
    static func sequenceLength(_ p: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int {
        let end = p.count
        @inline(__always) func byte(_ k: Int) -> UInt8 { i + k < end ? p[i + k] : 0 }
        @inline(__always) func isContinuation(_ k: Int) -> Bool { byte(k) & 0xC0 == 0x80 }
        switch p[i] {
        case 0xC2...0xDF:
            return isContinuation(1) ? 2 : 0
        case 0xE0:
            return (0xA0...0xBF).contains(byte(1)) && isContinuation(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF:
            return isContinuation(1) && isContinuation(2) ? 3 : 0
        case 0xED:
            return (0x80...0x9F).contains(byte(1)) && isContinuation(2) ? 3 : 0
        case 0xF0:
            return (0x90...0xBF).contains(byte(1)) && isContinuation(2) && isContinuation(3) ? 4 : 0
        case 0xF1...0xF3:
            return isContinuation(1) && isContinuation(2) && isContinuation(3) ? 4 : 0
        case 0xF4:
            return (0x80...0x8F).contains(byte(1)) && isContinuation(2) && isContinuation(3) ? 4 : 0
        default:
            return 0
        }
    }

    /// Whether all of `p` is well-formed UTF-8.
    /// - Complexity: O(n), one comparison per ASCII byte.
    static func isValid(_ p: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        while i < p.count {
            if p[i] < 0x80 { i += 1; continue }
            let length = sequenceLength(p, i)
            if length == 0 { return false }
            i += length
        }
        return true
    }

    /// Whether all of `bytes` is well-formed UTF-8.
    static func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { isValid($0) }
    }
}
