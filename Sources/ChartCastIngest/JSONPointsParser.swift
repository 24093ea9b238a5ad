/// Parses `application/json` point bodies in one pass over the bytes, without a document tree.
///
/// Two shapes:
/// - rows: `{"points":[{"series":"user","x":1733011200000,"y":12.5},…]}`;
/// - columns: `{"x":[…],"series":{"user":[…],"system":[…]}}`, every series as long as `x`.
///
/// `x` is a number or a string (an RFC 3339 time or a category name: the chart decides, in
/// `PointBatch.validate`); `y` is a finite number or `null` (missing: skipped, not counted).
/// Other members, at any level, are checked and ignored. A member the parser reads (`points`,
/// `x`, `series`, `y`) may appear only once per object.
///
/// Errors, with the line of the offending character:
/// - `bad_request`: not strict JSON (RFC 8259, nesting at most `maxDepth`, well-formed UTF-8),
///   or not one of the shapes: not an object, neither `points` nor `x`/`series`, both, a member of
///   the wrong type (`"points":{}`), a repeated member, columns of unequal length (naming the
///   series and both lengths);
/// - `bad_point` with `index`: one point or column element is wrong (`points[2].y is not finite`,
///   `series "user"[3] must be a number or null, got a string`, no `x`, an empty series name);
/// - `too_large`: more than `maxPoints` points, or a column longer than `maxColumnLength`.
public enum JSONPointsParser {
    /// Parses a rows or columns body.
    /// - Complexity: O(n) in the body size; one fixed-size record per point.
    public static func parse(_ body: [UInt8], limits: IngestLimits = .standard) throws -> PointBatch {
        guard body.count <= maxParsableBytes else { throw IngestError.tooLarge("the body is too large to parse") }
        return try body.withUnsafeBufferPointer { p in
            var reader = JSONPointsReader(p, limits: limits)
            return try reader.read()
        }
    }
}

/// The state of one JSON points parse.
struct JSONPointsReader {
    var scanner: JSONByteScanner
    let limits: IngestLimits
    var batch = PointBatch(source: .jsonRows)
    /// Series names seen so far (ids in `seriesTable`) → index in `batch.series`, -1 until the
    /// series has a stored point.
    var seriesTable = NameTable()
    var batchSeries: [Int32] = []
    /// Columns shape, filled by `JSONPointsReader+Columns`.
    var columns = Columns()

    init(_ p: UnsafeBufferPointer<UInt8>, limits: IngestLimits) {
        scanner = JSONByteScanner(p, maxDepth: limits.maxDepth)
        self.limits = limits
    }

    mutating func read() throws -> PointBatch {
        scanner.skipSpace()
        guard scanner.peek() == UInt8(ascii: "{") else {
            if scanner.atEnd { throw scanner.syntax("the body is empty (expected a JSON object)") }
            throw scanner.syntax("the body must be a JSON object with \"points\" or \"x\" and \"series\"")
        }
        var sawPoints = false, sawX = false, sawSeries = false
        if try scanner.open(UInt8(ascii: "}"), depth: 1) {
            repeat {
                let name = try scanner.memberName()
                if scanner.equals(name, "points") {
                    try checkShape(repeated: sawPoints, mixed: sawX || sawSeries, "points")
                    sawPoints = true
                    try readRows()
                } else if scanner.equals(name, "x") {
                    try checkShape(repeated: sawX, mixed: sawPoints, "x")
                    sawX = true
                    try readXColumn()
                } else if scanner.equals(name, "series") {
                    try checkShape(repeated: sawSeries, mixed: sawPoints, "series")
                    sawSeries = true
                    try readSeriesColumns()
                } else {
                    try scanner.skipValue(depth: 1)
                }
            } while try scanner.next(UInt8(ascii: "}"))
        }
        let closingLine = scanner.line
        scanner.skipSpace()
        guard scanner.atEnd else { throw scanner.syntax("unexpected data after the JSON object") }
        if sawPoints { return batch }
        guard sawX || sawSeries else {
            throw IngestError.badRequest("expected \"points\" or \"x\" and \"series\"", line: closingLine)
        }
        guard sawX else { throw IngestError.badRequest("\"series\" without \"x\"", line: closingLine) }
        guard sawSeries else { throw IngestError.badRequest("\"x\" without \"series\"", line: closingLine) }
        try emitColumns()
        return batch
    }

    private func checkShape(repeated: Bool, mixed: Bool, _ name: String) throws {
        if repeated { throw scanner.syntax("\"\(name)\" appears twice") }
        if mixed { throw scanner.syntax("a body has either \"points\" or \"x\" and \"series\", not both") }
    }

    // MARK: Rows

    private mutating func readRows() throws {
        guard scanner.peek() == UInt8(ascii: "[") else {
            let line = scanner.line
            let kind = try scanner.skipWrongValue(depth: 1)
            throw IngestError.badRequest("\"points\" must be an array, got \(kind)", line: line)
        }
        guard try scanner.open(UInt8(ascii: "]"), depth: 2) else { return }
        var index = 0
        repeat {
            try readPoint(index)
            index += 1
        } while try scanner.next(UInt8(ascii: "]"))
    }

