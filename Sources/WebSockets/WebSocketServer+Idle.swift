import CLibWebsockets
import Glibc

/// Idle WebSockets: a ping after `pingInterval` seconds without a message or pong from the peer,
/// a hang-up after `idleTimeout` seconds of it.
///
/// Why not libwebsockets' validity timer (`retry_and_idle_policy`), which does the same: it keeps
/// one timer per connection in one sorted list, and re-arming a timer walks that list from its
/// head. Every connection's timer is due later than all the others' armed before it, so each
/// arrival, and each message received (a talking peer is alive, the timer starts over), walked
/// past every other connection: O(connections), about 70 % of the server's CPU while 10,000
/// viewers arrived. Here a message costs one clock read into the connection (O(1)), and a sweep
/// every `idleSweepInterval` seconds looks at every connection once. libwebsockets' own timer is
/// kept disarmed (a policy whose hang-up is 0; without one it would arm its 300 s default at
/// every handshake).
extension WebSocketServer {
    /// Seconds between two sweeps: a ping or hang-up happens at most this much after it is due.
    var idleSweepInterval: Double {
        let limits = configuration.limits
        let shortest = [limits.pingInterval, limits.idleTimeout].filter { $0 > 0 }.min() ?? 1
        return min(1, Double(shortest) / 4)
    }

    /// Now, for idle bookkeeping: the coarse monotonic clock (a few ns to read; resolution of a
    /// scheduler tick, far finer than the seconds it measures).
    /// - Complexity: O(1).
    static func idleClock() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }

    /// The peer of `connection` was heard from (a message chunk, a pong): its silence starts
    /// over. - Complexity: O(1). - Note: service thread only.
    func heard(from connection: WebSocketConnection) {
        connection.lastHeard = WebSocketServer.idleClock()
        connection.pinged = false
    }

    /// Starts the sweep, when WebSockets are watched at all. - Note: service thread only.
    func startIdleSweep() {
        guard configuration.limits.watchesIdleness else { return }
        _ = loop.scheduleTimer(every: idleSweepInterval) { [unowned self] in sweepIdle(now: WebSocketServer.idleClock()) }
    }

    /// Pings every connection silent for `pingInterval` (once per silence) and hangs up on every
    /// one silent for `idleTimeout`.
    /// - Complexity: O(connections), a few comparisons each.
    /// - Note: service thread only.
    func sweepIdle(now: UInt64) {
        let limits = configuration.limits
        let ping = limits.pingInterval > 0 ? UInt64(limits.pingInterval) * 1_000_000_000 : UInt64.max
        let hangup = limits.idleTimeout > 0 ? UInt64(limits.idleTimeout) * 1_000_000_000 : UInt64.max
        for connection in connections.values {
            guard let wsi = connection.wsi, now > connection.lastHeard else { continue }
            let silence = now - connection.lastHeard
            if silence >= hangup {
                guard !connection.hungUp else { continue }
                connection.hungUp = true
                WebSocketLog.log(.info, "connection \(connection.id) silent for \(limits.idleTimeout) s: closing it")
                lws_set_timeout(wsi, PENDING_TIMEOUT_WS_PONG_CHECK_GET_PONG, LWS_TO_KILL_ASYNC)
            } else if silence >= ping && !connection.pinged {
                connection.pinged = true
                connection.pingDue = true
                connection.requestWrite()
            }
        }
    }

    /// Writes the ping `connection` is due; the peer answers with a pong carrying its payload.
    /// The payload is not empty: libwebsockets 4.1 never reports an empty pong (its client does
    /// not answer an empty ping either).
    /// - Returns: false when the write failed.
    /// - Note: service thread only, in its writable callback.
    func writePing(on connection: WebSocketConnection, wsi: OpaquePointer) -> Bool {
        connection.pingDue = false
        return cc_lws_write(wsi, pingFrame.payload, pingFrame.count, Int32(LWS_WRITE_PING.rawValue)) >= 0
    }
}
