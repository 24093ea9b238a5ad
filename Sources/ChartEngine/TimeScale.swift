/// A linear scale over epoch milliseconds (UTC) with calendar-aware ticks (d3-scale's `scaleUtc`).
///
/// Ticks land on whole milliseconds, seconds (1, 5, 15, 30), minutes (1, 5, 15, 30),
/// hours (1, 3, 6, 12), days (1, 2), Sunday weeks, months (1, 3) or years, whichever gives
/// closest to the requested count.
public struct TimeScale: Equatable, Sendable {
    /// A calendar tick interval: a unit and how many units per tick.
    public enum Interval: Equatable, Sendable {
        case milliseconds(Double)
        case seconds(Int)
        case minutes(Int)
        case hours(Int)
        case days(Int)
        case weeks(Int)
        case months(Int)
        case years(Int)
    }

    /// The underlying linear map (domain in epoch ms).
    public var linear: LinearScale

    /// The time interval `(t0, t1)` in epoch milliseconds.
    public var domain: (Double, Double) {
        get { linear.domain }
        set { linear.domain = newValue }
    }

    /// The output interval.
    public var range: (Double, Double) {
        get { linear.range }
        set { linear.range = newValue }
    }

    /// Creates a time scale.
    public init(domain: (Double, Double), range: (Double, Double) = (0, 1)) {
        self.linear = LinearScale(domain: domain, range: range)
    }

    /// Maps epoch milliseconds to the range (unclamped).
    public func callAsFunction(_ time: Double) -> Double { linear(time) }

    /// Maps a range value back to epoch milliseconds (unclamped).
    public func invert(_ pixel: Double) -> Double { linear.invert(pixel) }

    private static let day = UTCDate.millisecondsPerDay
    private static let candidates: [(Interval, Double)] = [
        (.seconds(1), 1_000), (.seconds(5), 5_000), (.seconds(15), 15_000), (.seconds(30), 30_000),
        (.minutes(1), 60_000), (.minutes(5), 300_000), (.minutes(15), 900_000), (.minutes(30), 1_800_000),
        (.hours(1), 3_600_000), (.hours(3), 10_800_000), (.hours(6), 21_600_000), (.hours(12), 43_200_000),
        (.days(1), day), (.days(2), 2 * day), (.weeks(1), 7 * day),
        (.months(1), 30 * day), (.months(3), 90 * day), (.years(1), 365 * day),
    ]

    /// The tick interval giving closest to `count` ticks over the domain (d3's `tickInterval`).
    public func tickInterval(_ count: Int = 10) -> Interval {
        let lo = Swift.min(domain.0, domain.1), hi = Swift.max(domain.0, domain.1)
        let target = (hi - lo) / Double(Swift.max(count, 1))
        let list = TimeScale.candidates
        guard let i = list.firstIndex(where: { $0.1 > target }) else {
            let years = NiceNumbers.tickStep(lo / (365 * TimeScale.day), hi / (365 * TimeScale.day), count)
            return .years(Swift.max(1, Int(years.rounded())))
        }
        if i == 0 {
            return .milliseconds(Swift.max(1, NiceNumbers.tickStep(lo, hi, count).rounded()))
        }
        return target / list[i - 1].1 < list[i].1 / target ? list[i - 1].0 : list[i].0
    }

    /// Calendar-aligned tick times inside the domain, ascending.
    ///
    /// - Complexity: O(number of ticks + days/months walked to find them), bounded by about
    ///   twice the requested count.
    public func ticks(_ count: Int = 10) -> [Double] {
        let lo = Swift.min(domain.0, domain.1), hi = Swift.max(domain.0, domain.1)
        guard lo.isFinite, hi.isFinite, count > 0 else { return [] }
        if lo == hi { return [lo] }
        return TimeScale.ticks(from: lo, through: hi, every: tickInterval(count))
    }

    /// Every boundary of `interval` in `[lo, hi]`.
    static func ticks(from lo: Double, through hi: Double, every interval: Interval) -> [Double] {
        func multiples(_ stepMs: Double) -> [Double] {
            var t = (lo / stepMs).rounded(.up) * stepMs
            var out: [Double] = []
            while t <= hi { out.append(t); t += stepMs }
            return out
        }
        switch interval {
        case .milliseconds(let k): return multiples(k)
        case .seconds(let k): return multiples(Double(k) * UTCDate.millisecondsPerSecond)
        case .minutes(let k): return multiples(Double(k) * UTCDate.millisecondsPerMinute)
        case .hours(let k): return multiples(Double(k) * UTCDate.millisecondsPerHour)
        case .days(let k):
            var out: [Double] = []
            var d = Int((lo / day).rounded(.up))
            while Double(d) * day <= hi {
                if (UTCDate(daysSinceEpoch: d).day - 1) % k == 0 { out.append(Double(d) * day) }
                d += 1
            }
            return out
        case .weeks(let k):
            var d = Int((lo / day).rounded(.up))
            while UTCDate(daysSinceEpoch: d).weekday != 0 { d += 1 }
            var out: [Double] = []
            while Double(d) * day <= hi { out.append(Double(d) * day); d += 7 * k }
            return out
        case .months(let k):
            var date = UTCDate(epochMilliseconds: lo).firstOfMonth(adding: 0)
            if date.epochMilliseconds < lo { date = date.firstOfMonth(adding: 1) }
            var out: [Double] = []
            while date.epochMilliseconds <= hi {
                if (date.month - 1) % k == 0 { out.append(date.epochMilliseconds) }
                date = date.firstOfMonth(adding: 1)
            }
            return out
        case .years(let k):
            var year = UTCDate(epochMilliseconds: lo).year
            if UTCDate(year: year, month: 1, day: 1).epochMilliseconds < lo { year += 1 }
            var out: [Double] = []
            while UTCDate(year: year, month: 1, day: 1).epochMilliseconds <= hi {
                if year % k == 0 { out.append(UTCDate(year: year, month: 1, day: 1).epochMilliseconds) }
                year += 1
            }
            return out
        }
    }
}
