import ChartCastDemo
import WebSockets

/// Runs one soak: opens the crowd, keeps it for `options.seconds` while stalling, vanishing and
/// freezing some of it, samples the server's RSS, then stops the drivers, lets every stalled or
/// frozen connection read again and checks that every viewer converged.
///
/// All connections live on one `LoadTransport`; the thread calling `run()` only
/// orchestrates (once a second) through `perform`, like `LoadRunner`.
/// - Note: `run()` blocks the calling thread for the whole soak; call it once per runner.
public final class SoakRunner {
    public let options: SoakOptions
    /// Called on the `run()` thread with each progress line (also printed unless quiet).
    public var onProgress: ((String) -> Void)?

    let recorder = LoadRecorder()
    private var context: LoadTransport?
    /// The reading viewers, then one slot per driver; a vanished connection's slot gets a fresh one.
    private var viewers: [LoadClient] = []
    private var drivers: [LoadClient] = []
    private var toOpen: [LoadClient] = []
    private var nextIndex = 0
    private var opened = 0
    private var timers: [LoadTimer] = []
    /// Opens connections until the very end, so replacements made late still join the check.
    private var openTimer: LoadTimer?
    /// Stalled viewers (by object) and when each reads again (seconds since start).
    private var stalledUntil: [ObjectIdentifier: Double] = [:]
    /// Frozen driver slots and when each carries on.
    private var frozenUntil: [Int: Double] = [:]
    private var vanishedViewers = 0, vanishedDrivers = 0, stalls = 0, freezes = 0
    /// The first connections the server closed, described.
    private var drops: [String] = []
    private var nextVanish = 0.0, nextFreeze = 0.0
    private var random = SplitMix64(seed: 0x50a4)
    private var startedAt: UInt64 = 0

    public init(options: SoakOptions) {
        self.options = options
    }

    /// Runs the soak to completion.
    /// - Throws: when the client context cannot be created or stops answering.
    public func run() throws -> SoakReport {
        FileLimit.raise(to: options.viewers + options.drivers + 1_024)
        let server = options.serverPID.map(ServerProcess.init(pid:))
            ?? (["127.0.0.1", "localhost", "::1"].contains(options.url.host) ? ServerProcess.listening(onPort: options.url.port) : nil)
        let context = try options.clientKind.makeTransport()
        self.context = context
        defer { context.shutdown() }
        startedAt = MonotonicClock.now()
        try onService {
            for _ in 0..<self.options.drivers { self.drivers.append(self.makeClient(driver: self.drivers.count)) }
            for _ in 0..<self.options.viewers { self.viewers.append(self.makeClient(driver: nil)) }
            self.toOpen = self.drivers + self.viewers
            self.nextVanish = self.options.ramp + self.options.vanishEvery
            self.nextFreeze = self.options.ramp + self.options.freezeEvery
            self.openTimer = context.schedule(every: 0.005) { self.openDue() }
            self.timers.append(context.schedule(every: 1) { self.churn() })
            let period = 1 / self.options.rate
            for slot in 0..<self.options.drivers {
                self.timers.append(context.schedule(every: period) {
                    if self.frozenUntil[slot] == nil { self.drivers[slot].sendNextPointer() }
                })
            }
        }

        var samples: [SoakReport.Sample] = []
        func sample() {
            guard let rss = server?.sample()?.rssBytes else { return }
            samples.append(.init(at: elapsed, rssBytes: rss))
        }
        sample()
        var nextSample = options.sampleEvery
        while elapsed < options.seconds {
            MonotonicClock.sleep(min(0.2, max(0.01, options.seconds - elapsed)))
            if elapsed >= nextSample {
                nextSample += options.sampleEvery
                sample()
                try progress(samples)
            }
        }

        // The end: drivers release what they hold; everyone reads again; wait for agreement.
        let driveEnd = try onService { () -> UInt64 in
            self.timers.forEach { $0.cancel() }
            self.timers = []
            for client in self.drivers { client.finishPointers() }
            for client in self.viewers + self.drivers { client.connection?.resumeReading() }
            self.stalledUntil = [:]
            self.frozenUntil = [:]
            return MonotonicClock.now()
        }
        var convergence = try onService { self.evaluate() }
        var convergedAfter: Double?
        while true {
            MonotonicClock.sleep(0.1)
            let (quiet, result, everyoneIn) = try onService { () -> (Double, ConvergenceResult, Bool) in
                (MonotonicClock.seconds(since: max(self.recorder.lastSelectionAt, driveEnd)), self.evaluate(),
                 self.toOpen.isEmpty && (self.viewers + self.drivers).allSatisfy { $0.isReady || $0.isClosed })
            }
            convergence = result
            if result.converged && quiet >= 1 && everyoneIn { convergedAfter = MonotonicClock.seconds(since: driveEnd); break }
            if MonotonicClock.seconds(since: driveEnd) > options.settleTimeout { break }
        }
        sample()
        let alive = server.map { $0.sample() != nil }
        let counters = try onService { () -> LoadCounters in
            self.openTimer?.cancel()
            for client in self.viewers + self.drivers { client.isClosing = true; client.connection?.close(code: 1000) }
            return self.recorder.counters
        }
        MonotonicClock.sleep(0.5)
        let churned = try onService { (self.vanishedViewers, self.vanishedDrivers, self.stalls, self.freezes, self.opened, self.drops) }
        let (vanishedViewers, vanishedDrivers, stalls, freezes, opened, drops) = churned
        return SoakReport(options: options, seconds: MonotonicClock.seconds(since: startedAt), samples: samples, counters: counters,
                          vanishedViewers: vanishedViewers, vanishedDrivers: vanishedDrivers, stalls: stalls, freezes: freezes,
                          connectionsOpened: opened, drops: drops, convergence: convergence, convergenceSeconds: convergedAfter, serverAlive: alive)
    }

