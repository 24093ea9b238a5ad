/// What one store mutation changed; the server turns it into an `append` message and hands it
/// to `SelectionEngine.dataDidChange(_:)`.
public struct StoreChange: Equatable, Sendable {
    /// The x that was inserted or replaced (category charts: the category index); `nil` if none.
    /// For a batch of rows, the smallest such x (`insertedUpTo` is the largest).
    public var insertedX: Double?
    /// For a batch of rows, the largest x inserted or replaced; `nil` for a single row.
    public var insertedUpTo: Double?
    /// When rows left the rolling window: every remaining row has `x >= evictedBefore`, and every
    /// evicted row had a smaller x. `nil` when nothing was evicted.
    public var evictedBefore: Double?
    /// Whether `ChartStore.xDomain` differs from before the mutation.
    public var xDomainChanged: Bool
    /// Whether `ChartStore.yDomain` differs from before the mutation.
    public var yDomainChanged: Bool

    /// Creates a change description.
    public init(insertedX: Double? = nil, insertedUpTo: Double? = nil, evictedBefore: Double? = nil,
                xDomainChanged: Bool = false, yDomainChanged: Bool = false) {
        self.insertedX = insertedX
        self.insertedUpTo = insertedUpTo
        self.evictedBefore = evictedBefore
        self.xDomainChanged = xDomainChanged
        self.yDomainChanged = yDomainChanged
    }
}

/// Count, sum, min, max and mean of one series over a range of rows. Missing values are skipped;
/// `min`, `max` and `mean` are `nil` when no value is present.
public struct SeriesTotals: Equatable, Sendable {
    /// The series name.
    public var series: String
    /// How many values are present in the range.
    public var count: Int
    /// Sum of the present values (0 when empty).
    public var sum: Double
    /// Smallest present value.
    public var min: Double?
    /// Largest present value.
    public var max: Double?
    /// `sum / count`.
    public var mean: Double?

    /// Creates totals.
    public init(series: String, count: Int, sum: Double, min: Double?, max: Double?, mean: Double?) {
        self.series = series
        self.count = count
        self.sum = sum
        self.min = min
        self.max = max
        self.mean = mean
    }

    /// Totals from an aggregate.
    init(series: String, aggregate a: Aggregate) {
        self.init(series: series, count: a.count, sum: a.sum,
                  min: a.count > 0 ? a.min : nil, max: a.count > 0 ? a.max : nil,
                  mean: a.count > 0 ? a.sum / Double(a.count) : nil)
    }
}
