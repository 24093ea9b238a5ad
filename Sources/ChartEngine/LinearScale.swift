/// A continuous linear map from a data domain to a pixel range (d3-scale's `scaleLinear`).
///
/// A small value: copy it, change `domain` or `range`, and call it like a function.
public struct LinearScale: Sendable {
    /// The data interval `(d0, d1)`; `d0` maps to `range.0`.
    public var domain: (Double, Double)
    /// The output interval `(r0, r1)`; may be decreasing (e.g. a y axis growing upwards).
    public var range: (Double, Double)

    /// Creates a scale; by default the identity on [0, 1].
    public init(domain: (Double, Double) = (0, 1), range: (Double, Double) = (0, 1)) {
        self.domain = domain
        self.range = range
    }

    /// Maps a data value to the range (unclamped). A degenerate domain maps everything to the range's midpoint.
    public func callAsFunction(_ value: Double) -> Double {
        let span = domain.1 - domain.0
        guard span != 0 else { return (range.0 + range.1) / 2 }
        let t = (value - domain.0) / span
        return range.0 + t * (range.1 - range.0)
    }

    /// Maps a range value back to the domain (unclamped). A degenerate range maps everything to the domain's midpoint.
    public func invert(_ pixel: Double) -> Double {
        let span = range.1 - range.0
        guard span != 0 else { return (domain.0 + domain.1) / 2 }
        let t = (pixel - range.0) / span
        return domain.0 + t * (domain.1 - domain.0)
    }

    /// Where `value` sits in the domain as a fraction: 0 at `d0`, 1 at `d1` (unclamped).
    public func fraction(_ value: Double) -> Double {
        let span = domain.1 - domain.0
        guard span != 0 else { return 0.5 }
        return (value - domain.0) / span
    }

    /// Roughly `count` nice tick values (1, 2 or 5 × 10^k apart) inside the domain, ascending.
    ///
    /// - Complexity: O(number of ticks).
    public func ticks(_ count: Int = 10) -> [Double] {
        NiceNumbers.ticks(domain.0, domain.1, count)
    }

    /// A copy whose domain is widened to nice round values (d3's `linear.nice()`).
    public func nice(_ count: Int = 10) -> LinearScale {
        var copy = self
        let flipped = domain.1 < domain.0
        let (lo, hi) = NiceNumbers.nice(domain.0, domain.1, count: count)
        copy.domain = flipped ? (hi, lo) : (lo, hi)
        return copy
    }
}

extension LinearScale: Equatable {
    public static func == (a: LinearScale, b: LinearScale) -> Bool {
        a.domain == b.domain && a.range == b.range
    }
}
