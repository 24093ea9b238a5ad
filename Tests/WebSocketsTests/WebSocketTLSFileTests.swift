import Foundation
import TestSupport
import XCTest
@testable import WebSockets

/// A TLS certificate or key that cannot be used stops `start()` with a message naming the file
/// and what is wrong, whether the files' own checks or OpenSSL (through libwebsockets) find it.
final class WebSocketTLSFileTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var certificate: SelfSignedCertificate!

    override func setUpWithError() throws {
        directory = TemporaryDirectory("tls-files")
        certificate = try SelfSignedCertificate(in: directory)
    }

    override func tearDown() {
        directory.remove()
    }

    /// The message `start()` fails with for this certificate and key.
    private func startFailure(certificate: String?, key: String?, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            let (server, _, _) = try startServer {
                $0.tlsCertificatePath = certificate
                $0.tlsPrivateKeyPath = key
            }
            server.shutdown()
            XCTFail("the server started", file: file, line: line)
            return ""
        } catch WebSocketError.listenFailed(let message) {
            return message
        } catch {
            XCTFail("unexpected error \(error)", file: file, line: line)
            return ""
        }
    }

    private func write(_ name: String, _ text: String) throws -> String {
        let path = directory.file(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testMissingFilesAreNamed() throws {
        let missing = directory.file("nope.crt")
        let message = startFailure(certificate: missing, key: certificate.privateKeyPath)
        XCTAssertEqual(message, "TLS certificate \(missing) cannot be read: no such file or directory")
        let missingKey = directory.file("nope.key")
        XCTAssertEqual(startFailure(certificate: certificate.certificatePath, key: missingKey),
                       "TLS private key \(missingKey) cannot be read: no such file or directory")
        XCTAssertEqual(startFailure(certificate: directory.path, key: certificate.privateKeyPath),
                       "TLS certificate \(directory.path) is not a regular file")
    }

    func testOnlyOneOfTheTwoIsRefused() {
        XCTAssertEqual(startFailure(certificate: certificate.certificatePath, key: nil),
                       "TLS certificate \(certificate.certificatePath) was given without a private key")
        XCTAssertEqual(startFailure(certificate: nil, key: certificate.privateKeyPath),
                       "TLS private key \(certificate.privateKeyPath) was given without a certificate")
    }

    func testFilesThatAreNotPEMAreNamed() throws {
        let empty = try write("empty.pem", "")
        XCTAssertEqual(startFailure(certificate: empty, key: certificate.privateKeyPath), "TLS certificate \(empty) is empty")
        let text = try write("notes.txt", "hello\n")
        XCTAssertEqual(startFailure(certificate: text, key: certificate.privateKeyPath),
                       "TLS certificate \(text) is not a PEM certificate (no BEGIN CERTIFICATE block)")
        XCTAssertEqual(startFailure(certificate: certificate.certificatePath, key: text),
                       "TLS private key \(text) is not a PEM private key (no BEGIN PRIVATE KEY block)")
        XCTAssertEqual(startFailure(certificate: certificate.privateKeyPath, key: certificate.certificatePath),
                       "TLS certificate \(certificate.privateKeyPath) holds a private key, not a certificate (are the certificate and key swapped?)")
    }

    func testEncryptedKeyIsRefusedBeforeOpenSSLCouldPrompt() throws {
        let encrypted = directory.file("encrypted.key")
        try SelfSignedCertificate.openssl(["pkey", "-in", certificate.privateKeyPath, "-aes256", "-passout", "pass:secret", "-out", encrypted])
        XCTAssertEqual(startFailure(certificate: certificate.certificatePath, key: encrypted),
                       "TLS private key \(encrypted) is encrypted; give an unencrypted key (openssl pkey -in KEY -out PLAIN)")
    }

    func testKeyOfAnotherCertificateIsRefused() throws {
        let other = try SelfSignedCertificate(in: directory, name: "other")
        XCTAssertEqual(startFailure(certificate: certificate.certificatePath, key: other.privateKeyPath),
                       "TLS private key \(other.privateKeyPath) does not match the certificate \(certificate.certificatePath)")
        // The refused attempt left nothing behind: the right pair still starts.
        let (server, _, port) = try startServer {
            $0.tlsCertificatePath = self.certificate.certificatePath
            $0.tlsPrivateKeyPath = self.certificate.privateKeyPath
        }
        defer { server.shutdown() }
        XCTAssertEqual(try curl("https://127.0.0.1:\(port)/healthz", ["-k"]).body, "ok")
    }

    func testCorruptPEMIsReportedByOpenSSL() throws {
        let original = try String(contentsOfFile: certificate.certificatePath, encoding: .utf8)
        var lines = original.split(separator: "\n").map(String.init)
        lines[3] = String(repeating: "!", count: lines[3].count)
        let corrupt = try write("corrupt.crt", lines.joined(separator: "\n") + "\n")
        let message = startFailure(certificate: corrupt, key: certificate.privateKeyPath)
        XCTAssertTrue(message.hasPrefix("TLS certificate \(corrupt) is invalid (libwebsockets: "), message)

        let key = try String(contentsOfFile: certificate.privateKeyPath, encoding: .utf8)
        var keyLines = key.split(separator: "\n").map(String.init)
        keyLines[5] = String(repeating: "!", count: keyLines[5].count)
        let corruptKey = try write("corrupt.key", keyLines.joined(separator: "\n") + "\n")
        let keyMessage = startFailure(certificate: certificate.certificatePath, key: corruptKey)
        XCTAssertTrue(keyMessage.hasPrefix("TLS private key \(corruptKey) is invalid (libwebsockets: "), keyMessage)
    }
}
