import XCTest
import ChartCastDemo
@testable import ChartEngine

/// A plain-array model of a time/linear store: the obvious, slow implementation to compare against.
private struct ReferenceStore {
    var rows: [(x: Double, ys: [Double?])] = []
    let window: Int?

    mutating func upsert(x: Double, values: [Double?]) {
        if let i = rows.firstIndex(where: { $0.x == x }) {
            rows[i].ys = values
        } else {
            rows.append((x, values))
            rows.sort { $0.x < $1.x }
        }
        if let w = window, rows.count > w { rows.removeFirst(rows.count - w) }
    }

    func nearest(_ x: Double) -> Int? {
        var best: Int? = nil
        for (i, row) in rows.enumerated() {
            if best == nil || Swift.abs(row.x - x) < Swift.abs(rows[best!].x - x) { best = i }
        }
        return best
    }

    func totals(series s: Int, from: Double, to: Double) -> (count: Int, sum: Double, min: Double?, max: Double?) {
        let values = rows.filter { $0.x >= from && $0.x <= to }.compactMap { $0.ys[s] }
        return (values.count, values.reduce(0, +), values.min(), values.max())
    }
}

final class ChartStoreTests: XCTestCase {
    private func spec(window: Int?, kind: XKind = .linear) -> ChartSpec {
        ChartSpec(id: "t", title: "T", mark: .line, xKind: kind, series: ["a", "b"], window: window)
    }

    func testRandomUpsertsAndEvictionsMatchTheReference() {
        for (seed, window) in [(UInt64(3), Int?.none), (4, 37), (5, 200), (6, 1)] {
            var rng = SplitMix64(seed: seed)
            let store = ChartStore(spec: spec(window: window))
            var reference = ReferenceStore(window: window)
            var nextX = 0.0
            for step in 0..<1_500 {
                let x: Double
                switch Int.random(in: 0..<10, using: &rng) {
                case 0 where !reference.rows.isEmpty:   // replace an existing x
                    x = reference.rows.randomElement(using: &rng)!.x
                case 1:                                 // insert in the middle (or before the front)
                    x = nextX - Double.random(in: 0...60, using: &rng).rounded() - 0.5
                default:                                // append at the end
                    nextX += Double(Int.random(in: 1...3, using: &rng))
                    x = nextX
                }
                let values: [Double?] = (0..<2).map { _ in
                    Int.random(in: 0..<5, using: &rng) == 0 ? nil : Double(Int.random(in: -50...500, using: &rng))
                }
                store.upsert(x: x, values: values)
                reference.upsert(x: x, values: values)

                XCTAssertEqual(store.count, reference.rows.count, "step \(step)")
                guard step % 7 == 0, !reference.rows.isEmpty else { continue }
                for i in 0..<store.count {
                    XCTAssertEqual(store.xNumber(at: i), reference.rows[i].x)
                    XCTAssertEqual(store.y(series: 0, at: i), reference.rows[i].ys[0])
                    XCTAssertEqual(store.y(series: 1, at: i), reference.rows[i].ys[1])
                }
                let lo = reference.rows.first!.x, hi = reference.rows.last!.x
                for _ in 0..<5 {
                    let probe = Double.random(in: (lo - 5)...(hi + 5), using: &rng)
                    let got = store.nearestIndex(toX: probe).map { store.xNumber(at: $0) }
                    let want = reference.nearest(probe).map { reference.rows[$0].x }
                    XCTAssertEqual(got, want, "nearest to \(probe)")
                    var a = Double.random(in: (lo - 5)...(hi + 5), using: &rng)
                    var b = Double.random(in: (lo - 5)...(hi + 5), using: &rng)
                    if a > b { swap(&a, &b) }
                    let range = store.indexRange(fromX: a, toX: b)
                    for s in 0..<2 {
                        let t = store.totals(series: s, in: range)
                        let r = reference.totals(series: s, from: a, to: b)
                        XCTAssertEqual(t.count, r.count)
                        XCTAssertEqual(t.sum, r.sum, accuracy: 1e-6)
                        XCTAssertEqual(t.min, r.min)
                        XCTAssertEqual(t.max, r.max)
                        XCTAssertEqual(t.mean == nil, r.count == 0)
                    }
                }
            }
        }
    }

