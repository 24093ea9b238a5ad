#if canImport(Glibc)
import Glibc
#endif
import ChartCastProtocol
import ChartCastServer
import ChartEngine
import Foundation
import TestSupport
import WebSockets
import XCTest
@testable import LoadTesting

/// The load tester's raw WebSocket client against a real ChartCast server and against a server
/// scripted byte by byte: messages of every size arrive whole and in order however the bytes
/// are cut, its own frames are masked, pings are answered, closes and hang-ups are reported once.
final class RawWebSocketClientTests: XCTestCase {
    /// Records a connection's events (on the loop's thread) for the test's thread.
    final class Recorder: LoadConnectionDelegate {
        enum Event: Equatable { case connected, failed(String), message(InboundMessage), closed(UInt16?) }
        private let lock = NSLock()
        private var recorded: [Event] = []
        /// Per message, in the order of `messages`: when the client says it arrived, and when the
        /// delegate was told.
        private var recordedTimes: [(arrivedAt: UInt64, readAt: UInt64)] = []
        var events: [Event] { lock.lock(); defer { lock.unlock() }; return recorded }
        var times: [(arrivedAt: UInt64, readAt: UInt64)] { lock.lock(); defer { lock.unlock() }; return recordedTimes }
        var messages: [InboundMessage] { events.compactMap { if case .message(let m) = $0 { return m }; return nil } }
        private func add(_ event: Event) { lock.lock(); recorded.append(event); lock.unlock() }
        func loadConnectionDidConnect() { add(.connected) }
        func loadConnectionDidFail(_ reason: String) { add(.failed(reason)) }
        func loadConnectionDidReceive(_ message: InboundMessage, arrivedAt: UInt64) {
            let now = MonotonicClock.now()
            lock.lock()
            recorded.append(.message(message))
            recordedTimes.append((arrivedAt, now))
            lock.unlock()
        }
        func loadConnectionDidClose(code: UInt16?) { add(.closed(code)) }
        var ended: Bool { events.contains { if case .closed = $0 { return true }; if case .failed = $0 { return true }; return false } }
    }

    private var loop: RawWebSocketLoop!

    /// Whether `message` is the `selection` a pointer with `ref` caused.
    private static func isSelection(_ message: InboundMessage, ref: String) -> Bool {
        if case .selection(let update)? = try? ServerMessage.decode(message.bytes) { return update.ref == ref }
        return false
    }

    override func setUpWithError() throws { loop = try RawWebSocketLoop(maxMessageSize: 4 << 20) }
    override func tearDown() { loop.shutdown(); loop = nil }

    private func connect(port: Int, path: String = "/ws", subprotocol: String? = "chartcast.v1") -> (LoadConnection, Recorder) {
        let recorder = Recorder()
        let connection = loop.performAndWait(timeout: 5) {
            self.loop.connect(LoadURL(host: "127.0.0.1", port: port, path: path), subprotocol: subprotocol, tls: .off, delegate: recorder)
        }!
        return (connection, recorder)
    }

    // MARK: Against ChartCast

    private func startChartCast(_ options: ServerOptions = ServerOptions(host: "127.0.0.1", port: 0, webRoot: nil, tick: 0, logLevel: .error))
        throws -> (ChartCastServer, Int) {
        let server = ChartCastServer(options: options)
        return (server, try server.start())
    }

    func testAChartCastSessionWelcomesSnapshotsAndAnswersAPointer() throws {
        let (server, port) = try startChartCast()
        defer { server.shutdown() }
        let (connection, recorder) = connect(port: port)
        XCTAssertTrue(eventually { recorder.messages.count >= 6 }, "welcome and five snapshots: \(recorder.events.prefix(3))")
        XCTAssertEqual(recorder.events.first, .connected)
        guard case .welcome(let welcome) = try ServerMessage.decode(recorder.messages[0].bytes) else { return XCTFail("no welcome first") }
        let snapshots = try recorder.messages[1...].compactMap { message -> String? in
            if case .snapshot(let snapshot) = try ServerMessage.decode(message.bytes) { return snapshot.chart }
            return nil
        }
        XCTAssertEqual(Set(snapshots), Set(welcome.charts.map(\.id)))
        connection.send(bytes: ClientMessage.viewport(.init(chart: "sales", viewport: Viewport(x: 0, y: 0, width: 600, height: 300))).encode(), binary: false)
        connection.send(bytes: ClientMessage.pointer(.init(chart: "sales", phase: .move, x: 130, y: 90, ref: "r-1")).encode(), binary: false)
        XCTAssertTrue(eventually { recorder.messages.contains { Self.isSelection($0, ref: "r-1") } },
                      "the masked pointer frames were read by the server")
        connection.close(code: 1000)
        XCTAssertTrue(eventually { recorder.ended })
        XCTAssertEqual(recorder.events.last, .closed(1000), "the server echoed the close")
    }

