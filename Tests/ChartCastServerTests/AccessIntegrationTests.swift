import ChartCastProtocol
import ChartCastServer
import Foundation
import TestSupport
import WebSockets
import XCTest

/// Origins, the viewer and metrics tokens, and the page's security headers, against the real
/// server through real sockets: the project's lws client (which can name any `Origin`) and raw
/// HTTP.
final class AccessIntegrationTests: XCTestCase {
    private func handshake(path: String = "/ws", headers: [String] = []) -> [UInt8] {
        rawRequestBytes(method: "GET", path: path, headers: [
            "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Version: 13",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Protocol: \(ChartCastServer.subprotocol)",
        ] + headers)
    }

    /// The status of a raw handshake, and the response.
    private func rawHandshake(_ port: Int, path: String = "/ws", headers: [String] = []) throws -> RawHTTPResponse {
        let connection = try RawHTTPConnection(port: port)
        connection.send(handshake(path: path, headers: headers))
        return try connection.readResponse(bodyless: false)
    }

    private func errorCode(_ response: RawHTTPResponse) -> String? {
        (try? APIBody.decodeFailure(response.body))?.code
    }

    func testAForeignOriginIsRefusedWith403BeforeTheUpgradeAndOthersConnect() throws {
        let server = try TestServer { $0.allowedOrigins = ["https://dash.example.com"] }
        let honest = try server.viewer()   // the lws client names the server's own origin

        XCTAssertThrowsError(try server.viewer(headers: [HTTPHeaderField(name: "Origin", value: "https://evil.example")]),
                             "a page from another origin gets no socket")
        XCTAssertThrowsError(try server.viewer(headers: [HTTPHeaderField(name: "Origin", value: "http://127.0.0.1:\(server.port + 1)")]),
                             "another port is another origin")
        let allowed = try server.viewer(headers: [HTTPHeaderField(name: "Origin", value: "https://dash.example.com")])
        XCTAssertNotNil(allowed.welcome)

        let refusal = try rawHandshake(server.port, headers: ["Origin: https://evil.example"])
        XCTAssertEqual(refusal.status, 403)
        XCTAssertEqual(errorCode(refusal), "forbidden", "the contract's code for an origin not allowed")
        XCTAssertTrue(refusal.bodyText.contains(#"origin \"https://evil.example\" may not"#), refusal.bodyText)
        XCTAssertNil(refusal.headers["upgrade"])
        XCTAssertEqual(try rawHandshake(server.port, headers: ["Origin: null"]).status, 403, "sandboxed and file: pages send null")
        XCTAssertEqual(try rawHandshake(server.port).status, 101, "no Origin: a program, allowed")
        XCTAssertEqual(try rawHandshake(server.port, headers: ["Origin: http://127.0.0.1"]).status, 101,
                       "the request's own Host is the server's origin")

        let metrics = try server.request("GET", "/metrics").bodyText
        XCTAssertTrue(metrics.contains("chartcast_handshakes_refused_total{reason=\"origin\"} 4"), metrics)
        // The honest viewer was never disturbed.
        honest.hello("Honest")
        XCTAssertNotNil(try honest.viewers { $0.viewers.contains { $0.name == "Honest" } })
    }

    func testTheViewerTokenGuardsTheSocketAndTheAPIReads() throws {
        let server = try TestServer(writeToken: "w-tok") { $0.viewerToken = "v-tok" }
        XCTAssertThrowsError(try server.viewer(), "no token, no socket")
        XCTAssertThrowsError(try TestViewer(port: server.port, path: "/ws?token=wrong"))
        XCTAssertNotNil(try TestViewer(port: server.port, path: "/ws?token=v-tok").welcome)
        XCTAssertNotNil(try server.viewer(headers: [HTTPHeaderField(name: "Authorization", value: "Bearer v-tok")]).welcome)
        XCTAssertNotNil(try server.viewer(headers: [HTTPHeaderField(name: "Authorization", value: "Bearer w-tok")]).welcome,
                        "the write token opens everything the viewer token does")

        let refused = try rawHandshake(server.port)
        XCTAssertEqual(refused.status, 401)
        XCTAssertEqual(errorCode(refused), "unauthorized")
        XCTAssertEqual(try rawHandshake(server.port, headers: ["Origin: https://evil.example"]).status, 403,
                       "the origin is checked first")

        for path in ["/api/charts", "/api/dashboard", "/api/charts/cpu", "/api/charts/cpu/selection", "/api/charts/cpu/points",
                     "/api/nothing-here"] {
            let response = try server.request("GET", path)
            XCTAssertEqual(response.status, 401, path)
            XCTAssertEqual(errorCode(response), "unauthorized", path)
            XCTAssertEqual(response.headers["www-authenticate"], "Bearer realm=\"chartcast\"", path)
            XCTAssertEqual(try server.request("HEAD", path).status, 401, path)
        }
        XCTAssertEqual(try server.request("GET", "/api/charts?token=v-tok").status, 200)
        XCTAssertEqual(try server.request("GET", "/api/charts", headers: ["Authorization: Bearer v-tok"]).status, 200)
        XCTAssertEqual(try server.request("GET", "/api/charts?token=V-TOK").status, 401)
        XCTAssertEqual(try server.request("GET", "/healthz").status, 200, "/healthz stays public")
        XCTAssertEqual(try server.request("GET", "/metrics").status, 401, "/metrics follows the viewer token")
        XCTAssertEqual(try server.request("GET", "/metrics?token=v-tok").status, 200)
        // Writes keep their own rule: the write token.
        XCTAssertEqual(try server.request("DELETE", "/api/charts/cpu", headers: ["Authorization: Bearer v-tok"]).status, 401)
        let metrics = try server.request("GET", "/metrics", headers: ["Authorization: Bearer w-tok"]).bodyText
        XCTAssertTrue(metrics.contains("chartcast_handshakes_refused_total{reason=\"token\"} 3"), metrics)
    }

    func testTheMetricsTokenAloneGuardsOnlyMetrics() throws {
        let server = try TestServer { $0.metricsToken = "m-tok" }
        XCTAssertEqual(try server.request("GET", "/metrics").status, 401)
        XCTAssertEqual(try server.request("GET", "/metrics", headers: ["Authorization: Bearer nope"]).status, 401)
        XCTAssertEqual(try server.request("GET", "/metrics", headers: ["Authorization: Bearer m-tok"]).status, 200)
        XCTAssertEqual(try server.request("GET", "/metrics?token=m-tok").status, 200)
        XCTAssertEqual(try server.request("GET", "/api/charts").status, 200, "reads stay open without a viewer token")
        XCTAssertNotNil(try server.viewer().welcome)

        let both = try TestServer { $0.metricsToken = "m-tok"; $0.viewerToken = "v-tok" }
        XCTAssertEqual(try both.request("GET", "/metrics?token=m-tok").status, 200)
        XCTAssertEqual(try both.request("GET", "/metrics?token=v-tok").status, 200)
        XCTAssertEqual(try both.request("GET", "/api/charts?token=m-tok").status, 401)
    }

    func testThePageIsServedWithSecurityHeadersAndItsReadmeIsNot() throws {
        let root = TemporaryDirectory("access-web")
        defer { root.remove() }
        try FileManager.default.createDirectory(atPath: root.file("js"), withIntermediateDirectories: true)
        try "<!doctype html><title>t</title>".write(toFile: root.file("index.html"), atomically: true, encoding: .utf8)
        try "export const a = 1;\n".write(toFile: root.file("js/app.js"), atomically: true, encoding: .utf8)
        try "body {}\n".write(toFile: root.file("style.css"), atomically: true, encoding: .utf8)
        try "# notes\n".write(toFile: root.file("README.md"), atomically: true, encoding: .utf8)
        try "x\n".write(toFile: root.file("Makefile"), atomically: true, encoding: .utf8)
        let server = try TestServer(webRoot: root.path) { $0.viewerToken = "v-tok" }

        for path in ["/", "/index.html", "/js/app.js", "/style.css"] {
            let response = try server.request("GET", path)
            XCTAssertEqual(response.status, 200, "\(path): static files stay public with a viewer token")
            let csp = response.headers["content-security-policy"] ?? ""
            XCTAssertTrue(csp.contains("default-src 'self'"), "\(path): \(csp)")
            XCTAssertTrue(csp.contains("connect-src 'self'"), "\(path): \(csp)")
            XCTAssertTrue(csp.contains("frame-ancestors 'none'"), "\(path): \(csp)")
            XCTAssertEqual(response.headers["x-content-type-options"], "nosniff", path)
            XCTAssertEqual(response.headers["x-frame-options"], "DENY", path)
            XCTAssertEqual(response.headers["referrer-policy"], "no-referrer", path)
        }
        XCTAssertEqual(try server.request("GET", "/js/app.js").headers["content-type"], "text/javascript; charset=utf-8")
        for path in ["/README.md", "/readme.md", "/Makefile", "/%52EADME.md"] {
            XCTAssertEqual(try server.request("GET", path).status, 404, path)
        }
    }

    func testTheReleaseBinaryTakesTheFlagsAndNeverLogsTheTokens() throws {
        let launched = try LaunchedServer(["--port", "0", "--log-level", "debug", "--viewer-token", "viewer-secret-1",
                                           "--metrics-token", "metrics-secret-2", "--allow-origin", "https://dash.example.com"],
                                          environment: ["CHARTCAST_WRITE_TOKEN": "write-secret-3"])
        let port = try launched.waitForPort()
        XCTAssertThrowsError(try TestViewer(port: port))
        XCTAssertThrowsError(try TestViewer(port: port, path: "/ws?token=viewer-secret-9"))
        let viewer = try TestViewer(port: port, headers: [HTTPHeaderField(name: "Origin", value: "https://dash.example.com")],
                                    path: "/ws?token=viewer-secret-1")
        XCTAssertNotNil(viewer.welcome)
        XCTAssertThrowsError(try TestViewer(port: port, headers: [HTTPHeaderField(name: "Origin", value: "https://evil.example")],
                                            path: "/ws?token=viewer-secret-1"))
        XCTAssertEqual(try rawHTTP(port: port, path: "/api/charts?token=viewer-secret-1").status, 200)
        XCTAssertEqual(try rawHTTP(port: port, path: "/api/charts?token=metrics-secret-2").status, 401)
        XCTAssertEqual(try rawHTTP(port: port, path: "/metrics", extraHeaders: ["Authorization: Bearer metrics-secret-2"]).status, 200)
        XCTAssertEqual(try rawHTTP(port: port, path: "/metrics?token=write-secret-3").status, 200)
        viewer.client.close()
        launched.stop()
        let log = launched.finish().stderr
        XCTAssertTrue(log.contains("origin \"https://evil.example\" is not allowed"), log)
        for secret in ["viewer-secret", "metrics-secret", "write-secret"] {
            XCTAssertFalse(log.contains(secret), "the log shows \(secret): \(log)")
        }
    }
}
