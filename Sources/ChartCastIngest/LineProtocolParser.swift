/// Parses InfluxDB line protocol (`/api/v2/write` bodies) into one `PointBatch` per chart.
///
/// `measurement[,tag=value…] field=value[,field=value…] [timestamp]`, one point per line, as
/// InfluxDB v2 reads it:
/// - escapes: `\,` and `\ ` in the measurement; `\,`, `\=` and `\ ` in tag keys, tag values and
///   field keys; `\\` is one backslash there, and a backslash before any other character is
///   itself (string field values escape `\"` and `\\`, but string fields are refused anyway);
/// - blank lines and lines starting with `#` (after optional spaces or tabs) are skipped; lines
///   end with LF or CRLF; spaces or tabs may trail a line;
/// - field values: floats (`1`, `-1.5`, `.5`, `1e+78`), integers with `i` (`-12i`) and unsigned
///   integers with `u` (`12u`) are values; strings (`"…"`) and booleans (`t`, `TRUE`, `false`…)
///   are `bad_point` (`line 3: field "user" is not a number`); a value too large for a double is
///   `bad_point`; anything else is `bad_request`;
/// - the timestamp is an integer in `precision`, converted to epoch ms; none: `receivedAt`.
///
/// The measurement is the chart id (it must satisfy `ChartSpec.isValidID`, else `bad_point`). Each field is a
/// series named after its key, or, when the line has tags, `key{tag=v,tag2=v2}` with the tags
/// sorted by key (bytewise) and unescaped; tag keys must not repeat and tag values must not be
/// empty. Errors name the line; line-protocol errors have no `index`.
public enum LineProtocolParser {
    /// Parses a line-protocol body.
    /// - Parameters:
    ///   - precision: the unit of the timestamps.
    ///   - receivedAt: epoch ms given to lines without a timestamp.
    /// - Complexity: O(n) in the body size. Each distinct `measurement,tags` prefix and field
    ///   key is parsed once; later lines find them by hash.
    public static func parse(_ body: [UInt8], precision: LineProtocolPrecision = .nanoseconds, receivedAt: Double,
                             limits: IngestLimits = .standard) throws -> LineProtocolWrite {
        guard body.count <= maxParsableBytes else { throw IngestError.tooLarge("the body is too large to parse") }
        return try body.withUnsafeBufferPointer { p in
            var reader = LineProtocolReader(p, precision: precision, receivedAt: receivedAt, limits: limits)
            try reader.read()
            return LineProtocolWrite(charts: reader.charts)
        }
    }
}

/// The state of one line-protocol parse.
struct LineProtocolReader {
    let p: UnsafeBufferPointer<UInt8>
    var i = 0
    var line = 1
    let precision: LineProtocolPrecision
    let receivedAt: Double
    let limits: IngestLimits

    var charts: [ChartPoints] = []
    /// Unescaped measurement → index in `charts`; per chart, series name → index in its batch.
    var chartTable = NameTable()
    var seriesTables: [NameTable] = []
    /// Raw `measurement,tags` prefix → its chart and series-name suffix (`{k=v,…}` or empty).
    var keyTable = NameTable()
    var keyChart: [Int32] = []
    var keySuffix: [[UInt8]] = []
    /// Prefix id (4 bytes) + unescaped field key → chart and series index.
    var fieldTable = NameTable()
    var fieldChart: [Int32] = []
    var fieldSeries: [Int32] = []
    /// Points stored so far, over all charts.
    var total = 0
    var scratch: [UInt8] = []
    /// The current line's fields (ids in `fieldTable`) and values.
    var lineFields: [Int32] = []
    var lineValues: [Double] = []

    init(_ p: UnsafeBufferPointer<UInt8>, precision: LineProtocolPrecision, receivedAt: Double, limits: IngestLimits) {
        self.p = p
        self.precision = precision
        self.receivedAt = receivedAt
        self.limits = limits
    }

    @inline(__always) func at(_ k: Int) -> UInt8 { k < p.count ? p[k] : 0 }

    func syntax(_ problem: String) -> IngestError { .badRequest(problem, line: line) }