    /// A message that waits in the socket while the client's thread is busy is reported with the
    /// time it arrived (the kernel's stamp), not the time it was read: the load tester's fan-out
    /// latency leaves out its own backlog.
    func testAMessageReadLateCarriesTheTimeItArrivedNotTheTimeItWasRead() throws {
        // The demo feed an hour apart: nothing else may arrive in the busy spell, as one read would
        // take both frames and a read's stamp is that of its newest bytes.
        let (server, port) = try startChartCast(ServerOptions(host: "127.0.0.1", port: 0, webRoot: nil, tick: 3600, logLevel: .error))
        defer { server.shutdown() }
        let (connection, recorder) = connect(port: port)
        // The batched viewer list comes first too.
        XCTAssertTrue(eventually {
            recorder.messages.contains { if case .viewers? = try? ServerMessage.decode($0.bytes) { return true }; return false }
        }, "the viewer list")
        connection.send(bytes: ClientMessage.viewport(.init(chart: "sales", viewport: Viewport(x: 0, y: 0, width: 600, height: 300))).encode(), binary: false)
        Thread.sleep(forTimeInterval: 0.1)
        let before = recorder.messages.count
        // On the loop's thread: send the pointer, then keep the thread busy while its selection arrives.
        let busy: UInt64 = 400_000_000
        let sentAt = loop.performAndWait(timeout: 5) { () -> UInt64 in
            let sent = MonotonicClock.now()
            connection.send(bytes: ClientMessage.pointer(.init(chart: "sales", phase: .move, x: 130, y: 90, ref: "late")).encode(), binary: false)
            MonotonicClock.sleep(Double(busy) / 1e9)
            return sent
        }
        XCTAssertNotNil(sentAt)
        XCTAssertTrue(eventually { recorder.messages.dropFirst(before).contains { Self.isSelection($0, ref: "late") } })
        guard let sentAt, let i = recorder.messages.firstIndex(where: { Self.isSelection($0, ref: "late") }) else { return }
        let time = recorder.times[i]
        XCTAssertGreaterThanOrEqual(time.readAt - sentAt, busy, "read only after the busy spell")
        XCTAssertGreaterThanOrEqual(time.arrivedAt, sentAt, "arrived after it was caused")
        XCTAssertLessThan(time.arrivedAt - sentAt, busy / 2, "arrival is the kernel's time, not the read's: \((time.arrivedAt - sentAt) / 1_000_000) ms after the send")
        XCTAssertLessThanOrEqual(time.arrivedAt, time.readAt)
    }

    func testTheServersShutdownAndAnAbortAreReportedOnce() throws {
        let (server, port) = try startChartCast()
        let (_, closedByServer) = connect(port: port)
        let (vanishing, aborted) = connect(port: port)
        XCTAssertTrue(eventually { closedByServer.messages.count >= 6 && aborted.messages.count >= 6 })
        vanishing.abort()
        XCTAssertTrue(eventually { aborted.ended })
        XCTAssertEqual(aborted.events.last, .closed(nil), "no close frame either way")
        XCTAssertTrue(eventually { server.statistics()?.viewers == 1 }, "the server saw the hang-up")
        server.shutdown()
        XCTAssertTrue(eventually { closedByServer.ended })
        XCTAssertEqual(closedByServer.events.last, .closed(1001))
        XCTAssertEqual(closedByServer.events.filter { if case .closed = $0 { return true }; return false }.count, 1)
        XCTAssertEqual(loop.performAndWait(timeout: 5) { self.loop.connectionCount }, 0, "every socket was released")
    }

    func testARefusedHandshakeFailsWithTheStatus() throws {
        let (server, port) = try startChartCast()
        defer { server.shutdown() }
        let (_, recorder) = connect(port: port, path: "/nope")
        XCTAssertTrue(eventually { recorder.ended })
        guard case .failed(let reason)? = recorder.events.first else { return XCTFail("\(recorder.events)") }
        XCTAssertTrue(reason.contains("404"), reason)
        let (_, unreachable) = connect(port: try freePort())
        XCTAssertTrue(eventually { unreachable.ended })
        guard case .failed(let why)? = unreachable.events.first else { return XCTFail("\(unreachable.events)") }
        XCTAssertTrue(why.contains("refused"), why)
    }

