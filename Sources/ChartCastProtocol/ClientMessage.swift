import ChartEngine

/// One message from a browser or headless viewer: the typed form of every client → server
/// message of protocol v1, with `encode()` and `decode(_:)`.
public enum ClientMessage: Equatable, Sendable {
    /// Sets the viewer's display name.
    case hello(Hello)
    /// The viewer's plot frame for one chart.
    case viewport(ViewportReport)
    /// A raw pointer event in CSS pixels from the chart canvas's top-left corner.
    case pointer(PointerInput)
    /// A keyboard command on a focused chart.
    case key(KeyInput)
    /// Points for one chart from a connection with write rights.
    case publish(Publish)
    /// Zooms this viewer's plot of one time/linear chart to an x domain, or back to the live window.
    case view(ViewRequest)

    /// `{"type":"hello","name":"Ana"}`; `ref` is echoed by an `error` refusing the name.
    public struct Hello: Equatable, Sendable {
        public var name: String
        public var ref: String?
        public init(name: String, ref: String? = nil) {
            self.name = name
            self.ref = ref
        }
    }

    /// `{"type":"viewport","chart":"sales","plot":{"x":48,"y":12,"width":620,"height":280},"rtl":false}`.
    public struct ViewportReport: Equatable, Sendable {
        public var chart: String
        public var viewport: Viewport
        public init(chart: String, viewport: Viewport) {
            self.chart = chart
            self.viewport = viewport
        }
    }

    /// `{"type":"pointer","chart":"sales","phase":"move","x":130.5,"y":90,"ref":"r-991"}`.
    public struct PointerInput: Equatable, Sendable {
        public var chart: String
        public var phase: PointerPhase
        public var x: Double
        public var y: Double
        public var ref: String?
        public init(chart: String, phase: PointerPhase, x: Double, y: Double, ref: String? = nil) {
            self.chart = chart
            self.phase = phase
            self.x = x
            self.y = y
            self.ref = ref
        }
    }

    /// `{"type":"key","chart":"sales","key":"right","shift":false,"ref":"k-2"}`.
    public struct KeyInput: Equatable, Sendable {
        public var chart: String
        public var command: KeyCommand
        public var shift: Bool
        public var ref: String?
        public init(chart: String, command: KeyCommand, shift: Bool = false, ref: String? = nil) {
            self.chart = chart
            self.command = command
            self.shift = shift
            self.ref = ref
        }
    }

    /// `{"type":"publish","chart":"cpu","points":[{"series":"user","x":1733011200000,"y":12.5}],"ref":"p1"}`.
    public struct Publish: Equatable, Sendable {
        public var chart: String
        public var points: [PublishedPoint]
        public var ref: String?
        public init(chart: String, points: [PublishedPoint], ref: String? = nil) {
            self.chart = chart
            self.points = points
            self.ref = ref
        }
    }

    /// `{"type":"view","chart":"cpu","from":t0,"to":t1}` zooms the viewer's plot of `chart` to
    /// `[t0, t1]` (`domain`); `{"type":"view","chart":"cpu","live":true}` (`domain` nil) returns
    /// it to the live window. The server answers with a `snapshot` for that domain.
    public struct ViewRequest: Equatable, Sendable {
        /// Largest magnitude of a view's ends (epoch ms until the year 33658, or linear values).
        public static let maxMagnitude = 1e15
        /// Smallest span of a view, relative to the magnitude of its ends: narrower than this,
        /// the ends are too few doubles apart to split into pixels.
        public static let minRelativeSpan = 1e-9

        public var chart: String
        /// The x domain to show; nil: the live window.
        public var domain: ClosedRange<Double>?
        public var ref: String?
        public init(chart: String, domain: ClosedRange<Double>?, ref: String? = nil) {
            self.chart = chart
            self.domain = domain
            self.ref = ref
        }

        /// Why `[from, to]` cannot be a view, or nil when it can: both finite, within
        /// ±`maxMagnitude`, `from < to`, and a span of at least `minRelativeSpan` of the ends'
        /// magnitude.
        public static func problem(from: Double, to: Double) -> String? {
            guard from.isFinite, to.isFinite else { return "from and to must be finite" }
            guard Swift.abs(from) <= maxMagnitude, Swift.abs(to) <= maxMagnitude else {
                return "from and to must lie within ±1e15"
            }
            guard from < to else { return "from must be less than to" }
            guard to - from >= minRelativeSpan * Swift.max(Swift.abs(from), Swift.abs(to)) else {
                return "the span to − from is too small for the magnitude of its ends (at least 1e-9 of it)"
            }
            return nil
        }
    }

