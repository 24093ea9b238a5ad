import ChartCastProtocol
import ChartEngine
/// Measurements, tag sets, field keys and field values of line protocol.
extension LineProtocolReader {
    /// Whether `b` is escapable in tag keys, tag values and field keys (`\\` included).
    @inline(__always)
    static func isTagEscapable(_ b: UInt8) -> Bool {
        b == UInt8(ascii: ",") || b == UInt8(ascii: "=") || b == 0x20 || b == UInt8(ascii: "\\")
    }

    /// The id of the `measurement,tags` prefix at `range` (raw bytes), parsing it on first sight.
    mutating func key(_ range: Range<Int>) throws -> Int {
        let (id, isNew) = keyTable.intern(UnsafeBufferPointer(rebasing: p[range]))
        if isNew {
            let (chart, suffix) = try parseKey(range)
            keyChart.append(Int32(chart))
            keySuffix.append(suffix)
        }
        return id
    }

    /// The chart of a measurement and the series-name suffix of its tags.
    private mutating func parseKey(_ range: Range<Int>) throws -> (chart: Int, suffix: [UInt8]) {
        var j = range.lowerBound
        let end = range.upperBound
        var measurement: [UInt8] = []
        while j < end, p[j] != UInt8(ascii: ",") {
            if p[j] == UInt8(ascii: "\\"), j + 1 < end,
               p[j + 1] == UInt8(ascii: ",") || p[j + 1] == 0x20 || p[j + 1] == UInt8(ascii: "\\") {
                measurement.append(p[j + 1])
                j += 2
            } else {
                measurement.append(p[j])
                j += 1
            }
        }
        guard !measurement.isEmpty else { throw syntax("the line has no measurement") }
        guard ChartSpec.isValidID(measurement) else {
            throw IngestError.badPoint("measurement \(Quote.bytes(measurement)) is not a valid chart id (\(ChartSpec.idRule))",
                                       line: line)
        }
        var tags: [(key: [UInt8], value: [UInt8])] = []
        while j < end {
            j += 1  // the comma
            let key = try tagPart(&j, end, stop: UInt8(ascii: "="), what: "tag key")
            guard !key.isEmpty else { throw syntax("a tag has an empty key") }
            guard j < end, p[j] == UInt8(ascii: "=") else { throw syntax("tag \(Quote.bytes(key)) has no '='") }
            j += 1
            let value = try tagPart(&j, end, stop: UInt8(ascii: ","), what: "tag value")
            guard !value.isEmpty else { throw syntax("tag \(Quote.bytes(key)) has an empty value") }
            tags.append((key, value))
        }
        tags.sort { $0.key.lexicographicallyPrecedes($1.key) }
        var suffix: [UInt8] = []
        for (k, tag) in tags.enumerated() {
            if k > 0 && tags[k - 1].key == tag.key { throw syntax("tag \(Quote.bytes(tag.key)) appears twice") }
            suffix.append(k == 0 ? UInt8(ascii: "{") : UInt8(ascii: ","))
            suffix += tag.key
            suffix.append(UInt8(ascii: "="))
            suffix += tag.value
        }
        if !tags.isEmpty { suffix.append(UInt8(ascii: "}")) }

        let (chart, isNew) = chartTable.intern(measurement)
        if isNew {
            charts.append(ChartPoints(chart: String(decoding: measurement, as: UTF8.self),
                                      points: PointBatch(source: .lineProtocol)))
            seriesTables.append(NameTable())
        }
        return (chart, suffix)
    }

    /// A tag key (up to an unescaped `=`) or value (up to an unescaped `,`), unescaped and
    /// checked to be UTF-8; an unescaped `=` inside a value is refused.
    private func tagPart(_ j: inout Int, _ end: Int, stop: UInt8, what: String) throws -> [UInt8] {
        var out: [UInt8] = []
        while j < end {
            let b = p[j]
            if b == stop { break }
            if b == UInt8(ascii: "\\"), j + 1 < end, LineProtocolReader.isTagEscapable(p[j + 1]) {
                out.append(p[j + 1])
                j += 2
                continue
            }
            if b == UInt8(ascii: ",") { throw syntax("a \(what) \(Quote.bytes(out)) ends without '='") }
            if b == UInt8(ascii: "=") { throw syntax("an unescaped '=' in \(what) \(Quote.bytes(out))") }
            out.append(b)
            j += 1
        }
        guard UTF8Validation.isValid(out) else { throw syntax("a \(what) is not valid UTF-8") }
        return out
    }

