/// How much chart data (snapshots, appends, chart definitions) one service pass writes before
/// the rest waits for a later pass, so that input is read and selections go out between the
/// pieces of a big fan-out.
///
/// The base share is `baseBytes` or `baseNanoseconds` from the pass's first such frame,
/// whichever comes first. While viewers are held, a pass is also given at least as long as the
/// last one spent outside its data (polling every socket, reading input, other callbacks), up to
/// `maxNanoseconds`, with the bytes in proportion: on libwebsockets' poll loop a pass over
/// 10,000 sockets costs milliseconds whatever is ready, and a fixed 1 ms share would leave a
/// crowd's first snapshots trickling out at a third of the time while most of it went to polling.
/// So data gets at least half of a busy server's time, and input waits at most about two passes.
///
/// - Note: service thread only (a value owned by `ServerCore`).
struct DataBudget {
    static let baseBytes = 256 << 10
    static let baseNanoseconds: UInt64 = 1_000_000
    static let maxNanoseconds: UInt64 = 16_000_000

    /// Bytes of chart data handed out in the current pass.
    private(set) var bytes = 0
    /// Frames of chart data handed out in the current pass.
    private(set) var frames = 0
    /// When the current pass handed out its first frame of chart data (monotonic ns).
    private var firstFrameAt: UInt64 = 0
    /// When the previous pass ended, if viewers were still held then (the next pass starts at
    /// once instead of waiting in `poll`, so the time up to its first data frame is overhead).
    private var busyPassEndedAt: UInt64?
    /// This pass's share, in time and bytes.
    private(set) var nanoseconds = DataBudget.baseNanoseconds
    private(set) var byteLimit = DataBudget.baseBytes

    /// Whether this pass has written its share (a viewer's chart data must then wait). `now` is
    /// read only when the pass has written some, so a pass that wrote none reads no clock.
    /// - Complexity: O(1).
    func isSpent(now: @autoclosure () -> UInt64) -> Bool {
        bytes >= byteLimit || (bytes > 0 && now() &- firstFrameAt >= nanoseconds)
    }

    /// Counts one frame of chart data handed out at `now` (read for the pass's first frame only,
    /// which sets its share).
    /// - Complexity: O(1).
    mutating func record(_ frameBytes: Int, now: @autoclosure () -> UInt64) {
        if bytes == 0 {
            let now = now()
            firstFrameAt = now
            var share = DataBudget.baseNanoseconds
            if let ended = busyPassEndedAt, now > ended {
                share = Swift.min(Swift.max(share, now - ended), DataBudget.maxNanoseconds)
            }
            nanoseconds = share
            byteLimit = Int(UInt64(DataBudget.baseBytes) * share / DataBudget.baseNanoseconds)
        }
        bytes += frameBytes
        frames += 1
    }

    /// Ends a pass at `now`; `stillHeld`: viewers are waiting for a later pass.
    /// - Complexity: O(1).
    mutating func finishPass(now: UInt64, stillHeld: Bool) {
        busyPassEndedAt = stillHeld ? now : nil
        bytes = 0
        frames = 0
    }
}
