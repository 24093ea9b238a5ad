import Foundation
import TestSupport
import XCTest
@testable import WebSockets

/// The hooks an application uses to lock its page and socket down: extra headers and an
/// extension allowlist for static files, and a client that can name any `Origin`.
final class WebSocketAccessHooksTests: XCTestCase {
    func testStaticFilesCarryTheConfiguredHeadersAndOnlyAllowedExtensionsAreServed() throws {
        let root = TemporaryDirectory("ws-hooks")
        defer { root.remove() }
        try FileManager.default.createDirectory(atPath: root.path, withIntermediateDirectories: true)
        try "<!doctype html>".write(toFile: root.file("index.html"), atomically: true, encoding: .utf8)
        try "# notes".write(toFile: root.file("README.md"), atomically: true, encoding: .utf8)
        try "x".write(toFile: root.file("LICENSE"), atomically: true, encoding: .utf8)
        let (server, _, port) = try startServer {
            $0.webRoot = root.path
            $0.staticFileHeaders = [HTTPHeaderField(name: "X-Frame-Options", value: "DENY"),
                                    HTTPHeaderField(name: "Content-Security-Policy", value: "default-src 'self'"),
                                    HTTPHeaderField(name: "Bad Name", value: "dropped"),
                                    HTTPHeaderField(name: "X-Injected", value: "a\r\nSet-Cookie: x=1")]
            $0.staticFileExtensions = ["html"]
        }
        defer { server.shutdown() }
        let page = try rawHTTP(port: port, path: "/")
        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(page.bodyText, "<!doctype html>")
        XCTAssertEqual(page.headers["x-frame-options"], "DENY")
        XCTAssertEqual(page.headers["content-security-policy"], "default-src 'self'")
        XCTAssertNil(page.headers["x-injected"], "a value with CR LF is not sent")
        XCTAssertNil(page.headers["set-cookie"])
        XCTAssertEqual(try rawHTTP(port: port, path: "/README.md").status, 404)
        XCTAssertEqual(try rawHTTP(port: port, path: "/LICENSE").status, 404)

        let (open, _, openPort) = try startServer { $0.webRoot = root.path }
        defer { open.shutdown() }
        XCTAssertEqual(try rawHTTP(port: openPort, path: "/README.md").status, 200, "no allowlist: every file")
        XCTAssertNil(try rawHTTP(port: openPort, path: "/").headers["x-frame-options"])
    }

    func testTheClientSendsTheCallersOriginInsteadOfItsOwn() throws {
        let (server, delegate, port) = try startServer()
        defer { server.shutdown() }
        let client = try BlockingWebSocketClient.connect(port: port, subprotocol: testSubprotocol,
                                                         headers: [HTTPHeaderField(name: "Origin", value: "https://pages.example")])
        XCTAssertTrue(eventually { delegate.opened.count == 1 })
        XCTAssertEqual(delegate.upgradeChecks.last?.headers["origin"], "https://pages.example", "exactly one Origin, the caller's")
        XCTAssertEqual(delegate.opened.last?.origin, "https://pages.example")
        client.close()
    }
}
