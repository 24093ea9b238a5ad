import ChartEngine

/// The shared selection on the wire: `{"hovers":[…],"scrub":…,"range":…,"pin":…}`, as the body
/// of a `selection` message and the `selection` member of a `snapshot`.
extension Selection {
    /// Writes the four members (without braces: a `selection` message embeds them at its top).
    func encodeMembers(into w: inout JSONWriter) {
        w.key("hovers"); w.beginArray()
        for hover in hovers {
            w.beginObject()
            w.key("by"); w.string(hover.by)
            w.key("x"); w.xValue(hover.x)
            w.key("fraction"); w.number(hover.fraction)
            w.key("placement"); w.string(hover.placement.wireName)
            w.key("values"); Self.encode(hover.values, into: &w)
            w.endObject()
        }
        w.endArray()
        w.key("scrub")
        if let scrub {
            w.beginObject()
            w.key("by"); w.string(scrub.by)
            w.key("x"); w.xValue(scrub.x)
            w.key("values"); Self.encode(scrub.values, into: &w)
            w.key("fraction"); w.number(scrub.fraction)
            w.key("yFraction"); w.number(scrub.yFraction)
            w.endObject()
        } else { w.null() }
        w.key("range")
        if let range { Self.encode(range, into: &w) } else { w.null() }
        w.key("pin")
        if let pin {
            w.beginObject()
            w.key("by"); w.string(pin.by)
            w.key("x"); w.xValue(pin.x)
            w.key("values"); Self.encode(pin.values, into: &w)
            w.key("fraction"); w.number(pin.fraction)
            w.endObject()
        } else { w.null() }
    }

    /// Writes `{…}`.
    func encode(into w: inout JSONWriter) {
        w.beginObject()
        encodeMembers(into: &w)
        w.endObject()
    }

    private static func encode(_ values: [SeriesValue], into w: inout JSONWriter) {
        w.beginArray()
        for value in values {
            w.beginObject()
            w.key("series"); w.string(value.series)
            w.key("y"); w.number(value.y)
            w.endObject()
        }
        w.endArray()
    }

    private static func encode(_ range: RangeSelection, into w: inout JSONWriter) {
        w.beginObject()
        w.key("by"); w.string(range.by)
        w.key("from"); w.xValue(range.from)
        w.key("to"); w.xValue(range.to)
        w.key("fromFraction"); w.number(range.fromFraction)
        w.key("toFraction"); w.number(range.toFraction)
        w.key("count"); w.number(range.count)
        w.key("totals"); w.beginArray()
        for total in range.totals {
            w.beginObject()
            w.key("series"); w.string(total.series)
            w.key("count"); w.number(total.count)
            w.key("sum"); w.number(total.sum)
            w.key("min"); w.number(total.min)
            w.key("max"); w.number(total.max)
            w.key("mean"); w.number(total.mean)
            w.endObject()
        }
        w.endArray()
        w.key("rows"); w.beginArray()
        for row in range.rows { row.encode(into: &w) }
        w.endArray()
        w.key("truncated"); w.bool(range.truncated)
        w.endObject()
    }

    /// Reads the four members from `fields` (a `selection` message or a snapshot's `selection`).
    init(wire fields: FieldReader) throws {
        let hovers = try fields.objects("hovers") { h in
            Hover(by: try h.string("by"), x: try h.xValue("x"), fraction: try h.number("fraction"),
                  placement: try h.oneOf("placement", Placement.init(wireName:), names: Placement.wireNames),
                  values: try Self.values(h))
        }
        let scrub = try fields.has("scrub") ? Scrub(wire: fields.nested("scrub")) : nil
        let range = try fields.has("range") ? RangeSelection(wire: fields.nested("range")) : nil
        let pin = try fields.has("pin") ? Pin(wire: fields.nested("pin")) : nil
        self.init(hovers: hovers, scrub: scrub, range: range, pin: pin)
    }

    static func values(_ fields: FieldReader) throws -> [SeriesValue] {
        try fields.objects("values") { v in SeriesValue(series: try v.string("series"), y: try v.optionalNumber("y")) }
    }
}

extension Scrub {
    init(wire s: FieldReader) throws {
        self.init(by: try s.string("by"), x: try s.xValue("x"), values: try Selection.values(s),
                  fraction: try s.number("fraction"), yFraction: try s.number("yFraction"))
    }
}

extension Pin {
    init(wire p: FieldReader) throws {
        self.init(by: try p.string("by"), x: try p.xValue("x"), values: try Selection.values(p),
                  fraction: try p.number("fraction"))
    }
}

extension RangeSelection {
    init(wire r: FieldReader) throws {
        let by = try r.string("by"), from = try r.xValue("from"), to = try r.xValue("to")
        let totals = try r.objects("totals") { t in
            SeriesTotals(series: try t.string("series"), count: try t.integer("count", in: 0...Int(Int32.max)),
                         sum: try t.number("sum"), min: try t.optionalNumber("min"), max: try t.optionalNumber("max"),
                         mean: try t.optionalNumber("mean"))
        }
        self.init(by: by, from: from, to: to,
                  fromFraction: try r.number("fromFraction"), toFraction: try r.number("toFraction"),
                  count: try r.integer("count", in: 0...Int(Int32.max)), totals: totals,
                  rows: try r.objects("rows", SeriesPoint.init(wire:)), truncated: try r.bool("truncated"))
    }
}

extension SeriesPoint {
    /// `{"series":"Calories","x":1653955200000,"y":2050}`.
    func encode(into w: inout JSONWriter) {
        w.beginObject()
        w.key("series"); w.string(series)
        w.key("x"); w.xValue(x)
        w.key("y"); w.number(y)
        w.endObject()
    }

    init(wire p: FieldReader) throws {
        self.init(series: try p.string("series"), x: try p.xValue("x"), y: try p.number("y"))
    }
}
