import ChartEngine
import XCTest
@testable import ChartCastProtocol

/// Decoding of client messages as browsers send them (JSON text on purpose: the wire format).
final class ClientMessageTests: XCTestCase {
    private func decode(_ text: String) throws -> ClientMessage { try ClientMessage.decode(Array(text.utf8)) }

    private func assertError(_ text: String, _ code: ErrorCode, contains fragment: String? = nil, ref: String? = nil,
                             file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try decode(text), file: file, line: line) { error in
            guard let error = error as? ProtocolError else { return XCTFail("not a ProtocolError: \(error)", file: file, line: line) }
            XCTAssertEqual(error.code, code, "\(text): \(error.message)", file: file, line: line)
            if let fragment { XCTAssertTrue(error.message.contains(fragment), error.message, file: file, line: line) }
            XCTAssertEqual(error.ref, ref, "ref of \(text)", file: file, line: line)
        }
    }

    func testDecodesTheFourClientMessages() throws {
        XCTAssertEqual(try decode(#"{"type":"hello","name":"  Ana ","ref":"n-1"}"#), .hello(.init(name: "Ana", ref: "n-1")))
        XCTAssertEqual(try decode(#"{"type":"viewport","chart":"sales","plot":{"x":48,"y":12,"width":620,"height":280},"rtl":true}"#),
                       .viewport(.init(chart: "sales", viewport: Viewport(x: 48, y: 12, width: 620, height: 280, rtl: true))))
        XCTAssertEqual(try decode(#"{"type":"pointer","chart":"sales","phase":"move","x":130.5,"y":90,"ref":"r-991"}"#),
                       .pointer(.init(chart: "sales", phase: .move, x: 130.5, y: 90, ref: "r-991")))
        XCTAssertEqual(try decode(#"{"type":"key","chart":"sales","key":"left","shift":true}"#),
                       .key(.init(chart: "sales", command: .left, shift: true)))
    }

    func testIgnoresUnknownFields() throws {
        XCTAssertEqual(try decode(#"{"type":"pointer","future":[1,{"a":2}],"chart":"c","phase":"up","x":0,"y":0}"#),
                       .pointer(.init(chart: "c", phase: .up, x: 0, y: 0)))
    }

    func testClassifiesBadInput() {
        assertError("{", .badJSON, contains: "invalid JSON")
        assertError("[1]", .badJSON, contains: "must be a JSON object")
        assertError(String(repeating: "{\"a\":", count: 200) + "1" + String(repeating: "}", count: 200), .badJSON, contains: "nesting")
        assertError(#"{"chart":"x"}"#, .badField, contains: "\"type\"")
        assertError(#"{"type":7}"#, .badField, contains: "must be a string")
        assertError(#"{"type":"dance","ref":"d-1"}"#, .unknownType, contains: "dance", ref: "d-1")
        assertError(#"{"type":"pointer","chart":"c","phase":"move","x":"1","y":0}"#, .badField, contains: "\"x\" must be a number")
        assertError(#"{"type":"pointer","chart":"c","phase":"move","y":0,"ref":"p-7"}"#, .badField, contains: "missing field \"x\"", ref: "p-7")
        assertError(#"{"type":"pointer","chart":"c","phase":"move","x":1e999,"y":0}"#, .badField, contains: "finite")
        assertError(#"{"type":"pointer","chart":"c","phase":"move","x":1e12,"y":0}"#, .badField, contains: "out of range")
        assertError(#"{"type":"pointer","chart":"c","phase":"hop","x":1,"y":0}"#, .badField, contains: "one of down, move, up, leave")
        assertError(#"{"type":"pointer","chart":5,"phase":"move","x":1,"y":0}"#, .badField, contains: "\"chart\"")
        assertError(#"{"type":"pointer","chart":"c","phase":"move","x":1,"y":0,"ref":"\#(String(repeating: "r", count: 65))"}"#,
                    .badField, contains: "ref")
        assertError(#"{"type":"viewport","chart":"c","plot":{"x":0,"y":0,"width":0,"height":10}}"#, .badField, contains: "positive")
        assertError(#"{"type":"viewport","chart":"c","plot":{"x":0,"y":0,"width":1e7,"height":10}}"#, .badField, contains: "plot.width")
        assertError(#"{"type":"viewport","chart":"c","plot":[0,0,1,1]}"#, .badField, contains: "must be an object")
        assertError(#"{"type":"viewport","chart":"c","plot":{"x":0,"y":0,"width":10,"height":10},"rtl":"yes"}"#, .badField, contains: "boolean")
        assertError(#"{"type":"hello","name":"   ","ref":"n-2"}"#, .badField, contains: "empty", ref: "n-2")
        assertError(#"{"type":"key","chart":"c","key":"up"}"#, .badField, contains: "one of left, right, home, end, enter, escape")
        assertError(#"{"type":"publish","chart":"c","ref":"p-1"}"#, .badField, contains: "missing field \"points\"", ref: "p-1")
        assertError(#"{"type":"publish","chart":"c","points":[{"series":"s","x":1,"y":"2"}],"ref":"p-2"}"#, .badPoint,
                    contains: "points[0].y must be a number or null", ref: "p-2")
        assertError(#"{"type":"publish","chart":"c","points":[{"series":"s","x":1,"y":1},{"x":1,"y":1}]}"#, .badPoint,
                    contains: "points[1].series")
        assertError(#"{"type":"publish","chart":"c","points":[{"series":"s","x":true,"y":1}]}"#, .badPoint, contains: "points[0].x")
        assertError(#"{"type":"publish","chart":"c","points":[{"series":"s","x":1,"y":1e999}]}"#, .badPoint, contains: "finite")
    }

    /// Found by the client-message fuzz target's bound on error messages
    /// (Fuzz/corpus/client-message/bounded-error-*): one character of combining marks made a
    /// quoted "first 32 characters" kilobytes long, echoing most of the frame back.
    func testErrorsQuoteAtMost32ScalarsOfTheInput() {
        let marks = String(repeating: "\u{301}", count: 1500)
        for text in [#"{"type":"a\#(marks)"}"#, #"{"type":"pointer","chart":"c","phase":"a\#(marks)","x":1,"y":1}"#] {
            XCTAssertThrowsError(try decode(text)) { error in
                guard let error = error as? ProtocolError else { return XCTFail("not a ProtocolError: \(error)") }
                XCTAssertLessThan(error.message.utf8.count, 200, error.message)
                XCTAssertTrue(error.message.contains("\"a" + String(repeating: "\u{301}", count: 31) + "\""), error.message)
            }
        }
        XCTAssertThrowsError(try ServerMessage.decode(Array(#"{"type":"a\#(marks)"}"#.utf8))) { error in
            XCTAssertLessThan((error as? ProtocolError)?.message.utf8.count ?? .max, 200, "\(error)")
        }
    }

    func testViewsAreADomainOrLiveAndAbsurdOnesAreRefused() throws {
        XCTAssertEqual(try decode(#"{"type":"view","chart":"cpu","from":1733011200000,"to":1733014800000}"#),
                       .view(.init(chart: "cpu", domain: 1_733_011_200_000...1_733_014_800_000)))
        XCTAssertEqual(try decode(#"{"type":"view","chart":"cpu","live":true,"ref":"l-1"}"#),
                       .view(.init(chart: "cpu", domain: nil, ref: "l-1")))
        XCTAssertEqual(try decode(#"{"type":"view","chart":"c","from":-1e15,"to":1e15}"#), .view(.init(chart: "c", domain: -1e15...1e15)))
        XCTAssertEqual(try decode(#"{"type":"view","chart":"c","from":0,"to":1e-300}"#), .view(.init(chart: "c", domain: 0...1e-300)),
                       "tiny but many doubles wide")
        assertError(#"{"type":"view","chart":"c","from":5,"to":5,"ref":"z-1"}"#, .badField, contains: "less than", ref: "z-1")
        assertError(#"{"type":"view","chart":"c","from":6,"to":5}"#, .badField, contains: "less than")
        assertError(#"{"type":"view","chart":"c","from":1e999,"to":5}"#, .badField, contains: "finite")
        assertError(#"{"type":"view","chart":"c","from":0,"to":2e15}"#, .badField, contains: "±1e15")
        assertError(#"{"type":"view","chart":"c","from":1733011200000,"to":1733011200000.0002}"#, .badField, contains: "too small")
        assertError(#"{"type":"view","chart":"c","from":0}"#, .badField, contains: "missing field \"to\"")
        assertError(#"{"type":"view","chart":"c","from":"0","to":1}"#, .badField, contains: "\"from\" must be a number")
        assertError(#"{"type":"view","chart":"c"}"#, .badField, contains: "missing field \"from\"")
        assertError(#"{"type":"view","chart":"c","live":false}"#, .badField, contains: "missing field \"from\"")
        assertError(#"{"type":"view","chart":"c","live":true,"from":0,"to":1}"#, .badField, contains: "not both")
        assertError(#"{"type":"view","chart":"c","live":"yes"}"#, .badField, contains: "boolean")
        assertError(#"{"type":"view","from":0,"to":1}"#, .badField, contains: "\"chart\"")
    }
}
