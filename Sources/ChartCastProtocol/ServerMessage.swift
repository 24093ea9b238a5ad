import ChartEngine

/// A connected viewer as listed in `welcome` and `viewers`.
public struct ViewerInfo: Equatable, Sendable {
    public var id: String
    public var name: String
    public var color: String
    public init(id: String, name: String, color: String) {
        self.id = id
        self.name = name
        self.color = color
    }
}

/// One point of an `append` message.
public struct AppendPoint: Equatable, Sendable {
    public var series: String
    public var x: XValue
    public var y: Double
    public init(series: String, x: XValue, y: Double) {
        self.series = series
        self.x = x
        self.y = y
    }
}

/// Encoders for every server → client message of protocol v1.
///
/// Each returns the finished bytes of one text frame; the server encodes a broadcast once and
/// writes the same bytes to every recipient.
public enum ServerMessage {
    public static let protocolVersion = 1

    /// A chart's static description (`ChartSpec` in the protocol), as embedded in `welcome`
    /// and served by `GET /api/charts`.
    public static func chartSpec(_ spec: ChartSpec) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("id"); w.string(spec.id)
        w.key("title"); w.string(spec.title)
        w.key("mark"); w.string(spec.mark.rawValue)
        w.key("x"); w.beginObject()
        w.key("kind"); w.string(spec.xKind.rawValue)
        w.key("label"); w.string(spec.xLabel)
        w.endObject()
        w.key("y"); w.beginObject(); w.key("label"); w.string(spec.yLabel); w.endObject()
        w.key("series"); w.beginArray(); for name in spec.series { w.string(name) }; w.endArray()
        w.key("interactions"); w.beginObject()
        w.key("hover"); w.bool(spec.interactions.hover)
        w.key("drag"); w.string(spec.interactions.drag.rawValue)
        w.key("tap"); w.bool(spec.interactions.tap)
        w.endObject()
        if let window = spec.window { w.key("window"); w.number(window) }
        w.endObject()
        return w.bytes
    }

    /// `GET /api/charts`: `{"charts":[<ChartSpec>…]}`.
    public static func chartList(_ specs: [ChartSpec]) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("charts"); w.beginArray(); for spec in specs { w.raw(chartSpec(spec)) }; w.endArray()
        w.endObject()
        return w.bytes
    }

    /// The first message on every connection.
    public static func welcome(viewer: ViewerInfo, chartSpecs: [[UInt8]]) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("type"); w.string("welcome")
        w.key("protocol"); w.number(protocolVersion)
        w.key("viewer"); w.string(viewer.id)
        w.key("name"); w.string(viewer.name)
        w.key("color"); w.string(viewer.color)
        w.key("charts"); w.beginArray(); for spec in chartSpecs { w.raw(spec) }; w.endArray()
        w.endObject()
        return w.bytes
    }

    /// The whole state of one chart: domains, every point of every series, and the selection.
    /// - Complexity: O(points).
    public static func snapshot(store: ChartStore, seq: Int, xDomain: XDomain, yDomain: (Double, Double), selection: Selection) -> [UInt8] {
        var w = JSONWriter(capacity: 64 + store.count * store.spec.series.count * 24)
        w.beginObject()
        w.key("type"); w.string("snapshot")
        w.key("chart"); w.string(store.spec.id)
        w.key("seq"); w.number(seq)
        w.key("x"); writeXDomain(xDomain, kind: store.spec.xKind, into: &w)
        w.key("y"); writeYDomain(yDomain, into: &w)
        w.key("series"); w.beginArray()
        for (seriesIndex, name) in store.spec.series.enumerated() {
            w.beginObject()
            w.key("name"); w.string(name)
            w.key("points"); w.beginArray()
            for index in 0..<store.count {
                guard let y = store.y(series: seriesIndex, at: index) else { continue }
                w.beginArray(); writeX(store.x(at: index), into: &w); w.number(y); w.endArray()
            }
            w.endArray()
            w.endObject()
        }
        w.endArray()
        w.key("selection"); writeSelectionBody(selection, into: &w)
        w.endObject()
        return w.bytes
    }

    /// New or changed points, what left the window, and the domains when they changed.
    public static func append(chart: String, kind: XKind, seq: Int, points: [AppendPoint], evictBefore: Double?,
                              xDomain: XDomain?, yDomain: (Double, Double)?) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("type"); w.string("append")
        w.key("chart"); w.string(chart)
        w.key("seq"); w.number(seq)
        w.key("points"); w.beginArray()
        for point in points {
            w.beginObject()
            w.key("series"); w.string(point.series)
            w.key("x"); writeX(point.x, into: &w)
            w.key("y"); w.number(point.y)
            w.endObject()
        }
        w.endArray()
        if let evictBefore { w.key("evictBefore"); w.number(evictBefore) }
        if let xDomain { w.key("x"); writeXDomain(xDomain, kind: kind, into: &w) }
        if let yDomain { w.key("y"); writeYDomain(yDomain, into: &w) }
        w.endObject()
        return w.bytes
    }

    /// The shared selection of one chart after a change.
    public static func selection(chart: String, seq: Int, ref: String?, selection: Selection) -> [UInt8] {
        var w = JSONWriter(capacity: 512)
        w.beginObject()
        w.key("type"); w.string("selection")
        w.key("chart"); w.string(chart)
        w.key("seq"); w.number(seq)
        if let ref { w.key("ref"); w.string(ref) }
        writeSelectionMembers(selection, into: &w)
        w.endObject()
        return w.bytes
    }

    /// Everyone connected, in join order. `total`, when given, is the number connected in case
    /// the list was cut short.
    public static func viewers(_ viewers: [ViewerInfo], total: Int? = nil) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("type"); w.string("viewers")
        w.key("viewers"); w.beginArray()
        for viewer in viewers {
            w.beginObject()
            w.key("id"); w.string(viewer.id)
            w.key("name"); w.string(viewer.name)
            w.key("color"); w.string(viewer.color)
            w.endObject()
        }
        w.endArray()
        if let total { w.key("total"); w.number(total) }
        w.endObject()
        return w.bytes
    }

    /// An `error` reply.
    public static func error(_ error: ProtocolError) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("type"); w.string("error")
        w.key("code"); w.string(error.code.rawValue)
        w.key("message"); w.string(error.message)
        w.endObject()
        return w.bytes
    }
}

/// The x domain as sent: category names, or `[d0, d1]` for time and linear charts.
public enum XDomain: Equatable, Sendable {
    case categories([String])
    case numeric(Double, Double)
}
