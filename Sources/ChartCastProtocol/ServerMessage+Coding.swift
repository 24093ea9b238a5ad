import ChartEngine

extension ServerMessage {
    /// The members of a `welcome` that every viewer of one dashboard gets alike, as they appear in
    /// it: `"charts":[…],"limits":{…}`. A server encodes them once per dashboard state and splices
    /// them into each arriving viewer's welcome (`encodeWelcome`), which is how `encode()` builds
    /// one too, so the two cannot differ.
    /// - Complexity: O(size of the chart specs).
    public static func welcomeSharedMembers(charts: [ChartSpec], limits: ProtocolLimits) -> [UInt8] {
        var w = JSONWriter(capacity: 256 + 256 * charts.count)
        w.beginObject()
        w.key("charts"); w.beginArray(); for spec in charts { spec.encode(into: &w) }; w.endArray()
        w.key("limits"); limits.encode(into: &w)
        w.endObject()
        return Array(w.bytes.dropFirst().dropLast())   // the members without their braces
    }

    /// A whole `welcome`: its type, the protocol version and the viewer, then `sharedMembers`
    /// from `welcomeSharedMembers`.
    /// - Complexity: O(size of the message), one copy of the shared members.
    public static func encodeWelcome(protocolVersion: Int, viewer: ViewerInfo, sharedMembers: [UInt8]) -> [UInt8] {
        var w = JSONWriter(capacity: 128 + sharedMembers.count)
        w.beginObject()
        w.key("type"); w.string("welcome")
        w.key("protocol"); w.number(protocolVersion)
        w.key("viewer"); w.string(viewer.id)
        w.key("name"); w.string(viewer.name)
        w.key("color"); w.string(viewer.color)
        w.raw(sharedMembers)   // members, not a value: raw's comma comes before them all the same
        w.endObject()
        return w.bytes
    }

    /// The bytes of one text frame.
    /// - Complexity: O(size of the message); a snapshot is O(points).
    public func encode() -> [UInt8] {
        var w: JSONWriter
        switch self {
        case .welcome(let m):
            return Self.encodeWelcome(protocolVersion: m.protocolVersion, viewer: m.viewer,
                                      sharedMembers: Self.welcomeSharedMembers(charts: m.charts, limits: m.limits))
        case .snapshot(let m):
            w = JSONWriter(capacity: 256 + m.series.reduce(0) { $0 + 24 * $1.points.count })
            w.beginObject()
            w.key("type"); w.string("snapshot")
            w.key("chart"); w.string(m.chart)
            w.key("seq"); w.number(m.seq)
            w.key("x"); m.x.encode(into: &w)
            w.key("y"); Self.encodeY(m.y, into: &w)
            // The selection and the view before the series: the bulk of a big snapshot comes
            // last, so a reader of the envelope (ServerMessageHeader) stops before it.
            w.key("selection"); m.selection.encode(into: &w)
            if let view = m.view {
                w.key("view"); w.beginObject()
                w.key("from"); w.number(view.lowerBound)
                w.key("to"); w.number(view.upperBound)
                w.endObject()
            }
            w.key("series"); SeriesData.encode(m.series, into: &w)
        case .append(let m):
            w = JSONWriter(capacity: 128 + 64 * m.points.count)
            w.beginObject()
            w.key("type"); w.string("append")
            w.key("chart"); w.string(m.chart)
            w.key("seq"); w.number(m.seq)
            w.key("points"); w.beginArray(); for point in m.points { point.encode(into: &w) }; w.endArray()
            if let evictBefore = m.evictBefore { w.key("evictBefore"); w.number(evictBefore) }
            if let x = m.x { w.key("x"); x.encode(into: &w) }
            if let y = m.y { w.key("y"); Self.encodeY(y, into: &w) }
        case .selection(let m):
            w = JSONWriter(capacity: 512)
            w.beginObject()
            w.key("type"); w.string("selection")
            w.key("chart"); w.string(m.chart)
            w.key("seq"); w.number(m.seq)
            if let ref = m.ref { w.key("ref"); w.string(ref) }
            m.selection.encodeMembers(into: &w)
        case .viewers(let m):
            w = JSONWriter(capacity: 64 + 64 * m.viewers.count)
            w.beginObject()
            w.key("type"); w.string("viewers")
            w.key("viewers"); w.beginArray()
            for viewer in m.viewers {
                w.beginObject()
                w.key("id"); w.string(viewer.id)
                w.key("name"); w.string(viewer.name)
                w.key("color"); w.string(viewer.color)
                w.endObject()
            }
            w.endArray()
            if let total = m.total { w.key("total"); w.number(total) }
        case .error(let e):
            w = JSONWriter(capacity: 128)
            w.beginObject()
            w.key("type"); w.string("error")
            w.key("code"); w.string(e.code.rawValue)
            w.key("message"); w.string(e.boundedMessage)
            if let ref = e.ref { w.key("ref"); w.string(ref) }
        case .chart(let spec):
            w = JSONWriter(capacity: 320)
            w.beginObject()
            w.key("type"); w.string("chart")
            w.key("spec"); spec.encode(into: &w)
        case .chartRemoved(let id):
            w = JSONWriter(capacity: 64)
            w.beginObject()
            w.key("type"); w.string("chart_removed")
            w.key("chart"); w.string(id)
        case .ack(let m):
            w = JSONWriter(capacity: 64)
            w.beginObject()
            w.key("type"); w.string("ack")
            if let ref = m.ref { w.key("ref"); w.string(ref) }
            w.key("seq"); w.number(m.seq)
            w.key("accepted"); w.number(m.accepted)
        }
        w.endObject()
        return w.bytes
    }

