import XCTest
@testable import ChartEngine

final class GestureRecognizerTests: XCTestCase {
    func testSlopSeparatesTapsFromDrags() {
        // (moves after pressing at (100, 100), release point) → what the release means
        let table: [([(Double, Double)], (Double, Double), GestureEvent)] = [
            ([], (100, 100), .tap(x: 100, y: 100)),
            ([(103, 104)], (103, 104), .tap(x: 103, y: 104)),           // exactly 5 px: still a tap
            ([(103, 104.01)], (100, 100), .dragEnded(x: 100, y: 100)),  // past 5 px once: a drag
            ([(104, 104)], (104, 104), .dragEnded(x: 104, y: 104)),     // 5.66 px diagonal
            ([], (106, 100), .dragEnded(x: 106, y: 100)),               // released far without a move
        ]
        for (moves, release, expected) in table {
            var g = GestureRecognizer()
            XCTAssertEqual(g.handle(.down, x: 100, y: 100), .pressBegan(x: 100, y: 100))
            for (x, y) in moves { _ = g.handle(.move, x: x, y: y) }
            XCTAssertEqual(g.handle(.up, x: release.0, y: release.1), expected, "moves \(moves)")
            XCTAssertEqual(g.state, .idle)
        }
    }

    func testDragBeginsOnceAndKeepsItsStartPoint() {
        var g = GestureRecognizer()
        _ = g.handle(.down, x: 10, y: 10)
        XCTAssertEqual(g.handle(.move, x: 12, y: 12), .pressMoved(x: 12, y: 12))
        XCTAssertEqual(g.handle(.move, x: 20, y: 10), .dragBegan(startX: 10, startY: 10, x: 20, y: 10))
        XCTAssertEqual(g.handle(.move, x: 11, y: 10), .dragMoved(startX: 10, startY: 10, x: 11, y: 10),
                       "coming back inside the slop does not turn a drag back into a press")
        XCTAssertEqual(g.handle(.leave, x: 0, y: 0), .left(wasDragging: true))
        XCTAssertFalse(g.isPressed)
    }

    func testMovesWithNothingPressedAreHoversAndStrayReleasesAreIgnored() {
        var g = GestureRecognizer()
        XCTAssertEqual(g.handle(.move, x: 1, y: 2), .hover(x: 1, y: 2))
        XCTAssertEqual(g.handle(.up, x: 1, y: 2), GestureEvent.none)
        XCTAssertEqual(g.handle(.leave, x: 1, y: 2), .left(wasDragging: false))
        _ = g.handle(.down, x: 0, y: 0)
        _ = g.handle(.move, x: 50, y: 0)
        XCTAssertEqual(g.handle(.down, x: 60, y: 0), .pressBegan(x: 60, y: 0), "a missed up restarts the press")
    }
}