    func testNearestTiesGoToTheEarlierPoint() {
        let store = ChartStore(spec: spec(window: nil))
        for x in [10.0, 20, 30] { store.upsert(x: x, values: [1, 1]) }
        XCTAssertEqual(store.nearestIndex(toX: 15), 0)
        XCTAssertEqual(store.nearestIndex(toX: 25), 1)
        XCTAssertEqual(store.nearestIndex(toX: 25.0001), 2)
        XCTAssertEqual(store.nearestIndex(toX: -1e9), 0)
        XCTAssertEqual(store.nearestIndex(toX: 1e9), 2)
        XCTAssertNil(ChartStore(spec: spec(window: nil)).nearestIndex(toX: 0))
    }

    func testIndexRangeIsInclusiveAndEmptyWhenReversed() {
        let store = ChartStore(spec: spec(window: nil))
        for x in [10.0, 20, 30, 40] { store.upsert(x: x, values: [1, nil]) }
        XCTAssertEqual(store.indexRange(fromX: 20, toX: 30), 1..<3)
        XCTAssertEqual(store.indexRange(fromX: 19.9, toX: 30.1), 1..<3)
        XCTAssertEqual(store.indexRange(fromX: 41, toX: 50), 4..<4)
        XCTAssertTrue(store.indexRange(fromX: 30, toX: 20).isEmpty)
        let t = store.totals(series: 1, in: 0..<4)
        XCTAssertEqual(t, SeriesTotals(series: "b", count: 0, sum: 0, min: nil, max: nil, mean: nil))
    }

    func testUpsertReportsInsertsEvictionsAndDomainChanges() {
        let store = ChartStore(spec: spec(window: 3))
        var change = store.upsert(x: 100, values: [10, nil])
        XCTAssertEqual(change, StoreChange(insertedX: 100, evictedBefore: nil, xDomainChanged: true, yDomainChanged: true))
        XCTAssertTrue(store.xDomain == (99.5, 100.5), "a single linear point: 0.5 each side")
        XCTAssertTrue(store.yDomain == (9, 11), "one value: widened by 1 each side")
        change = store.upsert(x: 110, values: [10, nil])
        XCTAssertEqual(change, StoreChange(insertedX: 110, evictedBefore: nil, xDomainChanged: true, yDomainChanged: false))
        XCTAssertTrue(store.xDomain == (95, 115), "half the mean spacing each side")
        change = store.upsert(x: 120, values: [9, nil])
        XCTAssertEqual(change, StoreChange(insertedX: 120, evictedBefore: nil, xDomainChanged: true, yDomainChanged: true))
        XCTAssertTrue(store.yDomain == (9, 10), "a line chart's y domain is the data's extent, without 0")
        change = store.upsert(x: 130, values: [11, nil])
        XCTAssertEqual(change.evictedBefore, 110)
        XCTAssertEqual(store.count, 3)
        XCTAssertEqual(store.xNumber(at: 0), 110)
        XCTAssertEqual(store.xDomain.0, 105)
        XCTAssertEqual(store.xDomain.1, 135)
        XCTAssertTrue(change.yDomainChanged, "max 10 → 11")
        XCTAssertEqual(store.yDomain.1, 11)
        // Replacing a value inside the window: no eviction, no x domain change; the y extent grows to 2.
        change = store.upsert(x: 120, values: [2, 3])
        XCTAssertEqual(change, StoreChange(insertedX: 120, evictedBefore: nil, xDomainChanged: false, yDomainChanged: true))
        XCTAssertTrue(store.yDomain == (2, 11))
    }

