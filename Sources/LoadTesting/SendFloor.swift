#if canImport(Glibc)
import Glibc
#endif
import CEpoll
import Foundation

/// The kernel's own price of a fan-out: one frame written with one `send()` to each of N
/// loopback TCP sockets per event, and nothing else — no event loop, no parsing, no WebSocket
/// library, no per-viewer state beyond a descriptor in an array.
///
/// `make bench` runs it beside each scenario with the same viewers, rate and message size, so a
/// server's CPU per frame can be read against the least any one-thread server on this machine
/// can pay (`send()` on loopback also runs the receiver's TCP processing, charged to the sender
/// as it is to the servers). By default each event wakes the sender as one wakes a server: a
/// driver thread sends it a small message on a socket, and the sender, asleep in `epoll_wait`,
/// reads it and then writes the frames (`--wake socket`); `--wake timer` sleeps until each
/// event's time instead, the sends alone. A reader thread, on another CPU when asked, drains
/// every socket so that no buffer fills; the sender's CPU is its own thread's
/// (`CLOCK_THREAD_CPUTIME_ID`), its waking and reading included.
public enum SendFloor {
    /// A setup step that failed (`socket`, `connect`, …), with the system's reason.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Bytes of each event the driver sends when the floor wakes on a socket: about a pointer
    /// message's frame.
    static let eventBytes = 128

    /// Runs the measurement described by `options`.
    /// - Throws: `Failure` when the sockets cannot be set up (too few descriptors, say).
    public static func run(_ options: SendFloorOptions) throws -> SendFloorReport {
        let pairs = try SocketPairs(count: options.connections)
        defer { pairs.close() }
        let frame = WebSocketFraming.serverTextFrame(payloadBytes: options.messageBytes)
        // The sender first: a failure here leaves no reader thread behind.
        if let cpu = options.senderCPU, chartcast_pin_thread(Int32(cpu)) != 0 {
            throw Failure(description: "cannot pin the sender to CPU \(cpu): \(String(cString: strerror(errno)))")
        }
        // The driver's socket too: nothing may fail once the reader thread runs.
        let input = options.wake == .socket ? try SocketPairs(count: 1) : nil
        defer { input?.close() }
        let waiter = try input.map { try EventWaiter(fd: $0.writers[0]) }
        defer { waiter?.close() }
        let reader = try DrainThread(fds: pairs.readers, cpu: options.readerCPU)
        var bursts = LatencyHistogram()
        var offsets = LatencyHistogram()
        var shortWrites = 0
        let events = max(1, Int((options.rate * options.duration).rounded()))
        let interval = 1e9 / options.rate
        /// One event's sends, one to each socket, timed from `began`.
        func fanOut(_ bytes: UnsafeRawBufferPointer, began: UInt64) {
            for (i, fd) in pairs.writers.enumerated() {
                let sent = send(fd, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
                if sent != bytes.count { shortWrites += 1 }
                // Every 8th frame's time from the event's start: the frames' latency at the
                // floor, sampled so the clock adds almost nothing to the sender's CPU.
                if i & 7 == 7 { offsets.record(nanoseconds: MonotonicClock.now() &- began) }
            }
            bursts.record(nanoseconds: MonotonicClock.now() &- began)
        }
        var handled = 0
        var cpu = 0.0
        switch options.wake {
        case .timer:
            let cpuBefore = threadCPUSeconds()
            let start = MonotonicClock.now()
            frame.withUnsafeBytes { bytes in
                for event in 0..<events {
                    sleep(until: start &+ UInt64(Double(event) * interval))
                    fanOut(bytes, began: MonotonicClock.now())
                }
            }
            handled = events
            cpu = threadCPUSeconds() - cpuBefore
        case .socket:
            guard let input, let waiter else { preconditionFailure("made above for --wake socket") }
            let driver = EventDriver(fd: input.readers[0], events: events, interval: interval, cpu: options.readerCPU)
            let cpuBefore = threadCPUSeconds()
            frame.withUnsafeBytes { bytes in
                // Each event's bytes, however the kernel groups them, is one fan-out.
                var unread = 0
                while handled < events, let read = waiter.next(giveUpAfterQuietMs: 2_000) {
                    let began = MonotonicClock.now()
                    unread += read
                    while unread >= eventBytes && handled < events {
                        unread -= eventBytes
                        fanOut(bytes, began: began)
                        handled += 1
                    }
                }
            }
            cpu = threadCPUSeconds() - cpuBefore
            driver.join()
        }
        let frames = handled * options.connections
        let received = reader.finish(expecting: frames * frame.count, within: 10)
        return SendFloorReport(options: options, events: events, eventsHandled: handled, frames: frames,
                               frameBytes: frame.count, bytesReceived: received, shortWrites: shortWrites,
                               senderCPUSeconds: cpu, bursts: bursts, offsets: offsets)
    }

    /// CPU seconds the calling thread has used.
    static func threadCPUSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Sleeps until the monotonic time `deadline` (returns at once when it has passed).
    static func sleep(until deadline: UInt64) {
        while true {
            let now = MonotonicClock.now()
            guard deadline > now else { return }
            let left = deadline - now
            var ts = timespec(tv_sec: Int(left / 1_000_000_000), tv_nsec: Int(left % 1_000_000_000))
            _ = nanosleep(&ts, nil)
        }
    }
}

/// N connected loopback TCP pairs: `writers` (the accepted, server side, non-blocking with
/// `TCP_NODELAY` as libwebsockets sets them) and `readers` (the connecting side).
struct SocketPairs {
    var writers: [Int32] = []
    var readers: [Int32] = []

