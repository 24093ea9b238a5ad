import ChartCast
import ChartCastProtocol
import ChartEngine
import Foundation
import XCTest

/// Weekdays as a category type: a chart over it needs no `chartXScale(domain:)`.
enum Weekday: String, ChartCategory {
    case mon = "Mon", tue = "Tue", wed = "Wed", thu = "Thu", fri = "Fri", sat = "Sat", sun = "Sun"
}

/// Months as the demo's expenses chart spells them.
enum ShortMonth: String, ChartCategory {
    case jan = "JAN", feb = "FEB", mar = "MAR", apr = "APR", may = "MAY", jun = "JUN"
    case jul = "JUL", aug = "AUG", sep = "SEP", oct = "OCT", nov = "NOV", dec = "DEC"
}

/// A chart declared in Swift is the chart the same JSON describes: for every mark, every axis
/// kind and every modifier, `spec()` equals `ChartSpec.parse` of the JSON a file would hold.
final class DSLSpecTests: XCTestCase {
    private func assertSameSpec<X>(_ chart: Chart<X>, _ json: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let expected = try ChartSpec.parse(Array(json.utf8))
        XCTAssertEqual(try chart.spec(), expected, file: file, line: line)
    }

    func testLineOnATimeAxisWithEveryModifier() throws {
        let chart = Chart("cpu", title: "CPU load") {
            LineMark(x: .value("Time", Date.self), y: .value("%", Double.self))
                .foregroundStyle(by: .series("user", "system"))
        }
        .chartYScale(domain: 0...100)
        .chartXSelection(value: [.hover, .tap])
        .chartXSelection(range: .drag)
        .window(600)
        .retention(.days(7))
        try assertSameSpec(chart, #"""
        {"id":"cpu","title":"CPU load","mark":"line","x":{"kind":"time","label":"Time"},"y":{"label":"%","domain":[0,100]},
         "series":["user","system"],"interactions":{"hover":true,"drag":"range","tap":true},"window":600,"retention":"7d"}
        """#)
    }

    func testBarOnAStringCategoryAxisWithEveryModifier() throws {
        let chart = Chart("shifts", title: "Units per shift") {
            BarMark(x: .value("Shift", String.self), y: .value("Units", Int.self))
                .foregroundStyle(by: ["Line 1", "Line 2"])
        }
        .chartXScale(domain: ["Early", "Late", "Night"])
        .chartYScale(domain: -5...250.5)
        .chartXSelection(value: [.scrub, .tap])
        .retention(.hours(12))
        try assertSameSpec(chart, #"""
        {"id":"shifts","title":"Units per shift","mark":"bar",
         "x":{"kind":"category","label":"Shift","categories":["Early","Late","Night"]},"y":{"label":"Units","domain":[-5,250.5]},
         "series":["Line 1","Line 2"],"interactions":{"hover":false,"drag":"scrub","tap":true},"retention":"12h"}
        """#)
    }

    func testPointOnALinearAxisWithEveryModifier() throws {
        let chart = Chart("scatter", title: "Load vs. temperature") {
            PointMark(x: .value("Load", Double.self), y: .value("°C", Float.self))
                .foregroundStyle(by: .series(["pump"]))
        }
        .chartYScale(domain: 10...90)
        .chartXSelection(value: .hover)
        .chartXSelection(range: .drag)
        .window(1_000_000)
        .retention(.minutes(15))
        try assertSameSpec(chart, #"""
        {"id":"scatter","title":"Load vs. temperature","mark":"point","x":{"kind":"linear","label":"Load"},
         "y":{"label":"°C","domain":[10,90]},"series":["pump"],"interactions":{"hover":true,"drag":"range","tap":false},
         "window":1000000,"retention":"15m"}
        """#)
    }

    func testAreaOnAnIntegerLinearAxisWithNoInteractions() throws {
        let chart = Chart("queue") {
            AreaMark(x: .value("Tick", Int.self), y: .value("Depth", UInt32.self))
        }
        .chartYScale(domain: -1...1)
        .chartXSelection(value: [])
        .window(1)
        .retention(.seconds(30))
        try assertSameSpec(chart, #"""
        {"id":"queue","mark":"area","x":{"kind":"linear","label":"Tick"},"y":{"label":"Depth","domain":[-1,1]},
         "interactions":{"hover":false,"drag":"none","tap":false},"window":1,"retention":"30s"}
        """#)
    }

    func testAreaOnAnEnumCategoryAxisTakesTheCasesInOrder() throws {
        let chart = Chart("steps", title: "Steps") {
            AreaMark(x: .value("Day", Weekday.self), y: .value("Steps", Int.self))
        }
        .retention(.none)
        try assertSameSpec(chart, #"""
        {"id":"steps","title":"Steps","mark":"area",
         "x":{"kind":"category","label":"Day","categories":["Mon","Tue","Wed","Thu","Fri","Sat","Sun"]},
         "y":{"label":"Steps"},"retention":"0"}
        """#)
        let weekend = Chart("weekend") { BarMark(x: .value("Day", Weekday.self), y: .value("h", Double.self)) }
            .chartXScale(domain: [.sun, .sat])
        try assertSameSpec(weekend, #"{"id":"weekend","mark":"bar","x":{"kind":"category","label":"Day","categories":["Sun","Sat"]},"y":{"label":"h"}}"#)
    }

    func testUndeclaredFieldsTakeTheSchemasDefaults() throws {
        let time = try Chart("t") { LineMark(x: .value("", Date.self), y: .value("", Double.self)) }.spec()
        XCTAssertEqual(time, try ChartSpec.parse(Array(#"{"id":"t","mark":"line","x":{"kind":"time"}}"#.utf8)))
        XCTAssertEqual(time.title, "t")
        XCTAssertEqual(time.interactions, ChartSpec.defaultInteractions(for: .time))
        XCTAssertEqual(time.window, ChartSpec.defaultWindow)
        XCTAssertEqual(time.retentionSeconds, ChartSpec.defaultRetentionSeconds)
        XCTAssertEqual(time.series, [])
        XCTAssertNil(time.fixedYDomain)

        let category = try Chart("c") { BarMark(x: .value("Day", Weekday.self), y: .value("n", Int.self)) }.spec()
        XCTAssertEqual(category.interactions, ChartSpec.defaultInteractions(for: .category))
        XCTAssertNil(category.window)
        XCTAssertEqual(try Chart("l") { PointMark(x: .value("x", Int64.self), y: .value("y", Int8.self)) }.spec().xKind, .linear)
    }

    func testOneSelectionModifierTurnsTheOthersOff() throws {
        let range = try Chart("r") { LineMark(x: .value("t", Date.self), y: .value("v", Double.self)) }
            .chartXSelection(range: .drag).spec()
        XCTAssertEqual(range.interactions, Interactions(hover: false, drag: .range, tap: false))
        let none = try Chart("n") { BarMark(x: .value("d", Weekday.self), y: .value("v", Double.self)) }
            .chartXSelection(range: []).spec()
        XCTAssertEqual(none.interactions, Interactions(hover: false, drag: .none, tap: false))
    }

    // MARK: Dashboards

    private let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Examples/dashboards")

    func testTheDemoDashboardDeclaredInSwiftIsTheDemoFile() throws {
        let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                      "November", "December"]
        let declared = try Dashboard("ChartCast demo") {
            Chart("workouts", title: "Walking minutes") {
                BarMark(x: .value("Day", Weekday.self), y: .value("Minutes", Double.self))
                    .foregroundStyle(by: ["Minutes"])
            }
            .chartXSelection(value: .scrub)
            .retention(.none)

            Chart("intake", title: "Calories eaten") {
                BarMark(x: .value("Date", Date.self), y: .value("Calories", Double.self))
                    .foregroundStyle(by: ["Calories"])
            }
            .chartXSelection(range: .drag)
            .window(60)
            .retention(.none)

            Chart("expenses", title: "Monthly expenses") {
                BarMark(x: .value("Month", ShortMonth.self), y: .value("Expense", Double.self))
                    .foregroundStyle(by: ["Expense"])
            }
            .chartXSelection(value: .scrub)
            .retention(.none)

            Chart("sales", title: "Product sales in 2022") {
                BarMark(x: .value("Month", String.self), y: .value("Sales", Int.self))
                    .foregroundStyle(by: .series("Ice Cream", "Coffee", "Muffins"))
            }
            .chartXScale(domain: months)
            .chartXSelection(value: .hover)
            .retention(.none)

            Chart("temperature", title: "Skin temperature") {
                LineMark(x: .value("Date", Date.self), y: .value("Temperature (°C)", Double.self))
                    .foregroundStyle(by: ["Temperature"])
            }
            .chartXSelection(value: .tap)
            .chartXSelection(range: .drag)
            .window(60)
            .retention(.none)
        }
        let file = try Dashboard.parse(Array(Data(contentsOf: examples.appendingPathComponent("demo.json"))))
        XCTAssertEqual(declared, file)
        XCTAssertEqual(try Dashboard.parse(declared.encode()), declared, "a declared dashboard saves as a file that loads back")
    }

    func testADashboardBodyTakesLoopsConditionsAndErasedCharts() throws {
        let pumps = ["p1", "p2", "p3"]
        let withDetail = true
        let overview = AnyChart(Chart("overview") { BarMark(x: .value("Day", Weekday.self), y: .value("h", Double.self)) })
        let dashboard = try Dashboard {
            overview
            for pump in pumps {
                Chart("pressure.\(pump)", title: "Pressure \(pump)") {
                    LineMark(x: .value("Time", Date.self), y: .value("bar", Double.self))
                }
            }
            if withDetail {
                Chart("detail") { PointMark(x: .value("x", Double.self), y: .value("y", Double.self)) }
            } else {
                Chart("summary") { PointMark(x: .value("x", Double.self), y: .value("y", Double.self)) }
            }
            [AnyChart(Chart("extra") { AreaMark(x: .value("x", Int.self), y: .value("y", Int.self)) })]
        }
        XCTAssertEqual(dashboard.title, "")
        XCTAssertEqual(dashboard.charts.map(\.id), ["overview", "pressure.p1", "pressure.p2", "pressure.p3", "detail", "extra"])
        XCTAssertEqual(dashboard.charts.map(\.mark), [.bar, .line, .line, .line, .point, .area])
    }
}
