import ChartCastProtocol
import ChartCastServer
import ChartEngine
import XCTest

/// Protocol v1 over real WebSocket frames: welcome, snapshots, appends, viewers.
final class ProtocolIntegrationTests: XCTestCase {
    func testWelcomeThenFiveSnapshotsWithTheSeedData() throws {
        let server = try TestServer()
        let viewer = try server.viewer()
        let welcome = try XCTUnwrap(viewer.welcome)
        XCTAssertEqual(welcome.protocolVersion, 1)
        XCTAssertEqual(welcome.limits, .v1)
        XCTAssertTrue(viewer.id.hasPrefix("v"))
        XCTAssertEqual(welcome.charts.map(\.id), ["workouts", "intake", "expenses", "sales", "temperature"])
        let sales = try XCTUnwrap(welcome.charts.first { $0.id == "sales" })
        XCTAssertEqual(sales.series, ["Ice Cream", "Coffee", "Muffins"])
        XCTAssertTrue(sales.interactions.hover)
        XCTAssertEqual(sales.categories.first, "January")

        func points(_ chart: String, series: Int = 0) -> [DataPoint] { viewer.snapshots[chart]?.series[series].points ?? [] }
        XCTAssertEqual(points("workouts").map(\.y), [23, 45, 76, 21, 15, 35, 10])
        XCTAssertEqual(points("workouts").map(\.x), ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map { .category($0) })
        XCTAssertEqual(points("expenses").map(\.y), [235, 500, 400, 350, 625, 375, 475, 600, 321, 100, 674, 456])
        XCTAssertEqual(points("sales", series: 1).map(\.y), [1800, 2000, 1900, 1950, 2500, 2800, 2730, 2600, 1620, 1800, 1950, 2100])
        let intake = points("intake")
        XCTAssertEqual(intake.count, 15)
        XCTAssertEqual(intake.first?.x, .number(1_651_363_200_000))
        XCTAssertEqual(intake.last?.x, .number(1_651_363_200_000 + 28 * 86_400_000))
        XCTAssertTrue(intake.allSatisfy { (1800...2200).contains($0.y) })
        // Bars every two days: the domain extends half the mean spacing (a day) past either end.
        let may1: Double = 1_651_363_200_000, day: Double = 86_400_000
        XCTAssertEqual(viewer.snapshots["intake"]?.x, XAxis(kind: .time, domain: .numeric(may1 - day, may1 + 28 * day + day)))
        XCTAssertEqual(points("temperature").count, 30)
        XCTAssertEqual(viewer.snapshots["sales"]?.selection, .empty)
    }

    func testTwoViewersReceiveIdenticalAppendsInTheSameOrder() throws {
        let server = try TestServer(tick: 0.05, window: 20)
        let a = try server.viewer(), b = try server.viewer()
        func appends(_ viewer: TestViewer, count: Int) throws -> [ServerMessage.Append] {
            try (0..<count).map { _ in try viewer.append() }
        }
        let fromA = try appends(a, count: 40), fromB = try appends(b, count: 40)
        // B connected after A, so align on the first append both saw.
        let firstB = try XCTUnwrap(fromB.first)
        let offset = try XCTUnwrap(fromA.firstIndex(of: firstB), "B's first append never reached A")
        XCTAssertEqual(Array(fromA[offset...]), Array(fromB.prefix(fromA.count - offset)))
        // seq strictly increases per chart; intake evicts once past the window of 20.
        var lastSeq: [String: Int] = [:]
        for message in fromA {
            XCTAssertGreaterThan(message.seq, lastSeq[message.chart] ?? -1, "seq must increase on \(message.chart)")
            lastSeq[message.chart] = message.seq
        }
        XCTAssertTrue(fromA.contains { $0.chart == "intake" && $0.evictBefore != nil })
        XCTAssertTrue(fromA.contains { $0.chart == "workouts" && $0.points.first?.x == .category("Sun") })
    }

    func testViewersListFollowsJoinsAndRenames() throws {
        let server = try TestServer()
        let a = try server.viewer()
        let b = try server.viewer()
        let both = try a.viewers { $0.viewers.count == 2 }
        XCTAssertEqual(both.viewers.map(\.id), [a.id, b.id])
        XCTAssertTrue(both.viewers[1].color.hasPrefix("#"))
        b.hello("Ana")
        let renamed = try a.viewers { $0.viewers.count == 2 && $0.viewers[1].name == "Ana" }
        XCTAssertEqual(renamed.viewers[1].id, b.id)
        b.client.close()
        _ = try a.viewers { $0.viewers.count == 1 }
    }

    func testARefusedNameIsAnErrorEchoingTheHellosRefAndKeepsTheOldName() throws {
        let server = try TestServer()
        let a = try server.viewer()
        let b = try server.viewer()
        b.hello(String(repeating: "é", count: 41), ref: "name-1")
        let refused = try b.error()
        XCTAssertEqual(refused.code, .badField)
        XCTAssertEqual(refused.ref, "name-1")
        XCTAssertTrue(refused.message.contains("40 characters"), refused.message)
        // Control and bidi characters never reach the other viewers.
        b.hello(" Zoë\u{202E}\r\n", ref: "name-2")
        let renamed = try a.viewers { $0.viewers.count == 2 && $0.viewers[1].name != "Viewer 2" }
        XCTAssertEqual(renamed.viewers[1].name, "Zoë")
    }
}
