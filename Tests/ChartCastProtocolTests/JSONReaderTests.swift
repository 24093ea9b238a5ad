import XCTest
@testable import ChartCastProtocol

final class JSONReaderTests: XCTestCase {
    func testParsesEveryValueKindInDocumentOrder() throws {
        let value = try JSONReader.parse(#"{"a":1,"b":[true,false,null],"c":"x\"y","d":-2.5e3,"e":{}}"#)
        XCTAssertEqual(value["a"]?.number, 1)
        XCTAssertEqual(value["b"]?.array, [.bool(true), .bool(false), .null])
        XCTAssertEqual(value["c"]?.string, "x\"y")
        XCTAssertEqual(value["d"]?.number, -2500)
        XCTAssertEqual(value["e"]?.object?.count, 0)
        XCTAssertEqual(value.object?.map(\.0), ["a", "b", "c", "d", "e"])
    }

    func testDecodesEscapesAndSurrogatePairs() throws {
        let value = try JSONReader.parse(#""tab\tnl\nq\u00e9\ud83d\ude00\/""#)
        XCTAssertEqual(value.string, "tab\tnl\nqé😀/")
    }

    func testRejectsMalformedDocumentsWithTheOffset() {
        let cases: [(String, String)] = [
            ("", "unexpected end of input"),
            ("{", "expected a member name"),
            ("{\"a\" 1}", "expected ':'"),
            ("[1,]", "unexpected character"),
            ("[1 2]", "expected ',' or ']'"),
            ("01", "unexpected data after the JSON value"),
            ("1.", "invalid number"),
            ("-", "invalid number"),
            ("tru", "unexpected end of input"),
            ("\"abc", "unterminated string"),
            ("\"\\x\"", "invalid escape"),
            ("\"\\ud800\"", "unpaired surrogate"),
            ("{} {}", "unexpected data after the JSON value"),
            ("\"a\u{01}\"", "control character in string"),
        ]
        for (text, reason) in cases {
            XCTAssertThrowsError(try JSONReader.parse(text), text) { error in
                XCTAssertEqual((error as? JSONReadError)?.reason, reason, text)
            }
        }
    }

    func testRejectsInvalidUTF8InStrings() {
        XCTAssertThrowsError(try JSONReader.parse([0x22, 0xFF, 0xFE, 0x22])) { error in
            XCTAssertEqual((error as? JSONReadError)?.reason, "string is not valid UTF-8")
        }
    }

    func testRefusesDeepNestingWithoutRecursingFurther() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        XCTAssertThrowsError(try JSONReader.parse(deep)) { error in
            XCTAssertEqual((error as? JSONReadError)?.reason, "nesting deeper than \(JSONReader.defaultMaxDepth)")
        }
        XCTAssertNoThrow(try JSONReader.parse(String(repeating: "[", count: 32) + String(repeating: "]", count: 32)))
    }

    func testHugeNumberLiteralBecomesInfinityForTheCallerToReject() throws {
        XCTAssertEqual(try JSONReader.parse("1e999").number, .infinity)
    }
}

final class JSONWriterTests: XCTestCase {
    func testWritesCompactJSONThatReadsBack() throws {
        let value: JSONValue = .object([("s", .string("a\"b\\c\n\u{01}é")), ("n", .number(1_651_363_200_000)),
                                        ("f", .number(0.208)), ("a", .array([.null, .bool(true)])), ("o", .object([]))])
        let bytes = value.serialized
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self),
                       #"{"s":"a\"b\\c\n\u0001é","n":1651363200000,"f":0.208,"a":[null,true],"o":{}}"#)
        XCTAssertEqual(try JSONReader.parse(bytes), value)
    }

    func testIntegersAndPlainStringsAreWrittenExactly() throws {
        var writer = JSONWriter()
        writer.beginArray()
        for value in [0.0, 7, -7, 10, -10, 9_007_199_254_740_991, -9_007_199_254_740_991, 1_733_011_200_000, 0.5, -1e300, 1e16] {
            writer.number(value)
        }
        writer.number(Int.max); writer.number(Int.min + 1); writer.number(0)
        writer.string("plain ascii"); writer.string("ünïcödé 🐙"); writer.string("")
        writer.endArray()
        XCTAssertEqual(String(decoding: writer.bytes, as: UTF8.self),
                       #"[0,7,-7,10,-10,9007199254740991,-9007199254740991,1733011200000,0.5,-1e+300,1e+16,9223372036854775807,-9223372036854775807,0,"plain ascii","ünïcödé 🐙",""]"#)
    }

    func testNonFiniteNumbersBecomeNull() {
        var writer = JSONWriter()
        writer.beginArray(); writer.number(Double.nan); writer.number(-Double.infinity); writer.number(Optional<Double>.none); writer.endArray()
        XCTAssertEqual(String(decoding: writer.bytes, as: UTF8.self), "[null,null,null]")
    }
}
