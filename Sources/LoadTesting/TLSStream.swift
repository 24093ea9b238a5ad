import COpenSSL
import WebSockets
#if canImport(Glibc)
import Glibc
#endif

/// A TLS client session over a connected socket, for `HTTPClient` (publishers writing to an
/// `https://` server; the viewers' WebSockets get TLS from libwebsockets instead).
///
/// `.verified` checks the chain against the system's CAs and the certificate against the host
/// (a name, or an IP literal); `.insecure` accepts any certificate.
/// - Note: one thread at a time, like its client.
final class TLSStream {
    private let ssl: OpaquePointer

    /// One OpenSSL context per verification mode, shared by every publisher.
    private static let verifyingContext = makeContext(verify: true)
    private static let insecureContext = makeContext(verify: false)

    /// Shakes hands over `fd` (connected, blocking) with `host`.
    /// - Throws: `HTTPClient.Failure` with OpenSSL's reason (e.g. "self-signed certificate").
    init(fd: Int32, host: String, mode: WebSocketClientTLS) throws {
        guard let context = mode == .insecure ? TLSStream.insecureContext : TLSStream.verifyingContext,
              let ssl = SSL_new(context) else {
            throw HTTPClient.Failure(description: "TLS: cannot create a session (\(TLSStream.lastError()))")
        }
        self.ssl = ssl
        var address = in6_addr()
        let isIP = inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1
        if !isIP { _ = cc_ssl_set_server_name(ssl, host) }
        if mode == .verified {
            if isIP {
                _ = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host)
            } else {
                _ = SSL_set1_host(ssl, host)
            }
        }
        guard SSL_set_fd(ssl, fd) == 1 else {
            throw HTTPClient.Failure(description: "TLS: cannot attach the socket (\(TLSStream.lastError()))")
        }
        if SSL_connect(ssl) != 1 {
            let verify = SSL_get_verify_result(ssl)
            let reason = verify != X509_V_OK ? String(cString: X509_verify_cert_error_string(verify)) : TLSStream.lastError()
            throw HTTPClient.Failure(description: "TLS handshake with \(host) failed: \(reason)")
        }
    }

    deinit {
        SSL_free(ssl)
    }

    /// Writes all of `bytes`. - Throws: when the connection fails.
    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { SSL_write(ssl, $0.baseAddress! + offset, Int32($0.count - offset)) }
            guard n > 0 else { throw HTTPClient.Failure(description: "TLS send failed (\(TLSStream.lastError()))") }
            offset += Int(n)
        }
    }

    /// Reads at most `buffer.count` bytes; 0 when the server closed the connection.
    func read(into buffer: inout [UInt8]) -> Int {
        let n = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
        return max(0, Int(n))
    }

    /// The oldest queued OpenSSL error as text (and clears the queue).
    private static func lastError() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "connection closed" }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        return String(cString: text)
    }

    private static func makeContext(verify: Bool) -> OpaquePointer? {
        // OpenSSL writes with write(2): a server that closes first would raise SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        guard let context = SSL_CTX_new(TLS_client_method()) else { return nil }
        _ = cc_ssl_ctx_require_tls12(context)
        if verify {
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            _ = SSL_CTX_set_default_verify_paths(context)
        } else {
            SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        }
        return context
    }
}
