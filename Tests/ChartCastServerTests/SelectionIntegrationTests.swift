import ChartCastIngest
import ChartCastProtocol
import ChartEngine
import XCTest

/// The seed interactions on the demo dashboard, end to end: raw pointer events in real
/// WebSocket frames, selections computed by the server and seen by every viewer.
final class SelectionIntegrationTests: XCTestCase {
    private let plot = TestPlot.standard
    private let day = 86_400_000.0
    private let may1 = 1_651_363_200_000.0

    func testWorkoutsScrubOverWednesdayShows76() throws {   // seed 000
        let server = try TestServer()
        let a = try server.viewer(), b = try server.viewer()
        a.sendViewport("workouts")
        a.pointer("workouts", .down, x: plot.categoryX(1, of: 7))
        a.pointer("workouts", .move, x: plot.categoryX(2, of: 7), y: 120, ref: "w-1")
        let update = try b.selection("workouts") { $0.selection.scrub?.x == .category("Wed") }
        let scrub = try XCTUnwrap(update.selection.scrub)
        XCTAssertEqual(update.ref, "w-1")
        XCTAssertEqual(scrub.values, [SeriesValue(series: "Minutes", y: 76)])
        XCTAssertEqual(scrub.by, a.id)
        XCTAssertEqual(scrub.fraction, 2.5 / 7, accuracy: 1e-9)
        XCTAssertEqual(scrub.yFraction, 110.0 / 300, accuracy: 1e-9)
        a.pointer("workouts", .up, x: plot.categoryX(2, of: 7))
        _ = try b.selection("workouts") { $0.selection.scrub == nil }
    }

    func testExpensesScrubClampsToJanuaryAndDecemberOutsideThePlot() throws {   // seed 002
        let server = try TestServer()
        let a = try server.viewer()
        a.sendViewport("expenses")
        a.pointer("expenses", .down, x: plot.categoryX(5, of: 12))
        a.pointer("expenses", .move, x: plot.x - 40)
        let left = try a.selection("expenses") { $0.selection.scrub?.x == .category("JAN") }
        XCTAssertEqual(left.selection.scrub?.values.first?.y, 235)
        a.pointer("expenses", .move, x: plot.x + plot.width + 40)
        let right = try a.selection("expenses") { $0.selection.scrub?.x == .category("DEC") }
        XCTAssertEqual(right.selection.scrub?.values.first?.y, 456)
    }

    func testSalesHoverShowsEveryProductOnTheRightSide() throws {   // seed 003
        let server = try TestServer()
        let a = try server.viewer(), b = try server.viewer()
        a.sendViewport("sales")
        a.pointer("sales", .move, x: plot.categoryX(2, of: 12), ref: "r-991")
        let march = try b.selection("sales") { $0.selection.hovers.first?.x == .category("March") }
        XCTAssertEqual(march.ref, "r-991")
        let hover = try XCTUnwrap(march.selection.hovers.first)
        XCTAssertEqual(hover.values, [SeriesValue(series: "Ice Cream", y: 900), SeriesValue(series: "Coffee", y: 1900),
                                      SeriesValue(series: "Muffins", y: 800)])
        XCTAssertEqual(hover.placement, .trailing)
        XCTAssertEqual(hover.fraction, 2.5 / 12, accuracy: 1e-9)
        a.pointer("sales", .move, x: plot.categoryX(8, of: 12))
        let september = try b.selection("sales") { $0.selection.hovers.first?.x == .category("September") }
        XCTAssertEqual(september.selection.hovers.first?.placement, .leading)
        a.pointer("sales", .leave, x: 0, y: 0)
        _ = try b.selection("sales") { $0.selection.hovers.isEmpty }
    }

    func testIntakeRangeIsTheSameWhicheverWayItIsDragged() throws {   // seeds 001, 004a
        let server = try TestServer()
        let a = try server.viewer(), b = try server.viewer()
        a.sendViewport("intake")
        let domain = try a.numericDomain("intake")
        let left = plot.numericX(may1 + 4 * day, domain: domain) - 3, right = plot.numericX(may1 + 18 * day, domain: domain) + 3

        func drag(from start: Double, to end: Double) throws -> RangeSelection {
            a.pointer("intake", .down, x: start)
            a.pointer("intake", .move, x: (start + end) / 2)
            a.pointer("intake", .move, x: end, ref: "end")
            let update = try b.selection("intake") { $0.ref == "end" && $0.selection.range != nil }
            a.pointer("intake", .up, x: end)
            _ = try b.selection("intake") { $0.selection.range == nil }
            return try XCTUnwrap(update.selection.range)
        }
        let forward = try drag(from: left, to: right)
        let backward = try drag(from: right, to: left)
        XCTAssertEqual(forward.rows, backward.rows)
        XCTAssertEqual(forward.totals, backward.totals)
        XCTAssertEqual(forward.from, backward.from)
        XCTAssertEqual(forward.rows.map(\.x), stride(from: 4.0, through: 18, by: 2).map { .number(may1 + $0 * day) })
        XCTAssertEqual(forward.count, 8)
        XCTAssertEqual(forward.totals.first?.sum, forward.rows.map(\.y).reduce(0, +))
        XCTAssertFalse(forward.truncated)
        guard case .number(let from) = forward.from, case .number(let to) = forward.to else { return XCTFail("numeric ends") }
        XCTAssertLessThanOrEqual(from, to)
    }

