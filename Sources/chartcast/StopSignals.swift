#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM: blocked in every thread from the first statement on, and taken with
/// `sigwait` by the main thread once the server runs.
///
/// Why not a dispatch signal source: on Linux it needs the signal ignored (`SIG_IGN`), and the
/// kernel drops an ignored signal when it is sent unless the thread it picks has it blocked.
/// A SIGTERM sent as the server said it was listening was lost so, one time in a few dozen,
/// and whoever waited for the server to stop (a supervisor, a test) waited for ever. A blocked
/// signal stays pending until `sigwait` takes it, whenever it was sent.
enum StopSignals {
    private static var set: sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        return signals
    }

    /// Blocks both in the calling thread, and so in every thread it starts later: call it
    /// before anything starts a thread.
    static func block() {
        var signals = set
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// Waits until one of them is sent (at once if one is pending). - Returns: its number.
    static func wait() -> Int32 {
        var signals = set
        var number: Int32 = 0
        while sigwait(&signals, &number) != 0 {}
        return number
    }
}
