import ChartEngine

/// The data API's one chart schema: every rule of a chart spec, checked in one place for the
/// dashboard file, `PUT /api/charts/{id}`, `welcome` and the Swift API alike.
///
/// Errors are `bad_field` with the field's path first, as documented:
/// `charts[2].mark: "pie" is not one of bar, line, point, area`. Unknown members are ignored.
extension ChartSpec {
    /// Longest title, series name, category name and axis label, in characters.
    public static let maxTextLength = 200
    /// Longest title, category name and axis label, in UTF-8 bytes: any 200 characters of one
    /// scalar each fit; what does not is a character piling up combining marks, which would
    /// make every message that repeats the text (each point of a category chart names its
    /// category) kilobytes long.
    public static let maxTextBytes = 800
    /// Most UTF-8 bytes of all the categories of a chart together (1,000 names of 32 bytes): a
    /// category chart's snapshot names each category once per series.
    public static let maxCategoryBytes = 32_768
    /// Most categories on a category axis.
    public static let maxCategories = 1000
    /// Longest chart id.
    public static let maxIDLength = 64
    /// Longest series name, in UTF-8 bytes (the ingest parsers check the same bound).
    public static let maxSeriesNameBytes = 256

    /// Parses and validates one spec.
    /// - Parameters:
    ///   - json: the spec object.
    ///   - path: where it sits (`"charts[2]"`), empty for a spec on its own.
    /// - Throws: `ProtocolError(.badField)` naming the first field that breaks a rule.
    public static func parse(_ json: JSONValue, path: String = "") throws -> ChartSpec {
        guard json.object != nil else {
            throw FieldReader.fail(path: path.isEmpty ? "spec" : path, "must be an object, got \(json.typeName)", style: .path)
        }
        return try ChartSpec(wire: FieldReader(json: json, prefix: path.isEmpty ? "" : path + ".", style: .path))
    }

    /// Parses a spec from the bytes of a JSON document.
    public static func parse(_ bytes: [UInt8]) throws -> ChartSpec { try parse(try Envelope.parse(bytes)) }

    /// The id rule as messages state it.
    public static let idRule = "1–64 of A–Z a–z 0–9 _ . -"

    /// Whether `id` is 1–64 of `A–Z a–z 0–9 _ . -`.
    public static func isValidID(_ id: String) -> Bool { isValidID(id.utf8) }

    /// Whether the bytes spell a valid id (the line-protocol parser checks measurements in place).
    public static func isValidID(_ bytes: some Collection<UInt8>) -> Bool {
        guard !bytes.isEmpty, bytes.count <= maxIDLength else { return false }
        return bytes.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || b == UInt8(ascii: "_") || b == UInt8(ascii: ".") || b == UInt8(ascii: "-")
        }
    }

    /// Reads every field of the schema from `fields` (errors always in path style).
    init(wire reader: FieldReader) throws {
        var fields = reader
        fields.style = .path
        let id = try fields.string("id")
        guard ChartSpec.isValidID(id) else {
            throw fields.fail("id", "\"\(id.clipped(to: 80))\" must be \(ChartSpec.idRule)")
        }
        let title = try fields.has("title") ? fields.text("title") : id
        let mark = try fields.oneOf("mark", Mark.init(wireName:), names: Mark.wireNames)
        let x = try fields.nested("x")
        let kind = try x.oneOf("kind", XKind.init(wireName:), names: XKind.wireNames)
        var categories: [String] = []
        if kind == .category {
            categories = try x.distinctTexts("categories", count: 1...ChartSpec.maxCategories)
            let bytes = categories.reduce(0) { $0 + $1.utf8.count }
            guard bytes <= ChartSpec.maxCategoryBytes else {
                throw x.fail("categories", "take \(bytes) bytes of UTF-8 together (at most \(ChartSpec.maxCategoryBytes))")
            }
        } else if x.has("categories") {
            throw x.fail("categories", "only category charts have categories")
        }
        let y = try fields.has("y") ? fields.nested("y") : nil
        var domain: ClosedRange<Double>? = nil
        if let y, y.has("domain") {
            let range = try y.range("domain")
            guard range.lowerBound < range.upperBound else { throw y.fail("domain", "must have lo < hi") }
            domain = range
        }
        let series = try fields.has("series")
            ? fields.distinctTexts("series", count: 0...ChartSpec.maxSeries, maxBytes: ChartSpec.maxSeriesNameBytes) : []
        var interactions = ChartSpec.defaultInteractions(for: kind)
        if fields.has("interactions") {
            let i = try fields.nested("interactions")
            if let hover = try i.optionalBool("hover") { interactions.hover = hover }
            if i.has("drag") { interactions.drag = try i.oneOf("drag", DragInteraction.init(wireName:), names: DragInteraction.wireNames) }
            if let tap = try i.optionalBool("tap") { interactions.tap = tap }
        }
        var window: Int? = nil
        if kind != .category {
            window = try fields.has("window") ? fields.integer("window", in: 1...ChartSpec.maxWindow) : ChartSpec.defaultWindow
        } else if fields.has("window") {
            throw fields.fail("window", "only time and linear charts have a window")
        }
        var retention = ChartSpec.defaultRetentionSeconds
        if let value = fields.json["retention"], !value.isNull {
            guard let seconds = RetentionText.parse(value) else {
                throw fields.fail("retention", "must be 0 or a duration such as 30s, 15m, 12h or 7d (at most 3650d)")
            }
            retention = seconds
        }
        self.init(id: id, title: title, mark: mark, xKind: kind,
                  xLabel: try x.has("label") ? x.text("label", allowEmpty: true) : "",
                  yLabel: try y.map { try $0.has("label") ? $0.text("label", allowEmpty: true) : "" } ?? "",
                  series: series, categories: categories, interactions: interactions, window: window,
                  fixedYDomain: domain, retentionSeconds: retention)
    }
}

