import ChartCastIngest
import ChartCastProtocol
import ChartCastStorage
import ChartEngine
import Foundation

/// Publishers: threads that write points over HTTP while the viewers watch, each to a chart of
/// its own (`load-ingest-<n>`, linear x, so every publisher's writes stay in x order).
///
/// Each batch is one `POST /api/charts/{id}/points` of JSON columns: series `v` with a value per
/// point, and series `t` whose single value (on the batch's first x) is the monotonic time the
/// batch was sent, in nanoseconds — the viewers read it from the first point of the `append`
/// that carries the batch, or from the last `t` point of the snapshot that replaces appends too
/// large for their plot, and record the ingest-to-viewer latency once per batch.
/// - Note: `start`/`stop` on the runner's thread; publishers run on their own threads.
final class IngestDriver {
    /// What the publishers did.
    struct Figures: Sendable {
        var pointsAccepted = 0
        var batches = 0
        var failures = 0
        var firstFailure: String?
        var requestTimes = LatencyHistogram()
        var seconds = 0.0
    }

    static let chartPrefix = "load-ingest-"
    let options: LoadOptions
    private let lock = NSLock()
    private var figures = Figures()
    private var running = false
    private var threads: [Thread] = []
    private var startedAt: UInt64 = 0
    private let finished = DispatchGroup()

    init(options: LoadOptions) {
        self.options = options
    }

    var authorization: [(String, String)] { options.writeToken.map { [("Authorization", "Bearer \($0)")] } ?? [] }

    /// Defines the publishers' charts (before the viewers connect, so their welcome lists them).
    /// - Throws: when a `PUT` is refused.
    func prepare() throws {
        let client = HTTPClient(host: options.url.host, port: options.url.port, tls: options.tls)
        for p in 0..<options.publishers {
            let spec = ChartSpec(id: "\(Self.chartPrefix)\(p)", title: "Ingest \(p)", mark: .line, xKind: .linear, series: ["t", "v"],
                                 interactions: Interactions(hover: true, drag: .none, tap: false),
                                 window: max(10 * options.batchPoints, 1000), retentionSeconds: options.retentionSeconds)
            let answer = try client.request("PUT", "/api/charts/\(spec.id)", headers: authorization + [("Content-Type", "application/json")],
                                            body: spec.encoded())
            guard answer.status == 200 || answer.status == 201 else {
                throw HTTPClient.Failure(description: "PUT \(spec.id): \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
            }
        }
    }

    /// Starts the publishers; together they send `pointsPerSecond` points a second.
    func start() {
        running = true
        startedAt = MonotonicClock.now()
        let perPublisher = options.pointsPerSecond / Double(max(1, options.publishers))
        let interval = Double(options.batchPoints) / max(1, perPublisher)
        for p in 0..<options.publishers {
            finished.enter()
            let thread = Thread { [self] in
                // Below the viewers' loop thread, which times every frame: building and
                // sending 10,000-point bodies on the same core must not delay the reading of a
                // selection (measured: a viewer p99 of 3.5-6 ms under ingest with publishers at
                // normal priority, 2.7-3.3 ms with them in SCHED_IDLE).
                IdlePriority.adoptForCallingThread()
                self.publish(chart: "\(Self.chartPrefix)\(p)", to: self.options.url(for: p), interval: interval)
                self.finished.leave()
            }
            thread.name = "publisher-\(p)"
            threads.append(thread)
            thread.start()
        }
    }

    /// Stops the publishers and returns what they did.
    func stop() -> Figures {
        lock.lock()
        running = false
        lock.unlock()
        _ = finished.wait(timeout: .now() + 30)
        lock.lock()
        defer { lock.unlock() }
        figures.seconds = MonotonicClock.seconds(since: startedAt)
        return figures
    }

    private var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return running
    }

    /// One publisher: a batch every `interval` seconds (or back to back when the server is slower),
    /// to the server at `url`.
    private func publish(chart: String, to url: LoadURL, interval: Double) {
        let client = HTTPClient(host: url.host, port: url.port, tls: options.tls)
        let headers = authorization + [("Content-Type", "application/json")]
        var next = MonotonicClock.now()
        var x = 0
        var random = UInt64(bitPattern: Int64(chart.hashValue))
        while isRunning {
            let sentAt = MonotonicClock.now()
            let body = Self.columns(firstX: x, count: options.batchPoints, sentAt: sentAt, random: &random)
            x += options.batchPoints
            let outcome: Result<HTTPClient.Answer, Error> = Result { try client.request("POST", "/api/charts/\(chart)/points", headers: headers, body: body) }
            let took = MonotonicClock.now() &- sentAt
            lock.lock()
            switch outcome {
            case .success(let answer) where answer.status == 200:
                figures.batches += 1
                figures.pointsAccepted += (try? APIBody.decodeAccepted(answer.body).accepted) ?? 0
                figures.requestTimes.record(nanoseconds: took)
            case .success(let answer):
                figures.failures += 1
                if figures.firstFailure == nil { figures.firstFailure = "\(answer.status) \(String(decoding: answer.body.prefix(200), as: UTF8.self))" }
            case .failure(let error):
                figures.failures += 1
                if figures.firstFailure == nil { figures.firstFailure = "\(error)" }
            }
            lock.unlock()
            next += UInt64(interval * 1e9)
            let now = MonotonicClock.now()
            if next > now { MonotonicClock.sleep(Double(next - now) / 1e9) } else { next = now }
        }
    }

    /// `{"x":[…],"series":{"t":[sentAt,null,…],"v":[…]}}` for `count` points from `firstX`.
    static func columns(firstX: Int, count: Int, sentAt: UInt64, random: inout UInt64) -> [UInt8] {
        let n = max(1, count)
        var t = [Double?](repeating: nil, count: n)
        t[0] = Double(sentAt)
        var v = [Double?](repeating: nil, count: n)
        for i in 0..<n {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            v[i] = Double(random >> 44) / 1_048_576
        }
        return PointsBody.columns(x: (0..<n).map { Double(firstX + $0) }, series: [("t", t), ("v", v)])
    }

    /// The send time carried by an ingest chart's `append`: the `y` of its first point, which is
    /// series `t` on the batch's first x (read without scanning the rest of the message).
    static func sentAt(_ header: ServerMessageHeader) -> UInt64? {
        guard let y = header.firstAppendedY, y >= 0, y < 1.8e19 else { return nil }
        return UInt64(y)
    }

    /// The send time of the newest batch a snapshot of an ingest chart holds: the last point of
    /// series `t` (one point per batch, so a short series; the snapshot's `v` is not read).
    static func newestSentAt(inSnapshot header: ServerMessageHeader) -> UInt64? {
        guard let y = header.leadingSeriesPoints(named: "t")?.last?.y, y >= 0, y < 1.8e19 else { return nil }
        return UInt64(y)
    }
}
