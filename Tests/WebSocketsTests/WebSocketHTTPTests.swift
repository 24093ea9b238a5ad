import Foundation
import TestSupport
import XCTest
@testable import WebSockets

final class WebSocketHTTPTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("ws-http-\(UUID().uuidString)")
        let www = root.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www.appendingPathComponent("js"), withIntermediateDirectories: true)
        try "<!doctype html><title>Test page</title>".write(to: www.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        try "export const x = 1;".write(to: www.appendingPathComponent("js/app.mjs"), atomically: true, encoding: .utf8)
        try "body{margin:0}".write(to: www.appendingPathComponent("style.css"), atomically: true, encoding: .utf8)
        try "TOP-SECRET".write(to: root.appendingPathComponent("secret.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(at: www.appendingPathComponent("escape.txt"),
                                                   withDestinationURL: root.appendingPathComponent("secret.txt"))
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    private func startFileServer() throws -> (WebSocketServer, Int) {
        let (server, _, port) = try startServer { $0.webRoot = self.root.appendingPathComponent("www").path }
        return (server, port)
    }

    func testDelegateAnswersHTTPGet() throws {
        let (server, port) = try startFileServer()
        defer { server.shutdown() }
        let health = try rawHTTP(port: port, path: "/healthz")
        XCTAssertEqual(health.status, 200)
        XCTAssertEqual(health.bodyText, "ok")
        XCTAssertEqual(health.headers["content-type"], "text/plain; charset=utf-8")

        let echo = try rawHTTP(port: port, path: "/api/echo?chart=sales&n=2")
        XCTAssertEqual(echo.status, 200)
        XCTAssertEqual(echo.headers["content-type"], "application/json")
        XCTAssertEqual(echo.bodyText, "{\"method\":\"GET\",\"query\":\"chart=sales&n=2\"}")

        let teapot = try rawHTTP(port: port, path: "/teapot")
        XCTAssertEqual(teapot.status, 418)
        XCTAssertEqual(teapot.bodyText, "short and stout")
    }

    func testLargeDynamicBodyIsWrittenInChunks() throws {
        let (server, port) = try startFileServer()
        defer { server.shutdown() }
        let big = try rawHTTP(port: port, path: "/api/big")
        XCTAssertEqual(big.status, 200)
        XCTAssertEqual(big.body.count, 100_000)
        XCTAssertTrue(big.body == (0..<100_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
    }

    func testStaticFilesAreServedWithContentTypes() throws {
        let (server, port) = try startFileServer()
        defer { server.shutdown() }
        let index = try rawHTTP(port: port, path: "/")
        XCTAssertEqual(index.status, 200)
        XCTAssertEqual(index.bodyText, "<!doctype html><title>Test page</title>")
        XCTAssertEqual(index.headers["content-type"], "text/html; charset=utf-8")

        let module = try rawHTTP(port: port, path: "/js/app.mjs")
        XCTAssertEqual(module.status, 200)
        XCTAssertEqual(module.headers["content-type"], "text/javascript; charset=utf-8")
        XCTAssertEqual(module.bodyText, "export const x = 1;")

        let css = try rawHTTP(port: port, path: "/style.css")
        XCTAssertEqual(css.headers["content-type"], "text/css; charset=utf-8")

        XCTAssertEqual(try rawHTTP(port: port, path: "/missing.js").status, 404)
    }

    func testPathTraversalIsRefused() throws {
        let (server, port) = try startFileServer()
        defer { server.shutdown() }
        let attempts = [
            "/../secret.txt", "/%2e%2e/secret.txt", "/..%2fsecret.txt", "/%2e%2e%2fsecret.txt",
            "/js/../../secret.txt", "/%252e%252e/secret.txt", "/..%5csecret.txt", "/js/..\\..\\secret.txt",
            "/secret.txt%00.html", "/escape.txt", "/.%2e/secret.txt", "/%2E%2E/%2E%2E/secret.txt",
        ]
        for path in attempts {
            // libwebsockets itself drops some malformed requests (a NUL escape)
            // without answering; that is a refusal too.
            guard let response = try? rawHTTP(port: port, path: path) else { continue }
            XCTAssertTrue([400, 403, 404].contains(response.status), "\(path) → \(response.status)")
            XCTAssertFalse(response.bodyText.contains("TOP-SECRET"), "\(path) leaked the file")
        }
        // The server is still healthy afterwards.
        XCTAssertEqual(try rawHTTP(port: port, path: "/healthz").status, 200)
    }

    func testDelegateSeesThePathLibwebsocketsParsed() throws {
        let (server, delegate, port) = try startServer()
        defer { server.shutdown() }
        for path in ["/api/%65cho?q=%41", "/x/../api/echo", "/a%20b", "//api//echo"] {
            _ = try? rawHTTP(port: port, path: path)
        }
        // Percent-escapes decoded, dot segments and double slashes resolved.
        XCTAssertEqual(delegate.httpPaths, ["/api/echo?q=A", "/api/echo", "/a b", "/api/echo"])
    }

    func testKeepAliveServesSeveralRequestsOnOneConnection() throws {
        let (server, port) = try startFileServer()
        defer { server.shutdown() }
        let fd = try loopbackSocket(port: port, timeout: 2)
        defer { close(fd) }
        // A dynamic response, a static file, then a dynamic one again, on one socket.
        for (path, expected) in [("/healthz", "ok"), ("/style.css", "body{margin:0}"), ("/healthz", "ok")] {
            let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
            _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            var data: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !String(decoding: data, as: UTF8.self).hasSuffix(expected) {
                let n = recv(fd, &buffer, buffer.count, 0)
                if n <= 0 { break }
                data.append(contentsOf: buffer[0..<n])
            }
            let text = String(decoding: data, as: UTF8.self)
            XCTAssertTrue(text.hasPrefix("HTTP/1.1 200"), "\(path): \(text)")
            XCTAssertTrue(text.hasSuffix("\r\n\r\n" + expected), "\(path): \(text)")
        }
    }

    func testOtherMethodsOnStaticFilesGet405WithAllowAndAWholeBody() throws {
        let (server, port) = try startFileServer()
        defer { server.shutdown() }
        let connection = try RawHTTPConnection(port: port)
        for (method, body) in [("POST", Array("hello".utf8)), ("PUT", []), ("DELETE", []), ("OPTIONS", [])] as [(String, [UInt8])] {
            connection.send(method: method, path: "/index.html", headers: ["Content-Length: \(body.count)"], body: body)
            let refused = try connection.readResponse()
            XCTAssertEqual(refused.status, 405, method)
            XCTAssertEqual(refused.headers["allow"], "GET, HEAD", method)
            XCTAssertEqual(refused.headers["content-length"], String(refused.body.count), method)
            XCTAssertEqual(refused.bodyText, "method not allowed\n", method)
        }
        // The bodies were read: the connection serves the page next.
        connection.send(method: "GET", path: "/index.html")
        XCTAssertEqual(try connection.readResponse().bodyText, "<!doctype html><title>Test page</title>")
        connection.send(method: "HEAD", path: "/style.css")
        let head = try connection.readResponse(bodyless: true)
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.headers["content-length"], "14")
        connection.send(method: "GET", path: "/healthz")
        XCTAssertEqual(try connection.readResponse().bodyText, "ok", "no stray bytes after the HEAD")
    }

    func testHeadGetsHeadersWithoutBody() throws {
        let (server, port) = try startFileServer()
        defer { server.shutdown() }
        let head = try rawHTTP(port: port, method: "HEAD", path: "/healthz")
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.headers["content-length"], "2")
        XCTAssertTrue(head.body.isEmpty)
    }

    func testTheServerHeaderIsTheConfiguredName() throws {
        let (named, _, port) = try startServer { $0.serverName = "test-server/1"; $0.vhostName = "tests" }
        defer { named.shutdown() }
        XCTAssertEqual(try rawHTTP(port: port, path: "/healthz").headers["server"], "test-server/1")
        let (plain, _, plainPort) = try startServer()
        defer { plain.shutdown() }
        XCTAssertNil(try rawHTTP(port: plainPort, path: "/healthz").headers["server"], "no name, no header")
    }

    func testNoWebRootMeans404AndOtherMethodsGet405() throws {
        let (server, _, port) = try startServer()
        defer { server.shutdown() }
        XCTAssertEqual(try rawHTTP(port: port, path: "/index.html").status, 404)
        let refused = try rawHTTP(port: port, method: "DELETE", path: "/index.html")
        XCTAssertEqual(refused.status, 405)
        XCTAssertEqual(refused.headers["allow"], "GET, HEAD")
        XCTAssertEqual(refused.bodyText, "method not allowed\n")
    }
}
