import ChartEngine

/// The plain `pointer` message read straight from its bytes, without a JSON document tree.
///
/// Pointer events are nearly every frame a viewer sends, and the generic path (`JSONReader`
/// builds an array of members, a `String` per key and value, then `FieldReader` looks each one up)
/// was most of decoding's cost. This reader accepts only the plain shape — one flat object whose
/// keys and string values are printable ASCII without escapes, numbers in JSON's grammar, every
/// known member at most once and of the right kind, coordinates within the limits — and answers
/// nil for anything else, which the generic path then decodes or refuses with its usual error.
/// So it never accepts what the generic path refuses, and what it accepts decodes to the same
/// message (pinned by `PointerFastPathTests` and checked by the `client-message` fuzz target).
enum PointerFastPath {
    /// The message, or nil when the bytes are not a plain `pointer` message.
    /// - Complexity: O(n) in the frame's size; no allocation beyond the chart and ref strings
    ///   (none for ids of up to 15 bytes).
    static func decode(_ bytes: [UInt8], limits: ProtocolLimits) -> ClientMessage? {
        bytes.withUnsafeBufferPointer { decode($0, limits: limits) }
    }

    private enum Key { case type, chart, phase, x, y, ref, other }

    private static func decode(_ b: UnsafeBufferPointer<UInt8>, limits: ProtocolLimits) -> ClientMessage? {
        let end = b.count
        var i = skipSpace(b, 0)
        guard i < end, b[i] == UInt8(ascii: "{") else { return nil }
        var type: Range<Int>?, chart: Range<Int>?, phase: Range<Int>?, ref: Range<Int>?
        var x: Double?, y: Double?
        var refIsNull = false
        i = skipSpace(b, i + 1)
        while true {
            guard i < end, b[i] == UInt8(ascii: "\""), let keyEnd = plainString(b, i + 1) else { return nil }
            let key = classify(b, (i + 1)..<keyEnd)
            i = skipSpace(b, keyEnd + 1)
            guard i < end, b[i] == UInt8(ascii: ":") else { return nil }
            i = skipSpace(b, i + 1)
            guard i < end else { return nil }
            let first = b[i]
            if first == UInt8(ascii: "\"") {
                guard let valueEnd = plainString(b, i + 1) else { return nil }
                let value = (i + 1)..<valueEnd
                switch key {
                case .type: guard type == nil else { return nil }; type = value
                case .chart: guard chart == nil else { return nil }; chart = value
                case .phase: guard phase == nil else { return nil }; phase = value
                case .ref: guard ref == nil, !refIsNull else { return nil }; ref = value
                case .x, .y: return nil
                case .other: break
                }
                i = valueEnd + 1
            } else if first == UInt8(ascii: "-") || (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) {
                guard let numberEnd = numberLiteral(b, i) else { return nil }
                switch key {
                case .x, .y:
                    guard let value = number(b, i..<numberEnd), value.isFinite, Swift.abs(value) <= limits.maxCoordinate else { return nil }
                    if key == .x { guard x == nil else { return nil }; x = value } else { guard y == nil else { return nil }; y = value }
                case .other: break
                default: return nil
                }
                i = numberEnd
            } else if let literalEnd = literal(b, i) {
                // true, false or null: only where the message has no member of that name, or a null ref.
                switch key {
                case .other: break
                case .ref where b[i] == UInt8(ascii: "n"): guard ref == nil, !refIsNull else { return nil }; refIsNull = true
                default: return nil
                }
                i = literalEnd
            } else {
                return nil   // an object, an array, or not JSON
            }
            i = skipSpace(b, i)
            guard i < end else { return nil }
            if b[i] == UInt8(ascii: "}") { break }
            guard b[i] == UInt8(ascii: ",") else { return nil }
            i = skipSpace(b, i + 1)
        }
        guard skipSpace(b, i + 1) == end else { return nil }
        guard let type, equals(b, type, "pointer"), let chart, let phase, let x, let y else { return nil }
        guard let pointerPhase = PointerPhase(wireName: text(b, phase)) else { return nil }
        if let ref, ref.count > limits.maxRefLength { return nil }
        return .pointer(ClientMessage.PointerInput(chart: text(b, chart), phase: pointerPhase, x: x, y: y,
                                                   ref: ref.map { text(b, $0) }))
    }

    private static func skipSpace(_ b: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int {
        var i = start
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
        return i
    }

    /// The index of the closing quote of a string whose bytes from `start` are printable ASCII
    /// without a backslash; nil for any other string (escapes, controls, DEL, non-ASCII).
    private static func plainString(_ b: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
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
    private static func numberLiteral(_ b: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
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
    private static func number(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Double? {
        Double(text(b, range))
    }

    /// The end of `true`, `false` or `null` at `start`; nil for anything else.
    private static func literal(_ b: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
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

    private static func classify(_ b: UnsafeBufferPointer<UInt8>, _ key: Range<Int>) -> Key {
        switch key.count {
        case 1:
            if b[key.lowerBound] == UInt8(ascii: "x") { return .x }
            if b[key.lowerBound] == UInt8(ascii: "y") { return .y }
        case 3 where equals(b, key, "ref"): return .ref
        case 4 where equals(b, key, "type"): return .type
        case 5 where equals(b, key, "chart"): return .chart
        case 5 where equals(b, key, "phase"): return .phase
        default: break
        }
        return .other
    }

    private static func equals(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard range.count == count else { return false }
        return word.withUTF8Buffer { w in (0..<count).allSatisfy { b[range.lowerBound + $0] == w[$0] } }
    }

    /// The bytes as a string: they are printable ASCII, so valid UTF-8 as they are.
    private static func text(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: b[range]), as: UTF8.self)
    }
}