    func testTemperatureTapPinsTheNearestDayAndASecondTapClearsIt() throws {   // seed 004b
        let server = try TestServer()
        let a = try server.viewer(), b = try server.viewer()
        a.sendViewport("temperature")
        let domain = try a.numericDomain("temperature")
        let x = plot.numericX(may1 + 9.3 * day, domain: domain)
        a.pointer("temperature", .down, x: x)
        a.pointer("temperature", .up, x: x + 2)
        let pinned = try b.selection("temperature") { $0.selection.pin != nil }
        XCTAssertEqual(pinned.selection.pin?.x, .number(may1 + 9 * day))
        XCTAssertEqual(pinned.selection.pin?.by, a.id)
        b.sendViewport("temperature")
        b.pointer("temperature", .down, x: x + 1)
        b.pointer("temperature", .up, x: x + 1)
        _ = try a.selection("temperature") { $0.selection.pin == nil }
    }

    /// `GET /api/charts/{id}/selection` answers the chart's shared selection as the viewers
    /// last received it: the same hovers, range and pin, and the same `seq`.
    func testTheSelectionEndpointAnswersWhatTheViewersWereSent() throws {
        let server = try TestServer()
        // A chart that hovers, drags a range and pins (no demo chart does all three).
        let spec = ChartSpec(id: "cpu", title: "CPU", mark: .line, xKind: .time, series: ["user"],
                             interactions: ChartSpec.defaultInteractions(for: .time), window: 100)
        let json = "Content-Type: application/json"
        XCTAssertEqual(try server.request("PUT", "/api/charts/cpu", headers: [json], body: spec.encoded()).status, 201)
        let t0 = 1_733_011_200_000.0, minute = 60_000.0
        let rows = (0..<30).map { (series: "user", x: XValue.number(t0 + Double($0) * minute), y: Optional(Double($0 % 7))) }
        XCTAssertEqual(try server.request("POST", "/api/charts/cpu/points", headers: [json], body: PointsBody.rows(rows)).status, 200)

        let a = try server.viewer(), b = try server.viewer()
        a.sendViewport("cpu")
        b.sendViewport("cpu")
        let domain = try a.numericDomain("cpu")
        let at = { (i: Double) in self.plot.numericX(t0 + i * minute, domain: domain) }
        a.pointer("cpu", .down, x: at(9))
        a.pointer("cpu", .up, x: at(9), ref: "pin")
        _ = try b.selection("cpu") { $0.ref == "pin" }
        b.pointer("cpu", .move, x: at(20), ref: "hover")
        _ = try a.selection("cpu") { $0.ref == "hover" }
        a.pointer("cpu", .down, x: at(4))
        a.pointer("cpu", .move, x: at(11))
        a.pointer("cpu", .move, x: at(16), ref: "range")   // held: the range stays
        let sentToB = try b.selection("cpu") { $0.ref == "range" }
        let sentToA = try a.selection("cpu") { $0.ref == "range" }
        XCTAssertEqual(sentToA, sentToB)
        XCTAssertEqual(try XCTUnwrap(sentToB.selection.pin).x, .number(t0 + 9 * minute))
        XCTAssertEqual(sentToB.selection.hovers.map(\.by), [b.id], "B's hover (A's ended with its drag)")
        XCTAssertEqual(sentToB.selection.hovers.first?.x, .number(t0 + 20 * minute))
        let range = try XCTUnwrap(sentToB.selection.range)
        XCTAssertEqual(range.by, a.id)
        XCTAssertEqual(range.rows.map(\.x), (4...16).map { .number(t0 + Double($0) * minute) })

        let response = try server.request("GET", "/api/charts/cpu/selection")
        XCTAssertEqual(response.status, 200, response.bodyText)
        XCTAssertEqual(response.headers["content-type"], "application/json")
        guard case .selection(let answered) = try ServerMessage.decode(response.body) else {
            return XCTFail("not a selection: \(response.bodyText)")
        }
        XCTAssertEqual(answered.chart, "cpu")
        XCTAssertEqual(answered.seq, sentToB.seq)
        XCTAssertNil(answered.ref, "no pointer event asked for it")
        XCTAssertEqual(answered.selection, sentToB.selection)
    }

    func testRightToLeftViewerAtTheLeftEdgeSelectsTheLastCategory() throws {
        let server = try TestServer()
        let a = try server.viewer()
        a.sendViewport("sales", rtl: true)
        a.pointer("sales", .move, x: plot.x + 2)
        let update = try a.selection("sales") { !$0.selection.hovers.isEmpty }
        XCTAssertEqual(update.selection.hovers.first?.x, .category("December"))
        XCTAssertEqual(update.selection.hovers.first?.fraction ?? 0, 11.5 / 12, accuracy: 1e-9)
    }

