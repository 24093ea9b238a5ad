/// Appends compact JSON to a byte buffer, one token at a time.
///
/// Encoders call `beginObject`/`key`/`…`/`endObject` directly, so a message is serialised in
/// one pass without building an intermediate `JSONValue`. Commas are inserted automatically.
public struct JSONWriter {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []
    private var needsComma = false

    public init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    private mutating func separator() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    public mutating func beginObject() { separator(); bytes.append(UInt8(ascii: "{")); needsComma = false }
    public mutating func endObject() { bytes.append(UInt8(ascii: "}")); needsComma = true }
    public mutating func beginArray() { separator(); bytes.append(UInt8(ascii: "[")); needsComma = false }
    public mutating func endArray() { bytes.append(UInt8(ascii: "]")); needsComma = true }

    /// Writes a member name; the next token written is its value.
    public mutating func key(_ name: String) {
        separator()
        appendQuoted(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func string(_ value: String) { separator(); appendQuoted(value) }
    public mutating func bool(_ value: Bool) { separator(); bytes.append(contentsOf: value ? Self.trueBytes : Self.falseBytes) }
    public mutating func null() { separator(); bytes.append(contentsOf: Self.nullBytes) }

    /// Writes a number; integral values print without a fraction, non-finite values as `null`.
    public mutating func number(_ value: Double) {
        separator()
        guard value.isFinite else { bytes.append(contentsOf: Self.nullBytes); return }
        if value == value.rounded(.towardZero), abs(value) < 9.007_199_254_740_992e15 {
            appendInteger(Int64(value))
        } else {
            bytes.append(contentsOf: value.description.utf8)
        }
    }

    /// The decimal digits of `value`, written in place (no intermediate `String`).
    private mutating func appendInteger(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        if magnitude < 10 { bytes.append(UInt8(ascii: "0") + UInt8(magnitude)); return }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)   // up to 24 digits, little-endian
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while magnitude > 0 {
                buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
        }
        withUnsafeBytes(of: &digits) { buffer in
            for i in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[i]) }
        }
    }

    /// A finite number as this writer prints it: integral values without a fraction (`42`),
    /// others in Swift's shortest round-trip form (`0.1`, `1e+300`).
    public static func format(_ value: Double) -> String {
        if value == value.rounded(.towardZero), abs(value) < 9.007_199_254_740_992e15 {
            return String(Int64(value))
        }
        return value.description
    }

    public mutating func number(_ value: Int) { separator(); appendInteger(Int64(value)) }

    /// Writes `value` or `null`.
    public mutating func number(_ value: Double?) {
        if let value { number(value) } else { null() }
    }

    /// Writes a whole `JSONValue`.
    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let b): bool(b)
        case .number(let n): number(n)
        case .string(let s): string(s)
        case .array(let items):
            beginArray()
            for item in items { self.value(item) }
            endArray()
        case .object(let members):
            beginObject()
            for (name, member) in members { key(name); self.value(member) }
            endObject()
        }
    }

    /// Splices already-serialised JSON in as one value (e.g. a cached chart spec).
    public mutating func raw(_ json: [UInt8]) { separator(); bytes.append(contentsOf: json) }

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)
    private static let nullBytes = Array("null".utf8)
    private static let hex = Array("0123456789abcdef".utf8)

    private mutating func appendQuoted(_ text: String) {
        // Native strings (small ones included) hand out their UTF-8 in place: scanned and copied
        // in bulk, with no iterator over the view.
        if text.utf8.withContiguousStorageIfAvailable({ appendQuoted(utf8: $0) }) != nil { return }
        var copy = text
        copy.makeContiguousUTF8()
        copy.utf8.withContiguousStorageIfAvailable { appendQuoted(utf8: $0) }
    }

    private mutating func appendQuoted(utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        var plain = true
        for byte in utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            plain = false
            break
        }
        // The common case — nothing to escape — is one bulk copy.
        if plain {
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
            case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
            case 0x0A: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "t"))
            case 0..<0x20:
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(Self.hex[Int(byte >> 4)])
                bytes.append(Self.hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
