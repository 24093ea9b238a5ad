import ChartEngine
import XCTest
@testable import ChartCastProtocol

/// The one chart schema: every rule, the defaults, and errors that name the field.
final class ChartSchemaTests: XCTestCase {
    private func parse(_ text: String) throws -> ChartSpec { try ChartSpec.parse(Array(text.utf8)) }

    func testTheBriefsExampleParsesWithEveryField() throws {
        let spec = try parse(#"""
        {"id":"cpu","title":"CPU load","mark":"line","x":{"kind":"time","label":"Time"},"y":{"label":"%","domain":[0,100]},
         "series":["user","system"],"interactions":{"hover":true,"drag":"range","tap":true},"window":600,"retention":"7d",
         "future":{"ignored":true}}
        """#)
        XCTAssertEqual(spec, ChartSpec(id: "cpu", title: "CPU load", mark: .line, xKind: .time, xLabel: "Time", yLabel: "%",
                                       series: ["user", "system"], interactions: Interactions(hover: true, drag: .range, tap: true),
                                       window: 600, fixedYDomain: 0...100, retentionSeconds: 604_800))
        XCTAssertEqual(try ChartSpec.parse(spec.encoded()), spec, "what is written parses back")
    }

    func testDefaults() throws {
        let time = try parse(#"{"id":"t","mark":"area","x":{"kind":"time"}}"#)
        XCTAssertEqual(time.title, "t", "the title defaults to the id")
        XCTAssertEqual(time.interactions, Interactions(hover: true, drag: .range, tap: true))
        XCTAssertEqual(time.window, 1000)
        XCTAssertEqual(time.retentionSeconds, 7 * 86_400)
        XCTAssertEqual(time.series, [], "series are open: data adds them")
        XCTAssertNil(time.fixedYDomain)
        let category = try parse(#"{"id":"c","mark":"bar","x":{"kind":"category","categories":["a","b"]},"interactions":{"tap":true}}"#)
        XCTAssertEqual(category.interactions, Interactions(hover: true, drag: .scrub, tap: true), "missing members keep their defaults")
        XCTAssertNil(category.window)
        XCTAssertEqual(try parse(#"{"id":"r","mark":"line","x":{"kind":"linear"},"retention":0}"#).retentionSeconds, 0)
    }

    /// Each row: a spec that breaks one rule → the start of the error message (its field).
    private let invalid: [(String, String)] = [
        (#"{"mark":"line","x":{"kind":"time"}}"#, "id: is required"),
        (#"{"id":"","mark":"line","x":{"kind":"time"}}"#, "id: \"\" must be 1–64 of"),
        (#"{"id":"a b","mark":"line","x":{"kind":"time"}}"#, "id: \"a b\""),
        (#"{"id":"\#(String(repeating: "a", count: 65))","mark":"line","x":{"kind":"time"}}"#, "id: "),
        (#"{"id":"a","title":"","mark":"line","x":{"kind":"time"}}"#, "title: must not be empty"),
        (#"{"id":"a","title":"\#(String(repeating: "t", count: 201))","mark":"line","x":{"kind":"time"}}"#, "title: is longer than 200"),
        (#"{"id":"a","mark":"pie","x":{"kind":"time"}}"#, #"mark: "pie" is not one of bar, line, point, area"#),
        (#"{"id":"a","mark":"line"}"#, "x: is required"),
        (#"{"id":"a","mark":"line","x":{"kind":"log"}}"#, #"x.kind: "log" is not one of category, time, linear"#),
        (#"{"id":"a","mark":"bar","x":{"kind":"category"}}"#, "x.categories: is required"),
        (#"{"id":"a","mark":"bar","x":{"kind":"category","categories":[]}}"#, "x.categories: must list 1–1000 names, got 0"),
        (#"{"id":"a","mark":"bar","x":{"kind":"category","categories":["a","a"]}}"#, #"x.categories[1]: "a" is listed twice"#),
        (#"{"id":"a","mark":"bar","x":{"kind":"category","categories":["a",3]}}"#, "x.categories[1]: must be a string"),
        (#"{"id":"a","mark":"line","x":{"kind":"time","categories":["a"]}}"#, "x.categories: only category charts"),
        (#"{"id":"a","mark":"line","x":{"kind":"time"},"y":{"domain":[5,5]}}"#, "y.domain: must have lo < hi"),
        (#"{"id":"a","mark":"line","x":{"kind":"time"},"y":{"domain":[5,"x"]}}"#, "y.domain: must be [lo, hi]"),
        (#"{"id":"a","mark":"line","x":{"kind":"time"},"series":["s",""]}"#, "series[1]: must not be empty"),
        (#"{"id":"a","mark":"line","x":{"kind":"time"},"series":[\#((0..<33).map { "\"s\($0)\"" }.joined(separator: ","))]}"#,
         "series: must list 0–32 names, got 33"),
        (#"{"id":"a","mark":"line","x":{"kind":"time"},"interactions":{"drag":"lasso"}}"#, #"interactions.drag: "lasso" is not one of none, scrub, range"#),
        (#"{"id":"a","mark":"line","x":{"kind":"time"},"interactions":{"hover":"yes"}}"#, "interactions.hover: must be a boolean"),
        (#"{"id":"a","mark":"line","x":{"kind":"time"},"window":0}"#, "window: must be a whole number from 1 to 1000000"),
        (#"{"id":"a","mark":"line","x":{"kind":"time"},"window":1000001}"#, "window: must be a whole number from 1 to 1000000"),
        (#"{"id":"a","mark":"line","x":{"kind":"time"},"window":2.5}"#, "window: must be a whole number"),
        (#"{"id":"a","mark":"bar","x":{"kind":"category","categories":["a"]},"window":5}"#, "window: only time and linear charts"),
        (#"{"id":"a","mark":"line","x":{"kind":"time"},"retention":"7w"}"#, "retention: must be 0 or a duration"),
        (#"{"id":"a","mark":"line","x":{"kind":"time"},"retention":"-5s"}"#, "retention: must be 0 or a duration"),
        (#"{"id":"a","mark":"line","x":{"kind":"time"},"retention":"9999d"}"#, "retention: must be 0 or a duration"),
        (#"{"id":"a","mark":"line","x":{"kind":"time"},"retention":7}"#, "retention: must be 0 or a duration"),
    ]

    func testEveryRuleIsCheckedAndTheErrorNamesTheField() {
        for (text, expected) in invalid {
            XCTAssertThrowsError(try parse(text), text) { error in
                guard let error = error as? ProtocolError else { return XCTFail("\(text): \(error)") }
                XCTAssertEqual(error.code, .badField, text)
                XCTAssertTrue(error.message.hasPrefix(expected), "\(text)\n  got:  \(error.message)\n  want: \(expected)…")
            }
        }
    }

    /// Found by the spec fuzz target's bound on error messages (Fuzz/corpus/spec/bounded-error-*):
    /// quoting "80 characters" of an id or a repeated series made of combining marks echoed
    /// kilobytes.
    func testErrorsQuoteAtMost80ScalarsOfTheInput() {
        let marks = String(repeating: "\u{301}", count: 1500)
        let quoted = "\"a" + String(repeating: "\u{301}", count: 79) + "\""
        for (text, field) in [(#"{"id":"a\#(marks)","mark":"line","x":{"kind":"time"}}"#, "id: "),
                              (#"{"id":"c","mark":"a\#(marks)","x":{"kind":"time"}}"#, "mark: "),
                              (#"{"id":"c","mark":"line","x":{"kind":"time"},"series":["a\#(marks)","a\#(marks)"]}"#, "series[1]: ")] {
            XCTAssertThrowsError(try parse(text)) { error in
                guard let error = error as? ProtocolError else { return XCTFail("\(error)") }
                XCTAssertTrue(error.message.hasPrefix(field), error.message)
                XCTAssertLessThan(error.message.utf8.count, 300, error.message)
                if field != "mark: " { XCTAssertTrue(error.message.contains(quoted), error.message) }
            }
        }
    }

    /// A text repeated in many messages (each point of a category chart names its category) is
    /// bounded in bytes, not only in characters: one character can carry any number of marks.
    func testTextsAreBoundedInBytesAndCategoriesInAll() throws {
        let emoji = String(repeating: "\u{1F600}", count: 200)   // 200 characters, 800 bytes: fits
        XCTAssertEqual(try parse(#"{"id":"t","title":"\#(emoji)","mark":"line","x":{"kind":"time","label":"\#(emoji)"}}"#).title, emoji)
        let marked = "a" + String(repeating: "\u{301}", count: 400)   // 1 character, 801 bytes
        for (text, field) in [(#"{"id":"t","title":"\#(marked)","mark":"line","x":{"kind":"time"}}"#, "title: "),
                              (#"{"id":"t","mark":"line","x":{"kind":"time"},"y":{"label":"\#(marked)"}}"#, "y.label: "),
                              (#"{"id":"t","mark":"bar","x":{"kind":"category","categories":["b","\#(marked)"]}}"#, "x.categories[1]: ")] {
            XCTAssertThrowsError(try parse(text)) { error in
                let message = (error as? ProtocolError)?.message ?? "\(error)"
                XCTAssertTrue(message.hasPrefix(field) && message.hasSuffix("is longer than 800 bytes"), message)
            }
        }
        // 768 names of 33 bytes and 232 of 32: 32,768 bytes, the most.
        let names = (0..<1_000).map { String(format: "%05d", $0) + String(repeating: "c", count: $0 < 768 ? 28 : 27) }
        func list(_ names: [String]) -> String { names.map { "\"\($0)\"" }.joined(separator: ",") }
        XCTAssertEqual(names.reduce(0) { $0 + $1.utf8.count }, 32_768)
        XCTAssertEqual(try parse(#"{"id":"c","mark":"bar","x":{"kind":"category","categories":[\#(list(names))]}}"#)
            .categories.count, 1_000)
        let oneByteMore = list(names.dropLast() + [names[999] + "c"])
        let over = #"{"id":"c","mark":"bar","x":{"kind":"category","categories":[\#(oneByteMore)]}}"#
        XCTAssertThrowsError(try parse(over)) { error in
            XCTAssertEqual((error as? ProtocolError)?.message, "x.categories: take 32769 bytes of UTF-8 together (at most 32768)")
        }
    }

    func testRetentionDurations() {
        for (text, seconds) in [("30s", 30), ("15m", 900), ("12h", 43_200), ("7d", 604_800), ("0", 0), ("3650d", 315_360_000)] {
            XCTAssertEqual(RetentionText.parse(.string(text)), seconds, text)
            XCTAssertEqual(RetentionText.format(seconds), text)
        }
        XCTAssertEqual(RetentionText.format(90), "90s")
        XCTAssertEqual(RetentionText.format(7_200), "2h")
        for bad in ["", "d", "1.5h", "+3m", "3 m", "٣d", "99999999999999999999d"] { XCTAssertNil(RetentionText.parse(.string(bad)), bad) }
    }

    func testADashboardNamesTheChartOfAnError() throws {
        let ok = try Dashboard.parse(Array(#"{"title":"Plant floor","charts":[{"id":"a","mark":"line","x":{"kind":"time"}}]}"#.utf8))
        XCTAssertEqual(ok.title, "Plant floor")
        XCTAssertEqual(try Dashboard.parse(ok.encode()), ok)
        let cases: [(String, String)] = [
            (#"{"charts":[{"id":"a","mark":"line","x":{"kind":"time"}},{"id":"b","mark":"pie","x":{"kind":"time"}}]}"#,
             #"charts[1].mark: "pie" is not one of bar, line, point, area"#),
            (#"{"charts":[{"id":"a","mark":"line","x":{"kind":"time"}},{"id":"a","mark":"bar","x":{"kind":"time"}}]}"#,
             #"charts[1].id: "a" is used by an earlier chart"#),
            (#"{"charts":{}}"#, "charts: must be an array"),
            (#"{"charts":[7]}"#, "charts[0]: must be an object"),
            (#"{"title":5,"charts":[]}"#, "title: must be a string"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try Dashboard.parse(Array(text.utf8)), text) { error in
                let message = (error as? ProtocolError)?.message ?? "\(error)"
                XCTAssertTrue(message.hasPrefix(expected), "\(text)\n  got:  \(message)\n  want: \(expected)…")
            }
        }
        XCTAssertEqual((try? Dashboard.parse(Array("{".utf8))).map { _ in "parsed" }, nil)
    }

    func testABuiltDashboardDocumentIsCheckedByTheSameRules() throws {
        let text = #"{"title":"Plant floor","charts":[{"id":"a","mark":"line","x":{"kind":"time"}}]}"#
        XCTAssertEqual(try Dashboard.parse(JSONReader.parse(Array(text.utf8))), try Dashboard.parse(Array(text.utf8)))
        let missing = JSONValue.object([("charts", .array([.object([("id", .string("a")), ("mark", .string("bar")),
                                                                     ("x", .object([("kind", .string("category"))]))])]))])
        XCTAssertThrowsError(try Dashboard.parse(missing)) { error in
            XCTAssertEqual(error as? ProtocolError, ProtocolError(.badField, "charts[0].x.categories: is required"))
        }
        XCTAssertThrowsError(try Dashboard.parse(JSONValue.array([]))) { error in
            XCTAssertEqual(error as? ProtocolError, ProtocolError(.badField, "dashboard: must be an object, got an array"))
        }
    }
}
