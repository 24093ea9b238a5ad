#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Nanoseconds on the system's monotonic clock: one time base for every connection in the
/// process, so a pointer's send time and a viewer's receive time subtract directly.
public enum MonotonicClock {
    /// The current monotonic time in nanoseconds.
    @inline(__always)
    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// The monotonic time of a `CLOCK_REALTIME` reading in nanoseconds, such as the stamp the
    /// kernel puts on a received segment: now, less how long ago that reading was (never later
    /// than now, so a wall clock stepped backwards cannot put an arrival in the future).
    public static func monotonic(fromRealtime stamp: Int64) -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let real = Int64(ts.tv_sec) &* 1_000_000_000 &+ Int64(ts.tv_nsec)
        let current = now()
        let ago = real &- stamp
        guard ago > 0 else { return current }
        return UInt64(ago) < current ? current &- UInt64(ago) : 0
    }

    /// Seconds elapsed since `start`.
    public static func seconds(since start: UInt64) -> Double { Double(now() &- start) / 1e9 }

    /// Blocks the calling thread for `seconds`.
    public static func sleep(_ seconds: Double) {
        guard seconds > 0 else { return }
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
