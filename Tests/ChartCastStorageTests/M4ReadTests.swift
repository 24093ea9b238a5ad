import XCTest
import TestSupport
import ChartCastDemo
import ChartEngine
@testable import ChartCastStorage

/// M4 straight from its definition, over a plain array: the reference the store must match.
func referenceM4(_ xs: [Double], _ ys: [Double], lo: Double, hi: Double, columns: Int) -> [[Double]] {
    var groups: [[Int]] = Array(repeating: [], count: columns)
    for i in xs.indices where xs[i] >= lo && xs[i] <= hi {
        let c = hi > lo ? min(columns - 1, max(0, Int((xs[i] - lo) * Double(columns) / (hi - lo)))) : 0
        groups[c].append(i)
    }
    var out: [[Double]] = []
    for group in groups where !group.isEmpty {
        var minI = group[0], maxI = group[0]
        for i in group {
            if ys[i] < ys[minI] { minI = i }
            if ys[i] > ys[maxI] { maxI = i }
        }
        for i in Set([group.first!, minI, maxI, group.last!]).sorted() { out.append([xs[i], ys[i]]) }
    }
    return out
}

/// A deterministic random walk.
func randomWalk(_ n: Int, seed: UInt64) -> [Double] {
    var random = SplitMix64(seed: seed), y = 0.0
    return (0..<n).map { _ in
        y += Double(random.next(upperBound: 201) - 100) / 10
        return y
    }
}

final class M4ReadTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUp() { directory = TemporaryDirectory("m4") }
    override func tearDown() { directory.remove() }

    func testM4KeepsFirstLastMinAndMaxPerColumnInXOrder() {
        var m4 = M4(lo: 0, hi: 10, columns: 2)
        let points: [(Double, Double)] = [(0, 5), (1, 9), (2, 1), (3, 9), (4, 5), (5, 7), (6, 7), (10, 0)]
        for (x, y) in points { m4.add(x: x, y: y) }
        let result = m4.result()
        // Column 0 [0, 5): first (0,5), max (1,9) first of the ties, min (2,1), last (4,5).
        // Column 1 [5, 10]: first (5,7) is also the max, last (10,0) is also the min.
        XCTAssertEqual(result.xs, [0, 1, 2, 4, 5, 10])
        XCTAssertEqual(result.ys, [5, 9, 1, 5, 7, 0])
    }

    func testAChunkSummaryCountsAsItsPoints() {
        var byPoints = M4(lo: 0, hi: 100, columns: 4), bySummary = M4(lo: 0, hi: 100, columns: 4)
        var chunk = ChunkPoints(tracksTimes: false)
        for (x, y) in [(26.0, 3.0), (27, -1), (30, 8), (31, -1), (40, 2)] { chunk.append(x: x, y: y, time: 0) }
        for k in 0..<chunk.count { byPoints.add(x: chunk.xs[k], y: chunk.ys[k]) }
        bySummary.add(chunk.summary(0..<chunk.count, writeTime: 0))
        XCTAssertEqual(byPoints.result().xs, bySummary.result().xs)
        XCTAssertEqual(byPoints.result().ys, bySummary.result().ys)
    }

    func testReadsMatchM4AndStayWithinTheMaximumAcrossChunkBoundaries() throws {
        let store = try openSmall(directory, capacity: 37)
        defer { store.close() }
        let n = 5_000
        let xs = (0..<n).map { Double($0) * 10 }, ys = randomWalk(n, seed: 7)
        store.appendAndWait(linearSpec(), (0..<n).map { HistoryPoint(series: "a", x: xs[$0], y: ys[$0]) })
        let ranges: [(Double, Double)] = [(0, 49_990), (1_234, 30_007), (5, 15), (-100, 100_000), (20_000, 20_000), (777, 4_441)]
        for (from, to) in ranges {
            for maxPerSeries in [4, 10, 40, 100, 1_000] {
                let read = try XCTUnwrap(store.read(chart: "lin", from: from, to: to, maxPerSeries: maxPerSeries).first)
                let inRange = xs.indices.filter { xs[$0] >= from && xs[$0] <= to }
                XCTAssertEqual(read.pointsInRange, inRange.count)
                XCTAssertLessThanOrEqual(read.xs.count, maxPerSeries, "[\(from), \(to)] max \(maxPerSeries)")
                let got = zip(read.xs, read.ys).map { [$0, $1] }
                if inRange.count <= maxPerSeries {
                    XCTAssertEqual(got, inRange.map { [xs[$0], ys[$0]] }, "raw [\(from), \(to)]")
                    continue
                }
                XCTAssertEqual(got, referenceM4(xs, ys, lo: from, hi: to, columns: maxPerSeries / 4),
                               "M4 [\(from), \(to)] max \(maxPerSeries)")
                // The range's first, last, min and max survive.
                let first = inRange.first!, last = inRange.last!
                let lowest = inRange.min { ys[$0] < ys[$1] }!, highest = inRange.max { ys[$0] < ys[$1] }!
                for i in [first, last, lowest, highest] { XCTAssertTrue(got.contains([xs[i], ys[i]]), "point \(i) kept") }
            }
        }
    }

    func testInfiniteBoundsSpanTheStoredPoints() throws {
        let store = try openSmall(directory, capacity: 16)
        defer { store.close() }
        let xs = (0..<1_000).map { 1_733_000_000_000 + Double($0) * 1_000 }, ys = randomWalk(1_000, seed: 3)
        store.appendAndWait(timeSpec(), (0..<1_000).map { HistoryPoint(series: "user", x: xs[$0], y: ys[$0]) })
        let read = try XCTUnwrap(store.read(chart: "cpu", maxPerSeries: 100).first)
        XCTAssertEqual(zip(read.xs, read.ys).map { [$0, $1] },
                       referenceM4(xs, ys, lo: xs.first!, hi: xs.last!, columns: 25))
        XCTAssertTrue(read.isDownsampled)
        XCTAssertEqual(try store.read(chart: "cpu", maxPerSeries: 1).first?.xs.count ?? 0, 4, "below 4 counts as 4")
        XCTAssertEqual(try store.read(chart: "cpu", from: 10, to: 5, maxPerSeries: 10).first?.xs, [], "from > to")
    }

    func testAMillionPointsReadDownsampled() throws {
        let store = try HistoryStore.open(directory: directory.path)
        defer { store.close() }
        let n = 1_000_000
        let ys = randomWalk(n, seed: 11)
        let spec = timeSpec(series: ["load"])
        let completions = Completions()
        for start in stride(from: 0, to: n, by: 100_000) {
            var batch = HistoryBatch(series: ["load"])
            batch.reserveCapacity(100_000)
            for i in start..<(start + 100_000) { batch.append(series: 0, x: Double(i), y: ys[i]) }
            store.append(chart: spec, batch: batch, completion: completions.handler)
        }
        for result in completions.wait(n / 100_000) { XCTAssertSuccess(result) }
        let read = try XCTUnwrap(store.read(chart: "cpu", from: 0, to: Double(n - 1), maxPerSeries: 2_000).first)
        XCTAssertEqual(read.pointsInRange, n)
        XCTAssertLessThanOrEqual(read.xs.count, 2_000)
        XCTAssertEqual(zip(read.xs, read.ys).map { [$0, $1] },
                       referenceM4((0..<n).map(Double.init), ys, lo: 0, hi: Double(n - 1), columns: 500))
    }
}

