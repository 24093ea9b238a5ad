import ChartCastProtocol
import ChartCastServer
import Foundation
import TestSupport
import XCTest

/// Hostile HTTP against the whole server, with an honest viewer receiving the live feed before,
/// during and after: every method on every endpoint, oversized heads and targets, header floods,
/// `CONNECT`, empty bodies, and traversal in every encoding.
final class HostileHTTPTests: XCTestCase {
    private var webRoot: TemporaryDirectory!
    private var server: TestServer!
    private var viewer: TestViewer!

    override func setUpWithError() throws {
        webRoot = TemporaryDirectory("hostile-web")
        try FileManager.default.createDirectory(atPath: webRoot.path, withIntermediateDirectories: true)
        try "<!doctype html><title>page</title>".write(toFile: webRoot.path + "/index.html", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: webRoot.path + "/js", withIntermediateDirectories: true)
        try "export const x = 1;\n".write(toFile: webRoot.path + "/js/app.js", atomically: true, encoding: .utf8)
        server = try TestServer(tick: 0.05, webRoot: webRoot.path + "/")
        viewer = try server.viewer()
        try assertViewerReceives()
    }

    override func tearDownWithError() throws {
        try assertViewerReceives()
        viewer = nil
        server = nil
        webRoot.remove()
    }

    /// The honest viewer still gets live appends.
    private func assertViewerReceives(file: StaticString = #filePath, line: UInt = #line) throws {
        _ = try viewer.append(timeout: 5)
    }

    /// One request on its own connection, answered completely: the head, then exactly the
    /// promised `Content-Length` of body, then the connection stays usable (keep-alive) or closes.
    private func exchange(_ method: String, _ path: String, headers: [String] = [], body: [UInt8] = [],
                          file: StaticString = #filePath, line: UInt = #line) throws -> RawHTTPResponse {
        let connection = try RawHTTPConnection(port: server.port, timeout: 3)
        connection.send(rawRequestBytes(method: method, path: path, headers: headers + ["Content-Length: \(body.count)"], body: body))
        let response = try connection.readResponse(bodyless: method == "HEAD")
        if method != "HEAD", let length = response.headers["content-length"] {
            XCTAssertEqual(Int(length), response.body.count, "\(method) \(path): Content-Length matches the body", file: file, line: line)
        }
        XCTAssertEqual(connection.unreadBytes, 0, "\(method) \(path): nothing after the promised body", file: file, line: line)
        if response.headers["connection"]?.lowercased() != "close" {
            // Keep-alive: the same connection answers the next request at once.
            connection.send(method: "GET", path: "/healthz")
            XCTAssertEqual(try connection.readResponse().status, 200, "\(method) \(path): keep-alive goes on", file: file, line: line)
        }
        return response
    }

    func testEveryMethodOnEveryEndpointIsAnsweredWith405AndAllowWhereNotAllowed() throws {
        let chart = try XCTUnwrap(viewer.snapshots.keys.sorted().first)
        // The endpoints of docs/api.md, the WebSocket path and the page, with the methods each takes.
        let table: [(path: String, allowed: [String])] = [
            ("/healthz", ["GET", "HEAD"]), ("/metrics", ["GET", "HEAD"]), ("/api/charts", ["GET", "HEAD"]),
            ("/api/charts/\(chart)", ["GET", "HEAD", "PUT", "DELETE"]), ("/api/charts/\(chart)/points", ["GET", "HEAD", "POST"]),
            ("/api/charts/\(chart)/selection", ["GET", "HEAD"]), ("/api/dashboard", ["GET", "HEAD"]), ("/api/v2/write", ["POST"]),
            ("/ws", ["GET", "HEAD"]), ("/", ["GET", "HEAD"]), ("/js/app.js", ["GET", "HEAD"]),
        ]
        let methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
        for (path, allowed) in table {
            for method in methods {
                // A harmless body for the methods that change things: an empty one.
                if method == "DELETE" || (method == "PUT" && path.hasPrefix("/api/charts/")) { continue }
                let response = try exchange(method, path)
                if allowed.contains(method) {
                    XCTAssertNotEqual(response.status, 405, "\(method) \(path)")
                    XCTAssertLessThan(response.status, 500, "\(method) \(path)")
                } else {
                    XCTAssertEqual(response.status, 405, "\(method) \(path)")
                    let allow = response.headers["allow"]?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                    XCTAssertEqual(allow.map(Set.init), Set(allowed), "\(method) \(path): Allow")
                }
            }
            try assertViewerReceives()
        }
        // PUT and DELETE where they are not allowed (those that are would change the dashboard).
        for path in ["/healthz", "/api/charts", "/api/dashboard", "/api/v2/write", "/"] {
            XCTAssertEqual(try exchange("DELETE", path).status, 405, "DELETE \(path)")
            XCTAssertEqual(try exchange("PUT", path).status, 405, "PUT \(path)")
        }
    }

    func testMethodsNoPathTakesGetACompleteRefusal() throws {
        // libwebsockets' parser refuses methods it does not know (403, its own page) before the
        // server sees them; whatever the status, the answer is whole and the server goes on.
        for method in ["TRACE", "BREW", "PROPFIND", "GET2"] {
            let connection = try RawHTTPConnection(port: server.port, timeout: 3)
            connection.send(method: method, path: "/healthz", headers: ["Connection: close"])
            let response = try connection.readResponse()
            XCTAssertTrue([403, 405, 501].contains(response.status), "\(method) → \(response.status)")
            if let length = response.headers["content-length"] { XCTAssertEqual(Int(length), response.body.count, method) }
        }
        try assertViewerReceives()
    }

