import WebSockets

/// Runs one load test: opens the connections over the ramp, waits until every viewer is ready,
/// drives pointer events for the duration, waits for convergence and returns the report.
///
/// All connections live on one `LoadTransport` (one service thread, event-driven; the tester's
/// raw client for `ws://`, libwebsockets' for `wss://` or `--client lws`); the
/// thread calling `run()` only orchestrates: it hands work to the service thread with `perform`
/// and reads figures back the same way, sleeping in between.
/// - Note: `run()` blocks the calling thread for the whole test; call it once per runner.
public final class LoadRunner {
    public let options: LoadOptions
    /// Called on the `run()` thread about once a second while connecting and driving.
    public var onProgress: ((LoadProgress) -> Void)?

    let recorder = LoadRecorder()
    var clients: [LoadClient] = []
    var context: LoadTransport?
    private var timers: [LoadTimer] = []
    private var opened = 0
    private var freshness = LatencyHistogram()
    private var maxSeqLag = 0
    var startedAt: UInt64 = 0

    public init(options: LoadOptions) {
        self.options = options
    }

    /// Runs the test to completion.
    /// - Throws: when the client context cannot be created.
    public func run() throws -> LoadReport {
        FileLimit.raise(to: options.connectionCount + 512)
        let server = locateServer()
        let baseline = server?.sample()
        let baselineSockets = server?.openSockets()
        var peakRSS = baseline?.rssBytes ?? 0
        let ingestDriver = options.publishers > 0 ? IngestDriver(options: options) : nil
        try ingestDriver?.prepare()
        // Publishers' writes reach every viewer as large appends: libwebsockets reads them in bigger pieces.
        let context = try options.clientKind.makeTransport(receiveBufferSize: options.publishers > 0 ? 64 << 10 : 0)
        self.context = context
        defer { context.shutdown() }
        makeClients()
        startedAt = MonotonicClock.now()

        // Connect phase: a service-thread timer opens connections at the ramp's pace.
        try onService { self.timers.append(context.schedule(every: 0.005) { self.openDue() }) }
        let connectDeadline = options.ramp + options.connectTimeout
        var lastTick = MonotonicClock.now()
        while true {
            MonotonicClock.sleep(0.02)
            let settled = try onService { self.opened == self.clients.count && self.clients.allSatisfy { $0.isReady || $0.isClosed } }
            if settled { break }
            if MonotonicClock.seconds(since: startedAt) > connectDeadline { break }
            if MonotonicClock.seconds(since: lastTick) >= 1 {
                lastTick = MonotonicClock.now()
                peakRSS = max(peakRSS, server?.sample()?.rssBytes ?? 0)
                try report(phase: .connecting, server: server)
            }
        }
        try onService { self.timers.forEach { $0.cancel() }; self.timers = [] }
        let arrived = server?.sample()
        let connectCounters = try onService { self.recorder.counters }
        let connectTimes = try onService { self.recorder.connectTimes }

        MonotonicClock.sleep(options.idleTime)
        let idle = server?.sample()
        peakRSS = max(peakRSS, idle?.rssBytes ?? 0)

        // Drive phase.
        let driveStart = try onService { () -> (LoadCounters, UInt64) in
            for client in self.clients where client.role == .stalledViewer { client.connection?.pauseReading() }
            self.startDrivers(context)
            return (self.recorder.counters, MonotonicClock.now())
        }
        ingestDriver?.start()
        let cpuStart = server?.sample()
        lastTick = MonotonicClock.now()
        // Nothing to measure when no connection got through (server down, wrong path).
        let duration = connectCounters.ready > 0 ? options.duration : 0
        while MonotonicClock.seconds(since: driveStart.1) < duration {
            MonotonicClock.sleep(min(0.05, max(0, duration - MonotonicClock.seconds(since: driveStart.1))))
            if MonotonicClock.seconds(since: lastTick) >= 1 {
                lastTick = MonotonicClock.now()
                try onService { self.sampleFreshness() }
                peakRSS = max(peakRSS, server?.sample()?.rssBytes ?? 0)
                try report(phase: .driving, server: server)
            }
        }
        let driveEnd = try onService { () -> (LoadCounters, UInt64) in
            self.timers.forEach { $0.cancel() }
            self.timers = []
            let counters = self.recorder.counters
            for client in self.clients where client.isDriver { client.finishPointers() }
            return (counters, MonotonicClock.now())
        }
        let ingestFigures = ingestDriver?.stop()
        let cpuEnd = server?.sample()
        peakRSS = max(peakRSS, cpuEnd?.rssBytes ?? 0)

        // Settle: stalled viewers read again; wait for a quiet period in which everyone agrees.
        let stalledLag = try onService { () -> Int in
            var lag = 0
            for client in self.clients where client.role == .stalledViewer {
                // Charts it never heard of count from -1: a viewer stalled before its first message.
                for (i, newest) in self.recorder.newestSeq.enumerated() where newest >= 0 {
                    lag = max(lag, newest - (i < client.views.count ? client.views[i].seq : -1))
                }
                client.connection?.resumeReading()
            }
            return lag
        }
        var convergence = try onService { self.evaluateConvergence() }
        var convergedAfter: Double? = nil
        while true {
            MonotonicClock.sleep(0.1)
            let (quiet, result) = try onService { () -> (Double, ConvergenceResult) in
                let last = max(self.recorder.lastSelectionAt, driveEnd.1)
                return (MonotonicClock.seconds(since: last), self.evaluateConvergence())
            }
            convergence = result
            if result.converged && quiet >= 0.3 { convergedAfter = MonotonicClock.seconds(since: driveEnd.1); break }
            if MonotonicClock.seconds(since: driveEnd.1) > options.settleTimeout { break }
        }
        peakRSS = max(peakRSS, server?.sample()?.rssBytes ?? 0)
        // Departure: every connection closes at once; the server's CPU is measured until it
        // holds none of them any more.
        let leaving = server?.sample()
        let ingestToViewer = try onService { self.recorder.ingest }
        let final = try onService { () -> (LoadCounters, LatencyHistogram, [String], LatencyHistogram) in
            for client in self.clients { client.isClosing = true; client.connection?.close(code: 1000) }
            let stalled = self.clients.filter { $0.role == .stalledViewer }.compactMap { $0.viewerID }
            return (self.recorder.counters, self.recorder.fanout, stalled, self.recorder.fanoutRead)
        }
        let departure = waitForDepartures(server, baselineSockets: baselineSockets, from: leaving)

        let connectSeconds = Double(connectCounters.lastConnectedAt &- connectCounters.firstAttemptAt) / 1e9
        let driveSeconds = Double(driveEnd.1 &- driveStart.1) / 1e9
        let driveFrames = driveEnd.0.framesReceived - driveStart.0.framesReceived
        var serverReport: LoadReport.Server? = nil
        if let server, let baseline, let idle, let cpuStart, let cpuEnd {
            let cpu = cpuEnd.cpuSeconds - cpuStart.cpuSeconds
            serverReport = LoadReport.Server(
                pid: server.pid, baselineRSS: baseline.rssBytes, idleRSS: idle.rssBytes, peakRSS: peakRSS,
                driveCPUSeconds: cpu, driveCPUPercent: driveSeconds > 0 ? 100 * cpu / driveSeconds : 0,
                cpuMicrosPerFrame: driveFrames > 0 ? cpu * 1e6 / Double(driveFrames) : 0,
                rssPerIdleViewer: Double(idle.rssBytes - baseline.rssBytes) / Double(max(1, connectCounters.connected)),
                arrivalCPUSeconds: (arrived?.cpuSeconds ?? baseline.cpuSeconds) - baseline.cpuSeconds,
                departureCPUSeconds: departure?.cpuSeconds, departureSeconds: departure?.seconds,
                connections: connectCounters.connected)
        }
        return LoadReport(
            options: options, counters: final.0, connect: .init(connectTimes),
            handshakesPerSecond: connectSeconds > 0 ? Double(connectCounters.connected) / connectSeconds : 0,
            fanout: .init(final.1), fanoutRead: .init(final.3), freshness: .init(freshness), maxSeqLag: maxSeqLag,
            driveFrames: driveFrames, drivePointers: driveEnd.0.pointersSent - driveStart.0.pointersSent,
            driveSeconds: driveSeconds,
            clientCPUSeconds: ServerProcess.ownCPUSeconds(), server: serverReport,
            convergence: convergence, convergenceSeconds: convergedAfter, stalledViewerIDs: final.2,
            stalledLag: stalledLag,
            ingest: ingestFigures.map { figures in
                LoadReport.Ingest(publishers: options.publishers, batchPoints: options.batchPoints, targetRate: options.pointsPerSecond,
                                  pointsAccepted: figures.pointsAccepted,
                                  pointsPerSecond: figures.seconds > 0 ? Double(figures.pointsAccepted) / figures.seconds : 0,
                                  batches: figures.batches, failures: figures.failures, firstFailure: figures.firstFailure,
                                  request: .init(figures.requestTimes), toViewer: .init(ingestToViewer))
            })
    }

