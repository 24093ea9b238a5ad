import ChartCastCluster
import ChartCastProtocol
import ChartCastStorage
import Foundation
import WebSockets

/// A point-in-time summary of the server, for tests and tools.
public struct ServerStatistics: Sendable {
    public var viewers: Int
    public var framesIn: Int
    public var framesOut: Int
    public var bytesOut: Int
    public var statesCoalesced: Int
    public var snapshotsResent: Int
    /// Bytes queued per viewer beyond the shared frames (personal frames), by viewer id.
    public var pendingBytesByViewer: [String: Int]
    /// Current `seq` of each chart.
    public var seqByChart: [String: Int]
    public var errors: [String: Int]
    public var rssBytes: Int?

    /// Bytes the server holds for one viewer beyond shared frames, 0 when unknown.
    public func pendingBytes(forViewer id: String) -> Int { pendingBytesByViewer[id] ?? 0 }
}

/// A dashboard file that cannot be served: one line naming the file and the field.
public struct DashboardFileError: Error, CustomStringConvertible, Equatable {
    public var description: String
}

/// The ChartCast server: the demo dashboard's charts, protocol v1 at `/ws`, the page and the
/// HTTP endpoints, all on one libwebsockets service thread.
///
/// `start()` binds and returns the port; `shutdown()` closes every viewer with 1001 and stops.
public final class ChartCastServer {
    /// The WebSocket subprotocol of protocol v1.
    public static let subprotocol = "chartcast.v1"

    public let options: ServerOptions
    public let logger: Logger
    let core: ServerCore
    private let delegate: CoreDelegate
    let server: WebSocketServer
    private var started = false

    /// A server for `dashboard`, or for the demo (with its live feeds) when nil.
    public init(options: ServerOptions, logger: Logger? = nil, dashboard: Dashboard? = nil) {
        self.options = options
        self.logger = logger ?? Logger(level: options.logLevel)
        core = ServerCore(options: options, logger: self.logger, dashboard: dashboard)
        delegate = CoreDelegate(core: core)
        var configuration = WebSocketServerConfiguration(subprotocol: ChartCastServer.subprotocol)
        configuration.host = options.host
        configuration.port = options.port
        configuration.webRoot = options.webRoot
        configuration.webSocketPath = "/ws"
        configuration.vhostName = "chartcast"
        configuration.serverName = "ChartCast"
        configuration.maxMessageSize = ServerCore.limits.maxMessageBytes
        configuration.maxRequestBodyBytes = ServerCore.maxBodyBytes
        configuration.customRequestHeaders = ["Idempotency-Key"]
        configuration.permessageDeflate = options.deflate
        configuration.reusePort = options.reusePort
        configuration.eventLoop = options.eventLoop
        configuration.limits.maxWebSockets = options.maxViewers
        configuration.limits.maxConnectionsPerAddress = options.maxPerAddress
        configuration.limits.pingInterval = options.pingInterval
        configuration.limits.idleTimeout = options.idleTimeout
        configuration.tlsCertificatePath = options.tlsCertificate
        configuration.tlsPrivateKeyPath = options.tlsPrivateKey
        configuration.staticFileHeaders = ChartCastServer.pageSecurityHeaders
        configuration.staticFileExtensions = ChartCastServer.pageFileExtensions
        let server = WebSocketServer(configuration: configuration, delegate: delegate)
        self.server = server
        core.isOwningThread = { [weak server] in server?.isServiceThreadOrIdle ?? false }
        core.runOnServiceThread = { [weak server] work in server?.perform(work) }
        core.captureForCluster = { [weak server, weak core] in
            server?.performAndWait(timeout: 5) { core?.captureSnapshot() } ?? nil
        }
    }

