import ChartCastProtocol
import ChartEngine
import WebSockets

/// One connected viewer: identity, viewports, and how far it has been served on each chart.
///
/// Memory is bounded whatever the viewer does: a fixed cursor per chart, at most one viewport
/// per chart, and a short queue of personal frames (welcome, errors) that drops when full.
/// - Note: service thread only.
final class Session: RosterMember {
    /// How far a viewer has been served on one chart.
    struct Cursor {
        /// The definition of the slot's chart this viewer was told about (`welcome` or a `chart`
        /// message); 0 when it knows no chart there (none yet, or told of its removal).
        var specVersion = 0
        /// The viewer needs the whole chart (first contact, or it fell off the append log).
        var needsSnapshot = true
        /// Whether a snapshot has been sent before (a second one is a resend to a lagging viewer).
        var hadSnapshot = false
        /// Number of the next append-log frame to send.
        var nextAppend = 0
        /// The channel's selection version last sent.
        var selectionVersion = 0
    }

    /// Personal frames waiting beyond this are dropped (and counted), never queued without bound.
    static let maxPersonalFrames = 16

    let connection: ViewerConnection
    var info: ViewerInfo
    var viewports: [Viewport?]
    var cursors: [Cursor]
    /// Round-robin start for the chart scan so one busy chart cannot starve the others.
    var nextChart = 0
    var viewersVersion = -1
    let rateLimiter: RateLimiter
    /// Whether this connection may `publish` (write token presented, or a loopback peer when no
    /// token is configured), decided at the handshake.
    let canWrite: Bool
    /// Set after a fatal error: only personal frames are still sent, then the connection closes.
    var closing = false
    /// This viewer's slot on the server's roster.
    var rosterSlot = -1
    private var personal = FIFOQueue<OutboundFrame>()

    /// A session with one cursor per chart slot.
    init(connection: ViewerConnection, info: ViewerInfo, cursors: [Cursor], rateLimiter: RateLimiter, canWrite: Bool) {
        self.connection = connection
        self.info = info
        self.viewports = Array(repeating: nil, count: cursors.count)
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
        }
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