    func testPingsAreAnsweredSoAQuietViewerIsKept() throws {
        var options = ServerOptions(host: "127.0.0.1", port: 0, webRoot: nil, tick: 0, logLevel: .error)
        options.pingInterval = 1
        options.idleTimeout = 2
        let (server, port) = try startChartCast(options)
        defer { server.shutdown() }
        let (_, recorder) = connect(port: port)
        XCTAssertTrue(eventually { recorder.messages.count >= 6 })
        Thread.sleep(forTimeInterval: 4)
        XCTAssertFalse(recorder.ended, "hung up for silence although every ping was answered: \(recorder.events.last!)")
        XCTAssertEqual(server.statistics()?.viewers, 1)
    }

    func testAPausedViewerReceivesNothingUntilItResumes() throws {
        let (server, port) = try startChartCast()
        defer { server.shutdown() }
        let (watcher, recorder) = connect(port: port)
        let (driver, _) = connect(port: port)
        XCTAssertTrue(eventually { recorder.messages.count >= 6 })
        watcher.pauseReading()
        Thread.sleep(forTimeInterval: 0.1)
        let before = recorder.messages.count
        driver.send(bytes: ClientMessage.viewport(.init(chart: "sales", viewport: Viewport(x: 0, y: 0, width: 600, height: 300))).encode(), binary: false)
        for x in stride(from: 10.0, to: 590, by: 40) {
            driver.send(bytes: ClientMessage.pointer(.init(chart: "sales", phase: .move, x: x, y: 90)).encode(), binary: false)
        }
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(recorder.messages.count, before, "nothing is read while paused")
        watcher.resumeReading()
        XCTAssertTrue(eventually { recorder.messages.count > before }, "what waited in the socket arrives after the resume")
    }

    // MARK: Against a scripted server

    func testMessagesOfEverySizeArriveWholeHoweverTheBytesAreCut() throws {
        let sizes = [0, 1, 125, 126, 65_535, 65_536, 300_000, 1_000_000]
        let messages = sizes.map { size in (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ size) } }
        let script = ScriptedServer()
        let (connection, recorder) = connect(port: script.port)
        try script.acceptAndUpgrade()
        var stream: [UInt8] = []
        for (i, message) in messages.enumerated() {
            stream += ScriptedServer.frame(opcode: i % 2 == 0 ? 0x1 : 0x2, payload: message)
            if i == 3 { stream += ScriptedServer.frame(opcode: 0x9, payload: Array("are you there".utf8)) }
        }
        // One message in three fragments, with a ping between two of them.
        let fragmented = Array("fragmented across three frames".utf8)
        stream += ScriptedServer.frame(opcode: 0x1, payload: Array(fragmented[0..<5]), fin: false)
        stream += ScriptedServer.frame(opcode: 0x9, payload: [])
        stream += ScriptedServer.frame(opcode: 0x0, payload: Array(fragmented[5..<12]), fin: false)
        stream += ScriptedServer.frame(opcode: 0x0, payload: Array(fragmented[12...]))
        // Cut at awkward places: single bytes through headers, big pieces through payloads.
        var at = 0, piece = 1
        while at < stream.count {
            let end = min(stream.count, at + piece)
            script.send(Array(stream[at..<end]))
            at = end
            piece = piece < 16 ? piece + 1 : piece * 3 % 200_003 + 1
        }
        XCTAssertTrue(eventually(timeout: 10) { recorder.messages.count == messages.count + 1 }, "\(recorder.messages.count) messages")
        let expected = messages.enumerated().map { $0.offset % 2 == 0 ? InboundMessage.text($0.element) : .binary($0.element) }
        XCTAssertEqual(Array(recorder.messages.prefix(messages.count)), expected, "every message whole and in order")
        XCTAssertEqual(recorder.messages.last, .text(fragmented))
        // The client's own frames: two pongs, then a text message, all masked.
        connection.send(bytes: Array("hello".utf8), binary: false)
        let frames = script.readClientFrames(count: 3)
        XCTAssertEqual(frames.map(\.opcode), [0xA, 0xA, 0x1])
        XCTAssertTrue(frames.allSatisfy(\.masked), "a client masks every frame")
        XCTAssertEqual(frames.map(\.payload), [Array("are you there".utf8), [], Array("hello".utf8)])
        script.send(ScriptedServer.frame(opcode: 0x8, payload: [0x03, 0xE8]))
        XCTAssertTrue(eventually { recorder.ended })
        XCTAssertEqual(recorder.events.last, .closed(1000))
        XCTAssertEqual(script.readClientFrames(count: 1).first?.payload, [0x03, 0xE8], "the close code echoed")
    }

    func testAFrameAClientMustRefuseClosesWith1002() throws {
        let script = ScriptedServer()
        let (_, recorder) = connect(port: script.port)
        try script.acceptAndUpgrade()
        script.send(ScriptedServer.frame(opcode: 0x1, payload: Array("ok".utf8)))
        script.send([0x81, 0x82, 1, 2, 3, 4, 0x61 ^ 1, 0x62 ^ 2])   // masked by the server
        XCTAssertTrue(eventually { recorder.ended })
        XCTAssertEqual(recorder.messages, [.text(Array("ok".utf8))])
        XCTAssertEqual(recorder.events.last, .closed(nil))
        XCTAssertEqual(script.readClientFrames(count: 1).first.map { Array($0.payload.prefix(2)) }, [0x03, 0xEA], "closed with 1002")
    }

    func testAMessageOverTheLimitClosesWith1009BeforeItIsBuffered() throws {
        let script = ScriptedServer()
        let (_, recorder) = connect(port: script.port)
        try script.acceptAndUpgrade()
        script.send([0x82, 127, 0, 0, 0, 1, 0, 0, 0, 0])   // announces 4 GiB, sends none of it
        XCTAssertTrue(eventually { recorder.ended })
        XCTAssertEqual(recorder.events.last, .closed(nil))
        XCTAssertEqual(script.readClientFrames(count: 1).first.map { Array($0.payload.prefix(2)) }, [0x03, 0xF1], "closed with 1009")
    }
}

