import XCTest
@testable import ChartCastServer

/// Origins, viewer and metrics tokens, and their options, without sockets.
final class AccessTests: XCTestCase {
    func testOriginsAreNormalised() {
        XCTAssertEqual(OriginPolicy.normalize("https://Example.COM"), "https://example.com")
        XCTAssertEqual(OriginPolicy.normalize("https://example.com:443"), "https://example.com")
        XCTAssertEqual(OriginPolicy.normalize("http://example.com:80/"), "http://example.com")
        XCTAssertEqual(OriginPolicy.normalize("http://127.0.0.1:8080"), "http://127.0.0.1:8080")
        XCTAssertEqual(OriginPolicy.normalize("http://[::1]:8080"), "http://[::1]:8080")
        XCTAssertEqual(OriginPolicy.normalize("https://example.com:80"), "https://example.com:80")
        for bad in ["null", "", "example.com", "ftp://example.com", "http://", "http://example.com/path", "http://a:0",
                    "http://a:65536", "http://a:x", "http://user@a", "http://a?x", "http://a b", "file:///etc/passwd",
                    "http://[::1", "http://[::1]x"] {
            XCTAssertNil(OriginPolicy.normalize(bad), bad)
        }
    }

    func testOwnOriginNoOriginAndAllowedOnesPass() {
        let policy = OriginPolicy(allowing: ["https://dash.example.com"])
        XCTAssertTrue(policy.permits(origin: nil, host: "127.0.0.1:8080"), "programs send no Origin")
        XCTAssertTrue(policy.permits(origin: "http://127.0.0.1:8080", host: "127.0.0.1:8080"))
        XCTAssertTrue(policy.permits(origin: "https://charts.internal", host: "charts.internal:443"))
        XCTAssertTrue(policy.permits(origin: "HTTP://Charts.Internal", host: "charts.internal"))
        XCTAssertTrue(policy.permits(origin: "https://dash.example.com", host: "127.0.0.1:8080"))
        XCTAssertTrue(policy.permits(origin: "https://dash.example.com:443", host: nil))
    }

    func testForeignOriginsAreRefused() {
        let policy = OriginPolicy(allowing: ["https://dash.example.com"])
        for (origin, host) in [("https://evil.example", "127.0.0.1:8080"), ("http://127.0.0.1:8081", "127.0.0.1:8080"),
                               ("http://localhost:8080", "127.0.0.1:8080"), ("null", "127.0.0.1:8080"),
                               ("http://127.0.0.1:8080", nil), ("http://127.0.0.1:8080", ""),
                               ("http://dash.example.com", "127.0.0.1:8080"), ("https://dash.example.com.evil.test", "x"),
                               ("http://a/b", "a/b")] {
            XCTAssertFalse(policy.permits(origin: origin, host: host), "\(origin) to \(host ?? "nil")")
        }
    }

    func testViewerTokenOrWriteTokenFromHeaderOrQuery() {
        let open = ReadAccess(viewerToken: nil, writeToken: "w", metricsToken: nil)
        XCTAssertTrue(open.permitsViewing(authorization: nil, queryToken: nil))
        XCTAssertTrue(open.permitsMetrics(authorization: nil, queryToken: nil))

        let access = ReadAccess(viewerToken: "v-tok", writeToken: "w-tok", metricsToken: nil)
        XCTAssertTrue(access.permitsViewing(authorization: "Bearer v-tok", queryToken: nil))
        XCTAssertTrue(access.permitsViewing(authorization: nil, queryToken: "v-tok"))
        XCTAssertTrue(access.permitsViewing(authorization: "Bearer w-tok", queryToken: nil), "the write token opens reads too")
        XCTAssertTrue(access.permitsViewing(authorization: "Bearer wrong", queryToken: "v-tok"))
        for (header, query) in [(nil, nil), ("Bearer v-to", nil), (nil, "v-tok2"), ("Basic v-tok", nil), (nil, ""),
                                ("v-tok", nil), ("Bearer V-TOK", nil)] as [(String?, String?)] {
            XCTAssertFalse(access.permitsViewing(authorization: header, queryToken: query), "\(header ?? "nil") \(query ?? "nil")")
        }
        XCTAssertTrue(access.permitsMetrics(authorization: nil, queryToken: "v-tok"), "metrics follow the viewer token")
        XCTAssertFalse(access.permitsMetrics(authorization: nil, queryToken: nil))
    }

