import Foundation

/// One HTTPS (or HTTP) request made by the real `curl` command, for tests of the TLS listener.
public struct CurlResponse {
    /// The HTTP status, 0 when no response arrived.
    public var status: Int
    /// The HTTP version the exchange used ("1.1", "2"), "0" when none.
    public var httpVersion: String
    public var body: String
    /// curl's exit code (0 on success; 35, 60 … for TLS failures, 52 for an empty reply).
    public var exitCode: Int32
    /// What curl wrote to standard error (`-sS`: only the error).
    public var errors: String
}

/// Runs `curl -sS` for `url` with `arguments` (e.g. `-k` to accept a self-signed certificate,
/// `--cacert FILE`), at most `timeout` seconds.
/// - Throws: when curl is not installed.
public func curl(_ url: String, _ arguments: [String] = [], timeout: Double = 10) throws -> CurlResponse {
    let binary = ["/usr/bin/curl", "/usr/local/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) }
    guard let binary else { throw LoopbackError(description: "curl is not installed (scripts/install-deps.sh test)") }
    let marker = "\n--curl-status:"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = ["-sS", "--max-time", String(Int(timeout.rounded(.up))), "-w", marker + "%{http_code} %{http_version}"] + arguments + [url]
    let output = Pipe(), errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let out = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    var body = out
    var status = 0
    var version = "0"
    if let range = out.range(of: marker, options: .backwards) {
        let fields = out[range.upperBound...].split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        status = fields.first.flatMap { Int($0) } ?? 0
        version = fields.count > 1 ? fields[1] : "0"
        body = String(out[..<range.lowerBound])
    }
    return CurlResponse(status: status, httpVersion: version, body: body, exitCode: process.terminationStatus, errors: err)
}
