/// Proleptic Gregorian calendar arithmetic in UTC on epoch milliseconds, without Foundation.
///
/// Uses Howard Hinnant's `days_from_civil` / `civil_from_days` algorithms.
public struct UTCDate: Equatable, Sendable {
    public static let millisecondsPerSecond = 1_000.0
    public static let millisecondsPerMinute = 60_000.0
    public static let millisecondsPerHour = 3_600_000.0
    public static let millisecondsPerDay = 86_400_000.0

    public var year: Int
    /// 1…12
    public var month: Int
    /// 1…31
    public var day: Int

    /// Creates a calendar date.
    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Days since 1970-01-01 for this date.
    public var daysSinceEpoch: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Epoch milliseconds of this date's UTC midnight.
    public var epochMilliseconds: Double {
        Double(daysSinceEpoch) * UTCDate.millisecondsPerDay
    }

    /// The date `days` days after 1970-01-01.
    public init(daysSinceEpoch days: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        self.init(year: yoe + era * 400 + (m <= 2 ? 1 : 0), month: m, day: d)
    }

    /// The UTC calendar date containing the instant `ms`.
    public init(epochMilliseconds ms: Double) {
        self.init(daysSinceEpoch: Int((ms / UTCDate.millisecondsPerDay).rounded(.down)))
    }

    /// Day of the week, 0 = Sunday … 6 = Saturday.
    public var weekday: Int {
        let d = (daysSinceEpoch + 4) % 7
        return d < 0 ? d + 7 : d
    }

    /// The first of the month `months` months after this date's month.
    public func firstOfMonth(adding months: Int) -> UTCDate {
        let index = year * 12 + (month - 1) + months
        let y = index >= 0 ? index / 12 : (index - 11) / 12
        return UTCDate(year: y, month: index - y * 12 + 1, day: 1)
    }
}
