import CLibev
import CLibWebsockets

/// The event loop a `WebSocketServer`'s service thread runs libwebsockets on.
///
/// - `poll`: libwebsockets' own loop, `poll(2)` over every descriptor on each wake-up, so a
///   pass costs O(connections) even when one socket is ready.
/// - `libev`: an epoll loop of libev's (Debian `libev-dev`) that this module creates and runs
///   (`ev_run(EVRUN_ONCE)` per pass), on which libwebsockets registers its descriptors and timers
///   through its libev plugin (Debian `libwebsockets-evlib-ev`, loaded by libwebsockets when the
///   context is created): a pass costs O(ready descriptors).
public enum WebSocketEventLoop: String, Sendable, CaseIterable {
    case poll
    case libev
}

/// The libev loop one context runs on, owned by its `ServiceLoop`: created on the caller's
/// thread before `lws_create_context`, run and destroyed on the service thread.
final class EvLoop {
    let loop: OpaquePointer

    /// The wake-up that makes libwebsockets run its due timers (see `startTimerWake`).
    private let wake = UnsafeMutablePointer<cc_ev_tick>.allocate(capacity: 1)
    private var wakeRunning = false
    private var wakeContext: OpaquePointer?
    /// When the wake is armed for, on `WebSocketTimer.now()`'s clock (µs); `.max`: not armed.
    private var armedDue = Int64.max

    /// The latest a wake comes after the previous one, for libwebsockets' own timers (header,
    /// close and ping timeouts, `lws_set_timeout`), whose due times it does not expose: they run
    /// at most this late on a quiet loop. The service loop's own timers wake it on time.
    static let timerWakeSlack = 0.25
    /// How long after a timer's due time its wake comes, so that libwebsockets finds it ripe.
    static let timerWakeMargin: Int64 = 1_000

    /// The earliest due time (`WebSocketTimer.now()`'s clock, µs) of the service loop's timers
    /// that is still ahead, nil when none is; set by the `ServiceLoop` that owns this loop.
    var nextTimerDue: (() -> Int64?)?

    /// An epoll-backed loop; nil when libev cannot make one.
    init?() {
        guard let loop = ev_loop_new(UInt32(EVBACKEND_EPOLL)) else { return nil }
        self.loop = loop
        wake.initialize(to: cc_ev_tick())
    }

    /// Blocks until at least one event (a socket, a timer of libwebsockets', the cancel pipe of
    /// `lws_cancel_service`) was handled, handling every event ready then.
    /// - Note: service thread only.
    func runOnce() {
        _ = ev_run(loop, Int32(EVRUN_ONCE))
    }

    /// Wakes `context` when one of the service loop's timers is due (`wake(at:)`), and at least
    /// every `timerWakeSlack` seconds, so that libwebsockets' timers run on time — ours — or at
    /// most that late — its own.
    ///
    /// Why: the libev plugin of libwebsockets 4.1 runs due timers after every socket event, but
    /// re-arms its one libev timer with `ev_timer_set` on an active watcher, which libev ignores;
    /// on a quiet loop, a timer due sooner than the one armed first waits for it (a 5 s header
    /// timeout could wait minutes). `lws_cancel_service` is such an event: its pipe wakes the
    /// loop and the plugin then runs every timer that is due. (A wake every 50 ms did this before:
    /// 20 wake-ups a second, each three system calls and a context switch, on an idle server.)
    /// - Note: service thread only, once the context exists.
    func startTimerWake(context: OpaquePointer) {
        guard !wakeRunning else { return }
        wakeRunning = true
        wakeContext = context
        arm(at: nextWake())
    }

    /// A timer of the service loop is due at `due` (`WebSocketTimer.now()`'s clock, µs): the wake
    /// comes then (just after) unless it is armed sooner already.
    /// - Complexity: O(log timers) in libev when it re-arms; O(1) otherwise.
    /// - Note: service thread only.
    func wake(at due: Int64) {
        guard wakeRunning, due + Self.timerWakeMargin < armedDue else { return }
        arm(at: due + Self.timerWakeMargin)
    }

    /// The wake fired: libwebsockets is woken to run what is due, and the next wake is armed for
    /// the earliest timer still ahead, at most `timerWakeSlack` away. Timers due now run in the
    /// pass this starts and, rescheduled, arm it sooner if they must (`wake(at:)`).
    private func fired() {
        armedDue = .max
        guard wakeRunning, let context = wakeContext else { return }
        lws_cancel_service(context)
        arm(at: nextWake())
    }

    /// Just after the earliest timer still ahead, at most `timerWakeSlack` from now.
    private func nextWake() -> Int64 {
        let slack = WebSocketTimer.now() + WebSocketTimer.microseconds(Self.timerWakeSlack)
        guard let next = nextTimerDue?() else { return slack }
        return min(slack, next + Self.timerWakeMargin)
    }

    private func arm(at due: Int64) {
        armedDue = due
        let delay = Double(max(0, due - WebSocketTimer.now())) / 1e6
        cc_ev_tick_arm_once(loop, wake, delay, { arg in
            guard let arg else { return }
            Unmanaged<EvLoop>.fromOpaque(arg).takeUnretainedValue().fired()
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Stops the wake-up, before the context it wakes is destroyed. - Note: service thread only.
    func stopTimerWake() {
        if wakeRunning { cc_ev_tick_stop(loop, wake) }
        wakeRunning = false
        wakeContext = nil
        armedDue = .max
    }

    /// Frees the loop, after libwebsockets' context that ran on it was destroyed.
    /// - Note: service thread only.
    func destroy() {
        stopTimerWake()
        ev_loop_destroy(loop)
        wake.deallocate()
    }
}
