#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP port nobody listens on right now: bound once by the system's choice, then
/// released (a socket that never listened leaves no TIME_WAIT behind).
/// - Throws: `LoopbackError` when no socket could be bound.
public func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw LoopbackError(description: "socket() failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw LoopbackError(description: "bind to 127.0.0.1:0 failed") }
    return Int(UInt16(bigEndian: address.sin_port))
}