    /// One point of a `publish` as sent: `x` is a category name, a number (epoch ms or a linear
    /// value) or, on time charts, an RFC 3339 string (carried as `.category` until the chart
    /// decides); `y` nil is a missing value (skipped).
    public struct PublishedPoint: Equatable, Sendable {
        public var series: String
        public var x: XValue
        public var y: Double?
        public init(series: String, x: XValue, y: Double?) {
            self.series = series
            self.x = x
            self.y = y
        }
    }

    /// The `ref` the message carries, if any.
    public var ref: String? {
        switch self {
        case .hello(let m): return m.ref
        case .viewport: return nil
        case .pointer(let m): return m.ref
        case .key(let m): return m.ref
        case .publish(let m): return m.ref
        case .view(let m): return m.ref
        }
    }
}

extension ClientMessage {
    /// The bytes of one text frame.
    public func encode() -> [UInt8] {
        var w = JSONWriter(capacity: 160)
        w.beginObject()
        switch self {
        case .hello(let m):
            w.key("type"); w.string("hello")
            w.key("name"); w.string(m.name)
            if let ref = m.ref { w.key("ref"); w.string(ref) }
        case .viewport(let m):
            w.key("type"); w.string("viewport")
            w.key("chart"); w.string(m.chart)
            w.key("plot"); w.beginObject()
            w.key("x"); w.number(m.viewport.x)
            w.key("y"); w.number(m.viewport.y)
            w.key("width"); w.number(m.viewport.width)
            w.key("height"); w.number(m.viewport.height)
            w.endObject()
            w.key("rtl"); w.bool(m.viewport.rtl)
        case .pointer(let m):
            w.key("type"); w.string("pointer")
            w.key("chart"); w.string(m.chart)
            w.key("phase"); w.string(m.phase.wireName)
            w.key("x"); w.number(m.x)
            w.key("y"); w.number(m.y)
            if let ref = m.ref { w.key("ref"); w.string(ref) }
        case .key(let m):
            w.key("type"); w.string("key")
            w.key("chart"); w.string(m.chart)
            w.key("key"); w.string(m.command.wireName)
            w.key("shift"); w.bool(m.shift)
            if let ref = m.ref { w.key("ref"); w.string(ref) }
        case .publish(let m):
            w.key("type"); w.string("publish")
            w.key("chart"); w.string(m.chart)
            w.key("points"); w.beginArray()
            for point in m.points {
                w.beginObject()
                w.key("series"); w.string(point.series)
                w.key("x"); w.xValue(point.x)
                w.key("y"); w.number(point.y)
                w.endObject()
            }
            w.endArray()
            if let ref = m.ref { w.key("ref"); w.string(ref) }
        case .view(let m):
            w.key("type"); w.string("view")
            w.key("chart"); w.string(m.chart)
            if let domain = m.domain {
                w.key("from"); w.number(domain.lowerBound)
                w.key("to"); w.number(domain.upperBound)
            } else {
                w.key("live"); w.bool(true)
            }
            if let ref = m.ref { w.key("ref"); w.string(ref) }
        }
        w.endObject()
        return w.bytes
    }

    /// Parses and validates one text frame.
    ///
    /// Unknown members are ignored (forward compatibility). Names are normalised by
    /// `ViewerName`. Whether the chart id exists is the server's question, not the decoder's.
    /// An error about a message that carried a valid `ref` carries that `ref`.
    /// A plain `pointer` message — nearly every frame a viewer sends — is read straight from its
    /// bytes (`PointerFastPath`), and so is a plain `viewport` (`ViewportFastPath`: five per
    /// arriving viewer); everything else goes through `decodeGeneric`, with the same result.
    /// - Throws: `ProtocolError` with `bad_json`, `unknown_type` or `bad_field`.
    public static func decode(_ bytes: [UInt8], limits: ProtocolLimits = .v1) throws -> ClientMessage {
        if let pointer = PointerFastPath.decode(bytes, limits: limits) { return pointer }
        if let viewport = ViewportFastPath.decode(bytes, limits: limits) { return viewport }
        return try decodeGeneric(bytes, limits: limits)
    }

    /// `decode` without the fast paths: a JSON document tree, then its fields. Public so
    /// that tests and the `client-message` fuzz target can check the two agree.
    /// - Throws: as `decode`.
    public static func decodeGeneric(_ bytes: [UInt8], limits: ProtocolLimits = .v1) throws -> ClientMessage {
        let json = try Envelope.parse(bytes)
        let fields = FieldReader(json: json, maxCoordinate: limits.maxCoordinate)
        let type = try Envelope.type(of: fields)
        let ref = try? fields.ref(maxLength: limits.maxRefLength)
        do {
            return try decode(type: type, fields, limits: limits)
        } catch var error as ProtocolError {
            if error.ref == nil { error.ref = ref }
            throw error
        }
    }

