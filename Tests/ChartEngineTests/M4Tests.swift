import ChartCastDemo
import TestSupport
import XCTest
@testable import ChartEngine

/// M4 downsampling: the kernel against a plain reference, on arrays and on the store's ring;
/// the pixel promise (the downsampled line lights the same pixels per column); the bound of 4
/// points per column.
final class M4Tests: XCTestCase {
    /// The obvious M4: every point's column, then per column first, last, min and max (first
    /// occurrence), ascending and unique.
    private func reference(xs: [Double], ys: [Double], grid: M4Grid) -> [Int] {
        var byColumn: [Int: [Int]] = [:]
        for i in xs.indices where xs[i] >= grid.from && xs[i] <= grid.to && !ys[i].isNaN {
            byColumn[grid.column(of: xs[i]), default: []].append(i)
        }
        var kept: [Int] = []
        for c in byColumn.keys.sorted() {
            let rows = byColumn[c]!
            var low = rows[0], high = rows[0]
            for r in rows {
                if ys[r] < ys[low] { low = r }
                if ys[r] > ys[high] { high = r }
            }
            kept += Set([rows.first!, rows.last!, low, high]).sorted()
        }
        return kept
    }

    /// A random walk with occasional gaps (NaN), flat runs and spikes, at irregular x.
    private func walk(_ n: Int, seed: UInt64, gaps: Bool = true) -> (xs: [Double], ys: [Double]) {
        var numbers = SplitMix64(seed: seed)
        var xs: [Double] = [], ys: [Double] = []
        var x = 1000.0, y = 0.0
        for _ in 0..<n {
            x += 0.1 + numbers.unit() * (numbers.unit() < 0.01 ? 500 : 2)
            let r = numbers.unit()
            if r < 0.02 { y += (numbers.unit() - 0.5) * 400 } else if r > 0.1 { y += numbers.unit() - 0.5 }
            xs.append(x)
            ys.append(gaps && numbers.unit() < 0.03 ? .nan : y)
        }
        return (xs, ys)
    }

    func testTheArrayKernelMatchesTheReference() throws {
        for (n, seed) in [(0, UInt64(1)), (1, 2), (7, 3), (500, 4), (20_000, 5)] {
            let (xs, ys) = walk(n, seed: seed)
            let flat = (xs, xs.map { _ in 3.0 })
            for columns in [1, 3, 100, 1_000] {
                for domain in [(900.0, 1e9), (xs.first ?? 0, xs.last ?? 1), (1500.0, 3000.0)] where domain.0 < domain.1 {
                    let grid = try XCTUnwrap(M4Grid(from: domain.0, to: domain.1, columns: columns))
                    let kept = M4.downsample(xs: xs, ys: [ys, flat.1], grid: grid)
                    XCTAssertEqual(kept[0], reference(xs: xs, ys: ys, grid: grid), "n \(n) columns \(columns) domain \(domain)")
                    XCTAssertEqual(kept[1], reference(xs: xs, ys: flat.1, grid: grid), "flat: n \(n) columns \(columns)")
                }
            }
        }
    }

    func testTheStoreKernelMatchesTheReferenceAcrossTheRingsWrap() throws {
        // A window of 3,000 rows in a ring of 4,096 slots, filled past its end several times, so
        // the live rows wrap around the buffer's end at a different place each round.
        let spec = ChartSpec(id: "w", title: "W", mark: .line, xKind: .linear, series: ["a", "b"], window: 3_000)
        let store = ChartStore(spec: spec)
        let (xs, ys) = walk(11_000, seed: 9)
        for round in 0..<4 {
            let end = 5_000 + round * 2_000
            for i in (round == 0 ? 0 : end - 2_000)..<end {
                store.upsert(x: xs[i], values: [ys[i], ys[i].isNaN ? nil : -ys[i] * 2])
            }
            let rowXs = (0..<store.count).map { store.xNumber(at: $0) }
            let rowYs = (0..<2).map { s in (0..<store.count).map { store.y(series: s, at: $0) ?? .nan } }
            XCTAssertNotEqual(store.ring.start, 0)
            let (d0, d1) = store.xDomain
            for columns in [1, 7, 640, 2_999] {
                for domain in [(d0, d1), (rowXs[100], rowXs[2_900]), (rowXs[1_500] - 0.05, rowXs[1_500] + 0.05)] {
                    let grid = try XCTUnwrap(M4Grid(from: domain.0, to: domain.1, columns: columns))
                    let kept = store.m4Rows(grid)
                    for s in 0..<2 {
                        XCTAssertEqual(kept[s], reference(xs: rowXs, ys: rowYs[s], grid: grid),
                                       "round \(round) series \(s) columns \(columns) domain \(domain)")
                    }
                }
            }
        }
    }

