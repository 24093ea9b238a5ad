import ChartCastProtocol
import ChartEngine
import WebSockets

/// One headless connection: a passive viewer, a stalled viewer or a driver.
///
/// A viewer completes the handshake, reads `welcome` and one `snapshot` per chart, sends a
/// `viewport` per chart and then records every state message: for each `selection`, the time
/// since the driver sent the pointer whose `ref` it carries. A driver does the same and also
/// sends pointer sequences when its timer fires. In mirror mode there is no welcome; every
/// mirrored message is read as a selection of a per-driver pseudo chart.
/// - Note: service thread only: the delegate methods are called on the transport's service
///   thread and the runner touches clients only through `LoadTransport.performAndWait`.
final class LoadClient: LoadConnectionDelegate {
    enum Role: Equatable { case viewer, stalledViewer, driver(Int) }

    let index: Int
    let role: Role
    let target: LoadTarget
    let plot: Viewport
    private unowned let recorder: LoadRecorder
    var connection: LoadConnection?

    private(set) var attemptedAt: UInt64 = 0
    private(set) var isConnected = false
    private(set) var isReady = false
    private(set) var isClosed = false
    /// Set once the runner starts closing connections, so expected closes are not drops.
    var isClosing = false
    /// The server's id for this viewer (`welcome.viewer`).
    private(set) var viewerID: String?
    /// Per chart (indexed like `LoadRecorder.chartNames`): what this connection last saw.
    private(set) var views: [ChartView] = []
    private var snapshotsExpected = Int.max
    private var snapshotsSeen = 0
    /// A driver's pointer sequence, created from the welcome's charts.
    var script: PointerScript?
    private let pattern: LoadPattern

    init(index: Int, role: Role, target: LoadTarget, pattern: LoadPattern, plot: Viewport, recorder: LoadRecorder) {
        self.index = index
        self.role = role
        self.target = target
        self.pattern = pattern
        self.plot = plot
        self.recorder = recorder
    }

    var isDriver: Bool { if case .driver = role { return true }; return false }

    /// Records the connection attempt's start.
    func markAttempt(at now: UInt64) {
        attemptedAt = now
        recorder.counters.attempted += 1
        if recorder.counters.firstAttemptAt == 0 { recorder.counters.firstAttemptAt = now }
    }

    // MARK: LoadConnectionDelegate

    func loadConnectionDidConnect() {
        let now = MonotonicClock.now()
        isConnected = true
        recorder.counters.connected += 1
        recorder.counters.lastConnectedAt = max(recorder.counters.lastConnectedAt, now)
        recorder.connectTimes.record(nanoseconds: now &- attemptedAt)
        if target == .mirror {
            markReady()
        } else {
            send(.hello(ClientMessage.Hello(name: "load-\(index)")))
        }
    }

    func loadConnectionDidFail(_ reason: String) {
        guard !isClosed else { return }
        isClosed = true
        recorder.counters.failed += 1
    }

    func loadConnectionDidClose(code: UInt16?) {
        guard !isClosed else { return }
        isClosed = true
        closeCode = code
        if !isClosing { recorder.counters.dropped += 1 }
    }

    /// The server's close code, once closed (nil: dropped without a close frame, or not closed).
    private(set) var closeCode: UInt16?

    func loadConnectionDidReceive(_ message: InboundMessage, arrivedAt: UInt64) {
        let bytes = message.bytes
        recorder.counters.framesReceived += 1
        recorder.counters.bytesReceived += bytes.count
        guard let header = ServerMessageHeader(bytes) else { return }
        if target == .mirror { handleSelection(header, now: MonotonicClock.now(), arrivedAt: arrivedAt); return }
        switch header.kind {
        case .selection:
            handleSelection(header, now: MonotonicClock.now(), arrivedAt: arrivedAt)
        case .append:
            recorder.counters.appendsReceived += 1
            if let chart = header.chart, let seq = header.seq {
                let now = MonotonicClock.now()
                let i = chartSlot(bytes, chart)
                if seq > views[i].seq { views[i].seq = seq }
                recorder.observe(chart: i, seq: seq, now: now)
                if role == .viewer, bytes[chart].starts(with: Self.ingestPrefix), let sentAt = IngestDriver.sentAt(header) {
                    recordIngest(sentAt: sentAt, chart: i, now: now)
                }
            }
        case .snapshot:
            handleSnapshot(header)
        case .welcome:
            handleWelcome(bytes)
        case .viewers:
            recorder.counters.viewerListsReceived += 1
        case .error:
            recorder.counters.errorsReceived += 1
            if let code = header.errorCode {
                // Count by code, keeping at most 16 distinct codes whatever the server sends.
                let name = String(decoding: bytes[code], as: UTF8.self)
                if recorder.counters.errorCodes[name] != nil || recorder.counters.errorCodes.count < 16 {
                    recorder.counters.errorCodes[name, default: 0] += 1
                }
            }
        case .chart, .chartRemoved, .ack, nil:
            break
        }
    }

