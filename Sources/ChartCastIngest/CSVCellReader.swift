/// RFC 4180 cells, one at a time, from a CSV body's bytes.
///
/// Cells are separated by commas and records by CRLF or LF; a quoted cell may hold commas, line
/// breaks and doubled quotes (`""` is one `"`). Line breaks inside quoted cells count for line
/// numbers. Strictness where RFC 4180 is strict: a quote inside an unquoted cell, anything but a
/// separator after a closing quote, a carriage return not followed by a line feed and an
/// unclosed quote are `bad_request`, naming the line.
struct CSVCellReader {
    /// What ended a cell.
    enum End {
        /// A comma: another cell of the same record follows.
        case comma
        /// A line break: the record is complete.
        case record
        /// The end of the body: the record (if any) is complete.
        case body
    }

    let p: UnsafeBufferPointer<UInt8>
    /// Index of the next byte.
    var i = 0
    /// 1-based line of `p[i]`.
    var line = 1
    /// The content of the last quoted cell that had doubled quotes.
    var scratch: [UInt8] = []

    init(_ p: UnsafeBufferPointer<UInt8>) {
        self.p = p
        // A UTF-8 byte order mark, as spreadsheet exports write it, is not part of the header.
        if p.count >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF { i = 3 }
    }

    var atEnd: Bool { i >= p.count }

    /// Where a cell's content is: a range of the body, or `scratch`.
    struct Cell {
        var start: Int
        var end: Int
        var inScratch: Bool
        var isEmpty: Bool { !inScratch && start == end }
    }

    /// Reads the cell at `i` and what ends it.
    /// - Complexity: O(cell length).
    @inline(__always)
    mutating func readCell() throws -> (Cell, End) {
        if i < p.count && p[i] == UInt8(ascii: "\"") { return try readQuoted() }
        let start = i
        while i < p.count {
            let b = p[i]
            if b > UInt8(ascii: "\"") && b != UInt8(ascii: ",") { i += 1; continue }
            switch b {
            case UInt8(ascii: ","):
                i += 1
                return (Cell(start: start, end: i - 1, inScratch: false), .comma)
            case UInt8(ascii: "\n"):
                i += 1
                line += 1
                return (Cell(start: start, end: i - 1, inScratch: false), .record)
            case UInt8(ascii: "\r"):
                guard i + 1 < p.count, p[i + 1] == UInt8(ascii: "\n") else {
                    throw IngestError.badRequest("a carriage return not followed by a line feed", line: line)
                }
                i += 2
                line += 1
                return (Cell(start: start, end: i - 2, inScratch: false), .record)
            case UInt8(ascii: "\""):
                throw IngestError.badRequest("a quote inside an unquoted cell (quote the whole cell and double the quote)",
                                             line: line)
            default:
                i += 1
            }
        }
        return (Cell(start: start, end: i, inScratch: false), .body)
    }

    private mutating func readQuoted() throws -> (Cell, End) {
        let openLine = line
        i += 1
        let start = i
        var doubled = false
        while true {
            guard i < p.count else {
                throw IngestError.badRequest("a quoted cell is not closed", line: openLine)
            }
            let b = p[i]
            if b == UInt8(ascii: "\n") { line += 1 }
            if b != UInt8(ascii: "\"") {
                if doubled { scratch.append(b) }
                i += 1
                continue
            }
            if i + 1 < p.count && p[i + 1] == UInt8(ascii: "\"") {
                if !doubled {
                    doubled = true
                    scratch.removeAll(keepingCapacity: true)
                    scratch.append(contentsOf: UnsafeBufferPointer(rebasing: p[start..<i]))
                }
                scratch.append(UInt8(ascii: "\""))
                i += 2
                continue
            }
            break
        }
        let cell = Cell(start: start, end: i, inScratch: doubled)
        i += 1
        guard i < p.count else { return (cell, .body) }
        switch p[i] {
        case UInt8(ascii: ","):
            i += 1
            return (cell, .comma)
        case UInt8(ascii: "\n"):
            i += 1
            line += 1
            return (cell, .record)
        case UInt8(ascii: "\r") where i + 1 < p.count && p[i + 1] == UInt8(ascii: "\n"):
            i += 2
            line += 1
            return (cell, .record)
        default:
            throw IngestError.badRequest("unexpected \(JSONByteScanner.describe(p[i])) after a closing quote", line: line)
        }
    }

    /// Calls `body` with the cell's content bytes.
    @inline(__always)
    func withContent<R>(_ cell: Cell, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if cell.inScratch { return try scratch.withUnsafeBufferPointer(body) }
        return try body(UnsafeBufferPointer(rebasing: p[cell.start..<cell.end]))
    }

    /// The range of `content` without leading and trailing spaces and tabs.
    static func trimmed(_ content: UnsafeBufferPointer<UInt8>) -> Range<Int> {
        var lo = 0, hi = content.count
        while lo < hi, content[lo] == 0x20 || content[lo] == 0x09 { lo += 1 }
        while hi > lo, content[hi - 1] == 0x20 || content[hi - 1] == 0x09 { hi -= 1 }
        return lo..<hi
    }
}
