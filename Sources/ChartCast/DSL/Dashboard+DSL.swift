import ChartCastProtocol
import ChartEngine

/// A dashboard: a title and its charts (`ChartCastProtocol.Dashboard`), nameable with only
/// `import ChartCast`.
public typealias Dashboard = ChartCastProtocol.Dashboard
/// One chart's spec, the schema's model (`ChartEngine.ChartSpec`).
public typealias ChartSpec = ChartEngine.ChartSpec
/// The error of a declaration that breaks a schema rule (`ChartCastProtocol.ProtocolError`).
public typealias ProtocolError = ChartCastProtocol.ProtocolError

/// A `Chart` of any x type, as a dashboard lists it.
public struct AnyChart: Sendable {
    let draft: ChartDraft

    /// Erases the x type of `chart`.
    public init<X>(_ chart: Chart<X>) { draft = chart.draft }
}

/// The body of a `Dashboard`: its charts in order, of any x types; `if`, `if let`, `switch` and
/// `for` work as in any result builder.
@resultBuilder
public enum DashboardBuilder {
    /// One chart.
    public static func buildExpression<X>(_ chart: Chart<X>) -> [AnyChart] { [AnyChart(chart)] }
    /// One chart, type-erased.
    public static func buildExpression(_ chart: AnyChart) -> [AnyChart] { [chart] }
    /// Charts made elsewhere.
    public static func buildExpression(_ charts: [AnyChart]) -> [AnyChart] { charts }
    /// The charts in order.
    public static func buildBlock(_ parts: [AnyChart]...) -> [AnyChart] { parts.flatMap { $0 } }
    /// `if` without `else`.
    public static func buildOptional(_ part: [AnyChart]?) -> [AnyChart] { part ?? [] }
    /// The first branch of an `if`/`else` or `switch`.
    public static func buildEither(first part: [AnyChart]) -> [AnyChart] { part }
    /// The second branch of an `if`/`else` or `switch`.
    public static func buildEither(second part: [AnyChart]) -> [AnyChart] { part }
    /// `for … in`.
    public static func buildArray(_ parts: [[AnyChart]]) -> [AnyChart] { parts.flatMap { $0 } }
}

extension ChartCastProtocol.Dashboard {
    /// A dashboard declared in Swift, checked by the dashboard file's rules:
    ///
    /// ```swift
    /// let dashboard = try Dashboard("Plant floor") {
    ///     Chart("cpu", title: "CPU load") {
    ///         LineMark(x: .value("Time", Date.self), y: .value("%", Double.self))
    ///     }
    ///     Chart("shifts") {
    ///         BarMark(x: .value("Shift", String.self), y: .value("Units", Int.self))
    ///     }
    ///     .chartXScale(domain: ["Early", "Late", "Night"])
    /// }
    /// ```
    ///
    /// The result equals `Dashboard.parse` of the equivalent `{"title":…,"charts":[…]}` file.
    /// - Parameter title: 0–200 characters.
    /// - Throws: `ProtocolError(.badField)` with the file's message for the first broken rule,
    ///   the chart named by its index (`charts[1].x.categories: is required`,
    ///   `charts[2].id: "cpu" is used by an earlier chart`).
    public init(_ title: String = "", @DashboardBuilder charts: () -> [AnyChart]) throws {
        let drafts = charts()
        let document = JSONValue.object([("title", .string(title)), ("charts", .array(drafts.map { $0.draft.json() }))])
        self = try ChartCastProtocol.Dashboard.parse(document)
        for (index, chart) in drafts.enumerated() { try chart.draft.checkSelections(path: "charts[\(index)]") }
    }
}
