/// Errors thrown by the server, the client context and the blocking client.
public enum WebSocketError: Error, CustomStringConvertible, Equatable {
    /// The server could not bind or listen, or its TLS certificate or key cannot be used; the
    /// message names the address or the file, and the cause.
    case listenFailed(String)
    /// A client connection could not be established.
    case connectFailed(String)
    /// Nothing arrived in time.
    case timeout
    /// The connection is closed; `code` is the peer's close code when it sent one.
    case closed(code: UInt16?)
    /// `lws_create_context` refused to create a context.
    case contextCreationFailed(String)

    public var description: String {
        switch self {
        case .listenFailed(let message): return message
        case .connectFailed(let message): return "connect failed: \(message)"
        case .timeout: return "timed out"
        case .closed(let code):
            if let code = code { return "connection closed (code \(code))" }
            return "connection closed"
        case .contextCreationFailed(let message): return "cannot create libwebsockets context: \(message)"
        }
    }
}
