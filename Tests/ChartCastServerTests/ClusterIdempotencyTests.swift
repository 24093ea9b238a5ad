import ChartCastProtocol
import Foundation
import TestSupport
import XCTest
@testable import ChartCastCluster
@testable import ChartCastServer

/// `Idempotency-Key`s with `--redis`, two servers joined through a real redis-server: a write
/// retried on the other instance gets the first answer and applies nothing; a repeat while the
/// first is in flight on the other instance waits for it; 4xx answers are kept across
/// instances, and keys are scoped to the writer.
final class ClusterIdempotencyTests: XCTestCase {
    private var redis: RedisServer!
    private let t0 = ((Date().timeIntervalSince1970 - 60).rounded(.down)) * 1_000

    override func setUpWithError() throws { redis = try RedisServer() }
    override func tearDown() { redis.stop() }

    private func instance(writeToken: String? = nil) throws -> TestServer {
        let url = redis.url
        return try TestServer(writeToken: writeToken) { $0.redis = try? RedisEndpoint.parse(url) }
    }

    private func link(_ server: TestServer) throws -> ClusterLink {
        let core = server.server.core
        let link: ClusterLink?? = server.server.server.performAndWait(timeout: 5) { core.cluster?.link }
        return try XCTUnwrap(link ?? nil)
    }

    private func post(_ server: TestServer, _ body: String, headers: [String]) throws -> RawHTTPResponse {
        try server.request("POST", "/api/charts/cpu/points", headers: ["Content-Type: application/json"] + headers, body: Array(body.utf8))
    }

    /// The chart's seq on `server`.
    private func seq(_ server: TestServer) throws -> Int {
        try XCTUnwrap(try server.server.statistics()?.seqByChart["cpu"])
    }

    private func define(on server: TestServer, headers: [String] = []) throws {
        let spec = #"{"mark":"line","x":{"kind":"time"},"series":["load"],"retention":"0"}"#
        XCTAssertEqual(try server.request("PUT", "/api/charts/cpu", headers: ["Content-Type: application/json"] + headers,
                                          body: Array(spec.utf8)).status, 201)
    }

    func testARetryOnTheOtherInstanceGetsTheFirstAnswerAndAppliesNothing() throws {
        let one = try instance(), two = try instance()
        try define(on: one)
        XCTAssertTrue(eventually { (try? two.request("GET", "/api/charts/cpu").status) == 200 })
        let body = #"{"points":[{"series":"load","x":\#(t0),"y":1},{"series":"load","x":\#(t0 + 1000),"y":2}]}"#
        let first = try post(one, body, headers: ["Idempotency-Key: batch-1"])
        XCTAssertEqual(first.status, 200, first.bodyText)
        XCTAssertTrue(eventually { (try? self.seq(two)) == (try? self.seq(one)) })
        let seqAfterFirst = try seq(one)
        let retried = try post(two, body, headers: ["Idempotency-Key: batch-1"])
        XCTAssertEqual(retried.status, 200)
        XCTAssertEqual(retried.bodyText, first.bodyText, "the first answer, seq included")
        XCTAssertEqual(retried.headers["content-type"], first.headers["content-type"])
        usleep(300_000)
        XCTAssertEqual(try seq(one), seqAfterFirst, "nothing was applied again")
        XCTAssertEqual(try seq(two), seqAfterFirst)
        // Another key is another write.
        XCTAssertEqual(try post(two, body, headers: ["Idempotency-Key: batch-2"]).status, 200)
        XCTAssertTrue(eventually { (try? self.seq(one)) ?? 0 > seqAfterFirst })
        // The key lives in Redis, not as it was sent.
        let keys = try RedisConnection(endpoint: RedisEndpoint(host: "127.0.0.1", port: redis.port)).command(["KEYS", "chartcast:idem:*"])
        XCTAssertEqual(keys.array?.count, 2)
        XCTAssertFalse("\(keys)".contains("batch"))
    }

    func testARepeatWhileTheFirstIsInFlightOnTheOtherInstanceWaitsForIt() throws {
        let one = try instance(), two = try instance()
        try define(on: one)
        XCTAssertTrue(eventually { (try? two.request("GET", "/api/charts/cpu").status) == 200 })
        let before = try seq(one)
        let linkOne = try link(one)
        linkOne.appendsHeld = true   // the first write is claimed and validated, its entry not yet in the stream
        let body = #"{"points":[{"series":"load","x":\#(t0),"y":5}]}"#
        let answers = DispatchGroup()
        let box = Answers()
        answers.enter()
        DispatchQueue.global().async {
            box.set(0, try? self.post(one, body, headers: ["Idempotency-Key: slow-1"]))
            answers.leave()
        }
        XCTAssertTrue(eventually { linkOne.queuedAppends == 1 })
        answers.enter()
        DispatchQueue.global().async {
            box.set(1, try? self.post(two, body, headers: ["Idempotency-Key: slow-1"]))
            answers.leave()
        }
        usleep(500_000)
        XCTAssertNil(box.get(1), "the repeat waits while the first is in flight")
        linkOne.appendsHeld = false
        XCTAssertEqual(answers.wait(timeout: .now() + 10), .success)
        let (first, repeated) = (try XCTUnwrap(box.get(0)), try XCTUnwrap(box.get(1)))
        XCTAssertEqual(first.status, 200, first.bodyText)
        XCTAssertEqual(repeated.bodyText, first.bodyText, "the repeat got the first answer")
        XCTAssertTrue(eventually { (try? self.seq(two)) == (try? self.seq(one)) })
        let applied = try JSONReader.parse(first.body)["seq"]?.number.map(Int.init)
        XCTAssertEqual(try seq(one), applied, "one write applied: the chart's seq is the first answer's")
        XCTAssertGreaterThan(try seq(one), before)
    }

    func testRefusalsAreKeptAcrossInstancesAndKeysAreScopedToTheWriter() throws {
        let one = try instance(writeToken: "alpha"), two = try instance(writeToken: "alpha")
        try define(on: one, headers: ["Authorization: Bearer alpha"])
        XCTAssertTrue(eventually { (try? two.request("GET", "/api/charts/cpu").status) == 200 })
        let bad = try post(one, #"{"points":[{"series":"load","x":"soon","y":1}]}"#, headers: ["Authorization: Bearer alpha", "Idempotency-Key: k"])
        XCTAssertEqual(bad.status, 400)
        let good = #"{"points":[{"series":"load","x":\#(t0),"y":1}]}"#
        let again = try post(two, good, headers: ["Authorization: Bearer alpha", "Idempotency-Key: k"])
        XCTAssertEqual(again.status, 400, "a 4xx is kept: the same key gets it again on the other instance")
        XCTAssertEqual(again.bodyText, bad.bodyText)
        // The same key on another endpoint is another key.
        let line = try two.request("POST", "/api/v2/write", headers: ["Authorization: Bearer alpha", "Idempotency-Key: k"],
                                   body: Array("cpu load=3 \(Int(t0) * 1_000_000)".utf8))
        XCTAssertEqual(line.status, 204, line.bodyText)
    }
}

/// Answers handed over from the threads that waited for them.
private final class Answers: @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [Int: RawHTTPResponse] = [:]
    func set(_ i: Int, _ answer: RawHTTPResponse?) { lock.lock(); answers[i] = answer; lock.unlock() }
    func get(_ i: Int) -> RawHTTPResponse? { lock.lock(); defer { lock.unlock() }; return answers[i] }
}
