import ChartCastProtocol
import ChartEngine
import WebSockets

/// One connected viewer: identity, viewports, and how far it has been served on each chart.
///
/// Memory is bounded whatever the viewer does: a fixed cursor per chart, at most one viewport
/// per chart, at most one history answer per chart it zoomed into the past (at most 4 points per
/// series per pixel column of its snapshot grid, for the chart's series only: at most
/// `ProtocolLimits.maxMessagePoints` in all), and a short queue of personal frames (welcome,
/// errors) that drops when full.
/// - Note: service thread only.
final class Session: RosterMember {
    /// How far a viewer has been served on one chart.
    struct Cursor {
        /// The definition of the slot's chart this viewer was told about (`welcome` or a `chart`
        /// message); 0 when it knows no chart there (none yet, or told of its removal).
        var specVersion = 0
        /// The viewer needs the whole chart (first contact, fell off the append log, a new plot
        /// width or view, a write too large for its plot).
        var needsSnapshot = true
        /// Whether a snapshot has been sent before (a second one is a resend to a lagging viewer).
        var hadSnapshot = false
        /// Number of the next append-log frame to send.
        var nextAppend = 0
        /// The channel's selection version last sent.
        var selectionVersion = 0
        /// Pixel columns of the viewer's plot: its viewport's width rounded up (at most
        /// `ProtocolLimits.maxSnapshotColumns`), 1,000 before it sent one. Snapshots carry at
        /// most 4 points per series per column, for at most this many columns
        /// (`ChartChannel.snapshotColumns(for:)`).
        var columns = Session.defaultColumns
        /// The `columns` of the snapshot last sent (0: it carried every point of its domain).
        var sentColumns = 0
        /// The x domain the viewer zoomed to (`view`), nil for the live window.
        var view: ClosedRange<Double>?
        /// `view`'s end, `+∞` for the live window: the viewer is sent no appends while this is
        /// before the chart's newest x (its zoomed picture holds still). One comparison on the
        /// fan-out's path.
        var viewEnd = Double.infinity
        /// Counts the snapshots of a view this viewer asked for on this chart (views, and widths
        /// of a view reaching into history), so that a history answer to an older request is
        /// recognised and dropped.
        var viewGeneration = 0
        /// A history read for the current view is under way; its snapshot follows the answer.
        var awaitingHistory = false
        /// The y domain the viewer's page draws this chart with, followed as the page does
        /// (`web/js/model.js`): the last snapshot's, then each append's that carries one —
        /// widened to hold both while that snapshot was of a view. Nil before a snapshot.
        var drawnY: ClosedRange<Double>?
        /// Whether the last snapshot sent was of a view (the page then widens its y domain).
        var drawnZoomed = false

        init(specVersion: Int = 0, columns: Int = Session.defaultColumns) {
            self.specVersion = specVersion
            self.columns = columns
        }
    }

    /// A history answer kept for the view it was read for (`Cursor.viewGeneration`).
    struct HistoryPart {
        var generation: Int
        var grid: M4Grid
        var series: [HistorySeries]
    }

    /// The plot width assumed until a viewer sends a viewport, in pixels.
    static let defaultColumns = 1_000

    /// Pixel columns of a plot `width` CSS pixels wide, at most `maxSnapshotColumns`: a wider
    /// plot (no screen has one) is served as that wide, so what a viewer's width can make the
    /// server send is bounded whatever it reports.
    static func columns(forWidth width: Double) -> Int {
        guard width.isFinite, width > 1 else { return 1 }
        return Int(Swift.min(width.rounded(.up), Double(ServerCore.limits.maxSnapshotColumns)))
    }

    /// Personal frames waiting beyond this are dropped (and counted), never queued without bound.
    static let maxPersonalFrames = 16

