/// A band scale for categories (d3-scale's `scaleBand`), with an inverse for hit testing.
///
/// Drawing uses `position(_:)`, `bandwidth` and the paddings. Hit testing (`invert`) ignores the
/// paddings on purpose: the range is split into `n` equal cells and a pixel anywhere in cell `i`
/// means category `i`, so a padding is a drawing choice, never a gap in hit testing. With
/// `paddingOuter == paddingInner / 2` (the default pair is 0, 0) every band is centred in its cell.
public struct BandScale: Equatable, Sendable {
    /// The categories, in axis order.
    public var domain: [String]
    /// The output interval, start to end.
    public var range: (Double, Double)
    /// Fraction of a step left empty between bands, in [0, 1].
    public var paddingInner: Double
    /// Fraction of a step left empty before the first and after the last band.
    public var paddingOuter: Double
    /// How leftover space is split before the first band and after the last (0.5 centres).
    public var align: Double

    /// Creates a band scale.
    public init(domain: [String], range: (Double, Double) = (0, 1),
                paddingInner: Double = 0, paddingOuter: Double = 0, align: Double = 0.5) {
        self.domain = domain
        self.range = range
        self.paddingInner = Swift.min(1, Swift.max(0, paddingInner))
        self.paddingOuter = Swift.max(0, paddingOuter)
        self.align = Swift.min(1, Swift.max(0, align))
    }

    /// Distance between the starts of adjacent bands.
    public var step: Double {
        let n = Double(domain.count)
        let denominator = Swift.max(1, n - paddingInner + paddingOuter * 2)
        return (range.1 - range.0) / denominator
    }

    /// Width of one band.
    public var bandwidth: Double { step * (1 - paddingInner) }

    /// Start of the first band.
    private var start: Double {
        let n = Double(domain.count)
        return range.0 + (range.1 - range.0 - step * (n - paddingInner)) * align
    }

    /// Start of band `index` (not bounds-checked).
    public func position(_ index: Int) -> Double {
        start + step * Double(index)
    }

    /// Start of the band of `category`, or `nil` for an unknown category.
    ///
    /// - Complexity: O(n).
    public func callAsFunction(_ category: String) -> Double? {
        guard let index = domain.firstIndex(of: category) else { return nil }
        return position(index)
    }

    /// Centre of cell `index`: `r0 + (index + 0.5) · (r1 − r0) / n`. Equals the band centre when
    /// the paddings are centred (see the type's notes).
    public func center(_ index: Int) -> Double {
        let n = Double(Swift.max(domain.count, 1))
        return range.0 + (Double(index) + 0.5) * (range.1 - range.0) / n
    }

    /// The category index under `pixel`: cell `i` covers `[i, i+1) · (r1 − r0) / n` from `r0`, and
    /// the very end of the range belongs to the last cell. Outside the range: `nil`, or the
    /// first/last index when `clamp` is true. `nil` when there are no categories.
    public func invert(_ pixel: Double, clamp: Bool) -> Int? {
        let n = domain.count
        let span = range.1 - range.0
        guard n > 0, span != 0 else { return nil }
        let t = (pixel - range.0) / span
        if t < 0 { return clamp ? 0 : nil }
        if t > 1 { return clamp ? n - 1 : nil }
        guard t.isFinite else { return nil }
        let cell = ((pixel - range.0) * Double(n) / span).rounded(.down)
        return Swift.max(0, Swift.min(Int(cell), n - 1))
    }

    public static func == (a: BandScale, b: BandScale) -> Bool {
        a.domain == b.domain && a.range == b.range && a.paddingInner == b.paddingInner
            && a.paddingOuter == b.paddingOuter && a.align == b.align
    }
}
