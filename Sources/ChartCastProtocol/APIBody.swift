import ChartEngine

/// The JSON bodies of the HTTP API (`docs/api.md`), written and read in one place like the
/// WebSocket messages: the server writes them, clients (the load tester, the tests) read them.
public enum APIBody {
    /// `GET /api/charts/{id}`: `{"spec":{…},"seq":S,"series":[{"name":…,"points":[[x,y]…]}]}`.
    public struct ChartState: Equatable, Sendable {
        public var spec: ChartSpec
        public var seq: Int
        public var series: [SeriesData]
        public init(spec: ChartSpec, seq: Int, series: [SeriesData]) {
            self.spec = spec
            self.seq = seq
            self.series = series
        }
    }

    /// A refused request: `{"error":{"code":…,"message":…,"line":…,"index":…}}`.
    public struct Failure: Error, Equatable, Sendable {
        public var code: String
        public var message: String
        public var line: Int?
        public var index: Int?
        public init(code: String, message: String, line: Int? = nil, index: Int? = nil) {
            self.code = code
            self.message = message
            self.line = line
            self.index = index
        }
    }

    public static func encode(_ state: ChartState) -> [UInt8] {
        var w = JSONWriter(capacity: 512 + state.series.reduce(0) { $0 + 24 * $1.points.count })
        w.beginObject()
        w.key("spec"); state.spec.encode(into: &w)
        w.key("seq"); w.number(state.seq)
        w.key("series"); SeriesData.encode(state.series, into: &w)
        w.endObject()
        return w.bytes
    }

    public static func decodeChartState(_ bytes: [UInt8]) throws -> ChartState {
        let fields = FieldReader(json: try Envelope.parse(bytes), maxCoordinate: .infinity)
        return ChartState(spec: try ChartSpec(wire: fields.nested("spec")), seq: try fields.integer("seq"),
                          series: try SeriesData.decode(fields))
    }

    /// `POST /api/charts/{id}/points`: `{"accepted":N,"seq":S}`.
    public static func accepted(_ accepted: Int, seq: Int) -> [UInt8] {
        var w = JSONWriter(capacity: 48)
        w.beginObject()
        w.key("accepted"); w.number(accepted)
        w.key("seq"); w.number(seq)
        w.endObject()
        return w.bytes
    }

    public static func decodeAccepted(_ bytes: [UInt8]) throws -> (accepted: Int, seq: Int) {
        let fields = FieldReader(json: try Envelope.parse(bytes))
        return (try fields.integer("accepted"), try fields.integer("seq"))
    }

    public static func encode(_ failure: Failure) -> [UInt8] {
        var w = JSONWriter(capacity: 96 + failure.message.utf8.count)
        w.beginObject()
        w.key("error"); w.beginObject()
        w.key("code"); w.string(failure.code)
        w.key("message"); w.string(failure.message)
        if let line = failure.line { w.key("line"); w.number(line) }
        if let index = failure.index { w.key("index"); w.number(index) }
        w.endObject()
        w.endObject()
        return w.bytes
    }

    public static func decodeFailure(_ bytes: [UInt8]) throws -> Failure {
        let error = try FieldReader(json: try Envelope.parse(bytes)).nested("error")
        return Failure(code: try error.string("code"), message: try error.string("message"),
                       line: error.has("line") ? try error.integer("line") : nil,
                       index: error.has("index") ? try error.integer("index") : nil)
    }
}

extension SeriesData {
    /// `[{"name":…,"points":[[x,y]…]}…]`, as snapshots and `GET /api/charts/{id}` write them.
    static func encode(_ series: [SeriesData], into w: inout JSONWriter) {
        w.beginArray()
        for s in series {
            w.beginObject()
            w.key("name"); w.string(s.name)
            w.key("points"); w.beginArray()
            for point in s.points { w.beginArray(); w.xValue(point.x); w.number(point.y); w.endArray() }
            w.endArray()
            w.endObject()
        }
        w.endArray()
    }

    /// Reads the `series` member of `fields`.
    static func decode(_ fields: FieldReader) throws -> [SeriesData] {
        try fields.objects("series") { s in
            let points = try s.array("points").enumerated().map { index, item -> DataPoint in
                let path = "\(s.path("points"))[\(index)]"
                guard let pair = item.array, pair.count == 2, let y = pair[1].number, y.isFinite else {
                    throw ProtocolError(.badField, "field \"\(path)\" must be [x, y] with a finite y")
                }
                return DataPoint(x: try FieldReader.xValue(pair[0], path: path + "[0]"), y: y)
            }
            return SeriesData(name: try s.string("name"), points: points)
        }
    }
}
