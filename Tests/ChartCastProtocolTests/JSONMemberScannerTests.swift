import ChartEngine
import XCTest
@testable import ChartCastProtocol

final class JSONMemberScannerTests: XCTestCase {
    private func fields(_ text: String) -> JSONMemberScanner? { JSONMemberScanner(Array(text.utf8)) }
    private func string(_ f: JSONMemberScanner, _ r: Range<Int>?) -> String? { r.map { String(decoding: f.bytes[$0], as: UTF8.self) } }

    func testFindsTopLevelMembersAndSkipsNestedOnes() throws {
        let f = try XCTUnwrap(fields(#"{"type":"selection","chart":"sales","seq":14,"ref":"r-991","hovers":[{"by":"v2","x":"March","ref":"inner","values":[{"series":"Ice \"Cream\"","y":900}]}],"scrub":null}"#))
        XCTAssertEqual(string(f, f.stringContent("type")), "selection")
        XCTAssertEqual(string(f, f.stringContent("chart")), "sales")
        XCTAssertEqual(f.integer("seq"), 14)
        XCTAssertEqual(string(f, f.stringContent("ref")), "r-991", "the nested ref must not shadow the top-level one")
        XCTAssertEqual(string(f, f.value("scrub")), "null")
        XCTAssertEqual(f.members.count, 6)
        XCTAssertTrue(string(f, f.value("hovers"))!.hasSuffix("}]}]"))
    }

    func testToleratesWhitespaceAndEscapedQuotesInKeysAndValues() throws {
        let f = try XCTUnwrap(fields(" { \"a\\\"b\" : \"x}\\\\\" ,\n \"n\" : 12 } "))
        XCTAssertEqual(f.members.count, 2)
        XCTAssertEqual(f.integer("n"), 12)
    }

    func testRejectsMalformedObjects() {
        XCTAssertNil(fields("[1,2]"))
        XCTAssertNil(fields(#"{"a":1"#))
        XCTAssertNil(fields(#"{"a" 1}"#))
        XCTAssertNil(fields(#"{"a":[1,2}"#))
        XCTAssertNil(fields(#"{"a":"unterminated}"#))
        XCTAssertNotNil(fields("{}"))
    }

    func testIntegerRejectsNonIntegers() throws {
        let f = try XCTUnwrap(fields(#"{"a":1.5,"b":"7","c":-3}"#))
        XCTAssertNil(f.integer("a"))
        XCTAssertNil(f.integer("b"))
        XCTAssertNil(f.integer("c"))
        XCTAssertNil(f.integer("missing"))
    }

    func testScansANestedObjectByRange() throws {
        let outer = try XCTUnwrap(fields(#"{"type":"snapshot","selection":{"hovers":[],"pin":{"by":"v1"}}}"#))
        let inner = try XCTUnwrap(JSONMemberScanner(outer.bytes, range: try XCTUnwrap(outer.value("selection"))))
        XCTAssertEqual(string(inner, inner.value("pin")), #"{"by":"v1"}"#)
        XCTAssertNil(inner.value("type"), "members outside the range are not seen")
    }

    func testAHeaderReadsOnlyThePrefixOfAnAppendButAllOfASelection() throws {
        let points = (0..<2_000).map { SeriesPoint(series: "v", x: .number(Double($0)), y: 1) }
        let append = ServerMessage.append(.init(chart: "big", seq: 42, points: points)).encode()
        let header = try XCTUnwrap(ServerMessageHeader(append))
        XCTAssertEqual(header.kind, .append)
        XCTAssertEqual(header.seq, 42)
        XCTAssertEqual(header.chart.map { String(decoding: append[$0], as: UTF8.self) }, "big")
        XCTAssertFalse(header.fields.complete, "the points were not scanned")
        XCTAssertLessThan(header.fields.scannedTo, 64)
        let selection = ServerMessage.selection(.init(chart: "c", seq: 1, ref: "r", selection: .empty)).encode()
        let full = try XCTUnwrap(ServerMessageHeader(selection))
        XCTAssertTrue(full.fields.complete)
        XCTAssertNotNil(full.selectionState?.value("pin"))
    }

    func testAHeaderStopsBeforeASnapshotsSeriesButReadsItsSelection() throws {
        let points = (0..<2_000).map { DataPoint(x: .number(Double($0)), y: 1) }
        let message = ServerMessage.snapshot(.init(chart: "big", seq: 7, x: XAxis(kind: .linear, domain: .numeric(0, 1_999)),
                                                   y: 0...1, series: [SeriesData(name: "v", points: points)],
                                                   selection: .empty, view: 0...1_999))
        let bytes = message.encode()
        let header = try XCTUnwrap(ServerMessageHeader(bytes))
        XCTAssertEqual(header.kind, .snapshot)
        XCTAssertEqual(header.seq, 7)
        XCTAssertEqual(header.chart.map { String(decoding: bytes[$0], as: UTF8.self) }, "big")
        XCTAssertNotNil(header.selectionState?.value("hovers"))
        XCTAssertFalse(header.fields.complete, "the series were not scanned")
        XCTAssertLessThan(header.fields.scannedTo, 200)
        XCTAssertEqual(try ServerMessage.decode(bytes), message, "the order does not change what it says")
        // A snapshot written with its series first is still read, whole.
        let reordered = Array(#"{"type":"snapshot","chart":"c","seq":3,"series":[],"x":{"kind":"linear","domain":[0,1]},"y":{"domain":[0,1]},"selection":{"hovers":[],"scrub":null,"range":null,"pin":null}}"#.utf8)
        let other = try XCTUnwrap(ServerMessageHeader(reordered))
        XCTAssertEqual(other.kind, .snapshot)
        XCTAssertNotNil(other.selectionState?.value("pin"))
    }
}
