import XCTest
@testable import LoadTesting

final class LatencyHistogramTests: XCTestCase {
    func testEmptyHistogramReportsZero() {
        let h = LatencyHistogram()
        XCTAssertEqual(h.count, 0)
        XCTAssertEqual(h.percentile(0.99), 0)
        XCTAssertEqual(h.maxNanoseconds, 0)
    }

    func testSmallValuesAreExact() {
        var h = LatencyHistogram()
        for v in 1...100 { h.record(nanoseconds: UInt64(v)) }
        XCTAssertEqual(h.percentile(0.5), 50)
        XCTAssertEqual(h.percentile(0.99), 99)
        XCTAssertEqual(h.percentile(1.0), 100)
        XCTAssertEqual(h.minNanoseconds, 1)
    }

    func testPercentilesOfMillisecondsWithinOnePercent() {
        var h = LatencyHistogram()
        // 1…1000 ms uniformly: p50 ≈ 500 ms, p99 ≈ 990 ms.
        for ms in 1...1000 { h.record(nanoseconds: UInt64(ms) * 1_000_000) }
        let p50 = Double(h.percentile(0.5)) / 1e6
        let p99 = Double(h.percentile(0.99)) / 1e6
        XCTAssertEqual(p50, 500, accuracy: 5)
        XCTAssertEqual(p99, 990, accuracy: 9.9)
        XCTAssertGreaterThanOrEqual(p99, 990, "a percentile reports its bucket's upper edge, never below the sample")
        XCTAssertEqual(h.maxNanoseconds, 1_000_000_000)
        XCTAssertEqual(h.percentile(1.0), 1_000_000_000, "the top percentile is capped at the exact maximum")
    }

    func testBucketEdgesContainTheirValues() {
        for v: UInt64 in [127, 128, 129, 255, 256, 1000, 123_456_789, 1 << 40, (1 << 45) + 12345] {
            let i = LatencyHistogram.index(of: v)
            XCTAssertGreaterThanOrEqual(LatencyHistogram.upperEdge(of: i), v, "value \(v)")
            if i > 0 { XCTAssertLessThan(LatencyHistogram.upperEdge(of: i - 1), v, "value \(v)") }
        }
    }

    func testHugeValuesLandInTheLastBucket() {
        var h = LatencyHistogram()
        h.record(nanoseconds: UInt64.max / 2)
        XCTAssertEqual(h.count, 1)
        XCTAssertEqual(h.percentile(0.5), UInt64.max / 2)
    }

    func testMergeAddsCountsAndKeepsExtremes() {
        var a = LatencyHistogram(), b = LatencyHistogram()
        for v in 1...10 { a.record(nanoseconds: UInt64(v) * 1000) }
        for v in 11...20 { b.record(nanoseconds: UInt64(v) * 1000) }
        a.merge(b)
        XCTAssertEqual(a.count, 20)
        XCTAssertEqual(a.maxNanoseconds, 20_000)
        XCTAssertEqual(a.minNanoseconds, 1000)
        XCTAssertEqual(Double(a.percentile(0.5)), 10_000, accuracy: 100)
        XCTAssertEqual(a.meanNanoseconds, 10_500, accuracy: 0.001)
    }
}
