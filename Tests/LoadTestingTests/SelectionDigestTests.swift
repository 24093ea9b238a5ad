import ChartCastProtocol
import XCTest
@testable import LoadTesting

final class SelectionDigestTests: XCTestCase {
    private func digest(_ text: String) -> UInt64 { SelectionDigest.digest(JSONMemberScanner(Array(text.utf8))!) }

    func testSameStateInSelectionAndSnapshotHasSameDigest() throws {
        let body = #""hovers":[{"by":"v2","x":"March"}],"scrub":null,"range":null,"pin":null"#
        let selection = #"{"type":"selection","chart":"sales","seq":14,"ref":"r-1","# + body + "}"
        let snapshot = Array((#"{"type":"snapshot","chart":"sales","seq":20,"series":[],"selection":{"# + body + "}}").utf8)
        let state = try XCTUnwrap(ServerMessageHeader(snapshot)?.selectionState)
        XCTAssertEqual(digest(selection), SelectionDigest.digest(state))
    }

    func testRefAndSeqDoNotAffectTheDigestButStateDoes() {
        let a = digest(#"{"chart":"c","seq":1,"ref":"a","hovers":[],"pin":null}"#)
        let b = digest(#"{"chart":"c","seq":2,"ref":"b","hovers":[],"pin":null}"#)
        let c = digest(#"{"chart":"c","seq":2,"ref":"b","hovers":[],"pin":{"by":"v1"}}"#)
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, c)
    }

    func testMembersAreTaggedSoMovingAValueChangesTheDigest() {
        XCTAssertNotEqual(digest(#"{"scrub":null,"pin":1}"#), digest(#"{"scrub":1,"pin":null}"#))
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
