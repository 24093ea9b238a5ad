import ChartCastProtocol
import XCTest
@testable import ChartCastServer

/// The slow-viewer sweep asks the kernel about a viewer's send queue only when output is pending
/// for it: an idle crowd costs no system call per viewer per sweep, and a viewer that stopped
/// reading is still found and closed.
final class SweepTests: XCTestCase {
    /// A connection whose send queue the test sets, counting how often the core asks for it.
    private final class Socket: ViewerConnection {
        let id: Int
        let remoteAddress: String
        var userData: AnyObject?
        var authorization: String? { nil }
        var unsent = 0
        var asked = 0
        var closedWith: UInt16?
        init(id: Int) {
            self.id = id
            remoteAddress = "127.0.0.1:\(41_000 + id)"
        }
        var kernelUnsentBytes: Int { asked += 1; return unsent }
        func requestWrite() {}
        func close(code: UInt16, reason: String) { closedWith = code }
    }

    private func core(chokeTimeout: Double = 4) -> ServerCore {
        var options = ServerOptions(port: 0, logLevel: .error)
        options.chokeTimeout = chokeTimeout
        return ServerCore(options: options, logger: Logger(level: .error))
    }

    /// Pulls every frame the core has for `socket`, as a writable socket would, across passes
    /// when the pass's share of chart data holds it.
    private func drain(_ core: ServerCore, _ socket: Socket) {
        while true {
            if core.nextFrame(for: socket).frame != nil { continue }
            guard core.isHeld(socket) else { return }
            core.finishServicePass()
        }
    }

    func testIdleUpToDateViewersAreNeverAskedForTheirSendQueue() {
        let core = core()
        let sockets = (1...100).map { Socket(id: $0) }
        for socket in sockets {
            core.open(socket)
            drain(core, socket)
        }
        core.publishViewersIfNeeded(now: ServerCore.now() + 10_000_000_000)
        for socket in sockets { drain(core, socket) }
        var now = ServerCore.now() + 20_000_000_000
        for _ in 0..<5 {
            core.sweep(now: now)
            now += 1_000_000_000
        }
        XCTAssertFalse(sockets.contains { core.isHeld($0) }, "every viewer is up to date, none waits for a pass")
        XCTAssertEqual(sockets.map(\.asked).reduce(0, +), 0, "nothing pending: no ioctl")
        XCTAssertTrue(sockets.allSatisfy { $0.closedWith == nil })
    }

    func testAViewerThatStopsReadingIsAskedAndClosedAfterTheChokeTimeout() {
        let core = core(chokeTimeout: 4)
        let reader = Socket(id: 1), stalled = Socket(id: 2)
        core.open(reader)
        core.open(stalled)
        drain(core, reader)
        // The stalled one takes nothing: its welcome and snapshots stay pending, its queue full.
        stalled.unsent = 400_000
        var now = ServerCore.now() + 1_000_000_000
        var closedAfter: Int?
        for second in 1...10 {
            core.sweep(now: now)
            drain(core, reader)
            if stalled.closedWith != nil, closedAfter == nil { closedAfter = second }
            now += 1_000_000_000
        }
        XCTAssertEqual(stalled.closedWith, 1008, "closed for not reading")
        XCTAssertNotNil(closedAfter)
        XCTAssertLessThanOrEqual(closedAfter ?? 99, 6, "within the choke timeout and a sweep or two")
        XCTAssertGreaterThanOrEqual(closedAfter ?? 0, 5, "not before the choke timeout")
        XCTAssertGreaterThan(stalled.asked, 0, "pending output: the kernel is asked")
        XCTAssertNil(reader.closedWith, "the reader stays")
    }
}
