import ChartCastProtocol
import XCTest

/// The seed interactions on the demo dashboard, end to end: raw pointer events in real
/// WebSocket frames, selections computed by the server and seen by every viewer.
final class SelectionIntegrationTests: XCTestCase {
    private let plot = TestPlot.standard
    private let day = 86_400_000.0
    private let may1 = 1_651_363_200_000.0

    private func numericDomain(_ viewer: TestViewer, _ chart: String) throws -> (Double, Double) {
        let domain = try XCTUnwrap(viewer.snapshots[chart]?["x"]?["domain"]?.array?.compactMap(\.number))
        return (domain[0], domain[1])
    }

    func testWorkoutsScrubOverWednesdayShows76() throws {   // seed 000
        let server = try TestServer()
        let a = try server.viewer(), b = try server.viewer()
        a.sendViewport("workouts")
        a.pointer("workouts", "down", x: plot.categoryX(1, of: 7))
        a.pointer("workouts", "move", x: plot.categoryX(2, of: 7), y: 120, ref: "w-1")
        let scrub = try b.selection("workouts") { $0["scrub"]?["x"]?.string == "Wed" }
        XCTAssertEqual(scrub["ref"]?.string, "w-1")
        XCTAssertEqual(scrub["scrub"]?["values"]?[0]?["y"]?.number, 76)
        XCTAssertEqual(scrub["scrub"]?["by"]?.string, a.id)
        XCTAssertEqual(scrub["scrub"]?["fraction"]?.number ?? 0, 2.5 / 7, accuracy: 1e-9)
        XCTAssertEqual(scrub["scrub"]?["yFraction"]?.number ?? 0, 110.0 / 300, accuracy: 1e-9)
        a.pointer("workouts", "up", x: plot.categoryX(2, of: 7))
        _ = try b.selection("workouts") { $0["scrub"] == .null }
    }

    func testExpensesScrubClampsToJanuaryAndDecemberOutsideThePlot() throws {   // seed 002
        let server = try TestServer()
        let a = try server.viewer()
        a.sendViewport("expenses")
        a.pointer("expenses", "down", x: plot.categoryX(5, of: 12))
        a.pointer("expenses", "move", x: plot.x - 40)
        let left = try a.selection("expenses") { $0["scrub"]?["x"]?.string == "JAN" }
        XCTAssertEqual(left["scrub"]?["values"]?[0]?["y"]?.number, 235)
        a.pointer("expenses", "move", x: plot.x + plot.width + 40)
        let right = try a.selection("expenses") { $0["scrub"]?["x"]?.string == "DEC" }
        XCTAssertEqual(right["scrub"]?["values"]?[0]?["y"]?.number, 456)
    }

    func testSalesHoverShowsEveryProductOnTheRightSide() throws {   // seed 003
        let server = try TestServer()
        let a = try server.viewer(), b = try server.viewer()
        a.sendViewport("sales")
        a.pointer("sales", "move", x: plot.categoryX(2, of: 12), ref: "r-991")
        let march = try b.selection("sales") { $0["hovers"]?[0]?["x"]?.string == "March" }
        XCTAssertEqual(march["ref"]?.string, "r-991")
        let hover = try XCTUnwrap(march["hovers"]?[0])
        XCTAssertEqual(hover["values"]?.array?.compactMap { $0["y"]?.number }, [900, 1900, 800])
        XCTAssertEqual(hover["values"]?.array?.compactMap { $0["series"]?.string }, ["Ice Cream", "Coffee", "Muffins"])
        XCTAssertEqual(hover["placement"]?.string, "trailing")
        XCTAssertEqual(hover["fraction"]?.number ?? 0, 2.5 / 12, accuracy: 1e-9)
        a.pointer("sales", "move", x: plot.categoryX(8, of: 12))
        let september = try b.selection("sales") { $0["hovers"]?[0]?["x"]?.string == "September" }
        XCTAssertEqual(september["hovers"]?[0]?["placement"]?.string, "leading")
        a.pointer("sales", "leave", x: 0, y: 0)
        _ = try b.selection("sales") { $0["hovers"]?.array?.isEmpty == true }
    }