    // MARK: Messages

    private func chartSlot(_ bytes: [UInt8], _ range: Range<Int>) -> Int {
        let i = recorder.chartIndex(bytes, range)
        if i >= views.count { views.append(contentsOf: repeatElement(ChartView(), count: i + 1 - views.count)) }
        return i
    }

    /// A selection (or a mirror message): convergence state, and for a viewer the fan-out latency
    /// of a driver's pointer — to the frame's arrival (`fanout`) and to this tester reading it
    /// (`fanoutRead`).
    private func handleSelection(_ header: ServerMessageHeader, now: UInt64, arrivedAt: UInt64) {
        guard let chart = header.chart, let seq = header.seq else { return }
        recorder.counters.selectionsReceived += 1
        recorder.counters.selectionBytes += header.bytes.count
        recorder.lastSelectionAt = now
        let i = chartSlot(header.bytes, chart)
        if seq > views[i].seq { views[i].seq = seq }
        recorder.observe(chart: i, seq: seq, now: now)
        if seq >= views[i].stateSeq {
            views[i].stateSeq = seq
            views[i].stateFromSnapshot = false
            views[i].stateDigest = SelectionDigest.digest(header.fields)
        }
        guard role == .viewer, let ref = header.ref, let sentAt = Self.sendTime(fromRef: header.bytes, ref) else { return }
        let refDigest = SelectionDigest.digest(header.bytes, ref)
        guard refDigest != views[i].lastRefDigest else { return }
        views[i].lastRefDigest = refDigest
        recorder.fanout.record(nanoseconds: arrivedAt > sentAt ? arrivedAt - sentAt : 0)
        recorder.fanoutRead.record(nanoseconds: now > sentAt ? now - sentAt : 0)
    }

    private func handleSnapshot(_ header: ServerMessageHeader) {
        recorder.counters.snapshotsReceived += 1
        guard let chart = header.chart, let seq = header.seq else { return }
        let i = chartSlot(header.bytes, chart)
        if seq > views[i].seq { views[i].seq = seq }
        let now = MonotonicClock.now()
        recorder.observe(chart: i, seq: seq, now: now)
        if role == .viewer, isReady, header.bytes[chart].starts(with: Self.ingestPrefix),
           let sentAt = IngestDriver.newestSentAt(inSnapshot: header) {
            recordIngest(sentAt: sentAt, chart: i, now: now)
        }
        if seq >= views[i].stateSeq, let state = header.selectionState {
            views[i].stateSeq = seq
            views[i].stateFromSnapshot = true
            views[i].stateDigest = SelectionDigest.digest(state)
        }
        snapshotsSeen += 1
        if snapshotsSeen >= snapshotsExpected { markReady() }
    }

    private func handleWelcome(_ bytes: [UInt8]) {
        guard case .welcome(let welcome)? = try? ServerMessage.decode(bytes) else { return }
        viewerID = welcome.viewer.id
        if case .driver(let d) = role {
            script = PointerScript(pattern: pattern, charts: welcome.charts, driver: d, plot: plot)
        }
        for chart in welcome.charts {
            send(.viewport(ClientMessage.ViewportReport(chart: chart.id, viewport: plot)))
        }
        snapshotsExpected = welcome.charts.count
        if snapshotsSeen >= snapshotsExpected { markReady() }
    }

    private func send(_ message: ClientMessage) {
        connection?.send(bytes: message.encode(), binary: false)
    }

    /// Times the newest batch an ingest chart's message brought, once per batch (a snapshot
    /// re-sent for another width, or one covering batches already seen, is not timed again).
    private func recordIngest(sentAt: UInt64, chart i: Int, now: UInt64) {
        guard sentAt > views[i].lastIngestSentAt else { return }
        views[i].lastIngestSentAt = sentAt
        recorder.ingest.record(nanoseconds: now > sentAt ? now - sentAt : 0)
    }