    /// One element of `points`.
    private mutating func readPoint(_ index: Int) throws {
        let startLine = scanner.line
        guard scanner.peek() == UInt8(ascii: "{") else {
            let kind = try scanner.skipWrongValue(depth: 2)
            throw IngestError.badPoint("points[\(index)] must be an object, got \(kind)", line: startLine, index: index)
        }
        var series = -1
        var hasX = false, hasY = false
        var x = Double.nan, y = Double.nan
        var text: (start: Int32, count: Int32) = (0, -1)
        var xLine = startLine, yLine = startLine
        let textMark = Int32(truncatingIfNeeded: batch.text.count)
        if try scanner.open(UInt8(ascii: "}"), depth: 3) {
            repeat {
                let name = try scanner.memberName()
                let line = scanner.line
                if scanner.equals(name, "series") {
                    guard series < 0 else { throw repeated("series", index) }
                    series = try seriesName(field: "points[\(index)].series", index: index)
                } else if scanner.equals(name, "x") {
                    guard !hasX else { throw repeated("x", index) }
                    hasX = true
                    xLine = line
                    (x, text) = try xValue(field: "points[\(index)].x", index: index, depth: 3)
                } else if scanner.equals(name, "y") {
                    guard !hasY else { throw repeated("y", index) }
                    hasY = true
                    yLine = line
                    y = try yValue(field: "points[\(index)].y", index: index, depth: 3)
                } else {
                    try scanner.skipValue(depth: 3)
                }
            } while try scanner.next(UInt8(ascii: "}"))
        }
        let line = scanner.line
        guard series >= 0 else { throw IngestError.badPoint("points[\(index)] has no \"series\"", line: line, index: index) }
        guard hasX else { throw IngestError.badPoint("points[\(index)] has no \"x\"", line: line, index: index) }
        guard hasY else {
            throw IngestError.badPoint("points[\(index)] has no \"y\" (null marks a missing value)", line: line, index: index)
        }
        if y.isNaN {
            if text.count >= 0 { batch.truncateText(to: textMark) }
            return
        }
        try checkPointLimit(line: yLine)
        batch.append(PointBatch.Stored(
            x: x, y: y, series: storedSeries(series), line: Int32(yLine), xLine: Int32(xLine),
            index: Int32(truncatingIfNeeded: index), textStart: text.start, textCount: text.count))
    }

    private func repeated(_ member: String, _ index: Int) -> IngestError {
        scanner.syntax("points[\(index)] has \"\(member)\" twice")
    }

    // MARK: Values shared by both shapes

    /// At a series name string: checks it and returns its id in `seriesTable`.
    mutating func seriesName(field: @autoclosure () -> String, index: Int?) throws -> Int {
        let line = scanner.line
        guard scanner.peek() == UInt8(ascii: "\"") else {
            let kind = try scanner.skipWrongValue(depth: 3)
            throw IngestError.badPoint("\(field()) must be a string, got \(kind)", line: line, index: index)
        }
        let span = try scanner.scanString()
        let maxBytes = limits.maxSeriesNameBytes
        return try scanner.withContent(span) { content in
            guard !content.isEmpty else { throw IngestError.badPoint("\(field()) is empty", line: line, index: index) }
            guard content.count <= maxBytes else {
                throw IngestError.badPoint("\(field()) is longer than \(maxBytes) bytes", line: line, index: index)
            }
            let (id, isNew) = seriesTable.intern(content)
            if isNew { batchSeries.append(-1) }
            return id
        }
    }

    /// The batch series index of series `id`, adding it to the batch on its first point.
    @inline(__always)
    mutating func storedSeries(_ id: Int) -> Int32 {
        let known = batchSeries[id]
        if known >= 0 { return known }
        let added = batch.addSeries(seriesTable.string(id))
        batchSeries[id] = added
        return added
    }

    /// At an x: a finite number (text count -1) or a string copied into the text arena (x NaN).
    mutating func xValue(field: @autoclosure () -> String, index: Int, depth: Int) throws -> (Double, (start: Int32, count: Int32)) {
        let line = scanner.line
        let b = scanner.peek()
        if b == UInt8(ascii: "\"") {
            let span = try scanner.scanString()
            let text = scanner.withContent(span) { batch.appendText($0) }
            return (.nan, text)
        }
        if b == UInt8(ascii: "-") || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) {
            if let word = scanner.nonFiniteWord() { throw notFinite(field(), word, line, index) }
            let value = try scanner.scanNumber()
            guard value.isFinite else { throw notFinite(field(), "too large for a double", line, index) }
            return (value, (0, -1))
        }
        if let word = scanner.nonFiniteWord() { throw notFinite(field(), word, line, index) }
        let kind = try scanner.skipWrongValue(depth: depth)
        throw IngestError.badPoint("\(field()) must be a number or a string, got \(kind)", line: line, index: index)
    }

    /// At a y: a finite number, or NaN for `null` (missing).
    @inline(__always)
    mutating func yValue(field: @autoclosure () -> String, index: Int, depth: Int) throws -> Double {
        let line = scanner.line
        let b = scanner.peek()
        if b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") || b == UInt8(ascii: "-") && scanner.nonFiniteWord() == nil {
            let value = try scanner.scanNumber()
            guard value.isFinite else { throw notFinite(field(), "too large for a double", line, index) }
            return value
        }
        if b == UInt8(ascii: "n") {
            try scanner.scanLiteral("null")
            return .nan
        }
        if let word = scanner.nonFiniteWord() { throw notFinite(field(), word, line, index) }
        let kind = try scanner.skipWrongValue(depth: depth)
        throw IngestError.badPoint("\(field()) must be a number or null, got \(kind)", line: line, index: index)
    }

    private func notFinite(_ field: String, _ what: String, _ line: Int, _ index: Int) -> IngestError {
        .badPoint("\(field) is not finite (\(what))", line: line, index: index)
    }

    /// Throws `too_large` when one more point would pass `maxPoints`.
    @inline(__always)
    func checkPointLimit(line: Int) throws {
        if batch.count + columns.cellCount >= limits.maxPoints {
            throw IngestError.tooLarge("more than \(IngestLimits.format(limits.maxPoints)) points", line: line)
        }
    }
}
