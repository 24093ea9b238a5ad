#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ChartEngine

/// A label and a Swift type standing for the values a chart will receive on one axis, as in
/// Swift Charts' `.value("Label", …)` — but naming the type instead of binding data:
/// `.value("Time", Date.self)`, `.value("Month", String.self)`, `.value("Load", Double.self)`.
///
/// On x, the type picks the axis kind at compile time (see `XPlottable`); on y it must be numeric
/// (`YPlottable`). The label becomes the axis label of the spec.
public struct PlottableValue<Value>: Sendable {
    /// The axis label (`x.label` or `y.label` in the schema); may be empty.
    public let label: String

    /// A value of type `Value` plotted under `label`.
    public static func value(_ label: String, _ type: Value.Type) -> PlottableValue<Value> {
        PlottableValue(label: label)
    }
}

/// A type whose values can stand on a chart's x axis; its `xKind` is the spec's `x.kind`.
///
/// Conformances: `Date` (time), the standard integer and floating-point types (linear), `String`
/// and every `ChartCategory` enum (category).
public protocol XPlottable {
    /// The axis kind a chart over this type has.
    static var xKind: XKind { get }
    /// The value as a point's x on the wire (time: epoch milliseconds; category: its name).
    var chartX: XValue { get }
}

/// x values on a continuous axis, time or linear: only charts over them keep a rolling `window`.
public protocol ContinuousXPlottable: XPlottable {}

/// x values on a category axis: only charts over them list categories (`chartXScale(domain:)`).
public protocol CategoryPlottable: XPlottable {
    /// The category's name on the wire and on the axis.
    var categoryName: String { get }
    /// The categories a chart over this type has when it lists none, in axis order; `nil` when
    /// the type cannot know them (`String`), so the chart must list them.
    static var implicitCategories: [String]? { get }
}

extension CategoryPlottable {
    /// Always `.category`.
    public static var xKind: XKind { .category }
    /// The category's name.
    public var chartX: XValue { .category(categoryName) }
    /// None by default: the chart lists its categories with `chartXScale(domain:)`.
    public static var implicitCategories: [String]? { nil }
}

/// An enum whose cases are a category axis, in declaration order, named by their raw values:
///
/// ```swift
/// enum Weekday: String, ChartCategory { case mon = "Mon", tue = "Tue", wed = "Wed" }
/// Chart("steps") { BarMark(x: .value("Day", Weekday.self), y: .value("Steps", Int.self)) }
/// ```
///
/// A chart over it needs no `chartXScale(domain:)`; one may still pick and order a subset.
public protocol ChartCategory: CategoryPlottable, CaseIterable, RawRepresentable where RawValue == String {}

extension ChartCategory {
    /// The raw value.
    public var categoryName: String { rawValue }
    /// Every case's raw value, in declaration order.
    public static var implicitCategories: [String]? { allCases.map(\.rawValue) }
}

/// A type whose values can stand on a chart's y axis: a number.
public protocol YPlottable {}

extension String: CategoryPlottable {
    /// The string itself.
    public var categoryName: String { self }
}

extension Date: ContinuousXPlottable {
    /// Always `.time` (epoch milliseconds on the wire).
    public static var xKind: XKind { .time }
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var chartX: XValue { .number((timeIntervalSince1970 * 1000).rounded()) }
}

/// Numbers: linear on x, plain values on y.
public protocol LinearPlottable: ContinuousXPlottable, YPlottable {}

extension LinearPlottable where Self: BinaryInteger {
    /// The number.
    public var chartX: XValue { .number(Double(self)) }
}

extension LinearPlottable where Self: BinaryFloatingPoint {
    /// The number.
    public var chartX: XValue { .number(Double(self)) }
}

extension LinearPlottable {
    /// Always `.linear`.
    public static var xKind: XKind { .linear }
}

extension Double: LinearPlottable {}
extension Float: LinearPlottable {}
extension Int: LinearPlottable {}
extension Int8: LinearPlottable {}
extension Int16: LinearPlottable {}
extension Int32: LinearPlottable {}
extension Int64: LinearPlottable {}
extension UInt: LinearPlottable {}
extension UInt8: LinearPlottable {}
extension UInt16: LinearPlottable {}
extension UInt32: LinearPlottable {}
extension UInt64: LinearPlottable {}