    mutating func read() throws {
        while i < p.count {
            while i < p.count, p[i] == 0x20 || p[i] == 0x09 { i += 1 }
            switch at(i) {
            case 0:
                if i < p.count { throw syntax("unexpected byte 0x0") }
            case UInt8(ascii: "\n"):
                i += 1
                line += 1
            case UInt8(ascii: "\r") where at(i + 1) == UInt8(ascii: "\n"):
                i += 2
                line += 1
            case UInt8(ascii: "#"):
                while i < p.count, p[i] != UInt8(ascii: "\n") { i += 1 }
            default:
                try readLine()
            }
        }
    }

    /// One point line, from its first byte to just past its line break.
    private mutating func readLine() throws {
        let keyStart = i
        while i < p.count {
            let b = p[i]
            if b == 0x20 { break }
            if b == UInt8(ascii: "\n") || b == UInt8(ascii: "\r") { break }
            i += b == UInt8(ascii: "\\") && at(i + 1) != UInt8(ascii: "\n") && i + 1 < p.count ? 2 : 1
        }
        guard at(i) == 0x20 else { throw syntax("no fields (expected a space, then field=value)") }
        let keyId = try key(keyStart..<i)
        while at(i) == 0x20 { i += 1 }

        lineFields.removeAll(keepingCapacity: true)
        lineValues.removeAll(keepingCapacity: true)
        repeat {
            let field = try fieldKey(keyId)
            lineFields.append(field)
            lineValues.append(try fieldValue(field))
        } while try nextField()

        var x = receivedAt
        if at(i) == 0x20 {
            while at(i) == 0x20 { i += 1 }
            if at(i) == UInt8(ascii: "-") || at(i) &- UInt8(ascii: "0") < 10 {
                x = precision.epochMilliseconds(try timestamp())
            }
        }
        while at(i) == 0x20 || at(i) == 0x09 { i += 1 }
        switch at(i) {
        case UInt8(ascii: "\n"): i += 1
        case UInt8(ascii: "\r") where at(i + 1) == UInt8(ascii: "\n"): i += 2
        case _ where i >= p.count: break
        default: throw syntax("unexpected \(JSONByteScanner.describe(p[i])) where the line should end (after the timestamp)")
        }

        guard total + lineFields.count <= limits.maxPoints else {
            throw IngestError.tooLarge("more than \(IngestLimits.format(limits.maxPoints)) points", line: line)
        }
        total += lineFields.count
        let stored = Int32(line)
        for k in 0..<lineFields.count {
            let field = Int(lineFields[k])
            let chart = Int(fieldChart[field])
            charts[chart].points.append(PointBatch.Stored(
                x: x, y: lineValues[k], series: fieldSeries[field], line: stored, xLine: stored,
                index: -1, textStart: 0, textCount: -1))
        }
        line += 1
    }

    /// After a field value: consumes `,` (true: another field follows) or stays at the end of
    /// the field set (false).
    private mutating func nextField() throws -> Bool {
        switch at(i) {
        case UInt8(ascii: ","):
            i += 1
            return true
        case 0x20, 0x09, UInt8(ascii: "\n"):
            return false
        case UInt8(ascii: "\r") where at(i + 1) == UInt8(ascii: "\n"):
            return false
        case _ where i >= p.count:
            return false
        default:
            throw syntax("unexpected \(JSONByteScanner.describe(p[i])) after a field value")
        }
    }

    /// The timestamp at `i`: an optional `-` and digits, within Int64.
    private mutating func timestamp() throws -> Int64 {
        let start = i
        let negative = at(i) == UInt8(ascii: "-")
        if negative { i += 1 }
        var value: Int64 = 0
        var overflow = false
        let digitsStart = i
        while at(i) &- UInt8(ascii: "0") < 10 {
            let d = Int64(p[i] &- UInt8(ascii: "0"))
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = negative ? times10.subtractingReportingOverflow(d) : times10.addingReportingOverflow(d)
            overflow = overflow || o1 || o2
            value = next
            i += 1
        }
        guard i > digitsStart else { throw syntax("invalid timestamp (expected an integer)") }
        guard !overflow else {
            throw syntax("timestamp \(Quote.bytes(UnsafeBufferPointer(rebasing: p[start..<i]))) is out of range")
        }
        return value
    }
}
