import Foundation
import TestSupport
import XCTest
@testable import WebSockets

/// Limits and timeouts: slow request heads, silent WebSockets, the WebSocket cap and the
/// per-address cap, each with an honest client that keeps being served.
final class WebSocketLimitsTests: XCTestCase {
    /// Raises this process's soft file limit to the hard one (thousands of test sockets).
    private func raiseFileLimit(atLeast needed: Int) throws {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        try XCTSkipIf(Int(limit.rlim_cur) < needed, "the file limit (\(limit.rlim_cur)) is below the \(needed) sockets this test needs")
    }

    /// This process's resident set size (the server runs in it).
    private func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
              let pages = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    func testTwoThousandSlowClientsDoNotDelayAFreshOne() throws {
        try raiseFileLimit(atLeast: 4600)
        let (server, _, port) = try startServer { $0.limits.headerTimeout = 10 }
        defer { server.shutdown(grace: 0.1) }
        let residentBefore = residentBytes()
        // Each sends part of a request line and a header, then nothing more.
        var slow: [Int32] = []
        defer { slow.forEach { close($0) } }
        let partial = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8)
        for _ in 0..<2000 {
            let fd = try loopbackSocket(port: port, timeout: 5)
            _ = partial.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            slow.append(fd)
        }
        // Let the server accept and start parsing all of them.
        Thread.sleep(forTimeInterval: 1)
        // The requirement: a fresh client gets `/healthz` within 100 ms. Judged on the median of
        // nine requests (connect, request, answer), so that one request delayed by another
        // process on a shared machine does not decide it; the slowest is still bounded.
        var took: [Double] = []
        for _ in 0..<9 {
            let start = Date()
            XCTAssertEqual(try rawHTTP(port: port, path: "/healthz", timeout: 5).status, 200)
            took.append(Date().timeIntervalSince(start))
        }
        took.sort()
        let median = took[took.count / 2], worst = took[took.count - 1]
        print("/healthz beside 2,000 slow clients: median of 9 \(Int(median * 1000)) ms, worst \(Int(worst * 1000)) ms; "
              + "resident memory grew \((residentBytes() - residentBefore) >> 20) MiB")
        XCTAssertLessThan(median, 0.1, "a fresh client waits for no slow client's header table")
        XCTAssertLessThan(worst, 1.0, "nor does any of the nine wait long")
    }

    func testAClientThatNeverFinishesItsHeadIsClosedAfterTheHeaderTimeout() throws {
        let (server, _, port) = try startServer { $0.limits.headerTimeout = 2 }
        defer { server.shutdown(grace: 0.1) }
        let slow = try RawHTTPConnection(port: port, timeout: 10)
        slow.send(Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8))
        let start = Date()
        XCTAssertTrue(slow.waitForClose(timeout: 8), "the server closes a head that never ends")
        let waited = Date().timeIntervalSince(start)
        XCTAssertGreaterThan(waited, 1.5, "not before the header timeout")
        XCTAssertEqual(try rawHTTP(port: port, path: "/healthz").status, 200)
    }

    func testASilentWebSocketIsPingedThenClosedWhileAnHonestOneStays() throws {
        let (server, delegate, port) = try startServer {
            $0.limits.pingInterval = 1
            $0.limits.idleTimeout = 3
        }
        defer { server.shutdown(grace: 0.1) }
        let honest = try BlockingWebSocketClient.connect(port: port)
        // A raw client that completes the handshake and then never reads a ping nor sends a pong.
        let silent = try RawWebSocket(port: port, subprotocol: testSubprotocol)
        XCTAssertTrue(eventually { delegate.opened.count == 2 })
        let ping = silent.readFrame()
        XCTAssertEqual(ping?.opcode, 0x9, "the server pings a silent connection")
        let start = Date()
        XCTAssertTrue(silent.waitForEnd(timeout: 6), "and hangs up when no pong comes")
        print("silent WebSocket closed \(String(format: "%.1f", Date().timeIntervalSince(start))) s after its ping")
        XCTAssertTrue(eventually { delegate.closed.count == 1 })
        // The honest client answered its pings (lws pongs automatically) and is still served.
        Thread.sleep(forTimeInterval: 1)
        honest.send(text: "still here")
        XCTAssertEqual(try honest.receiveText(), "still here")
        XCTAssertEqual(delegate.closed.count, 1)
        honest.close()
    }

    /// A server that pings after 1 s of silence and hangs up after 2 s, with one raw WebSocket open.
    private func startIdleWatchedServer() throws -> (WebSocketServer, RecordingServerDelegate, RawWebSocket) {
        let (server, delegate, port) = try startServer {
            $0.limits.pingInterval = 1
            $0.limits.idleTimeout = 2
        }
        let client = try RawWebSocket(port: port, subprotocol: testSubprotocol)
        XCTAssertTrue(eventually { delegate.opened.count == 1 })
        return (server, delegate, client)
    }

    func testAPeerThatKeepsTalkingIsNeverPingedNorClosed() throws {
        let (server, delegate, talker) = try startIdleWatchedServer()
        defer { server.shutdown(grace: 0.1) }
        // A message every 0.4 s for 3.2 s: past the idle timeout, never silent for a ping interval.
        for index in 0..<8 {
            Thread.sleep(forTimeInterval: 0.4)
            XCTAssertTrue(talker.send(first: 0x81, payload: Array("m\(index)".utf8)), "still open after \(index) messages")
        }
        XCTAssertFalse(talker.waitForEnd(timeout: 0.3), "a talking peer is not hung up on")
        let frames = talker.bufferedFrames()
        XCTAssertEqual(frames.filter { $0.opcode == 0x9 }.count, 0, "nor pinged: each message starts its silence over")
        XCTAssertEqual(frames.filter { $0.opcode == 0x1 }.count, 8, "every message was echoed")
        XCTAssertEqual(delegate.closed.count, 0)
    }

    func testAPongAloneKeepsAQuietPeerOpen() throws {
        let (server, delegate, quiet) = try startIdleWatchedServer()
        defer { server.shutdown(grace: 0.1) }
        // Sends nothing but the pongs its pings ask for, for three idle timeouts.
        var pings = 0
        let deadline = Date(timeIntervalSinceNow: 6)
        while Date() < deadline, let frame = quiet.readFrame(timeout: deadline.timeIntervalSinceNow) {
            guard frame.opcode == 0x9 else { continue }
            pings += 1
            XCTAssertFalse(frame.payload.isEmpty, "the ping carries a payload for the pong to echo")
            XCTAssertTrue(quiet.send(first: 0x8A, payload: frame.payload))
        }
        XCTAssertGreaterThanOrEqual(pings, 3, "one ping per silence of a ping interval")
        XCTAssertEqual(delegate.closed.count, 0, "answered pings keep the connection")
        XCTAssertTrue(quiet.send(first: 0x81, payload: Array("here".utf8)))
        XCTAssertEqual(quiet.readFrame()?.opcode, 0x1)
    }

    func testHandshakesBeyondTheWebSocketCapAre503() throws {
        let (server, delegate, port) = try startServer { $0.limits.maxWebSockets = 2 }
        defer { server.shutdown(grace: 0.1) }
        let first = try BlockingWebSocketClient.connect(port: port)
        let second = try BlockingWebSocketClient.connect(port: port)
        XCTAssertTrue(eventually { delegate.opened.count == 2 })
        let refused = try RawHTTPConnection(port: port)
        refused.send(method: "GET", path: "/ws", headers: ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Version: 13",
                                                           "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
                                                           "Sec-WebSocket-Protocol: \(testSubprotocol)"])
        let answer = try refused.readResponse()
        XCTAssertEqual(answer.status, 503)
        XCTAssertEqual(answer.headers["retry-after"], "5")
        XCTAssertEqual(answer.bodyText, "too many viewers\n")
        XCTAssertTrue(refused.waitForClose())
        XCTAssertEqual(delegate.opened.count, 2, "the refused handshake never opened")
        // Those in are untouched; once one leaves, there is room again.
        first.send(text: "in")
        XCTAssertEqual(try first.receiveText(), "in")
        second.close()
        XCTAssertTrue(eventually { delegate.closed.count == 1 })
        let third = try BlockingWebSocketClient.connect(port: port)
        third.send(text: "room")
        XCTAssertEqual(try third.receiveText(), "room")
        first.close()
        third.close()
    }

    func testConnectionsBeyondThePerAddressCapAreRefusedAtAccept() throws {
        let (server, delegate, port) = try startServer { $0.limits.maxConnectionsPerAddress = 4 }
        defer { server.shutdown(grace: 0.1) }
        let viewer = try BlockingWebSocketClient.connect(port: port)
        XCTAssertTrue(eventually { delegate.opened.count == 1 })
        var idle = try (0..<3).map { _ in try RawHTTPConnection(port: port) }
        XCTAssertTrue(eventually { server.performAndWait(timeout: 1) { server.admission.count(for: "127.0.0.1") } == 4 })
        let refused = try RawHTTPConnection(port: port)
        let answer = try refused.readResponse()
        XCTAssertEqual(answer.status, 503)
        XCTAssertTrue(answer.bodyText.contains("per-address"), answer.bodyText)
        XCTAssertTrue(refused.waitForClose())
        // The viewer in keeps being served; a closed connection makes room.
        viewer.send(text: "served")
        XCTAssertEqual(try viewer.receiveText(), "served")
        idle.removeLast()
        XCTAssertTrue(eventually { server.performAndWait(timeout: 1) { server.admission.count(for: "127.0.0.1") } == 3 })
        XCTAssertEqual(try rawHTTP(port: port, path: "/healthz").status, 200)
        // Every connection is uncounted when it closes.
        idle.removeAll()
        viewer.close()
        XCTAssertTrue(eventually { server.performAndWait(timeout: 1) { server.admission.total } == 0 })
    }

    func testLongTargetsAndLargeHeadersAre414And431AndConnectIs405() throws {
        let (server, _, port) = try startServer {
            $0.limits.maxURIBytes = 100
            $0.limits.maxHeaderBytes = 200
            $0.customRequestHeaders = ["X-Counted"]
        }
        defer { server.shutdown(grace: 0.1) }
        XCTAssertEqual(try rawHTTP(port: port, path: "/healthz?" + String(repeating: "a", count: 90)).status, 200)
        XCTAssertEqual(try rawHTTP(port: port, path: "/healthz?" + String(repeating: "a", count: 101)).status, 414)
        XCTAssertEqual(try rawHTTP(port: port, path: "/" + String(repeating: "a", count: 5000)).status, 414)
        XCTAssertEqual(try rawHTTP(port: port, path: "/healthz", extraHeaders: ["Cookie: " + String(repeating: "c", count: 150)]).status, 200)
        XCTAssertEqual(try rawHTTP(port: port, path: "/healthz", extraHeaders: ["Cookie: " + String(repeating: "c", count: 5000)]).status, 431)
        XCTAssertEqual(try rawHTTP(port: port, path: "/healthz", extraHeaders: ["X-Counted: " + String(repeating: "x", count: 300)]).status, 431,
                       "configured custom headers count too")
        let connect = try RawHTTPConnection(port: port)
        connect.send(Array("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n".utf8))
        let answer = try connect.readResponse()
        XCTAssertEqual(answer.status, 405)
        XCTAssertEqual(answer.headers["allow"], "GET, HEAD")
        XCTAssertTrue(connect.waitForClose())
    }

    func testRefusalsAreLoggedAtMostOnceASecondWithTheirCount() {
        let admission = ConnectionAdmission()
        XCTAssertNotNil(admission.refused(.perAddress, now: 100))
        XCTAssertNil(admission.refused(.perAddress, now: 100.2))
        XCTAssertNil(admission.refused(.perAddress, now: 100.9))
        XCTAssertNotNil(admission.refused(.fileDescriptors, now: 100.9), "each reason has its own line")
        let line = admission.refused(.perAddress, now: 101.0)
        XCTAssertEqual(line, "refused 3 connections over the per-address connection cap in the last 1.0 s")
    }
}
