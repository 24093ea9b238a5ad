/// Decimal number literals read straight from body bytes, correctly rounded to `Double`.
///
/// Most literals in a write (`12.5`, `1733011200000`, `0.8444218515250481`) have at most 19
/// significant digits and a small exponent; those are converted with Clinger's fast path (an
/// exact integer times or divided by an exact power of ten: one rounding, so the result is the
/// correctly rounded double). The rest fall back to the standard library's conversion. A literal
/// too large for a double becomes ±infinity, which callers refuse as non-finite.
enum DecimalScanner {
    /// The grammar to accept.
    enum Grammar {
        /// RFC 8259: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
        case json
        /// CSV cells and line protocol: `[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?`.
        case lenient
    }

    /// Exact powers of ten 10⁰…10²².
    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// Scans the longest literal of `grammar` starting at `p[start]` and returns its value and
    /// the index just past it; `nil` when no literal of the grammar starts there.
    /// - Complexity: O(literal length).
    static func scan(_ p: UnsafeBufferPointer<UInt8>, from start: Int, grammar: Grammar) -> (value: Double, end: Int)? {
        let end = p.count
        @inline(__always) func at(_ k: Int) -> UInt8 { k < end ? p[k] : 0 }
        @inline(__always) func digit(_ b: UInt8) -> UInt64? {
            b &- UInt8(ascii: "0") < 10 ? UInt64(b &- UInt8(ascii: "0")) : nil
        }
        var k = start
        var negative = false
        if at(k) == UInt8(ascii: "-") {
            negative = true
            k += 1
        } else if grammar == .lenient, at(k) == UInt8(ascii: "+") {
            k += 1
        }
        var mantissa: UInt64 = 0
        var significant = 0
        var exponent = 0
        var inexact = false
        @inline(__always) func take(_ d: UInt64, fraction: Bool) {
            if mantissa == 0 && d == 0 {
                if fraction { exponent -= 1 }
            } else if significant < 19 {
                mantissa = mantissa &* 10 &+ d
                significant += 1
                if fraction { exponent -= 1 }
            } else {
                if !fraction { exponent += 1 }
                if d != 0 { inexact = true }
            }
        }
        let integerStart = k
        if grammar == .json && at(k) == UInt8(ascii: "0") {
            k += 1
        } else {
            while let d = digit(at(k)) { take(d, fraction: false); k += 1 }
        }
        let integerDigits = k - integerStart
        if grammar == .json && integerDigits == 0 { return nil }
        var fractionDigits = 0
        if at(k) == UInt8(ascii: ".") {
            let fractionStart = k + 1
            var f = fractionStart
            while let d = digit(at(f)) { take(d, fraction: true); f += 1 }
            fractionDigits = f - fractionStart
            if grammar == .json && fractionDigits == 0 { return nil }
            k = f
        }
        if integerDigits + fractionDigits == 0 { return nil }
        if at(k) == UInt8(ascii: "e") || at(k) == UInt8(ascii: "E") {
            var e = k + 1
            var exponentNegative = false
            if at(e) == UInt8(ascii: "+") || at(e) == UInt8(ascii: "-") {
                exponentNegative = at(e) == UInt8(ascii: "-")
                e += 1
            }
            let exponentStart = e
            var written = 0
            while let d = digit(at(e)) {
                if written < 100_000 { written = written * 10 + Int(d) }
                e += 1
            }
            if e == exponentStart { return nil }
            exponent += exponentNegative ? -written : written
            k = e
        }
        let value: Double
        if mantissa == 0 {
            value = 0
        } else if !inexact && mantissa <= 1 << 53 && exponent >= -22 && exponent <= 22 {
            let m = Double(mantissa)
            value = exponent < 0 ? m / powersOfTen[-exponent] : m * powersOfTen[exponent]
        } else {
            let text = String(decoding: UnsafeBufferPointer(rebasing: p[start..<k]), as: UTF8.self)
            guard let parsed = Double(text) else { return nil }
            return (parsed, k)
        }
        return (negative ? -value : value, k)
    }

    /// `p[range]` as a whole literal of the lenient grammar, or `nil`.
    static func parseExactly(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Double? {
        guard !range.isEmpty else { return nil }
        let slice = UnsafeBufferPointer(rebasing: p[range])
        guard let (value, end) = scan(slice, from: 0, grammar: .lenient), end == slice.count else { return nil }
        return value
    }

    /// Whether `p[range]` spells NaN or an infinity (`nan`, `inf`, `Infinity`, `-inf`…, any
    /// case): a number the writer meant, refused as non-finite rather than as "not a number".
    static func isNonFiniteWord(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        var k = range.lowerBound
        if k < range.upperBound, p[k] == UInt8(ascii: "-") || p[k] == UInt8(ascii: "+") { k += 1 }
        var word: [UInt8] = []
        while k < range.upperBound, word.count <= 8 {
            word.append(p[k] | 0x20)
            k += 1
        }
        guard k == range.upperBound else { return false }
        return word == Array("nan".utf8) || word == Array("inf".utf8) || word == Array("infinity".utf8)
    }
}
