import CLibWebsockets
import Foundation
import Synchronization

/// The one thread that services a libwebsockets context, and the queue other
/// threads use to reach it.
///
/// lws 4.1 as packaged is built with `LWS_MAX_SMP 1`: exactly one thread may
/// touch a context. Other threads append closures to `pending` and call
/// `lws_cancel_service()`; libwebsockets then delivers
/// `LWS_CALLBACK_EVENT_WAIT_CANCELLED` on the service thread, whose handler
/// calls `drain()`.
///
/// Lifecycle: `attach(context:)` (caller thread, after `lws_create_context`),
/// `start(name:)`, then `requestStop()` from the service thread or
/// `stopAndWait(timeout:)` from any other thread. The context is destroyed on
/// the service thread, so every close callback libwebsockets makes during
/// destruction still happens on that thread.
final class ServiceLoop {
    private enum State { case idle, running, stopped }

    /// One queued closure, and what to do instead if it never runs (the loop stopped first).
    private struct Job {
        let run: () -> Void
        let abandon: (() -> Void)?
    }

    /// Guards the fields below up to `threadFinished`, and signals `threadFinished`.
    private let condition = NSCondition()
    private var state = State.idle
    private var pending: [Job] = []
    private var contextPointer: OpaquePointer?
    private var serviceThread: pthread_t?
    /// Set once the service thread has destroyed the context and is about to return.
    private var threadFinished = false
    /// Callers of `enqueue` that decided to wake the service thread (under `condition`, while
    /// running) and have not finished `lws_cancel_service` yet (outside it).
    private let wakesInFlight = Atomic<Int>(0)

    /// Set on the service thread to leave the loop after the current `lws_service` pass.
    /// - Note: service thread only.
    var stopRequested = false
    /// True while the context is being destroyed; callbacks must not arm writes or timers.
    /// - Note: service thread only.
    private(set) var isTearingDown = false
    /// Active timers, retained until they fire (one-shot) or are cancelled.
    /// - Note: service thread only.
    var timers: [ObjectIdentifier: WebSocketTimer] = [:]
    /// Runs on the service thread after every service pass: once all the callbacks of the
    /// events one `lws_service` call dispatched have run. Set before `start`.
    var afterPass: (() -> Void)?
    /// True while `afterPass` runs: between two service passes, outside every libwebsockets
    /// callback, where a connection may be written at once (`WebSocketConnection.writeNow`).
    /// - Note: service thread only.
    private(set) var isAfterPass = false
    /// Runs on the service thread after the context is destroyed.
    var afterDestroy: (() -> Void)?
    /// Debug builds: receives service-thread violations instead of `assertionFailure` (tests
    /// set it to observe the check without stopping the process). Set before `start`.
    var threadViolationHandler: ((String) -> Void)?

    /// Tests: runs on the thread that woke the service thread for a queued job, after the wake
    /// and before that thread leaves `enqueue` (a wake still in flight). Set before the threads
    /// that queue work start queuing.
    var afterWake: (() -> Void)?

    /// The libev loop the context runs on (`WebSocketEventLoop.libev`); nil: libwebsockets' own
    /// poll loop. Set before the context is created.
    private(set) var evLoop: EvLoop?

    /// Makes the libev loop a context will be created on (`lws_context_creation_info.foreign_loops`),
    /// or nil when libev cannot. - Note: caller thread, before `lws_create_context` and `start`.
    func makeEvLoop() -> EvLoop? {
        evLoop = EvLoop()
        evLoop?.nextTimerDue = { [unowned self] in
            let now = WebSocketTimer.now()
            var next: Int64?
            for timer in timers.values where timer.dueMicroseconds > now {
                if next.map({ timer.dueMicroseconds < $0 }) ?? true { next = timer.dueMicroseconds }
            }
            return next
        }
        return evLoop
    }

    /// Drops a libev loop whose context could not be created. - Note: caller thread, before `start`.
    func discardEvLoop() {
        evLoop?.destroy()
        evLoop = nil
    }