    init(count: Int) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw SendFloor.Failure(description: "socket: \(String(cString: strerror(errno)))") }
        defer { Glibc.close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(listener, pointer, length) == 0 && listen(listener, 1024) == 0
                    && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound else { throw SendFloor.Failure(description: "listen on 127.0.0.1: \(String(cString: strerror(errno)))") }
        writers.reserveCapacity(count)
        readers.reserveCapacity(count)
        do {
            for _ in 0..<count {
                let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                guard client >= 0 else { throw SendFloor.Failure(description: "socket: \(String(cString: strerror(errno)))") }
                readers.append(client)
                let connected = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(client, $0, length) == 0 }
                }
                guard connected else { throw SendFloor.Failure(description: "connect: \(String(cString: strerror(errno)))") }
                let server = accept(listener, nil, nil)
                guard server >= 0 else { throw SendFloor.Failure(description: "accept: \(String(cString: strerror(errno)))") }
                writers.append(server)
                var one: Int32 = 1
                _ = setsockopt(server, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                _ = fcntl(server, F_SETFL, fcntl(server, F_GETFL) | O_NONBLOCK)
                _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
                // As the load tester's own client does: the kernel then stamps each segment as it
                // arrives, work done in the sender's `send()` on loopback, which the servers pay too.
                _ = chartcast_enable_receive_timestamps(client)
            }
        } catch {
            close()
            throw error
        }
    }

    func close() {
        for fd in writers + readers { _ = Glibc.close(fd) }
    }
}

/// The sender's wait for the next event: `epoll_wait` on one socket, then one `recv`.
final class EventWaiter {
    private let epoll: Int32
    private let fd: Int32
    private let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1 << 16, alignment: 16)

    init(fd: Int32) throws {
        self.fd = fd
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else {
            buffer.deallocate()
            throw SendFloor.Failure(description: "epoll_create1: \(String(cString: strerror(errno)))")
        }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = fd
        _ = epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event)
    }

    /// Sleeps until bytes arrive and reads them. - Returns: the bytes read (0 when the wake-up
    /// found none), nil when nothing came for `giveUpAfterQuietMs` or the socket failed.
    func next(giveUpAfterQuietMs: Int32) -> Int? {
        var event = epoll_event()
        let ready = epoll_wait(epoll, &event, 1, giveUpAfterQuietMs)
        if ready == 0 { return nil }
        if ready < 0 { return errno == EINTR ? 0 : nil }
        let read = recv(fd, buffer, 1 << 16, 0)
        if read > 0 { return read }
        return read < 0 && (errno == EAGAIN || errno == EINTR) ? 0 : nil
    }

    func close() {
        Glibc.close(epoll)
        buffer.deallocate()
    }
}

