import CLibWebsockets
import Dispatch

/// A one-shot or repeating timer on a service thread, backed by an lws_sul.
///
/// Created by `WebSocketServer.schedule(every:_:)` / `schedule(after:_:)` and the
/// client context's `schedule(every:_:)`. A repeating timer keeps its cadence:
/// each firing is scheduled from the previous due time, not from when the
/// callback ran. The loop retains an active timer, so discarding the returned
/// object does not stop it; `cancel()` does.
///
/// - Note: service thread only (create, fire, cancel).
public final class WebSocketTimer {
    private let element: UnsafeMutablePointer<cc_timer_t>
    private weak var loop: ServiceLoop?
    private let interval: Double?
    private let action: () -> Void
    /// When the timer is due next, on `now()`'s clock (µs). - Note: service thread only.
    private(set) var dueMicroseconds: Int64 = 0
    private var active = false

    /// True while the timer is scheduled.
    /// - Note: service thread only.
    public var isActive: Bool {
        loop?.assertServiceThread()
        return active
    }

    init(loop: ServiceLoop, interval: Double?, action: @escaping () -> Void) {
        self.loop = loop
        self.interval = interval
        self.action = action
        self.element = cc_timer_create(nil)
        self.element.pointee.owner = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        cc_timer_destroy(element)
    }

    /// Stops the timer; it will not fire again. Safe to call repeatedly.
    /// - Note: service thread only.
    public func cancel() {
        loop?.assertServiceThread()
        guard active else { return }
        active = false
        cc_timer_cancel(element)
        loop?.timers[ObjectIdentifier(self)] = nil
    }

    /// Schedules the first firing `delay` seconds from now. Does nothing if the loop is tearing down.
    func arm(after delay: Double) {
        guard let loop = loop, !loop.isTearingDown, loop.context != nil else { return }
        active = true
        loop.timers[ObjectIdentifier(self)] = self
        dueMicroseconds = WebSocketTimer.now() + WebSocketTimer.microseconds(delay)
        schedule()
    }

    private func schedule() {
        guard let context = loop?.context else {
            active = false
            return
        }
        let delay = max(0, dueMicroseconds - WebSocketTimer.now())
        cc_timer_schedule(context, element, timerFired, delay)
        loop?.evLoop?.wake(at: dueMicroseconds)   // on libev, the loop wakes for it (EvLoop.startTimerWake)
    }

    /// Called from the sul callback.
    fileprivate func fire() {
        guard active, let loop = loop else { return }
        if let interval = interval {
            dueMicroseconds += WebSocketTimer.microseconds(interval)
            let now = WebSocketTimer.now()
            if dueMicroseconds < now {
                // Fell behind by more than a period: skip the missed ticks.
                dueMicroseconds = now
            }
            schedule()
        } else {
            active = false
            loop.timers[ObjectIdentifier(self)] = nil
        }
        action()
    }

    static func microseconds(_ seconds: Double) -> Int64 {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return Int64((seconds * 1_000_000).rounded())
    }

    static func now() -> Int64 {
        return Int64(DispatchTime.now().uptimeNanoseconds / 1000)
    }
}

/// The C callback for every timer: recovers the owner and fires it.
private let timerFired: @convention(c) (UnsafeMutablePointer<lws_sorted_usec_list_t>?) -> Void = { sul in
    guard let sul = sul, let owner = cc_timer_owner(sul) else { return }
    let timer = Unmanaged<WebSocketTimer>.fromOpaque(owner).takeUnretainedValue()
    // Keep the timer alive for the duration of its own callback.
    withExtendedLifetime(timer) {
        timer.fire()
    }
}

extension ServiceLoop {
    /// A repeating timer firing every `seconds` (minimum 1 ms).
    /// - Note: service thread only.
    func scheduleTimer(every seconds: Double, _ tick: @escaping () -> Void) -> WebSocketTimer {
        let interval = max(0.001, seconds.isFinite ? seconds : 0.001)
        let timer = WebSocketTimer(loop: self, interval: interval, action: tick)
        timer.arm(after: interval)
        return timer
    }

    /// A one-shot timer firing once after `seconds`.
    /// - Note: service thread only.
    func scheduleTimer(after seconds: Double, _ fire: @escaping () -> Void) -> WebSocketTimer {
        let timer = WebSocketTimer(loop: self, interval: nil, action: fire)
        timer.arm(after: seconds)
        return timer
    }
}
