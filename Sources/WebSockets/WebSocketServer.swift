import CLibWebsockets
import Foundation

/// An HTTP + WebSocket server on one port, serviced by one thread.
///
/// `start()` creates the libwebsockets context (binding the port) and starts
/// the service thread; every delegate call, every connection method and every
/// timer runs on that thread. Other threads reach it with `perform(_:)` or
/// `performAndWait(timeout:_:)`.
/// `shutdown(closeCode:grace:)` closes every WebSocket, waits a bounded time
/// for peers, and destroys the context. Members marked "service thread only"
/// check that in debug builds.
///
/// The delegate is held strongly from `init` until `shutdown` returns, so a
/// running server keeps its delegate alive; the reference is dropped after
/// shutdown, which breaks the cycle when the delegate owns the server.
public final class WebSocketServer {
    /// The configuration given at `init`.
    public let configuration: WebSocketServerConfiguration
    let loop = ServiceLoop()
    /// The buffer small frames are batched in before one send. - Note: service thread only.
    let frameBatch = FrameBatch()
    var delegate: WebSocketServerDelegate?
    let files: StaticFileResolver?
    /// Copies request heads out of libwebsockets (with the configured custom headers).
    let headReader: RequestHeadReader
    private var allocations: CAllocations?
    private let stateLock = NSLock()
    private var boundPort = 0
    private var started = false

    /// Open WebSocket connections by id, for enumeration and shutdown; callbacks find their
    /// connection through the wsi's per-session user data instead. - Note: service thread only.
    var connections: [Int: WebSocketConnection] = [:]
    /// A `writeNow` is under way (so one nested in it arms a callback). - Note: service thread only.
    var isWritingNow = false
    /// The ping frame, with the headroom `lws_write` needs (`writePing`). - Note: service thread only.
    let pingFrame = OutboundFrame(textBytes: Array("ping".utf8))
    /// Scratch space for HTTP headers and body chunks. - Note: service thread only.
    let httpScratch: UnsafeMutableRawPointer
    static let httpChunkSize = 16 * 1024
    static let httpScratchSize = lwsPre + httpChunkSize
    var nextConnectionID = 1
    /// Set once shutdown began. - Note: service thread only.
    var isShuttingDown = false
    var shutdownCloseCode: UInt16 = 1001
    /// Connections per address and refusal logs. - Note: service thread only.
    let admission = ConnectionAdmission()
    /// The peer of the connection accepted last, until its wsi exists. - Note: service thread only.
    var pendingPeerAddress: String?
    /// The process's file-descriptor limit, as the context was sized for it.
    var fileDescriptorLimit = 1024
    /// What the transport runs on, as logged at start: the event loop and the file-descriptor
    /// limit (`event loop: libev (epoll); file descriptors: soft limit raised from 1024 to 20000
    /// (the hard limit)`). Empty before `start()`.
    public private(set) var transportSummary = ""
    /// The listening socket made here for a shared port (`reusePort`), once adopted.
    var sharedListener: Int32?

    /// Prepares a server; nothing is bound until `start()`.
    /// - Parameters:
    ///   - configuration: address, paths and limits.
    ///   - delegate: held strongly until `shutdown` returns.
    public init(configuration: WebSocketServerConfiguration, delegate: WebSocketServerDelegate) {
        self.configuration = configuration
        self.delegate = delegate
        self.files = configuration.webRoot.flatMap { StaticFileResolver(webRoot: $0) }
        self.headReader = RequestHeadReader(customHeaders: configuration.customRequestHeaders)
        self.httpScratch = UnsafeMutableRawPointer.allocate(byteCount: WebSocketServer.httpScratchSize, alignment: 16)
        if let root = configuration.webRoot, files == nil {
            WebSocketLog.log(.warn, "web root \(root) does not exist; no static files will be served")
        }
    }

    deinit {
        httpScratch.deallocate()
    }

