import ChartEngine

/// RFC 3339 date-times (`2024-12-01T08:30:00Z`, `2024-12-01T09:30:00.125+01:00`) as epoch
/// milliseconds, the x of time charts.
public enum RFC3339 {
    /// The epoch milliseconds of `text`, or `nil` when it is not an RFC 3339 `date-time`.
    ///
    /// Accepts `T`, `t` or a space between date and time (RFC 3339 §5.6 note), `Z`/`z` or a
    /// `±hh:mm` offset, any number of fractional-second digits (kept to 1 ns; the result is the
    /// nearest double), and a leap second `:60` (counted as the next minute's `:00`). Years
    /// 0000–9999; the day must exist in its month.
    public static func epochMilliseconds(_ text: String) -> Double? {
        var copy = text
        return copy.withUTF8 { epochMilliseconds($0) }
    }

    /// The epoch milliseconds of the date-time spelled by all of `p`, or `nil`.
    /// - Complexity: O(n).
    static func epochMilliseconds(_ p: UnsafeBufferPointer<UInt8>) -> Double? {
        let end = p.count
        guard end >= 20 else { return nil }
        @inline(__always) func number(_ at: Int, _ digits: Int) -> Int? {
            var value = 0
            for k in at..<(at + digits) {
                let d = p[k] &- UInt8(ascii: "0")
                guard d < 10 else { return nil }
                value = value * 10 + Int(d)
            }
            return value
        }
        guard let year = number(0, 4), p[4] == UInt8(ascii: "-"),
              let month = number(5, 2), p[7] == UInt8(ascii: "-"),
              let day = number(8, 2),
              p[10] == UInt8(ascii: "T") || p[10] == UInt8(ascii: "t") || p[10] == UInt8(ascii: " "),
              let hour = number(11, 2), p[13] == UInt8(ascii: ":"),
              let minute = number(14, 2), p[16] == UInt8(ascii: ":"),
              let second = number(17, 2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour <= 23, minute <= 59, second <= 60 else { return nil }

        var k = 19
        var fractionMs = 0.0
        if p[k] == UInt8(ascii: ".") {
            k += 1
            var digits: UInt64 = 0
            var kept = 0
            let start = k
            while k < end, p[k] &- UInt8(ascii: "0") < 10 {
                if kept < 9 {
                    digits = digits * 10 + UInt64(p[k] &- UInt8(ascii: "0"))
                    kept += 1
                }
                k += 1
            }
            guard k > start else { return nil }
            // digits / 10^kept seconds = digits / 10^(kept-3) ms, one rounding.
            fractionMs = kept >= 3
                ? Double(digits) / pow10(kept - 3)
                : Double(digits) * pow10(3 - kept)
        }
        guard k < end else { return nil }
        var offsetMinutes = 0
        switch p[k] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            k += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard k + 6 <= end, let oh = number(k + 1, 2), p[k + 3] == UInt8(ascii: ":"),
                  let om = number(k + 4, 2), oh <= 23, om <= 59 else { return nil }
            offsetMinutes = (oh * 60 + om) * (p[k] == UInt8(ascii: "-") ? -1 : 1)
            k += 6
        default:
            return nil
        }
        guard k == end else { return nil }
        let days = UTCDate(year: year, month: month, day: day).daysSinceEpoch
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offsetMinutes * 60
        return Double(seconds * 1_000) + fractionMs
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func pow10(_ n: Int) -> Double {
        var value = 1.0
        for _ in 0..<n { value *= 10 }
        return value
    }
}
