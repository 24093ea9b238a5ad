import XCTest
@testable import ChartCastServer

/// Who may write: the token (Bearer or Token), or loopback peers when none is configured.
final class WriteAccessTests: XCTestCase {
    func testWithoutATokenOnlyLoopbackPeersWrite() {
        let open = WriteAccess(token: nil)
        for ip in ["127.0.0.1", "127.3.2.1", "::1", "::ffff:127.0.0.1"] { XCTAssertTrue(open.permits(authorization: nil, peerIP: ip), ip) }
        for ip in ["10.0.0.5", "192.168.1.2", "::ffff:10.0.0.1", "2001:db8::1", "128.0.0.1", "127.0.0", "unknown"] {
            XCTAssertFalse(open.permits(authorization: "Bearer anything", peerIP: ip), ip)
        }
    }

    func testWithATokenBearerOrTokenSchemeFromAnywhere() {
        let access = WriteAccess(token: "s3cret")
        XCTAssertTrue(access.permits(authorization: "Bearer s3cret", peerIP: "10.0.0.5"))
        XCTAssertTrue(access.permits(authorization: "Token s3cret", peerIP: "10.0.0.5"), "InfluxDB clients send Token")
        XCTAssertTrue(access.permits(authorization: "bearer   s3cret ", peerIP: "10.0.0.5"))
        for header in [nil, "", "Bearer", "Bearer ", "Bearer s3cre", "Bearer s3cret2", "Basic s3cret", "s3cret", "Bearer S3CRET"] {
            XCTAssertFalse(access.permits(authorization: header, peerIP: "127.0.0.1"), "\(header ?? "nil"): a token is required even on loopback")
        }
    }

    func testConstantTimeEqualityIsEquality() {
        XCTAssertTrue(WriteAccess.constantTimeEquals(Array("abc".utf8), Array("abc".utf8)))
        XCTAssertFalse(WriteAccess.constantTimeEquals(Array("abc".utf8), Array("abd".utf8)))
        XCTAssertFalse(WriteAccess.constantTimeEquals(Array("abc".utf8), Array("ab".utf8)))
        XCTAssertFalse(WriteAccess.constantTimeEquals([], Array("a".utf8)))
        XCTAssertTrue(WriteAccess.constantTimeEquals([], []))
        // A prefix of the token followed by a NUL must not match a shorter token.
        XCTAssertFalse(WriteAccess.constantTimeEquals(Array("ab".utf8) + [0], Array("ab".utf8)))
    }
}

/// The API's paths and the methods each takes.
final class APIRouteTests: XCTestCase {
    func testPathsMapToResources() {
        XCTAssertEqual(APIRoute.match("/api/charts"), .charts)
        XCTAssertEqual(APIRoute.match("/api/charts/cpu"), .chart("cpu"))
        XCTAssertEqual(APIRoute.match("/api/charts/cpu/points"), .chartPoints("cpu"))
        XCTAssertEqual(APIRoute.match("/api/charts/cpu/selection"), .chartSelection("cpu"))
        XCTAssertEqual(APIRoute.match("/api/dashboard"), .dashboard)
        XCTAssertEqual(APIRoute.match("/api/v2/write"), .influxWrite)
        XCTAssertEqual(APIRoute.match("/healthz"), .healthz)
        for path in ["/", "/index.html", "/api/charts//points", "/api/charts/cpu/history", "/api/charts/cpu/points/1", "/api/v1/write"] {
            XCTAssertNil(APIRoute.match(path), path)
        }
        XCTAssertTrue(APIRoute.isAPIPath("/api/nothing"))
        XCTAssertFalse(APIRoute.isAPIPath("/apiary.html"))
    }

    func testAllowedMethods() {
        XCTAssertEqual(APIRoute.chart("c").allowedMethods, ["GET", "HEAD", "PUT", "DELETE"])
        XCTAssertEqual(APIRoute.chartPoints("c").allowedMethods, ["GET", "HEAD", "POST"])
        XCTAssertEqual(APIRoute.influxWrite.allowedMethods, ["POST"])
        XCTAssertEqual(APIRoute.dashboard.allowedMethods, ["GET", "HEAD"])
    }
}

/// Idempotency keys: a repeat gets the first answer, waits while it runs, and 5xx is not kept.
final class IdempotencyCacheTests: XCTestCase {
    private let key = IdempotencyCache<Int>.Key(scope: "token", endpoint: "POST /api/charts/c/points", key: "k1")

    func testARepeatGetsTheFirstAnswerAndAppliesNothing() {
        let cache = IdempotencyCache<Int>()
        guard case .run = cache.begin(key, now: 0, waiter: { _ in }) else { return XCTFail("first use runs") }
        cache.finish(key, answer: 200, keep: true, now: 1)
        guard case .answered(200) = cache.begin(key, now: 2, waiter: { _ in }) else { return XCTFail("repeat answered") }
        var other = key
        other.scope = "another token"
        guard case .run = cache.begin(other, now: 2, waiter: { _ in }) else { return XCTFail("keys are scoped to the writer") }
        other = key
        other.endpoint = "POST /api/v2/write"
        guard case .run = cache.begin(other, now: 2, waiter: { _ in }) else { return XCTFail("and to the endpoint") }
    }

    func testARepeatWhileInFlightWaitsForTheAnswer() {
        let cache = IdempotencyCache<Int>()
        _ = cache.begin(key, now: 0, waiter: { _ in })
        var received: [Int] = []
        guard case .waiting = cache.begin(key, now: 1, waiter: { received.append($0) }) else { return XCTFail("waits") }
        XCTAssertEqual(received, [])
        cache.finish(key, answer: 400, keep: true, now: 2)
        XCTAssertEqual(received, [400])
    }

    func testServerErrorsAreNotKeptAndKeysExpireAfterFiveMinutes() {
        let cache = IdempotencyCache<Int>()
        _ = cache.begin(key, now: 0, waiter: { _ in })
        cache.finish(key, answer: 503, keep: false, now: 1)
        guard case .run = cache.begin(key, now: 2, waiter: { _ in }) else { return XCTFail("a 5xx is retried") }
        cache.finish(key, answer: 200, keep: true, now: 3)
        guard case .answered = cache.begin(key, now: 3 + 299_000_000_000, waiter: { _ in }) else { return XCTFail("kept 4m59s") }
        guard case .run = cache.begin(key, now: 3 + 300_000_000_000, waiter: { _ in }) else { return XCTFail("expired at 5 min") }
    }

    func testCapacityBoundsTheKeysKept() {
        let cache = IdempotencyCache<Int>(capacity: 100)
        for i in 0..<1_000 {
            let k = IdempotencyCache<Int>.Key(scope: "s", endpoint: "e", key: "\(i)")
            _ = cache.begin(k, now: UInt64(i), waiter: { _ in })
            cache.finish(k, answer: i, keep: true, now: UInt64(i))
        }
        XCTAssertLessThanOrEqual(cache.count, 100)
        guard case .answered(999) = cache.begin(.init(scope: "s", endpoint: "e", key: "999"), now: 1_000, waiter: { _ in })
        else { return XCTFail("the newest is kept") }
    }
}
