import ChartCast
import ChartCastProtocol
import ChartEngine
import Foundation
import XCTest

/// What the types cannot catch fails when the dashboard is declared, with exactly the message
/// the JSON path gives for the same mistake in a dashboard file.
final class DSLValidationTests: XCTestCase {
    private let timeChart = Chart("ok") { LineMark(x: .value("Time", Date.self), y: .value("v", Double.self)) }

    /// Declaring `charts` fails with `message`, and so does the dashboard file `json`.
    private func assertRefused(_ message: String, json: String, file: StaticString = #filePath, line: UInt = #line,
                               @DashboardBuilder _ charts: () -> [AnyChart]) {
        XCTAssertThrowsError(try Dashboard("Plant floor", charts: charts), file: file, line: line) { error in
            XCTAssertEqual(error as? ProtocolError, ProtocolError(.badField, message), file: file, line: line)
        }
        XCTAssertThrowsError(try Dashboard.parse(Array(json.utf8)), "the JSON path", file: file, line: line) { error in
            XCTAssertEqual(error as? ProtocolError, ProtocolError(.badField, message), "the JSON path", file: file, line: line)
        }
    }

    private func chartsJSON(_ specs: String...) -> String { #"{"title":"Plant floor","charts":["# + specs.joined(separator: ",") + "]}" }
    private let okJSON = #"{"id":"ok","mark":"line","x":{"kind":"time","label":"Time"},"y":{"label":"v"}}"#

    func testACategoryChartWithoutCategories() {
        assertRefused("charts[1].x.categories: is required",
                      json: chartsJSON(okJSON, #"{"id":"shifts","mark":"bar","x":{"kind":"category","label":"Shift"}}"#)) {
            timeChart
            Chart("shifts") { BarMark(x: .value("Shift", String.self), y: .value("Units", Int.self)) }
        }
    }

    func testEmptyAndRepeatedCategories() {
        assertRefused("charts[0].x.categories: must list 1–1000 names, got 0",
                      json: chartsJSON(#"{"id":"s","mark":"bar","x":{"kind":"category","categories":[]}}"#)) {
            Chart("s") { BarMark(x: .value("Shift", String.self), y: .value("Units", Int.self)) }.chartXScale(domain: [])
        }
        assertRefused(#"charts[0].x.categories[2]: "a" is listed twice"#,
                      json: chartsJSON(#"{"id":"s","mark":"bar","x":{"kind":"category","categories":["a","b","a"]}}"#)) {
            Chart("s") { BarMark(x: .value("Shift", String.self), y: .value("Units", Int.self)) }.chartXScale(domain: ["a", "b", "a"])
        }
        assertRefused("charts[0].x.categories[1]: must not be empty",
                      json: chartsJSON(#"{"id":"s","mark":"bar","x":{"kind":"category","categories":["a",""]}}"#)) {
            Chart("s") { BarMark(x: .value("Shift", String.self), y: .value("Units", Int.self)) }.chartXScale(domain: ["a", ""])
        }
    }

    func testDuplicateIDs() {
        assertRefused(#"charts[2].id: "ok" is used by an earlier chart"#,
                      json: chartsJSON(okJSON, #"{"id":"b","mark":"line","x":{"kind":"time"}}"#, okJSON)) {
            timeChart
            Chart("b") { LineMark(x: .value("Time", Date.self), y: .value("v", Double.self)) }
            timeChart
        }
    }

    func testBadIDs() {
        assertRefused(#"charts[0].id: "a b" must be 1–64 of A–Z a–z 0–9 _ . -"#,
                      json: chartsJSON(#"{"id":"a b","mark":"line","x":{"kind":"time"}}"#)) {
            Chart("a b") { LineMark(x: .value("Time", Date.self), y: .value("v", Double.self)) }
        }
        assertRefused(#"charts[0].id: "" must be 1–64 of A–Z a–z 0–9 _ . -"#,
                      json: chartsJSON(#"{"id":"","mark":"line","x":{"kind":"time"}}"#)) {
            Chart("") { LineMark(x: .value("Time", Date.self), y: .value("v", Double.self)) }
        }
    }

    func testWindowOutOfRange() {
        for window in [0, -3, 1_000_001] {
            assertRefused("charts[0].window: must be a whole number from 1 to 1000000",
                          json: chartsJSON(#"{"id":"ok","mark":"line","x":{"kind":"time"},"window":\#(window)}"#)) {
                timeChart.window(window)
            }
        }
    }

    func testThirtyThreeSeries() {
        let names = (0..<33).map { "s\($0)" }
        assertRefused("charts[0].series: must list 0–32 names, got 33",
                      json: chartsJSON(#"{"id":"ok","mark":"line","x":{"kind":"time"},"series":[\#(names.map { "\"\($0)\"" }.joined(separator: ","))]}"#)) {
            Chart("ok") {
                LineMark(x: .value("Time", Date.self), y: .value("v", Double.self)).foregroundStyle(by: .series(names))
            }
        }
    }

    func testBadSeriesNames() {
        assertRefused(#"charts[0].series[1]: "a" is listed twice"#,
                      json: chartsJSON(#"{"id":"ok","mark":"line","x":{"kind":"time"},"series":["a","a"]}"#)) {
            Chart("ok") { LineMark(x: .value("Time", Date.self), y: .value("v", Double.self)).foregroundStyle(by: ["a", "a"]) }
        }
        let long = String(repeating: "é", count: 150)
        assertRefused("charts[0].series[0]: is longer than 256 bytes",
                      json: chartsJSON(#"{"id":"ok","mark":"line","x":{"kind":"time"},"series":["\#(long)"]}"#)) {
            Chart("ok") { LineMark(x: .value("Time", Date.self), y: .value("v", Double.self)).foregroundStyle(by: [long]) }
        }
    }

    func testTitles() {
        assertRefused("charts[0].title: must not be empty",
                      json: chartsJSON(#"{"id":"ok","title":"","mark":"line","x":{"kind":"time"}}"#)) {
            Chart("ok", title: "") { LineMark(x: .value("Time", Date.self), y: .value("v", Double.self)) }
        }
        let long = String(repeating: "t", count: 201)
        assertRefused("charts[0].title: is longer than 200 characters",
                      json: chartsJSON(#"{"id":"ok","title":"\#(long)","mark":"line","x":{"kind":"time"}}"#)) {
            Chart("ok", title: long) { LineMark(x: .value("Time", Date.self), y: .value("v", Double.self)) }
        }
        XCTAssertThrowsError(try Dashboard(long) { timeChart }) { error in
            XCTAssertEqual(error as? ProtocolError, ProtocolError(.badField, "title: is longer than 200 characters"))
        }
        XCTAssertNoThrow(try Dashboard("") { timeChart }, "a dashboard's title may be empty, as in a file")
    }

    func testYDomains() {
        assertRefused("charts[0].y.domain: must have lo < hi",
                      json: chartsJSON(#"{"id":"ok","mark":"line","x":{"kind":"time"},"y":{"domain":[5,5]}}"#)) {
            timeChart.chartYScale(domain: 5...5)
        }
        assertRefused("charts[0].y.domain: must be [lo, hi] with two finite numbers",
                      json: chartsJSON(#"{"id":"ok","mark":"line","x":{"kind":"time"},"y":{"domain":[0,"inf"]}}"#)) {
            timeChart.chartYScale(domain: 0...Double.infinity)
        }
    }

    func testRetentions() {
        let rule = "charts[0].retention: must be 0 or a duration such as 30s, 15m, 12h or 7d (at most 3650d)"
        for (retention, text) in [(Retention.days(3651), "3651d"), (.seconds(0), "0s"), (.hours(-1), "-1h")] {
            assertRefused(rule, json: chartsJSON(#"{"id":"ok","mark":"line","x":{"kind":"time"},"retention":"\#(text)"}"#)) {
                timeChart.retention(retention)
            }
        }
        XCTAssertEqual(try timeChart.retention(.days(3650)).spec().retentionSeconds, 3650 * 86_400)
    }

    func testAChartOnItsOwnNamesTheFieldWithoutAPath() {
        XCTAssertThrowsError(try Chart("s") { BarMark(x: .value("Shift", String.self), y: .value("Units", Int.self)) }.spec()) { error in
            XCTAssertEqual(error as? ProtocolError, ProtocolError(.badField, "x.categories: is required"))
        }
        XCTAssertThrowsError(try ChartSpec.parse(Array(#"{"id":"s","mark":"bar","x":{"kind":"category"}}"#.utf8))) { error in
            XCTAssertEqual(error as? ProtocolError, ProtocolError(.badField, "x.categories: is required"))
        }
    }

    /// The one rule JSON cannot break: its single `drag` member cannot both scrub and select a range.
    func testAScrubAndARangeDragCannotShareTheDrag() {
        let message = "charts[1].interactions.drag: chartXSelection(value: .scrub) and chartXSelection(range: .drag) "
            + "both claim the drag; a chart's drag scrubs or selects a range"
        XCTAssertThrowsError(try Dashboard {
            timeChart
            Chart("both") { LineMark(x: .value("Time", Date.self), y: .value("v", Double.self)) }
                .chartXSelection(value: [.hover, .scrub])
                .chartXSelection(range: .drag)
        }) { error in
            XCTAssertEqual(error as? ProtocolError, ProtocolError(.badField, message))
        }
        XCTAssertThrowsError(try timeChart.chartXSelection(value: .scrub).chartXSelection(range: .drag).spec()) { error in
            XCTAssertEqual((error as? ProtocolError)?.message.hasPrefix("interactions.drag: "), true)
        }
    }
}
