import ChartCastProtocol
import XCTest
@testable import ChartCastServer

/// The slow-viewer sweep asks the kernel about a viewer's send queue only when output is pending
/// for it: an idle crowd costs no system call per viewer per sweep, and a viewer that stopped
/// reading is still found and closed.
final class SweepTests: XCTestCase {
    private func harness(chokeTimeout: Double = 4) -> CoreHarness {
        var options = ServerOptions(port: 0, logLevel: .error)
        options.chokeTimeout = chokeTimeout
        return CoreHarness(options: options)
    }

    func testIdleUpToDateViewersAreNeverAskedForTheirSendQueue() throws {
        let harness = harness()
        let viewers = try (1...100).map { _ in try harness.viewer() }
        harness.core.publishViewersIfNeeded(now: ServerCore.now() + 10_000_000_000)
        for viewer in viewers { _ = try harness.drain(viewer) }
        var now = ServerCore.now() + 20_000_000_000
        for _ in 0..<5 {
            harness.core.sweep(now: now)
            now += 1_000_000_000
        }
        XCTAssertFalse(viewers.contains { harness.core.isHeld($0) }, "every viewer is up to date, none waits for a pass")
        XCTAssertEqual(viewers.map(\.unsentAsked).reduce(0, +), 0, "nothing pending: no ioctl")
        XCTAssertTrue(viewers.allSatisfy { $0.closedWith == nil })
    }

    func testAViewerThatStopsReadingIsAskedAndClosedAfterTheChokeTimeout() throws {
        let harness = harness(chokeTimeout: 4)
        let reader = try harness.viewer()
        // The stalled one takes nothing: its welcome and snapshots stay pending, its queue full.
        let stalled = CoreHarness.Connection(id: 1_000, remoteAddress: "127.0.0.1:41000", authorization: nil)
        stalled.unsent = 400_000
        harness.core.open(stalled)
        var now = ServerCore.now() + 1_000_000_000
        var closedAfter: Int?
        for second in 1...10 {
            harness.core.sweep(now: now)
            _ = try harness.drain(reader)
            if stalled.closedWith != nil, closedAfter == nil { closedAfter = second }
            now += 1_000_000_000
        }
        XCTAssertEqual(stalled.closedWith, 1008, "closed for not reading")
        XCTAssertNotNil(closedAfter)
        XCTAssertLessThanOrEqual(closedAfter ?? 99, 6, "within the choke timeout and a sweep or two")
        XCTAssertGreaterThanOrEqual(closedAfter ?? 0, 5, "not before the choke timeout")
        XCTAssertGreaterThan(stalled.unsentAsked, 0, "pending output: the kernel is asked")
        XCTAssertNil(reader.closedWith, "the reader stays")
    }
}