    private var elapsed: Double { MonotonicClock.seconds(since: startedAt) }

    // MARK: Service-thread work

    private func makeClient(driver: Int?) -> LoadClient {
        nextIndex += 1
        return LoadClient(index: nextIndex, role: driver.map { .driver($0) } ?? .viewer, target: .chartcast, pattern: .mixed,
                          plot: .loadTestStandard, recorder: recorder)
    }

    /// Opens the initial crowd at the ramp's pace, and replacements at once (200 per tick at most).
    /// - Note: service thread only.
    private func openDue() {
        guard let context else { return }
        let total = options.viewers + options.drivers
        let due = options.ramp <= 0 ? Int.max : Int((Double(total) * elapsed / options.ramp).rounded(.up))
        var budget = 200
        while budget > 0, !toOpen.isEmpty, opened < due || opened >= total {
            let client = toOpen.removeFirst()
            client.markAttempt(at: MonotonicClock.now())
            client.connection = context.connect(options.url, subprotocol: "chartcast.v1", tls: .off, delegate: client)
            opened += 1
            budget -= 1
        }
    }

    /// Once a second: stalls end and begin, a viewer and a mid-drag driver vanish, a driver freezes.
    /// - Note: service thread only.
    private func churn() {
        let now = elapsed
        guard opened >= options.viewers + options.drivers else { return }
        noteDrops(now)
        // Stalls: resume those due, then keep `stalled` viewers not reading.
        for (id, until) in stalledUntil where until <= now {
            stalledUntil[id] = nil
            viewers.first { ObjectIdentifier($0) == id }?.connection?.resumeReading()
        }
        var attempts = 0
        while stalledUntil.count < options.stalled, attempts < 50, !viewers.isEmpty {
            attempts += 1
            let client = viewers[random.next(upperBound: viewers.count)]
            guard client.isReady, !client.isClosed, stalledUntil[ObjectIdentifier(client)] == nil else { continue }
            client.connection?.pauseReading()
            stalledUntil[ObjectIdentifier(client)] = now + options.stallSeconds
            stalls += 1
        }
        // Freezes: a driver holding a press goes silent (sends and reads nothing), then carries on.
        for (slot, until) in frozenUntil where until <= now {
            frozenUntil[slot] = nil
            drivers[slot].connection?.resumeReading()
        }
        // A freeze starts only if it ends before the soak does (it is meant to outlast the lease).
        if now >= nextFreeze, now + options.freezeSeconds < options.seconds, let slot = pressedDriver(excludingFrozen: true) {
            frozenUntil[slot] = now + options.freezeSeconds
            drivers[slot].connection?.pauseReading()
            freezes += 1
            nextFreeze = now + options.freezeEvery
        }
        // Vanishings: a reading viewer and a driver mid-drag drop without a close frame.
        if now >= nextVanish {
            if let slot = pressedDriver(excludingFrozen: true) {
                vanish(drivers[slot])
                drivers[slot] = makeClient(driver: slot)
                toOpen.append(drivers[slot])
                vanishedDrivers += 1
            }
            if let i = (0..<20).lazy.map({ _ in self.random.next(upperBound: self.viewers.count) }).first(where: {
                let c = self.viewers[$0]
                return c.isReady && !c.isClosed && self.stalledUntil[ObjectIdentifier(c)] == nil
            }) {
                vanish(viewers[i])
                viewers[i] = makeClient(driver: nil)
                toOpen.append(viewers[i])
                vanishedViewers += 1
            }
            nextVanish = now + options.vanishEvery
        }
    }

