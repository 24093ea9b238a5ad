import WebSockets

/// What the server core needs of a viewer's connection: identity, a wake-up, and a close.
///
/// `WebSocketConnection` is the real one; tests drive the fan-out logic with their own.
/// - Note: service thread only.
protocol ViewerConnection: AnyObject {
    var id: Int { get }
    var remoteAddress: String { get }
    /// The core keeps the viewer's `Session` here while the connection is open, so the hot
    /// write path finds it without a dictionary lookup.
    var userData: AnyObject? { get set }
    /// Ask to be offered a write soon; the core then picks the frame.
    func requestWrite()
    /// The same, written at once where the transport can (`WebSocketConnection.writeNow`).
    func writeNow()
    /// Close after the frames already handed out, with a WebSocket close code.
    func close(code: UInt16, reason: String)
    /// The `Authorization` header of the handshake, if it had one (a publisher's token).
    /// `WebSocketConnection` keeps it from the handshake.
    var authorization: String? { get }
    /// Whether the connection holds the unsent rest of its last frame (the peer is not reading
    /// fast enough). `WebSocketConnection` asks libwebsockets; test connections have none.
    var hasPartialWrite: Bool { get }
    /// Bytes the kernel holds unsent (unacknowledged) for the peer. `WebSocketConnection` asks
    /// the kernel; test connections have none.
    var kernelUnsentBytes: Int { get }
}

extension ViewerConnection {
    func writeNow() { requestWrite() }
    var hasPartialWrite: Bool { false }
    var kernelUnsentBytes: Int { 0 }

    /// The peer's IP address: `remoteAddress` without its port (`127.0.0.1:53422` → `127.0.0.1`,
    /// `[::1]:53422` → `::1`).
    var peerIP: String {
        let address = remoteAddress
        if address.hasPrefix("["), let close = address.firstIndex(of: "]") {
            return String(address[address.index(after: address.startIndex)..<close])
        }
        guard let colon = address.lastIndex(of: ":") else { return address }
        return String(address[..<colon])
    }
}

extension WebSocketConnection: ViewerConnection {}
