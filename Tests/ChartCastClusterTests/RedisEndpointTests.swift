import XCTest
@testable import ChartCastCluster

final class RedisEndpointTests: XCTestCase {
    func testHostPortAndDatabase() throws {
        XCTAssertEqual(try RedisEndpoint.parse("redis://127.0.0.1:6390/3"), RedisEndpoint(host: "127.0.0.1", port: 6390, database: 3))
        XCTAssertEqual(try RedisEndpoint.parse("redis://cache.internal"), RedisEndpoint(host: "cache.internal", port: 6379, database: 0))
        XCTAssertEqual(try RedisEndpoint.parse("redis://localhost:7000/"), RedisEndpoint(host: "localhost", port: 7000, database: 0))
        XCTAssertEqual(try RedisEndpoint.parse("redis://[::1]:7001/2"), RedisEndpoint(host: "::1", port: 7001, database: 2))
    }

    func testDescriptionIsTheFullURL() throws {
        XCTAssertEqual(try RedisEndpoint.parse("redis://db").description, "redis://db:6379/0")
        XCTAssertEqual(try RedisEndpoint.parse("redis://[::1]:7001").description, "redis://[::1]:7001/0")
    }

    func testRefusalsNameTheProblem() {
        let cases: [(String, String)] = [
            ("http://127.0.0.1:6379", "must start with redis://"),
            ("redis://", "host is missing"),
            ("redis://:6379", "host is missing"),
            ("redis://host:0", "port must be a number"),
            ("redis://host:99999", "port must be a number"),
            ("redis://host:abc", "port must be a number"),
            ("redis://host/x", "database must be a number"),
            ("redis://user:secret@host", "passwords are not supported"),
            ("redis://host?timeout=1", "query parameters"),
            ("redis://[::1", "closing ]"),
        ]
        for (url, expected) in cases {
            XCTAssertThrowsError(try RedisEndpoint.parse(url), url) { error in
                let text = "\(error)"
                XCTAssertTrue(text.contains(expected), "\(url): \(text)")
                XCTAssertTrue(text.contains("redis://HOST[:PORT][/DB]"), "\(url): \(text)")
            }
        }
    }
}