    /// The context, while it is alive. - Note: service thread only after `start`.
    var context: OpaquePointer? {
        condition.lock()
        defer { condition.unlock() }
        return contextPointer
    }

    /// Records the context created by the owner.
    func attach(context: OpaquePointer) {
        condition.lock()
        contextPointer = context
        condition.unlock()
    }

    /// Starts the service thread.
    func start(name: String) {
        condition.lock()
        state = .running
        condition.unlock()
        let thread = Thread { [self] in
            self.run()
        }
        thread.name = name
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// True on the service thread (also while it destroys the context).
    var isServiceThread: Bool {
        condition.lock()
        defer { condition.unlock() }
        guard let thread = serviceThread else { return false }
        return pthread_equal(thread, pthread_self()) != 0
    }

    /// True on the service thread, and whenever no service thread is running (before it
    /// started, after it finished): the condition under which state marked "service thread
    /// only" may be touched.
    var isServiceThreadOrIdle: Bool {
        condition.lock()
        defer { condition.unlock() }
        if state == .idle || threadFinished { return true }
        guard let thread = serviceThread else { return false }   // started, not yet running
        return pthread_equal(thread, pthread_self()) != 0
    }

    /// Queues `work` for the service thread and wakes it. Work queued before
    /// `start` runs as soon as the thread starts.
    /// Returns false (and drops the work) once the loop has stopped.
    /// - Note: any thread.
    @discardableResult
    func perform(_ work: @escaping () -> Void) -> Bool {
        return enqueue(Job(run: work, abandon: nil), onlyWhileRunning: false)
    }

    /// Runs `work` now when called on the service thread, otherwise queues it.
    /// - Note: any thread.
    @discardableResult
    func performOrRun(_ work: @escaping () -> Void) -> Bool {
        if isServiceThread {
            if isTearingDown { return false }
            work()
            return true
        }
        return perform(work)
    }

    /// Runs `work` on the service thread and waits at most `timeout` seconds for its result.
    ///
    /// Returns nil at once when the loop is not running (not started, or stopped), as soon as
    /// the loop stops without having run the work, or after `timeout`; the caller never waits
    /// on work that cannot run. Called on the service thread itself it runs `work` inline.
    /// - Note: any thread.
    func performAndWait<T>(timeout: Double, _ work: @escaping () -> T) -> T? {
        if isServiceThread {
            return isTearingDown ? nil : work()
        }
        let reply = Reply<T>()
        let job = Job(run: { reply.finish(work()) }, abandon: { reply.finish(nil) })
        guard enqueue(job, onlyWhileRunning: true) else { return nil }
        return reply.wait(timeout: timeout)
    }

    /// Appends `job` and, when it is the first since the last drain, wakes the service thread.
    ///
    /// The wake (`lws_cancel_service`, a write to libwebsockets' pipe) is made after the lock is
    /// released: the service thread, woken, drains `pending` under this lock at once, and a
    /// caller of lower priority than the service thread (parse workers, the storage thread) is
    /// preempted by the very thread it wakes. Woken inside the lock, the service thread would
    /// block on it until that caller ran again — measured at up to several milliseconds while
    /// pointer input waited unread. `wakesInFlight` counts the callers between the lock and the
    /// end of their wake; the service thread destroys the context only once it is zero.
    private func enqueue(_ job: Job, onlyWhileRunning: Bool) -> Bool {
        condition.lock()
        guard state == .running || (state == .idle && !onlyWhileRunning) else {
            condition.unlock()
            return false
        }
        pending.append(job)
        // Before start the work simply waits; the thread drains it first thing.
        let wake = pending.count == 1 && state == .running ? contextPointer : nil
        if wake != nil { wakesInFlight.add(1, ordering: .relaxed) }
        condition.unlock()
        if let context = wake {
            lws_cancel_service(context)
            afterWake?()
            wakesInFlight.subtract(1, ordering: .releasing)
        }
        return true
    }

    /// Runs every queued closure (including ones queued while draining).
    /// - Note: service thread only (from `LWS_CALLBACK_EVENT_WAIT_CANCELLED`).
    func drain() {
        while true {
            condition.lock()
            let batch = pending
            pending.removeAll()
            condition.unlock()
            if batch.isEmpty { return }
            for job in batch {
                if isTearingDown { job.abandon?() } else { job.run() }
            }
        }
    }

    /// Asks the loop to end after the current service pass.
    ///
    /// Also wakes the poll: a sul callback runs at the start of a pass, and the
    /// same pass would otherwise sleep until the next scheduled event.
    /// - Note: service thread only.
    func requestStop() {
        stopRequested = true
        if let context = context {
            lws_cancel_service(context)
        }
    }

    /// Stops the loop from another thread and waits for the context to be destroyed.
    /// Returns false if it did not finish within `timeout` seconds.
    /// - Note: any thread except the service thread.
    @discardableResult
    func stopAndWait(timeout: Double) -> Bool {
        condition.lock()
        if state == .idle {
            state = .stopped
            threadFinished = true
            let dropped = pending
            pending.removeAll()
            condition.unlock()
            dropped.forEach { $0.abandon?() }
            return true
        }
        condition.unlock()
        perform { [unowned self] in self.requestStop() }
        return waitUntilFinished(timeout: timeout)
    }

    /// Waits until the service thread has destroyed the context.
    /// - Note: any thread except the service thread.
    func waitUntilFinished(timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !threadFinished {
            if !condition.wait(until: deadline) { return threadFinished }
        }
        return true
    }

    /// Asks libwebsockets for one writable callback on `wsi`, unless one is already
    /// requested (`armed`) or the context is being destroyed. The one implementation behind
    /// the server's and the client's `requestWrite()`.
    /// - Note: service thread only.
    func requestWritable(_ wsi: OpaquePointer?, armed: inout Bool) {
        guard let wsi = wsi, !armed, !isTearingDown else { return }
        armed = lws_callback_on_writable(wsi) >= 0
    }

    /// The service thread's body.
    private func run() {
        condition.lock()
        serviceThread = pthread_self()
        let context = contextPointer
        condition.unlock()
        if let context = context {
            drain()
            evLoop?.startTimerWake(context: context)
            while !stopRequested {
                if let evLoop {
                    evLoop.runOnce()
                } else if lws_service(context, 0) < 0 {
                    break
                }
                isAfterPass = true
                afterPass?()
                isAfterPass = false
            }
        }
        isTearingDown = true
        for timer in Array(timers.values) {
            timer.cancel()
        }
        condition.lock()
        state = .stopped
        let dropped = pending
        pending.removeAll()
        condition.unlock()
        dropped.forEach { $0.abandon?() }
        evLoop?.stopTimerWake()
        // No wake can start now (`state` is stopped); one begun before must end before the
        // context it writes to is freed.
        while wakesInFlight.load(ordering: .acquiring) > 0 { sched_yield() }
        if let context = context {
            lws_context_destroy(context)
        }
        evLoop?.destroy()
        evLoop = nil
        condition.lock()
        contextPointer = nil
        condition.unlock()
        timers.removeAll()
        afterDestroy?()
        afterPass = nil
        afterDestroy = nil
        condition.lock()
        threadFinished = true
        condition.broadcast()
        condition.unlock()
    }
}

/// The answer to one `performAndWait`: set once, by the work or by its abandonment.
private final class Reply<T> {
    private let condition = NSCondition()
    private var done = false
    private var value: T?

    func finish(_ value: T?) {
        condition.lock()
        defer { condition.unlock() }
        guard !done else { return }
        done = true
        self.value = value
        condition.broadcast()
    }

    func wait(timeout: Double) -> T? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !done {
            if !condition.wait(until: deadline) { break }
        }
        return value
    }
}
