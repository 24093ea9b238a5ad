import CLibWebsockets
import Foundation

/// Process-level helpers used before a context is created: the file limit,
/// the listen address, and a bind probe that explains listen failures.
enum ListenSupport {
    /// Raises the soft `RLIMIT_NOFILE` to the hard limit and returns the new soft limit, and the
    /// soft limit before when it was raised.
    ///
    /// Thousands of sockets need thousands of descriptors; the default soft
    /// limit (often 1024) is far below what the hard limit allows.
    static func raiseFileLimit() -> (limit: Int, raisedFrom: Int?) {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (1024, nil) }
        var raisedFrom: Int?
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 {
                raisedFrom = Int(min(limit.rlim_cur, 1 << 20))
                limit = raised
            }
        }
        // RLIM_INFINITY would make libwebsockets allocate a table per possible fd.
        return (Int(min(limit.rlim_cur, 1 << 20)), raisedFrom)
    }

    /// The log line saying how many descriptors the server has (and that it raised the limit).
    static func fileLimitLine(_ limit: Int, raisedFrom: Int?) -> String {
        guard let raisedFrom else { return "file descriptors: limit \(limit) (the hard limit)" }
        return "file descriptors: soft limit raised from \(raisedFrom) to \(limit) (the hard limit)"
    }

    /// How libwebsockets should be asked to listen for a configured host.
    struct ListenAddress {
        /// The `iface` for the vhost (an IP literal), nil for every interface.
        var interface: String?
        /// Whether the listening socket is IPv6.
        var ipv6: Bool
    }

    /// Maps a configured host to an interface argument; nil for an invalid host.
    static func listenAddress(for host: String) -> ListenAddress? {
        switch host {
        case "", "*", "0.0.0.0": return ListenAddress(interface: nil, ipv6: false)
        case "::", "[::]": return ListenAddress(interface: nil, ipv6: true)
        case "localhost": return ListenAddress(interface: "127.0.0.1", ipv6: false)
        default: break
        }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            return ListenAddress(interface: host, ipv6: false)
        }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var v6 = in6_addr()
        if inet_pton(AF_INET6, bare, &v6) == 1 {
            return ListenAddress(interface: bare, ipv6: true)
        }
        return nil
    }

    /// Binds and listens on a throwaway socket to learn whether libwebsockets will
    /// be able to; returns the `strerror` text of the failure, or nil when it works.
    ///
    /// The socket is closed at once. It never accepted a connection, so it leaves
    /// no TIME_WAIT behind.
    static func probe(address: ListenAddress, port: Int) -> String? {
        guard port >= 0, port <= 65535 else { return "port out of range" }
        let family = address.ipv6 ? AF_INET6 : AF_INET
        let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        defer { close(fd) }
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var result: Int32 = 0
        if address.ipv6 {
            var sa = sockaddr_in6()
            sa.sin6_family = sa_family_t(AF_INET6)
            sa.sin6_port = in_port_t(UInt16(port).bigEndian)
            if let interface = address.interface {
                _ = inet_pton(AF_INET6, interface, &sa.sin6_addr)
            }
            result = withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var sa = sockaddr_in()
            sa.sin_family = sa_family_t(AF_INET)
            sa.sin_port = in_port_t(UInt16(port).bigEndian)
            if let interface = address.interface {
                _ = inet_pton(AF_INET, interface, &sa.sin_addr)
            }
            result = withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        if result != 0 || listen(fd, 1) != 0 {
            return String(cString: strerror(errno)).lowercased()
        }
        return nil
    }

    /// "host:port" with brackets around IPv6 literals.
    static func display(host: String, port: Int) -> String {
        if host.contains(":") && !host.hasPrefix("[") { return "[\(host)]:\(port)" }
        return "\(host):\(port)"
    }

    /// The peer of a connected socket as "ip:port" ("[ip]:port" for IPv6), "unknown" when the
    /// socket cannot tell.
    static func peerAddress(fd: Int32) -> String {
        guard let peer = peer(fd: fd) else { return "unknown" }
        return peer.ip.contains(":") ? "[\(peer.ip)]:\(peer.port)" : "\(peer.ip):\(peer.port)"
    }

    /// The peer's IP address without the port, "unknown" when the socket cannot tell.
    static func peerIP(fd: Int32) -> String {
        return peer(fd: fd)?.ip ?? "unknown"
    }

    /// The peer's IP address (IPv4-mapped IPv6 addresses as plain IPv4) and port.
    static func peer(fd: Int32) -> (ip: String, port: UInt16)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        guard ok == 0 else { return nil }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                    var addr = sin.pointee.sin_addr
                    inet_ntop(AF_INET, &addr, &text, socklen_t(text.count))
                    return (String(cString: text), UInt16(bigEndian: sin.pointee.sin_port))
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
                    var addr = sin6.pointee.sin6_addr
                    inet_ntop(AF_INET6, &addr, &text, socklen_t(text.count))
                    var ip = String(cString: text)
                    if ip.hasPrefix("::ffff:") && ip.contains(".") { ip = String(ip.dropFirst(7)) }
                    return (ip, UInt16(bigEndian: sin6.pointee.sin6_port))
                }
            }
        default:
            return nil
        }
    }
}
