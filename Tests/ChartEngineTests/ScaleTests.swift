import XCTest
import ChartCastDemo
@testable import ChartEngine

final class ScaleTests: XCTestCase {
    func testLinearInvertOfScaleIsIdentityAndMonotonic() {
        var rng = SplitMix64(seed: 1)
        for _ in 0..<200 {
            let d0 = Double.random(in: -1e6...1e6, using: &rng)
            let d1 = d0 + Double.random(in: 1e-3...1e6, using: &rng)
            let r0 = Double.random(in: -500...500, using: &rng)
            let r1 = Bool.random(using: &rng) ? r0 + 600 : r0 - 600   // decreasing ranges too
            let scale = LinearScale(domain: (d0, d1), range: (r0, r1))
            var previous: Double? = nil
            for k in 0...20 {
                let v = d0 + (d1 - d0) * Double(k) / 20
                let p = scale(v)
                XCTAssertEqual(scale.invert(p), v, accuracy: Swift.max(1e-9, Swift.abs(d1 - d0) * 1e-9))
                if let previous = previous {
                    if r1 > r0 { XCTAssertGreaterThan(p, previous) } else { XCTAssertLessThan(p, previous) }
                }
                previous = p
            }
        }
    }

    func testLinearTicksMatchD3() {
        let table: [(Double, Double, Int, [Double])] = [
            (0, 1, 10, [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1]),
            (0, 2200, 10, stride(from: 0.0, through: 2200, by: 200).map { $0 }),
            (0, 10, 5, [0, 2, 4, 6, 8, 10]),
            (-1, 1, 4, [-1, -0.5, 0, 0.5, 1]),
            (1, 99, 3, [50]),
            (1, 99, 5, [20, 40, 60, 80]),
            (0.5, 0.5, 10, [0.5]),
        ]
        for (lo, hi, count, expected) in table {
            let ticks = LinearScale(domain: (lo, hi)).ticks(count)
            XCTAssertEqual(ticks.count, expected.count, "ticks(\(lo), \(hi), \(count)) = \(ticks)")
            for (a, b) in zip(ticks, expected) { XCTAssertEqual(a, b, accuracy: 1e-12) }
        }
    }

    func testTicksAreNiceStepsInsideTheDomain() {
        var rng = SplitMix64(seed: 2)
        for _ in 0..<300 {
            let lo = Double.random(in: -1e5...1e5, using: &rng)
            let hi = lo + Double.random(in: 1e-4...1e5, using: &rng)
            let count = Int.random(in: 1...20, using: &rng)
            let ticks = NiceNumbers.ticks(lo, hi, count)
            XCTAssertFalse(ticks.isEmpty)
            XCTAssertTrue(ticks.allSatisfy { $0 >= lo - 1e-9 && $0 <= hi + 1e-9 })
            guard ticks.count > 1 else { continue }
            let step = ticks[1] - ticks[0]
            let mantissa = step / NiceNumbers.pow10(NiceNumbers.decade(step))
            XCTAssertTrue([1.0, 2, 5, 10].contains { Swift.abs($0 - mantissa) < 1e-6 }, "step \(step)")
            XCTAssertLessThanOrEqual(ticks.count, count * 3 + 1)
        }
    }

    func testNiceWidensToRoundValuesLikeD3() {
        let table: [(Double, Double, Double, Double)] = [
            (0, 2104, 0, 2200), (0, 2200, 0, 2200), (0.5, 9.7, 0, 10), (0, 76, 0, 80),
            (-35, 674, -100, 700), (0, 37.1, 0, 40), (0, 0.93, 0, 1), (0, 2800, 0, 2800),
        ]
        for (lo, hi, eLo, eHi) in table {
            let (a, b) = NiceNumbers.nice(lo, hi)
            XCTAssertEqual(a, eLo, accuracy: 1e-9, "nice(\(lo), \(hi))")
            XCTAssertEqual(b, eHi, accuracy: 1e-9, "nice(\(lo), \(hi))")
        }
    }

    func testBandCentresRoundTripAndCellsHaveNoGaps() {
        for n in 1...30 {
            let names = (0..<n).map { "c\($0)" }
            let band = BandScale(domain: names, range: (10, 610), paddingInner: 0.2, paddingOuter: 0.1)
            for i in 0..<n {
                XCTAssertEqual(band.invert(band.center(i), clamp: false), i)
                // Band centre equals cell centre when paddingOuter == paddingInner / 2.
                XCTAssertEqual(band.position(i) + band.bandwidth / 2, band.center(i), accuracy: 1e-9)
                // The gap between bands still hits a category: the cell edges.
                let cellStart = 10 + Double(i) * 600 / Double(n)
                XCTAssertEqual(band.invert(cellStart + 1e-9, clamp: false), i)
            }
            XCTAssertEqual(band.invert(610, clamp: false), n - 1, "far edge belongs to the last cell")
            XCTAssertNil(band.invert(9.99, clamp: false))
            XCTAssertNil(band.invert(610.01, clamp: false))
            XCTAssertEqual(band.invert(-50, clamp: true), 0)
            XCTAssertEqual(band.invert(5000, clamp: true), n - 1)
        }
    }

