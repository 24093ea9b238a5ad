import Foundation
import XCTest
@testable import ChartCastServer

/// Log lines cannot be forged, coloured or flooded by what clients send.
final class LogSafetyTests: XCTestCase {
    /// A logger writing into an array, on a clock the test moves.
    private final class Capture: @unchecked Sendable {
        var lines: [String] = []
        var now = 100.0
        lazy var logger = Logger(level: .debug, sink: { [unowned self] in self.lines.append($0) }, clock: { [unowned self] in self.now })
    }

    func testControlCharactersBecomeVisibleEscapes() {
        XCTAssertEqual(Logger.sanitized("Ana\r\n2026-01-01T00:00:00.000Z info forged"),
                       "Ana\\u{0D}\\u{0A}2026-01-01T00:00:00.000Z info forged")
        XCTAssertEqual(Logger.sanitized("\u{1B}[31mred\u{1B}[0m"), "\\u{1B}[31mred\\u{1B}[0m")
        XCTAssertEqual(Logger.sanitized("a\u{0}b\u{7F}c\u{85}d\u{9B}e"), "a\\u{00}b\\u{7F}c\\u{85}d\\u{9B}e")
        XCTAssertEqual(Logger.sanitized("abc\u{202E}fed\u{2066}\u{200F}"), "abc\\u{202E}fed\\u{2066}\\u{200F}")
        XCTAssertEqual(Logger.sanitized("Zoë 🐙 ok"), "Zoë 🐙 ok", "printable text is left alone")
        XCTAssertEqual(Logger.quoted("say \"hi\"\n"), "\"say \\\"hi\\\"\\u{0A}\"")
    }

    func testLoggedStringsAreCapped() {
        let huge = String(repeating: "x", count: 1_000_000)
        let shown = Logger.sanitized(huge)
        XCTAssertEqual(shown, String(repeating: "x", count: Logger.maxLoggedCharacters) + "…")
        XCTAssertEqual(Logger.sanitized(String(repeating: "y", count: Logger.maxLoggedCharacters)),
                       String(repeating: "y", count: Logger.maxLoggedCharacters), "exactly the cap: no ellipsis")
        // A 60 KB name of combining marks is capped by scalars, not by grapheme clusters.
        let marks = "a" + String(repeating: "\u{0301}", count: 30_000)
        XCTAssertLessThanOrEqual(Logger.sanitized(marks).utf8.count, 2 * Logger.maxLoggedCharacters + 3)
    }

    func testRepeatedLinesAreWrittenOnceASecondWithACountOfTheRest() {
        let capture = Capture()
        for i in 0..<1_000 { capture.logger.log(.info, key: "rename", "viewer v1 is now called \(i)") }
        XCTAssertEqual(capture.lines.count, 1)
        XCTAssertTrue(capture.lines[0].hasSuffix("info viewer v1 is now called 0"), capture.lines[0])
        capture.logger.log(.info, key: "other", "another kind is not held back")
        XCTAssertEqual(capture.lines.count, 2)
        capture.now += 0.999
        capture.logger.log(.info, key: "rename", "still within the second")
        XCTAssertEqual(capture.lines.count, 2)
        capture.now += 0.002
        capture.logger.log(.info, key: "rename", "viewer v1 is now called last")
        XCTAssertEqual(capture.lines.count, 3)
        XCTAssertTrue(capture.lines[2].hasSuffix("viewer v1 is now called last (1000 similar lines suppressed)"), capture.lines[2])
        capture.now += 5
        capture.logger.log(.info, key: "rename", "quiet again")
        XCTAssertTrue(capture.lines[3].hasSuffix("quiet again"), "nothing suppressed since: no suffix")
        // A line below the logger's level does not use up its kind's second.
        var quiet: [String] = []
        let infoLogger = Logger(level: .info, sink: { quiet.append($0) }, clock: { 7 })
        infoLogger.log(.debug, key: "fresh", "below the level")
        infoLogger.log(.info, key: "fresh", "at the level")
        XCTAssertEqual(quiet.count, 1)
        XCTAssertTrue(quiet[0].hasSuffix("info at the level"), quiet[0])
    }

    func testTheKeyTableStaysBounded() {
        var lines = RepeatedLines(interval: 1, maxKeys: 4)
        for key in 0..<4 { XCTAssertEqual(lines.admit("k\(key)", now: 0), 0) }
        XCTAssertNil(lines.admit("k0", now: 0.5))
        // Full: a new key clears the table (everyone is still within the second), so it is written.
        XCTAssertEqual(lines.admit("k4", now: 0.6), 0)
        XCTAssertEqual(RepeatedLines.suffix(1), " (1 similar line suppressed)")
    }

    func testARenameFloodFromARealViewerLogsFewShortEscapedLines() throws {
        let lock = NSLock()
        var lines: [String] = []
        let logger = Logger(level: .info, sink: { line in lock.lock(); lines.append(line); lock.unlock() })
        let options = ServerOptions(host: "127.0.0.1", port: 0, tick: 3600, logLevel: .info)
        let server = ChartCastServer(options: options, logger: logger)
        let port = try server.start()
        defer { server.shutdown() }
        let viewer = try TestViewer(port: port)
        let forged = "Mallory\r\n00:00Z info v9\u{1B}[2J" + String(repeating: "é", count: 10)
        viewer.hello(forged)
        _ = try viewer.viewers { $0.viewers.contains { $0.id == viewer.id && $0.name.hasPrefix("Mallory") } }
        for i in 0..<200 { viewer.hello("Name \(i)") }
        _ = try viewer.viewers { $0.viewers.contains { $0.id == viewer.id && $0.name == "Name 199" } }
        lock.lock(); let written = lines; lock.unlock()
        let renames = written.filter { $0.contains("is now called") }
        XCTAssertGreaterThanOrEqual(renames.count, 1)
        XCTAssertLessThan(renames.count, 20, "a rename loop logs about one line a second: \(renames.count)")
        for line in written {
            XCTAssertFalse(line.contains("\n") || line.contains("\r") || line.contains("\u{1B}"), line)
            XCTAssertLessThan(line.count, 300, line)
        }
    }
}
