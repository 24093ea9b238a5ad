/// What a `WebSocketServer` grants one client, and for how long, before it refuses or hangs up.
///
/// Every bound protects the others: a client that never finishes its request, never answers
/// pings, or opens connection after connection cannot take the server from honest viewers.
public struct WebSocketServerLimits: Equatable, Sendable {
    /// Open WebSockets at most; a handshake beyond is answered `503` before the upgrade.
    /// Nil: no limit.
    public var maxWebSockets: Int? = nil
    /// Open connections (HTTP and WebSocket) from one IP address at most; a connection beyond
    /// is closed as soon as it is accepted. Nil: no limit.
    public var maxConnectionsPerAddress: Int? = nil
    /// Seconds a client may take to send its request head (line and headers); then it is closed.
    public var headerTimeout: Int = 10
    /// Seconds of silence after which a WebSocket is pinged; 0 never pings.
    public var pingInterval: Int = 30
    /// Seconds of silence (no message, no pong) after which a WebSocket is closed; 0 never.
    /// Must exceed `pingInterval` when both are set.
    public var idleTimeout: Int = 75
    /// File descriptors kept free: a connection accepted while fewer than this many remain
    /// below the process limit is answered `503` and closed at once.
    public var reservedFileDescriptors: Int = 32
    /// The longest request target (path and query) served, in bytes; longer ones get `414`.
    public var maxURIBytes: Int = 8192
    /// The most bytes of header values served; more get `431`. Counted over the headers
    /// libwebsockets 4.1 knows by name (Cookie, User-Agent, Authorization, …) and the configured
    /// `customRequestHeaders`: it cannot list other headers, which only the buffer bounds.
    public var maxHeaderBytes: Int = 16 * 1024
    /// The room libwebsockets gives one request head, in bytes (allocated per connection while
    /// its head is read). A head that does not fit (a header flood, one enormous header) is
    /// closed without an answer: libwebsockets 4.1 gives no chance to answer it.
    public var headerBufferBytes: Int = 32 * 1024

    /// Whether WebSockets are pinged or hung up on at all (the idle sweep runs only then).
    var watchesIdleness: Bool { idleTimeout > 0 || pingInterval > 0 }

    /// The defaults: no connection caps, 10 s for a request head, ping after 30 s, close after 75 s.
    public init() {}
}
