/// Points read off a scanned `append` or `snapshot` without scanning the rest of it: the server
/// writes an append's `points` right after its envelope, and a snapshot's `series` last, each
/// series' `name` before its `points`. For clients that time big messages by one marker point
/// (the load tester's ingest latency) and must not read every point of every message.
extension ServerMessageHeader {
    /// The `y` of an append's first point, read from the first element of its `points` alone.
    /// - Complexity: O(size of that point).
    public var firstAppendedY: Double? {
        guard kind == .append, !fields.complete, let (key, start) = nextMember(at: fields.scannedTo),
              fields.equals(key, "points"), start < bytes.count, bytes[start] == UInt8(ascii: "[") else { return nil }
        let first = JSONMemberScanner.skipSpace(bytes, start + 1, bytes.count)
        guard let point = JSONMemberScanner(bytes, range: first..<bytes.count, maxMembers: 3),
              let y = point.value("y") else { return nil }
        return Self.number(bytes, y)
    }

    /// The points of a snapshot's first series when it is named `name`; nil when it is another
    /// series (the others are not looked at) or the message is not a scanned snapshot.
    /// - Complexity: O(size of the first series, plus the snapshot's `view`).
    public func leadingSeriesPoints(named name: String) -> [DataPoint]? {
        guard kind == .snapshot, !fields.complete else { return nil }
        var at = fields.scannedTo
        while let (key, start) = nextMember(at: at) {
            if fields.equals(key, "series") {
                guard start < bytes.count, bytes[start] == UInt8(ascii: "[") else { return nil }
                let first = JSONMemberScanner.skipSpace(bytes, start + 1, bytes.count)
                guard let series = JSONMemberScanner(bytes, range: first..<bytes.count, maxMembers: 2),
                      let nameRange = series.stringContent("name"), bytes[nameRange].elementsEqual(name.utf8),
                      let points = series.value("points"),
                      let value = try? JSONReader.parse(Array(bytes[points])), case .array(let pairs) = value else { return nil }
                return pairs.compactMap { pair in
                    guard case .array(let xy) = pair, xy.count == 2, case .number(let x) = xy[0], case .number(let y) = xy[1] else { return nil }
                    return DataPoint(x: .number(x), y: y)
                }
            }
            // Another member before the series (the view): skip its value.
            guard let end = JSONMemberScanner.endOfValue(bytes, start, bytes.count) else { return nil }
            at = end
        }
        return nil
    }

    /// The key and the value's start of the member after the one ending at `index`.
    private func nextMember(at index: Int) -> (key: Range<Int>, valueStart: Int)? {
        var i = JSONMemberScanner.skipSpace(bytes, index, bytes.count)
        guard i < bytes.count, bytes[i] == UInt8(ascii: ",") else { return nil }
        i = JSONMemberScanner.skipSpace(bytes, i + 1, bytes.count)
        guard i < bytes.count, bytes[i] == UInt8(ascii: "\""), let keyEnd = JSONMemberScanner.endOfString(bytes, i, bytes.count) else { return nil }
        var j = JSONMemberScanner.skipSpace(bytes, keyEnd, bytes.count)
        guard j < bytes.count, bytes[j] == UInt8(ascii: ":") else { return nil }
        j = JSONMemberScanner.skipSpace(bytes, j + 1, bytes.count)
        return ((i + 1)..<(keyEnd - 1), j)
    }

    /// A JSON number literal at `range`.
    private static func number(_ bytes: [UInt8], _ range: Range<Int>) -> Double? {
        Double(String(decoding: bytes[range], as: UTF8.self))
    }
}
