import Foundation
import XCTest

/// Another package can depend on ChartCast by path: the shipped example (`Examples/system-monitor`)
/// is copied to a temporary directory, pointed at this checkout, built from scratch, and run once
/// (it serves its dashboard, publishes one reading of /proc through the Swift API and exits).
final class ExamplePackageTests: XCTestCase {
    private let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    private func run(_ executable: String, _ arguments: [String], in directory: URL, timeout: Double) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments
        process.currentDirectoryURL = directory
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let collected = Collected()
        let reader = Thread { collected.set(output.fileHandleForReading.readDataToEndOfFile()) }
        try process.run()
        reader.start()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { process.terminate(); throw TestFailure("\(executable) \(arguments) still running after \(timeout) s") }
        process.waitUntilExit()
        while collected.get() == nil && Date() < deadline.addingTimeInterval(5) { Thread.sleep(forTimeInterval: 0.01) }
        return (process.terminationStatus, String(decoding: collected.get() ?? Data(), as: UTF8.self))
    }

    /// Output read on another thread, so a silent child cannot block the timeout.
    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var data: Data?
        func set(_ value: Data) { lock.lock(); data = value; lock.unlock() }
        func get() -> Data? { lock.lock(); defer { lock.unlock() }; return data }
    }

    func testTheSystemMonitorExampleBuildsAgainstThisCheckoutAndPublishes() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("chartcast-example-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let package = work.appendingPathComponent("system-monitor")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        let example = repository.appendingPathComponent("Examples/system-monitor")
        try FileManager.default.copyItem(at: example.appendingPathComponent("Package.swift"), to: package.appendingPathComponent("Package.swift"))
        try FileManager.default.copyItem(at: example.appendingPathComponent("Sources"), to: package.appendingPathComponent("Sources"))
        let manifest = package.appendingPathComponent("Package.swift")
        let text = try String(contentsOf: manifest, encoding: .utf8)
        XCTAssertTrue(text.contains(#"path: "../..""#), "the example depends on ChartCast by path")
        try text.replacingOccurrences(of: #"path: "../..""#, with: "path: \"\(repository.path)\"")
            .write(to: manifest, atomically: true, encoding: .utf8)

        let build = try run("swift", ["build", "--scratch-path", work.appendingPathComponent("build").path], in: package, timeout: 900)
        XCTAssertEqual(build.0, 0, build.1)
        let binary = work.appendingPathComponent("build/debug/system-monitor").path
        let (status, output) = try run(binary, ["--once", "--port", "0"], in: work, timeout: 60)
        XCTAssertEqual(status, 0, output)
        XCTAssertTrue(output.contains("published one reading to cpu, load, memory, network"), output)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
