import ChartCastProtocol
import ChartEngine

/// The stream form of an entry: one JSON object built and read with the protocol module's
/// `JSONValue`, `JSONWriter` and `JSONReader` (numbers in their shortest round-trip form, so a
/// value comes back bit for bit), with the kind in `k`, the origin in `o` and the ticket in `t`.
extension ClusterEnvelope {
    /// The entry's bytes (the value of the stream entry's one field).
    public func encode() -> [UInt8] {
        var members: [(String, JSONValue)] = [("o", .number(Double(origin))), ("t", .number(Double(ticket)))]
        members.append(contentsOf: ClusterEnvelope.members(of: entry))
        return JSONValue.object(members).serialized
    }

    /// Reads an entry's bytes.
    /// - Throws: `ClusterEntryError` naming what is wrong.
    public static func decode(_ bytes: [UInt8]) throws -> ClusterEnvelope {
        let json: JSONValue
        do {
            json = try JSONReader.parse(bytes)
        } catch {
            throw ClusterEntryError("not JSON: \(error)")
        }
        let fields = EntryFields(json)
        return ClusterEnvelope(origin: try fields.int("o"), ticket: try fields.int("t"), entry: try entry(fields))
    }

    private static func members(of entry: ClusterEntry) -> [(String, JSONValue)] {
        switch entry {
        case .joined(let info, let instance):
            return [("k", .string("joined")), ("id", .string(info.id)), ("name", .string(info.name)), ("color", .string(info.color)),
                    ("instance", .number(Double(instance)))]
        case .left(let viewer):
            return [("k", .string("left")), ("viewer", .string(viewer))]
        case .renamed(let viewer, let name):
            return [("k", .string("renamed")), ("viewer", .string(viewer)), ("name", .string(name))]
        case .input(let chart, let viewer, let input, let ref):
            return [("k", .string("input")), ("chart", .string(chart)), ("viewer", .string(viewer)), ("ref", optional(ref))]
                + inputMembers(input)
        case .key(let chart, let viewer, let command, let shift, let ref):
            return [("k", .string("key")), ("chart", .string(chart)), ("viewer", .string(viewer)), ("key", .string(command.wireName)),
                    ("shift", .bool(shift)), ("ref", optional(ref))]
        case .dragExpired(let chart, let owner, let pressed):
            return [("k", .string("drag_expired")), ("chart", .string(chart)), ("owner", .string(owner)), ("pressed", .bool(pressed))]
        case .define(let spec):
            return [("k", .string("define")), ("spec", specValue(spec))]
        case .remove(let chart):
            return [("k", .string("remove")), ("chart", .string(chart))]
        case .points(let charts):
            return [("k", .string("points")), ("charts", .array(charts.map(pointsValue)))]
        case .feed(let ops):
            return [("k", .string("feed")), ("ops", .array(ops.map(feedValue)))]
        case .instanceGone(let instance):
            return [("k", .string("instance_gone")), ("instance", .number(Double(instance)))]
        }
    }

    private static func entry(_ f: EntryFields) throws -> ClusterEntry {
        let kind = try f.string("k")
        switch kind {
        case "joined":
            return .joined(ViewerInfo(id: try f.string("id"), name: try f.string("name"), color: try f.string("color")),
                           instance: try f.int("instance"))
        case "left":
            return .left(viewer: try f.string("viewer"))
        case "renamed":
            return .renamed(viewer: try f.string("viewer"), name: try f.string("name"))
        case "input":
            return .input(chart: try f.string("chart"), viewer: try f.string("viewer"), try input(f), ref: f.optionalString("ref"))
        case "key":
            let name = try f.string("key")
            guard let command = KeyCommand(wireName: name) else { throw ClusterEntryError("key: unknown command \"\(name)\"") }
            return .key(chart: try f.string("chart"), viewer: try f.string("viewer"), command, shift: try f.bool("shift"),
                        ref: f.optionalString("ref"))
        case "drag_expired":
            return .dragExpired(chart: try f.string("chart"), owner: try f.string("owner"), pressed: try f.bool("pressed"))
        case "define":
            return .define(try spec(f.value("spec")))
        case "remove":
            return .remove(chart: try f.string("chart"))
        case "points":
            return .points(try f.array("charts").map { try points(EntryFields($0)) })
        case "feed":
            return .feed(try f.array("ops").map { try feedOp(EntryFields($0)) })
        case "instance_gone":
            return .instanceGone(try f.int("instance"))
        default:
            throw ClusterEntryError("unknown entry kind \"\(kind.prefix(40))\"")
        }
    }