    func testBandStepAndBandwidthLikeD3() {
        let band = BandScale(domain: ["a", "b", "c", "d"], range: (0, 100), paddingInner: 0.2, paddingOuter: 0.1)
        // d3: step = 100 / (4 - 0.2 + 0.2) = 25, bandwidth = 20, start = 2.5
        XCTAssertEqual(band.step, 25, accuracy: 1e-12)
        XCTAssertEqual(band.bandwidth, 20, accuracy: 1e-12)
        XCTAssertEqual(band("a") ?? -1, 2.5, accuracy: 1e-12)
        XCTAssertEqual(band("d") ?? -1, 77.5, accuracy: 1e-12)
        XCTAssertNil(band("zzz"))
        XCTAssertNil(BandScale(domain: []).invert(0.5, clamp: true))
    }

    func testUTCDateRoundTrips() {
        XCTAssertEqual(UTCDate(year: 1970, month: 1, day: 1).daysSinceEpoch, 0)
        XCTAssertEqual(UTCDate(year: 2022, month: 5, day: 1).epochMilliseconds, 1_651_363_200_000)
        XCTAssertEqual(UTCDate(year: 2022, month: 5, day: 1).weekday, 0, "2022-05-01 was a Sunday")
        for days in stride(from: -800_000, through: 800_000, by: 997) {
            XCTAssertEqual(UTCDate(daysSinceEpoch: days).daysSinceEpoch, days)
        }
        XCTAssertEqual(UTCDate(year: 2022, month: 11, day: 9).firstOfMonth(adding: 3), UTCDate(year: 2023, month: 2, day: 1))
        XCTAssertEqual(UTCDate(year: 2022, month: 1, day: 9).firstOfMonth(adding: -1), UTCDate(year: 2021, month: 12, day: 1))
    }

    func testTimeTicksLandOnCalendarBoundaries() {
        let may1 = DemoCharts.may1, day = DemoCharts.day
        // 30 days, 10 ticks → every 2 days? d3 picks 2-day (target 3 days: 3/2 < 7/3).
        let month = TimeScale(domain: (may1 - day / 2, may1 + 29.5 * day))
        XCTAssertEqual(month.tickInterval(10), .days(2))
        let ticks = month.ticks(10)
        XCTAssertEqual(ticks.first, may1)
        XCTAssertTrue(ticks.allSatisfy { (UTCDate(epochMilliseconds: $0).day - 1) % 2 == 0 })
        XCTAssertTrue(ticks.allSatisfy { $0.truncatingRemainder(dividingBy: day) == 0 })
        // 30 days, 4 ticks → weekly, on Sundays.
        XCTAssertEqual(month.tickInterval(4), .weeks(1))
        XCTAssertTrue(month.ticks(4).allSatisfy { UTCDate(epochMilliseconds: $0).weekday == 0 })
        // Two years, 8 ticks → quarters.
        let years = TimeScale(domain: (UTCDate(year: 2021, month: 1, day: 1).epochMilliseconds,
                                       UTCDate(year: 2023, month: 1, day: 1).epochMilliseconds))
        XCTAssertEqual(years.tickInterval(8), .months(3))
        XCTAssertEqual(years.ticks(8).map { UTCDate(epochMilliseconds: $0).month }, [1, 4, 7, 10, 1, 4, 7, 10, 1])
        // One hour, 4 ticks → 15 minutes.
        let hour = TimeScale(domain: (may1, may1 + 3_600_000))
        XCTAssertEqual(hour.ticks(4), (0...4).map { may1 + Double($0) * 900_000 })
        // Sub-second spans fall back to milliseconds.
        XCTAssertEqual(TimeScale(domain: (0, 100)).ticks(5), [0, 20, 40, 60, 80, 100])
        // Time scale maps like a linear scale.
        let scale = TimeScale(domain: (may1, may1 + 10 * day), range: (0, 500))
        XCTAssertEqual(scale(may1 + 5 * day), 250)
        XCTAssertEqual(scale.invert(100), may1 + 2 * day)
    }
}
