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
        var type: Range<Int>?, chart: Range<Int>?, phase: Range<Int>?, ref: Range<Int>?
        var x: Double?, y: Double?
        var refIsNull = false
        let after = PlainJSON.object(b, PlainJSON.skipSpace(b, 0)) { keyRange, i in
            let key = classify(b, keyRange)
            let first = b[i]
            if first == UInt8(ascii: "\"") {
                guard let valueEnd = PlainJSON.plainString(b, i + 1) else { return nil }
                let value = (i + 1)..<valueEnd
                switch key {
                case .type: guard type == nil else { return nil }; type = value
                case .chart: guard chart == nil else { return nil }; chart = value
                case .phase: guard phase == nil else { return nil }; phase = value
                case .ref: guard ref == nil, !refIsNull else { return nil }; ref = value
                case .x, .y: return nil
                case .other: break
                }
                return valueEnd + 1
            }
            if first == UInt8(ascii: "-") || (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) {
                guard let numberEnd = PlainJSON.numberLiteral(b, i) else { return nil }
                switch key {
                case .x, .y:
                    guard let value = PlainJSON.number(b, i..<numberEnd), value.isFinite, Swift.abs(value) <= limits.maxCoordinate else { return nil }
                    if key == .x { guard x == nil else { return nil }; x = value } else { guard y == nil else { return nil }; y = value }
                case .other: break
                default: return nil
                }
                return numberEnd
            }
            // true, false or null: only where the message has no member of that name, or a null
            // ref; an object, an array, or not JSON: nil.
            guard let literalEnd = PlainJSON.literal(b, i) else { return nil }
            switch key {
            case .other: break
            case .ref where first == UInt8(ascii: "n"): guard ref == nil, !refIsNull else { return nil }; refIsNull = true
            default: return nil
            }
            return literalEnd
        }
        guard let after, PlainJSON.skipSpace(b, after) == b.count else { return nil }
        guard let type, PlainJSON.equals(b, type, "pointer"), let chart, let phase, let x, let y else { return nil }
        guard let pointerPhase = PointerPhase(wireName: PlainJSON.text(b, phase)) else { return nil }
        if let ref, ref.count > limits.maxRefLength { return nil }
        return .pointer(ClientMessage.PointerInput(chart: PlainJSON.text(b, chart), phase: pointerPhase, x: x, y: y,
                                                   ref: ref.map { PlainJSON.text(b, $0) }))
    }

    private static func classify(_ b: UnsafeBufferPointer<UInt8>, _ key: Range<Int>) -> Key {
        switch key.count {
        case 1:
            if b[key.lowerBound] == UInt8(ascii: "x") { return .x }
            if b[key.lowerBound] == UInt8(ascii: "y") { return .y }
        case 3 where PlainJSON.equals(b, key, "ref"): return .ref
        case 4 where PlainJSON.equals(b, key, "type"): return .type
        case 5 where PlainJSON.equals(b, key, "chart"): return .chart
        case 5 where PlainJSON.equals(b, key, "phase"): return .phase
        default: break
        }
        return .other
    }

}
