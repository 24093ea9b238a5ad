import ChartCastProtocol
import ChartEngine
import Dispatch

/// What `chartcast-bench --event` measures of the server itself: the service thread's own work
/// for one pointer event, without sockets — the frame decoded, the selection engine run, the
/// selection encoded once and every viewer's next frame picked, as `ServerCore` does it between
/// libwebsockets' receive and write callbacks. What is left of a pointer event's CPU in a real
/// run (`docs/performance.md`, "Fixed cost per pointer event") is the kernel's and lws's.
@_spi(Benchmarks)
public enum PointerEventBenchmark {
    /// Nanoseconds per event, in parts.
    public struct Result {
        /// `ClientMessage.decode` of the pointer frame alone.
        public var decode: Double
        /// `ServerCore.receive` of the frame: decode, the selection engine, the change recorded.
        public var receive: Double
        /// One whole event: `receive`, the end of the pass, and every viewer's frame pulled.
        public var event: Double
        /// Bytes of the selection frame each viewer is sent.
        public var frameBytes: Int
        /// Frames pulled per event (one per viewer, the driver included).
        public var framesPerEvent: Double
    }

    /// An in-memory viewer: frames are pulled by the benchmark as a writable socket would be.
    private final class Viewer: ViewerConnection {
        let id: Int
        let remoteAddress: String
        var userData: AnyObject?
        var authorization: String? { nil }
        init(id: Int) {
            self.id = id
            remoteAddress = "127.0.0.1:\(40_000 + id)"
        }
        func requestWrite() {}
        func close(code: UInt16, reason: String) {}
    }

    /// Hovers the demo's `sales` chart with `viewers` viewers watching (the first one driving),
    /// the x moving each event so every event changes the shared selection.
    public static func run(viewers: Int, events: Int) -> Result {
        let core = ServerCore(options: ServerOptions(port: 0, logLevel: .error), logger: Logger(level: .error))
        let connections = (0..<Swift.max(viewers, 1)).map { Viewer(id: $0 + 1) }
        for connection in connections {
            core.open(connection)
            // No rate limit: the benchmark sends as fast as the core takes them.
            core.session(for: connection)?.rateLimiter = RateLimiter(rate: 1e12, burst: 1e12, now: ServerCore.now())
            core.session(for: connection)?.addressBudget = nil
            core.receive(.text(Array(#"{"type":"viewport","chart":"sales","plot":{"x":40,"y":10,"width":600,"height":300},"rtl":false}"#.utf8)),
                         from: connection)
        }
        core.finishServicePass()
        var pulled = 0
        /// Every viewer's frames, pulled as writable sockets would, across passes for the viewers
        /// that a pass's share of chart data holds (their first snapshots, at 1,000 viewers).
        func drain() {
            for connection in connections {
                while true {
                    if core.nextFrame(for: connection).frame != nil { pulled += 1; continue }
                    guard core.isHeld(connection) else { break }
                    core.finishServicePass()
                }
            }
        }
        drain()
        // Twelve bars over 600 px: x steps through them, a new hover every event.
        let frames: [[UInt8]] = (0..<12).map { bar in
            Array(#"{"type":"pointer","chart":"sales","phase":"move","x":\#(45 + bar * 50).5,"y":150,"ref":"r-\#(bar)"}"#.utf8)
        }
        var checksum = 0
        let decode = time(events) { i in
            if case .pointer(let p)? = try? ClientMessage.decode(frames[i % frames.count], limits: ServerCore.limits) {
                checksum &+= Int(p.x)
            }
        }
        let driver = connections[0]
        let receive = time(events) { i in core.receive(.text(frames[i % frames.count]), from: driver) }
        core.finishServicePass()
        drain()
        func event(_ i: Int) {
            core.receive(.text(frames[i % frames.count]), from: driver)
            core.finishServicePass()
            drain()
        }
        let eventTime = time(events) { event($0) }
        // Frames per event, counted apart from the timed runs (and their warm-up).
        pulled = 0
        let counted = Swift.min(events, 1_000)
        for i in 0..<counted { event(i) }
        let framesPerEvent = Double(pulled) / Double(counted)
        var frameBytes = 0
        core.receive(.text(frames[0]), from: driver)
        core.finishServicePass()
        if let frame = core.nextFrame(for: connections[connections.count - 1]).frame { frameBytes = frame.count }
        precondition(checksum != 0)
        return Result(decode: decode, receive: receive, event: eventTime, frameBytes: frameBytes, framesPerEvent: framesPerEvent)
    }

    /// Nanoseconds per call of `body`, over `count` calls after a warm-up of a tenth as many.
    private static func time(_ count: Int, _ body: (Int) -> Void) -> Double {
        for i in 0..<Swift.max(count / 10, 1) { body(i) }
        let start = DispatchTime.now().uptimeNanoseconds
        for i in 0..<count { body(i) }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(Swift.max(count, 1))
    }
}