    /// Creates the context, binds the port and starts the service thread.
    ///
    /// - Returns: the port actually listened on (the ephemeral one for port 0).
    /// - Throws: `WebSocketError.listenFailed` naming the address and the cause,
    ///   e.g. "cannot listen on 127.0.0.1:8080: address already in use".
    /// - Note: call once, from any thread.
    public func start() throws -> Int {
        stateLock.lock()
        defer { stateLock.unlock() }
        guard !started else { return boundPort }
        let where_ = ListenSupport.display(host: configuration.host, port: configuration.port)
        guard let address = ListenSupport.listenAddress(for: configuration.host) else {
            throw WebSocketError.listenFailed("cannot listen on \(where_): not an IP address")
        }
        guard configuration.port >= 0 && configuration.port <= 65535 else {
            throw WebSocketError.listenFailed("cannot listen on \(where_): port out of range")
        }
        let tls = try TLSFiles.check(certificate: configuration.tlsCertificatePath, privateKey: configuration.tlsPrivateKeyPath)
        var shared: (fd: Int32, port: Int)?
        if configuration.reusePort {
            do {
                shared = try WebSocketServer.makeSharedListener(address: address, port: configuration.port)
            } catch WebSocketError.listenFailed(let reason) {
                throw WebSocketError.listenFailed("cannot listen on \(where_): \(reason)")
            }
        } else if let reason = ListenSupport.probe(address: address, port: configuration.port) {
            throw WebSocketError.listenFailed("cannot listen on \(where_): \(reason)")
        }
        let (fileLimit, raisedFrom) = ListenSupport.raiseFileLimit()
        WebSocketLog.installInLibrary()

        let allocations = CAllocations()
        var info = cc_zeroed_context_info()
        info.port = shared == nil ? Int32(configuration.port) : CONTEXT_PORT_NO_LISTEN_SERVER
        info.iface = allocations.string(address.interface)
        info.protocols = UnsafePointer(shared == nil ? makeProtocols(allocations) : makeProtocolsSharingPort(allocations))
        if configuration.permessageDeflate {
            info.extensions = UnsafePointer(allocations.permessageDeflateExtensions(inflatesReceived: false))
        }
        info.vhost_name = UnsafePointer(allocations.string(configuration.vhostName))
        info.server_string = allocations.string(configuration.serverName)
        info.user = Unmanaged.passUnretained(self).toOpaque()
        info.fd_limit_per_thread = UInt32(fileLimit)
        info.max_http_header_pool = 1024
        info.pt_serv_buf_size = 32 * 1024
        info.keepalive_timeout = 5
        info.timeout_secs = 10
        var options = UInt64(LWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND)
        if !address.ipv6 {
            options |= UInt64(LWS_SERVER_OPTION_DISABLE_IPV6)
        }
        if let tls {
            // TLS only: a plaintext request on this port fails the TLS handshake and is closed.
            options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
            info.ssl_cert_filepath = UnsafePointer(allocations.string(tls.certificatePath))
            info.ssl_private_key_filepath = UnsafePointer(allocations.string(tls.privateKeyPath))
            // Offer only HTTP/1.1: libwebsockets would negotiate HTTP/2 with browsers and curl,
            // whose streams bypass this server's HTTP/1.1 body and upgrade handling.
            info.alpn = UnsafePointer(allocations.string("http/1.1"))
        }
        info.options = options
        applyLimits(to: &info, allocations: allocations, fileLimit: fileLimit)

        let (created, libraryErrors) = createContext(&info)
        guard let context = created else {
            if let shared { close(shared.fd) }
            if let tls { throw WebSocketError.listenFailed(tls.explain(libraryErrors: libraryErrors)) }
            throw WebSocketError.listenFailed("cannot listen on \(where_): libwebsockets could not create the listener")
        }
        var port = configuration.port
        if let shared {
            guard adoptSharedListener(shared.fd, context: context) else {
                lws_context_destroy(context)
                throw WebSocketError.listenFailed("cannot listen on \(where_): libwebsockets did not take the shared listening socket")
            }
            port = shared.port
        } else if let vhost = lws_get_vhost_by_name(context, configuration.vhostName) {
            let listening = Int(lws_get_vhost_listen_port(vhost))
            if listening > 0 { port = listening }
        }
        if port <= 0 {
            lws_context_destroy(context)
            throw WebSocketError.listenFailed("cannot listen on \(where_): no listening port")
        }
        self.allocations = allocations
        boundPort = port
        started = true
        loop.attach(context: context)
        // The loop holds the server strongly until the context is destroyed, so
        // the context's user pointer never dangles.
        loop.afterPass = { self.delegate?.webSocketServerDidFinishServicePass(self) }
        loop.afterDestroy = { self.didDestroyContext() }
        loop.start(name: configuration.threadName)
        _ = loop.perform { self.startIdleSweep() }
        WebSocketLog.log(.info, "listening on \(ListenSupport.display(host: configuration.host, port: port))\(tls == nil ? "" : " (TLS)")\(shared == nil ? "" : " (shared port)")")
        let eventLoop = runningEventLoop == .libev ? "event loop: libev (epoll)" : "event loop: poll"
        transportSummary = eventLoop + "; " + ListenSupport.fileLimitLine(fileLimit, raisedFrom: raisedFrom)
        WebSocketLog.log(.info, transportSummary)
        return port
    }

