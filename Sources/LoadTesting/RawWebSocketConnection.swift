import CEpoll
#if canImport(Glibc)
import Glibc
#endif
import WebSockets

/// One connection of a `RawWebSocketLoop`: a non-blocking socket, the opening handshake, then
/// RFC 6455 frames — received server frames parsed from their headers with each payload copied
/// once into its message, and masked client frames written with partial writes kept.
///
/// The delegate is held until the connection fails or closes, and hears of it exactly once
/// (`loadConnectionDidFail` before the handshake completed, `loadConnectionDidClose` after).
/// - Note: service thread only; the `LoadConnection` calls queue themselves from other threads.
final class RawWebSocketConnection: LoadConnection {
    enum State { case idle, connecting, handshaking, open, closing, closed }

    private let loop: RawWebSocketLoop
    private let url: LoadURL
    private let subprotocol: String?
    private var delegate: LoadConnectionDelegate?
    private let handshake = RawWebSocketHandshake()
    private(set) var fd: Int32 = -1
    private(set) var state = State.idle

    /// Received bytes that end mid-header (or mid control frame), waiting for the rest.
    private var carried: [UInt8] = []
    /// The data message being received: its opcode, payload so far, and what the current frame still owes.
    private var messageOpcode: UInt8?
    private var message: [UInt8] = []
    private var payloadRemaining = 0
    private var frameIsFinal = false
    /// Bytes to send, from `sentUpTo` on; frames queued before the handshake completed wait in `held`.
    private var outbound: [UInt8] = []
    private var sentUpTo = 0
    private var held: [UInt8] = []
    private var watchedEvents: UInt32 = 0
    private var paused = false
    private var closeSent = false
    private var peerCloseCode: UInt16?
    private var closeTimer: LoadTimer?
    private var maskState: UInt64
    /// Set while parsing when the connection must end (the server's close, or a frame a client
    /// must refuse): it ends once the messages completed before it were delivered. The close
    /// code to report, nil for none.
    private var ending: UInt16?? = nil

    init(loop: RawWebSocketLoop, url: LoadURL, subprotocol: String?, delegate: LoadConnectionDelegate) {
        self.loop = loop
        self.url = url
        self.subprotocol = subprotocol
        self.delegate = delegate
        maskState = UInt64.random(in: 1...UInt64.max)
    }

    // MARK: LoadConnection

    func send(bytes: [UInt8], binary: Bool) {
        loop.performOrRun { [self] in queueFrame(binary ? WebSocketFraming.binary : WebSocketFraming.text, bytes) }
    }

    func close(code: UInt16) {
        loop.performOrRun { [self] in
            switch state {
            case .open:
                queueFrame(WebSocketFraming.close, WebSocketFraming.closePayload(code: code))
                closeSent = true
                state = .closing
                closeTimer = loop.schedule(after: 2) { [weak self] in self?.finish(code: nil) }
            case .idle, .connecting, .handshaking:
                fail("closed before the handshake completed")
            case .closing, .closed:
                break
            }
        }
    }

    func abort() {
        loop.performOrRun { [self] in
            // As a vanished process: no close frame; the event loop sees the hang-up and finishes.
            guard state == .open || state == .closing else { return }
            _ = shutdown(fd, Int32(SHUT_RDWR))
        }
    }

    func pauseReading() {
        loop.performOrRun { [self] in
            paused = true
            updateWatch()
        }
    }

    func resumeReading() {
        loop.performOrRun { [self] in
            paused = false
            updateWatch()
        }
    }

    // MARK: Lifecycle (service thread)