    /// The field key at `i` (up to `=`, consumed) as an id in `fieldTable`, adding its series
    /// to the chart on first sight.
    mutating func fieldKey(_ keyId: Int) throws -> Int32 {
        scratch.removeAll(keepingCapacity: true)
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: keyId).littleEndian) { scratch.append(contentsOf: $0) }
        while true {
            guard i < p.count else { throw syntax("field \(Quote.bytes(scratch.dropFirst(4))) has no '=' and no value") }
            let b = p[i]
            if b == UInt8(ascii: "=") { break }
            if b == UInt8(ascii: "\\"), i + 1 < p.count, LineProtocolReader.isTagEscapable(p[i + 1]) {
                scratch.append(p[i + 1])
                i += 2
                continue
            }
            if b == UInt8(ascii: ",") || b == 0x20 || b == UInt8(ascii: "\n") || b == UInt8(ascii: "\r") {
                throw syntax("field \(Quote.bytes(scratch.dropFirst(4))) has no '=' and no value")
            }
            scratch.append(b)
            i += 1
        }
        i += 1
        guard scratch.count > 4 else { throw syntax("a field has an empty key") }
        let (id, isNew) = fieldTable.intern(scratch)
        if isNew { try addFieldSeries(keyId) }
        return Int32(truncatingIfNeeded: id)
    }

    /// Registers the series of the field key in `scratch` (after the 4-byte prefix id).
    private mutating func addFieldSeries(_ keyId: Int) throws {
        let chart = Int(keyChart[keyId])
        let name = Array(scratch.dropFirst(4)) + keySuffix[keyId]
        guard UTF8Validation.isValid(name) else { throw syntax("a field key is not valid UTF-8") }
        guard name.count <= limits.maxSeriesNameBytes else {
            throw IngestError.badPoint("series \(Quote.bytes(name)) is longer than \(limits.maxSeriesNameBytes) bytes",
                                       line: line)
        }
        let (series, isNew) = seriesTables[chart].intern(name)
        if isNew { _ = charts[chart].points.addSeries(String(decoding: name, as: UTF8.self)) }
        fieldChart.append(Int32(chart))
        fieldSeries.append(Int32(series))
    }

    /// The field value at `i`, up to `,`, a space or the line end: a float, an `i` integer or a
    /// `u` integer, as a finite double.
    mutating func fieldValue(_ field: Int32) throws -> Double {
        let start = i
        if at(i) == UInt8(ascii: "\"") { throw notANumber(field) }
        while i < p.count {
            let b = p[i]
            if b == UInt8(ascii: ",") || b == 0x20 || b == 0x09 || b == UInt8(ascii: "\n") || b == UInt8(ascii: "\r") { break }
            i += 1
        }
        let token = start..<i
        guard !token.isEmpty else { throw syntax("field \(fieldName(field)) has no value") }
        let last = p[i - 1]
        if last == UInt8(ascii: "i") || last == UInt8(ascii: "u") {
            if let value = integer(start..<(i - 1), unsigned: last == UInt8(ascii: "u")) {
                guard let value else {
                    throw IngestError.badPoint("field \(fieldName(field)) is out of range for a 64-bit integer", line: line)
                }
                return value
            }
        }
        if let value = DecimalScanner.parseExactly(p, token) {
            guard value.isFinite else {
                throw IngestError.badPoint("field \(fieldName(field)) is not finite (\(Quote.bytes(p[token])))", line: line)
            }
            return value
        }
        if isBoolean(token) { throw notANumber(field) }
        throw syntax("field \(fieldName(field)) has an invalid value \(Quote.bytes(p[token]))")
    }

    private func notANumber(_ field: Int32) -> IngestError {
        .badPoint("field \(fieldName(field)) is not a number", line: line)
    }

    /// The field key of field `id`, quoted, for messages.
    private func fieldName(_ field: Int32) -> String { Quote.bytes(fieldTable.bytes(Int(field)).dropFirst(4)) }

    /// `p[range]` as `-?[0-9]+` (signed) or `[0-9]+` (unsigned): nil when it is not such a
    /// literal, `.some(nil)` when it is but does not fit 64 bits.
    private func integer(_ range: Range<Int>, unsigned: Bool) -> Double?? {
        var k = range.lowerBound
        let negative = !unsigned && k < range.upperBound && p[k] == UInt8(ascii: "-")
        if negative { k += 1 }
        guard k < range.upperBound else { return nil }
        var magnitude: UInt64 = 0
        var overflow = false
        while k < range.upperBound {
            let d = p[k] &- UInt8(ascii: "0")
            guard d < 10 else { return nil }
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (next, o2) = times10.addingReportingOverflow(UInt64(d))
            overflow = overflow || o1 || o2
            magnitude = next
            k += 1
        }
        let limit: UInt64 = unsigned ? .max : (negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max))
        guard !overflow, magnitude <= limit else { return .some(nil) }
        return .some(negative ? -Double(magnitude) : Double(magnitude))
    }

    /// Whether `p[range]` is one of line protocol's boolean spellings.
    private func isBoolean(_ range: Range<Int>) -> Bool {
        let word = String(decoding: UnsafeBufferPointer(rebasing: p[range]), as: UTF8.self)
        return ["t", "T", "true", "True", "TRUE", "f", "F", "false", "False", "FALSE"].contains(word)
    }
}