    /// The port listened on (0 before `start()`).
    public var port: Int {
        stateLock.lock()
        defer { stateLock.unlock() }
        return boundPort
    }

    /// Runs `work` on the service thread soon, in submission order. Work
    /// submitted before `start()` runs when the thread starts; after shutdown it is dropped.
    /// - Note: any thread.
    public func perform(_ work: @escaping () -> Void) {
        loop.perform(work)
    }

    /// Runs `work` on the service thread and waits at most `timeout` seconds for its result.
    /// Returns nil at once when the server is not running (before `start()`, after
    /// `shutdown`), or when the work did not complete in time. On the service thread itself
    /// it runs `work` inline.
    /// - Note: any thread.
    public func performAndWait<T>(timeout: Double, _ work: @escaping () -> T) -> T? {
        return loop.performAndWait(timeout: timeout, work)
    }

    /// A repeating timer on the service thread.
    /// - Note: service thread only.
    @discardableResult
    public func schedule(every seconds: Double, _ tick: @escaping () -> Void) -> WebSocketTimer {
        loop.assertServiceThread()
        return loop.scheduleTimer(every: seconds, tick)
    }

    /// A one-shot timer on the service thread.
    /// - Note: service thread only.
    @discardableResult
    public func schedule(after seconds: Double, _ fire: @escaping () -> Void) -> WebSocketTimer {
        loop.assertServiceThread()
        return loop.scheduleTimer(after: seconds, fire)
    }

    /// Open WebSocket connections.
    /// - Note: service thread only.
    public var connectionCount: Int {
        loop.assertServiceThread()
        return connections.count
    }

    /// All open WebSocket connections, in no particular order.
    /// - Note: service thread only.
    public var openConnections: [WebSocketConnection] {
        loop.assertServiceThread()
        return Array(connections.values)
    }

    /// True on this server's service thread.
    public var isServiceThread: Bool {
        return loop.isServiceThread
    }

    /// True on this server's service thread, and whenever none runs (before `start`, after
    /// `shutdown`): when state owned by the service thread may be touched.
    public var isServiceThreadOrIdle: Bool {
        return loop.isServiceThreadOrIdle
    }

    /// Sends `closeCode` to every WebSocket, waits at most `grace` seconds for
    /// the peers to answer, then stops the service thread and destroys the
    /// context. Blocks until done (about `grace` at worst); safe to call twice.
    ///
    /// Called on the service thread itself it only starts the shutdown and
    /// returns; the thread ends after the grace period.
    /// - Note: any thread.
    public func shutdown(closeCode: UInt16 = 1001, grace: Double = 0.5) {
        stateLock.lock()
        let wasStarted = started
        stateLock.unlock()
        guard wasStarted else {
            delegate = nil
            return
        }
        let grace = max(0, grace.isFinite ? grace : 0)
        if loop.isServiceThread {
            beginShutdown(closeCode: closeCode, grace: grace)
            return
        }
        loop.perform { [unowned self] in
            self.beginShutdown(closeCode: closeCode, grace: grace)
        }
        if !loop.waitUntilFinished(timeout: grace + 5) {
            WebSocketLog.log(.error, "server service thread did not stop within \(grace + 5) s")
        }
    }

    /// Starts closing every connection and arms the grace deadline.
    /// - Note: service thread only.
    private func beginShutdown(closeCode: UInt16, grace: Double) {
        guard !isShuttingDown else { return }
        isShuttingDown = true
        shutdownCloseCode = closeCode
        for connection in connections.values {
            connection.close(code: closeCode, reason: "server shutting down")
        }
        if connections.isEmpty {
            loop.requestStop()
            return
        }
        _ = loop.scheduleTimer(after: grace) { [unowned self] in
            if !self.connections.isEmpty {
                WebSocketLog.log(.info, "shutdown grace over; dropping \(self.connections.count) connection(s)")
            }
            self.loop.requestStop()
        }
    }

    /// Service thread, after `lws_context_destroy`: forget connections (any libwebsockets did
    /// not report closed) and C memory.
    private func didDestroyContext() {
        for connection in connections.values {
            connection.wsi = nil
            delegate?.webSocketServer(self, didClose: connection)
        }
        connections.removeAll()
        allocations = nil
        delegate = nil
    }
}
