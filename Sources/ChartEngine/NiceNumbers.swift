/// Tick and "nice" domain arithmetic, following d3-array's `ticks`/`tickIncrement` and
/// d3-scale's `linear.nice()`: steps are 1, 2 or 5 times a power of ten.
public enum NiceNumbers {
    private static let e10 = 50.0.squareRoot()
    private static let e5 = 10.0.squareRoot()
    private static let e2 = 2.0.squareRoot()

    /// The step multiplier (1, 2, 5 or 10) for a raw step's mantissa `error` in [1, 10).
    private static func factor(_ error: Double) -> Double {
        if error >= e10 { return 10 }
        if error >= e5 { return 5 }
        if error >= e2 { return 2 }
        return 1
    }

    /// d3's `tickIncrement`: positive means a step of that size, negative `-k` means a step of `1/k`
    /// (kept as an integer inverse so that ticks such as 0.1 are computed exactly); 0 when undefined.
    public static func tickIncrement(_ start: Double, _ stop: Double, _ count: Int) -> Double {
        guard count > 0, stop > start, start.isFinite, stop.isFinite else { return 0 }
        let step = (stop - start) / Double(count)
        let power = decade(step)
        let error = step / pow10(power)
        if power >= 0 {
            return factor(error) * pow10(power)
        }
        return -pow10(-power) / factor(error)
    }

    /// The plain tick step (always positive) for `count` ticks over `[start, stop]`; 0 when undefined.
    public static func tickStep(_ start: Double, _ stop: Double, _ count: Int) -> Double {
        let lo = Swift.min(start, stop), hi = Swift.max(start, stop)
        let inc = tickIncrement(lo, hi, count)
        if inc == 0 { return 0 }
        return inc > 0 ? inc : -1 / inc
    }

    /// Roughly `count` evenly spaced, nice values inside `[start, stop]` (inclusive), ascending.
    /// As in d3, a single requested tick that finds no multiple inside retries with two.
    ///
    /// - Complexity: O(number of ticks).
    public static func ticks(_ start: Double, _ stop: Double, _ count: Int) -> [Double] {
        guard start.isFinite, stop.isFinite, count > 0 else { return [] }
        if start == stop { return [start] }
        let lo = Swift.min(start, stop), hi = Swift.max(start, stop)
        let inc = tickIncrement(lo, hi, count)
        guard inc != 0 else { return [] }
        var values: [Double] = []
        if inc > 0 {
            var i1 = (lo / inc).rounded(), i2 = (hi / inc).rounded()
            if i1 * inc < lo { i1 += 1 }
            if i2 * inc > hi { i2 -= 1 }
            guard i1 <= i2 else { return count == 1 ? ticks(lo, hi, 2) : [] }
            for i in stride(from: i1, through: i2, by: 1) { values.append(i * inc) }
        } else {
            let inv = -inc
            var i1 = (lo * inv).rounded(), i2 = (hi * inv).rounded()
            if i1 / inv < lo { i1 += 1 }
            if i2 / inv > hi { i2 -= 1 }
            guard i1 <= i2 else { return count == 1 ? ticks(lo, hi, 2) : [] }
            for i in stride(from: i1, through: i2, by: 1) { values.append(i / inv) }
        }
        return values
    }

    /// d3's `linear.nice(count)`: widens `[start, stop]` outwards to multiples of the tick step,
    /// repeating until the step is stable.
    public static func nice(_ start: Double, _ stop: Double, count: Int = 10) -> (Double, Double) {
        var lo = Swift.min(start, stop), hi = Swift.max(start, stop)
        guard lo.isFinite, hi.isFinite, hi > lo else { return (lo, hi) }
        var previous: Double? = nil
        for _ in 0..<10 {
            let step = tickIncrement(lo, hi, count)
            if step == previous { break }
            if step > 0 {
                lo = (lo / step).rounded(.down) * step
                hi = (hi / step).rounded(.up) * step
            } else if step < 0 {
                lo = (lo * step).rounded(.up) / step
                hi = (hi * step).rounded(.down) / step
            } else {
                break
            }
            previous = step
        }
        return (lo, hi)
    }

    /// `10^power` for an integral `power`, exact for the powers ticks use.
    static func pow10(_ power: Double) -> Double {
        var result = 1.0
        let n = Int(Swift.abs(power))
        for _ in 0..<n { result *= 10 }
        return power < 0 ? 1 / result : result
    }

    /// The integral power of ten `p` with `10^p <= x < 10^(p+1)`, for finite `x > 0`.
    static func decade(_ x: Double) -> Double {
        var p = 0.0
        if x >= 1 {
            while p < 308, pow10(p + 1) <= x { p += 1 }
        } else {
            while p > -323, pow10(p) > x { p -= 1 }
        }
        return p
    }
}
