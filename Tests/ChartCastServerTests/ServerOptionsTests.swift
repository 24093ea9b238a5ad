import Foundation
import ChartCastServer
import XCTest

/// `chartcast` flags and `CHARTCAST_*` variables.
final class ServerOptionsTests: XCTestCase {
    func testDefaults() throws {
        XCTAssertEqual(try ServerOptions.parse(arguments: [], environment: [:]), .run(ServerOptions(dataDirectory: "chartcast-data")))
        let defaults = ServerOptions()
        XCTAssertEqual(defaults.host, "127.0.0.1")
        XCTAssertEqual(defaults.port, 8080)
        XCTAssertEqual(defaults.tick, 1)
        XCTAssertEqual(defaults.window, 60)
        XCTAssertFalse(defaults.deflate)
        XCTAssertEqual(defaults.logLevel, .info)
        XCTAssertEqual(defaults.eventLoop, .libev)
    }

    private func pollLoop() -> ServerOptions {
        var options = ServerOptions(dataDirectory: "chartcast-data")
        options.eventLoop = .poll
        return options
    }

    func testTheEventLoopIsChosenByFlagOrVariable() throws {
        XCTAssertEqual(try ServerOptions.parse(arguments: ["--event-loop", "poll"], environment: [:]),
                       .run(pollLoop()))
        XCTAssertEqual(try ServerOptions.parse(arguments: ["--event-loop=LIBEV"], environment: ["CHARTCAST_EVENT_LOOP": "poll"]),
                       .run(ServerOptions(dataDirectory: "chartcast-data")), "the flag wins")
        XCTAssertEqual(try ServerOptions.parse(arguments: [], environment: ["CHARTCAST_EVENT_LOOP": "poll"]),
                       .run(pollLoop()))
        XCTAssertTrue(ServerOptions.usage.contains("--event-loop"))
    }

    func testFlagsInBothSpellingsAndEnvironmentWithFlagsWinning() throws {
        let request = try ServerOptions.parse(
            arguments: ["--port", "9000", "--tick=0.25", "--deflate", "--web-root", "/srv/page", "--log-level", "debug"],
            environment: ["CHARTCAST_PORT": "7000", "CHARTCAST_WINDOW": "30", "CHARTCAST_HOST": "0.0.0.0"])
        XCTAssertEqual(request, .run(ServerOptions(host: "0.0.0.0", port: 9000, webRoot: "/srv/page", tick: 0.25,
                                                   window: 30, deflate: true, logLevel: .debug, dataDirectory: "chartcast-data")))
        XCTAssertEqual(try ServerOptions.parse(arguments: [], environment: ["CHARTCAST_DEFLATE": "1"]),
                       .run(ServerOptions(deflate: true, dataDirectory: "chartcast-data")))
    }

    func testDataAPIFlags() throws {
        XCTAssertEqual(try ServerOptions.parse(arguments: ["--dashboard", "plant.json", "--write-token=t0k", "--no-auto-create"],
                                               environment: [:]),
                       .run(ServerOptions(dashboard: "plant.json", writeToken: "t0k", autoCreate: false, dataDirectory: "chartcast-data")))
        XCTAssertEqual(try ServerOptions.parse(arguments: [], environment: ["CHARTCAST_DASHBOARD": "d.json", "CHARTCAST_WRITE_TOKEN": "abc",
                                                                            "CHARTCAST_NO_AUTO_CREATE": "1"]),
                       .run(ServerOptions(dashboard: "d.json", writeToken: "abc", autoCreate: false, dataDirectory: "chartcast-data")))
        XCTAssertEqual(try ServerOptions.parse(arguments: ["--data", "/var/lib/chartcast"], environment: [:]),
                       .run(ServerOptions(dataDirectory: "/var/lib/chartcast")))
        XCTAssertEqual(try ServerOptions.parse(arguments: ["--data", "none"], environment: ["CHARTCAST_DATA": "/x"]),
                       .run(ServerOptions()), "none keeps no history")
        XCTAssertEqual(try ServerOptions.parse(arguments: [], environment: ["CHARTCAST_DATA": "/x"]), .run(ServerOptions(dataDirectory: "/x")))
        XCTAssertNil(ServerOptions().dataDirectory, "a server made in code keeps no history unless told")
        XCTAssertTrue(ServerOptions().autoCreate, "auto-create is the default")
        XCTAssertEqual(ServerOptions(writeToken: "secret").redacted.writeToken, "<set>", "never shown")
        XCTAssertThrowsError(try ServerOptions.parse(arguments: ["--write-token", "two words"], environment: [:]))
    }

    func testTLSFlagsComeInPairs() throws {
        var expected = ServerOptions(dataDirectory: "chartcast-data")
        expected.tlsCertificate = "/etc/cc/cert.pem"
        expected.tlsPrivateKey = "/etc/cc/key.pem"
        XCTAssertEqual(try ServerOptions.parse(arguments: ["--tls-cert", "/etc/cc/cert.pem", "--tls-key=/etc/cc/key.pem"], environment: [:]),
                       .run(expected))
        XCTAssertEqual(try ServerOptions.parse(arguments: [], environment: ["CHARTCAST_TLS_CERT": "/etc/cc/cert.pem",
                                                                            "CHARTCAST_TLS_KEY": "/etc/cc/key.pem"]), .run(expected))
        XCTAssertEqual(try ServerOptions.parse(arguments: ["--tls-key", "/etc/cc/key.pem"],
                                               environment: ["CHARTCAST_TLS_CERT": "/etc/cc/cert.pem"]), .run(expected),
                       "a flag completes a variable")
        XCTAssertNil(ServerOptions().tlsCertificate, "plain HTTP by default")
        XCTAssertThrowsError(try ServerOptions.parse(arguments: ["--tls-cert", "c.pem"], environment: [:])) {
            XCTAssertEqual("\($0)", "--tls-cert needs --tls-key (the certificate's private key) too")
        }
        XCTAssertThrowsError(try ServerOptions.parse(arguments: [], environment: ["CHARTCAST_TLS_KEY": "k.pem"])) {
            XCTAssertEqual("\($0)", "--tls-key needs --tls-cert (the key's certificate) too")
        }
        XCTAssertThrowsError(try ServerOptions.parse(arguments: ["--tls-cert", "", "--tls-key", "k.pem"], environment: [:]))
        XCTAssertTrue(ServerOptions.usage.contains("--tls-cert FILE"))
    }