    func testIntakeRangeIsTheSameWhicheverWayItIsDragged() throws {   // seeds 001, 004a
        let server = try TestServer()
        let a = try server.viewer(), b = try server.viewer()
        a.sendViewport("intake")
        let domain = try numericDomain(a, "intake")
        let left = plot.numericX(may1 + 4 * day, domain: domain) - 3, right = plot.numericX(may1 + 18 * day, domain: domain) + 3

        func drag(from start: Double, to end: Double) throws -> JSONValue {
            a.pointer("intake", "down", x: start)
            a.pointer("intake", "move", x: (start + end) / 2)
            a.pointer("intake", "move", x: end, ref: "end")
            let selection = try b.selection("intake") { $0["ref"]?.string == "end" && $0["range"] != .null }
            a.pointer("intake", "up", x: end)
            _ = try b.selection("intake") { $0["range"] == .null }
            return try XCTUnwrap(selection["range"])
        }
        let forward = try drag(from: left, to: right)
        let backward = try drag(from: right, to: left)
        XCTAssertEqual(forward["rows"], backward["rows"])
        XCTAssertEqual(forward["totals"], backward["totals"])
        XCTAssertEqual(forward["from"], backward["from"])
        let rows = try XCTUnwrap(forward["rows"]?.array)
        XCTAssertEqual(rows.compactMap { $0["x"]?.number }, stride(from: 4.0, through: 18, by: 2).map { may1 + $0 * day })
        XCTAssertEqual(forward["count"]?.number, 8)
        let sum = rows.compactMap { $0["y"]?.number }.reduce(0, +)
        XCTAssertEqual(forward["totals"]?[0]?["sum"]?.number, sum)
        XCTAssertEqual(forward["truncated"], .bool(false))
        XCTAssertLessThanOrEqual(forward["from"]?.number ?? .infinity, forward["to"]?.number ?? -.infinity)
    }

    func testTemperatureTapPinsTheNearestDayAndASecondTapClearsIt() throws {   // seed 004b
        let server = try TestServer()
        let a = try server.viewer(), b = try server.viewer()
        a.sendViewport("temperature")
        let domain = try numericDomain(a, "temperature")
        let x = plot.numericX(may1 + 9.3 * day, domain: domain)
        a.pointer("temperature", "down", x: x)
        a.pointer("temperature", "up", x: x + 2)
        let pinned = try b.selection("temperature") { $0["pin"] != .null }
        XCTAssertEqual(pinned["pin"]?["x"]?.number, may1 + 9 * day)
        XCTAssertEqual(pinned["pin"]?["by"]?.string, a.id)
        b.sendViewport("temperature")
        b.pointer("temperature", "down", x: x + 1)
        b.pointer("temperature", "up", x: x + 1)
        _ = try a.selection("temperature") { $0["pin"] == .null }
    }

    func testRightToLeftViewerAtTheLeftEdgeSelectsTheLastCategory() throws {
        let server = try TestServer()
        let a = try server.viewer()
        a.sendViewport("sales", rtl: true)
        a.pointer("sales", "move", x: plot.x + 2)
        let selection = try a.selection("sales") { !($0["hovers"]?.array?.isEmpty ?? true) }
        XCTAssertEqual(selection["hovers"]?[0]?["x"]?.string, "December")
        XCTAssertEqual(selection["hovers"]?[0]?["fraction"]?.number ?? 0, 11.5 / 12, accuracy: 1e-9)
    }

    func testTwoViewersHoveringBothAppearNewestFirst() throws {
        let server = try TestServer()
        let a = try server.viewer(), b = try server.viewer()
        a.sendViewport("sales")
        b.sendViewport("sales", plot: TestPlot(x: 30, y: 5, width: 400, height: 200))
        a.pointer("sales", "move", x: plot.categoryX(2, of: 12))
        _ = try b.selection("sales") { $0["hovers"]?.array?.count == 1 }
        b.pointer("sales", "move", x: TestPlot(x: 30, y: 5, width: 400, height: 200).categoryX(8, of: 12))
        let both = try a.selection("sales") { $0["hovers"]?.array?.count == 2 }
        XCTAssertEqual(both["hovers"]?.array?.compactMap { $0["by"]?.string }, [b.id, a.id])
        XCTAssertEqual(both["hovers"]?.array?.compactMap { $0["x"]?.string }, ["September", "March"])
    }

