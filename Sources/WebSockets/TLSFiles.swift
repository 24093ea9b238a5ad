import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The server's TLS certificate and private key, checked before libwebsockets sees them.
///
/// libwebsockets reports a bad certificate only by failing to create its context; these checks
/// name the file and what is wrong with it instead. They also refuse an encrypted key, for
/// which OpenSSL would otherwise prompt for a passphrase on the terminal. Whether the key
/// matches the certificate (and whether the base64 inside the PEM blocks is sound) only OpenSSL
/// can tell: `explain(libraryErrors:)` turns what it logged into a sentence.
struct TLSFiles {
    let certificatePath: String
    let privateKeyPath: String

    /// Larger files are not certificates or keys.
    static let maxFileBytes = 1 << 20

    /// The pair from a configuration: nil when neither is set.
    /// - Throws: `WebSocketError.listenFailed` when only one is set, or a file is unusable.
    static func check(certificate: String?, privateKey: String?) throws -> TLSFiles? {
        switch (certificate, privateKey) {
        case (nil, nil):
            return nil
        case (let certificate?, nil):
            throw WebSocketError.listenFailed("TLS certificate \(certificate) was given without a private key")
        case (nil, let key?):
            throw WebSocketError.listenFailed("TLS private key \(key) was given without a certificate")
        case (let certificate?, let key?):
            let files = TLSFiles(certificatePath: certificate, privateKeyPath: key)
            try files.checkCertificate()
            try files.checkPrivateKey()
            return files
        }
    }

    /// The certificate file holds at least one PEM certificate.
    private func checkCertificate() throws {
        let text = try TLSFiles.read(certificatePath, what: "TLS certificate")
        if text.contains("-----BEGIN CERTIFICATE-----") && text.contains("-----END CERTIFICATE-----") { return }
        if TLSFiles.privateKeyBlock(in: text) != nil {
            throw WebSocketError.listenFailed("TLS certificate \(certificatePath) holds a private key, not a certificate (are the certificate and key swapped?)")
        }
        throw WebSocketError.listenFailed("TLS certificate \(certificatePath) is not a PEM certificate (no BEGIN CERTIFICATE block)")
    }

    /// The key file holds an unencrypted PEM private key.
    private func checkPrivateKey() throws {
        let text = try TLSFiles.read(privateKeyPath, what: "TLS private key")
        if text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") || text.contains("Proc-Type: 4,ENCRYPTED") {
            throw WebSocketError.listenFailed("TLS private key \(privateKeyPath) is encrypted; give an unencrypted key (openssl pkey -in KEY -out PLAIN)")
        }
        if TLSFiles.privateKeyBlock(in: text) != nil { return }
        if text.contains("-----BEGIN CERTIFICATE-----") {
            throw WebSocketError.listenFailed("TLS private key \(privateKeyPath) holds a certificate, not a private key (are the certificate and key swapped?)")
        }
        throw WebSocketError.listenFailed("TLS private key \(privateKeyPath) is not a PEM private key (no BEGIN PRIVATE KEY block)")
    }

    /// The label of the first `-----BEGIN … PRIVATE KEY-----` line, nil when there is none.
    static func privateKeyBlock(in text: String) -> Substring? {
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            if line.hasPrefix("-----BEGIN ") && line.hasSuffix("PRIVATE KEY-----") { return line }
        }
        return nil
    }

    /// The whole file as text.
    /// - Throws: `WebSocketError.listenFailed` naming the file and the `strerror` cause, or
    ///   saying it is not a regular file, empty, too large, or not text.
    static func read(_ path: String, what: String) throws -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw WebSocketError.listenFailed("\(what) \(path) cannot be read: \(String(cString: strerror(errno)).lowercased())")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw WebSocketError.listenFailed("\(what) \(path) cannot be read: \(String(cString: strerror(errno)).lowercased())")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw WebSocketError.listenFailed("\(what) \(path) is not a regular file")
        }
        guard info.st_size > 0 else { throw WebSocketError.listenFailed("\(what) \(path) is empty") }
        guard info.st_size <= maxFileBytes else {
            throw WebSocketError.listenFailed("\(what) \(path) is larger than \(maxFileBytes) bytes; it is not a PEM file")
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw WebSocketError.listenFailed("\(what) \(path) cannot be read: \(String(cString: strerror(errno)).lowercased())")
            }
            if count == 0 { break }
            filled += count
        }
        guard let text = String(validating: bytes[..<filled], as: UTF8.self) else {
            throw WebSocketError.listenFailed("\(what) \(path) is not a PEM file (it is binary; DER files must be converted with openssl x509 -inform der)")
        }
        return text
    }

    /// Why libwebsockets refused these files, from the error lines it logged while creating
    /// the context.
    func explain(libraryErrors lines: [String]) -> String {
        if lines.contains(where: { $0.contains("doesn't match") || $0.contains("does not match") || $0.contains("key values mismatch") }) {
            return "TLS private key \(privateKeyPath) does not match the certificate \(certificatePath)"
        }
        if let line = lines.first(where: { $0.contains("getting cert") }) {
            return "TLS certificate \(certificatePath) is invalid (libwebsockets: \(line))"
        }
        if let line = lines.first(where: { $0.contains("getting key") }) {
            return "TLS private key \(privateKeyPath) is invalid (libwebsockets: \(line))"
        }
        let detail = lines.isEmpty ? "" : " (libwebsockets: \(lines.joined(separator: "; ")))"
        return "cannot serve TLS with certificate \(certificatePath) and key \(privateKeyPath)\(detail)"
    }
}
