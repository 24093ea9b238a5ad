/// Little-endian binary writing for snapshots: fixed-width integers and doubles (bit patterns),
/// length-prefixed byte strings.
struct BinaryWriter {
    private(set) var bytes: [UInt8] = []

    mutating func reserve(_ count: Int) { bytes.reserveCapacity(bytes.count + count) }

    mutating func u8(_ value: UInt8) { bytes.append(value) }

    mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }

    mutating func u64(_ value: UInt64) {
        var v = value
        for _ in 0..<8 {
            bytes.append(UInt8(truncatingIfNeeded: v))
            v >>= 8
        }
    }

    mutating func int(_ value: Int) { u64(UInt64(bitPattern: Int64(value))) }

    mutating func double(_ value: Double) { u64(value.bitPattern) }

    mutating func optionalDouble(_ value: Double?) {
        bool(value != nil)
        if let value { double(value) }
    }

    mutating func doubles(_ values: [Double]) {
        int(values.count)
        reserve(values.count * 8)
        for value in values { u64(value.bitPattern) }
    }

    mutating func data(_ value: [UInt8]) {
        int(value.count)
        bytes.append(contentsOf: value)
    }

    mutating func string(_ value: String) { data(Array(value.utf8)) }
}

/// Reads what `BinaryWriter` wrote; every read is bounds-checked and throws
/// `ClusterEntryError` past the end.
struct BinaryReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    private mutating func take(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, count <= bytes.count - offset else { throw ClusterEntryError("snapshot: cut short at byte \(offset)") }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    mutating func u8() throws -> UInt8 { try take(1).first! }

    mutating func bool() throws -> Bool {
        switch try u8() {
        case 0: return false
        case 1: return true
        default: throw ClusterEntryError("snapshot: a flag that is neither 0 nor 1 at byte \(offset - 1)")
        }
    }

    mutating func u64() throws -> UInt64 {
        var value: UInt64 = 0
        for (i, byte) in try take(8).enumerated() { value |= UInt64(byte) << (8 * UInt64(i)) }
        return value
    }

    mutating func int() throws -> Int { Int(Int64(bitPattern: try u64())) }

    /// A count of items of at least `size` bytes each that the rest can hold.
    mutating func count(itemSize size: Int) throws -> Int {
        let n = try int()
        guard n >= 0, n <= (bytes.count - offset) / Swift.max(1, size) else { throw ClusterEntryError("snapshot: a count of \(n) at byte \(offset - 8)") }
        return n
    }

    mutating func double() throws -> Double { Double(bitPattern: try u64()) }

    mutating func optionalDouble() throws -> Double? { try bool() ? try double() : nil }

    mutating func doubles() throws -> [Double] {
        let n = try count(itemSize: 8)
        var values: [Double] = []
        values.reserveCapacity(n)
        for _ in 0..<n { values.append(Double(bitPattern: try u64())) }
        return values
    }

    mutating func data() throws -> [UInt8] { Array(try take(try count(itemSize: 1))) }

    mutating func string() throws -> String {
        let raw = try data()
        guard let text = String(validating: raw, as: UTF8.self) else { throw ClusterEntryError("snapshot: text that is not UTF-8") }
        return text
    }
}
