#if canImport(Glibc)
import Glibc
#endif
import ChartEngine

extension ServerCore {
    /// Viewers leaving between two trims before the allocator is asked to return free memory.
    static let trimAfterDepartures = 1_000
    /// At most one trim in this many seconds (a trim walks the heap).
    static let trimInterval = 5.0

    /// Seconds between two sweeps: a second, or a quarter of the shortest lease or timeout
    /// swept (tests set them short), at least 50 ms.
    static func sweepInterval(_ options: ServerOptions) -> Double {
        max(0.05, min(1, options.dragLease / 4, options.chokeTimeout / 4, options.backlogGrace / 4))
    }

    /// The periodic sweep (a timer on the service thread): drag leases, slow viewers, memory.
    /// - Complexity: O(charts + viewers · charts) (the viewers' pending check walks the charts
    ///   only for a viewer that made no write since the previous sweep).
    /// - Note: service thread only.
    func sweep(now: UInt64 = ServerCore.now()) {
        assertOwningThread()
        expireDragLeases(now: now)
        sweepSlowViewers(now: now)
        trimMemoryIfNeeded(now: now)
    }

    /// Ends every drag whose owner sent no input to its chart for `options.dragLease`: the
    /// chart is released and every viewer is sent the new selection, as when the owner leaves.
    /// - Complexity: O(charts), plus one wake of everyone (at the end of the pass) when a drag ended.
    func expireDragLeases(now: UInt64) {
        if cluster != nil { return clusterExpireDragLeases(now: now) }
        let seconds = Double(now) / 1e9
        var released = false
        for channel in channels where !channel.isRemoved {
            guard let owner = channel.engine.releaseIdleDrag(now: seconds, lease: options.dragLease) else { continue }
            metrics.dragLeasesExpired += 1
            channel.selectionDidChange(ref: nil, now: now)
            released = true
            logger.info("viewer \(owner) lost the drag on \(channel.id): no input for \(options.dragLease) s")
        }
        if released { wakeAtEndOfPass() }   // the sweep's timer callback: written at the pass's end, as a tick
    }

    /// Closes the viewers that stopped taking output: output pending, no writable callback since
    /// the previous sweep and the kernel's send queue no shorter, for `options.backlogGrace` while more than
    /// `options.maxBacklogBytes` are unsent, or for `options.chokeTimeout` whatever the amount.
    ///
    /// The unsent backlog of a viewer is what is written for it alone and not taken: the rest
    /// of its last frame in libwebsockets' partial-write buffer (counted as the whole frame, an
    /// upper bound), what the kernel still holds in its socket's send queue, and its queued
    /// personal frames. Shared frames are not copied per viewer, and nothing else is queued: a
    /// slow viewer is served the newest state when it reads again.
    /// - Complexity: O(viewers · charts), plus one `ioctl` per viewer with output pending that
    ///   made no write since the last sweep.
    func sweepSlowViewers(now: UInt64) {
        for session in roster where !session.closing {
            if session.isHeld {
                // Waiting for the server (held for a later pass), not for the viewer.
                session.stuckSince = nil
                continue
            }
            // Progress: a frame was taken since the previous sweep, or the kernel's queue shrank
            // (libwebsockets drains a partial frame itself, with no writable callback meanwhile;
            // the kernel is asked only when no frame was taken and output is pending: an idle
            // crowd costs no system call per viewer per sweep).
            let wrote = session.writeCallbacks != session.sweptWriteCallbacks
            session.sweptWriteCallbacks = session.writeCallbacks
            let partial = session.connection.hasPartialWrite
            guard !wrote, partial || session.hasPersonalFrames || hasSharedFrames(for: session) else {
                session.stuckSince = nil
                // After a write, as if the queue had emptied; otherwise not asked (the first sweep
                // that finds output pending takes its reading and counts from the next).
                session.sweptKernelUnsent = wrote ? 0 : .max
                continue
            }
            let unsent = session.connection.kernelUnsentBytes
            let progressed = unsent < session.sweptKernelUnsent
            session.sweptKernelUnsent = unsent
            guard !progressed else {
                session.stuckSince = nil
                continue
            }
            guard let since = session.stuckSince else {
                // Pending and not moved since the previous sweep: counted from now on.
                session.stuckSince = now
                continue
            }
            let stuck = Double(now &- since) / 1e9
            let backlog = (partial ? session.lastFrameBytes : 0) + unsent + session.pendingPersonalBytes
            if backlog > options.maxBacklogBytes && stuck >= options.backlogGrace {
                metrics.viewersClosedBacklog += 1
                closeSlow(session, "\(backlog) bytes unsent for \(Int(stuck.rounded())) s (limit \(options.maxBacklogBytes))")
            } else if stuck >= options.chokeTimeout {
                metrics.viewersClosedChoked += 1
                closeSlow(session, "no output taken for \(Int(stuck.rounded())) s")
            }
        }
    }

    /// Closes a viewer that is not reading (1008). Its close frame cannot go out through a full
    /// socket: the WebSocket layer's close timeout drops the connection.
    private func closeSlow(_ session: Session, _ why: String) {
        session.closing = true
        logger.warn("viewer \(session.info.id) closed for not reading: \(why)")
        session.connection.close(code: 1008, reason: "not reading")
    }

    /// After many departures (at least `trimAfterDepartures` since the last trim, at most one
    /// trim per `trimInterval`), asks the allocator to give free memory back to the system:
    /// glibc keeps freed heap pages otherwise, so a flood of connections leaves the server's
    /// RSS high long after it ended. A trim made while viewers were still leaving (some left
    /// since the previous sweep) is followed by one more once a sweep finds nobody left since
    /// the one before: the rest of that exodus, however few, is handed back too.
    /// - Returns: whether it trimmed.
    @discardableResult
    func trimMemoryIfNeeded(now: UInt64) -> Bool {
        let quiet = departuresSinceTrim == departuresAtLastSweep
        departuresAtLastSweep = departuresSinceTrim
        guard options.trimMemory, departuresSinceTrim > 0,
              departuresSinceTrim >= ServerCore.trimAfterDepartures || (trimFollowUpOwed && quiet),
              lastTrimAt == 0 || Double(now &- lastTrimAt) / 1e9 >= ServerCore.trimInterval else { return false }
        trimFollowUpOwed = !quiet
        departuresSinceTrim = 0
        departuresAtLastSweep = 0
        lastTrimAt = now
        metrics.memoryTrims += 1
        _ = ServerCore.mallocTrim?(0)
        return true
    }

    /// glibc's `malloc_trim`, found at run time: `<malloc.h>` is not part of Swift's Glibc
    /// module, and another C library has none (then nothing is trimmed).
    static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        #else
        return nil
        #endif
    }()
}
