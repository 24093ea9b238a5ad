import ChartCastProtocol
import ChartEngine
import TestSupport
import Foundation
import XCTest

/// The HTTP side of the shared port: health, chart specs, metrics, the page, and traversal.
final class HTTPIntegrationTests: XCTestCase {
    private var webRoot: URL!

    override func setUpWithError() throws {
        webRoot = FileManager.default.temporaryDirectory.appendingPathComponent("chartcast-web-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: webRoot.appendingPathComponent("js"), withIntermediateDirectories: true)
        try "<!doctype html><title>ChartCast test page</title>".write(to: webRoot.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        try "export const answer = 42;\n".write(to: webRoot.appendingPathComponent("js/app.js"), atomically: true, encoding: .utf8)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: webRoot) }

    func testHealthzAnswersOK() throws {
        let server = try TestServer()
        let response = try rawHTTP(port: server.port, path: "/healthz")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), "ok")
    }

    func testApiChartsListsTheFiveSpecs() throws {
        let server = try TestServer()
        let response = try rawHTTP(port: server.port, path: "/api/charts")
        XCTAssertEqual(response.status, 200)
        XCTAssertTrue(response.headers["content-type"]?.contains("application/json") ?? false)
        let specs = try ChartSpec.decodeList(response.body)
        XCTAssertEqual(specs.map(\.id), ["workouts", "intake", "expenses", "sales", "temperature"])
        XCTAssertEqual(specs[4].interactions.tap, true)
        XCTAssertEqual(specs, try XCTUnwrap(server.viewer().welcome?.charts), "the same specs as welcome")
    }

    func testMetricsAreInPrometheusTextFormat() throws {
        let server = try TestServer()
        let viewer = try server.viewer()
        let text = String(decoding: try rawHTTP(port: server.port, path: "/metrics").body, as: UTF8.self)
        withExtendedLifetime(viewer) {}
        XCTAssertTrue(text.contains("# TYPE chartcast_viewers gauge\nchartcast_viewers 1\n"), text)
        XCTAssertTrue(text.contains("chartcast_errors_total{code=\"bad_json\"} 0"))
        XCTAssertTrue(text.contains("chartcast_event_to_write_seconds_bucket{le=\"+Inf\"}"))
        let framesOut = text.split(separator: "\n").first { $0.hasPrefix("chartcast_frames_out_total ") }
            .flatMap { Int($0.split(separator: " ")[1]) }
        XCTAssertGreaterThanOrEqual(framesOut ?? 0, 6, "welcome + five snapshots at least")
    }

    func testServesStaticFilesWithContentTypes() throws {
        let server = try TestServer(webRoot: webRoot.path)
        let index = try rawHTTP(port: server.port, path: "/")
        XCTAssertEqual(index.status, 200)
        XCTAssertTrue(index.headers["content-type"]?.contains("text/html") ?? false)
        XCTAssertTrue(String(decoding: index.body, as: UTF8.self).contains("ChartCast test page"))
        let script = try rawHTTP(port: server.port, path: "/js/app.js")
        XCTAssertEqual(script.status, 200)
        XCTAssertTrue(script.headers["content-type"]?.contains("javascript") ?? false)
        XCTAssertEqual(try rawHTTP(port: server.port, path: "/missing.js").status, 404)
    }

    func testTraversalOutsideTheWebRootIsRefused() throws {
        // A secret next to the web root that a traversal would reach.
        let secret = webRoot.deletingLastPathComponent().appendingPathComponent("chartcast-secret.txt")
        try "TOP-SECRET".write(to: secret, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: secret) }
        let server = try TestServer(webRoot: webRoot.path)
        let attempts = ["/../chartcast-secret.txt", "/js/../../chartcast-secret.txt", "/%2e%2e/chartcast-secret.txt",
                        "/%2E%2E%2Fchartcast-secret.txt", "/..%2fchartcast-secret.txt", "/js/%2e%2e/%2e%2e/chartcast-secret.txt",
                        "/..\\chartcast-secret.txt", "/%252e%252e/chartcast-secret.txt", "/js/..%00/app.js",
                        "/../../../../etc/passwd"]
        for path in attempts {
            let response = try rawHTTP(port: server.port, path: path)
            XCTAssertTrue([400, 403, 404].contains(response.status), "\(path) → \(response.status)")
            XCTAssertFalse(String(decoding: response.body, as: UTF8.self).contains("TOP-SECRET"), path)
            XCTAssertFalse(String(decoding: response.body, as: UTF8.self).contains("root:x:"), path)
        }
    }

    /// A WebSocket handshake offering permessage-deflate; returns the response head.
    private func handshake(port: Int) throws -> RawHTTPResponse {
        try rawHTTP(port: port, path: "/ws", extraHeaders: [
            "Connection: Upgrade", "Upgrade: websocket", "Sec-WebSocket-Version: 13",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Protocol: chartcast.v1",
            "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits"])
    }

    func testPermessageDeflateIsOffByDefaultAndOnWithTheFlag() throws {
        let plain = try TestServer()
        let refused = try handshake(port: plain.port)
        XCTAssertEqual(refused.status, 101)
        XCTAssertEqual(refused.headers["sec-websocket-protocol"], "chartcast.v1")
        XCTAssertNil(refused.headers["sec-websocket-extensions"])
        let compressing = try TestServer(deflate: true)
        let accepted = try handshake(port: compressing.port)
        XCTAssertEqual(accepted.status, 101)
        XCTAssertTrue(accepted.headers["sec-websocket-extensions"]?.hasPrefix("permessage-deflate") ?? false)
    }
}