    // MARK: Service-thread work

    private func makeClients() {
        let k = options.drivers
        let n = options.viewers
        for i in 0..<(k + n) {
            let role: LoadClient.Role
            if i < k { role = .driver(i) }
            else if i >= k + n - options.stalledViewers { role = .stalledViewer }
            else { role = .viewer }
            clients.append(LoadClient(index: i, role: role, target: options.target, pattern: options.pattern,
                                      plot: .loadTestStandard, recorder: recorder))
        }
    }

    /// Opens the connections due by now under the ramp.
    /// - Note: service thread only.
    private func openDue() {
        guard let context else { return }
        let total = clients.count
        let elapsed = MonotonicClock.seconds(since: startedAt)
        let due = options.ramp <= 0 ? total : min(total, Int((Double(total) * elapsed / options.ramp).rounded(.up)))
        // At most 200 per tick so one tick never blocks the loop for long.
        let end = min(due, opened + 200)
        while opened < end {
            let client = clients[opened]
            client.markAttempt(at: MonotonicClock.now())
            client.connection = context.connect(options.url(for: opened), subprotocol: options.subprotocol, tls: options.tls,
                                                delegate: client)
            opened += 1
        }
    }

    /// Starts one repeating timer per driver at the configured rate; each driver sends its first
    /// event at once.
    /// - Note: service thread only.
    private func startDrivers(_ context: LoadTransport) {
        let period = 1 / options.rate
        for client in clients where client.isDriver {
            let send: () -> Void = options.target == .mirror
                ? { [size = options.messageSize] in client.sendMirrorMessage(size: size) }
                : { client.sendNextPointer() }
            send()
            timers.append(context.schedule(every: period, send))
        }
    }

