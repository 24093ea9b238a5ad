#if canImport(Glibc)
import Glibc
#endif

/// The scheduling class of the server's background threads (the parse workers and the storage
/// thread) and of the load tester's publishers: Linux's `SCHED_IDLE`, below every normal thread.
///
/// Why not `nice 10`: on the scheduler of current kernels (EEVDF, Linux 6.6 and later) a niced
/// thread that holds the core keeps it until its slice ends (up to a 4 ms tick), even when the
/// service thread wakes with pointer input to read; measured while 400,000 points a second were
/// parsed and committed beside 100 viewers, the service thread waited up to 7 ms to run. A
/// `SCHED_IDLE` thread is preempted as soon as a normal one wakes, and still gets every cycle
/// the service thread leaves (on an idle core it runs at full speed).
public enum IdlePriority {
    /// Moves the calling thread to `SCHED_IDLE` (Linux keeps the class per thread; `pid` 0 is the
    /// calling thread). One system call; a no-op elsewhere and when the call fails.
    public static func adoptForCallingThread() {
        #if os(Linux)
        var parameters = sched_param()
        _ = sched_setscheduler(0, idleClass, &parameters)
        #endif
    }

    /// `SCHED_IDLE` (`<sched.h>` defines it only under `_GNU_SOURCE`, which Swift's Glibc
    /// module is not built with).
    static let idleClass: Int32 = 5
}