    /// Starts the non-blocking connect to `address`.
    func start(_ address: RawSocketAddress) {
        var address = address
        fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return fail("socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        // Each read learns when its newest bytes arrived, so fan-out latency is the server's and
        // not this one thread's backlog of thousands of viewers' frames.
        _ = chartcast_enable_receive_timestamps(fd)
        let rc = withUnsafePointer(to: &address.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, address.length) }
        }
        guard rc == 0 || errno == EINPROGRESS else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            fd = -1
            return fail("connect: \(reason)")
        }
        state = .connecting
        watchedEvents = EPOLLOUT.rawValue
        loop.register(self, events: watchedEvents)
    }

    /// The connection could not be made: the delegate hears it once, the socket is closed.
    func fail(_ reason: String) {
        guard state != .closed else { return }
        release()
        let delegate = self.delegate
        self.delegate = nil
        delegate?.loadConnectionDidFail(reason)
    }

    /// The connection ended after the handshake: `code` is the server's close code, if it sent one.
    private func finish(code: UInt16?) {
        guard state != .closed else { return }
        guard state == .open || state == .closing else { return fail("the server closed the connection during the handshake") }
        release()
        let delegate = self.delegate
        self.delegate = nil
        delegate?.loadConnectionDidClose(code: code)
    }

    /// Closes the socket and drops every buffer (the loop is shutting down: nobody is told).
    func discard() {
        release()
        delegate = nil
    }

    private func release() {
        closeTimer?.cancel()
        closeTimer = nil
        if fd >= 0 {
            loop.unregister(self)
            Glibc.close(fd)
            fd = -1
        }
        state = .closed
        carried = []
        message = []
        outbound = []
        held = []
    }

    // MARK: Events (service thread)

    /// What epoll reported for the socket.
    func handle(events: UInt32) {
        if state == .connecting {
            guard events & (EPOLLOUT.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 else { return }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            guard error == 0 else { return fail("connect: \(String(cString: strerror(error)))") }
            state = .handshaking
            outbound = handshake.request(host: url.host, port: url.port, path: url.path, subprotocol: subprotocol, origin: nil)
            flush()
            return
        }
        if events & EPOLLOUT.rawValue != 0 { flush() }
        let hangUp = events & (EPOLLHUP.rawValue | EPOLLERR.rawValue | EPOLLRDHUP.rawValue) != 0
        if state != .closed && (events & EPOLLIN.rawValue != 0 || hangUp) && (!paused || hangUp) { readOnce() }
    }

    /// One `read` into the loop's buffer (level-triggered epoll calls again while more is there),
    /// with the kernel's stamp of when the newest of those bytes arrived: every message the read
    /// completes is given that time (an earlier one in the same read arrived no later).
    private func readOnce() {
        var stamp: Int64 = 0
        let count = chartcast_read_stamped(fd, loop.readBuffer.baseAddress, loop.readBuffer.count, &stamp)
        if count > 0 {
            let arrivedAt = stamp > 0 ? MonotonicClock.monotonic(fromRealtime: stamp) : MonotonicClock.now()
            received(UnsafeRawBufferPointer(rebasing: loop.readBuffer[0..<count]), arrivedAt: arrivedAt)
        } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            finish(code: peerCloseCode)
        }
    }

    /// New bytes from the socket: the handshake's answer, then frames.
    private func received(_ bytes: UnsafeRawBufferPointer, arrivedAt: UInt64) {
        var delivered: [InboundMessage] = []
        if carried.isEmpty {
            let used = consume(bytes, into: &delivered)
            if used < bytes.count && state != .closed && ending == nil { carried = Array(bytes[used...]) }
        } else {
            var joined = carried
            joined.append(contentsOf: bytes)
            let used = joined.withUnsafeBytes { consume($0, into: &delivered) }
            carried = state == .closed || ending != nil ? [] : Array(joined[used...])
        }
        for message in delivered {
            guard state == .open || state == .closing, let delegate else { break }
            delegate.loadConnectionDidReceive(message, arrivedAt: arrivedAt)
        }
        if let code = ending {
            ending = nil
            finish(code: code)
        }
    }

    /// Takes what it can from `bytes`; returns how many bytes were used (the rest is an
    /// incomplete header or control frame). Complete messages are appended to `delivered`.
    private func consume(_ bytes: UnsafeRawBufferPointer, into delivered: inout [InboundMessage]) -> Int {
        var at = 0
        if state == .handshaking {
            switch handshake.check(bytes, subprotocol: subprotocol) {
            case .needMore: return 0
            case .refused(let reason): fail(reason); return bytes.count
            case .accepted(let headLength):
                at = headLength
                state = .open
                outbound.append(contentsOf: held)
                held = []
                flush()
                if let delegate { delegate.loadConnectionDidConnect() }
                guard state == .open else { return bytes.count }
            }
        }
        while at < bytes.count && (state == .open || state == .closing) && ending == nil {
            if payloadRemaining > 0 {
                let take = min(payloadRemaining, bytes.count - at)
                message.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[at..<(at + take)]))
                at += take
                payloadRemaining -= take
                if payloadRemaining == 0 && frameIsFinal { completeMessage(into: &delivered) }
                continue
            }
            let rest = UnsafeRawBufferPointer(rebasing: bytes[at...])
            switch WebSocketFraming.parseHeader(rest, maxPayload: loop.maxMessageSize) {
            case .needMore:
                return at
            case .invalid(let code, let reason):
                protocolFailure(code, reason)
                return bytes.count
            case .header(let header) where header.isControl:
                guard rest.count >= header.frameLength else { return at }
                control(header.opcode, UnsafeRawBufferPointer(rebasing: rest[header.headerLength..<header.frameLength]))
                at += header.frameLength
            case .header(let header):
                if header.opcode == WebSocketFraming.continuation {
                    guard messageOpcode != nil else { protocolFailure(1002, "a continuation frame with no message started"); return bytes.count }
                } else {
                    guard messageOpcode == nil else { protocolFailure(1002, "a new message inside a fragmented one"); return bytes.count }
                    messageOpcode = header.opcode
                }
                guard message.count + header.payloadLength <= loop.maxMessageSize else {
                    protocolFailure(1009, "a message over \(loop.maxMessageSize) bytes")
                    return bytes.count
                }
                if message.isEmpty { message.reserveCapacity(header.payloadLength) }
                at += header.headerLength
                payloadRemaining = header.payloadLength
                frameIsFinal = header.fin
                if payloadRemaining == 0 && frameIsFinal { completeMessage(into: &delivered) }
            }
        }
        return at
    }

    private func completeMessage(into delivered: inout [InboundMessage]) {
        let payload = message
        delivered.append(messageOpcode == WebSocketFraming.binary ? .binary(payload) : .text(payload))
        message = []
        messageOpcode = nil
    }

    private func control(_ opcode: UInt8, _ payload: UnsafeRawBufferPointer) {
        switch opcode {
        case WebSocketFraming.ping:
            queueFrame(WebSocketFraming.pong, Array(payload))
        case WebSocketFraming.close:
            peerCloseCode = WebSocketFraming.closeCode(payload)
            if !closeSent {
                // Echo the code, as RFC 6455 § 5.5.1 asks, then hang up.
                queueFrame(WebSocketFraming.close, WebSocketFraming.closePayload(code: peerCloseCode))
                closeSent = true
            }
            ending = .some(peerCloseCode)
        default:
            break   // pong
        }
    }

    /// A frame the server must not send: close with `code` and drop the connection.
    private func protocolFailure(_ code: UInt16, _ reason: String) {
        if !closeSent {
            queueFrame(WebSocketFraming.close, WebSocketFraming.closePayload(code: code, reason: reason))
            closeSent = true
        }
        ending = .some(nil)
    }

    // MARK: Writing (service thread)

    private func queueFrame(_ opcode: UInt8, _ payload: [UInt8]) {
        switch state {
        case .open, .closing:
            guard !closeSent else { return }
            outbound.append(contentsOf: WebSocketFraming.clientFrame(opcode: opcode, payload: payload, mask: nextMask()))
            flush()
        case .idle, .connecting, .handshaking:
            held.append(contentsOf: WebSocketFraming.clientFrame(opcode: opcode, payload: payload, mask: nextMask()))
        case .closed:
            break
        }
    }

    /// Writes as much of `outbound` as the socket takes.
    private func flush() {
        while sentUpTo < outbound.count {
            let count = outbound.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sentUpTo, $0.count - sentUpTo, Int32(MSG_NOSIGNAL)) }
            if count > 0 {
                sentUpTo += count
            } else if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                break
            } else {
                return finish(code: nil)
            }
        }
        if sentUpTo == outbound.count {
            outbound.removeAll(keepingCapacity: outbound.count <= 64 << 10)
            sentUpTo = 0
        }
        updateWatch()
    }

    private func updateWatch() {
        guard fd >= 0, state != .connecting else { return }
        var events = EPOLLRDHUP.rawValue
        if !paused { events |= EPOLLIN.rawValue }
        if sentUpTo < outbound.count { events |= EPOLLOUT.rawValue }
        guard events != watchedEvents else { return }
        watchedEvents = events
        loop.watch(self, events: events)
    }

    /// A masking key from a per-connection xorshift generator (RFC 6455 wants it unpredictable
    /// to intermediaries, not cryptographic).
    private func nextMask() -> UInt32 {
        maskState ^= maskState << 13
        maskState ^= maskState >> 7
        maskState ^= maskState << 17
        return UInt32(truncatingIfNeeded: maskState >> 16)
    }
}
