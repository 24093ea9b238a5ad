/// Everything a `WebSocketServer` needs to know before `start()`.
///
/// The application names itself here: its subprotocol, vhost and `Server:` header. The
/// WebSocket layer has no name of its own.
public struct WebSocketServerConfiguration {
    /// The address to listen on: an IPv4 or IPv6 literal, `localhost`, or
    /// `0.0.0.0` / `::` for every interface.
    public var host: String = "127.0.0.1"
    /// The TCP port; 0 asks the system for a free one (`start()` returns it).
    public var port: Int = 8080
    /// Directory served for GET and HEAD requests the delegate does not answer; nil serves no files.
    public var webRoot: String? = nil
    /// Extra header fields sent with every static file (`Content-Security-Policy`,
    /// `X-Content-Type-Options`, …). Fields with an invalid name or value are not sent.
    public var staticFileHeaders: [HTTPHeaderField] = []
    /// The file name extensions served from `webRoot` (lower-case, without the dot); any other
    /// file (a `README.md`, a file without an extension) is answered 404. Nil serves every file.
    public var staticFileExtensions: Set<String>? = nil
    /// The only path on which WebSocket upgrades are accepted.
    public var webSocketPath: String = "/ws"
    /// The WebSocket subprotocol the server speaks (also the name of its lws protocol).
    /// A client offering another one is refused; a client offering none is accepted.
    public var subprotocol: String
    /// The libwebsockets vhost name (it appears in libwebsockets' log lines).
    public var vhostName: String = "default"
    /// The `Server:` header of HTTP responses; nil sends none.
    public var serverName: String? = nil
    /// The largest HTTP request body read, in bytes (after chunked coding is removed). A request
    /// declaring a longer `Content-Length` is answered `413` at once without reading its body; a
    /// chunked body is answered `413` as soon as it grows past the limit. Either way the
    /// connection closes after the answer.
    public var maxRequestBodyBytes: Int = 16 << 20
    /// Request headers libwebsockets does not parse itself that requests should carry
    /// (`Idempotency-Key`, `X-Request-Id`, …), any case. libwebsockets 4.1 keeps unknown headers
    /// but cannot list them, so only those named here reach `HTTPRequest.headers`.
    public var customRequestHeaders: [String] = []
    /// The largest inbound message (after reassembly) delivered to the delegate, in bytes.
    public var maxMessageSize: Int = 65_536
    /// Negotiate permessage-deflate (RFC 7692) with clients that offer it.
    public var permessageDeflate: Bool = false
    /// Seconds a connection that was asked to close may take to get its close frame out.
    public var closeTimeout: Int = 5
    /// Frames still written after a close was queued before the close goes out regardless, so
    /// a delegate that always has more cannot hold a close back.
    public var maxFramesAfterClose: Int = 64
    /// Limits and timeouts against clients that hold resources (see `WebSocketServer+Limits.swift`).
    public var limits = WebSocketServerLimits()
    /// PEM certificate (chain) file: with `tlsPrivateKeyPath`, the port speaks only HTTPS and
    /// WSS. `start()` checks both files first and throws, naming the file, when one cannot be
    /// read, is not PEM, is encrypted, or the key does not match the certificate. Nil (both)
    /// serves plain HTTP.
    public var tlsCertificatePath: String? = nil
    /// PEM private key file (unencrypted) of `tlsCertificatePath`.
    public var tlsPrivateKeyPath: String? = nil
    /// Share the port with other processes listening on it with this option too
    /// (`SO_REUSEPORT`): the kernel spreads new connections over them. The server then makes
    /// its listening socket itself and hands each connection to libwebsockets
    /// (`WebSocketServer+SharedPort.swift`); limits, TLS and every check apply as without it.
    public var reusePort: Bool = false
    /// Name of the service thread (visible in debuggers and `top -H`).
    public var threadName: String = "ws-server"
    /// The event loop the service thread runs libwebsockets on (`.libev`: falls back to `.poll`,
    /// with a warning, when libwebsockets cannot load its libev plugin).
    public var eventLoop: WebSocketEventLoop = .libev

    /// A configuration for a server speaking `subprotocol`; everything else has a default.
    public init(subprotocol: String) {
        self.subprotocol = subprotocol
    }
}
