import ChartEngine

extension ChartSpec {
    /// Writes the spec as the data API's one chart schema describes it (dashboard files,
    /// `GET /api/charts`, `welcome.charts[]`): every field, defaults spelled out, so that what is
    /// written parses back to the same spec.
    public func encode(into w: inout JSONWriter) {
        w.beginObject()
        w.key("id"); w.string(id)
        w.key("title"); w.string(title)
        w.key("mark"); w.string(mark.wireName)
        w.key("x"); w.beginObject()
        w.key("kind"); w.string(xKind.wireName)
        w.key("label"); w.string(xLabel)
        if xKind == .category { w.key("categories"); w.beginArray(); for name in categories { w.string(name) }; w.endArray() }
        w.endObject()
        w.key("y"); w.beginObject()
        w.key("label"); w.string(yLabel)
        if let domain = fixedYDomain { w.key("domain"); w.range(domain) }
        w.endObject()
        w.key("series"); w.beginArray(); for name in series { w.string(name) }; w.endArray()
        w.key("interactions"); w.beginObject()
        w.key("hover"); w.bool(interactions.hover)
        w.key("drag"); w.string(interactions.drag.wireName)
        w.key("tap"); w.bool(interactions.tap)
        w.endObject()
        if xKind != .category, let window { w.key("window"); w.number(window) }
        w.key("retention"); w.string(RetentionText.format(retentionSeconds))
        w.endObject()
    }

    /// The spec's JSON on its own.
    public func encoded() -> [UInt8] {
        var w = JSONWriter(capacity: 256)
        encode(into: &w)
        return w.bytes
    }
}

extension JSONWriter {
    /// `x` as protocol v1 writes it: a category as a string, time and linear values as numbers.
    mutating func xValue(_ x: XValue) {
        switch x {
        case .category(let name): string(name)
        case .number(let value): number(value)
        }
    }

    /// `[lo, hi]`.
    mutating func range(_ range: ClosedRange<Double>) {
        beginArray(); number(range.lowerBound); number(range.upperBound); endArray()
    }
}

extension FieldReader {
    /// A category (string) or a finite number.
    func xValue(_ name: String) throws -> XValue {
        let value = try required(name)
        return try Self.xValue(value, path: path(name))
    }

    static func xValue(_ value: JSONValue, path: String) throws -> XValue {
        switch value {
        case .string(let name): return .category(name)
        case .number(let number) where number.isFinite: return .number(number)
        default:
            throw ProtocolError(.badField, "field \"\(path)\" must be a category name or a finite number, got \(value.typeName)")
        }
    }

    /// An array of strings.
    func strings(_ name: String) throws -> [String] {
        try array(name).enumerated().map { index, item in
            guard let text = item.string else { throw fail("\(name)[\(index)]", "must be a string, got \(item.typeName)") }
            return text
        }
    }

    /// `[lo, hi]` with finite `lo ≤ hi`.
    func range(_ name: String) throws -> ClosedRange<Double> {
        let items = try array(name)
        guard items.count == 2, let lo = items[0].number, let hi = items[1].number, lo.isFinite, hi.isFinite else {
            throw fail(name, "must be [lo, hi] with two finite numbers")
        }
        guard lo <= hi else { throw fail(name, "must have lo ≤ hi, got [\(JSONWriter.format(lo)), \(JSONWriter.format(hi))]") }
        return lo...hi
    }

    /// An array member whose elements are objects, each read by `read` with its indexed path.
    func objects<T>(_ name: String, _ read: (FieldReader) throws -> T) throws -> [T] {
        try array(name).enumerated().map { index, item in
            let itemPath = "\(path(name))[\(index)]"
            guard item.object != nil else { throw Self.fail(path: itemPath, "must be an object, got \(item.typeName)", style: style) }
            return try read(reader(for: item, path: itemPath))
        }
    }
}

extension ChartSpec {
    /// `GET /api/charts`: `{"charts":[<spec>…]}`.
    public static func encodeList(_ specs: [ChartSpec]) -> [UInt8] {
        var w = JSONWriter(capacity: 64 + 256 * specs.count)
        w.beginObject()
        w.key("charts"); w.beginArray(); for spec in specs { spec.encode(into: &w) }; w.endArray()
        w.endObject()
        return w.bytes
    }

    /// Reads a `{"charts":[…]}` body, each spec checked against the schema.
    /// - Throws: `ProtocolError` (`bad_json`; `bad_field` naming `charts[i].field`).
    public static func decodeList(_ bytes: [UInt8]) throws -> [ChartSpec] {
        try FieldReader(json: try Envelope.parse(bytes), style: .path).objects("charts", ChartSpec.init(wire:))
    }
}
