import CLibWebsockets

/// Whether a client connection speaks TLS (`wss://`) and how it checks the server.
public enum WebSocketClientTLS: Sendable, Equatable, CustomStringConvertible {
    /// Plain `ws://`.
    case off
    /// `wss://`, refusing a server whose certificate chain is not trusted (the system's CAs, or
    /// the context's `trustedCertificatePath`) or does not name the host connected to.
    case verified
    /// `wss://` accepting any certificate: self-signed, expired or for another name. The
    /// traffic is encrypted but the server is not authenticated; for tests and load runs
    /// against servers with self-signed certificates.
    case insecure

    /// The `LCCSCF_*` bits for `lws_client_connect_info.ssl_connection`.
    var connectFlags: Int32 {
        switch self {
        case .off:
            return 0
        case .verified:
            return Int32(LCCSCF_USE_SSL.rawValue)
        case .insecure:
            return Int32(LCCSCF_USE_SSL.rawValue | LCCSCF_ALLOW_SELFSIGNED.rawValue
                         | LCCSCF_SKIP_SERVER_CERT_HOSTNAME_CHECK.rawValue
                         | LCCSCF_ALLOW_EXPIRED.rawValue | LCCSCF_ALLOW_INSECURE.rawValue)
        }
    }

    /// The URL scheme: `ws` or `wss`.
    public var scheme: String { self == .off ? "ws" : "wss" }

    public var description: String {
        switch self {
        case .off: return "off"
        case .verified: return "verified"
        case .insecure: return "insecure"
        }
    }
}
