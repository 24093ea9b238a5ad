import Foundation

/// Rounds a value extent outwards to "nice" bounds (1, 2, 2.5 or 5 × 10^k steps), like d3's `nice()`.
enum NiceDomain {
    /// - Parameters:
    ///   - includeZero: extend the extent to 0 first (bar charts).
    ///   - tickCount: roughly how many ticks the bounds should fit.
    static func extent(min lo: Double, max hi: Double, includeZero: Bool, tickCount: Double = 5) -> (Double, Double) {
        var lo = lo, hi = hi
        if includeZero { lo = Swift.min(lo, 0); hi = Swift.max(hi, 0) }
        guard lo.isFinite, hi.isFinite else { return (0, 1) }
        if lo == hi {
            if lo == 0 { return (0, 1) }
            let pad = abs(lo) * 0.1
            lo -= pad
            hi += pad
        }
        let rawStep = (hi - lo) / tickCount
        let magnitude = pow(10, floor(log10(rawStep)))
        let step = [1.0, 2.0, 2.5, 5.0, 10.0].map { $0 * magnitude }.first { $0 >= rawStep } ?? 10 * magnitude
        return ((lo / step).rounded(.down) * step, (hi / step).rounded(.up) * step)
    }
}