    private static func decode(type: String, _ fields: FieldReader, limits: ProtocolLimits) throws -> ClientMessage {
        switch type {
        case "hello":
            let name = try ViewerName.normalise(fields.string("name"), limits: limits)
            return .hello(Hello(name: name, ref: try fields.ref(maxLength: limits.maxRefLength)))
        case "viewport":
            let chart = try fields.string("chart")
            let plot = try fields.nested("plot")
            let viewport = Viewport(x: try plot.coordinate("x"), y: try plot.coordinate("y"),
                                    width: try plot.coordinate("width"), height: try plot.coordinate("height"),
                                    rtl: try fields.optionalBool("rtl") ?? false)
            guard viewport.width > 0, viewport.height > 0 else {
                throw ProtocolError(.badField, "plot.width and plot.height must be positive")
            }
            return .viewport(ViewportReport(chart: chart, viewport: viewport))
        case "pointer":
            let chart = try fields.string("chart")
            let phase = try fields.oneOf("phase", PointerPhase.init(wireName:), names: PointerPhase.wireNames)
            return .pointer(PointerInput(chart: chart, phase: phase, x: try fields.coordinate("x"),
                                         y: try fields.coordinate("y"), ref: try fields.ref(maxLength: limits.maxRefLength)))
        case "key":
            let chart = try fields.string("chart")
            let command = try fields.oneOf("key", KeyCommand.init(wireName:), names: KeyCommand.wireNames)
            return .key(KeyInput(chart: chart, command: command, shift: try fields.optionalBool("shift") ?? false,
                                 ref: try fields.ref(maxLength: limits.maxRefLength)))
        case "publish":
            let chart = try fields.string("chart")
            let ref = try fields.ref(maxLength: limits.maxRefLength)
            let points = try fields.array("points").enumerated().map { index, item in
                try PublishedPoint(item, path: "points[\(index)]")
            }
            return .publish(Publish(chart: chart, points: points, ref: ref))
        case "view":
            let chart = try fields.string("chart")
            let ref = try fields.ref(maxLength: limits.maxRefLength)
            let live = try fields.optionalBool("live") ?? false
            if live {
                guard !fields.has("from"), !fields.has("to") else {
                    throw ProtocolError(.badField, "a view is either from and to, or live: true, not both")
                }
                return .view(ViewRequest(chart: chart, domain: nil, ref: ref))
            }
            let from = try fields.number("from"), to = try fields.number("to")
            if let problem = ViewRequest.problem(from: from, to: to) {
                throw ProtocolError(.badField, "view [\(JSONWriter.format(from)), \(JSONWriter.format(to))]: \(problem)")
            }
            return .view(ViewRequest(chart: chart, domain: from...to, ref: ref))
        default:
            throw ProtocolError(.unknownType, "unknown message type \"\(type.clipped(to: 32))\"")
        }
    }
}

extension ClientMessage.PublishedPoint {
    /// Reads one point; any problem with it is `bad_point` naming `points[i].field`.
    init(_ item: JSONValue, path: String) throws {
        func bad(_ problem: String) -> ProtocolError { ProtocolError(.badPoint, "\(path).\(problem)") }
        guard item.object != nil else { throw ProtocolError(.badPoint, "\(path) must be an object, got \(item.typeName)") }
        guard let series = item["series"]?.string else { throw bad("series must be a string") }
        let x: XValue
        switch item["x"] {
        case .string(let text)?: x = .category(text)
        case .number(let number)? where number.isFinite: x = .number(number)
        case .number?: throw bad("x must be finite")
        default: throw bad("x must be a number or a string")
        }
        switch item["y"] {
        case .null?, nil: self.init(series: series, x: x, y: nil)
        case .number(let y)? where y.isFinite: self.init(series: series, x: x, y: y)
        case .number?: throw bad("y must be finite")
        default: throw bad("y must be a number or null")
        }
    }
}

/// The parts every message shares: one JSON object with a string `type`.
enum Envelope {
    /// Parses the bytes as one JSON object.
    /// - Throws: `bad_json`.
    static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        let json: JSONValue
        do {
            json = try JSONReader.parse(bytes)
        } catch let error as JSONReadError {
            throw ProtocolError(.badJSON, "invalid JSON: \(error)")
        }
        guard json.object != nil else {
            throw ProtocolError(.badJSON, "a message must be a JSON object, got \(json.typeName)")
        }
        return json
    }

    /// The message's `type`.
    /// - Throws: `bad_field` when missing or not a string.
    static func type(of fields: FieldReader) throws -> String {
        try fields.string("type")
    }
}