    // MARK: Selection inputs

    private static func inputMembers(_ input: SelectionInput) -> [(String, JSONValue)] {
        switch input {
        case .hover(let x): return [("g", .string("hover")), ("x", optional(x))]
        case .pressBegan(let x): return [("g", .string("press")), ("x", optional(x))]
        case .pressMoved(let x): return [("g", .string("press_move")), ("x", optional(x))]
        case .dragBegan(let point, let start): return [("g", .string("drag")), ("start", .number(start))] + dragMembers(point)
        case .dragMoved(let point): return [("g", .string("drag_move"))] + dragMembers(point)
        case .dragEnded: return [("g", .string("drag_end"))]
        case .tap(let x): return [("g", .string("tap")), ("x", optional(x))]
        case .left: return [("g", .string("leave"))]
        }
    }

    private static func dragMembers(_ point: DragPoint) -> [(String, JSONValue)] {
        [("x", optional(point.hoverX)), ("cx", optional(point.clampedX)), ("yf", .number(point.yFraction))]
    }

    private static func input(_ f: EntryFields) throws -> SelectionInput {
        let gesture = try f.string("g")
        func drag() throws -> DragPoint {
            DragPoint(hoverX: try f.optionalNumber("x"), clampedX: try f.optionalNumber("cx"), yFraction: try f.number("yf"))
        }
        switch gesture {
        case "hover": return .hover(x: try f.optionalNumber("x"))
        case "press": return .pressBegan(hoverX: try f.optionalNumber("x"))
        case "press_move": return .pressMoved(hoverX: try f.optionalNumber("x"))
        case "drag": return .dragBegan(try drag(), rangeStart: try f.number("start"))
        case "drag_move": return .dragMoved(try drag())
        case "drag_end": return .dragEnded
        case "tap": return .tap(x: try f.optionalNumber("x"))
        case "leave": return .left
        default: throw ClusterEntryError("input: unknown gesture \"\(gesture.prefix(40))\"")
        }
    }

    // MARK: Specs, points, feed steps

    private static func specValue(_ spec: ChartSpec) -> JSONValue {
        (try? JSONReader.parse(spec.encoded())) ?? .null
    }

    private static func spec(_ json: JSONValue) throws -> ChartSpec {
        do {
            return try ChartSpec.parse(json)
        } catch {
            throw ClusterEntryError("spec: \(error)")
        }
    }

    private static func pointsValue(_ p: EntryPoints) -> JSONValue {
        var members: [(String, JSONValue)] = [("chart", .string(p.chart))]
        if let creates = p.creates { members.append(("create", specValue(creates))) }
        members.append(("series", .array(p.series.map { .string($0) })))
        members.append(("s", .array(p.points.map { .number(Double($0.series)) })))
        members.append(("x", .array(p.points.map {
            switch $0.x {
            case .number(let x): return .number(x)
            case .text(let text): return .string(text)
            }
        })))
        members.append(("y", .array(p.points.map { .number($0.y) })))
        return .object(members)
    }

