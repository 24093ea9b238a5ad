import ChartCastProtocol
import ChartEngine
import XCTest
@testable import LoadTesting

final class SelectionDigestTests: XCTestCase {
    private func digest(_ message: ServerMessage) throws -> UInt64 {
        SelectionDigest.digest(try XCTUnwrap(ServerMessageHeader(message.encode())?.selectionState))
    }

    private let march = Selection(hovers: [Hover(by: "v2", x: .category("March"), fraction: 0.2, placement: .trailing, values: [])],
                                  scrub: nil, range: nil, pin: nil)

    func testSameStateInSelectionAndSnapshotHasSameDigest() throws {
        let selection = ServerMessage.selection(.init(chart: "sales", seq: 14, ref: "r-1", selection: march))
        let snapshot = ServerMessage.snapshot(.init(chart: "sales", seq: 20, x: XAxis(kind: .category, domain: .categories(["March"])),
                                                    y: 0...1, series: [], selection: march))
        XCTAssertEqual(try digest(selection), try digest(snapshot))
    }

    func testRefAndSeqDoNotAffectTheDigestButStateDoes() throws {
        let a = try digest(.selection(.init(chart: "c", seq: 1, ref: "a", selection: .empty)))
        let b = try digest(.selection(.init(chart: "c", seq: 2, ref: "b", selection: .empty)))
        var pinned = Selection.empty
        pinned.pin = Pin(by: "v1", x: .number(1), values: [], fraction: 0.5)
        let c = try digest(.selection(.init(chart: "c", seq: 2, ref: "b", selection: pinned)))
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, c)
        XCTAssertNotEqual(a, try digest(.selection(.init(chart: "c", seq: 1, ref: "a", selection: march))))
    }

    func testMembersAreTaggedSoMovingAValueChangesTheDigest() throws {
        // The same bytes under another state member must not collide: the scanner sees raw members.
        let scrubOne = try XCTUnwrap(JSONMemberScanner(Array(#"{"scrub":null,"pin":1}"#.utf8)))
        let pinOne = try XCTUnwrap(JSONMemberScanner(Array(#"{"scrub":1,"pin":null}"#.utf8)))
        XCTAssertNotEqual(SelectionDigest.digest(scrubOne), SelectionDigest.digest(pinOne))
    }

    func testRefTimeRoundTrips() {
        let ref = LoadClient.makeRef(driver: 3, serial: 17, at: 123_456_789_012)
        let bytes = Array(ref.utf8)
        XCTAssertEqual(LoadClient.sendTime(fromRef: bytes, 0..<bytes.count), 123_456_789_012)
        let foreign = Array("r-991".utf8)
        XCTAssertNil(LoadClient.sendTime(fromRef: foreign, 0..<foreign.count), "refs not made by a driver are not timed")
        XCTAssertLessThanOrEqual(ref.utf8.count, 64, "protocol refs are at most 64 characters")
    }
}