struct ScriptFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A one-connection WebSocket server scripted by the test: it answers the handshake, then sends
/// exactly the bytes it is given and decodes the client's masked frames.
final class ScriptedServer {
    struct ClientFrame { var opcode: UInt8; var masked: Bool; var payload: [UInt8] }

    let port: Int
    private let listener: Int32
    private var fd: Int32 = -1
    private var received: [UInt8] = []

    init() {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
        _ = listen(listener, 4)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        if fd >= 0 { close(fd) }
        close(listener)
    }

    /// Accepts the client and answers its handshake with `101`.
    func acceptAndUpgrade() throws {
        var pfd = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, 5_000) > 0 else { throw ScriptFailure("no client connected") }
        fd = accept(listener, nil, nil)
        var tv = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        while !String(decoding: received, as: UTF8.self).contains("\r\n\r\n") {
            guard fill() else { throw ScriptFailure("no handshake") }
        }
        let head = String(decoding: received, as: UTF8.self)
        received = []
        let key = head.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }
            .map { $0.dropFirst("sec-websocket-key:".count).trimmingCharacters(in: .whitespaces) } ?? ""
        send(Array(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(RawWebSocketHandshake.accept(for: key))\r\nSec-WebSocket-Protocol: chartcast.v1\r\n\r\n").utf8))
    }

    func send(_ bytes: [UInt8]) {
        var at = 0
        while at < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + at, $0.count - at, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return }
            at += n
        }
    }

    /// An unmasked server frame.
    static func frame(opcode: UInt8, payload: [UInt8], fin: Bool = true) -> [UInt8] {
        var out: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        if payload.count < 126 { out.append(UInt8(payload.count)) }
        else if payload.count <= 0xFFFF { out += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] }
        else { out.append(127); out += (0..<8).reversed().map { UInt8(truncatingIfNeeded: payload.count >> (8 * $0)) } }
        return out + payload
    }

    /// The next `count` frames the client sent (fewer if it stopped sending), unmasked.
    func readClientFrames(count: Int) -> [ClientFrame] {
        var frames: [ClientFrame] = []
        while frames.count < count {
            if let (frame, used) = Self.parse(received) {
                received.removeFirst(used)
                frames.append(frame)
            } else if !fill() {
                break
            }
        }
        return frames
    }

    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = recv(fd, &chunk, chunk.count, 0)
        guard n > 0 else { return false }
        received += chunk[0..<n]
        return true
    }

    private static func parse(_ data: [UInt8]) -> (ClientFrame, Int)? {
        guard data.count >= 2 else { return nil }
        let masked = data[1] & 0x80 != 0
        var length = Int(data[1] & 0x7F), at = 2
        if length == 126 { guard data.count >= 4 else { return nil }; length = Int(data[2]) << 8 | Int(data[3]); at = 4 }
        else if length == 127 { guard data.count >= 10 else { return nil }; length = data[2..<10].reduce(0) { $0 << 8 | Int($1) }; at = 10 }
        let key = masked ? 4 : 0
        guard data.count >= at + key + length else { return nil }
        let payload = (0..<length).map { i in masked ? data[at + key + i] ^ data[at + (i & 3)] : data[at + i] }
        return (ClientFrame(opcode: data[0] & 0x0F, masked: masked, payload: payload), at + key + length)
    }
}