    /// Records how stale every reading viewer's charts are right now.
    /// - Note: service thread only.
    private func sampleFreshness() {
        let now = MonotonicClock.now()
        for client in clients where client.role == .viewer && client.isReady && !client.isClosed {
            for (i, view) in client.views.enumerated() where view.seq >= 0 {
                freshness.record(nanoseconds: recorder.staleness(chart: i, seq: view.seq, now: now))
                maxSeqLag = max(maxSeqLag, recorder.newestSeq[i] - view.seq)
            }
        }
    }

    /// - Note: service thread only.
    private func evaluateConvergence() -> ConvergenceResult {
        let live = clients.filter { $0.isConnected && !$0.isClosed }
        let ids = recorder.chartNames.indices.map { recorder.chartName($0) }
        return ConvergenceResult.evaluate(views: live.map { $0.views }, chartIDs: ids)
    }

    // MARK: Threads

    /// Runs `body` on the service thread and returns its result to the calling thread.
    /// - Throws: `WebSocketError.timeout` when the service thread does not answer within a
    ///   minute (or no longer runs), instead of waiting forever.
    @discardableResult
    func onService<T>(_ body: @escaping () -> T) throws -> T {
        guard let result = context?.performAndWait(timeout: 60, body) else { throw WebSocketError.timeout }
        return result
    }

    /// Polls the server until it holds no more sockets than before the run (30 s at most) and
    /// returns the CPU and wall seconds it spent since `start`; nil when that is not known.
    private func waitForDepartures(_ server: ServerProcess?, baselineSockets: Int?, from start: ServerProcess.Sample?)
        -> (cpuSeconds: Double, seconds: Double)? {
        guard let server, let baselineSockets, let start else { MonotonicClock.sleep(0.1); return nil }
        while MonotonicClock.seconds(since: start.at) < 30 {
            guard let sockets = server.openSockets() else { return nil }
            if sockets <= baselineSockets {
                guard let end = server.sample() else { return nil }
                return (end.cpuSeconds - start.cpuSeconds, Double(end.at &- start.at) / 1e9)
            }
            MonotonicClock.sleep(0.01)
        }
        return nil
    }

    private func locateServer() -> ServerProcess? {
        if let pid = options.serverPID { return ServerProcess(pid: pid) }
        let local = ["127.0.0.1", "localhost", "::1", "0.0.0.0"].contains(options.url.host)
        return local ? ServerProcess.listening(onPort: options.url.port) : nil
    }

    private func report(phase: LoadProgress.Phase, server: ServerProcess?) throws {
        guard options.progress || onProgress != nil else { return }
        let snapshot = try onService { (self.recorder.counters, self.recorder.fanout) }
        let stalled = try onService { self.clients.filter { $0.role == .stalledViewer }.compactMap { $0.viewerID } }
        let progress = LoadProgress(phase: phase, elapsed: MonotonicClock.seconds(since: startedAt),
                                    counters: snapshot.0, fanoutP99: Double(snapshot.1.percentile(0.99)) / 1e6,
                                    server: server?.sample(), stalledViewerIDs: stalled)
        if options.progress { writeStandardError(progress.line + "\n") }
        onProgress?(progress)
    }
}