    func testDragLeaseAndSlowViewerFlags() throws {
        let defaults = ServerOptions()
        XCTAssertEqual(defaults.dragLease, 10)
        XCTAssertEqual(defaults.maxBacklogBytes, 1_048_576)
        XCTAssertEqual(defaults.chokeTimeout, 30)
        XCTAssertTrue(defaults.trimMemory)
        guard case .run(let untrimmed) = try ServerOptions.parse(arguments: ["--no-memory-trim"], environment: [:]) else { return XCTFail("not run") }
        XCTAssertFalse(untrimmed.trimMemory)
        guard case .run(let flags) = try ServerOptions.parse(arguments: ["--drag-lease", "2.5", "--max-backlog=65536", "--choke-timeout", "5"],
                                                             environment: ["CHARTCAST_DRAG_LEASE": "99"]) else { return XCTFail("not run") }
        XCTAssertEqual(flags.dragLease, 2.5, "the flag wins over the variable")
        XCTAssertEqual(flags.maxBacklogBytes, 65_536)
        XCTAssertEqual(flags.chokeTimeout, 5)
        guard case .run(let variables) = try ServerOptions.parse(arguments: [], environment: ["CHARTCAST_MAX_BACKLOG": "2000000",
                                                                                             "CHARTCAST_CHOKE_TIMEOUT": "0.5"]) else { return XCTFail("not run") }
        XCTAssertEqual(variables.maxBacklogBytes, 2_000_000)
        XCTAssertEqual(variables.chokeTimeout, 0.5)
        for (arguments, fragment) in [(["--drag-lease", "0"], "--drag-lease must be"), (["--choke-timeout", "inf"], "--choke-timeout must be"),
                                      (["--max-backlog", "100"], "--max-backlog must be")] {
            XCTAssertThrowsError(try ServerOptions.parse(arguments: arguments, environment: [:])) { error in
                XCTAssertTrue("\(error)".contains(fragment), "\(arguments): \(error)")
            }
        }
    }

    func testHelp() throws {
        XCTAssertEqual(try ServerOptions.parse(arguments: ["--help"], environment: [:]), .help)
        XCTAssertEqual(try ServerOptions.parse(arguments: ["-h"], environment: [:]), .help)
        XCTAssertTrue(ServerOptions.usage.contains("--window N"))
    }

    func testMistakesAreExplained() {
        let cases: [([String], [String: String], String)] = [
            (["--port", "70000"], [:], "--port must be an integer from 0 to 65535"),
            (["--port"], [:], "--port needs a value"),
            (["--tick", "0"], [:], "--tick must be"),
            (["--tick", "nan"], [:], "--tick must be"),
            (["--window", "1"], [:], "--window must be"),
            (["--log-level", "loud"], [:], "--log-level must be"),
            (["--event-loop", "epoll"], [:], "--event-loop must be poll or libev, got \"epoll\""),
            (["--colour"], [:], "unknown option --colour"),
            (["serve"], [:], "unexpected argument"),
            ([], ["CHARTCAST_PORT": "http"], "--port must be"),
            ([], ["CHARTCAST_DEFLATE": "maybe"], "CHARTCAST_DEFLATE"),
        ]
        for (arguments, environment, fragment) in cases {
            XCTAssertThrowsError(try ServerOptions.parse(arguments: arguments, environment: environment)) { error in
                XCTAssertTrue("\(error)".contains(fragment), "\(arguments) \(environment): \(error)")
            }
        }
    }

    func testDefaultWebRootIsFoundBesideTheExecutableOrInTheWorkingDirectory() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("chartcast-root-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let checkout = base.appendingPathComponent("checkout")
        let binDir = checkout.appendingPathComponent(".build/x86_64-unknown-linux-gnu/release")
        try FileManager.default.createDirectory(at: binDir, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: checkout.appendingPathComponent("web"), withIntermediateDirectories: true)
        try "<!doctype html>".write(to: checkout.appendingPathComponent("web/index.html"), atomically: true, encoding: .utf8)
        let elsewhere = base.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)

        // A checkout's build directory: web/ is found above the executable, whatever the working directory.
        XCTAssertEqual(ServerOptions.defaultWebRoot(executablePath: binDir.appendingPathComponent("chartcast").path,
                                                    workingDirectory: elsewhere.path),
                       checkout.appendingPathComponent("web").resolvingSymlinksInPath().path)
        // An installed executable far from any web/: the working directory's web/ is used.
        XCTAssertEqual(ServerOptions.defaultWebRoot(executablePath: elsewhere.appendingPathComponent("chartcast").path,
                                                    workingDirectory: checkout.path),
                       checkout.appendingPathComponent("web").path)
        XCTAssertNil(ServerOptions.defaultWebRoot(executablePath: elsewhere.appendingPathComponent("chartcast").path,
                                                  workingDirectory: elsewhere.path))
    }
}
