import XCTest
import WebSockets

final class FIFOQueueTests: XCTestCase {
    func testFirstInFirstOutAcrossEmptyingAndCompaction() {
        var queue = FIFOQueue<Int>()
        XCTAssertTrue(queue.isEmpty)
        XCTAssertNil(queue.popFirst())
        queue.append(contentsOf: 0..<3)
        XCTAssertEqual(queue.popFirst(), 0)
        XCTAssertEqual(Array(queue), [1, 2], "iterating does not consume")
        XCTAssertEqual(queue.count, 2)
        XCTAssertEqual(queue.popFirst(), 1)
        XCTAssertEqual(queue.popFirst(), 2)
        XCTAssertTrue(queue.isEmpty)
        // A queue that never quite empties: pop two for every three pushed, well past compaction.
        var expected = 0, next = 0
        for _ in 0..<1_000 {
            for _ in 0..<3 { queue.append(next); next += 1 }
            for _ in 0..<2 {
                XCTAssertEqual(queue.popFirst(), expected)
                expected += 1
            }
        }
        XCTAssertEqual(queue.count, 1_000)
        XCTAssertEqual(queue.first, expected)
        XCTAssertEqual(Array(queue), Array(expected..<next))
        queue.removeAll()
        XCTAssertTrue(queue.isEmpty)
    }
}
