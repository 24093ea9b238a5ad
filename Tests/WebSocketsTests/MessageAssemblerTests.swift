import XCTest
@testable import WebSockets

final class MessageAssemblerTests: XCTestCase {
    func testSingleChunkMessage() {
        var assembler = MessageAssembler(maxMessageSize: 10)
        XCTAssertEqual(assembler.append([1, 2, 3], binary: false, final: true), .message(.text([1, 2, 3])))
    }

    func testChunksAreJoinedAndKindComesFromTheFirst() {
        var assembler = MessageAssembler(maxMessageSize: 10)
        XCTAssertEqual(assembler.append([1, 2], binary: true, final: false), .none)
        // Continuation frames report the opcode of the message; a later flag is ignored.
        XCTAssertEqual(assembler.append([3], binary: false, final: false), .none)
        XCTAssertEqual(assembler.append([4], binary: false, final: true), .message(.binary([1, 2, 3, 4])))
        XCTAssertEqual(assembler.bufferedCount, 0)
    }

    func testOversizeMessageIsReportedOnceAndDiscarded() {
        var assembler = MessageAssembler(maxMessageSize: 4)
        XCTAssertEqual(assembler.append([1, 2, 3], binary: false, final: false), .none)
        XCTAssertEqual(assembler.append([4, 5], binary: false, final: false), .exceededLimit)
        XCTAssertTrue(assembler.isDiscarding)
        XCTAssertEqual(assembler.bufferedCount, 0, "nothing is kept once over the limit")
        XCTAssertEqual(assembler.append([6, 7, 8, 9], binary: false, final: false), .none)
        XCTAssertEqual(assembler.append([10], binary: false, final: true), .none)
        XCTAssertFalse(assembler.isDiscarding)
        // The next message is unaffected.
        XCTAssertEqual(assembler.append([1, 2, 3, 4], binary: false, final: true), .message(.text([1, 2, 3, 4])))
    }

    func testRemainingPayloadRejectsEarly() {
        var assembler = MessageAssembler(maxMessageSize: 100)
        XCTAssertEqual(assembler.append([1], binary: true, final: false, remainingInFrame: 1000), .exceededLimit)
        XCTAssertEqual(assembler.bufferedCount, 0)
    }

    func testACloseWaitsOnlyForAReasonableRest() {
        var assembler = MessageAssembler(maxMessageSize: 100)
        XCTAssertEqual(assembler.append([1], binary: true, final: false, remainingInFrame: 1000), .exceededLimit)
        XCTAssertTrue(assembler.closeWaitsForRest, "1000 more bytes are read and dropped before closing")
        var absurd = MessageAssembler(maxMessageSize: 100)
        XCTAssertEqual(absurd.append([1], binary: true, final: false, remainingInFrame: 1 << 62), .exceededLimit)
        XCTAssertTrue(absurd.isDiscarding)
        XCTAssertFalse(absurd.closeWaitsForRest, "a frame claiming 2^62 bytes is not waited for")
    }

    func testMessageAtExactlyTheLimitIsAccepted() {
        var assembler = MessageAssembler(maxMessageSize: 3)
        XCTAssertEqual(assembler.append([1, 2, 3], binary: false, final: true), .message(.text([1, 2, 3])))
        XCTAssertEqual(assembler.append([1, 2, 3, 4], binary: false, final: true), .exceededLimit)
    }

    func testEmptyMessage() {
        var assembler = MessageAssembler(maxMessageSize: 3)
        XCTAssertEqual(assembler.append([], binary: false, final: true), .message(.text([])))
    }
}
