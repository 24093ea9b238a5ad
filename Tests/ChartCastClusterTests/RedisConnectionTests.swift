import XCTest
import TestSupport
@testable import ChartCastCluster

/// The hiredis client against a real redis-server started for each test.
final class RedisConnectionTests: XCTestCase {
    var redis: RedisServer!

    override func setUpWithError() throws {
        redis = try RedisServer()
    }

    override func tearDown() {
        redis.stop()
    }

    private func connection(database: Int = 0, timeout: Double = 2) -> RedisConnection {
        RedisConnection(endpoint: RedisEndpoint(host: "127.0.0.1", port: redis.port, database: database), timeout: timeout)
    }

    func testCommandsAndReplyKinds() throws {
        let c = connection()
        XCTAssertEqual(try c.command(["PING"]), .status("PONG"))
        XCTAssertEqual(try c.command(["SET", "k", "v"]), .status("OK"))
        XCTAssertEqual(try c.command(["GET", "k"]), .bytes(Array("v".utf8)))
        XCTAssertEqual(try c.command(["GET", "missing"]), .null)
        XCTAssertEqual(try c.command(["INCR", "n"]), .integer(1))
        XCTAssertEqual(try c.command(["INCR", "n"]), .integer(2))
        XCTAssertEqual(try c.command(["RPUSH", "list", "a", "b", "c"]), .integer(3))
        XCTAssertEqual(try c.command(["LRANGE", "list", "0", "-1"]),
                       .array([.bytes(Array("a".utf8)), .bytes(Array("b".utf8)), .bytes(Array("c".utf8))]))
    }

    func testArgumentsAreBinarySafe() throws {
        let c = connection()
        let value: [UInt8] = [0, 13, 10, 255, 32, 0, 42] + Array("héllo \"x\"".utf8)
        XCTAssertEqual(try c.command([Array("SET".utf8), Array("bin\u{0}key".utf8), value]), .status("OK"))
        XCTAssertEqual(try c.command([Array("GET".utf8), Array("bin\u{0}key".utf8)]), .bytes(value))
        XCTAssertEqual(try c.command([Array("SET".utf8), Array("empty".utf8), []]), .status("OK"))
        XCTAssertEqual(try c.command(["STRLEN", "empty"]), .integer(0))
    }

    func testPipelineRepliesInOrder() throws {
        let c = connection()
        let commands: [[[UInt8]]] = (0..<200).map { [Array("RPUSH".utf8), Array("p".utf8), Array(String($0).utf8)] }
        let replies = try c.pipeline(commands)
        XCTAssertEqual(replies, (1...200).map { .integer($0) })
        XCTAssertEqual(try c.command(["LINDEX", "p", "199"]).string, "199")
        XCTAssertEqual(try c.pipeline([]), [])
    }

    func testErrorRepliesDoNotBreakTheConnection() throws {
        let c = connection()
        XCTAssertEqual(try c.command(["SET", "s", "text"]), .status("OK"))
        guard case .error(let message) = try c.command(["INCR", "s"]) else { return XCTFail("INCR of a string must fail") }
        XCTAssertTrue(message.contains("not an integer"), message)
        guard case .error(let unknown) = try c.command(["NOSUCHCOMMAND"]) else { return XCTFail("unknown command must fail") }
        XCTAssertTrue(unknown.lowercased().contains("unknown command"), unknown)
        XCTAssertThrowsError(try c.command(["NOSUCHCOMMAND"]).checked()) { error in
            guard case RedisError.server = error else { return XCTFail("\(error)") }
            XCTAssertFalse((error as! RedisError).isConnectionError)
        }
        // An error inside a pipeline is that command's reply; the others still run.
        let replies = try c.pipeline([[Array("INCR".utf8), Array("s".utf8)], [Array("PING".utf8)]])
        guard case .error = replies[0] else { return XCTFail("\(replies)") }
        XCTAssertEqual(replies[1], .status("PONG"))
        XCTAssertEqual(try c.command(["GET", "s"]).string, "text")
    }

    func testDatabaseFromTheEndpointIsSelected() throws {
        let zero = connection(), five = connection(database: 5)
        XCTAssertEqual(try five.command(["SET", "where", "five"]), .status("OK"))
        XCTAssertEqual(try zero.command(["GET", "where"]), .null)
        XCTAssertEqual(try zero.command(["SELECT", "5"]), .status("OK"))
        XCTAssertEqual(try zero.command(["GET", "where"]).string, "five")
    }

    func testNoServerIsAConnectionFailureNamingTheEndpoint() throws {
        let port = redis.port
        redis.kill()
        let c = connection()
        XCTAssertThrowsError(try c.command(["PING"])) { error in
            guard case RedisError.connectionFailed(let why) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(why.contains("redis://127.0.0.1:\(port)/0"), why)
            XCTAssertTrue("\(error)".hasPrefix("cannot connect to Redis:"), "\(error)")
        }
        XCTAssertFalse(c.isConnected)
    }

    func testReconnectsAfterTheServerRestarts() throws {
        let c = connection()
        XCTAssertEqual(try c.command(["SET", "before", "1"]), .status("OK"))
        redis.kill()
        XCTAssertThrowsError(try c.command(["PING"])) { error in
            XCTAssertTrue((error as? RedisError)?.isConnectionError ?? false, "\(error)")
        }
        XCTAssertFalse(c.isConnected, "a broken connection is closed")
        try redis.restart()
        // The next command connects again; the restarted server is empty (no persistence).
        XCTAssertEqual(try c.command(["PING"]), .status("PONG"))
        XCTAssertEqual(try c.command(["GET", "before"]), .null)
        XCTAssertEqual(try c.pipeline([[Array("INCR".utf8), Array("after".utf8)]]), [.integer(1)])
    }

    func testAReadThatOutlastsTheTimeoutLosesTheConnection() throws {
        let c = connection(timeout: 0.3)
        let began = Date()
        // BLPOP on an empty list blocks for 2 s on the server; the client gives up after 0.3 s.
        XCTAssertThrowsError(try c.command(["BLPOP", "nothing", "2"])) { error in
            guard case RedisError.connectionLost = error else { return XCTFail("\(error)") }
        }
        XCTAssertLessThan(Date().timeIntervalSince(began), 1.5)
        XCTAssertEqual(try c.command(["PING"]), .status("PONG"))
    }

    func testStreamCommands() throws {
        let c = connection()
        let first = try c.command(["XADD", "log", "*", "e", "one"]).string
        let second = try c.command(["XADD", "log", "*", "e", "two"]).string
        XCTAssertNotNil(first)
        XCTAssertNotEqual(first, second)
        let read = try c.command(["XREAD", "COUNT", "10", "STREAMS", "log", "0-0"])
        // [[key, [[id, [field, value]], …]]]
        let entries = read.array?.first?.array?[1].array
        XCTAssertEqual(entries?.count, 2)
        XCTAssertEqual(entries?[0].array?[0].string, first)
        XCTAssertEqual(entries?[1].array?[1].array?[1].string, "two")
        XCTAssertEqual(try c.command(["XREAD", "BLOCK", "50", "STREAMS", "log", second!]), .null)
    }
}
