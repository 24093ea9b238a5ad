import CLibWebsockets
import Foundation

/// One libwebsockets client context with its own service thread, holding any
/// number of client connections (a load tester opens thousands from one).
///
/// All delegate calls and timers run on the service thread. `shutdown()`
/// must be called to stop the thread; until then the thread keeps the
/// context alive.
public final class WebSocketClientContext {
    let loop = ServiceLoop()
    private var allocations: CAllocations?
    /// The largest inbound message delivered; bigger ones are dropped (and logged).
    public let maxMessageSize: Int
    /// The name of the context's one lws protocol (it appears in libwebsockets' log lines).
    public let protocolName: String
    /// Connections from `connect` until they fail or close, for enumeration; callbacks find
    /// their connection through the wsi's user data. - Note: service thread only.
    var live: [ObjectIdentifier: WebSocketClientConnection] = [:]

    private static let idLock = NSLock()
    private static var lastID = 0

    /// Creates the context and starts its service thread.
    /// - Parameters:
    ///   - maxMessageSize: inbound messages above this are dropped.
    ///   - permessageDeflate: offer permessage-deflate to servers.
    ///   - protocolName: the name of the context's lws protocol.
    ///   - threadName: the service thread's name.
    ///   - receiveBufferSize: bytes libwebsockets reads per receive callback, allocated per
    ///     connection; 0 keeps libwebsockets' default (4 KiB). Larger suits few connections
    ///     receiving large messages.
    ///   - trustedCertificatePath: a PEM file of certificates `.verified` TLS connections
    ///     trust besides the system's CAs (a private CA, or a self-signed server certificate).
    /// - Throws: `WebSocketError.contextCreationFailed`.
    public init(maxMessageSize: Int = 64 << 20, permessageDeflate: Bool = false,
                protocolName: String = "ws-client", threadName: String = "ws-client", receiveBufferSize: Int = 0,
                trustedCertificatePath: String? = nil) throws {
        self.maxMessageSize = maxMessageSize
        self.protocolName = protocolName
        let fileLimit = ListenSupport.raiseFileLimit().limit
        WebSocketLog.installInLibrary()
        let allocations = CAllocations()
        let protocols = allocations.array(of: lws_protocols.self, count: 2)
        protocols[0].name = UnsafePointer(allocations.string(protocolName))
        protocols[0].callback = clientCallback
        protocols[0].rx_buffer_size = max(0, receiveBufferSize)
        var info = cc_zeroed_context_info()
        info.port = CONTEXT_PORT_NO_LISTEN
        info.protocols = UnsafePointer(protocols)
        if permessageDeflate {
            info.extensions = UnsafePointer(allocations.permessageDeflateExtensions())
        }
        info.user = Unmanaged.passUnretained(self).toOpaque()
        info.fd_limit_per_thread = UInt32(fileLimit)
        info.timeout_secs = 20
        info.connect_timeout_secs = 20
        // Each handshake in flight holds a header buffer; thousands connect at once.
        info.max_http_header_pool = 1024
        // Any connection may ask for TLS (`connect(…, tls:)`), so OpenSSL is set up for all.
        // `Origin` is sent as given (`begin` adds the scheme), not with lws' `http://` prefix.
        info.options = UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT) | UInt64(LWS_SERVER_OPTION_JUST_USE_RAW_ORIGIN)
        if let trustedCertificatePath {
            do {
                _ = try TLSFiles.read(trustedCertificatePath, what: "trusted certificate")
            } catch WebSocketError.listenFailed(let reason) {
                throw WebSocketError.contextCreationFailed(reason)
            }
            info.client_ssl_ca_filepath = UnsafePointer(allocations.string(trustedCertificatePath))
        }
        let (created, libraryErrors) = LibraryErrorCapture.capturing { lws_create_context(&info) }
        guard let context = created else {
            let detail = libraryErrors.isEmpty ? "" : " (\(libraryErrors.joined(separator: "; ")))"
            throw WebSocketError.contextCreationFailed("lws_create_context returned NULL\(detail)")
        }
        self.allocations = allocations
        loop.attach(context: context)
        // The loop keeps this object alive until the context is destroyed.
        loop.afterDestroy = { self.didDestroyContext() }
        loop.start(name: threadName)
    }

    /// Starts a ws:// (or, with `tls`, wss://) connection; the delegate hears the outcome.
    ///
    /// After `shutdown()` the delegate is told `didFailToConnect` at once, on the calling thread.
    /// - Parameters:
    ///   - headers: extra handshake header fields (`Authorization`, …); fields with names that
    ///     are not tokens or values with CR, LF or NUL are not sent. An `Origin` field replaces the default (the
    ///     server's own origin, `http://` or `https://<host>:<port>`).
    ///   - tls: `.verified` or `.insecure` for wss://; a server refused by the check (or not
    ///     speaking TLS) ends in `didFailToConnect`.
    /// - Note: any thread.
    public func connect(host: String, port: Int, path: String, subprotocol: String?, headers: [HTTPHeaderField] = [],
                        tls: WebSocketClientTLS = .off, delegate: WebSocketClientDelegate) -> WebSocketClientConnection {
        WebSocketClientContext.idLock.lock()
        WebSocketClientContext.lastID += 1
        let id = WebSocketClientContext.lastID
        WebSocketClientContext.idLock.unlock()
        let valid = headers.filter { WebSocketServer.isFieldName($0.name) && WebSocketServer.isFieldValue($0.value) }
        let connection = WebSocketClientConnection(id: id, host: host, port: port, path: path, subprotocol: subprotocol,
                                                   headers: valid, tls: tls, owner: self, delegate: delegate, maxMessageSize: maxMessageSize)
        let accepted = loop.performOrRun { [self] in
            self.begin(connection)
        }
        if !accepted {
            connection.state = .closed
            connection.delegate = nil
            delegate.webSocketClient(connection, didFailToConnect: "client context is shut down")
        }
        return connection
    }

    /// Runs `work` on the service thread soon. - Note: any thread.
    public func perform(_ work: @escaping () -> Void) {
        loop.perform(work)
    }

    /// Runs `work` on the service thread and waits at most `timeout` seconds for its result.
    /// Returns nil at once after `shutdown()`, or when the work did not complete in time. On
    /// the service thread itself it runs `work` inline.
    /// - Note: any thread.
    public func performAndWait<T>(timeout: Double, _ work: @escaping () -> T) -> T? {
        return loop.performAndWait(timeout: timeout, work)
    }

    /// A repeating timer on the service thread. - Note: service thread only.
    @discardableResult
    public func schedule(every seconds: Double, _ tick: @escaping () -> Void) -> WebSocketTimer {
        loop.assertServiceThread()
        return loop.scheduleTimer(every: seconds, tick)
    }

    /// A one-shot timer on the service thread. - Note: service thread only.
    @discardableResult
    public func schedule(after seconds: Double, _ fire: @escaping () -> Void) -> WebSocketTimer {
        loop.assertServiceThread()
        return loop.scheduleTimer(after: seconds, fire)
    }

    /// Connections not yet failed or closed. - Note: service thread only.
    public var connectionCount: Int {
        loop.assertServiceThread()
        return live.count
    }

    /// True on this context's service thread.
    public var isServiceThread: Bool { return loop.isServiceThread }

    /// Stops the service thread and destroys the context, dropping every
    /// connection (delegates hear `didCloseWithCode(nil)` or `didFailToConnect`).
    /// Blocks until done. Safe to call twice.
    /// - Note: any thread except the service thread.
    public func shutdown() {
        if loop.isServiceThread {
            loop.requestStop()
            return
        }
        if !loop.stopAndWait(timeout: 5) {
            WebSocketLog.log(.error, "client service thread did not stop within 5 s")
        }
    }

    /// Issues `lws_client_connect_via_info`. - Note: service thread only.
    private func begin(_ connection: WebSocketClientConnection) {
        guard let context = loop.context else { return }
        let strings = CAllocations()
        connection.allocations = strings
        connection.state = .connecting
        live[ObjectIdentifier(connection)] = connection
        var info = cc_zeroed_connect_info()
        info.context = context
        info.address = UnsafePointer(strings.string(connection.host))
        info.port = Int32(connection.port)
        info.path = UnsafePointer(strings.string(connection.path.isEmpty ? "/" : connection.path))
        info.host = UnsafePointer(strings.string(ListenSupport.display(host: connection.host, port: connection.port)))
        // The origin a page served by that server would have (https:// over TLS, sent raw);
        // a caller naming its own `Origin` among the headers gets exactly that one instead.
        let authority = ListenSupport.display(host: connection.host, port: connection.port)
        let namesOrigin = connection.handshakeHeaders.contains { $0.name.lowercased() == "origin" }
        info.origin = namesOrigin ? nil
            : UnsafePointer(strings.string((connection.tls == .off ? "http://" : "https://") + authority))
        info.protocol = strings.string(connection.subprotocol)
        info.local_protocol_name = UnsafePointer(strings.string(protocolName))
        info.ietf_version_or_minus_one = -1
        info.ssl_connection = connection.tls.connectFlags
        info.userdata = connection.lendToWSI()
        let wsi = lws_client_connect_via_info(&info)
        if wsi == nil {
            // No wsi survived: either libwebsockets destroyed it (and `WSI_DESTROY` took the
            // reference back) or it never called back with it; take the reference back now.
            connection.reclaimFromWSI()
            if connection.state == .connecting {
                finish(connection, failure: "cannot start connection to \(ListenSupport.display(host: connection.host, port: connection.port))")
            }
        }
    }

    /// Ends a connection exactly once: tells the delegate and forgets it.
    /// - Note: service thread only.
    func finish(_ connection: WebSocketClientConnection, failure: String? = nil) {
        guard connection.state != .closed else { return }
        let wasOpen = connection.state == .open
        connection.state = .closed
        connection.wsi = nil
        connection.dropQueue()
        live[ObjectIdentifier(connection)] = nil
        let delegate = connection.delegate
        connection.delegate = nil
        if wasOpen {
            delegate?.webSocketClient(connection, didCloseWithCode: connection.peerCloseCode)
        } else {
            delegate?.webSocketClient(connection, didFailToConnect: failure ?? "connection closed before the handshake")
        }
        connection.allocations = nil
    }

    /// Service thread, after `lws_context_destroy`.
    private func didDestroyContext() {
        for connection in Array(live.values) {
            finish(connection, failure: "client context shut down")
        }
        allocations = nil
    }
}
