import Foundation
import TestSupport
import XCTest
@testable import WebSockets

/// HTTPS and WSS on one port with a self-signed certificate made by `openssl` at run time: the
/// real lws server and client, `curl` for HTTPS, raw sockets for plaintext on the TLS port.
final class WebSocketTLSTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var certificate: SelfSignedCertificate!

    override func setUpWithError() throws {
        directory = TemporaryDirectory("tls")
        certificate = try SelfSignedCertificate(in: directory)
    }

    override func tearDown() {
        directory.remove()
    }

    private func startTLSServer(delegate: RecordingServerDelegate = RecordingServerDelegate()) throws -> (WebSocketServer, RecordingServerDelegate, Int) {
        try startServer({
            $0.tlsCertificatePath = self.certificate.certificatePath
            $0.tlsPrivateKeyPath = self.certificate.privateKeyPath
        }, delegate: delegate)
    }

    func testHTTPSAndWSSShareThePort() throws {
        let (server, delegate, port) = try startTLSServer()
        defer { server.shutdown() }
        let health = try curl("https://127.0.0.1:\(port)/healthz", ["-k"])
        XCTAssertEqual(health.exitCode, 0, health.errors)
        XCTAssertEqual(health.status, 200)
        XCTAssertEqual(health.body, "ok")
        let big = try curl("https://127.0.0.1:\(port)/api/big", ["-k"])
        XCTAssertEqual(big.status, 200, big.errors)
        XCTAssertGreaterThan(big.body.utf8.count, 64 * 1024, "a body of many TLS records arrives whole")
        // Only HTTP/1.1 is offered (ALPN), even to a client that prefers HTTP/2, so request
        // bodies go through the server's HTTP/1.1 reader.
        let upload = directory.file("upload.bin")
        let payload = String(repeating: "0123456789abcdef", count: 8192)
        try payload.write(toFile: upload, atomically: true, encoding: .utf8)
        let echoed = try curl("https://127.0.0.1:\(port)/api/upload", ["-k", "--http2", "-H", "Content-Type: application/octet-stream",
                                                                       "--data-binary", "@" + upload])
        XCTAssertEqual(echoed.exitCode, 0, echoed.errors)
        XCTAssertEqual(echoed.status, 200)
        XCTAssertEqual(echoed.httpVersion, "1.1", "HTTP/2 is not negotiated")
        XCTAssertEqual(echoed.body, payload, "a 128 KiB body over TLS arrives whole")

        let client = try BlockingWebSocketClient.connect(port: port, subprotocol: testSubprotocol, tls: .insecure)
        XCTAssertEqual(client.negotiatedSubprotocol, testSubprotocol)
        client.send(text: "over tls")
        XCTAssertEqual(try client.receiveText(), "over tls")
        let large = [UInt8]((0..<60_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        client.send(bytes: large, binary: true)
        XCTAssertEqual(try client.receive(), .binary(large), "a message of several TLS records echoes intact")
        XCTAssertTrue(eventually(timeout: 5) { delegate.received.count == 2 })
        let direct = server.performAndWait(timeout: 5) { server.openConnections.first?.directWrites }
        XCTAssertEqual(direct, 0, "over TLS every frame goes through libwebsockets, never straight to the socket")
    }

    func testVerifyingClientRefusesSelfSignedCertificate() throws {
        let (server, delegate, port) = try startTLSServer()
        defer { server.shutdown() }
        XCTAssertThrowsError(try BlockingWebSocketClient.connect(port: port, subprotocol: testSubprotocol, tls: .verified)) { error in
            guard case WebSocketError.connectFailed = error else { return XCTFail("expected connectFailed, got \(error)") }
        }
        XCTAssertTrue(delegate.opened.isEmpty, "no WebSocket opened through an unverified handshake")
        let curlWithoutTrust = try curl("https://127.0.0.1:\(port)/healthz")
        XCTAssertNotEqual(curlWithoutTrust.exitCode, 0, "curl, too, refuses the self-signed certificate")
        // The server is unharmed by the refused handshakes.
        let insecure = try BlockingWebSocketClient.connect(port: port, subprotocol: testSubprotocol, tls: .insecure)
        insecure.send(text: "still here")
        XCTAssertEqual(try insecure.receiveText(), "still here")
    }

    func testVerifyingClientTrustingTheCertificateConnects() throws {
        let (server, _, port) = try startTLSServer()
        defer { server.shutdown() }
        let client = try BlockingWebSocketClient.connect(port: port, subprotocol: testSubprotocol, tls: .verified,
                                                         trustedCertificatePath: certificate.certificatePath)
        client.send(text: "verified")
        XCTAssertEqual(try client.receiveText(), "verified")
        XCTAssertEqual(client.connection.tls, .verified)
        XCTAssertTrue(client.connection.description.contains("wss://127.0.0.1:\(port)/ws"))
    }

    func testPlaintextOnTheTLSPortIsClosedWithoutAnAnswer() throws {
        let (server, delegate, port) = try startTLSServer()
        defer { server.shutdown() }
        let fd = try loopbackSocket(port: port, timeout: 10)
        defer { close(fd) }
        let request = rawRequestBytes(path: "/healthz")
        XCTAssertEqual(request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }, request.count)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var ended = false
        while !ended {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += buffer[..<count]
            } else {
                // 0 is an orderly close, ECONNRESET an abortive one; EAGAIN would be the 10 s timeout.
                XCTAssertTrue(count == 0 || errno == ECONNRESET, "the server closed the plaintext connection (errno \(errno))")
                ended = true
            }
        }
        XCTAssertFalse(String(decoding: received, as: UTF8.self).contains("HTTP/1.1 200"), "nothing is served in plaintext")

        // A ws:// client is refused the same way: no WebSocket is ever opened without TLS.
        XCTAssertThrowsError(try BlockingWebSocketClient.connect(port: port, subprotocol: testSubprotocol, tls: .off))
        XCTAssertTrue(delegate.opened.isEmpty)
        XCTAssertEqual(try curl("https://127.0.0.1:\(port)/healthz", ["-k"]).status, 200, "TLS clients are still served")
    }

    func testClientOriginNamesTheSchemeItConnectedWith() throws {
        let (plainServer, plainDelegate, plainPort) = try startServer()
        defer { plainServer.shutdown() }
        let plain = try BlockingWebSocketClient.connect(port: plainPort, subprotocol: testSubprotocol)
        XCTAssertTrue(eventually { plainDelegate.opened.count == 1 })
        XCTAssertEqual(plainServer.performAndWait(timeout: 5) { plainDelegate.opened.first?.origin }, "http://127.0.0.1:\(plainPort)")
        plain.close()

        let (server, delegate, port) = try startTLSServer()
        defer { server.shutdown() }
        let secure = try BlockingWebSocketClient.connect(port: port, subprotocol: testSubprotocol, tls: .insecure)
        XCTAssertTrue(eventually { delegate.opened.count == 1 })
        XCTAssertEqual(server.performAndWait(timeout: 5) { delegate.opened.first?.origin }, "https://127.0.0.1:\(port)")
        secure.close()
    }

    func testWSSClientToAPlainServerFailsToConnect() throws {
        let (server, delegate, port) = try startServer()
        defer { server.shutdown() }
        XCTAssertThrowsError(try BlockingWebSocketClient.connect(port: port, subprotocol: testSubprotocol, tls: .insecure))
        XCTAssertTrue(delegate.opened.isEmpty)
    }
}