    func testTheDownsampledLineLightsTheSamePixelsAsTheRawLine() throws {
        let (xs, ys) = walk(200_000, seed: 11, gaps: false)
        let yDomain = (ys.min()! - 1, ys.max()! + 1)
        for (width, height) in [(600, 300), (1_400, 700), (97, 1_000), (1_000, 40)] {
            let domains = [(xs.first! - 1, xs.last! + 1), (xs[50_000], xs[52_000]), (xs[0] - 1e5, xs[10] + 0.3)]
            for domain in domains {
                let grid = try XCTUnwrap(M4Grid(from: domain.0, to: domain.1, columns: width))
                let kept = M4.downsample(xs: xs, ys: [ys], grid: grid)[0]
                let inDomain = xs.indices.filter { xs[$0] >= domain.0 && xs[$0] <= domain.1 }
                let raw = LineRaster(xs: inDomain.map { xs[$0] }, ys: inDomain.map { ys[$0] }, xDomain: domain,
                                     yDomain: yDomain, width: width, height: height)
                let downsampled = LineRaster(xs: kept.map { xs[$0] }, ys: kept.map { ys[$0] }, xDomain: domain,
                                             yDomain: yDomain, width: width, height: height)
                XCTAssertEqual(raw, downsampled, "\(width)×\(height) over \(domain): \(raw.differences(from: downsampled))")
                XCTAssertLessThanOrEqual(kept.count, 4 * width)
                if inDomain.count > 8 * width {
                    XCTAssertLessThan(kept.count, inDomain.count / 2, "it does reduce")
                }
                var perColumn: [Int: Int] = [:]
                for i in kept { perColumn[grid.column(of: xs[i]), default: 0] += 1 }
                XCTAssertLessThanOrEqual(perColumn.values.max() ?? 0, 4)
            }
        }
    }

    func testTheRasterTellsDifferentLinesApart() {
        // The comparison above can fail: dropping a column's extreme changes the picture.
        let xs = [0.0, 1, 2, 3, 4, 5], ys = [0.0, 10, 0, 0, 90, 0]
        let full = LineRaster(xs: xs, ys: ys, xDomain: (0, 6), yDomain: (0, 100), width: 6, height: 100)
        let missingPeak = LineRaster(xs: [0, 1, 2, 3, 5], ys: [0, 10, 0, 0, 0], xDomain: (0, 6), yDomain: (0, 100),
                                     width: 6, height: 100)
        XCTAssertNotEqual(full, missingPeak)
        XCTAssertEqual(full.high[4], 90)
    }

    func testGridsAndColumnsAtTheEdges() throws {
        XCTAssertNil(M4Grid(from: 1, to: 1, columns: 10))
        XCTAssertNil(M4Grid(from: 0, to: .infinity, columns: 10))
        XCTAssertNil(M4Grid(from: 0, to: 1, columns: 0))
        let grid = try XCTUnwrap(M4Grid(from: 0, to: 10, columns: 10))
        XCTAssertEqual(grid.column(of: 0), 0)
        XCTAssertEqual(grid.column(of: 0.999), 0)
        XCTAssertEqual(grid.column(of: 1), 1)
        XCTAssertEqual(grid.column(of: 10), 9, "the domain's end is in the last column")
        XCTAssertEqual(grid.column(of: -5), 0)
        XCTAssertEqual(grid.columnStarts(rows: 0..<0) { _ in 0 }, Array(repeating: 0, count: 11))
        // Few rows (one pass) and many rows (binary search) split alike.
        let xs = (0..<1_000).map { Double($0) / 100 }
        let few = grid.columnStarts(rows: 0..<1_000) { xs[$0] }
        let small = try XCTUnwrap(M4Grid(from: 0, to: 10, columns: 3))
        let many = small.columnStarts(rows: 0..<1_000) { xs[$0] }
        XCTAssertEqual(few, [0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1_000])
        XCTAssertEqual(many, [0] + (1..<3).map { c in xs.firstIndex { small.column(of: $0) >= c }! } + [1_000])

        // Four per column fit; a fifth in one column does not, however few the rows.
        let even = (0..<40).map { Double($0) / 4 }
        XCTAssertTrue(grid.holdsAtMostFourPerColumn(rows: 0..<40) { even[$0] })
        XCTAssertFalse(grid.holdsAtMostFourPerColumn(rows: 0..<41) { $0 < 40 ? even[$0] : 9.99 })
        let clustered = [0.1, 0.2, 0.3, 0.4, 0.5, 5.0]
        XCTAssertFalse(grid.holdsAtMostFourPerColumn(rows: 0..<6) { clustered[$0] })
        XCTAssertTrue(grid.holdsAtMostFourPerColumn(rows: 1..<6) { clustered[$0] })
    }
}