    private static func encodeY(_ y: ClosedRange<Double>, into w: inout JSONWriter) {
        w.beginObject(); w.key("domain"); w.range(y); w.endObject()
    }

    /// Parses and validates one server message (clients: the load tester, the tests).
    ///
    /// Unknown members are ignored, as in every protocol v1 message.
    /// - Throws: `ProtocolError` with `bad_json`, `unknown_type` or `bad_field` naming the field.
    public static func decode(_ bytes: [UInt8]) throws -> ServerMessage {
        let fields = FieldReader(json: try Envelope.parse(bytes), maxCoordinate: .infinity)
        switch try Envelope.type(of: fields) {
        case "welcome":
            let version = try fields.integer("protocol")
            let viewer = ViewerInfo(id: try fields.string("viewer"), name: try fields.string("name"),
                                    color: try fields.string("color"))
            return .welcome(Welcome(viewer: viewer, charts: try fields.objects("charts", ChartSpec.init(wire:)),
                                    limits: try ProtocolLimits(wire: fields.nested("limits")), protocolVersion: version))
        case "snapshot":
            let series = try SeriesData.decode(fields)
            var view: ClosedRange<Double>? = nil
            if fields.has("view") {
                let v = try fields.nested("view")
                let from = try v.number("from"), to = try v.number("to")
                guard from < to else { throw v.fail("to", "must be greater than from") }
                view = from...to
            }
            return .snapshot(Snapshot(chart: try fields.string("chart"), seq: try fields.integer("seq"),
                                      x: try XAxis(wire: fields.nested("x")), y: try fields.nested("y").range("domain"),
                                      series: series, selection: try Selection(wire: fields.nested("selection")), view: view))
        case "append":
            return .append(Append(chart: try fields.string("chart"), seq: try fields.integer("seq"),
                                  points: try fields.objects("points", SeriesPoint.init(wire:)),
                                  evictBefore: try fields.optionalNumber("evictBefore"),
                                  x: fields.has("x") ? try XAxis(wire: fields.nested("x")) : nil,
                                  y: fields.has("y") ? try fields.nested("y").range("domain") : nil))
        case "selection":
            return .selection(SelectionUpdate(chart: try fields.string("chart"), seq: try fields.integer("seq"),
                                              ref: try fields.optionalString("ref"), selection: try Selection(wire: fields)))
        case "viewers":
            let viewers = try fields.objects("viewers") { v in
                ViewerInfo(id: try v.string("id"), name: try v.string("name"), color: try v.string("color"))
            }
            return .viewers(ViewerList(viewers: viewers, total: fields.has("total") ? try fields.integer("total") : nil))
        case "error":
            let code = try fields.oneOf("code", ErrorCode.init(rawValue:), names: ErrorCode.allCases.map(\.rawValue))
            return .error(ProtocolError(code, try fields.string("message"), ref: try fields.optionalString("ref")))
        case "chart":
            return .chart(try ChartSpec(wire: fields.nested("spec")))
        case "chart_removed":
            return .chartRemoved(try fields.string("chart"))
        case "ack":
            return .ack(Ack(ref: try fields.optionalString("ref"), seq: try fields.integer("seq"),
                            accepted: try fields.integer("accepted")))
        case let type:
            throw ProtocolError(.unknownType, "unknown message type \"\(type.clipped(to: 32))\"")
        }
    }

}

extension XAxis {
    func encode(into w: inout JSONWriter) {
        w.beginObject()
        w.key("kind"); w.string(kind.wireName)
        w.key("domain"); w.beginArray()
        switch domain {
        case .categories(let names): for name in names { w.string(name) }
        case .numeric(let d0, let d1): w.number(d0); w.number(d1)
        }
        w.endArray()
        w.endObject()
    }

    init(wire x: FieldReader) throws {
        let kind = try x.oneOf("kind", XKind.init(wireName:), names: XKind.wireNames)
        if kind == .category {
            let items = try x.array("domain")
            let names = items.compactMap(\.string)
            guard names.count == items.count else { throw x.fail("domain", "must list category names") }
            self.init(kind: kind, domain: .categories(names))
        } else {
            let range = try x.range("domain")
            self.init(kind: kind, domain: .numeric(range.lowerBound, range.upperBound))
        }
    }
}

extension ProtocolLimits {
    init(wire l: FieldReader) throws {
        self.init(maxMessageBytes: try l.integer("maxMessageBytes"), maxNameLength: try l.integer("maxNameLength"),
                  maxNameBytes: try l.integer("maxNameBytes"), maxRefLength: try l.integer("maxRefLength"),
                  messagesPerSecond: try l.number("messagesPerSecond"), messageBurst: try l.number("messageBurst"),
                  maxHovers: try l.integer("maxHovers"), maxRangeRows: try l.integer("maxRangeRows"),
                  maxCoordinate: try l.number("maxCoordinate"),
                  maxSnapshotColumns: try l.integer("maxSnapshotColumns"), maxMessagePoints: try l.integer("maxMessagePoints"))
    }
}
