import ChartCastProtocol
import ChartEngine
import Foundation
import XCTest

/// The drag lease end to end: real viewers over real sockets, the server's sweep on its timer.
final class DragLeaseIntegrationTests: XCTestCase {
    private let plot = TestPlot.standard
    private let day = 86_400_000.0
    private let may1 = 1_651_363_200_000.0

    func testASilentDragOwnerLosesTheDragAndAnotherViewerCanThenDrag() throws {
        let lease = 2.0
        let server = try TestServer { $0.dragLease = lease }
        let a = try server.viewer(), b = try server.viewer()
        a.sendViewport("intake")
        b.sendViewport("intake")
        let domain = try a.numericDomain("intake")
        a.pointer("intake", .down, x: plot.numericX(may1 + 2 * day, domain: domain))
        a.pointer("intake", .move, x: plot.numericX(may1 + 10 * day, domain: domain), ref: "a-1")
        let started = try b.selection("intake") { $0.ref == "a-1" }
        XCTAssertEqual(started.selection.range?.by, a.id)
        let silentSince = Date()
        // A goes silent (its connection stays open, like a stopped process). B sees the drag end.
        let ended = try b.selection("intake", timeout: lease + 5) { $0.selection.range == nil }
        let waited = Date().timeIntervalSince(silentSince)
        XCTAssertNil(ended.ref)
        XCTAssertGreaterThanOrEqual(waited, lease / 2, "the lease held for its duration")
        XCTAssertLessThan(waited, lease + 5)
        _ = try a.selection("intake") { $0.selection.range == nil }   // the former owner is told too
        // The chart is free: B drags.
        b.pointer("intake", .down, x: plot.numericX(may1 + 4 * day, domain: domain))
        b.pointer("intake", .move, x: plot.numericX(may1 + 8 * day, domain: domain), ref: "b-1")
        let owned = try a.selection("intake") { $0.ref == "b-1" }
        XCTAssertEqual(owned.selection.range?.by, b.id)
        // A wakes up mid-gesture: the rest of its old press is ignored.
        a.pointer("intake", .move, x: plot.numericX(may1 + 20 * day, domain: domain), ref: "a-2")
        b.pointer("intake", .move, x: plot.numericX(may1 + 9 * day, domain: domain), ref: "b-2")
        var seen: [ServerMessage.SelectionUpdate] = []
        _ = try a.selection("intake") { seen.append($0); return $0.ref == "b-2" }
        XCTAssertTrue(seen.allSatisfy { $0.selection.range?.by == b.id })
        let metrics = try server.request("GET", "/metrics")
        XCTAssertTrue(metrics.bodyText.contains("chartcast_drag_leases_expired_total 1\n"), metrics.bodyText)
    }

    func testAnOwnerThatKeepsMovingKeepsTheDrag() throws {
        let lease = 2.0
        let server = try TestServer { $0.dragLease = lease }
        let a = try server.viewer(), b = try server.viewer()
        a.sendViewport("workouts")
        a.pointer("workouts", .down, x: plot.categoryX(1, of: 7))
        let began = Date()
        var step = 0
        // Moves every 0.25 s for three leases: the scrub never ends.
        while Date().timeIntervalSince(began) < 3 * lease {
            step += 1
            a.pointer("workouts", .move, x: plot.categoryX(1 + step % 5, of: 7) + 10, ref: "m-\(step)")
            _ = try b.selection("workouts") { $0.ref == "m-\(step)" }
            Thread.sleep(forTimeInterval: 0.25)
        }
        a.pointer("workouts", .up, x: plot.categoryX(1, of: 7), ref: "up")
        var seen: [ServerMessage.SelectionUpdate] = []
        _ = try b.selection("workouts") { seen.append($0); return $0.ref == "up" }
        XCTAssertEqual(seen.last?.selection.scrub, nil)
        let metrics = try server.request("GET", "/metrics")
        XCTAssertTrue(metrics.bodyText.contains("chartcast_drag_leases_expired_total 0\n"), metrics.bodyText)
    }
}
