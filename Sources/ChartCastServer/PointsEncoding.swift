import ChartCastProtocol
import ChartEngine

/// The bodies of `GET /api/charts/{id}/points`: JSON like a write's rows, or CSV.
enum PointsEncoding {
    /// `{"series":[{"name":…,"points":[[x,y]…]}]}`; x is epoch ms (time), the number (linear)
    /// or the category name.
    /// - Complexity: O(points).
    static func json(_ columns: [PointsColumn], spec: ChartSpec) -> APIResponse {
        var w = JSONWriter(capacity: 64 + columns.reduce(0) { $0 + $1.xs.count * 24 })
        w.beginObject()
        w.key("series")
        w.beginArray()
        for column in columns {
            w.beginObject()
            w.key("name")
            w.string(column.name)
            w.key("points")
            w.beginArray()
            for (x, y) in zip(column.xs, column.ys) {
                w.beginArray()
                if let category = category(x, spec) { w.string(category) } else { w.number(x) }
                w.number(y)
                w.endArray()
            }
            w.endArray()
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return .json(w.bytes)
    }

    /// RFC 4180: the header `x,<series>…`, then one record per distinct x in ascending order
    /// (category charts: in category order) with each series' value or an empty field; CRLF
    /// line ends; fields with a comma, a quote or a line break quoted, quotes doubled. Numbers
    /// as in JSON, so the CSV is a valid write body for the same chart.
    /// - Complexity: O(points · log series) to merge the series' x.
    static func csv(_ columns: [PointsColumn], spec: ChartSpec) -> APIResponse {
        var out: [UInt8] = []
        out.reserveCapacity(32 + columns.reduce(0) { $0 + $1.xs.count * 16 })
        field("x", into: &out)
        for column in columns {
            out.append(UInt8(ascii: ","))
            field(column.name, into: &out)
        }
        out += [13, 10]
        var next = [Int](repeating: 0, count: columns.count)
        while true {
            // The smallest x not written yet, over every series.
            var x = Double.infinity
            for (c, column) in columns.enumerated() where next[c] < column.xs.count { x = Swift.min(x, column.xs[next[c]]) }
            guard x < .infinity else { break }
            if let category = category(x, spec) { field(category, into: &out) } else { out += JSONWriter.format(x).utf8 }
            for (c, column) in columns.enumerated() {
                out.append(UInt8(ascii: ","))
                if next[c] < column.xs.count, column.xs[next[c]] == x {
                    out += JSONWriter.format(column.ys[next[c]]).utf8
                    next[c] += 1
                }
            }
            out += [13, 10]
        }
        var response = APIResponse(status: 200, contentType: "text/csv; charset=utf-8; header=present", body: out)
        response.headers.append(APIResponse.Header(name: "content-disposition",
                                                   value: "inline; filename=\"\(spec.id)-points.csv\""))
        return response
    }

    /// The category name of `x` on a category chart; nil on time and linear charts.
    private static func category(_ x: Double, _ spec: ChartSpec) -> String? {
        guard spec.xKind == .category, let i = Int(exactly: x), spec.categories.indices.contains(i) else { return nil }
        return spec.categories[i]
    }

    /// One field, quoted when RFC 4180 needs it.
    private static func field(_ text: String, into out: inout [UInt8]) {
        let needsQuotes = text.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 10 || $0 == 13 }
        guard needsQuotes else {
            out += text.utf8
            return
        }
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            out.append(byte)
            if byte == UInt8(ascii: "\"") { out.append(byte) }
        }
        out.append(UInt8(ascii: "\""))
    }
}
