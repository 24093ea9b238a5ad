/// Parses `text/csv` point bodies: a header row `x,<series>…`, then one row per x.
///
/// The first column is x whatever its header says; every other header cell names a series
/// (non-empty, unique, well-formed UTF-8, at most `maxSeriesNameBytes`). In a row, the x cell is
/// kept as text (a number, an RFC 3339 time or a category name: the chart decides); a series
/// cell is a number, or empty (or only spaces) for a missing value. Numbers may carry spaces
/// around them, a sign, a leading or trailing dot and an exponent. Empty lines are skipped; a
/// UTF-8 byte order mark before the header is ignored.
///
/// Errors, with the line where the problem is (the header is line 1):
/// - `bad_request`: a header problem, a row with more or fewer cells than the header, an RFC 4180
///   violation (see `CSVCellReader`), an x that is not well-formed UTF-8;
/// - `bad_point` with `index` (the 0-based data row): an empty x, a series cell that is not a
///   number (`column "user" is not a number ("abc")`) or not finite (`NaN`, `inf`, `1e999`);
/// - `too_large`: more than `maxPoints` points.
public enum CSVPointsParser {
    /// Parses a CSV body.
    /// - Complexity: O(n) in the body size; one fixed-size record per point.
    public static func parse(_ body: [UInt8], limits: IngestLimits = .standard) throws -> PointBatch {
        guard body.count <= maxParsableBytes else { throw IngestError.tooLarge("the body is too large to parse") }
        return try body.withUnsafeBufferPointer { p in
            var reader = CSVReader(cells: CSVCellReader(p), limits: limits)
            return try reader.read()
        }
    }
}

/// The state of one CSV parse.
private struct CSVReader {
    var cells: CSVCellReader
    let limits: IngestLimits
    var batch = PointBatch(source: .csv)
    /// Header names of the series columns (column 1 onwards).
    var names: [String] = []
    /// Column → index in `batch.series`, -1 until the column has a value.
    var columnSeries: [Int32] = []

    init(cells: CSVCellReader, limits: IngestLimits) {
        self.cells = cells
        self.limits = limits
    }

    mutating func read() throws -> PointBatch {
        try readHeader()
        var row = 0
        while !cells.atEnd {
            if try skipEmptyLine() { continue }
            try readRow(row)
            row += 1
        }
        return batch
    }

    /// Skips a line with nothing on it; false when a record starts here.
    private mutating func skipEmptyLine() throws -> Bool {
        let p = cells.p, i = cells.i
        if p[i] == UInt8(ascii: "\n") { cells.i += 1; cells.line += 1; return true }
        if p[i] == UInt8(ascii: "\r"), i + 1 < p.count, p[i + 1] == UInt8(ascii: "\n") {
            cells.i += 2; cells.line += 1; return true
        }
        return false
    }

    private mutating func readHeader() throws {
        while !cells.atEnd, try skipEmptyLine() {}
        guard !cells.atEnd else {
            throw IngestError.badRequest("the body is empty (expected a header row x,<series>…)", line: cells.line)
        }
        let headerLine = cells.line
        var seen = NameTable()
        var column = 0
        var end = CSVCellReader.End.comma
        while end == .comma {
            let line = cells.line
            let (cell, cellEnd) = try cells.readCell()
            end = cellEnd
            defer { column += 1 }
            if column == 0 { continue }
            let maxBytes = limits.maxSeriesNameBytes
            let name: String = try cells.withContent(cell) { content in
                guard !content.isEmpty else {
                    throw IngestError.badRequest("header cell \(column + 1) is empty (every series needs a name)", line: line)
                }
                guard UTF8Validation.isValid(content) else {
                    throw IngestError.badRequest("header cell \(column + 1) is not valid UTF-8", line: line)
                }
                guard content.count <= maxBytes else {
                    throw IngestError.badRequest("header cell \(column + 1) is longer than \(maxBytes) bytes", line: line)
                }
                guard seen.intern(content).isNew else {
                    throw IngestError.badRequest("series \(Quote.bytes(content)) appears twice in the header", line: line)
                }
                return String(decoding: content, as: UTF8.self)
            }
            names.append(name)
            columnSeries.append(-1)
        }
        guard !names.isEmpty else {
            throw IngestError.badRequest("the header names no series (expected x,<series>…)", line: headerLine)
        }
    }

    private mutating func readRow(_ row: Int) throws {
        let rowLine = cells.line
        let (xCell, xEnd) = try cells.readCell()
        let xLine = Int32(rowLine)
        var x = Double.nan
        let text: (start: Int32, count: Int32) = try cells.withContent(xCell) { content in
            let trimmed = CSVCellReader.trimmed(content)
            guard !trimmed.isEmpty else { throw IngestError.badPoint("x is empty", line: rowLine, index: row) }
            guard UTF8Validation.isValid(content) else { throw IngestError.badRequest("x is not valid UTF-8", line: rowLine) }
            x = DecimalScanner.parseExactly(content, trimmed) ?? .nan
            if !x.isFinite { x = .nan }
            return batch.appendText(content)
        }
        var stored = 0
        var end = xEnd
        var column = 0
        while end == .comma {
            let line = cells.line
            guard column < names.count else {
                throw IngestError.badRequest("row has more cells than the header's \(names.count + 1)", line: rowLine)
            }
            let (cell, cellEnd) = try cells.readCell()
            end = cellEnd
            let y: Double = try cells.withContent(cell) { content in
                let trimmed = CSVCellReader.trimmed(content)
                if trimmed.isEmpty { return .nan }
                if let value = DecimalScanner.parseExactly(content, trimmed) {
                    guard value.isFinite else { throw notFinite(column, content, trimmed, line, row) }
                    return value
                }
                if DecimalScanner.isNonFiniteWord(content, trimmed) { throw notFinite(column, content, trimmed, line, row) }
                throw IngestError.badPoint("column \(Quote.string(names[column])) is not a number (\(Quote.bytes(content[trimmed])))",
                                           line: line, index: row)
            }
            if !y.isNaN {
                guard batch.count < limits.maxPoints else {
                    throw IngestError.tooLarge("more than \(IngestLimits.format(limits.maxPoints)) points", line: line)
                }
                batch.append(PointBatch.Stored(
                    x: x, y: y, series: series(column), line: Int32(line), xLine: xLine,
                    index: Int32(truncatingIfNeeded: row), textStart: text.start, textCount: text.count))
                stored += 1
            }
            column += 1
        }
        guard column == names.count else {
            throw IngestError.badRequest("row has \(column + 1) cell\(column == 0 ? "" : "s"), the header has \(names.count + 1)",
                                         line: rowLine)
        }
        if stored == 0 { batch.truncateText(to: text.start) }
    }

    private func notFinite(_ column: Int, _ content: UnsafeBufferPointer<UInt8>, _ trimmed: Range<Int>,
                           _ line: Int, _ row: Int) -> IngestError {
        .badPoint("column \(Quote.string(names[column])) is not finite (\(Quote.bytes(content[trimmed])))", line: line, index: row)
    }

    @inline(__always)
    private mutating func series(_ column: Int) -> Int32 {
        let known = columnSeries[column]
        if known >= 0 { return known }
        let added = batch.addSeries(names[column])
        columnSeries[column] = added
        return added
    }
}
