import CLibWebsockets
import Foundation

/// The callback of the listener protocol: the listening socket of a shared port, adopted into
/// the context as a raw descriptor. Its `RAW_RX_FILE` (the socket is readable: connections wait)
/// accepts them.
private let listenerCallback: @convention(c) (OpaquePointer?, lws_callback_reasons, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int) -> Int32 = { wsi, reason, _, _, _ in
    guard let wsi, let context = lws_get_context(wsi), let owner = lws_context_user(context) else { return 0 }
    let server = Unmanaged<WebSocketServer>.fromOpaque(owner).takeUnretainedValue()
    switch reason {
    case LWS_CALLBACK_RAW_RX_FILE:
        server.acceptWaiting()
    case LWS_CALLBACK_RAW_CLOSE_FILE:
        if !server.isShuttingDown { WebSocketLog.log(.warn, "the shared listening socket was closed; no new connections") }
    default:
        break
    }
    return 0
}

/// One port shared by several server processes (`WebSocketServerConfiguration.reusePort`).
///
/// libwebsockets 4.1.6 takes no listening socket of its own making, and its
/// `LWS_SERVER_OPTION_ALLOW_LISTEN_SHARE` does not set `SO_REUSEPORT` on the socket it listens
/// on. So with `reusePort` the server makes the listening socket itself (`SO_REUSEADDR`,
/// `SO_REUSEPORT`, non-blocking, close-on-exec), creates its context with no listener
/// (`CONTEXT_PORT_NO_LISTEN_SERVER`), and adopts the socket as a raw descriptor of a second
/// protocol: the service thread polls it with every other descriptor. When it is readable the
/// server accepts what waits and does what libwebsockets' own listener does with each
/// connection (`ops-listen.c` of 4.1.6): close-on-exec and `TCP_NODELAY`, the network filter
/// (`filterConnection`: the file-descriptor reserve and the per-address cap, with the same
/// `503` at accept), then `lws_adopt_descriptor_vhost` as an HTTP socket — TLS when the vhost
/// has it — which runs the same adoption (header table, its timeout, `NEW_CLIENT_INSTANTIATED`)
/// as an accept by libwebsockets. Everything after adoption is the ordinary path.
///
/// The kernel spreads new connections over every socket listening on the port with
/// `SO_REUSEPORT` (processes of one user), so each process serves its share.
extension WebSocketServer {
    /// Connections accepted in one readiness of the listener at most (the rest on the next pass).
    static let acceptsPerPass = 64
    /// The pending-connection queue of a shared listener.
    static let sharedListenBacklog: Int32 = 1024

    /// The protocol table with the listener protocol after the server's own.
    func makeProtocolsSharingPort(_ allocations: CAllocations) -> UnsafeMutablePointer<lws_protocols> {
        let own = makeProtocols(allocations)
        let protocols = allocations.array(of: lws_protocols.self, count: 3)
        protocols[0] = own[0]
        protocols[1].name = UnsafePointer(allocations.string(WebSocketServer.listenerProtocol))
        protocols[1].callback = listenerCallback
        protocols[1].per_session_data_size = 0
        return protocols
    }

    static let listenerProtocol = "shared-listener"

    /// Makes the listening socket of a shared port and returns it with the port bound (the
    /// ephemeral one for port 0).
    /// - Throws: the `strerror` text of the call that failed (`address already in use` when a
    ///   process without `SO_REUSEPORT`, or of another user, holds the port).
    static func makeSharedListener(address: ListenSupport.ListenAddress, port: Int) throws -> (fd: Int32, port: Int) {
        let fd = socket(address.ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw WebSocketError.listenFailed(String(cString: strerror(errno))) }
        func fail() -> WebSocketError {
            let reason = String(cString: strerror(errno)).lowercased()
            close(fd)
            return WebSocketError.listenFailed(reason)
        }
        var yes: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        guard setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, size) == 0, setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &yes, size) == 0,
              fcntl(fd, F_SETFD, FD_CLOEXEC) == 0, fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0 else { throw fail() }
        var bound: Int32
        if address.ipv6 {
            _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &yes, size)
            var sa = sockaddr_in6()
            sa.sin6_family = sa_family_t(AF_INET6)
            sa.sin6_port = in_port_t(UInt16(port).bigEndian)
            if let interface = address.interface { _ = inet_pton(AF_INET6, interface, &sa.sin6_addr) }
            bound = withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var sa = sockaddr_in()
            sa.sin_family = sa_family_t(AF_INET)
            sa.sin_port = in_port_t(UInt16(port).bigEndian)
            if let interface = address.interface { _ = inet_pton(AF_INET, interface, &sa.sin_addr) }
            bound = withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard bound == 0, listen(fd, sharedListenBacklog) == 0 else { throw fail() }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw fail() }
        let family = Int32(storage.ss_family)
        let boundPort = withUnsafePointer(to: &storage) { pointer -> UInt16 in
            if family == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
        return (fd, Int(boundPort))
    }

    /// Adopts the shared listener into `context`'s vhost as a raw descriptor of the listener
    /// protocol. False when libwebsockets would not take it (it then closed the descriptor).
    func adoptSharedListener(_ fd: Int32, context: OpaquePointer) -> Bool {
        guard let vhost = lws_get_vhost_by_name(context, configuration.vhostName) else {
            close(fd)
            return false
        }
        var descriptor = lws_sock_file_fd_type()
        descriptor.filefd = fd
        let adopted = WebSocketServer.listenerProtocol.withCString {
            lws_adopt_descriptor_vhost(vhost, LWS_ADOPT_RAW_FILE_DESC, descriptor, $0, nil)
        }
        guard adopted != nil else {
            close(fd)
            return false
        }
        sharedListener = fd
        return true
    }

    /// The listener is readable: accepts what waits (at most `acceptsPerPass`), each as
    /// libwebsockets' own listener would (above).
    /// - Note: service thread only.
    func acceptWaiting() {
        guard let listener = sharedListener else { return }
        for _ in 0..<WebSocketServer.acceptsPerPass {
            var filter = lws_filter_network_conn_args()
            filter.clilen = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &filter.cli_addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listener, $0, &filter.clilen) }
            }
            guard fd >= 0 else {
                if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED {
                    WebSocketLog.log(.warn, "accept on the shared port: \(String(cString: strerror(errno)))")
                }
                return
            }
            if isShuttingDown {
                close(fd)
                continue
            }
            var yes: Int32 = 1
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            filter.accept_fd = fd
            let refused = withUnsafeMutablePointer(to: &filter) { filterConnection(UnsafeMutableRawPointer($0)) }
            if refused != 0 {
                close(fd)
                continue
            }
            adoptAccepted(fd)
        }
    }

    /// Hands an accepted connection to libwebsockets as an HTTP socket (TLS when configured);
    /// libwebsockets closes it when it cannot take it.
    private func adoptAccepted(_ fd: Int32) {
        guard let context = loop.context, let vhost = lws_get_vhost_by_name(context, configuration.vhostName) else {
            pendingPeerAddress = nil
            close(fd)
            return
        }
        var type = LWS_ADOPT_SOCKET.rawValue | LWS_ADOPT_HTTP.rawValue
        if configuration.tlsCertificatePath != nil { type |= LWS_ADOPT_ALLOW_SSL.rawValue }
        var descriptor = lws_sock_file_fd_type()
        descriptor.sockfd = fd
        if lws_adopt_descriptor_vhost(vhost, lws_adoption_type(rawValue: type), descriptor, nil, nil) == nil {
            WebSocketLog.log(.info, "libwebsockets did not take a connection accepted on the shared port")
        }
        pendingPeerAddress = nil
    }
}