/// A thread sending one `SendFloor.eventBytes` message per event on `fd`, at the events' times
/// (a driver's pointer moves), on the reader's CPU when one is given.
final class EventDriver: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)

    init(fd: Int32, events: Int, interval: Double, cpu: Int?) {
        let thread = Thread { [done] in
            if let cpu { _ = chartcast_pin_thread(Int32(cpu)) }   // the reader's pin was checked
            let message = [UInt8](repeating: 0x2A, count: SendFloor.eventBytes)
            let start = MonotonicClock.now()
            message.withUnsafeBytes { bytes in
                for event in 0..<events {
                    SendFloor.sleep(until: start &+ UInt64(Double(event) * interval))
                    _ = send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
                }
            }
            done.signal()
        }
        thread.name = "send-floor-driver"
        thread.start()
    }

    /// Waits until the last event was sent.
    func join() { done.wait() }
}

/// A thread reading every reader socket (epoll, level-triggered) and counting the bytes.
final class DrainThread: @unchecked Sendable {
    private let epoll: Int32
    private let lock = NSLock()
    private var bytes = 0
    private var stopping = false
    /// errno of a failed pin, set by the thread before it signals `pinned`.
    private var pinError: Int32 = 0
    private let done = DispatchSemaphore(value: 0)

    init(fds: [Int32], cpu: Int?) throws {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw SendFloor.Failure(description: "epoll_create1: \(String(cString: strerror(errno)))") }
        for fd in fds {
            var event = epoll_event()
            event.events = EPOLLIN.rawValue
            event.data.fd = fd
            _ = epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event)
        }
        let pinned = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            if let cpu, chartcast_pin_thread(Int32(cpu)) != 0 {
                lock.lock()
                pinError = errno
                lock.unlock()
            }
            pinned.signal()
            drain()
        }
        thread.name = "send-floor-reader"
        thread.start()
        pinned.wait()
        lock.lock()
        let failed = pinError
        lock.unlock()
        if failed != 0, let cpu {
            stop()
            throw SendFloor.Failure(description: "cannot pin the reader to CPU \(cpu): \(String(cString: strerror(failed)))")
        }
    }

    private func drain() {
        var events = [epoll_event](repeating: epoll_event(), count: 512)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate(); done.signal() }
        while true {
            let count = events.withUnsafeMutableBufferPointer { epoll_wait(epoll, $0.baseAddress, Int32($0.count), 50) }
            var read = 0
            for i in 0..<max(0, Int(count)) {
                let n = recv(events[i].data.fd, buffer, 1 << 16, 0)
                if n > 0 { read += n }
            }
            lock.lock()
            bytes += read
            let stop = stopping
            lock.unlock()
            if stop { return }
        }
    }

    /// Waits until `expected` bytes were read (or `seconds` passed), stops the thread and returns
    /// the bytes read.
    func finish(expecting expected: Int, within seconds: Double) -> Int {
        let deadline = MonotonicClock.now() &+ UInt64(seconds * 1e9)
        while received < expected && MonotonicClock.now() < deadline { usleep(1_000) }
        stop()
        return received
    }

    private var received: Int {
        lock.lock()
        defer { lock.unlock() }
        return bytes
    }

    private func stop() {
        lock.lock()
        stopping = true
        lock.unlock()
        done.wait()
        Glibc.close(epoll)
    }
}
