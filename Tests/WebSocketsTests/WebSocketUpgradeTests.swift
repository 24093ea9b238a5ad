import Foundation
import TestSupport
import XCTest
@testable import WebSockets

/// The handshake: the delegate's chance to refuse it with a real HTTP response, and its headers
/// kept on the connection.
final class WebSocketUpgradeTests: XCTestCase {
    private func handshake(path: String = "/ws", headers: [String] = []) -> [UInt8] {
        rawRequestBytes(method: "GET", path: path, headers: [
            "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Version: 13",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Protocol: \(testSubprotocol)",
        ] + headers)
    }

    func testARefusedUpgradeIsAnHTTPResponseTheClientReads() throws {
        let (server, delegate, port) = try startServer()
        defer { server.shutdown() }
        delegate.upgradeRefusal = { request in
            guard let origin = request.headers["origin"], origin.hasPrefix("https://evil.") else { return nil }
            return HTTPResponse(status: 403, contentType: "application/json", body: Array("{\"error\":\"forbidden origin\"}".utf8),
                                headers: [HTTPHeaderField(name: "X-Reason", value: "origin")])
        }
        let connection = try RawHTTPConnection(port: port)
        connection.send(handshake(headers: ["Origin: https://evil.example"]))
        let refusal = try connection.readResponse()
        XCTAssertEqual(refusal.status, 403)
        XCTAssertEqual(refusal.bodyText, "{\"error\":\"forbidden origin\"}")
        XCTAssertEqual(refusal.headers["content-type"], "application/json")
        XCTAssertEqual(refusal.headers["x-reason"], "origin")
        XCTAssertNil(refusal.headers["upgrade"])
        XCTAssertTrue(connection.waitForClose(), "the connection closes after the refusal")
        XCTAssertEqual(delegate.upgradeChecks.last?.headers["origin"], "https://evil.example")
        XCTAssertEqual(delegate.upgradeChecks.last?.path, "/ws")

        // Another origin, or none (a program), is accepted.
        let allowed = try RawHTTPConnection(port: port)
        allowed.send(handshake())
        XCTAssertEqual(try allowed.readResponse().status, 101)
        let client = try BlockingWebSocketClient.connect(port: port, subprotocol: testSubprotocol)
        XCTAssertTrue(eventually { delegate.opened.count == 2 })
        XCTAssertTrue(delegate.opened.allSatisfy { $0.origin != "https://evil.example" })
        client.close()
    }

    func testAnUpgradeOnAnotherPathIsA404() throws {
        let (server, delegate, port) = try startServer()
        defer { server.shutdown() }
        let connection = try RawHTTPConnection(port: port)
        connection.send(handshake(path: "/elsewhere"))
        let response = try connection.readResponse()
        XCTAssertEqual(response.status, 404)
        XCTAssertTrue(connection.waitForClose())
        XCTAssertTrue(delegate.upgradeChecks.isEmpty, "the delegate is asked about its own path only")
        XCTAssertTrue(delegate.opened.isEmpty)
    }

    func testTheHandshakeIsKeptOnTheConnection() throws {
        let (server, delegate, port) = try startServer { $0.customRequestHeaders = ["X-Client-Name"] }
        defer { server.shutdown() }
        let connection = try RawHTTPConnection(port: port)
        connection.send(handshake(path: "/ws?token=abc", headers: [
            "Authorization: Bearer w-token", "Origin: http://dashboards.test", "X-Client-Name: publisher-1",
        ]))
        XCTAssertEqual(try connection.readResponse().status, 101)
        XCTAssertTrue(eventually { delegate.opened.count == 1 })
        let opened = try XCTUnwrap(delegate.opened.first)
        XCTAssertEqual(opened.handshake.method, "GET")
        XCTAssertEqual(opened.handshake.path, "/ws")
        XCTAssertEqual(opened.handshake.query, "token=abc")
        XCTAssertEqual(opened.handshake.peerIP, "127.0.0.1")
        XCTAssertTrue(opened.handshake.body.isEmpty)
        XCTAssertEqual(opened.authorization, "Bearer w-token")
        XCTAssertEqual(opened.origin, "http://dashboards.test")
        XCTAssertEqual(opened.handshake.headers["x-client-name"], "publisher-1")
        XCTAssertEqual(opened.handshake.headers["sec-websocket-protocol"], testSubprotocol)
        XCTAssertEqual(delegate.upgradeChecks.first?.headers["authorization"], "Bearer w-token",
                       "the delegate saw the same headers before the upgrade")
        XCTAssertEqual(delegate.upgradeChecks.first?.query, "token=abc")

        let plain = try BlockingWebSocketClient.connect(port: port, subprotocol: testSubprotocol)
        XCTAssertTrue(eventually { delegate.opened.count == 2 })
        XCTAssertNil(delegate.opened.last?.authorization)
        XCTAssertEqual(delegate.opened.last?.origin, "http://127.0.0.1:\(port)", "the project's client names its origin")
        plain.close()
    }

    func testTheClientSendsExtraHandshakeHeaders() throws {
        let (server, delegate, port) = try startServer { $0.customRequestHeaders = ["x-client-name"] }
        defer { server.shutdown() }
        delegate.upgradeRefusal = { $0.headers["authorization"] == "Bearer right" ? nil : .text("token required\n", status: 401) }
        XCTAssertThrowsError(try BlockingWebSocketClient.connect(port: port, subprotocol: testSubprotocol,
                                                                 headers: [HTTPHeaderField(name: "Authorization", value: "Bearer wrong")]))
        let client = try BlockingWebSocketClient.connect(port: port, subprotocol: testSubprotocol, headers: [
            HTTPHeaderField(name: "Authorization", value: "Bearer right"), HTTPHeaderField(name: "X-Client-Name", value: "loader"),
            HTTPHeaderField(name: "X-Bad", value: "a\r\nb"),
        ])
        XCTAssertTrue(eventually { delegate.opened.count == 1 })
        XCTAssertEqual(delegate.opened.first?.authorization, "Bearer right")
        XCTAssertEqual(delegate.opened.first?.handshake.headers["x-client-name"], "loader")
        client.close()
    }
}
