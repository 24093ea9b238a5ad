import Foundation
import XCTest

/// Misuse the types catch does not compile. Each case is a one-line declaration in a small file
/// type-checked by `swiftc` against the built `ChartCast` module; a control file of correct
/// declarations must type-check cleanly, so the failures are the misuse and not the setup.
/// Skipped when no `swiftc` is on `PATH` or the module cannot be found next to the test bundle.
final class DSLTypeCheckTests: XCTestCase {
    private static let prelude = """
        import ChartCast
        import Foundation
        enum Weekday: String, ChartCategory { case mon = "Mon", tue = "Tue", sat = "Sat", sun = "Sun" }

        """

    /// Each line a misuse, with a fragment of the diagnostic where it is ours or stable.
    private static let misuses: [(String, String)] = [
        // Categories on a time axis.
        (#"_ = Chart("a") { LineMark(x: .value("Time", Date.self), y: .value("v", Double.self)) }.chartXScale(domain: ["Mon"])"#, ""),
        // A time value on a category axis.
        (#"let _: Chart<String> = Chart("b") { BarMark(x: .value("Time", Date.self), y: .value("v", Double.self)) }"#, ""),
        (#"_ = Chart("c") { BarMark(x: .value("Day", Weekday.self), y: .value("v", Double.self)) }.chartXScale(domain: [Date()])"#, ""),
        // Names that are not the enum's cases.
        (#"_ = Chart("d") { BarMark(x: .value("Day", Weekday.self), y: .value("v", Double.self)) }.chartXScale(domain: ["Mon"])"#, ""),
        // A window on a category axis.
        (#"_ = Chart("e") { BarMark(x: .value("Day", String.self), y: .value("v", Double.self)) }.window(5)"#, "ContinuousXPlottable"),
        // y is a number.
        (#"_ = Chart("f") { LineMark(x: .value("Time", Date.self), y: .value("Day", String.self)) }"#, "YPlottable"),
        // x must be plottable.
        (#"_ = Chart("g") { LineMark(x: .value("On", Bool.self), y: .value("v", Double.self)) }"#, "XPlottable"),
        // One mark per chart — also when both are on one axis type, and when the x types differ.
        (#"_ = Chart("h") { LineMark(x: .value("T", Date.self), y: .value("v", Double.self)); PointMark(x: .value("T", Date.self), y: .value("v", Double.self)) }"#,
         "a chart draws exactly one mark"),
        (#"_ = Chart("i") { LineMark(x: .value("T", Date.self), y: .value("v", Double.self)); LineMark(x: .value("D", String.self), y: .value("v", Double.self)) }"#,
         "a chart draws exactly one mark"),
        (#"_ = Chart("j") { }"#, "a chart draws exactly one mark"),
        // Only charts go in a dashboard.
        (#"_ = try? Dashboard("k") { LineMark(x: .value("T", Date.self), y: .value("v", Double.self)) }"#, ""),
    ]

    private static let control = prelude + """
        let cpu = Chart("cpu", title: "CPU load") {
            LineMark(x: .value("Time", Date.self), y: .value("%", Double.self))
                .foregroundStyle(by: .series("user", "system"))
        }
        .chartYScale(domain: 0...100)
        .chartXSelection(value: [.hover, .tap])
        .chartXSelection(range: .drag)
        .window(600)
        .retention(.days(7))
        let dashboard = try Dashboard("Plant floor") {
            cpu
            Chart("shifts") { BarMark(x: .value("Shift", String.self), y: .value("Units", Int.self)) }
                .chartXScale(domain: ["Early", "Late", "Night"])
            Chart("weekend") { AreaMark(x: .value("Day", Weekday.self), y: .value("h", Float.self)) }
                .chartXScale(domain: [.sat, .sun])
                .chartXSelection(value: .scrub)
            for line in 1...3 {
                Chart("load.\\(line)") { PointMark(x: .value("Load", Int.self), y: .value("°C", Double.self)) }
                    .window(100)
                    .retention(.none)
            }
        }
        let spec: ChartSpec = try cpu.spec()
        let charts: [ChartSpec] = dashboard.charts
        print(spec, charts)

        """

    private var modules: URL!
    private var swiftc: URL!
    private var directory: URL!

    override func setUpWithError() throws {
        let candidates = [
            Bundle.main.executableURL?.deletingLastPathComponent(),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent(".build/debug"),
        ].compactMap { $0?.appendingPathComponent("Modules") }
        guard let modules = candidates.first(where: {
            FileManager.default.fileExists(atPath: $0.appendingPathComponent("ChartCast.swiftmodule").path)
        }) else { throw XCTSkip("no built ChartCast.swiftmodule in \(candidates.map(\.path))") }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        guard let swiftc = path.split(separator: ":").map({ URL(fileURLWithPath: String($0)).appendingPathComponent("swiftc") })
            .first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else { throw XCTSkip("no swiftc on PATH") }
        self.modules = modules
        self.swiftc = swiftc
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("chartcast-dsl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// Type-checks `source` as `name`; the exit status and the compiler's output.
    private func typecheck(_ source: String, name: String) throws -> (status: Int32, output: String) {
        let file = directory.appendingPathComponent(name)
        try source.write(to: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = swiftc
        // The system library targets ChartCast depends on (through the server) are found by their module maps.
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let systemModules = ["CLibWebsockets", "CLibev", "CZlib", "CSQLite", "CHiredis"].flatMap { ["-I", sources.appendingPathComponent($0).path] }
        process.arguments = ["-typecheck", "-I", modules.path] + systemModules
            + ["-module-cache-path", directory.appendingPathComponent("cache").path, file.path]
        process.currentDirectoryURL = directory
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        watchdog.cancel()
        return (process.terminationStatus, output)
    }

    func testCorrectDeclarationsTypeCheck() throws {
        let result = try typecheck(Self.control, name: "control.swift")
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertFalse(result.output.contains("error:"), result.output)
    }

    func testMisuseTheTypesCatchDoesNotCompile() throws {
        let firstLine = Self.prelude.split(separator: "\n", omittingEmptySubsequences: false).count
        let source = Self.prelude + Self.misuses.enumerated().map { index, misuse in
            "func misuse\(index)() {\n\(misuse.0)\n}"
        }.joined(separator: "\n") + "\n"
        let result = try typecheck(source, name: "misuse.swift")
        XCTAssertNotEqual(result.status, 0, "the misuse file type-checked:\n\(result.output)")
        let errors = result.output.split(separator: "\n").filter { $0.contains("misuse.swift:") && $0.contains(": error: ") }
        for (index, misuse) in Self.misuses.enumerated() {
            let line = firstLine + 3 * index + 1
            let onLine = errors.filter { $0.contains("misuse.swift:\(line):") }
            XCTAssertFalse(onLine.isEmpty, "no error for line \(line): \(misuse.0)\n\(result.output)")
            if !misuse.1.isEmpty {
                XCTAssertTrue(onLine.contains { $0.contains(misuse.1) }, "line \(line) does not mention \(misuse.1): \(onLine)")
            }
        }
        XCTAssertEqual(Set(errors.compactMap { $0.split(separator: ":").dropFirst().first }).count, Self.misuses.count,
                       "errors only on the misuse lines:\n\(errors.joined(separator: "\n"))")
    }
}