/// Reads on a grid given by the caller (a viewer's view), and the stored extent.
final class GridReadTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUp() { directory = TemporaryDirectory("grid") }
    override func tearDown() { directory.remove() }

    func testAGridReadDownsamplesOnTheCallersColumnsAndMatchesTheEngine() throws {
        let store = try openSmall(directory, capacity: 64)
        defer { store.close() }
        let xs = (0..<5_000).map { Double($0) }
        let ys = xs.map { sin($0 / 37) * 100 + ($0.truncatingRemainder(dividingBy: 7)) }
        store.appendAndWait(timeSpec("cpu", series: ["user"]), zip(xs, ys).map { HistoryPoint(series: "user", x: $0, y: $1) })
        // The grid spans [0, 10000) but the read covers only [1000, 3000]: columns of the grid.
        let grid = try XCTUnwrap(M4Grid(from: 0, to: 10_000, columns: 100))
        let read = try store.read(chart: "cpu", from: 1_000, to: 3_000, grid: grid)
        let inRange = xs.indices.filter { xs[$0] >= 1_000 && xs[$0] <= 3_000 }
        let expected = M4.downsample(xs: inRange.map { xs[$0] }, ys: [inRange.map { ys[$0] }], grid: grid)[0]
        XCTAssertEqual(read.first?.xs, expected.map { xs[inRange[$0]] })
        XCTAssertEqual(read.first?.ys, expected.map { ys[inRange[$0]] })
        XCTAssertEqual(read.first?.pointsInRange, 2_001)
        XCTAssertLessThanOrEqual(read.first?.xs.count ?? .max, 4 * 20, "the range covers 20 of the grid's columns")
    }

    func testAGridReadKeepsEveryPointWhenFewEnough() throws {
        let store = try openSmall(directory)
        defer { store.close() }
        store.appendAndWait(timeSpec("cpu", series: ["user"]), (0..<30).map { HistoryPoint(series: "user", x: Double($0), y: 1) })
        let grid = try XCTUnwrap(M4Grid(from: 0, to: 30, columns: 10))
        XCTAssertEqual(try store.read(chart: "cpu", from: 0, to: 29, grid: grid).first?.xs.count, 30)
    }

    func testTheExtentSpansEverySeriesAndFollowsRetention() throws {
        let store = try openSmall(directory)
        defer { store.close() }
        XCTAssertNil(try store.extent(chart: "cpu"))
        let spec = timeSpec("cpu", series: ["user", "system"])
        store.appendAndWait(spec, [HistoryPoint(series: "user", x: 100, y: 1), HistoryPoint(series: "user", x: 500, y: 1),
                                   HistoryPoint(series: "system", x: 50, y: 1), HistoryPoint(series: "system", x: 300, y: 1)])
        XCTAssertEqual(try store.extent(chart: "cpu"), 50...500)
        XCTAssertNil(try store.extent(chart: "other"))
    }
}
