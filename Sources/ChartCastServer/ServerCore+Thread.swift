#if canImport(Glibc)
import Glibc
#endif

extension ServerCore {
    /// States the service-thread contract of the core's entry points: in debug builds, reports a
    /// call made while `isOwningThread()` is false; in release builds it compiles to nothing.
    ///
    /// The report goes to `onThreadViolation` when set (tests), else to `assertionFailure`,
    /// which stops a debug build at the offending call.
    /// - Parameter function: the entry point (the caller's `#function`).
    @inline(__always)
    func assertOwningThread(_ function: StaticString = #function) {
        #if DEBUG
        if !isOwningThread() { reportThreadViolation(function) }
        #endif
    }

    /// The slow path of `assertOwningThread`.
    func reportThreadViolation(_ function: StaticString) {
        let message = "ServerCore.\(function) is service thread only, called on another thread"
        if let handler = onThreadViolation {
            handler(message)
        } else {
            assertionFailure(message)
        }
    }

    /// The calling thread, for `isCurrentThread`.
    static func currentThread() -> pthread_t { pthread_self() }

    /// A predicate that is true on `thread` only.
    static func isCurrentThread(_ thread: pthread_t) -> () -> Bool {
        return { pthread_equal(thread, pthread_self()) != 0 }
    }
}