    /// A batch (trees and the y domain settled once at its end) leaves exactly the state that the
    /// same rows applied one by one leave: appends, evictions, growth, out-of-order inserts that
    /// relayout the buffer, and series added mid-batch.
    func testABatchEndsInTheSameStateAsOneRowAtATime() {
        for (seed, window) in [(UInt64(11), 64), (12, 1_000), (13, 7)] {
            var rng = SplitMix64(seed: seed)
            let one = ChartStore(spec: spec(window: window)), batched = ChartStore(spec: spec(window: window))
            var x = 0.0
            for round in 0..<20 {
                var rows: [(Double, [Double?])] = []
                for _ in 0..<Int(rng.next(upperBound: 150)) {
                    x += Double(rng.next(upperBound: 3) + 1)
                    // Now and then an x before the last one: an insert that rewrites the buffer.
                    let at = rng.next(upperBound: 20) == 0 ? x - Double(rng.next(upperBound: 40)) - 0.5 : x
                    rows.append((at, [Double(rng.next(upperBound: 1000)) - 500, rng.next(upperBound: 4) == 0 ? nil : Double(round)]))
                }
                if round == 10 { one.addSeries("c"); }
                for (x, values) in rows { one.upsert(x: x, values: values) }
                batched.batch {
                    if round == 10 { batched.addSeries("c") }
                    for (x, values) in rows { batched.upsert(x: x, values: values) }
                }
                XCTAssertEqual(batched.count, one.count)
                XCTAssertTrue(batched.yDomain == one.yDomain, "y domain after round \(round)")
                for series in 0..<one.spec.series.count {
                    XCTAssertEqual(batched.totals(series: series, in: 0..<batched.count), one.totals(series: series, in: 0..<one.count))
                    for _ in 0..<10 {
                        let a = rng.next(upperBound: one.count + 1), b = rng.next(upperBound: one.count + 1)
                        let range = min(a, b)..<max(a, b)
                        XCTAssertEqual(batched.totals(series: series, in: range), one.totals(series: series, in: range), "seed \(seed) round \(round)")
                    }
                }
            }
        }
    }

    /// Runs of rows appended in order (`appendInOrder`: room made first, the window trimmed once)
    /// leave exactly the state of the same rows upserted one by one: rows, values, totals, the
    /// domains and the first x kept — with runs shorter and longer than the window, buffer growth
    /// and missing values.
    func testAnInOrderAppendEndsInTheSameStateAsOneRowAtATime() {
        for (seed, window) in [(UInt64(21), 64), (22, 1_000), (23, 7), (24, 1)] {
            var rng = SplitMix64(seed: seed)
            let one = ChartStore(spec: spec(window: window)), appended = ChartStore(spec: spec(window: window))
            var x = 0.0
            for round in 0..<30 {
                var xs: [Double] = [], values: [[Double?]] = []
                for _ in 0..<Int(rng.next(upperBound: round % 7 == 0 ? 2_500 : 150)) {
                    x += Double(rng.next(upperBound: 3) + 1)
                    xs.append(x)
                    values.append([Double(rng.next(upperBound: 1000)) - 500, rng.next(upperBound: 4) == 0 ? nil : Double(round)])
                }
                var evictedOne: Double?
                for (i, rowX) in xs.enumerated() {
                    if let e = one.upsert(x: rowX, values: values[i]).evictedBefore { evictedOne = e }
                }
                XCTAssertTrue(xs.first.map(appended.appendsInOrder(from:)) ?? true)
                let evicted = appended.batch {
                    appended.appendInOrder(xs[...]) { k, slot in
                        for (s, v) in values[k].enumerated() { if let v { appended.setAppended(v, series: s, slot: slot) } }
                    }
                }
                XCTAssertEqual(evicted, evictedOne, "seed \(seed) round \(round): the first x kept")
                XCTAssertEqual(appended.count, one.count)
                XCTAssertTrue(appended.xDomain == one.xDomain && appended.yDomain == one.yDomain, "domains, round \(round)")
                for row in 0..<one.count {
                    XCTAssertEqual(appended.xNumber(at: row), one.xNumber(at: row))
                    for series in 0..<2 { XCTAssertEqual(appended.y(series: series, at: row), one.y(series: series, at: row)) }
                }
                for series in 0..<2 {
                    XCTAssertEqual(appended.totals(series: series, in: 0..<appended.count), one.totals(series: series, in: 0..<one.count))
                }
            }
            XCTAssertFalse(appended.appendsInOrder(from: x), "not after the last row")
            XCTAssertFalse(appended.appendsInOrder(from: .nan))
        }
    }

