import Foundation
import TestSupport
import XCTest

/// The real `chartcast` with a file limit of 64: near it, new connections get 503 at once, the
/// refusals are logged at most once a second, the CPU stays idle, and service comes back when
/// connections close.
final class FileLimitIntegrationTests: XCTestCase {
    /// CPU ticks (user + system) the process has used, from /proc/PID/stat.
    private func cpuTicks(_ pid: Int32) throws -> Int {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        guard let close = stat.lastIndex(of: ")") else { throw TestFailure("unreadable /proc/\(pid)/stat") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else {
            throw TestFailure("unreadable /proc/\(pid)/stat")
        }
        return user + system
    }

    /// The real `chartcast` under `prlimit --nofile=<nofile>` (soft:hard), its log and its port.
    private func launchUnderFileLimit(_ nofile: String) throws -> (Process, LogCollector, Int) {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit") else { throw XCTSkip("no prlimit") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        process.arguments = ["--nofile=\(nofile)", LaunchedServer.binary.path, "--port", "0", "--data", "none"]
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let log = LogCollector(stderr.fileHandleForReading)
        guard let port = log.waitForPort() else {
            stop(process)
            throw TestFailure("no port reported: \(log.text)")
        }
        return (process, log, port)
    }

    private func stop(_ process: Process) {
        if process.isRunning { process.terminate(); process.waitUntilExit() }
    }

    func testTheServerRaisesItsSoftFileLimitToTheHardLimitAndSaysSo() throws {
        let (process, log, _) = try launchUnderFileLimit("256:4096")
        defer { stop(process) }
        XCTAssertTrue(eventually { log.lines(containing: "file descriptors: soft limit raised from 256 to 4096 (the hard limit)") == 1 },
                      log.text)
        let limits = try String(contentsOfFile: "/proc/\(process.processIdentifier)/limits", encoding: .utf8)
        let openFiles = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") }
        XCTAssertEqual(openFiles?.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).prefix(2).map(String.init),
                       ["4096", "4096"], "soft and hard limits of the running server")
        XCTAssertEqual(log.lines(containing: "event loop: libev (epoll)"), 1, "the same line names the event loop")
    }

    func testNearTheFileLimitConnectionsAre503AndTheServerRecovers() throws {
        let (process, log, port) = try launchUnderFileLimit("64:64")
        defer { stop(process) }

        // Open connections (each sends a whole request and is answered) until one is refused.
        var open: [RawHTTPConnection] = []
        var refusal: RawHTTPResponse?
        for _ in 0..<64 where refusal == nil {
            let connection = try RawHTTPConnection(port: port, timeout: 3)
            connection.send(method: "GET", path: "/healthz")
            let answer = try connection.readResponse()
            if answer.status == 200 { open.append(connection) } else { refusal = answer }
        }
        XCTAssertEqual(refusal?.status, 503, "a connection near the limit is refused with 503")
        XCTAssertTrue(refusal?.bodyText.contains("file-descriptor") ?? false)
        XCTAssertGreaterThan(open.count, 5, "connections are served up to the reserve")
        print("served \(open.count) connections before refusing at a file limit of 64")

        // Two seconds of a client hammering the full server: every attempt is answered 503 at
        // once, and the log gets at most one line a second.
        let ticksBefore = try cpuTicks(process.processIdentifier)
        let start = Date()
        var refusedAttempts = 0
        while Date().timeIntervalSince(start) < 2 {
            if let answer = try? rawHTTP(port: port, path: "/healthz", timeout: 2), answer.status == 503 { refusedAttempts += 1 }
        }
        let elapsed = Date().timeIntervalSince(start)
        let ticks = try cpuTicks(process.processIdentifier) - ticksBefore
        let lines = log.lines(containing: "near the file-descriptor limit")
        print("\(refusedAttempts) refusals in \(String(format: "%.1f", elapsed)) s: \(lines) log lines, \(ticks) CPU ticks")
        XCTAssertGreaterThan(refusedAttempts, 20)
        XCTAssertLessThanOrEqual(lines, Int(elapsed) + 2, "at most about one line a second")

        // At the limit with a client waiting in the listen queue (where a failing accept would
        // be retried in a loop): the waiting client is answered and the server sits idle.
        let waiting = try RawHTTPConnection(port: port, timeout: 3)
        let idleBefore = try cpuTicks(process.processIdentifier)
        Thread.sleep(forTimeInterval: 2)
        let idleSeconds = Double(try cpuTicks(process.processIdentifier) - idleBefore) / Double(sysconf(Int32(_SC_CLK_TCK)))
        print("CPU at the limit with a client waiting: \(String(format: "%.2f", idleSeconds)) s in 2 s")
        XCTAssertLessThan(idleSeconds, 0.5, "the server does not spin")
        XCTAssertEqual(try waiting.readResponse().status, 503)

        // Connections close: service comes back.
        open.removeAll()
        XCTAssertTrue(eventually(timeout: 5) { (try? rawHTTP(port: port, path: "/healthz", timeout: 2))?.status == 200 })
    }
}

/// Collects a process's stderr in the background.
private final class LogCollector {
    private let lock = NSLock()
    private var collected = ""
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                lock.lock(); collected += String(decoding: data, as: UTF8.self); lock.unlock()
            }
            done.signal()
        }
    }

    var text: String { lock.lock(); defer { lock.unlock() }; return collected }

    func lines(containing needle: String) -> Int {
        text.split(separator: "\n").filter { $0.contains(needle) }.count
    }

    /// The port of the "listening on http://127.0.0.1:PORT/" line, waiting up to 10 s.
    func waitForPort() -> Int? {
        let deadline = Date(timeIntervalSinceNow: 10)
        while Date() < deadline {
            if let range = text.range(of: #"listening on http://127\.0\.0\.1:(\d+)/"#, options: .regularExpression),
               let port = Int(text[range].split(separator: ":").last?.dropLast() ?? "") {
                return port
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return nil
    }
}
