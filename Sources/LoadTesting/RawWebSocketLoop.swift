import CEpoll
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import WebSockets

/// The load tester's own WebSocket client for `ws://`: one thread, one `epoll` set, thousands of
/// non-blocking connections, timers, and a queue other threads hand work to.
///
/// libwebsockets' client parses what it receives a byte at a time (about 12 ns per byte here), so
/// one core of it reads at most ~80–100 MB/s: a crowd of viewers of big charts saturates the
/// tester before the server. This client reads up to 256 KiB per `read`, finds frame boundaries
/// from their headers and copies each payload once, so receiving costs little more than the
/// kernel's copy. It speaks RFC 6455 without extensions (no permessage-deflate) and no TLS; the
/// runners use libwebsockets' client for `wss://`.
///
/// Threads: `connect`, timers and every connection's state belong to the loop's thread
/// (`- Note: service thread only`); `perform` / `performAndWait` may be called from any thread.
final class RawWebSocketLoop: LoadTransport {
    /// Bytes read per `read` call.
    static let readSize = 256 << 10
    let maxMessageSize: Int

    private let epoll: Int32
    private let wakeRead: Int32, wakeWrite: Int32
    private let lock = NSCondition()
    private var jobs: [() -> Void] = []
    private var running = true
    private var finished = false
    private var serviceThread: pthread_t?

    /// Open connections by file descriptor. - Note: service thread only.
    private var byDescriptor: [RawWebSocketConnection?] = []
    /// Scheduled timers, earliest first. - Note: service thread only.
    private var timers = RawLoopTimerHeap()
    /// The shared read buffer. - Note: service thread only.
    let readBuffer: UnsafeMutableRawBufferPointer
    private var addresses: [String: RawSocketAddress] = [:]
    private(set) var connectionCount = 0

    /// - Throws: `RawClientError` when the epoll set or its wake-up pipe cannot be made.
    init(maxMessageSize: Int = 64 << 20) throws {
        self.maxMessageSize = maxMessageSize
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        var pipeFDs: [Int32] = [-1, -1]
        guard epoll >= 0, pipe2(&pipeFDs, Int32(O_NONBLOCK | O_CLOEXEC)) == 0 else {
            throw RawClientError(description: "cannot create the raw client's epoll set: \(String(cString: strerror(errno)))")
        }
        wakeRead = pipeFDs[0]
        wakeWrite = pipeFDs[1]
        readBuffer = .allocate(byteCount: Self.readSize, alignment: 16)
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = wakeRead
        _ = epoll_ctl(epoll, EPOLL_CTL_ADD, wakeRead, &event)
        let thread = Thread { [self] in run() }
        thread.name = "load-raw-client"
        thread.stackSize = 8 << 20
        thread.start()
    }

    deinit {
        readBuffer.deallocate()
        close(wakeRead)
        close(wakeWrite)
        close(epoll)
    }

