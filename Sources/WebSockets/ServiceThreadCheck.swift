extension ServiceLoop {
    /// States the service-thread contract: in debug builds, reports a call to a member marked
    /// "service thread only" made on another thread while the service thread runs; in release
    /// builds it compiles to nothing.
    ///
    /// The report goes to `threadViolationHandler` when one is set (tests), else to
    /// `assertionFailure`, which stops a debug build at the offending call.
    /// - Parameter member: the member being called (the caller's `#function`).
    /// - Note: any thread (that is the point).
    @inline(__always)
    func assertServiceThread(_ member: StaticString = #function) {
        #if DEBUG
        if !isServiceThreadOrIdle { reportThreadViolation(member) }
        #endif
    }

    /// The slow path of `assertServiceThread`.
    func reportThreadViolation(_ member: StaticString) {
        let message = "\(member) is service thread only, called on another thread"
        if let handler = threadViolationHandler {
            handler(message)
        } else {
            assertionFailure(message)
        }
    }
}
