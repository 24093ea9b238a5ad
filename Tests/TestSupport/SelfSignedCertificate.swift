import Foundation

/// A self-signed certificate for `localhost` / `127.0.0.1` and its unencrypted RSA key, made
/// by the real `openssl` command in a temporary directory (valid for one day).
public struct SelfSignedCertificate {
    /// The PEM certificate file.
    public let certificatePath: String
    /// The PEM private key file.
    public let privateKeyPath: String

    /// Runs `openssl req -x509` writing `<name>.crt` and `<name>.key` into `directory`.
    /// - Throws: a description of what went wrong when `openssl` is missing or fails.
    public init(in directory: TemporaryDirectory, name: String = "server") throws {
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        certificatePath = directory.file("\(name).crt")
        privateKeyPath = directory.file("\(name).key")
        try SelfSignedCertificate.openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes",
                                           "-keyout", privateKeyPath, "-out", certificatePath, "-days", "1",
                                           "-subj", "/CN=localhost",
                                           "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"])
    }

    /// Runs `openssl` with `arguments` and returns its standard output.
    /// - Throws: `CertificateError` with openssl's standard error when it exits non-zero.
    @discardableResult
    public static func openssl(_ arguments: [String], input: Data? = nil) throws -> Data {
        let candidates = ["/usr/bin/openssl", "/usr/local/bin/openssl"]
        guard let binary = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw CertificateError(description: "openssl is not installed (scripts/install-deps.sh test)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let output = Pipe(), errors = Pipe(), feed = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = feed
        try process.run()
        if let input { feed.fileHandleForWriting.write(input) }
        try feed.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CertificateError(description: "openssl \(arguments.first ?? "") failed (\(process.terminationStatus)): \(String(decoding: err, as: UTF8.self))")
        }
        return out
    }

    public struct CertificateError: Error, CustomStringConvertible {
        public var description: String
    }
}
