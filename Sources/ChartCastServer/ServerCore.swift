import ChartCastCluster
import ChartCastDemo
import ChartCastProtocol
import ChartEngine
import Dispatch
import WebSockets

/// Everything the server knows, owned by the lws service thread: charts, viewers, metrics.
///
/// Implements the WebSocket delegate. Incoming messages change chart state; every change bumps
/// the chart's `seq`, is encoded once, and each viewer's connection is asked to write. What a
/// viewer is sent next is decided only when its socket is writable (`nextFrame(for:)`), so a slow
/// viewer is served the newest state rather than a backlog.
///
/// Arrivals and departures cost O(1) each; what they change for everyone else is batched: the
/// viewer list by `publishViewersIfNeeded`, the selections a departure changed by
/// `finishServicePass`, once per service pass.
/// - Note: service thread only, apart from `init`, which runs before the service thread starts.
///   Debug builds check the entry points (`assertOwningThread`).
final class ServerCore {
    static let palette = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                          "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"]
    /// Appends kept per chart before a lagging viewer is sent a snapshot instead.
    static let appendLogCapacity = 256
    /// Every limit the server enforces and announces in `welcome`.
    static let limits = ProtocolLimits.v1
    /// At most this many viewers are listed in a `viewers` message (`total` gives the count).
    static let maxListedViewers = 64

    let options: ServerOptions
    let logger: Logger
    /// The chart slots, in dashboard order: every channel ever defined that viewers may still
    /// need to hear about. A removed chart stays in its slot (`isRemoved`) until every viewer
    /// that knew it was told; sessions keep their per-chart state by slot.
    private(set) var channels: [ChartChannel]
    /// The live charts by id.
    private(set) var channelsByID: [String: ChartChannel]
    /// The dashboard's title (`GET /api/dashboard`).
    var dashboardTitle: String
    /// The demo's live data, when the demo is served.
    var feeds: DemoFeeds?
    var metrics = Metrics()
    /// Who may write (HTTP writes, `publish`).
    let writeAccess: WriteAccess
    /// Who may watch (`/ws`, API reads, `/metrics`).
    let readAccess: ReadAccess
    /// Which pages may open `/ws`.
    let originPolicy: OriginPolicy
    /// The message budgets shared by each address's connections.
    let addressBudgets: AddressBudgets
    /// The history store, when the server keeps history (`--data`).
    var history: HistoryLink?
    /// The other instances of this dashboard (`--redis`): shared changes go through their
    /// stream (`ServerCore+Cluster.swift`); nil serves alone.
    var cluster: ClusterState?
    /// Answers kept by `Idempotency-Key`.
    let idempotency = IdempotencyCache<APIResponse>()
    /// Orders the operations on each chart (writes, definitions, removals), so that a write is
    /// applied to the state it was validated against (`ChartOrder`).
    let chartOrder = ChartOrder()
    /// Reads stored history for views that reach before a chart's live window; nil: views show
    /// the in-memory points only.
    var historyReader: HistoryReading?
    /// Hands work back to the service thread (`WebSocketServer.perform`); runs it at once until
    /// a server is attached (tests drive the core directly).
    var runOnServiceThread: (@escaping () -> Void) -> Void = { $0() }
    /// The shared state as a snapshot, taken on the service thread for a cluster thread that
    /// waits for it (`ClusterHandlers.capture`); nil until a server is attached.
    var captureForCluster: () -> ClusterSnapshot? = { nil }
    /// The last `specVersion` handed out (`ChartChannel.specVersion`).
    private var specVersionCounter = 0
    /// Whether the caller may touch the core (see `assertOwningThread`): the server's service
    /// thread while it runs (any thread before it starts and after it stopped, when nothing else
    /// runs), and the thread that created the core until `ChartCastServer` attached a server.
    var isOwningThread: () -> Bool
    /// Debug builds: receives thread violations instead of `assertionFailure` (tests).
    var onThreadViolation: ((String) -> Void)?

    /// Open viewers in join order, for the `viewers` list and for waking everyone.
    private(set) var roster = Roster<Session>()
    private var viewerCounter = 0
    private var viewersVersion = 0
    private var viewersDirty = false
    /// The welcome's shared members (`"charts":[…],"limits":{…}`) for the dashboard as it was
    /// when `key` was taken: each live chart's `specVersion` and series count, in order.
    private var welcomeShared: (key: [Int], members: [UInt8])?
    private var lastViewersPublish: UInt64 = 0
    private var viewersFrame: (version: Int, frame: OutboundFrame)?
    /// Per chart: the selection version right after the latest departure of this pass changed
    /// that chart's selection; nil when no departure did.
    private var departedSelections: [Int?]
    private var departuresPending = false
    /// A selection changed this pass: wake everyone at its end (`finishServicePass`).
    private var wakePending = false
    /// This pass's share of chart data (`nextChartFrame`).
    var dataBudget = DataBudget()
    /// Viewers whose chart data waits for a later pass, in the order they were held.
    var heldSessions = FIFOQueue<Session>()
    /// Applies of writes waiting for their turn, in order (`stageApply`); `alone`: a job that
    /// runs in a pass of its own.
    private var stagedApplies = FIFOQueue<(alone: Bool, work: () -> Void)>()
    /// Viewers that left since the allocator last returned memory (`trimMemoryIfNeeded`).
    var departuresSinceTrim = 0
    /// When the allocator last returned memory (monotonic ns), 0 before.
    var lastTrimAt: UInt64 = 0
    /// `departuresSinceTrim` as the previous sweep saw it (unchanged since: nobody left).
    var departuresAtLastSweep = 0
    /// The last trim ran while viewers were still leaving: one more is owed once they stop.
    var trimFollowUpOwed = false

    /// A core serving `dashboard`, or the demo (with its live feeds) when nil.
    init(options: ServerOptions, logger: Logger, dashboard: Dashboard? = nil) {
        self.options = options
        self.logger = logger
        self.writeAccess = WriteAccess(token: options.writeToken)
        self.readAccess = ReadAccess(viewerToken: options.viewerToken, writeToken: options.writeToken,
                                     metricsToken: options.metricsToken)
        self.originPolicy = OriginPolicy(allowing: options.allowedOrigins)
        self.addressBudgets = AddressBudgets(rate: options.maxRatePerAddress)
        let stores: [ChartStore]
        if let dashboard {
            stores = dashboard.charts.map { ChartStore(spec: $0) }
            dashboardTitle = dashboard.title
        } else {
            stores = DemoDashboard.makeStores(window: options.window)
            dashboardTitle = DemoDashboard.title
        }
        channels = stores.enumerated().map { index, store in
            ChartChannel(index: index, store: store, appendLogCapacity: ServerCore.appendLogCapacity, specVersion: index + 1)
        }
        specVersionCounter = channels.count
        channelsByID = Dictionary(uniqueKeysWithValues: channels.map { ($0.id, $0) })
        feeds = dashboard == nil ? DemoFeeds(feeding: channels) : nil
        departedSelections = Array(repeating: nil, count: channels.count)
        isOwningThread = ServerCore.isCurrentThread(ServerCore.currentThread())
    }

    /// A new `specVersion` for a chart being defined.
    func nextSpecVersion() -> Int {
        specVersionCounter += 1
        return specVersionCounter
    }

    /// Puts `channel` in its slot, replacing the slot's previous channel (which the caller marked
    /// removed), or in a new slot at the end, growing every session's cursors.
    /// - Complexity: O(1), or O(viewers) for a new slot.
    func install(_ channel: ChartChannel) {
        if channel.index == channels.count {
            channels.append(channel)
            departedSelections.append(nil)
            for session in roster { session.growSlots(to: channels.count) }
        } else {
            channels[channel.index] = channel
            departedSelections[channel.index] = nil
        }
        channelsByID[channel.id] = channel
    }

    /// Takes the live chart `id` out of the dashboard: its channel stays in its slot, removed,
    /// until every viewer that knew it has been told.
    func uninstall(_ id: String) -> ChartChannel? {
        guard let channel = channelsByID.removeValue(forKey: id) else { return nil }
        channel.markRemoved()
        return channel
    }

    /// The live charts, in dashboard order: the order they were first defined (`position`), the
    /// order in which viewers watching all along had them appended.
    /// - Complexity: O(slots · log slots).
    var liveChannels: [ChartChannel] { channels.filter { !$0.isRemoved }.sorted { $0.position < $1.position } }

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    var viewerCount: Int { roster.count }

    // MARK: Timers

    /// One demo feed step: appends and category updates for every live chart.
    func tick() {
        assertOwningThread()
        guard feeds != nil else { return }
        if cluster != nil { return clusterTick() }
        feeds?.tick(channels, now: ServerCore.now())
        // At the end of the pass (this runs in a timer's callback): each viewer's appends are
        // then written at once (`writeNow`), not by arming and disarming its POLLOUT.
        wakeAtEndOfPass()
    }

    /// Seconds between two viewer lists: 0.2 s for a small audience, growing with the crowd
    /// (N / 2500 s) so that the lists sent per second stay near 2,500 whatever N is.
    static func viewersListInterval(viewers: Int) -> Double { max(0.2, Double(viewers) / 2_500) }

    /// Publishes the viewer list if it changed and the interval has passed (joins and leaves
    /// are batched so a crowd arriving or leaving at once costs one list per interval, not one
    /// per viewer).
    func publishViewersIfNeeded(now: UInt64 = ServerCore.now()) {
        assertOwningThread()
        guard viewersDirty else { return }
        let interval = ServerCore.viewersListInterval(viewers: roster.count)
        guard Double(now &- lastViewersPublish) / 1e9 >= interval else { return }
        lastViewersPublish = now
        viewersDirty = false
        viewersVersion += 1
        wakeAtEndOfPass()   // a timer's callback too: written at the pass's end, as the appends
    }

    /// Asks every viewer's connection for a write; each takes the newest state when writable.
    /// - Complexity: O(viewers).
    func wakeAll() {
        for session in roster { session.connection.writeNow() }
    }

    /// Asks for one `wakeAll` at the end of the current service pass (see `finishServicePass`).
    /// - Complexity: O(1).
    func wakeAtEndOfPass() { wakePending = true }

    // MARK: Sessions

    /// A viewer arrived: its session, its welcome, and a write request for it alone.
    /// - Complexity: O(charts); the others hear of it through the batched viewer list.
    func open(_ connection: ViewerConnection) {
        assertOwningThread()
        viewerCounter += 1
        let info = clusterViewerInfo() ?? ViewerInfo(id: "v\(viewerCounter)", name: "Viewer \(viewerCounter)",
                                                     color: ServerCore.palette[(viewerCounter - 1) % ServerCore.palette.count])
        let cursors = channels.map { Session.Cursor(specVersion: $0.isRemoved ? 0 : $0.specVersion) }
        let session = Session(connection: connection, info: info, cursors: cursors,
                              rateLimiter: RateLimiter(rate: ServerCore.limits.messagesPerSecond,
                                                       burst: ServerCore.limits.messageBurst, now: ServerCore.now()),
                              canWrite: writeAccess.permits(authorization: connection.authorization, peerIP: connection.peerIP))
        session.address = connection.peerIP
        session.addressBudget = addressBudgets.join(session.address, now: ServerCore.now())
        connection.userData = session
        roster.append(session)
        metrics.connectionsTotal += 1
        let welcome = ServerMessage.encodeWelcome(protocolVersion: ServerMessage.protocolVersion, viewer: info,
                                                  sharedMembers: welcomeSharedMembers())
        session.enqueuePersonal(OutboundFrame(textBytes: welcome))
        clusterOpened(session)
        viewersDirty = true
        logger.log(.info, key: "viewer-connected", "viewer \(info.id) connected from \(connection.remoteAddress) (\(roster.count) connected)")
        connection.requestWrite()
    }

    /// What every arriving viewer's welcome shares, encoded once per dashboard state: a crowd
    /// arriving together costs one encoding of the chart specs, not one each.
    /// - Complexity: O(charts) to check the key; O(size of the specs) when the dashboard changed.
    func welcomeSharedMembers() -> [UInt8] {
        let live = liveChannels
        var key: [Int] = []
        key.reserveCapacity(2 * live.count)
        for channel in live { key.append(channel.specVersion); key.append(channel.spec.series.count) }
        if let cached = welcomeShared, cached.key == key { return cached.members }
        let members = ServerMessage.welcomeSharedMembers(charts: live.map(\.spec), limits: ServerCore.limits)
        welcomeShared = (key, members)
        return members
    }

    /// A viewer left: its session is dropped and its hovers and drags leave the charts.
    ///
    /// Nobody else is woken here: the viewer list goes out with the next batched publish, and a
    /// selection the departure changed is encoded and announced once per service pass by
    /// `finishServicePass`, however many viewers left in it.
    /// - Complexity: O(charts), amortised O(1) in the number of viewers.
    func close(_ connection: ViewerConnection) {
        guard let session = session(for: connection) else { return }
        connection.userData = nil   // the session holds the connection: break the cycle
        roster.remove(session)
        if session.addressBudget != nil { addressBudgets.leave(session.address) }
        if cluster != nil {
            clusterClosed(session)   // its hovers and drags leave when the entry is applied
        } else {
            for channel in channels where channel.engine.removeViewer(session.info.id) {
                departedSelections[channel.index] = channel.selectionVersion
                departuresPending = true
            }
        }
        viewersDirty = true
        departuresSinceTrim += 1
        logger.log(.info, key: "viewer-disconnected",
                   "viewer \(session.info.id) disconnected from \(connection.remoteAddress) (\(roster.count) connected)")
    }

    /// The end of a service pass: publishes what this pass's departures changed and wakes the
    /// viewers once for every change of the pass. Each chart whose selection a departure changed
    /// gets one new selection frame (unless a newer one went out since, which already shows it).
    /// Pointer and key events that changed a selection during the pass (`wakeAtEndOfPass`) share
    /// the same single wake: K events in one pass cost one walk over the viewers, not K. Writes
    /// happen only after the next poll anyway, so the deferred wake adds no latency.
    /// - Complexity: O(1) when nobody left; else O(charts), plus O(viewers) for the one wake.
    func finishServicePass(now: UInt64 = ServerCore.now()) {
        assertOwningThread()
        let held = !heldSessions.isEmpty
        if held { wakeHeldViewers() }
        dataBudget.finishPass(now: now, stillHeld: held)
        if !stagedApplies.isEmpty { runStagedApplies(from: now) }
        guard departuresPending || wakePending else { return }
        var published = wakePending
        wakePending = false
        departuresPending = false
        for channel in channels {
            guard let version = departedSelections[channel.index] else { continue }
            departedSelections[channel.index] = nil
            if channel.selectionVersion == version {
                channel.selectionDidChange(ref: nil, now: now)
                published = true
            }
        }
        if published { wakeAll() }
    }

    /// Seconds of staged applies one service pass runs at most (at least one apply per pass).
    static let applyBudget = 0.0005

    /// Queues a write's apply (and its answer) for the end of the current service pass.
    ///
    /// Applying a big write takes milliseconds; several arriving together would hold the
    /// service thread for all of them at once while pointer input waits unread. Staged, each
    /// pass runs applies until `applyBudget` is spent (at least one), and another pass comes at
    /// once for the rest, so the sockets are polled and input read between two big writes.
    /// Applies keep their order.
    /// - Complexity: O(1).
    /// - Note: service thread only.
    /// With `alone`, the job gets a pass to itself (work of a millisecond or more, such as
    /// building a big chart's snapshots, that should not add to a pass already spent on others).
    func stageApply(alone: Bool = false, _ work: @escaping () -> Void) {
        stagedApplies.append((alone, work))
    }

    /// Runs staged applies for at most `applyBudget` (at least one; an `alone` job only first,
    /// and then no other), and asks for another pass when some are left.
    private func runStagedApplies(from start: UInt64) {
        let budget = UInt64(ServerCore.applyBudget * 1e9)
        var ran = 0
        while let next = stagedApplies.first {
            if next.alone && ran > 0 { break }
            _ = stagedApplies.popFirst()
            next.work()
            ran += 1
            if next.alone || ServerCore.now() &- start >= budget { break }
        }
        if !stagedApplies.isEmpty { runOnServiceThread {} }   // wake the loop: another pass, after a poll
    }

    /// The open viewer on `connection`, nil once it closed. Every entry point that concerns one
    /// connection starts here, so this is also where debug builds check the thread.
    /// - Complexity: O(1), no hashing (hot path: once per write).
    func session(for connection: ViewerConnection) -> Session? {
        assertOwningThread()
        return connection.userData as? Session
    }

    /// Queues an `error` for one viewer and counts it.
    func sendError(_ error: ProtocolError, to session: Session) {
        metrics.errors[error.code, default: 0] += 1
        logger.log(.debug, key: "protocol-error", "viewer \(session.info.id): error \(Logger.sanitized("\(error)", limit: 200))")
        if session.enqueuePersonal(OutboundFrame(textBytes: ServerMessage.error(error).encode())) {
            session.connection.requestWrite()
        } else {
            metrics.personalFramesDropped += 1
        }
    }

    /// The `viewers` frame for the current roster, encoded at most once per version.
    func currentViewersFrame() -> OutboundFrame {
        if let cached = viewersFrame, cached.version == viewersVersion { return cached.frame }
        let (listed, total) = clusterViewerList(limit: ServerCore.maxListedViewers)
            ?? (roster.prefix(ServerCore.maxListedViewers).map(\.info), roster.count)
        let list = ServerMessage.ViewerList(viewers: listed, total: total)
        let frame = OutboundFrame(textBytes: ServerMessage.viewers(list).encode())
        viewersFrame = (viewersVersion, frame)
        return frame
    }

    var currentViewersVersion: Int { viewersVersion }

    /// Marks the roster changed (join, leave, rename).
    func rosterChanged() { viewersDirty = true }
}
