/// The columns shape while it is read: `x` and the series may come in either order, so values
/// wait here until both are known, then become points position by position.
struct Columns {
    /// x per position: the number (NaN for a string) and its text (count -1 for a number).
    var xs: [Double] = []
    var xTexts: [(start: Int32, count: Int32)] = []
    var xLines: [Int32] = []
    /// Whether `x` has been read (so its length is known).
    var xKnown = false

    /// Non-missing series values in document order: batch series, position, value, line.
    var cellSeries: [Int32] = []
    var cellPositions: [Int32] = []
    var cellValues: [Double] = []
    var cellLines: [Int32] = []
    var cellCount: Int { cellValues.count }

    /// Series read before `x`: name, length and the line of its closing bracket, to check
    /// against `x` once it is known.
    var pendingLengths: [(name: String, length: Int, line: Int)] = []
    /// Series ids whose column has been read (repeats are errors).
    var seen: [Bool] = []
}

extension JSONPointsReader {
    /// The `x` member: an array of numbers and strings.
    mutating func readXColumn() throws {
        guard scanner.peek() == UInt8(ascii: "[") else {
            let line = scanner.line
            let kind = try scanner.skipWrongValue(depth: 1)
            throw IngestError.badRequest("\"x\" must be an array, got \(kind)", line: line)
        }
        if try scanner.open(UInt8(ascii: "]"), depth: 2) {
            var k = 0
            repeat {
                let line = scanner.line
                guard k < limits.maxColumnLength else {
                    throw IngestError.tooLarge("\"x\" has more than \(IngestLimits.format(limits.maxColumnLength)) values", line: line)
                }
                let (x, text) = try xValue(field: "x[\(k)]", index: k, depth: 2)
                columns.xs.append(x)
                columns.xTexts.append(text)
                columns.xLines.append(Int32(line))
                k += 1
            } while try scanner.next(UInt8(ascii: "]"))
        }
        columns.xKnown = true
        let count = columns.xs.count
        for pending in columns.pendingLengths where pending.length != count {
            throw mismatch(pending.name, pending.length, count, line: pending.line)
        }
    }

    /// The `series` member: an object of arrays of numbers and nulls.
    mutating func readSeriesColumns() throws {
        guard scanner.peek() == UInt8(ascii: "{") else {
            let line = scanner.line
            let kind = try scanner.skipWrongValue(depth: 1)
            throw IngestError.badRequest("\"series\" must be an object, got \(kind)", line: line)
        }
        guard try scanner.open(UInt8(ascii: "}"), depth: 2) else { return }
        repeat {
            try readSeriesColumn()
        } while try scanner.next(UInt8(ascii: "}"))
    }

    /// One member of `series`.
    private mutating func readSeriesColumn() throws {
        let nameLine = scanner.line
        guard scanner.peek() == UInt8(ascii: "\"") else { throw scanner.unexpected("a member name") }
        let id = try seriesName(field: "a series name", index: nil)
        let name = seriesTable.string(id)
        try scanner.expect(UInt8(ascii: ":"), "':'")
        scanner.skipSpace()
        guard !seenColumn(id) else {
            throw IngestError.badRequest("series \(Quote.string(name)) appears twice", line: nameLine)
        }
        markColumn(id)
        guard scanner.peek() == UInt8(ascii: "[") else {
            let line = scanner.line
            let kind = try scanner.skipWrongValue(depth: 2)
            throw IngestError.badRequest("series \(Quote.string(name)) must be an array, got \(kind)", line: line)
        }
        var k = 0
        if try scanner.open(UInt8(ascii: "]"), depth: 3) {
            repeat {
                let line = scanner.line
                if !columns.xKnown && k >= limits.maxColumnLength {
                    throw IngestError.tooLarge(
                        "series \(Quote.string(name)) has more than \(IngestLimits.format(limits.maxColumnLength)) values",
                        line: line)
                }
                let y = try yValue(field: "series \(Quote.string(name))[\(k)]", index: k, depth: 3)
                // Past the end of a known x: checked, not stored; the length error comes at ']'.
                if !y.isNaN && (!columns.xKnown || k < columns.xs.count) {
                    try checkPointLimit(line: line)
                    columns.cellSeries.append(storedSeries(id))
                    columns.cellPositions.append(Int32(truncatingIfNeeded: k))
                    columns.cellValues.append(y)
                    columns.cellLines.append(Int32(line))
                }
                k += 1
            } while try scanner.next(UInt8(ascii: "]"))
        }
        let closeLine = scanner.line
        if columns.xKnown {
            if k != columns.xs.count { throw mismatch(name, k, columns.xs.count, line: closeLine) }
        } else {
            columns.pendingLengths.append((name, k, closeLine))
        }
    }

    private func mismatch(_ name: String, _ length: Int, _ xLength: Int, line: Int) -> IngestError {
        .badRequest("series \(Quote.string(name)) has \(length) value\(length == 1 ? "" : "s") but \"x\" has \(xLength)",
                    line: line)
    }

    /// Columns already read, by series id (a series with only nulls stays -1 in `batchSeries`,
    /// so repeats are tracked here).
    private func seenColumn(_ id: Int) -> Bool { id < columns.seen.count && columns.seen[id] }

    private mutating func markColumn(_ id: Int) {
        while columns.seen.count <= id { columns.seen.append(false) }
        columns.seen[id] = true
    }

    /// Turns the stored values into points, position by position (series in document order
    /// within a position), so that the points follow `x`.
    /// - Complexity: O(positions + values), a counting sort.
    mutating func emitColumns() throws {
        batch.source = .jsonColumns
        let positions = columns.xs.count
        var starts = [Int32](repeating: 0, count: positions + 1)
        for k in columns.cellPositions { starts[Int(k) + 1] += 1 }
        for k in 0..<positions { starts[k + 1] += starts[k] }
        var order = [Int32](repeating: 0, count: columns.cellCount)
        var next = starts
        for c in 0..<columns.cellCount {
            let k = Int(columns.cellPositions[c])
            order[Int(next[k])] = Int32(truncatingIfNeeded: c)
            next[k] += 1
        }
        batch.reserve(columns.cellCount)
        for c in order {
            let c = Int(c)
            let k = Int(columns.cellPositions[c])
            let text = columns.xTexts[k]
            batch.append(PointBatch.Stored(
                x: columns.xs[k], y: columns.cellValues[c], series: columns.cellSeries[c],
                line: columns.cellLines[c], xLine: columns.xLines[k], index: Int32(truncatingIfNeeded: k),
                textStart: text.start, textCount: text.count))
        }
    }
}