/// A dashboard: a title and its charts, as a dashboard file and `GET /api/dashboard` hold it.
public struct Dashboard: Equatable, Sendable {
    public var title: String
    public var charts: [ChartSpec]

    public init(title: String, charts: [ChartSpec]) {
        self.title = title
        self.charts = charts
    }

    /// Parses `{"title":…,"charts":[<spec>…]}`: every spec checked, ids unique.
    /// - Throws: `ProtocolError` (`bad_json` when not JSON; `bad_field` naming `charts[i].field`).
    public static func parse(_ bytes: [UInt8]) throws -> Dashboard { try parse(try Envelope.parse(bytes)) }

    /// Checks an already parsed (or built) dashboard document by the same rules: the entry point
    /// for dashboards declared in Swift, so they fail with exactly the file's messages.
    /// - Throws: `ProtocolError(.badField)` naming the field (`charts[1].x.categories: is required`).
    public static func parse(_ json: JSONValue) throws -> Dashboard {
        guard json.object != nil else {
            throw FieldReader.fail(path: "dashboard", "must be an object, got \(json.typeName)", style: .path)
        }
        let fields = FieldReader(json: json, style: .path)
        let title = try fields.has("title") ? fields.text("title", allowEmpty: true) : ""
        let charts = try fields.objects("charts", ChartSpec.init(wire:))
        var seen = Set<String>()
        for (index, chart) in charts.enumerated() where !seen.insert(chart.id).inserted {
            throw FieldReader.fail(path: "charts[\(index)].id", "\"\(chart.id)\" is used by an earlier chart", style: .path)
        }
        return Dashboard(title: title, charts: charts)
    }

    /// The dashboard's JSON (the same shape `parse` reads).
    public func encode() -> [UInt8] {
        var w = JSONWriter(capacity: 128 + 320 * charts.count)
        w.beginObject()
        w.key("title"); w.string(title)
        w.key("charts"); w.beginArray(); for chart in charts { chart.encode(into: &w) }; w.endArray()
        w.endObject()
        return w.bytes
    }
}

/// Retention durations as the schema spells them: `0`, `30s`, `15m`, `12h`, `7d`.
enum RetentionText {
    static let units: [(Character, Int)] = [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)]
    static let maxSeconds = 3_650 * 86_400

    /// Seconds for `0` (number or string) or `<n><s|m|h|d>`; nil otherwise.
    static func parse(_ value: JSONValue) -> Int? {
        if let number = value.number { return number == 0 ? 0 : nil }
        guard let text = value.string else { return nil }
        if text == "0" { return 0 }
        let digits = text.dropLast()
        guard let unit = text.last, let factor = units.first(where: { $0.0 == unit })?.1, !digits.isEmpty,
              digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let count = Int(digits), count > 0 else { return nil }
        let (seconds, overflow) = count.multipliedReportingOverflow(by: factor)
        return !overflow && seconds <= maxSeconds ? seconds : nil
    }

    /// The largest whole unit: 604800 → `7d`, 90 → `90s`, 0 → `0`.
    static func format(_ seconds: Int) -> String {
        guard seconds > 0 else { return "0" }
        for (unit, factor) in units where seconds % factor == 0 { return "\(seconds / factor)\(unit)" }
        return "\(seconds)s"
    }
}

extension FieldReader {
    /// A string of 1–200 characters (0–200 with `allowEmpty`) and at most 800 UTF-8 bytes.
    func text(_ name: String, allowEmpty: Bool = false) throws -> String {
        let value = try string(name)
        guard allowEmpty || !value.isEmpty else { throw fail(name, "must not be empty") }
        guard value.count <= ChartSpec.maxTextLength else {
            throw fail(name, "is longer than \(ChartSpec.maxTextLength) characters")
        }
        guard value.utf8.count <= ChartSpec.maxTextBytes else {
            throw fail(name, "is longer than \(ChartSpec.maxTextBytes) bytes")
        }
        return value
    }

    /// An array of distinct non-empty strings of at most 200 characters and `maxBytes` UTF-8
    /// bytes, `count` of them.
    func distinctTexts(_ name: String, count: ClosedRange<Int>, maxBytes: Int = ChartSpec.maxTextBytes) throws -> [String] {
        let items = try strings(name)
        guard count.contains(items.count) else {
            throw fail(name, "must list \(count.lowerBound)–\(count.upperBound) names, got \(items.count)")
        }
        var seen = Set<String>()
        for (index, item) in items.enumerated() {
            let itemPath = "\(name)[\(index)]"
            guard !item.isEmpty else { throw fail(itemPath, "must not be empty") }
            guard item.count <= ChartSpec.maxTextLength else {
                throw fail(itemPath, "is longer than \(ChartSpec.maxTextLength) characters")
            }

            guard seen.insert(item).inserted else { throw fail(itemPath, "\"\(item.clipped(to: 80))\" is listed twice") }
        }
        for (index, item) in items.enumerated() where item.utf8.count > maxBytes {
            throw fail("\(name)[\(index)]", "is longer than \(maxBytes) bytes")
        }
        return items
    }
}