    // The fields every frame of a fan-out reads come first, in declaration order (which is
    // how Swift lays out a class): they share one or two cache lines instead of five, which a
    // walk over thousands of viewers — each visit after a `send` that evicted the last —
    // pays for per line.
    let connection: ViewerConnection
    var cursors: [Cursor]
    private var personal = FIFOQueue<OutboundFrame>()
    var viewersVersion = -1
    /// Round-robin start for the chart scan so one busy chart cannot starve the others.
    var nextChart = 0
    /// Writable callbacks so far (each `nextFrame`), so the sweep sees whether output moved.
    var writeCallbacks = 0
    /// Bytes of the frame handed out at the last writable callback (0: none): an upper bound on
    /// what libwebsockets holds while it reports a partial write.
    var lastFrameBytes = 0
    /// Set after a fatal error: only personal frames are still sent, then the connection closes.
    var closing = false
    /// Queued in `ServerCore.heldSessions`: its chart data waits for a later service pass.
    var isHeld = false
    var info: ViewerInfo
    var viewports: [Viewport?]
    /// Per chart slot: the history answer of the viewer's current view, when it reaches before
    /// the live window and a history reader is set.
    var histories: [HistoryPart?]
    var rateLimiter: RateLimiter
    /// The budget this viewer's address shares with its other connections (`AddressBudgets`);
    /// nil when there is none.
    var addressBudget: RateLimiter?
    /// The peer's IP address, the key of `addressBudget`.
    var address = ""
    /// Whether this connection may `publish` (write token presented, or a loopback peer when no
    /// token is configured), decided at the handshake.
    let canWrite: Bool
    /// This viewer's slot on the server's roster.
    var rosterSlot = -1
    /// `writeCallbacks` at the previous sweep.
    var sweptWriteCallbacks = 0
    /// The kernel's unsent bytes for the socket at the previous sweep (a smaller figure now means
    /// the peer is taking output, even while no writable callback came).
    var sweptKernelUnsent = 0
    /// Since when output has been pending without a write going through (monotonic ns), nil
    /// while output moves or nothing is pending. See `ServerCore.sweepSlowViewers`.
    var stuckSince: UInt64?

    /// A session with one cursor per chart slot.
    init(connection: ViewerConnection, info: ViewerInfo, cursors: [Cursor], rateLimiter: RateLimiter, canWrite: Bool) {
        self.connection = connection
        self.info = info
        self.viewports = Array(repeating: nil, count: cursors.count)
        self.histories = Array(repeating: nil, count: cursors.count)
        self.cursors = cursors
        self.rateLimiter = rateLimiter
        self.canWrite = canWrite
    }

    /// Adds cursors and viewports for chart slots added since (a cursor of version 0: the chart
    /// in the slot is announced with a `chart` message).
    /// - Complexity: O(new slots).
    func growSlots(to count: Int) {
        while cursors.count < count {
            cursors.append(Cursor())
            viewports.append(nil)
            histories.append(nil)
        }
    }

    /// The viewer's plot frame of chart slot `slot` with its zoomed view's x domain and the y
    /// domain it draws with, as the engine's pointer geometry takes it; nil before a viewport.
    func geometry(_ slot: Int) -> Viewport? {
        guard var viewport = viewports[slot] else { return nil }
        viewport.xDomain = cursors[slot].view
        viewport.yDomain = cursors[slot].drawnY
        return viewport
    }

    /// Queues a frame for this viewer alone. Returns false (frame dropped) when the queue is full.
    @discardableResult
    func enqueuePersonal(_ frame: OutboundFrame) -> Bool {
        guard personal.count < Session.maxPersonalFrames else { return false }
        personal.append(frame)
        return true
    }

    /// Whether personal frames are waiting.
    var hasPersonalFrames: Bool { !personal.isEmpty }

    /// The oldest personal frame, removed from the queue.
    /// - Complexity: O(1).
    func dequeuePersonal() -> OutboundFrame? {
        personal.popFirst()
    }

    /// Bytes held for this viewer beyond shared frames: queued personal frames.
    var pendingPersonalBytes: Int {
        personal.reduce(0) { $0 + $1.count }
    }
}

/// A token bucket: `rate` messages per second sustained, bursts up to `burst`.
final class RateLimiter {
    let rate: Double
    let burst: Double
    private var tokens: Double
    private var last: UInt64
    /// When the last `rate_limited` error was sent, so a flood earns one error a second, not one per message.
    var lastWarning: UInt64 = 0

    init(rate: Double, burst: Double, now: UInt64) {
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.last = now
    }

    /// Takes one token; false when the bucket is empty.
    func allow(now: UInt64) -> Bool {
        let elapsed = Double(now &- last) / 1e9
        last = now
        tokens = min(burst, tokens + elapsed * rate)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
