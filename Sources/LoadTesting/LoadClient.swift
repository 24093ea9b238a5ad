import ChartCastProtocol
import WebSockets

/// One headless connection: a passive viewer, a stalled viewer or a driver.
///
/// A viewer completes the handshake, reads `welcome` and one `snapshot` per chart, sends a
/// `viewport` per chart and then records every state message: for each `selection`, the time
/// since the driver sent the pointer whose `ref` it carries. A driver does the same and also
/// sends pointer sequences when its timer fires. In mirror mode there is no welcome; every
/// mirrored message is read as a selection of a per-driver pseudo chart.
/// - Note: service thread only: the delegate methods are called on the client context's service
///   thread and the runner touches clients only through `WebSocketClientContext.perform`.
final class LoadClient: WebSocketClientDelegate {
    enum Role: Equatable { case viewer, stalledViewer, driver(Int) }

    let index: Int
    let role: Role
    let target: LoadTarget
    let plot: PlotFrame
    private unowned let recorder: LoadRecorder
    var connection: WebSocketClientConnection?

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

    init(index: Int, role: Role, target: LoadTarget, pattern: LoadPattern, plot: PlotFrame, recorder: LoadRecorder) {
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

    // MARK: WebSocketClientDelegate

    func webSocketClientDidConnect(_ connection: WebSocketClientConnection) {
        let now = MonotonicClock.now()
        isConnected = true
        recorder.counters.connected += 1
        recorder.counters.lastConnectedAt = max(recorder.counters.lastConnectedAt, now)
        recorder.connectTimes.record(nanoseconds: now &- attemptedAt)
        if target == .mirror {
            markReady()
        } else {
            connection.send(text: "{\"type\":\"hello\",\"name\":\"load-\(index)\"}")
        }
    }

    func webSocketClient(_ connection: WebSocketClientConnection, didFailToConnect reason: String) {
        guard !isClosed else { return }
        isClosed = true
        recorder.counters.failed += 1
    }

    func webSocketClient(_ connection: WebSocketClientConnection, didCloseWithCode code: UInt16?) {
        guard !isClosed else { return }
        isClosed = true
        if !isClosing { recorder.counters.dropped += 1 }
    }

    func webSocketClient(_ connection: WebSocketClientConnection, didReceive message: InboundMessage) {
        let bytes = message.bytes
        recorder.counters.framesReceived += 1
        recorder.counters.bytesReceived += bytes.count
        guard let fields = MessageFields(bytes) else { return }
        if target == .mirror { handleSelection(fields, now: MonotonicClock.now()); return }
        guard let type = fields.stringContent("type") else { return }
        if fields.equals(type, "selection") {
            handleSelection(fields, now: MonotonicClock.now())
        } else if fields.equals(type, "append") {
            recorder.counters.appendsReceived += 1
            if let chart = fields.stringContent("chart"), let seq = fields.integer("seq") {
                let i = chartSlot(bytes, chart)
                if seq > views[i].seq { views[i].seq = seq }
                recorder.observe(chart: i, seq: seq, now: MonotonicClock.now())
            }
        } else if fields.equals(type, "snapshot") {
            handleSnapshot(fields)
        } else if fields.equals(type, "welcome") {
            handleWelcome(bytes)
        } else if fields.equals(type, "viewers") {
            recorder.counters.viewerListsReceived += 1
        } else if fields.equals(type, "error") {
            recorder.counters.errorsReceived += 1
            if let code = fields.stringContent("code") {
                // Count by code, keeping at most 16 distinct codes whatever the server sends.
                let name = String(decoding: bytes[code], as: UTF8.self)
                if recorder.counters.errorCodes[name] != nil || recorder.counters.errorCodes.count < 16 {
                    recorder.counters.errorCodes[name, default: 0] += 1
                }
            }
        }
    }

    // MARK: Messages

    private func chartSlot(_ bytes: [UInt8], _ range: Range<Int>) -> Int {
        let i = recorder.chartIndex(bytes, range)
        if i >= views.count { views.append(contentsOf: repeatElement(ChartView(), count: i + 1 - views.count)) }
        return i
    }

    private func handleSelection(_ fields: MessageFields, now: UInt64) {
        guard let chart = fields.stringContent("chart"), let seq = fields.integer("seq") else { return }
        recorder.counters.selectionsReceived += 1
        recorder.counters.selectionBytes += fields.bytes.count
        recorder.lastSelectionAt = now
        let i = chartSlot(fields.bytes, chart)
        if seq > views[i].seq { views[i].seq = seq }
        recorder.observe(chart: i, seq: seq, now: now)
        if seq >= views[i].stateSeq {
            views[i].stateSeq = seq
            views[i].stateFromSnapshot = false
            views[i].stateDigest = SelectionDigest.digest(fields)
        }
        guard role == .viewer, let ref = fields.stringContent("ref"),
              let sentAt = Self.sendTime(fromRef: fields.bytes, ref) else { return }
        let refDigest = SelectionDigest.digest(fields.bytes, ref)
        guard refDigest != views[i].lastRefDigest else { return }
        views[i].lastRefDigest = refDigest
        recorder.fanout.record(nanoseconds: now > sentAt ? now - sentAt : 0)
    }

    private func handleSnapshot(_ fields: MessageFields) {
        recorder.counters.snapshotsReceived += 1
        guard let chart = fields.stringContent("chart"), let seq = fields.integer("seq") else { return }
        let i = chartSlot(fields.bytes, chart)
        if seq > views[i].seq { views[i].seq = seq }
        recorder.observe(chart: i, seq: seq, now: MonotonicClock.now())
        if seq >= views[i].stateSeq, let body = fields.value("selection"),
           let selection = MessageFields(fields.bytes, range: body) {
            views[i].stateSeq = seq
            views[i].stateFromSnapshot = true
            views[i].stateDigest = SelectionDigest.digest(selection)
        }
        if isDriver { learnCategories(fields.bytes) }
        snapshotsSeen += 1
        if snapshotsSeen >= snapshotsExpected { markReady() }
    }

    /// A driver's charts as announced by `welcome`, completed by their snapshots.
    private var knownCharts: [ChartTarget] = []

    /// Reads a category chart's category count from its snapshot's `x.domain` (drivers only:
    /// they aim at category centres).
    private func learnCategories(_ bytes: [UInt8]) {
        guard let doc = try? JSONReader.parse(bytes), let id = doc["chart"]?.string,
              doc["x"]?["kind"]?.string == "category", let names = doc["x"]?["domain"]?.array,
              let k = knownCharts.firstIndex(where: { $0.id == id }) else { return }
        knownCharts[k].categories = names.count
        script?.update(knownCharts[k])
    }

    private func handleWelcome(_ bytes: [UInt8]) {
        guard let doc = try? JSONReader.parse(bytes) else { return }
        viewerID = doc["viewer"]?.string
        let charts = doc["charts"]?.array ?? []
        knownCharts = charts.compactMap { spec in
            guard let id = spec["id"]?.string else { return nil }
            let interactions = spec["interactions"]
            return ChartTarget(id: id, hover: interactions?["hover"]?.bool ?? false,
                               drag: interactions?["drag"]?.string ?? "none", tap: interactions?["tap"]?.bool ?? false)
        }
        if case .driver(let d) = role {
            script = PointerScript(pattern: pattern, charts: knownCharts, driver: d, plot: plot)
        }
        for chart in knownCharts {
            var w = JSONWriter(capacity: 160)
            w.beginObject()
            w.key("type"); w.string("viewport")
            w.key("chart"); w.string(chart.id)
            w.key("plot"); w.beginObject()
            w.key("x"); w.number(plot.x); w.key("y"); w.number(plot.y)
            w.key("width"); w.number(plot.width); w.key("height"); w.number(plot.height)
            w.endObject()
            w.key("rtl"); w.bool(false)
            w.endObject()
            connection?.send(bytes: w.bytes, binary: false)
        }
        snapshotsExpected = knownCharts.count
        if snapshotsSeen >= snapshotsExpected { markReady() }
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

    private func send(_ step: PointerStep, driver d: Int) {
        serial += 1
        var w = JSONWriter(capacity: 128)
        w.beginObject()
        w.key("type"); w.string("pointer")
        w.key("chart"); w.string(step.chart)
        w.key("phase"); w.string(step.phase.rawValue)
        w.key("x"); w.number(step.x)
        w.key("y"); w.number(step.y)
        w.key("ref"); w.string(Self.makeRef(driver: d, serial: serial, at: MonotonicClock.now()))
        w.endObject()
        connection?.send(bytes: w.bytes, binary: false)
        recorder.counters.pointersSent += 1
    }

    /// Mirror mode: sends one message shaped like a selection (`chart` = this driver's pseudo
    /// chart, `seq`, timing `ref`), padded with a `body` to `size` bytes.
    func sendMirrorMessage(size: Int) {
        guard case .driver(let d) = role, isReady, !isClosed else { return }
        serial += 1
        let head = "{\"type\":\"selection\",\"chart\":\"m\(d)\",\"seq\":\(serial),\"ref\":\"\(Self.makeRef(driver: d, serial: serial, at: MonotonicClock.now()))\",\"body\":\""
        let padding = max(0, size - head.utf8.count - 2)
        connection?.send(text: head + String(repeating: "x", count: padding) + "\"}")
        recorder.counters.pointersSent += 1
    }

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
