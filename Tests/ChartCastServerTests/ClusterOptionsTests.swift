import ChartCastCluster
import ChartCastServer
import XCTest

/// `--redis` / `CHARTCAST_REDIS`, `--snapshot-interval`, `--reuse-port`.
final class ClusterOptionsTests: XCTestCase {
    private func options(_ arguments: [String], _ environment: [String: String] = [:]) throws -> ServerOptions {
        guard case .run(let options) = try ServerOptions.parse(arguments: arguments, environment: environment) else {
            throw TestFailure("not a run")
        }
        return options
    }

    func testRedisFromTheFlagOrTheEnvironment() throws {
        XCTAssertNil(try options([]).redis, "alone unless told")
        XCTAssertEqual(try options(["--redis", "redis://10.0.0.5:6380/2"]).redis, RedisEndpoint(host: "10.0.0.5", port: 6380, database: 2))
        XCTAssertEqual(try options([], ["CHARTCAST_REDIS": "redis://cache"]).redis, RedisEndpoint(host: "cache"))
        XCTAssertEqual(try options(["--redis=redis://a:1"], ["CHARTCAST_REDIS": "redis://b:2"]).redis, RedisEndpoint(host: "a", port: 1),
                       "the flag wins")
    }

    func testABadURLNamesTheFlag() {
        XCTAssertThrowsError(try options(["--redis", "localhost:6379"])) { error in
            XCTAssertTrue("\(error)".hasPrefix("--redis: the URL must start with redis://"), "\(error)")
        }
        XCTAssertThrowsError(try options(["--redis"])) { error in
            XCTAssertEqual("\(error)", "--redis needs a value")
        }
    }

    func testUsageNamesTheFlag() {
        XCTAssertTrue(ServerOptions.usage.contains("--redis URL"))
        XCTAssertTrue(ServerOptions.usage.contains("CHARTCAST_REDIS"))
        XCTAssertTrue(ServerOptions.usage.contains("--snapshot-interval S"))
        XCTAssertTrue(ServerOptions.usage.contains("--reuse-port"))
    }

    func testSnapshotIntervalAndReusePort() throws {
        XCTAssertEqual(try options([]).snapshotInterval, 10)
        XCTAssertEqual(try options(["--snapshot-interval", "2.5"]).snapshotInterval, 2.5)
        XCTAssertEqual(try options([], ["CHARTCAST_SNAPSHOT_INTERVAL": "30"]).snapshotInterval, 30)
        XCTAssertThrowsError(try options(["--snapshot-interval", "0"])) { error in
            XCTAssertTrue("\(error)".hasPrefix("--snapshot-interval must be a number of seconds from 0.1 to 86400"), "\(error)")
        }
        XCTAssertFalse(try options([]).reusePort)
        XCTAssertTrue(try options(["--reuse-port"]).reusePort)
        XCTAssertTrue(try options([], ["CHARTCAST_REUSE_PORT": "1"]).reusePort)
        XCTAssertFalse(try options([], ["CHARTCAST_REUSE_PORT": "0"]).reusePort)
        XCTAssertThrowsError(try options([], ["CHARTCAST_REUSE_PORT": "maybe"]))
    }
}
