import WebSockets
import XCTest
@testable import LoadTesting

final class LoadOptionsTests: XCTestCase {
    func testParsesEveryOption() throws {
        let o = try LoadOptions.parse(["--url", "ws://10.0.0.2:9000/ws", "--viewers", "5000", "--drivers=3", "--rate", "60",
                                       "--duration", "2.5", "--ramp", "0", "--pattern", "range", "--json", "/tmp/x.json",
                                       "--server-pid", "42", "--stalled", "1", "--settle", "3", "--quiet"])
        XCTAssertEqual(o.url, LoadURL(host: "10.0.0.2", port: 9000, path: "/ws"))
        XCTAssertEqual(o.viewers, 5000)
        XCTAssertEqual(o.drivers, 3)
        XCTAssertEqual(o.rate, 60)
        XCTAssertEqual(o.duration, 2.5)
        XCTAssertEqual(o.ramp, 0)
        XCTAssertEqual(o.pattern, .range)
        XCTAssertEqual(o.jsonPath, "/tmp/x.json")
        XCTAssertEqual(o.serverPID, 42)
        XCTAssertEqual(o.stalledViewers, 1)
        XCTAssertFalse(o.progress)
        XCTAssertEqual(o.target, .chartcast)
        XCTAssertEqual(o.subprotocol, "chartcast.v1")
        XCTAssertEqual(o.connectionCount, 5003)
    }

    func testSeveralURLsSpreadConnectionsOverThem() throws {
        let o = try LoadOptions.parse(["--url", "ws://127.0.0.1:8080/ws", "--url", "ws://127.0.0.1:8081/ws", "--url=ws://10.0.0.3:8082/ws",
                                       "--drivers", "2", "--viewers", "4"])
        XCTAssertEqual(o.urls.map(\.port), [8080, 8081, 8082])
        XCTAssertEqual(o.url.port, 8080, "the first is the one server figures are taken from")
        XCTAssertEqual((0..<6).map { o.url(for: $0).port }, [8080, 8081, 8082, 8080, 8081, 8082])
        XCTAssertEqual(try LoadOptions.parse([]).urls, [LoadURL(host: "127.0.0.1", port: 8080, path: "/ws")], "one default")
        XCTAssertThrowsError(try LoadOptions.parse(["--url", "ws://a:1/", "--url", "wss://b:2/"])) { error in
            XCTAssertEqual("\(error)", "--url: every URL is ws:// or every one wss://")
        }
        XCTAssertThrowsError(try LoadOptions.parse(["--mirror", "--url", "ws://a:1/", "--url", "ws://b:2/"]))
    }

    func testMirrorModeDefaultsToTheTestServerPortAndProtocol() throws {
        let o = try LoadOptions.parse(["--mirror", "--message-size", "512"])
        XCTAssertEqual(o.target, .mirror)
        XCTAssertEqual(o.url, LoadURL(host: "127.0.0.1", port: 7681, path: "/"))
        XCTAssertEqual(o.subprotocol, "lws-mirror-protocol")
        XCTAssertEqual(o.messageSize, 512)
        let explicit = try LoadOptions.parse(["--url", "ws://127.0.0.1:9999/", "--mirror"])
        XCTAssertEqual(explicit.url.port, 9999, "an explicit --url wins over the mirror default")
    }

    func testRejectsBadInput() {
        for args in [["--viewers", "-1"], ["--rate", "0"], ["--pattern", "zigzag"], ["--url", "http://x/"], ["--url", "ws://h:0/"],
                     ["--bogus"], ["--viewers"], ["--stalled", "5", "--viewers", "2"], ["--viewers", "0", "--drivers", "0"],
                     ["--message-size", "10"]] {
            XCTAssertThrowsError(try LoadOptions.parse(args), "\(args)")
        }
    }

    func testURLDefaults() {
        XCTAssertEqual(LoadURL("ws://example.org"), LoadURL(host: "example.org", port: 80, path: "/"))
        XCTAssertEqual(LoadURL("ws://[::1]:8080/ws")?.port, 8080)
        XCTAssertNil(LoadURL("ws://:80/"))
    }