    /// The one y-domain policy (server messages, `ChartProxy` and the page all use it).
    func testYDomainPolicy() {
        func domain(_ mark: Mark, _ values: [Double], fixed: ClosedRange<Double>? = nil) -> (Double, Double) {
            let store = ChartStore(spec: ChartSpec(id: "y", title: "y", mark: mark, xKind: .linear, series: ["s"],
                                                   fixedYDomain: fixed))
            for (i, v) in values.enumerated() { store.upsert(x: Double(i), values: [v]) }
            return store.yDomain
        }
        XCTAssertTrue(domain(.line, [36.21, 36.87]) == (36.2, 36.9), "niced data extent")
        XCTAssertTrue(domain(.point, [36.21, 36.87]) == (36.2, 36.9))
        XCTAssertTrue(domain(.bar, [36.21, 36.87]) == (0, 40), "bars grow from 0")
        XCTAssertTrue(domain(.area, [30, 75]) == (0, 80), "so do areas")
        XCTAssertTrue(domain(.bar, [-12, -3]) == (-12, 0))
        XCTAssertTrue(domain(.line, [5, 5]) == (4, 6), "equal values widened by 1")
        XCTAssertTrue(domain(.line, [5, 500], fixed: 0...100) == (0, 100), "a fixed domain wins")
        XCTAssertTrue(domain(.line, []) == (0, 1), "no data")
    }

    func testDomainsWhenEmptySingleAndNegative() {
        let time = ChartStore(spec: spec(window: nil, kind: .time))
        XCTAssertTrue(time.xDomain == (0, 1))
        XCTAssertTrue(time.yDomain == (0, 1))
        time.upsert(x: DemoCharts.may1, values: [nil, nil])
        XCTAssertTrue(time.xDomain == (DemoCharts.may1 - DemoCharts.day / 2, DemoCharts.may1 + DemoCharts.day / 2))
        XCTAssertTrue(time.yDomain == (0, 1), "no values yet")
        time.upsert(x: DemoCharts.may1 + DemoCharts.day, values: [-35, 674])
        XCTAssertTrue(time.yDomain == (-100, 700))
        let linear = ChartStore(spec: spec(window: nil))
        linear.upsert(x: 3, values: [1, 1])
        XCTAssertTrue(linear.xDomain == (2.5, 3.5))
    }

    func testCategoryStoreSetsValuesAndKeepsOneRowPerCategory() {
        let store = DemoCharts.workouts()
        XCTAssertEqual(store.count, 7)
        XCTAssertTrue(store.xDomain == (0, 7))
        XCTAssertEqual(store.x(at: 2), .category("Wed"))
        XCTAssertEqual(store.y(series: 0, at: 2), 76)
        XCTAssertTrue(store.yDomain == (0, 80))
        let change = store.setValue(95, series: 0, category: 6)
        XCTAssertEqual(change.insertedX, 6)
        XCTAssertTrue(change.yDomainChanged)
        XCTAssertTrue(store.yDomain == (0, 100))
        XCTAssertEqual(store.totals(series: 0, in: 0..<7).sum, 23 + 45 + 76 + 21 + 15 + 35 + 95)
        XCTAssertEqual(store.setValue(1, series: 0, category: 7), StoreChange(), "out of range is ignored")
        XCTAssertEqual(store.index(ofCategory: "Sun"), 6)
    }

    func testBufferGrowsAndWrapsAroundWithoutLosingRows() {
        // Window 100 over 10 000 appends: the circular buffer wraps many times.
        let store = ChartStore(spec: spec(window: 100))
        for i in 0..<10_000 { store.upsert(x: Double(i), values: [Double(i % 17), nil]) }
        XCTAssertEqual(store.count, 100)
        XCTAssertEqual(store.xNumber(at: 0), 9_900)
        XCTAssertLessThanOrEqual(store.capacity, 128)
        let all = store.totals(series: 0, in: 0..<100)
        XCTAssertEqual(all.sum, (9_900..<10_000).reduce(0.0) { $0 + Double($1 % 17) })
        XCTAssertEqual(all.max, 16)
        XCTAssertEqual(all.min, 0)
    }
}
