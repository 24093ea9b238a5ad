import ChartCastServer
import TestSupport
import XCTest
@testable import LoadTesting

/// A short load run over WSS (and publishers over HTTPS) against an in-process ChartCast server
/// with a self-signed certificate made by `openssl`: with `--insecure` every viewer connects and
/// converges and every write is accepted; without it every connection and write is refused.
final class LoadRunTLSIntegrationTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var server: ChartCastServer!
    private var port = 0

    override func setUpWithError() throws {
        directory = TemporaryDirectory("load-tls")
        let certificate = try SelfSignedCertificate(in: directory)
        var options = ServerOptions(host: "127.0.0.1", port: 0, webRoot: nil, tick: 0.2, window: 60, logLevel: .error)
        options.tlsCertificate = certificate.certificatePath
        options.tlsPrivateKey = certificate.privateKeyPath
        server = ChartCastServer(options: options)
        port = try server.start()
    }

    override func tearDown() {
        server.shutdown()
        server = nil
        directory.remove()
    }

    func testShortLoadRunOverWSSConverges() throws {
        var options = try LoadOptions.parse(["--url", "wss://127.0.0.1:\(port)/ws", "--insecure", "--viewers", "100",
                                             "--drivers", "2", "--rate", "20", "--duration", "2", "--ramp", "0.5",
                                             "--pattern", "mixed", "--settle", "10", "--quiet"])
        options.idleTime = 0.1
        let report = try LoadRunner(options: options).run()
        XCTAssertEqual(report.counters.failed, 0, "failed connections: \(report.failures)")
        XCTAssertEqual(report.counters.dropped, 0)
        XCTAssertEqual(report.counters.ready, 102, "every viewer got welcome and snapshots over WSS")
        XCTAssertGreaterThan(report.counters.pointersSent, 0)
        XCTAssertGreaterThan(report.fanout.count, 0, "selections came back over WSS")
        XCTAssertTrue(report.convergence.converged, "\(report.failures)")
        XCTAssertTrue(report.succeeded, "\(report.failures)")
        XCTAssertTrue(report.table.contains("wss://127.0.0.1:\(port)/ws"), "the report names the secure URL")
    }

    func testPublishersWriteOverHTTPSWhileViewersWatchOverWSS() throws {
        var options = try LoadOptions.parse(["--url", "wss://127.0.0.1:\(port)/ws", "--insecure", "--viewers", "20",
                                             "--drivers", "1", "--rate", "10", "--duration", "2", "--ramp", "0.2",
                                             "--publishers", "2", "--points-per-second", "20000", "--batch-points", "500",
                                             "--settle", "10", "--quiet"])
        options.idleTime = 0.1
        let report = try LoadRunner(options: options).run()
        let ingest = try XCTUnwrap(report.ingest)
        XCTAssertEqual(ingest.failures, 0, ingest.firstFailure ?? "")
        XCTAssertGreaterThan(ingest.batches, 10, "publishers kept writing over HTTPS")
        XCTAssertGreaterThan(ingest.pointsAccepted, 5_000)
        XCTAssertGreaterThan(ingest.toViewer.count, 0, "written batches reached viewers over WSS")
        XCTAssertTrue(report.succeeded, "\(report.failures)")
    }

    func testVerifyingHTTPClientRefusesTheSelfSignedCertificate() throws {
        let client = HTTPClient(host: "127.0.0.1", port: port, tls: .verified)
        XCTAssertThrowsError(try client.request("GET", "/healthz")) { error in
            XCTAssertTrue("\(error)".contains("TLS handshake with 127.0.0.1 failed: self-signed certificate"), "\(error)")
        }
        let insecure = HTTPClient(host: "127.0.0.1", port: port, tls: .insecure)
        let answer = try insecure.request("GET", "/healthz")
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(String(decoding: answer.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), "ok")
        XCTAssertEqual(try insecure.request("GET", "/healthz").status, 200, "the TLS connection is kept alive")
    }

    func testLoadRunWithoutInsecureIsRefusedTheSelfSignedCertificate() throws {
        var options = try LoadOptions.parse(["--url", "wss://127.0.0.1:\(port)/ws", "--viewers", "5", "--drivers", "0",
                                             "--duration", "0", "--ramp", "0", "--connect-timeout", "5", "--quiet"])
        options.idleTime = 0
        let report = try LoadRunner(options: options).run()
        XCTAssertEqual(report.counters.ready, 0, "no viewer got through an unverified handshake")
        XCTAssertEqual(report.counters.failed, 5)
        XCTAssertFalse(report.succeeded)
    }
}