    func testSecureURLsAndInsecure() throws {
        XCTAssertEqual(LoadURL("wss://example.org"), LoadURL(host: "example.org", port: 443, path: "/", tls: true))
        XCTAssertEqual(LoadURL("wss://127.0.0.1:8443/ws")?.description, "wss://127.0.0.1:8443/ws")
        XCTAssertEqual(LoadURL("ws://127.0.0.1:8080/ws")?.tls, false)
        XCTAssertNil(LoadURL("wss://:443/"))
        XCTAssertNil(LoadURL("https://example.org/"))

        let verified = try LoadOptions.parse(["--url", "wss://10.0.0.2:8443/ws"])
        XCTAssertEqual(verified.url, LoadURL(host: "10.0.0.2", port: 8443, path: "/ws", tls: true))
        XCTAssertEqual(verified.tls, .verified, "wss:// verifies the certificate unless told otherwise")
        let insecure = try LoadOptions.parse(["--url=wss://127.0.0.1:8443/ws", "--insecure"])
        XCTAssertTrue(insecure.insecure)
        XCTAssertEqual(insecure.tls, .insecure)
        XCTAssertEqual(try LoadOptions.parse([]).tls, .off)

        XCTAssertThrowsError(try LoadOptions.parse(["--insecure"])) {
            XCTAssertEqual("\($0)", "--insecure needs a wss:// URL")
        }
        let publishing = try LoadOptions.parse(["--url", "wss://127.0.0.1:8443/ws", "--insecure", "--publishers", "2"])
        XCTAssertEqual(publishing.publishers, 2, "publishers write over https:// with the same --insecure")
        XCTAssertEqual(publishing.tls, .insecure)
        XCTAssertTrue(LoadOptions.usage.contains("--insecure"))
        XCTAssertTrue(LoadOptions.usage.contains("wss://"))
    }

    /// A choice of names (`--pattern`, `--client`, the soak's `--client`, the floor's `--wake`)
    /// refused with every name it takes.
    func testAnUnknownChoiceIsRefusedNamingEveryOneItTakes() {
        XCTAssertThrowsError(try LoadOptions.parse(["--pattern", "zigzag"])) {
            XCTAssertEqual("\($0)", "--pattern: expected hover, scrub, range or mixed, got zigzag")
        }
        XCTAssertThrowsError(try SoakOptions.parse(["--client", "curl"])) {
            XCTAssertEqual("\($0)", "--client: expected raw or lws, got curl")
        }
        XCTAssertEqual(try LoadOptions.parse(["--pattern=range"]).pattern, .range)
    }

    func testTheClientIsTheRawOneForWSAndLibwebsocketsForWSS() throws {
        XCTAssertEqual(try LoadOptions.parse([]).clientKind, .raw)
        XCTAssertEqual(try LoadOptions.parse(["--url", "wss://127.0.0.1:8443/ws"]).clientKind, .lws)
        XCTAssertEqual(try LoadOptions.parse(["--client", "lws"]).clientKind, .lws)
        XCTAssertEqual(try LoadOptions.parse(["--client=raw"]).clientKind, .raw)
        XCTAssertThrowsError(try LoadOptions.parse(["--client", "curl"])) {
            XCTAssertEqual("\($0)", "--client: expected raw or lws, got curl")
        }
        XCTAssertThrowsError(try LoadOptions.parse(["--url", "wss://127.0.0.1:8443/ws", "--client", "raw"])) {
            XCTAssertEqual("\($0)", "--client raw speaks ws:// only; use --client lws for wss://")
        }
        XCTAssertEqual(try SoakOptions.parse(["--client", "lws"]).clientKind, .lws)
        XCTAssertEqual(try SoakOptions.parse([]).clientKind, .raw)
        XCTAssertTrue(LoadOptions.usage.contains("--client raw|lws"))
    }
}

final class FormatTests: XCTestCase {
    func testFixedDecimals() {
        XCTAssertEqual(Format.fixed(103, 0), "103")
        XCTAssertEqual(Format.fixed(2.5, 2), "2.50")
        XCTAssertEqual(Format.fixed(0.004, 2), "0.00")
        XCTAssertEqual(Format.fixed(-1.25, 1), "-1.3")
        XCTAssertEqual(Format.fixed(7.049, 2), "7.05")
        XCTAssertEqual(Format.fixed(.nan, 2), "-")
    }

    func testBytes() {
        XCTAssertEqual(Format.bytes(512), "512 B")
        XCTAssertEqual(Format.bytes(5 * 1024), "5.0 KiB")
        XCTAssertEqual(Format.bytes(3 * 1_048_576 / 2), "1.5 MiB")
    }
}