    func testASecondViewersDragDuringTheFirstsIsIgnored() throws {
        let server = try TestServer()
        let a = try server.viewer(), b = try server.viewer()
        a.sendViewport("intake")
        b.sendViewport("intake")
        let domain = try numericDomain(a, "intake")
        a.pointer("intake", "down", x: plot.numericX(may1 + 2 * day, domain: domain))
        a.pointer("intake", "move", x: plot.numericX(may1 + 10 * day, domain: domain), ref: "a-1")
        _ = try b.selection("intake") { $0["ref"]?.string == "a-1" }
        b.pointer("intake", "down", x: plot.numericX(may1 + 20 * day, domain: domain))
        b.pointer("intake", "move", x: plot.numericX(may1 + 26 * day, domain: domain), ref: "b-1")
        b.pointer("intake", "up", x: plot.numericX(may1 + 26 * day, domain: domain), ref: "b-2")
        a.pointer("intake", "move", x: plot.numericX(may1 + 12 * day, domain: domain), ref: "a-2")
        var seen: [JSONValue] = []
        _ = try b.selection("intake") { seen.append($0); return $0["ref"]?.string == "a-2" }
        XCTAssertTrue(seen.allSatisfy { $0["range"]?["by"]?.string == a.id }, "B's drag must not move the range")
        XCTAssertFalse(seen.contains { ["b-1", "b-2"].contains($0["ref"]?.string ?? "") })
    }

    func testADisconnectMidDragClearsTheRange() throws {
        let server = try TestServer()
        let a = try server.viewer(), b = try server.viewer()
        a.sendViewport("intake")
        let domain = try numericDomain(a, "intake")
        a.pointer("intake", "down", x: plot.numericX(may1 + 2 * day, domain: domain))
        a.pointer("intake", "move", x: plot.numericX(may1 + 10 * day, domain: domain))
        _ = try b.selection("intake") { $0["range"] != .null }
        a.client.close()
        _ = try b.selection("intake") { $0["range"] == .null }
        // The drag owner is released: B can now drag.
        b.sendViewport("intake")
        b.pointer("intake", "down", x: plot.numericX(may1 + 4 * day, domain: domain))
        b.pointer("intake", "move", x: plot.numericX(may1 + 8 * day, domain: domain))
        let owned = try b.selection("intake") { $0["range"] != .null }
        XCTAssertEqual(owned["range"]?["by"]?.string, b.id)
    }

    func testKeyboardStepsAHoverAndEscapeClearsIt() throws {
        let server = try TestServer()
        let a = try server.viewer()
        a.send(#"{"type":"key","chart":"sales","key":"home","ref":"k-1"}"#)
        let first = try a.selection("sales") { $0["ref"]?.string == "k-1" }
        XCTAssertEqual(first["hovers"]?[0]?["x"]?.string, "January")
        a.send(#"{"type":"key","chart":"sales","key":"right","ref":"k-2"}"#)
        let second = try a.selection("sales") { $0["ref"]?.string == "k-2" }
        XCTAssertEqual(second["hovers"]?[0]?["x"]?.string, "February")
        a.send(#"{"type":"key","chart":"sales","key":"escape","ref":"k-3"}"#)
        let cleared = try a.selection("sales") { $0["ref"]?.string == "k-3" }
        XCTAssertEqual(cleared["hovers"], .array([]))
    }

    func testEvictionsLeavingAnActiveRangeRecomputeIt() throws {
        let server = try TestServer(tick: 0.1, window: 32)
        let a = try server.viewer()
        a.sendViewport("temperature")
        let domain = try numericDomain(a, "temperature")
        // Drag from left of the plot (clamped to the domain's start) to mid-May: the oldest days
        // leave the 32-point window within a few ticks, and the range must shrink with them.
        a.pointer("temperature", "down", x: plot.x - 20)
        a.pointer("temperature", "move", x: plot.numericX(may1 + 15 * day, domain: domain), ref: "r")
        let initial = try a.selection("temperature") { $0["ref"]?.string == "r" }
        let initialCount = try XCTUnwrap(initial["range"]?["count"]?.number)
        let shrunk = try a.selection("temperature") { ($0["range"]?["count"]?.number ?? .infinity) < initialCount }
        XCTAssertNil(shrunk["ref"]?.string, "recomputed by data, not by a pointer")
        let rows = shrunk["range"]?["rows"]?.array ?? []
        XCTAssertEqual(shrunk["range"]?["totals"]?[0]?["sum"]?.number ?? 0,
                       rows.compactMap { $0["y"]?.number }.reduce(0, +), accuracy: 1e-9)
    }
}
