/// A log-linear histogram of durations in nanoseconds with bounded memory and ~0.8 % precision.
///
/// Values are grouped by their power of two; each power is split into 128 linear sub-buckets, the
/// layout HdrHistogram uses. Recording is O(1) and allocation-free, so millions of fan-out samples
/// per run cost a few kilobytes rather than an array per sample.
/// - Note: a value type with no locking; each histogram belongs to one thread (the client service
///   thread during a run) and is copied out for reporting.
public struct LatencyHistogram: Sendable, Equatable {
    /// Sub-buckets per power of two; the relative error of a reported percentile is below 1/128.
    static let subBucketBits = 7
    static let subBucketCount = 1 << subBucketBits
    /// Powers of two covered above the linear range: 2^7 ns … 2^45 ns (≈ 9.8 hours).
    static let magnitudeCount = 39

    private var counts: [UInt64]
    /// How many values were recorded.
    public private(set) var count: UInt64 = 0
    /// The largest recorded value, exact.
    public private(set) var maxNanoseconds: UInt64 = 0
    /// The smallest recorded value, exact (0 when empty).
    public private(set) var minNanoseconds: UInt64 = 0
    private var sumNanoseconds: Double = 0

    /// An empty histogram.
    public init() {
        counts = [UInt64](repeating: 0, count: Self.subBucketCount * (Self.magnitudeCount + 1))
    }

    /// Records one duration.
    /// - Complexity: O(1).
    public mutating func record(nanoseconds value: UInt64) {
        counts[Self.index(of: value)] &+= 1
        if count == 0 || value < minNanoseconds { minNanoseconds = value }
        count += 1
        if value > maxNanoseconds { maxNanoseconds = value }
        sumNanoseconds += Double(value)
    }

    /// Adds every sample of `other` to this histogram.
    /// - Complexity: O(buckets).
    public mutating func merge(_ other: LatencyHistogram) {
        guard other.count > 0 else { return }
        for i in counts.indices { counts[i] &+= other.counts[i] }
        if count == 0 || other.minNanoseconds < minNanoseconds { minNanoseconds = other.minNanoseconds }
        count += other.count
        maxNanoseconds = max(maxNanoseconds, other.maxNanoseconds)
        sumNanoseconds += other.sumNanoseconds
    }

    /// The arithmetic mean in nanoseconds (0 when empty).
    public var meanNanoseconds: Double { count == 0 ? 0 : sumNanoseconds / Double(count) }

    /// The value at quantile `q` (0…1): the upper edge of the bucket holding the ⌈q·count⌉-th
    /// smallest sample, capped at the exact maximum. 0 when empty.
    /// - Complexity: O(buckets).
    public func percentile(_ q: Double) -> UInt64 {
        guard count > 0 else { return 0 }
        let rank = max(1, UInt64((q * Double(count)).rounded(.up)))
        var seen: UInt64 = 0
        for (i, c) in counts.enumerated() where c > 0 {
            seen += c
            // The last bucket also holds every value beyond the covered range: report the max.
            if seen >= rank { return i == counts.count - 1 ? maxNanoseconds : min(Self.upperEdge(of: i), maxNanoseconds) }
        }
        return maxNanoseconds
    }

    /// The bucket holding `value`: values below 128 map to themselves; above, the 7 bits below
    /// the leading one select the sub-bucket of the value's power of two (magnitude m covers
    /// `[128 << (m-1), 256 << (m-1))`).
    static func index(of value: UInt64) -> Int {
        if value < UInt64(subBucketCount) { return Int(value) }
        let magnitude = (63 - value.leadingZeroBitCount) - subBucketBits + 1   // ≥ 1
        let clamped = min(magnitude, magnitudeCount)
        if clamped != magnitude { return subBucketCount * (magnitudeCount + 1) - 1 }
        let sub = Int((value >> UInt64(magnitude - 1)) & UInt64(subBucketCount - 1))
        return clamped * subBucketCount + sub
    }

    /// The largest value that maps to bucket `index`.
    static func upperEdge(of index: Int) -> UInt64 {
        let magnitude = index / subBucketCount
        let sub = UInt64(index % subBucketCount)
        if magnitude == 0 { return sub }
        let base = (UInt64(subBucketCount) | sub) << UInt64(magnitude - 1)
        return base + (UInt64(1) << UInt64(magnitude - 1)) - 1
    }
}
