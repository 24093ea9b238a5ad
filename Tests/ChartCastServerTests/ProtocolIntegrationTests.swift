import ChartCastProtocol
import ChartCastServer
import XCTest

/// Protocol v1 over real WebSocket frames: welcome, snapshots, appends, viewers.
final class ProtocolIntegrationTests: XCTestCase {
    func testWelcomeThenFiveSnapshotsWithTheSeedData() throws {
        let server = try TestServer()
        let viewer = try server.viewer()
        XCTAssertEqual(viewer.welcome["protocol"]?.number, 1)
        XCTAssertTrue(viewer.id.hasPrefix("v"))
        XCTAssertEqual(viewer.welcome["charts"]?.array?.compactMap { $0["id"]?.string },
                       ["workouts", "intake", "expenses", "sales", "temperature"])
        let sales = try XCTUnwrap(viewer.welcome["charts"]?.array?.first { $0["id"]?.string == "sales" })
        XCTAssertEqual(sales["series"], .array([.string("Ice Cream"), .string("Coffee"), .string("Muffins")]))
        XCTAssertEqual(sales["interactions"]?["hover"], .bool(true))

        func points(_ chart: String, series: Int = 0) -> [JSONValue] {
            viewer.snapshots[chart]?["series"]?[series]?["points"]?.array ?? []
        }
        XCTAssertEqual(points("workouts").map { $0[1]?.number }, [23, 45, 76, 21, 15, 35, 10])
        XCTAssertEqual(points("workouts").map { $0[0]?.string }, ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"])
        XCTAssertEqual(points("expenses").map { $0[1]?.number }, [235, 500, 400, 350, 625, 375, 475, 600, 321, 100, 674, 456])
        XCTAssertEqual(points("sales", series: 1).map { $0[1]?.number },
                       [1800, 2000, 1900, 1950, 2500, 2800, 2730, 2600, 1620, 1800, 1950, 2100])
        let intake = points("intake")
        XCTAssertEqual(intake.count, 15)
        XCTAssertEqual(intake.first?[0]?.number, 1_651_363_200_000)
        XCTAssertEqual(intake.last?[0]?.number, 1_651_363_200_000 + 28 * 86_400_000)
        XCTAssertTrue(intake.allSatisfy { (1800...2200).contains($0[1]?.number ?? 0) })
        let may1: Double = 1_651_363_200_000, halfDay: Double = 43_200_000, day: Double = 86_400_000
        let intakeDomain = viewer.snapshots["intake"]?["x"]?["domain"]?.array?.compactMap(\.number) ?? []
        XCTAssertEqual(intakeDomain, [may1 - halfDay, may1 + 28 * day + halfDay])
        XCTAssertEqual(points("temperature").count, 30)
        XCTAssertEqual(viewer.snapshots["sales"]?["selection"]?["hovers"], .array([]))
        XCTAssertEqual(viewer.snapshots["sales"]?["selection"]?["pin"], .null)
    }

    func testTwoViewersReceiveIdenticalAppendsInTheSameOrder() throws {
        let server = try TestServer(tick: 0.05, window: 20)
        let a = try server.viewer(), b = try server.viewer()
        func appends(_ viewer: TestViewer, count: Int) throws -> [JSONValue] {
            var result: [JSONValue] = []
            while result.count < count { result.append(try viewer.next(type: "append")) }
            return result
        }
        let fromA = try appends(a, count: 40), fromB = try appends(b, count: 40)
        // B connected after A, so align on the first append both saw.
        let firstB = try XCTUnwrap(fromB.first)
        let offset = try XCTUnwrap(fromA.firstIndex(of: firstB), "B's first append never reached A")
        XCTAssertEqual(Array(fromA[offset...]), Array(fromB.prefix(fromA.count - offset)))
        // seq strictly increases per chart; intake evicts once past the window of 20.
        var lastSeq: [String: Double] = [:]
        for message in fromA {
            let chart = message["chart"]?.string ?? "", seq = message["seq"]?.number ?? -1
            XCTAssertGreaterThan(seq, lastSeq[chart] ?? -1, "seq must increase on \(chart)")
            lastSeq[chart] = seq
        }
        XCTAssertTrue(fromA.contains { $0["chart"]?.string == "intake" && $0["evictBefore"]?.number != nil })
        XCTAssertTrue(fromA.contains { $0["chart"]?.string == "workouts" && $0["points"]?[0]?["x"]?.string == "Sun" })
    }

    func testViewersListFollowsJoinsAndRenames() throws {
        let server = try TestServer()
        let a = try server.viewer()
        let b = try server.viewer()
        let both = try a.next(type: "viewers") { $0["viewers"]?.array?.count == 2 }
        XCTAssertEqual(both["viewers"]?.array?.compactMap { $0["id"]?.string }, [a.id, b.id])
        XCTAssertTrue(both["viewers"]?[1]?["color"]?.string?.hasPrefix("#") ?? false)
        b.send(#"{"type":"hello","name":"Ana"}"#)
        let renamed = try a.next(type: "viewers") { $0["viewers"]?[1]?["name"]?.string == "Ana" }
        XCTAssertEqual(renamed["viewers"]?[1]?["id"]?.string, b.id)
        b.client.close()
        _ = try a.next(type: "viewers") { $0["viewers"]?.array?.count == 1 }
    }
}