    var isServiceThread: Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let serviceThread else { return false }
        return pthread_equal(serviceThread, pthread_self()) != 0
    }

    // MARK: LoadTransport

    func connect(_ url: LoadURL, subprotocol: String?, tls: WebSocketClientTLS, delegate: LoadConnectionDelegate) -> LoadConnection {
        let connection = RawWebSocketConnection(loop: self, url: url, subprotocol: subprotocol, delegate: delegate)
        guard tls == .off else {
            connection.fail("the raw client speaks ws:// only; use --client lws for wss://")
            return connection
        }
        guard let address = address(url.host, url.port) else {
            connection.fail("cannot resolve \(url.host)")
            return connection
        }
        connection.start(address)
        return connection
    }

    /// Queues `work` for the service thread and wakes it; false (work dropped) once it stopped.
    @discardableResult
    func perform(_ work: @escaping () -> Void) -> Bool {
        lock.lock()
        let wasEmpty = jobs.isEmpty
        let accepted = running
        if accepted { jobs.append(work) }
        lock.unlock()
        if accepted && wasEmpty {
            var one: UInt8 = 1
            _ = write(wakeWrite, &one, 1)
        }
        return accepted
    }

    /// Runs `work` at once on the service thread, or queues it from any other.
    func performOrRun(_ work: @escaping () -> Void) {
        if isServiceThread { work() } else { perform(work) }
    }

    func performAndWait<T>(timeout: Double, _ work: @escaping () -> T) -> T? {
        if isServiceThread { return work() }
        let reply = RawLoopReply<T>()
        guard perform({ reply.finish(work()) }) else { return nil }
        return reply.wait(timeout: timeout)
    }

    func schedule(every seconds: Double, _ tick: @escaping () -> Void) -> LoadTimer {
        let interval = max(0.001, seconds.isFinite ? seconds : 0.001)
        return timers.add(RawLoopTimer(interval: interval, action: tick, due: MonotonicClock.now() &+ UInt64(interval * 1e9)))
    }

    func schedule(after seconds: Double, _ fire: @escaping () -> Void) -> LoadTimer {
        let delay = seconds.isFinite ? max(0, seconds) : 0
        return timers.add(RawLoopTimer(interval: nil, action: fire, due: MonotonicClock.now() &+ UInt64(delay * 1e9)))
    }

    func shutdown() {
        lock.lock()
        running = false
        lock.unlock()
        var one: UInt8 = 1
        _ = write(wakeWrite, &one, 1)
        lock.lock()
        let deadline = Date().addingTimeInterval(5)
        while !finished { if !lock.wait(until: deadline) { break } }
        lock.unlock()
    }

    // MARK: Descriptors (service thread)

    /// Registers `connection`'s socket for `events`.
    /// - Note: service thread only.
    func register(_ connection: RawWebSocketConnection, events: UInt32) {
        let fd = Int(connection.fd)
        if fd >= byDescriptor.count { byDescriptor.append(contentsOf: repeatElement(nil, count: fd + 1 - byDescriptor.count)) }
        byDescriptor[fd] = connection
        connectionCount += 1
        var event = epoll_event()
        event.events = events
        event.data.fd = connection.fd
        _ = epoll_ctl(epoll, EPOLL_CTL_ADD, connection.fd, &event)
    }

    /// Changes what `connection`'s socket is watched for. - Note: service thread only.
    func watch(_ connection: RawWebSocketConnection, events: UInt32) {
        var event = epoll_event()
        event.events = events
        event.data.fd = connection.fd
        _ = epoll_ctl(epoll, EPOLL_CTL_MOD, connection.fd, &event)
    }

    /// Forgets `connection`'s socket (before it is closed). - Note: service thread only.
    func unregister(_ connection: RawWebSocketConnection) {
        let fd = Int(connection.fd)
        guard fd >= 0, fd < byDescriptor.count, byDescriptor[fd] === connection else { return }
        _ = epoll_ctl(epoll, EPOLL_CTL_DEL, connection.fd, nil)
        byDescriptor[fd] = nil
        connectionCount -= 1
    }

    private func address(_ host: String, _ port: Int) -> RawSocketAddress? {
        let key = "\(host):\(port)"
        if let known = addresses[key] { return known }
        guard let resolved = RawSocketAddress(host: host, port: port) else { return nil }
        addresses[key] = resolved
        return resolved
    }

    // MARK: The thread

    private func run() {
        lock.lock()
        serviceThread = pthread_self()
        lock.unlock()
        var events = [epoll_event](repeating: epoll_event(), count: 1024)
        while true {
            runJobs()
            lock.lock()
            let keepRunning = running
            lock.unlock()
            guard keepRunning else { break }
            let now = MonotonicClock.now()
            while let timer = timers.popDue(now: now) { timer.action() }
            let timeout = timers.timeout(now: MonotonicClock.now())
            let count = events.withUnsafeMutableBufferPointer { epoll_wait(epoll, $0.baseAddress, Int32($0.count), timeout) }
            guard count > 0 else { continue }
            for i in 0..<Int(count) {
                let fd = events[i].data.fd
                if fd == wakeRead { drainWakePipe(); continue }
                guard Int(fd) < byDescriptor.count, let connection = byDescriptor[Int(fd)] else { continue }
                connection.handle(events: events[i].events)
            }
        }
        for case let connection? in byDescriptor { connection.discard() }
        byDescriptor.removeAll()
        runJobs()   // answer waiters queued before the stop
        lock.lock()
        finished = true
        lock.broadcast()
        lock.unlock()
    }

    private func runJobs() {
        while true {
            lock.lock()
            let batch = jobs
            jobs.removeAll()
            lock.unlock()
            if batch.isEmpty { return }
            batch.forEach { $0() }
        }
    }

    private func drainWakePipe() {
        var sink = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &sink, sink.count) > 0 {}
    }
}

/// The raw client could not start.
struct RawClientError: Error, CustomStringConvertible {
    var description: String
}

/// The answer to one `performAndWait`.
private final class RawLoopReply<T> {
    private let condition = NSCondition()
    private var value: T?
    private var done = false

    func finish(_ value: T) {
        condition.lock()
        self.value = value
        done = true
        condition.broadcast()
        condition.unlock()
    }

    func wait(timeout: Double) -> T? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while !done { if !condition.wait(until: deadline) { break } }
        return value
    }
}