    private static func points(_ f: EntryFields) throws -> EntryPoints {
        let series = try f.array("series").map { value -> String in
            guard let name = value.string else { throw ClusterEntryError("points: a series name is not a string") }
            return name
        }
        let s = try f.array("s"), x = try f.array("x"), y = try f.array("y")
        guard s.count == x.count, x.count == y.count else { throw ClusterEntryError("points: columns of unequal length") }
        var points: [EntryPoint] = []
        points.reserveCapacity(s.count)
        for i in s.indices {
            guard let index = s[i].number.flatMap({ Int(exactly: $0) }), series.indices.contains(index) else {
                throw ClusterEntryError("points: series index \(i) out of range")
            }
            guard let value = y[i].number else { throw ClusterEntryError("points: y \(i) is not a number") }
            let px: EntryPoint.X
            switch x[i] {
            case .number(let n): px = .number(n)
            case .string(let text): px = .text(text)
            default: throw ClusterEntryError("points: x \(i) is neither a number nor text")
            }
            points.append(EntryPoint(series: index, x: px, y: value))
        }
        let creates = try f.optional("create").map(spec)
        return EntryPoints(chart: try f.string("chart"), creates: creates, series: series, points: points)
    }

    private static func feedValue(_ op: FeedOp) -> JSONValue {
        switch op {
        case .setCategory(let chart, let series, let category, let y):
            return .object([("op", .string("set")), ("chart", .string(chart)), ("series", .number(Double(series))),
                            ("category", .number(Double(category))), ("y", .number(y))])
        case .upsert(let chart, let x, let values):
            return .object([("op", .string("upsert")), ("chart", .string(chart)), ("x", .number(x)),
                            ("values", .array(values.map(optional)))])
        }
    }

    private static func feedOp(_ f: EntryFields) throws -> FeedOp {
        switch try f.string("op") {
        case "set":
            return .setCategory(chart: try f.string("chart"), series: try f.int("series"), category: try f.int("category"),
                                y: try f.number("y"))
        case "upsert":
            let values = try f.array("values").map { value -> Double? in
                if value.isNull { return nil }
                guard let n = value.number else { throw ClusterEntryError("feed: a value is not a number") }
                return n
            }
            return .upsert(chart: try f.string("chart"), x: try f.number("x"), values: values)
        case let other:
            throw ClusterEntryError("feed: unknown op \"\(other.prefix(40))\"")
        }
    }

    private static func optional(_ value: Double?) -> JSONValue { value.map { .number($0) } ?? .null }
    private static func optional(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
}

/// Typed reads of an entry's members, each failure naming the member.
private struct EntryFields {
    let json: JSONValue
    init(_ json: JSONValue) { self.json = json }

    func value(_ key: String) throws -> JSONValue {
        guard let value = json[key] else { throw ClusterEntryError("\(key): missing") }
        return value
    }

    func optional(_ key: String) -> JSONValue? {
        guard let value = json[key], !value.isNull else { return nil }
        return value
    }

    func string(_ key: String) throws -> String {
        guard let text = try value(key).string else { throw ClusterEntryError("\(key): not a string") }
        return text
    }

    func optionalString(_ key: String) -> String? { optional(key)?.string }

    func number(_ key: String) throws -> Double {
        guard let n = try value(key).number else { throw ClusterEntryError("\(key): not a number") }
        return n
    }

    func optionalNumber(_ key: String) throws -> Double? {
        guard let value = optional(key) else { return nil }
        guard let n = value.number else { throw ClusterEntryError("\(key): not a number") }
        return n
    }

    func int(_ key: String) throws -> Int {
        guard let n = Int(exactly: try number(key)) else { throw ClusterEntryError("\(key): not an integer") }
        return n
    }

    func bool(_ key: String) throws -> Bool {
        guard let b = try value(key).bool else { throw ClusterEntryError("\(key): not a boolean") }
        return b
    }

    func array(_ key: String) throws -> [JSONValue] {
        guard let items = try value(key).array else { throw ClusterEntryError("\(key): not an array") }
        return items
    }
}
