/// A cursor over a JSON body's bytes for the single-pass points parser: whitespace with line
/// counting, strings (escapes decoded, UTF-8 checked), numbers, literals, and strict skipping of
/// the values the parser does not use.
///
/// Strict RFC 8259: no trailing commas, comments, leading zeros, bare words or control
/// characters in strings; strings must be well-formed UTF-8 and `\u` escapes paired surrogates.
/// Every syntax error is a `bad_request` naming the line of the offending character. Reads past
/// the end see byte 0, which is never valid where a token is expected.
struct JSONByteScanner {
    /// The raw content of one string (between the quotes). When it had escapes, its decoded bytes
    /// are in `scratch` until the next string is scanned.
    struct StringSpan {
        var start: Int
        var end: Int
        var escaped: Bool
    }

    let p: UnsafeBufferPointer<UInt8>
    /// Index of the next byte.
    var i = 0
    /// 1-based line of `p[i]`.
    var line = 1
    let maxDepth: Int
    /// Decoded bytes of the last string with escapes.
    var scratch: [UInt8] = []

    init(_ p: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.p = p
        self.maxDepth = maxDepth
    }

    @inline(__always) var atEnd: Bool { i >= p.count }

    @inline(__always) func peek() -> UInt8 { i < p.count ? p[i] : 0 }

    @inline(__always)
    mutating func skipSpace() {
        while i < p.count {
            switch p[i] {
            case 0x20, 0x09, 0x0D: i += 1
            case 0x0A: i += 1; line += 1
            default: return
            }
        }
    }

    // MARK: Errors

    func syntax(_ problem: String) -> IngestError { .badRequest(problem, line: line) }

    /// "unexpected end of the body" or "unexpected character 'c'", with what was expected.
    func unexpected(_ expected: String) -> IngestError {
        if atEnd { return syntax("unexpected end of the body (expected \(expected))") }
        return syntax("unexpected \(JSONByteScanner.describe(p[i])) (expected \(expected))")
    }

    static func describe(_ b: UInt8) -> String {
        if b >= 0x21 && b < 0x7F { return "character '\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x" + String(b, radix: 16, uppercase: true)
    }

    // MARK: Structure

    /// Consumes `byte` (after whitespace) or throws naming `what` was expected.
    @inline(__always)
    mutating func expect(_ byte: UInt8, _ what: String) throws {
        skipSpace()
        guard peek() == byte else { throw unexpected(what) }
        i += 1
    }

    /// At `{` or `[`: consumes it and the whitespace after; returns false (and consumes the
    /// closing bracket) when the container is empty.
    mutating func open(_ close: UInt8, depth: Int) throws -> Bool {
        guard depth <= maxDepth else { throw syntax("nesting deeper than \(maxDepth)") }
        i += 1
        skipSpace()
        if peek() == close { i += 1; return false }
        return true
    }

    /// After a member or element: consumes `,` (true: another follows) or `close` (false).
    @inline(__always)
    mutating func next(_ close: UInt8) throws -> Bool {
        skipSpace()
        let b = peek()
        if b == UInt8(ascii: ",") { i += 1; skipSpace(); return true }
        if b == close { i += 1; return false }
        throw unexpected(close == UInt8(ascii: "}") ? "',' or '}'" : "',' or ']'")
    }

    /// Reads a member name and the `:` after it, leaving `i` at the value.
    @inline(__always)
    mutating func memberName() throws -> StringSpan {
        guard peek() == UInt8(ascii: "\"") else { throw unexpected("a member name") }
        let name = try scanString()
        try expect(UInt8(ascii: ":"), "':'")
        skipSpace()
        return name
    }

    // MARK: Strings

    /// At `"`: scans the string, checking escapes and UTF-8.
    /// - Complexity: O(length); decodes into `scratch` only when the string has escapes.
    mutating func scanString() throws -> StringSpan {
        i += 1
        let start = i
        var escaped = false
        while true {
            guard i < p.count else { throw syntax("unterminated string") }
            let b = p[i]
            if b == UInt8(ascii: "\"") { break }
            if b == UInt8(ascii: "\\") {
                if !escaped {
                    escaped = true
                    scratch.removeAll(keepingCapacity: true)
                    scratch.append(contentsOf: UnsafeBufferPointer(rebasing: p[start..<i]))
                }
                try decodeEscape()
                continue
            }
            if b < 0x20 { throw syntax("control character \(JSONByteScanner.describe(b)) in a string") }
            if b >= 0x80 {
                let length = UTF8Validation.sequenceLength(p, i)
                guard length > 0 else { throw syntax("a string is not valid UTF-8") }
                if escaped { scratch.append(contentsOf: UnsafeBufferPointer(rebasing: p[i..<(i + length)])) }
                i += length
                continue
            }
            if escaped { scratch.append(b) }
            i += 1
        }
        let end = i
        i += 1
        return StringSpan(start: start, end: end, escaped: escaped)
    }

    /// Calls `body` with the string's content bytes (decoded when it had escapes).
    @inline(__always)
    func withContent<R>(_ s: StringSpan, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if s.escaped { return try scratch.withUnsafeBufferPointer(body) }
        return try body(UnsafeBufferPointer(rebasing: p[s.start..<s.end]))
    }

    /// Whether the string's content is exactly `literal`.
    @inline(__always)
    func equals(_ s: StringSpan, _ literal: StaticString) -> Bool {
        withContent(s) { content in
            let count = literal.utf8CodeUnitCount
            guard content.count == count else { return false }
            let expected = literal.utf8Start
            for k in 0..<count where content[k] != expected[k] { return false }
            return true
        }
    }

    /// The string's content as a `String`.
    func string(_ s: StringSpan) -> String { withContent(s) { String(decoding: $0, as: UTF8.self) } }

    private mutating func decodeEscape() throws {
        i += 1
        guard i < p.count else { throw syntax("unterminated string") }
        let code = p[i]
        i += 1
        switch code {
        case UInt8(ascii: "\""): scratch.append(0x22)
        case UInt8(ascii: "\\"): scratch.append(0x5C)
        case UInt8(ascii: "/"): scratch.append(0x2F)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800...0xDBFF).contains(scalar) {
                guard peek() == UInt8(ascii: "\\"), i + 1 < p.count, p[i + 1] == UInt8(ascii: "u") else {
                    throw syntax("unpaired surrogate in a \\u escape")
                }
                i += 2
                let low = try hex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw syntax("unpaired surrogate in a \\u escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw syntax("unpaired surrogate in a \\u escape")
            }
            appendUTF8(scalar)
        default:
            throw syntax("invalid escape '\\\(Character(Unicode.Scalar(code)))' in a string")
        }
    }

    private mutating func hex4() throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = peek()
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default: throw syntax("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            i += 1
        }
        return value
    }

    private mutating func appendUTF8(_ v: UInt32) {
        switch v {
        case 0..<0x80:
            scratch.append(UInt8(v))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | v >> 6)); scratch.append(UInt8(0x80 | v & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | v >> 12)); scratch.append(UInt8(0x80 | v >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | v & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | v >> 18)); scratch.append(UInt8(0x80 | v >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | v >> 6 & 0x3F)); scratch.append(UInt8(0x80 | v & 0x3F))
        }
    }
}