    func testAPostWithAnEmptyBodyToAGetOnlyPathGetsACompleteAnswer() throws {
        for path in ["/healthz", "/api/charts", "/", "/ws"] {
            let response = try exchange("POST", path)
            XCTAssertEqual(response.status, 405, path)
            XCTAssertNotNil(response.headers["allow"], path)
            XCTAssertFalse(response.body.isEmpty, path)
        }
    }

    func testOversizedHeadersAndTargetsAre431And414() throws {
        let cookie = try exchange("GET", "/healthz", headers: ["Cookie: " + String(repeating: "c", count: 65_536)])
        XCTAssertEqual(cookie.status, 431, "a 64 KB header")
        let agent = try exchange("GET", "/api/charts", headers: ["User-Agent: " + String(repeating: "u", count: 20_000)])
        XCTAssertEqual(agent.status, 431)
        XCTAssertEqual(try exchange("GET", "/healthz", headers: ["Cookie: " + String(repeating: "c", count: 8_000)]).status, 200,
                       "8 KB of cookie is fine")
        XCTAssertEqual(try exchange("GET", "/api/charts?" + String(repeating: "q", count: 10_000)).status, 414)
        XCTAssertEqual(try exchange("GET", "/" + String(repeating: "p", count: 100_000)).status, 414, "a 100 KB path")
        let handshake = try rawHTTP(port: server.port, path: "/ws?" + String(repeating: "w", count: 50_000), extraHeaders: [
            "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Version: 13", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
            "Sec-WebSocket-Protocol: \(ChartCastServer.subprotocol)"])
        XCTAssertEqual(handshake.status, 414, "a handshake with a 50 KB target")
    }

    func testHeaderFloodsAreRefusedOrClosedCleanly() throws {
        let floods: [(String, [String])] = [
            ("5,000 repeated known headers", Array(repeating: "Accept: text/plain", count: 5000)),
            ("5,000 distinct unknown headers", (0..<5000).map { "X-Flood-\($0): v" }),
            ("one 40 KB unknown header", ["X-Big: " + String(repeating: "b", count: 40_000)]),
        ]
        for (name, headers) in floods {
            let connection = try RawHTTPConnection(port: server.port, timeout: 5)
            connection.send(method: "GET", path: "/healthz", headers: headers)
            if let response = try? connection.readResponse() {
                XCTAssertEqual(response.status, 431, name)
            } else {
                XCTAssertTrue(connection.waitForClose(timeout: 5), "\(name): closed")
            }
            try assertViewerReceives()
        }
        XCTAssertEqual(try rawHTTP(port: server.port, path: "/healthz").status, 200)
    }

    func testConnectIsAnswered405AndClosed() throws {
        let connection = try RawHTTPConnection(port: server.port, timeout: 3)
        connection.send(Array("CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n".utf8))
        let response = try connection.readResponse()
        XCTAssertEqual(response.status, 405)
        XCTAssertEqual(response.headers["allow"], "GET, HEAD")
        XCTAssertTrue(connection.waitForClose(timeout: 3))
    }

    func testTraversalInEveryEncodingStaysInsideTheWebRoot() throws {
        // A secret beside the web root, where a traversal would land.
        let secret = webRoot.path + "-secret.txt"
        try "TOP-SECRET".write(toFile: secret, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: secret) }
        let name = (secret as NSString).lastPathComponent
        let attempts = ["/../\(name)", "/js/../../\(name)", "/%2e%2e/\(name)", "/%2E%2E%2F\(name)", "/..%2f\(name)",
                        "/%252e%252e/\(name)", "/%252e%252e%252f\(name)", "/..%5c\(name)", "/..\\\(name)", "/js\\..\\..\\\(name)",
                        "/%c0%ae%c0%ae/\(name)", "/%c0%ae%c0%ae%c0%af\(name)", "/%e0%80%ae%e0%80%ae/\(name)", "/.%2e/\(name)",
                        "/....//\(name)", "/js/..%00/\(name)", "/%00../\(name)", "/index.html%00/../../\(name)",
                        "/js/%2e%2e/%2e%2e/\(name)", "/../../../../../../etc/passwd", "/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd"]
        var closedByTheParser: [String] = []
        for path in attempts {
            let connection = try RawHTTPConnection(port: server.port, timeout: 3)
            connection.send(method: "GET", path: path, headers: ["Connection: close"])
            guard let response = try? connection.readResponse() else {
                // libwebsockets' URI parser refuses some NUL-and-dot-segment mixes outright: the
                // connection closes without a byte.
                XCTAssertTrue(connection.waitForClose(timeout: 3), "\(path): neither answered nor closed")
                closedByTheParser.append(path)
                continue
            }
            XCTAssertTrue([400, 403, 404].contains(response.status), "\(path) → \(response.status)")
            XCTAssertFalse(response.bodyText.contains("TOP-SECRET"), path)
            XCTAssertFalse(response.bodyText.contains("root:x:"), path)
        }
        XCTAssertLessThanOrEqual(closedByTheParser.count, 2, "only NUL tricks are closed unanswered: \(closedByTheParser)")
        try assertViewerReceives()
    }
}
