import CLibWebsockets
import Dispatch
import Foundation

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
/// the service thread, after `teardown` ran, so every close callback libwebsockets
/// makes during destruction still happens on that thread.
final class ServiceLoop {
    private enum State { case idle, running, stopped }

    private let lock = NSLock()
    private var state = State.idle
    private var pending: [() -> Void] = []
    private var contextPointer: OpaquePointer?
    private var serviceThread: pthread_t?
    private let finished = DispatchSemaphore(value: 0)
    private var finishedSignalled = false

    /// Set on the service thread to leave the loop after the current `lws_service` pass.
    /// - Note: service thread only.
    var stopRequested = false
    /// True while the context is being destroyed; callbacks must not arm writes or timers.
    /// - Note: service thread only.
    private(set) var isTearingDown = false
    /// Active timers, retained until they fire (one-shot) or are cancelled.
    /// - Note: service thread only.
    var timers: [ObjectIdentifier: WebSocketTimer] = [:]
    /// Runs on the service thread just before the context is destroyed.
    var teardown: (() -> Void)?
    /// Runs on the service thread after the context is destroyed.
    var afterDestroy: (() -> Void)?

    /// The context, while it is alive. - Note: service thread only after `start`.
    var context: OpaquePointer? { return contextPointer }

    /// Records the context created by the owner.
    func attach(context: OpaquePointer) {
        lock.lock()
        contextPointer = context
        lock.unlock()
    }

    /// Starts the service thread.
    func start(name: String) {
        lock.lock()
        state = .running
        lock.unlock()
        let thread = Thread { [self] in
            self.run()
        }
        thread.name = name
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// True on the service thread.
    var isServiceThread: Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let thread = serviceThread else { return false }
        return pthread_equal(thread, pthread_self()) != 0
    }

    /// True until the loop has stopped.
    var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return state == .running
    }

    /// Queues `work` for the service thread and wakes it. Work queued before
    /// `start` runs as soon as the thread starts.
    /// Returns false (and drops the work) once the loop has stopped.
    /// - Note: any thread.
    @discardableResult
    func perform(_ work: @escaping () -> Void) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard state != .stopped else { return false }
        pending.append(work)
        // Before start the work simply waits; the thread drains it first thing.
        if pending.count == 1, state == .running, let context = contextPointer {
            lws_cancel_service(context)
        }
        return true
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

    /// Runs every queued closure (including ones queued while draining).
    /// - Note: service thread only (from `LWS_CALLBACK_EVENT_WAIT_CANCELLED`).
    func drain() {
        while true {
            lock.lock()
            let batch = pending
            pending.removeAll()
            lock.unlock()
            if batch.isEmpty { return }
            for work in batch where !isTearingDown {
                work()
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
        if let context = contextPointer {
            lws_cancel_service(context)
        }
    }

    /// Stops the loop from another thread and waits for the context to be destroyed.
    /// Returns false if it did not finish within `timeout` seconds.
    /// - Note: any thread except the service thread.
    @discardableResult
    func stopAndWait(timeout: Double) -> Bool {
        lock.lock()
        if state == .idle {
            state = .stopped
            pending.removeAll()
            lock.unlock()
            return true
        }
        lock.unlock()
        perform { [unowned self] in self.requestStop() }
        return waitUntilFinished(timeout: timeout)
    }

    /// Waits until the service thread has destroyed the context.
    /// - Note: any thread except the service thread.
    func waitUntilFinished(timeout: Double) -> Bool {
        lock.lock()
        if finishedSignalled {
            lock.unlock()
            return true
        }
        lock.unlock()
        let result = finished.wait(timeout: .now() + timeout)
        if result == .success {
            lock.lock()
            finishedSignalled = true
            lock.unlock()
            finished.signal()
            return true
        }
        return false
    }

    /// The service thread's body.
    private func run() {
        lock.lock()
        serviceThread = pthread_self()
        let context = contextPointer
        lock.unlock()
        if let context = context {
            drain()
            while !stopRequested {
                if lws_service(context, 0) < 0 { break }
            }
        }
        isTearingDown = true
        for timer in Array(timers.values) {
            timer.cancel()
        }
        teardown?()
        lock.lock()
        state = .stopped
        pending.removeAll()
        lock.unlock()
        if let context = context {
            lws_context_destroy(context)
        }
        lock.lock()
        contextPointer = nil
        lock.unlock()
        timers.removeAll()
        afterDestroy?()
        teardown = nil
        afterDestroy = nil
        finished.signal()
    }
}
