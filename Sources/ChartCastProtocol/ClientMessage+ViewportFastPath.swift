import ChartEngine

/// The plain `viewport` message read straight from its bytes, as `PointerFastPath` reads a
/// pointer: each arriving viewer sends one per chart, and the generic path's document tree was
/// the largest piece of Swift in an arrival.
///
/// Accepted: one object with `type` `"viewport"`, a plain `chart` string, a `plot` object whose
/// `x`, `y`, `width` and `height` are finite JSON numbers within the limits (width and height
/// positive), `rtl` absent or a boolean, and other members plain strings, numbers or literals
/// (inside `plot` too); each known member at most once. Anything else is nil, which the generic
/// path decodes or refuses with its own error, so the two always agree (`ViewportFastPathTests`,
/// and the `client-message` fuzz target, which compares `decode` with `decodeGeneric`).
enum ViewportFastPath {
    /// The message, or nil when the bytes are not a plain `viewport` message.
    /// - Complexity: O(n) in the frame's size; no allocation beyond the chart's string.
    static func decode(_ bytes: [UInt8], limits: ProtocolLimits) -> ClientMessage? {
        bytes.withUnsafeBufferPointer { decode($0, limits: limits) }
    }

    private static func decode(_ b: UnsafeBufferPointer<UInt8>, limits: ProtocolLimits) -> ClientMessage? {
        var type: Range<Int>?, chart: Range<Int>?, rtl: Bool?
        var plotSeen = false, x: Double?, y: Double?, width: Double?, height: Double?
        let start = PlainJSON.skipSpace(b, 0)
        let after = PlainJSON.object(b, start) { key, at in
            if PlainJSON.equals(b, key, "type") || PlainJSON.equals(b, key, "chart") {
                guard b[at] == UInt8(ascii: "\""), let close = PlainJSON.plainString(b, at + 1) else { return nil }
                if key.count == 4 { guard type == nil else { return nil }; type = (at + 1)..<close }
                else { guard chart == nil else { return nil }; chart = (at + 1)..<close }
                return close + 1
            }
            if PlainJSON.equals(b, key, "plot") {
                guard !plotSeen else { return nil }
                plotSeen = true
                return PlainJSON.object(b, at) { name, value in
                    guard let side = side(b, name) else { return PlainJSON.scalarEnd(b, value) }
                    guard let end = PlainJSON.numberLiteral(b, value), let number = PlainJSON.number(b, value..<end),
                          number.isFinite, Swift.abs(number) <= limits.maxCoordinate else { return nil }
                    switch side {
                    case .x: guard x == nil else { return nil }; x = number
                    case .y: guard y == nil else { return nil }; y = number
                    case .width: guard width == nil else { return nil }; width = number
                    case .height: guard height == nil else { return nil }; height = number
                    }
                    return end
                }
            }
            if PlainJSON.equals(b, key, "rtl") {
                guard rtl == nil, b[at] != UInt8(ascii: "n"), let end = PlainJSON.literal(b, at) else { return nil }
                rtl = b[at] == UInt8(ascii: "t")
                return end
            }
            return PlainJSON.scalarEnd(b, at)
        }
        guard let after, PlainJSON.skipSpace(b, after) == b.count else { return nil }
        guard let type, PlainJSON.equals(b, type, "viewport"), let chart,
              let x, let y, let width, let height, width > 0, height > 0 else { return nil }
        return .viewport(ClientMessage.ViewportReport(chart: PlainJSON.text(b, chart),
                                                      viewport: Viewport(x: x, y: y, width: width, height: height, rtl: rtl ?? false)))
    }

    private enum Side { case x, y, width, height }

    /// Which side of the plot a `plot` member gives; nil for any other name.
    private static func side(_ b: UnsafeBufferPointer<UInt8>, _ name: Range<Int>) -> Side? {
        switch name.count {
        case 1 where b[name.lowerBound] == UInt8(ascii: "x"): return .x
        case 1 where b[name.lowerBound] == UInt8(ascii: "y"): return .y
        case 5 where PlainJSON.equals(b, name, "width"): return .width
        case 6 where PlainJSON.equals(b, name, "height"): return .height
        default: return nil
        }
    }
}