    func testMetricsTokenAloneOrTogetherWithTheViewerToken() {
        let metricsOnly = ReadAccess(viewerToken: nil, writeToken: nil, metricsToken: "m-tok")
        XCTAssertTrue(metricsOnly.permitsViewing(authorization: nil, queryToken: nil), "reads stay open")
        XCTAssertTrue(metricsOnly.permitsMetrics(authorization: "Bearer m-tok", queryToken: nil))
        XCTAssertFalse(metricsOnly.permitsMetrics(authorization: nil, queryToken: nil))
        XCTAssertFalse(metricsOnly.permitsMetrics(authorization: "Bearer v-tok", queryToken: nil))

        let both = ReadAccess(viewerToken: "v-tok", writeToken: nil, metricsToken: "m-tok")
        XCTAssertTrue(both.permitsMetrics(authorization: nil, queryToken: "m-tok"))
        XCTAssertTrue(both.permitsMetrics(authorization: nil, queryToken: "v-tok"))
        XCTAssertFalse(both.permitsViewing(authorization: "Bearer m-tok", queryToken: nil), "the metrics token opens metrics only")
    }

    func testQueryTokenIsTheTokenParameter() {
        XCTAssertEqual(ReadAccess.queryToken("token=abc"), "abc")
        XCTAssertEqual(ReadAccess.queryToken("dir=rtl&token=a=b"), "a=b")
        XCTAssertEqual(ReadAccess.queryToken("token="), "")
        XCTAssertNil(ReadAccess.queryToken("tokens=abc&xtoken=abc"))
        XCTAssertNil(ReadAccess.queryToken(nil))
    }

    func testAccessOptionsFromFlagsAndEnvironment() throws {
        let environment = ["CHARTCAST_ALLOW_ORIGINS": "https://a.example, http://b.example:8080",
                           "CHARTCAST_VIEWER_TOKEN": "env-v", "CHARTCAST_METRICS_TOKEN": "env-m"]
        guard case .run(let fromEnvironment) = try ServerOptions.parse(arguments: [], environment: environment) else {
            return XCTFail("expected options")
        }
        XCTAssertEqual(fromEnvironment.allowedOrigins, ["https://a.example", "http://b.example:8080"])
        XCTAssertEqual(fromEnvironment.viewerToken, "env-v")
        XCTAssertEqual(fromEnvironment.metricsToken, "env-m")

        let arguments = ["--allow-origin", "https://C.example:443", "--allow-origin=http://d.example", "--viewer-token", "flag-v"]
        guard case .run(let fromFlags) = try ServerOptions.parse(arguments: arguments, environment: environment) else {
            return XCTFail("expected options")
        }
        XCTAssertEqual(fromFlags.allowedOrigins, ["https://c.example", "http://d.example"], "flags replace the environment's list")
        XCTAssertEqual(fromFlags.viewerToken, "flag-v")
        XCTAssertEqual(fromFlags.metricsToken, "env-m")

        let redacted = fromFlags.redacted
        XCTAssertEqual(redacted.viewerToken, "<set>")
        XCTAssertEqual(redacted.metricsToken, "<set>")
        XCTAssertFalse("\(redacted)".contains("flag-v") || "\(redacted)".contains("env-m"))
    }

    func testBadAccessOptionsAreNamed() {
        for (arguments, expected) in [(["--allow-origin", "example.com"], "--allow-origin must be an origin"),
                                      (["--allow-origin", "https://a/path"], "--allow-origin must be an origin"),
                                      (["--viewer-token", ""], "--viewer-token must not be empty"),
                                      (["--viewer-token", "a b"], "--viewer-token must be printable ASCII"),
                                      (["--metrics-token", "tab\t"], "--metrics-token must be printable ASCII")] {
            XCTAssertThrowsError(try ServerOptions.parse(arguments: arguments, environment: [:])) { error in
                XCTAssertTrue("\(error)".hasPrefix(expected), "\(arguments): \(error)")
            }
        }
    }
}
