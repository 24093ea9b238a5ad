import ChartCastProtocol
import ChartEngine

/// Writes the bodies `JSONPointsParser` reads, for clients (the load tester's publishers, tests):
/// the data API's write formats are written and read in this one module.
public enum PointsBody {
    /// `{"points":[{"series":…,"x":…,"y":…},…]}` (rows); a nil `y` is written as `null`.
    public static func rows(_ points: [(series: String, x: XValue, y: Double?)]) -> [UInt8] {
        var w = JSONWriter(capacity: 48 * points.count + 16)
        w.beginObject()
        w.key("points"); w.beginArray()
        for point in points {
            w.beginObject()
            w.key("series"); w.string(point.series)
            w.key("x")
            switch point.x {
            case .number(let x): w.number(x)
            case .category(let name): w.string(name)
            }
            w.key("y"); w.number(point.y)
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.bytes
    }

    /// `{"x":[…],"series":{"name":[…],…}}` (columns): every column as long as `x`; a nil value is
    /// `null` (missing).
    /// - Complexity: O(x · series).
    public static func columns(x: [Double], series: [(name: String, values: [Double?])]) -> [UInt8] {
        var w = JSONWriter(capacity: 16 * x.count * (series.count + 1) + 64)
        w.beginObject()
        w.key("x"); w.beginArray(); for value in x { w.number(value) }; w.endArray()
        w.key("series"); w.beginObject()
        for column in series {
            w.key(column.name); w.beginArray(); for value in column.values { w.number(value) }; w.endArray()
        }
        w.endObject()
        w.endObject()
        return w.bytes
    }
}
