import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real `redis-server` (Debian's, `scripts/install-deps.sh test`) for one test: loopback, an
/// ephemeral port, no persistence (`--save ""`, `--appendonly no`), its working directory and
/// log in a temporary directory. `stop()` (in `tearDown`) ends it and removes the directory;
/// `kill()` and `restart()` let a test take Redis away and bring it back on the same port.
public final class RedisServer {
    public static let binary = "/usr/bin/redis-server"

    public private(set) var port: Int
    private let directory = TemporaryDirectory("redis")
    private var process: Process?

    /// `redis://127.0.0.1:PORT`.
    public var url: String { "redis://127.0.0.1:\(port)" }
    /// The server's log (warnings only).
    public var log: String { directory.file("redis.log") }

    /// Starts a server on a free port and waits until it answers `PING`.
    /// - Throws: `LoopbackError` when redis-server is missing or does not come up.
    public init() throws {
        guard FileManager.default.isExecutableFile(atPath: RedisServer.binary) else {
            throw LoopbackError(description: "redis-server is not installed (scripts/install-deps.sh test)")
        }
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        port = 0
        var lastError: Error?
        for _ in 0..<5 {
            do {
                port = try freePort()
                try launch()
                return
            } catch {
                lastError = error   // the port was taken meanwhile: try another
            }
        }
        throw lastError ?? LoopbackError(description: "redis-server did not start")
    }

    deinit { stop() }

    /// Starts redis-server on `port` and waits for `PING` (at most 5 s).
    private func launch() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: RedisServer.binary)
        process.arguments = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", directory.path, "--daemonize", "no", "--loglevel", "warning",
                             "--logfile", log]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            if ping() { return }
            if !process.isRunning { break }
            usleep(10_000)
        }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        self.process = nil
        throw LoopbackError(description: "redis-server on port \(port) did not answer: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }

    /// Whether the server answers `PING` with `+PONG` right now.
    public func ping() -> Bool {
        guard let fd = try? loopbackSocket(port: port, timeout: 1) else { return false }
        defer { close(fd) }
        let request = Array("PING\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else { return false }
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return count >= 5 && Array(buffer[0..<5]) == Array("+PONG".utf8)
    }

    /// Whether the server process is running.
    public var isRunning: Bool { process?.isRunning ?? false }

    /// Ends the server at once (SIGKILL): connections break as when Redis crashes.
    public func kill() {
        guard let process else { return }
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        self.process = nil
    }

    /// Starts the server again on the same port, empty (nothing was persisted).
    public func restart() throws {
        kill()
        var lastError: Error?
        for _ in 0..<20 {   // the old socket may linger for a moment
            do {
                try launch()
                return
            } catch {
                lastError = error
                usleep(100_000)
            }
        }
        throw lastError ?? LoopbackError(description: "redis-server did not restart")
    }

    /// Stops the server (SIGTERM, then wait) and removes its directory. Idempotent.
    public func stop() {
        if let process {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            self.process = nil
        }
        directory.remove()
    }
}
