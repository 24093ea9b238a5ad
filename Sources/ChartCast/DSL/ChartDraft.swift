import ChartCastProtocol
import ChartEngine

/// Everything a `Chart` declares, kind-erased, with `nil` for what it leaves to the schema's
/// defaults. It becomes a spec only through `json()` — the spec object a JSON author would write —
/// and `ChartSpec.parse` or `Dashboard.parse`, so a declared chart and a PUT one meet the same rules.
struct ChartDraft: Sendable {
    var id: String
    var title: String?
    var mark: Mark
    var xKind: XKind
    var xLabel: String
    var yLabel: String
    var series: [String]?
    var categories: [String]?
    var yDomain: ClosedRange<Double>?
    var valueSelection: ValueSelection?
    var rangeSelection: RangeSelection?
    var window: Int?
    var retention: Retention?

    /// `.scrub` and a range drag both claim the one drag gesture.
    var dragIsClaimedTwice: Bool {
        (valueSelection?.contains(.scrub) ?? false) && (rangeSelection?.contains(.drag) ?? false)
    }

    /// The spec object, members in the schema's order, only those declared.
    func json() -> JSONValue {
        var members: [(String, JSONValue)] = [("id", .string(id))]
        if let title { members.append(("title", .string(title))) }
        members.append(("mark", .string(mark.wireName)))
        var x: [(String, JSONValue)] = [("kind", .string(xKind.wireName)), ("label", .string(xLabel))]
        if let categories { x.append(("categories", .array(categories.map(JSONValue.string)))) }
        members.append(("x", .object(x)))
        var y: [(String, JSONValue)] = [("label", .string(yLabel))]
        if let yDomain { y.append(("domain", .array([.number(yDomain.lowerBound), .number(yDomain.upperBound)]))) }
        members.append(("y", .object(y)))
        if let series { members.append(("series", .array(series.map(JSONValue.string)))) }
        if valueSelection != nil || rangeSelection != nil {
            let value = valueSelection ?? [], range = rangeSelection ?? []
            let drag: DragInteraction = range.contains(.drag) ? .range : value.contains(.scrub) ? .scrub : .none
            members.append(("interactions", .object([("hover", .bool(value.contains(.hover))),
                                                     ("drag", .string(drag.wireName)),
                                                     ("tap", .bool(value.contains(.tap)))])))
        }
        if let window { members.append(("window", .number(Double(window)))) }
        if let retention { members.append(("retention", .string(retention.text))) }
        return .object(members)
    }

    /// The one rule JSON cannot break (it has a single `drag` member), worded like the schema's.
    func checkSelections(path: String) throws {
        guard dragIsClaimedTwice else { return }
        throw ProtocolError(.badField, "\(path.isEmpty ? "" : path + ".")interactions.drag: chartXSelection(value: .scrub) "
                            + "and chartXSelection(range: .drag) both claim the drag; a chart's drag scrubs or selects a range")
    }

    /// The spec, checked by the schema (`path`: `"charts[2]"`, or empty on its own).
    func spec(path: String) throws -> ChartSpec {
        let spec = try ChartSpec.parse(json(), path: path)
        try checkSelections(path: path)
        return spec
    }
}
