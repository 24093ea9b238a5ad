import Foundation
import TestSupport
import XCTest
@testable import ChartCastCluster

/// `ClusterLink` against a real redis-server: joining, the order entries come back in, and
/// refusals.
final class ClusterLinkTests: XCTestCase {
    var redis: RedisServer!
    private let fingerprint = Array(#"{"title":"t","charts":[]}"#.utf8)

    override func setUpWithError() throws { redis = try RedisServer() }
    override func tearDown() { redis.stop() }

    private var endpoint: RedisEndpoint { RedisEndpoint(host: "127.0.0.1", port: redis.port) }

    /// Collects what a link delivers.
    private final class Inbox: @unchecked Sendable {
        private let lock = NSLock()
        private var records: [StreamRecord] = []
        func add(_ new: [StreamRecord]) { lock.lock(); records += new; lock.unlock() }
        var all: [StreamRecord] { lock.lock(); defer { lock.unlock() }; return records }
    }

    private func append(_ link: ClusterLink, _ text: String) -> RedisError?? {
        let done = DispatchSemaphore(value: 0)
        var result: RedisError?? = .none
        link.append(Array(text.utf8)) { error in
            result = .some(error)
            done.signal()
        }
        _ = done.wait(timeout: .now() + 5)
        return result
    }

    func testInstancesAreNumberedAndSeeOneOrder() throws {
        let joinA = try ClusterLink.join(endpoint: endpoint, fingerprint: fingerprint)
        let (a, backlogA) = (joinA.link, joinA.backlog)
        XCTAssertNil(joinA.snapshot, "the first instance claims the dashboard with its own state")
        XCTAssertEqual(a.instance, 1)
        XCTAssertEqual(backlogA, [])
        let inboxA = Inbox(), inboxB = Inbox()
        a.start(deliver: inboxA.add, linkChanged: { _ in })
        defer { a.stop() }
        XCTAssertEqual(append(a, "a1"), .some(nil))
        XCTAssertEqual(append(a, "a2"), .some(nil))
        // A later instance gets what was added before it as its backlog, then the rest live.
        let joinB = try ClusterLink.join(endpoint: endpoint, fingerprint: fingerprint)
        let (b, backlogB) = (joinB.link, joinB.backlog)
        XCTAssertEqual(joinB.snapshot, ClusterSnapshot(epoch: a.epoch.id, fresh: true, charts: [], viewers: []),
                       "a later one starts from the snapshot the first stored")
        XCTAssertEqual(b.epoch.id, a.epoch.id)
        XCTAssertEqual(b.instance, 2)
        XCTAssertEqual(backlogB.map { String(decoding: $0.payload, as: UTF8.self) }, ["a1", "a2"])
        b.start(deliver: inboxB.add, linkChanged: { _ in })
        defer { b.stop() }
        let group = DispatchGroup()
        for i in 0..<50 {
            group.enter()
            (i % 2 == 0 ? a : b).append(Array("x\(i)".utf8)) { _ in group.leave() }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 5), .success)
        XCTAssertTrue(eventually { inboxA.all.count == 52 && inboxB.all.count == 50 })
        // Both see the entries after the backlog in one and the same order.
        XCTAssertEqual(Array(inboxA.all.dropFirst(2)), inboxB.all)
        XCTAssertEqual(inboxA.all.prefix(2).map(\.payload), backlogB.map(\.payload))
        XCTAssertEqual(Set(inboxB.all.map { String(decoding: $0.payload, as: UTF8.self) }), Set((0..<50).map { "x\($0)" }))
        let ids = inboxA.all.map(\.id)
        XCTAssertEqual(Set(ids).count, ids.count)
    }

    func testAnotherDashboardIsRefused() throws {
        _ = try ClusterLink.join(endpoint: endpoint, fingerprint: fingerprint)
        XCTAssertThrowsError(try ClusterLink.join(endpoint: endpoint, fingerprint: Array(#"{"other":1}"#.utf8))) { error in
            XCTAssertTrue("\(error)".contains("holds another dashboard"), "\(error)")
        }
        // Another database is another dashboard.
        var other = endpoint
        other.database = 1
        XCTAssertEqual(try ClusterLink.join(endpoint: other, fingerprint: Array(#"{"other":1}"#.utf8)).link.instance, 1)
    }

    func testNoRedisAtJoinIsAConnectionFailure() {
        let port = redis.port
        redis.kill()
        XCTAssertThrowsError(try ClusterLink.join(endpoint: endpoint, fingerprint: fingerprint, timeout: 1)) { error in
            guard case RedisError.connectionFailed(let why) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(why.contains("127.0.0.1:\(port)"), why)
        }
    }

    func testAppendsFailWhileRedisIsDownAndWorkAgainAfter() throws {
        let link = try ClusterLink.join(endpoint: endpoint, fingerprint: fingerprint).link
        let inbox = Inbox()
        let changes = Inbox()
        link.start(deliver: inbox.add, linkChanged: { up in changes.add([StreamRecord(id: up ? "up" : "down", payload: [])]) })
        defer { link.stop() }
        XCTAssertEqual(append(link, "before"), .some(nil))
        redis.kill()
        XCTAssertTrue(eventually { !link.isUp }, "the link notices Redis is gone")
        guard case .some(.some(let error)) = append(link, "during") else { return XCTFail("an append while down must fail") }
        XCTAssertTrue(error.isConnectionError, "\(error)")
        try redis.restart()
        XCTAssertTrue(eventually(timeout: 6) { link.isUp }, "the link reconnects by itself")
        XCTAssertEqual(changes.all.map(\.id).prefix(2), ["down", "up"])
        XCTAssertEqual(append(link, "after"), .some(nil))
    }

    func testStopTakesTheHeartbeatAndLeaseAway() throws {
        let link = try ClusterLink.join(endpoint: endpoint, fingerprint: fingerprint).link
        link.start(deliver: { _ in }, linkChanged: { _ in })
        XCTAssertTrue(eventually { link.holdsFeedLease }, "the only instance takes the feed lease")
        let probe = RedisConnection(endpoint: endpoint)
        XCTAssertEqual(try probe.command(["EXISTS", ClusterKeys().alive(link.instance)]), .integer(1))
        XCTAssertEqual(try probe.command(["GET", ClusterKeys().feedLease]).string, String(link.instance))
        link.stop()
        XCTAssertEqual(try probe.command(["EXISTS", ClusterKeys().alive(link.instance)]), .integer(0))
        XCTAssertEqual(try probe.command(["EXISTS", ClusterKeys().feedLease]), .integer(0))
    }
}
