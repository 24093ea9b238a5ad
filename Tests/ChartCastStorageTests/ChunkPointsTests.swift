import XCTest
@testable import ChartCastStorage

final class ChunkPointsTests: XCTestCase {
    func points(_ values: [(Double, Double)], times: [Double]? = nil) -> ChunkPoints {
        var p = ChunkPoints(tracksTimes: times != nil)
        for (k, (x, y)) in values.enumerated() { p.append(x: x, y: y, time: times?[k] ?? 0) }
        return p
    }

    func testBlobsRoundTripWithAndWithoutWriteTimes() {
        for times in [nil, [10.0, 20, 30]] {
            let p = points([(1, -0.5), (2, .greatestFiniteMagnitude), (3.25, 0)], times: times)
            let blob = p.encoded(0..<3)
            XCTAssertEqual(blob.count, times == nil ? 48 : 72)
            let back = blob.withUnsafeBytes { ChunkPoints.decode($0, count: 3) }
            XCTAssertEqual(back?.xs, p.xs)
            XCTAssertEqual(back?.ys, p.ys)
            XCTAssertEqual(back?.times, p.times)
            XCTAssertEqual(back?.tracksTimes, times != nil)
        }
        XCTAssertNil([UInt8](repeating: 0, count: 40).withUnsafeBytes { ChunkPoints.decode($0, count: 3) }, "wrong size")
        XCTAssertNil([UInt8]().withUnsafeBytes { ChunkPoints.decode($0, count: 0) }, "empty")
    }

    func testNormalizeSortsAndKeepsTheLastValueOfAnX() {
        var p = points([(3, 1), (1, 1), (3, 2), (2, 1), (1, 9)], times: [1, 2, 3, 4, 5])
        p.normalize()
        XCTAssertEqual(p.xs, [1, 2, 3])
        XCTAssertEqual(p.ys, [9, 1, 2])
        XCTAssertEqual(p.times, [5, 4, 3])
    }

    func testMergeLetsTheNewPointWin() {
        let merged = ChunkPoints.merge(points([(1, 1), (2, 1), (4, 1)]), points([(0, 2), (2, 2), (5, 2)]))
        XCTAssertEqual(merged.xs, [0, 1, 2, 4, 5])
        XCTAssertEqual(merged.ys, [2, 1, 2, 1, 2])
    }

    func testSummaryHoldsTheEndsAndTheFirstOfEachExtreme() {
        let p = points([(1, 4), (2, 0), (3, 7), (4, 0), (5, 7), (6, 5)], times: [9, 3, 8, 1, 4, 2])
        XCTAssertEqual(p.summary(0..<6, writeTime: 0),
                       ChunkSummary(x0: 1, x1: 6, count: 6, y0: 4, y1: 5, xMin: 2, yMin: 0, xMax: 3, yMax: 7, t0: 1, t1: 9))
    }
}
