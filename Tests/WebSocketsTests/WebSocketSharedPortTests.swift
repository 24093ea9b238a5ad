import Foundation
import TestSupport
import XCTest
@testable import WebSockets

/// Several servers on one port (`reusePort`, `SO_REUSEPORT`): the kernel spreads connections over
/// them, and each serves its share through the ordinary path — limits, the header timeout, TLS.
/// (The whole WebSockets and server suites were also run with `reusePort` on by default: see
/// docs/scale-out.md.)
final class WebSocketSharedPortTests: XCTestCase {
    /// Two servers sharing one (ephemeral) port.
    private func twoOnOnePort(_ configure: @escaping (inout WebSocketServerConfiguration) -> Void = { _ in })
        throws -> [(WebSocketServer, RecordingServerDelegate)] {
        let (first, firstDelegate, port) = try startServer { $0.reusePort = true; configure(&$0) }
        let (second, secondDelegate, secondPort) = try startServer { $0.reusePort = true; $0.port = port; configure(&$0) }
        XCTAssertEqual(secondPort, port)
        return [(first, firstDelegate), (second, secondDelegate)]
    }

    func testTwoServersOnOnePortBothServeTheirShare() throws {
        let servers = try twoOnOnePort()
        defer { for (server, _) in servers { server.shutdown(grace: 0.1) } }
        let port = servers[0].0.port
        var clients: [BlockingWebSocketClient] = []
        for i in 0..<24 {
            let client = try BlockingWebSocketClient.connect(port: port, subprotocol: testSubprotocol)
            client.send(text: "hello \(i)")
            XCTAssertEqual(try client.receiveText(), "hello \(i)", "every connection is served, by whichever server got it")
            clients.append(client)
        }
        XCTAssertTrue(eventually { servers.map { $0.1.opened.count }.reduce(0, +) == 24 })
        let shares = servers.map { $0.1.opened.count }
        XCTAssertTrue(shares.allSatisfy { $0 > 0 }, "the kernel gave both servers connections: \(shares)")
        for _ in 0..<10 { XCTAssertEqual(try rawHTTP(port: port, path: "/healthz").status, 200) }
        for client in clients { client.close() }
    }

    func testAServerWithoutTheOptionCannotTakeASharedPort() throws {
        let (server, _, port) = try startServer { $0.reusePort = true }
        defer { server.shutdown(grace: 0.1) }
        XCTAssertThrowsError(try startServer { $0.port = port }) { error in
            XCTAssertEqual("\(error)", "cannot listen on 127.0.0.1:\(port): address already in use")
        }
        // And the other way round: a port held without the option is not shared.
        let (plain, _, plainPort) = try startServer()
        defer { plain.shutdown(grace: 0.1) }
        XCTAssertThrowsError(try startServer { $0.reusePort = true; $0.port = plainPort }) { error in
            XCTAssertEqual("\(error)", "cannot listen on 127.0.0.1:\(plainPort): address already in use")
        }
    }

    func testThePerAddressCapAndTheHeaderTimeoutHoldOnASharedPort() throws {
        let (server, delegate, port) = try startServer {
            $0.reusePort = true
            $0.limits.maxConnectionsPerAddress = 3
            $0.limits.headerTimeout = 2
        }
        defer { server.shutdown(grace: 0.1) }
        let viewer = try BlockingWebSocketClient.connect(port: port, subprotocol: testSubprotocol)
        XCTAssertTrue(eventually { delegate.opened.count == 1 })
        let slow = try RawHTTPConnection(port: port, timeout: 10)
        slow.send(Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8))
        let idle = try RawHTTPConnection(port: port)
        XCTAssertTrue(eventually { server.performAndWait(timeout: 1) { server.admission.count(for: "127.0.0.1") } == 3 })
        let refused = try RawHTTPConnection(port: port)
        let answer = try refused.readResponse()
        XCTAssertEqual(answer.status, 503, "refused at accept, as by libwebsockets' own listener")
        XCTAssertTrue(answer.bodyText.contains("per-address"), answer.bodyText)
        let start = Date()
        XCTAssertTrue(slow.waitForClose(timeout: 8), "a head that never ends is closed")
        XCTAssertGreaterThan(Date().timeIntervalSince(start), 1, "after the header timeout")
        XCTAssertTrue(idle.waitForClose(timeout: 8), "and so is a connection that sends nothing")
        viewer.send(text: "served")
        XCTAssertEqual(try viewer.receiveText(), "served", "the WebSocket in is served throughout")
        XCTAssertTrue(eventually { server.performAndWait(timeout: 1) { server.admission.count(for: "127.0.0.1") } == 1 },
                      "the closed ones are uncounted")
        XCTAssertEqual(try rawHTTP(port: port, path: "/healthz").status, 200)
        viewer.close()
    }

    func testTLSOnASharedPort() throws {
        let directory = TemporaryDirectory("shared-tls")
        defer { directory.remove() }
        let certificate = try SelfSignedCertificate(in: directory)
        let servers = try twoOnOnePort {
            $0.tlsCertificatePath = certificate.certificatePath
            $0.tlsPrivateKeyPath = certificate.privateKeyPath
        }
        defer { for (server, _) in servers { server.shutdown(grace: 0.1) } }
        let port = servers[0].0.port
        for _ in 0..<6 {
            let health = try curl("https://127.0.0.1:\(port)/healthz", ["-k"])
            XCTAssertEqual(health.status, 200, health.errors)
            XCTAssertEqual(health.body, "ok")
        }
        for i in 0..<12 {
            let client = try BlockingWebSocketClient.connect(port: port, subprotocol: testSubprotocol, tls: .insecure)
            client.send(text: "over tls \(i)")
            XCTAssertEqual(try client.receiveText(), "over tls \(i)")
            client.close()
        }
        // Plaintext on the TLS port fails the handshake and is closed, as without sharing.
        let plain = try RawHTTPConnection(port: port)
        plain.send(method: "GET", path: "/healthz")
        XCTAssertTrue(plain.waitForClose(timeout: 5))
    }
}