    /// Sent with the page and every static file: scripts, styles and connections from the page's
    /// own origin only (`'self'` in `connect-src` covers `ws:`/`wss:` to the same host in CSP 3
    /// browsers), no framing, no MIME sniffing, no referrer.
    public static let pageSecurityHeaders: [HTTPHeaderField] = [
        HTTPHeaderField(name: "Content-Security-Policy",
                        value: "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
                            + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"),
        HTTPHeaderField(name: "X-Content-Type-Options", value: "nosniff"),
        HTTPHeaderField(name: "X-Frame-Options", value: "DENY"),
        HTTPHeaderField(name: "Referrer-Policy", value: "no-referrer"),
    ]

    /// The kinds of file the page consists of; anything else under the web root (its
    /// `README.md`, notes, backups) is answered 404.
    public static let pageFileExtensions: Set<String> = ["html", "js", "mjs", "css", "png", "svg", "ico", "json", "map", "wasm", "txt"]

    /// Reads and checks a dashboard file.
    /// - Throws: `DashboardFileError` with one line naming the file and the field.
    public static func loadDashboard(at path: String) throws -> Dashboard {
        let bytes: [UInt8]
        do {
            bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw DashboardFileError(description: "\(path): cannot be read (\((error as NSError).localizedDescription))")
        }
        do {
            return try Dashboard.parse(bytes)
        } catch let error as ProtocolError {
            throw DashboardFileError(description: "\(path): \(error.message)")
        }
    }

    /// Opens the history store (with `options.dataDirectory`) and brings its charts back, then
    /// binds and starts the service thread, the demo feeds and retention sweeps. Returns the
    /// bound port.
    /// - Throws: `StorageError` when the data directory cannot be used (not writable, corrupt,
    ///   written by a newer version, in use by another server): the server never starts empty
    ///   on top of history it cannot read. `WebSocketError.listenFailed` with a readable reason
    ///   (e.g. the port is taken, or a TLS certificate or key cannot be used — checked before
    ///   the history is opened).
    @discardableResult
    public func start() throws -> Int {
        // A certificate that cannot be used fails before history is opened and restored.
        try server.checkTLSFiles()
        if let directory = options.dataDirectory, core.history == nil {
            try openHistory(in: directory)
        }
        if let endpoint = options.redis, core.cluster == nil {
            do {
                try joinCluster(endpoint)
            } catch {
                closeHistory()
                throw error
            }
        }
        let port: Int
        do {
            port = try server.start()
        } catch {
            leaveCluster()
            closeHistory()
            throw error
        }
        core.startCluster()
        started = true
        let core = self.core, server = self.server, tick = options.tick, options = self.options
        let sweepEvery = core.history.map { _ in options.historySweepInterval }
        server.perform {
            server.schedule(every: tick) { core.tick() }
            server.schedule(every: 0.2) { core.publishViewersIfNeeded() }
            server.schedule(every: ServerCore.sweepInterval(options)) { core.sweep() }
            if let sweepEvery { server.schedule(every: sweepEvery) { core.sweepHistory() } }
            if core.cluster != nil { server.schedule(every: min(1, options.snapshotInterval)) { core.clusterSnapshotIfDue() } }
        }
        return port
    }

    /// Opens the store, restores its charts and refills live windows; logs what came back.
    private func openHistory(in directory: String) throws {
        let began = DispatchTime.now().uptimeNanoseconds
        let store = try HistoryStore.open(directory: directory)
        do {
            // With --redis the dashboard's state comes from its stream; the store keeps history.
            let summary = try core.attach(history: HistoryLink(store: store), restore: options.redis == nil)
            let ms = Double(DispatchTime.now().uptimeNanoseconds - began) / 1e6
            logger.info("history in \(store.path): \(summary.chartsRestored) charts restored, \(summary.chartsRefilled) refilled with \(summary.valuesLoaded) values (\(String(format: "%.0f", ms)) ms)")
        } catch {
            store.close()
            throw error
        }
    }

    /// Joins the dashboard's other instances in Redis and applies its stream so far, before the
    /// port is bound: a viewer is served only once the instance holds the shared state.
    /// - Throws: `RedisError.connectionFailed` (Redis unreachable), `ClusterJoinError` (it holds
    ///   another dashboard).
    private func joinCluster(_ endpoint: RedisEndpoint) throws {
        let began = DispatchTime.now().uptimeNanoseconds
        let core = self.core, logger = self.logger
        let join = try ClusterLink.join(endpoint: endpoint, fingerprint: core.startingFingerprint()) {
            // Redis holds no dashboard: this instance's start, with what its history brings back, is the dashboard's.
            if let store = core.history?.store {
                let summary = try core.restore(from: store)
                logger.info("history in \(store.path): \(summary.chartsRestored) charts restored, \(summary.chartsRefilled) refilled with \(summary.valuesLoaded) values for the dashboard")
            }
            return core.captureSnapshot()
        }
        core.attach(cluster: join)
        let ms = Double(DispatchTime.now().uptimeNanoseconds - began) / 1e6
        logger.info("cluster: caught up with \(join.snapshot.map { "a snapshot of \($0.charts.count) charts and " } ?? "")\(join.backlog.count) entries in \(String(format: "%.0f", ms)) ms")
    }

    /// Tells the other instances this one is gone and stops the link's threads.
    private func leaveCluster() {
        core.leaveCluster()
    }

    /// Commits what the history store still holds and closes it.
    private func closeHistory() {
        core.history?.store.close()
        core.history = nil
        core.historyReader = nil
    }

    /// The bound port (after `start()`).
    public var port: Int { server.port }

    /// What the transport runs on, for the start-up log: the event loop and the file-descriptor
    /// limit (raised to the hard limit). After `start()`.
    public var transportSummary: String { server.transportSummary }

    /// Sends close 1001 to every viewer, waits at most half a second for them, and stops.
    /// Safe to call from any thread but the service thread; idempotent.
    public func shutdown() {
        guard started else { return }
        started = false
        server.shutdown(closeCode: 1001, grace: 0.5)
        leaveCluster()
        closeHistory()
    }

    /// Current figures, gathered on the service thread. Blocks briefly (at most `timeout`
    /// seconds); nil when the server is not running (before `start()`, after `shutdown()`) or
    /// did not answer in time.
    public func statistics(timeout: Double = 5) -> ServerStatistics? {
        let core = self.core
        return server.performAndWait(timeout: timeout) {
            var pending: [String: Int] = [:]
            for session in core.roster { pending[session.info.id] = session.pendingPersonalBytes }
            return ServerStatistics(
                viewers: core.viewerCount, framesIn: core.metrics.framesIn, framesOut: core.metrics.framesOut,
                bytesOut: core.metrics.bytesOut, statesCoalesced: core.metrics.statesCoalesced,
                snapshotsResent: core.metrics.snapshotsResent, pendingBytesByViewer: pending,
                seqByChart: Dictionary(uniqueKeysWithValues: core.liveChannels.map { ($0.id, $0.seq) }),
                errors: Dictionary(uniqueKeysWithValues: core.metrics.errors.map { ($0.key.rawValue, $0.value) }),
                rssBytes: ServerCore.residentBytes())
        }
    }
}
