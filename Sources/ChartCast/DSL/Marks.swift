import ChartEngine

/// The series a mark draws, named up front (the schema's `series`): `.series("user", "system")`
/// or an array literal. Data that names a series not listed adds it, up to 32 per chart.
public struct ChartSeries: ExpressibleByArrayLiteral, Sendable {
    /// The series names, in column order.
    public var names: [String]

    /// The series `names`, in column order.
    public init(_ names: [String]) { self.names = names }

    /// The series listed, in column order.
    public init(arrayLiteral names: String...) { self.names = names }

    /// The series listed, in column order.
    public static func series(_ names: String...) -> ChartSeries { ChartSeries(names) }

    /// The series `names`, in column order.
    public static func series(_ names: [String]) -> ChartSeries { ChartSeries(names) }
}

/// What one mark declares — its kind, axis labels and series — as its chart reads it. Opaque:
/// made by `BarMark`, `LineMark`, `PointMark` and `AreaMark`.
public struct MarkDeclaration<X: XPlottable>: Sendable {
    let mark: Mark
    let xLabel: String
    let yLabel: String
    var series: [String]?
}

/// A mark a `Chart` can hold: the four the schema knows. Its `X` is the chart's x type.
public protocol ChartMark: Sendable {
    /// The Swift type of the x values; it picks the axis kind.
    associatedtype X: XPlottable
    /// What the mark declares.
    var declaration: MarkDeclaration<X> { get }
}

/// Bars, like Swift Charts' `BarMark` (`"mark": "bar"`). Bars of several series stand side by
/// side within a category.
public struct BarMark<X: XPlottable>: ChartMark {
    /// What the mark declares.
    public private(set) var declaration: MarkDeclaration<X>

    /// Bars over `x`, as high as `y`.
    public init<Y: YPlottable>(x: PlottableValue<X>, y: PlottableValue<Y>) {
        declaration = MarkDeclaration(mark: .bar, xLabel: x.label, yLabel: y.label)
    }

    /// Names the chart's series, one colour each (the schema's `series`).
    public func foregroundStyle(by series: ChartSeries) -> BarMark {
        var copy = self
        copy.declaration.series = series.names
        return copy
    }
}

/// Lines, like Swift Charts' `LineMark` (`"mark": "line"`): one per series.
public struct LineMark<X: XPlottable>: ChartMark {
    /// What the mark declares.
    public private(set) var declaration: MarkDeclaration<X>

    /// A line through (`x`, `y`).
    public init<Y: YPlottable>(x: PlottableValue<X>, y: PlottableValue<Y>) {
        declaration = MarkDeclaration(mark: .line, xLabel: x.label, yLabel: y.label)
    }

    /// Names the chart's series, one colour each (the schema's `series`).
    public func foregroundStyle(by series: ChartSeries) -> LineMark {
        var copy = self
        copy.declaration.series = series.names
        return copy
    }
}

/// Points, like Swift Charts' `PointMark` (`"mark": "point"`).
public struct PointMark<X: XPlottable>: ChartMark {
    /// What the mark declares.
    public private(set) var declaration: MarkDeclaration<X>

    /// A point at (`x`, `y`).
    public init<Y: YPlottable>(x: PlottableValue<X>, y: PlottableValue<Y>) {
        declaration = MarkDeclaration(mark: .point, xLabel: x.label, yLabel: y.label)
    }

    /// Names the chart's series, one colour each (the schema's `series`).
    public func foregroundStyle(by series: ChartSeries) -> PointMark {
        var copy = self
        copy.declaration.series = series.names
        return copy
    }
}

/// A filled line, like Swift Charts' `AreaMark` (`"mark": "area"`): filled down to the y
/// domain's floor (or 0 when inside it).
public struct AreaMark<X: XPlottable>: ChartMark {
    /// What the mark declares.
    public private(set) var declaration: MarkDeclaration<X>

    /// An area under (`x`, `y`).
    public init<Y: YPlottable>(x: PlottableValue<X>, y: PlottableValue<Y>) {
        declaration = MarkDeclaration(mark: .area, xLabel: x.label, yLabel: y.label)
    }

    /// Names the chart's series, one colour each (the schema's `series`).
    public func foregroundStyle(by series: ChartSeries) -> AreaMark {
        var copy = self
        copy.declaration.series = series.names
        return copy
    }
}

/// The body of a `Chart`: exactly one mark.
///
/// The schema draws one `mark` per chart (every series of a chart is drawn the same way), so a
/// body with a second mark — a `PointMark` over a `LineMark` — or none does not compile. Name
/// several series on the one mark with `foregroundStyle(by:)`. (A body that is a single mark
/// expression is usually taken by `Chart`'s plain-closure initializer, which infers the x type
/// earlier; both mean the same.)
@resultBuilder
public enum ChartContentBuilder {
    /// The one mark.
    public static func buildBlock<M: ChartMark>(_ mark: M) -> MarkDeclaration<M.X> { mark.declaration }

    /// Not allowed: a chart draws one mark.
    @available(*, unavailable, message: "a chart draws exactly one mark (the schema has one \"mark\" per chart); name several series with .foregroundStyle(by:)")
    public static func buildBlock<First: ChartMark, Second: ChartMark, each More>(_ first: First, _ second: Second, _ more: repeat each More) -> MarkDeclaration<First.X> {
        first.declaration
    }

    /// Not allowed: a chart draws one mark.
    @available(*, unavailable, message: "a chart draws exactly one mark: BarMark, LineMark, PointMark or AreaMark")
    public static func buildBlock() -> MarkDeclaration<String> { fatalError() }
}
