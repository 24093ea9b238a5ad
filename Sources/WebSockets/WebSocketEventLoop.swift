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

    /// How often the loop wakes libwebsockets so its timers run on time (see `startTimerWake`).
    static let timerWakeInterval = 0.05

    /// An epoll-backed loop; nil when libev cannot make one.
    init?() {
        guard let loop = ev_loop_new(UInt32(EVBACKEND_EPOLL)) else { return nil }
        self.loop = loop
    }

    /// Blocks until at least one event (a socket, a timer of libwebsockets', the cancel pipe of
    /// `lws_cancel_service`) was handled, handling every event ready then.
    /// - Note: service thread only.
    func runOnce() {
        _ = ev_run(loop, Int32(EVRUN_ONCE))
    }

    /// Wakes `context` every `timerWakeInterval` seconds, so that libwebsockets' timers (header
    /// and ping timeouts, `lws_set_timeout`, scheduled callbacks) run at most that late.
    ///
    /// Why: the libev plugin of libwebsockets 4.1 runs due timers after every socket event, but
    /// re-arms its one libev timer with `ev_timer_set` on an active watcher, which libev ignores;
    /// on a quiet loop, a timer due sooner than the one armed first waits for it (a 5 s header
    /// timeout could wait minutes). `lws_cancel_service` is such an event: its pipe wakes the
    /// loop and the plugin then runs every timer that is due.
    /// - Note: service thread only, once the context exists.
    func startTimerWake(context: OpaquePointer) {
        guard !wakeRunning else { return }
        wakeRunning = true
        cc_ev_tick_start(loop, wake, Self.timerWakeInterval, { arg in
            lws_cancel_service(OpaquePointer(arg))
        }, UnsafeMutableRawPointer(context))
    }

    /// Stops the wake-up, before the context it wakes is destroyed. - Note: service thread only.
    func stopTimerWake() {
        if wakeRunning { cc_ev_tick_stop(loop, wake) }
        wakeRunning = false
    }

    /// Frees the loop, after libwebsockets' context that ran on it was destroyed.
    /// - Note: service thread only.
    func destroy() {
        stopTimerWake()
        ev_loop_destroy(loop)
        wake.deallocate()
    }
}
