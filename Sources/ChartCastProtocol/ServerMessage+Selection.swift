import ChartEngine

extension ServerMessage {
    static func writeX(_ x: XValue, into w: inout JSONWriter) {
        switch x {
        case .category(let name): w.string(name)
        case .number(let value): w.number(value)
        }
    }

    static func writeXDomain(_ domain: XDomain, kind: XKind, into w: inout JSONWriter) {
        w.beginObject()
        w.key("kind"); w.string(kind.rawValue)
        w.key("domain"); w.beginArray()
        switch domain {
        case .categories(let names): for name in names { w.string(name) }
        case .numeric(let d0, let d1): w.number(d0); w.number(d1)
        }
        w.endArray()
        w.endObject()
    }

    static func writeYDomain(_ domain: (Double, Double), into w: inout JSONWriter) {
        w.beginObject()
        w.key("domain"); w.beginArray(); w.number(domain.0); w.number(domain.1); w.endArray()
        w.endObject()
    }

    /// `{"hovers":…,"scrub":…,"range":…,"pin":…}` as embedded in a snapshot.
    static func writeSelectionBody(_ selection: Selection, into w: inout JSONWriter) {
        w.beginObject()
        writeSelectionMembers(selection, into: &w)
        w.endObject()
    }

    static func writeSelectionMembers(_ selection: Selection, into w: inout JSONWriter) {
        w.key("hovers"); w.beginArray()
        for hover in selection.hovers {
            w.beginObject()
            w.key("by"); w.string(hover.by)
            w.key("x"); writeX(hover.x, into: &w)
            w.key("fraction"); w.number(hover.fraction)
            w.key("placement"); w.string(hover.placement.rawValue)
            w.key("values"); writeValues(hover.values, into: &w)
            w.endObject()
        }
        w.endArray()
        w.key("scrub")
        if let scrub = selection.scrub {
            w.beginObject()
            w.key("by"); w.string(scrub.by)
            w.key("x"); writeX(scrub.x, into: &w)
            w.key("values"); writeValues(scrub.values, into: &w)
            w.key("fraction"); w.number(scrub.fraction)
            w.key("yFraction"); w.number(scrub.yFraction)
            w.endObject()
        } else { w.null() }
        w.key("range")
        if let range = selection.range { writeRange(range, into: &w) } else { w.null() }
        w.key("pin")
        if let pin = selection.pin {
            w.beginObject()
            w.key("by"); w.string(pin.by)
            w.key("x"); writeX(pin.x, into: &w)
            w.key("values"); writeValues(pin.values, into: &w)
            w.key("fraction"); w.number(pin.fraction)
            w.endObject()
        } else { w.null() }
    }

    static func writeValues(_ values: [SeriesValue], into w: inout JSONWriter) {
        w.beginArray()
        for value in values {
            w.beginObject()
            w.key("series"); w.string(value.series)
            w.key("y"); w.number(value.y)
            w.endObject()
        }
        w.endArray()
    }

    static func writeRange(_ range: RangeSelection, into w: inout JSONWriter) {
        w.beginObject()
        w.key("by"); w.string(range.by)
        w.key("from"); writeX(range.from, into: &w)
        w.key("to"); writeX(range.to, into: &w)
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
        for row in range.rows {
            w.beginObject()
            w.key("series"); w.string(row.series)
            w.key("x"); writeX(row.x, into: &w)
            w.key("y"); w.number(row.y)
            w.endObject()
        }
        w.endArray()
        w.key("truncated"); w.bool(range.truncated)
        w.endObject()
    }
}
