import ChartCastIngest
import ChartCastProtocol
import ChartEngine
import ChartCastServer
import Foundation
import TestSupport
import WebSockets
import XCTest

/// ChartCast over TLS (`--tls-cert` / `--tls-key`): the page, the API and protocol v1 on one
/// HTTPS + WSS port with a self-signed certificate made by `openssl` at run time; the real
/// binary refuses certificates and keys it cannot use, naming the file, with exit status 1.
final class TLSIntegrationTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var certificate: SelfSignedCertificate!

    override func setUpWithError() throws {
        directory = TemporaryDirectory("tls-server")
        certificate = try SelfSignedCertificate(in: directory)
    }

    override func tearDown() {
        directory.remove()
    }

    func testPageAPIAndViewersWorkOverHTTPSAndWSS() throws {
        let webRoot = directory.file("web")
        try FileManager.default.createDirectory(atPath: webRoot, withIntermediateDirectories: true)
        try "<!doctype html><title>ChartCast over TLS</title>".write(toFile: webRoot + "/index.html", atomically: true, encoding: .utf8)
        let server = try TestServer(webRoot: webRoot, tls: certificate)
        let base = "https://127.0.0.1:\(server.port)"

        let health = try curl(base + "/healthz", ["-k"])
        XCTAssertEqual(health.exitCode, 0, health.errors)
        XCTAssertEqual(health.status, 200)
        XCTAssertEqual(health.body.trimmingCharacters(in: .whitespacesAndNewlines), "ok")
        let page = try curl(base + "/", ["-k"])
        XCTAssertEqual(page.status, 200, page.errors)
        XCTAssertTrue(page.body.contains("<title>ChartCast over TLS</title>"))
        let specs = try ChartSpec.decodeList(Array(curl(base + "/api/charts", ["-k"]).body.utf8))
        XCTAssertEqual(specs.map(\.id), ["workouts", "intake", "expenses", "sales", "temperature"])

        let viewer = try server.viewer(tls: .insecure)
        XCTAssertEqual(viewer.welcome?.charts.map(\.id), specs.map(\.id), "welcome over WSS")
        XCTAssertEqual(viewer.snapshots.count, specs.count, "a snapshot of every chart over WSS")

        // A write over HTTPS reaches the WSS viewer.
        let spec = ChartSpec(id: "cpu", title: "CPU", mark: .line, xKind: .time, xLabel: "Time", yLabel: "%", series: ["user"],
                             interactions: ChartSpec.defaultInteractions(for: .time), window: 100)
        let put = try curl(base + "/api/charts/cpu", ["-k", "-X", "PUT", "-H", "Content-Type: application/json",
                                                      "--data-binary", String(decoding: spec.encoded(), as: UTF8.self)])
        XCTAssertEqual(put.status, 201, put.body + put.errors)
        let points = PointsBody.rows([(series: "user", x: .number(1_733_011_200_000), y: 12.5)])
        let post = try curl(base + "/api/charts/cpu/points", ["-k", "-H", "Content-Type: application/json", "--data-binary",
                                                             String(decoding: points, as: UTF8.self)])
        XCTAssertEqual(post.status, 200, post.body + post.errors)
        let append = try viewer.append { $0.chart == "cpu" }
        XCTAssertEqual(append.points, [SeriesPoint(series: "user", x: .number(1_733_011_200_000), y: 12.5)])
    }

    func testViewerThatVerifiesCertificatesIsRefusedTheSelfSignedOne() throws {
        let server = try TestServer(tls: certificate)
        XCTAssertThrowsError(try server.viewer(tls: .verified)) { error in
            guard case WebSocketError.connectFailed = error else { return XCTFail("expected connectFailed, got \(error)") }
        }
        XCTAssertThrowsError(try server.viewer(tls: .off), "no protocol v1 in plaintext on the TLS port")
        XCTAssertEqual(try server.viewer(tls: .insecure).snapshots.count, 5, "the server serves on after the refusals")
    }

    func testChartcastServesHTTPSWithTheFlagsAndClosesPlaintextAtOnce() throws {
        let launched = try LaunchedServer(["--port", "0", "--log-level", "info"],
                                          environment: ["CHARTCAST_TLS_CERT": certificate.certificatePath,
                                                        "CHARTCAST_TLS_KEY": certificate.privateKeyPath])
        defer { launched.stop() }
        let port = try launched.waitForPort()
        let health = try curl("https://127.0.0.1:\(port)/healthz", ["-k"])
        XCTAssertEqual(health.status, 200, health.errors)
        let started = Date()
        let plain = try curl("http://127.0.0.1:\(port)/healthz", [], timeout: 20)
        XCTAssertNotEqual(plain.exitCode, 0, "plain HTTP on the TLS port gets no answer")
        XCTAssertNotEqual(plain.exitCode, 28, "and is closed, not left to time out")
        XCTAssertEqual(plain.status, 0)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "closed well before the timeout")
    }

    func testChartcastExitsWithStatus1NamingTheUnusableFile() throws {
        let missing = directory.file("missing.crt")
        let other = try SelfSignedCertificate(in: directory, name: "other")
        let cases: [([String], String)] = [
            (["--tls-cert", missing, "--tls-key", certificate.privateKeyPath],
             "TLS certificate \(missing) cannot be read: no such file or directory"),
            (["--tls-cert", certificate.certificatePath, "--tls-key", other.privateKeyPath],
             "TLS private key \(other.privateKeyPath) does not match the certificate \(certificate.certificatePath)"),
            (["--tls-cert", certificate.privateKeyPath, "--tls-key", certificate.certificatePath],
             "TLS certificate \(certificate.privateKeyPath) holds a private key, not a certificate"),
        ]
        for (arguments, message) in cases {
            let run = try LaunchedServer(arguments + ["--port", "0"]).finish()
            XCTAssertEqual(run.status, 1, run.stderr)
            XCTAssertTrue(run.stderr.contains("chartcast: " + message), run.stderr)
        }
        let data = directory.file("data")
        let refused = try LaunchedServer(["--port", "0", "--data", data, "--tls-cert", missing, "--tls-key", certificate.privateKeyPath]).finish()
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: data), "the certificate is checked before the history store is made")
        let half = try LaunchedServer(["--port", "0"], environment: ["CHARTCAST_TLS_CERT": certificate.certificatePath]).finish()
        XCTAssertEqual(half.status, 2, "a certificate without a key is a usage mistake")
        XCTAssertTrue(half.stderr.contains("--tls-cert needs --tls-key"), half.stderr)
    }
}