    private func markReady() {
        guard !isReady else { return }
        isReady = true
        recorder.counters.ready += 1
    }

    // MARK: Driving

    private var serial = 0

    /// Sends the driver's next pointer event with a timing ref.
    func sendNextPointer() {
        guard case .driver(let d) = role, isReady, !isClosed, let step = script?.next() else { return }
        send(step, driver: d)
    }

    /// Sends the events that release whatever this driver still holds (press, hovers).
    func finishPointers() {
        guard case .driver(let d) = role, isReady, !isClosed, var s = script else { return }
        for step in s.finish() { send(step, driver: d) }
        script = s
    }

    private func send(_ step: ClientMessage.PointerInput, driver d: Int) {
        serial += 1
        var pointer = step
        pointer.ref = Self.makeRef(driver: d, serial: serial, at: MonotonicClock.now())
        send(.pointer(pointer))
        recorder.counters.pointersSent += 1
    }

    /// Mirror mode: sends one `selection` message (`chart` = this driver's pseudo chart, `seq`,
    /// timing `ref`) whose range lists rows and whose `range.by` is padded so that the message
    /// is `size` bytes: the mirror carries messages shaped and sized like ChartCast's.
    func sendMirrorMessage(size: Int) {
        guard case .driver(let d) = role, isReady, !isClosed else { return }
        serial += 1
        if mirrorSelection == nil { mirrorSelection = Self.mirrorSelection(size: size, by: "m\(d)") }
        var update = ServerMessage.SelectionUpdate(chart: "m\(d)", seq: serial,
                                                   ref: Self.makeRef(driver: d, serial: serial, at: MonotonicClock.now()),
                                                   selection: mirrorSelection ?? .empty)
        var bytes = ServerMessage.selection(update).encode()
        if bytes.count < size, update.selection.range != nil {
            update.selection.range?.by += String(repeating: "x", count: size - bytes.count)
            bytes = ServerMessage.selection(update).encode()
        }
        connection?.send(bytes: bytes, binary: false)
        recorder.counters.pointersSent += 1
    }

    /// The padding state of mirror messages, built once per driver.
    private var mirrorSelection: Selection?

    /// A range selection with as many rows as fit a `selection` message of `size` bytes with
    /// room left for the longest ref and `seq`; `sendMirrorMessage` pads the rest exactly.
    static func mirrorSelection(size: Int, by viewer: String) -> Selection {
        func selection(rows: Int) -> Selection {
            let listed = (0..<rows).map { SeriesPoint(series: "s", x: .number(Double(1_000_000 + $0)), y: 1) }
            let range = RangeSelection(by: viewer, from: .number(0), to: .number(Double(rows)), fromFraction: 0,
                                       toFraction: 1, count: rows, totals: [], rows: listed, truncated: false)
            return Selection(hovers: [], scrub: nil, range: range, pin: nil)
        }
        func bytes(rows: Int) -> Int {
            let update = ServerMessage.SelectionUpdate(chart: "m0", seq: Int(Int32.max),
                                                       ref: makeRef(driver: 999, serial: Int(Int32.max), at: UInt64.max),
                                                       selection: selection(rows: rows))
            return ServerMessage.selection(update).encode().count
        }
        let base = bytes(rows: 0), perRow = max(1, bytes(rows: 2) - bytes(rows: 1))
        return selection(rows: max(0, (size - base) / perRow))
    }

    private static let ingestPrefix = Array(IngestDriver.chartPrefix.utf8)

    // MARK: Refs

    /// The ref of a pointer sent now by driver `driver`: `t<monotonic ns>.<driver>.<n>`.
    static func makeRef(driver: Int, serial: Int, at now: UInt64) -> String { "t\(now).\(driver).\(serial)" }

    /// The send time embedded in a ref made by `makeRef`, or nil for any other ref.
    static func sendTime(fromRef bytes: [UInt8], _ range: Range<Int>) -> UInt64? {
        guard range.count > 1, bytes[range.lowerBound] == UInt8(ascii: "t") else { return nil }
        var value: UInt64 = 0
        var digits = 0
        for i in (range.lowerBound + 1)..<range.upperBound {
            let b = bytes[i]
            if b == UInt8(ascii: ".") { break }
            guard b >= 0x30, b <= 0x39 else { return nil }
            value = value &* 10 &+ UInt64(b - 0x30)
            digits += 1
        }
        return digits > 0 ? value : nil
    }
}