    /// Connections the server (or the network) closed: described by what they were doing and
    /// their close code (printed in the report), and replaced so the crowd stays whole.
    private func noteDrops(_ now: Double) {
        for (i, client) in viewers.enumerated() where client.isClosed && !client.isClosing {
            let stalled = stalledUntil.removeValue(forKey: ObjectIdentifier(client)) != nil
            noteDrop("viewer\(stalled ? " (stalled)" : "")", client, now)
            viewers[i] = makeClient(driver: nil)
            toOpen.append(viewers[i])
        }
        for (slot, client) in drivers.enumerated() where client.isClosed && !client.isClosing {
            noteDrop("driver\(frozenUntil.removeValue(forKey: slot) != nil ? " (frozen)" : "")", client, now)
            drivers[slot] = makeClient(driver: slot)
            toOpen.append(drivers[slot])
        }
    }

    private func noteDrop(_ what: String, _ client: LoadClient, _ now: Double) {
        client.isClosing = true   // noted once
        let line = "\(what) closed at \(Format.fixed(now, 0)) s with \(client.closeCode.map { "code \($0)" } ?? "no close frame")"
        if drops.count < 20 { drops.append(line) }
        if options.progress { writeStandardError("soak: " + line + "\n") }
    }

    /// A driver slot whose driver is mid-drag now (pressed and moved), if any.
    private func pressedDriver(excludingFrozen: Bool) -> Int? {
        drivers.indices.first { slot in
            let d = drivers[slot]
            return d.isReady && !d.isClosed && d.script?.isDragging == true && !(excludingFrozen && frozenUntil[slot] != nil)
        }
    }

    private func vanish(_ client: LoadClient) {
        client.isClosing = true   // expected: not counted as dropped
        client.connection?.abort()
    }

    private func evaluate() -> ConvergenceResult {
        let live = (viewers + drivers).filter { $0.isReady && !$0.isClosed }
        return ConvergenceResult.evaluate(views: live.map { $0.views }, chartIDs: recorder.chartNames.indices.map { recorder.chartName($0) })
    }

    private func progress(_ samples: [SoakReport.Sample]) throws {
        guard options.progress || onProgress != nil else { return }
        let state = try onService { () -> (LoadCounters, Int, Int, String) in
            (self.recorder.counters, (self.viewers + self.drivers).filter { $0.isReady && !$0.isClosed }.count, self.stalledUntil.count,
             "vanished \(self.vanishedViewers)+\(self.vanishedDrivers) frozen \(self.freezes)")
        }
        var parts = ["soak \(Format.fixed(elapsed, 0))/\(Format.fixed(options.seconds, 0)) s",
                     "live \(state.1) stalled \(state.2) \(state.3)",
                     "fail \(state.0.failed) drop \(state.0.dropped) err \(state.0.errorsReceived)",
                     "sent \(state.0.pointersSent) recv \(state.0.framesReceived)"]
        if let last = samples.last {
            var rss = "server rss \(Format.bytes(last.rssBytes))"
            if let reference = samples.first(where: { $0.at >= options.effectiveWarmup }), last.at >= options.effectiveWarmup {
                rss += " (\(Format.fixed(100 * (Double(last.rssBytes) / Double(reference.rssBytes) - 1), 2)) % since warm-up)"
            } else {
                rss += " (warming up)"
            }
            parts.append(rss)
        }
        let line = parts.joined(separator: " | ")
        if options.progress { writeStandardError(line + "\n") }
        onProgress?(line)
    }

    @discardableResult
    private func onService<T>(_ body: @escaping () -> T) throws -> T {
        guard let result = context?.performAndWait(timeout: 60, body) else { throw WebSocketError.timeout }
        return result
    }
}