    func testTwoViewersHoveringBothAppearNewestFirst() throws {
        let server = try TestServer()
        let a = try server.viewer(), b = try server.viewer()
        let small = TestPlot(x: 30, y: 5, width: 400, height: 200)
        a.sendViewport("sales")
        b.sendViewport("sales", plot: small)
        a.pointer("sales", .move, x: plot.categoryX(2, of: 12))
        _ = try b.selection("sales") { $0.selection.hovers.count == 1 }
        b.pointer("sales", .move, x: small.categoryX(8, of: 12))
        let both = try a.selection("sales") { $0.selection.hovers.count == 2 }
        XCTAssertEqual(both.selection.hovers.map(\.by), [b.id, a.id])
        XCTAssertEqual(both.selection.hovers.map(\.x), [.category("September"), .category("March")])
    }

    func testASecondViewersDragDuringTheFirstsIsIgnored() throws {
        let server = try TestServer()
        let a = try server.viewer(), b = try server.viewer()
        a.sendViewport("intake")
        b.sendViewport("intake")
        let domain = try a.numericDomain("intake")
        a.pointer("intake", .down, x: plot.numericX(may1 + 2 * day, domain: domain))
        a.pointer("intake", .move, x: plot.numericX(may1 + 10 * day, domain: domain), ref: "a-1")
        _ = try b.selection("intake") { $0.ref == "a-1" }
        b.pointer("intake", .down, x: plot.numericX(may1 + 20 * day, domain: domain))
        b.pointer("intake", .move, x: plot.numericX(may1 + 26 * day, domain: domain), ref: "b-1")
        b.pointer("intake", .up, x: plot.numericX(may1 + 26 * day, domain: domain), ref: "b-2")
        a.pointer("intake", .move, x: plot.numericX(may1 + 12 * day, domain: domain), ref: "a-2")
        var seen: [ServerMessage.SelectionUpdate] = []
        _ = try b.selection("intake") { seen.append($0); return $0.ref == "a-2" }
        XCTAssertTrue(seen.allSatisfy { $0.selection.range?.by == a.id }, "B's drag must not move the range")
        XCTAssertFalse(seen.contains { ["b-1", "b-2"].contains($0.ref ?? "") })
    }

    func testADisconnectMidDragClearsTheRange() throws {
        let server = try TestServer()
        let a = try server.viewer(), b = try server.viewer()
        a.sendViewport("intake")
        let domain = try a.numericDomain("intake")
        a.pointer("intake", .down, x: plot.numericX(may1 + 2 * day, domain: domain))
        a.pointer("intake", .move, x: plot.numericX(may1 + 10 * day, domain: domain))
        _ = try b.selection("intake") { $0.selection.range != nil }
        a.client.close()
        _ = try b.selection("intake") { $0.selection.range == nil }
        // The drag owner is released: B can now drag.
        b.sendViewport("intake")
        b.pointer("intake", .down, x: plot.numericX(may1 + 4 * day, domain: domain))
        b.pointer("intake", .move, x: plot.numericX(may1 + 8 * day, domain: domain))
        let owned = try b.selection("intake") { $0.selection.range != nil }
        XCTAssertEqual(owned.selection.range?.by, b.id)
    }

    func testKeyboardStepsAHoverAndEscapeClearsIt() throws {
        let server = try TestServer()
        let a = try server.viewer()
        a.key("sales", .home, ref: "k-1")
        XCTAssertEqual(try a.selection("sales") { $0.ref == "k-1" }.selection.hovers.first?.x, .category("January"))
        a.key("sales", .right, ref: "k-2")
        XCTAssertEqual(try a.selection("sales") { $0.ref == "k-2" }.selection.hovers.first?.x, .category("February"))
        a.key("sales", .escape, ref: "k-3")
        XCTAssertEqual(try a.selection("sales") { $0.ref == "k-3" }.selection.hovers, [])
    }

    func testEvictionsLeavingAnActiveRangeRecomputeIt() throws {
        let server = try TestServer(tick: 0.1, window: 32)
        let a = try server.viewer()
        a.sendViewport("temperature")
        let domain = try a.numericDomain("temperature")
        // Drag from left of the plot (clamped to the domain's start) to mid-May: the oldest days
        // leave the 32-point window within a few ticks, and the range must shrink with them.
        a.pointer("temperature", .down, x: plot.x - 20)
        a.pointer("temperature", .move, x: plot.numericX(may1 + 15 * day, domain: domain), ref: "r")
        let initial = try a.selection("temperature") { $0.ref == "r" }
        let initialCount = try XCTUnwrap(initial.selection.range?.count)
        let shrunk = try a.selection("temperature") { ($0.selection.range?.count ?? .max) < initialCount }
        XCTAssertNil(shrunk.ref, "recomputed by data, not by a pointer")
        let range = try XCTUnwrap(shrunk.selection.range)
        XCTAssertEqual(range.totals.first?.sum ?? 0, range.rows.map(\.y).reduce(0, +), accuracy: 1e-9)
    }
}
