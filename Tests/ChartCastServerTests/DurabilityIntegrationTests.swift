import ChartCastProtocol
import ChartEngine
import Foundation
import TestSupport
import XCTest

/// The real `chartcast` binary and its data directory: `kill -9` right after an answer loses
/// nothing, and a data directory it cannot use stops it with one clear line.
final class DurabilityIntegrationTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUp() { directory = TemporaryDirectory("durability") }
    override func tearDown() { directory.remove() }

    private func launch() throws -> (LaunchedServer, Int) {
        let server = try LaunchedServer(["--port", "0", "--data", directory.path])
        return (server, try server.waitForPort())
    }

    func testEveryAnsweredWriteSurvivesKillNineRightAfterTheAnswer() throws {
        let t0 = ((Date().timeIntervalSince1970 - 60).rounded(.down)) * 1_000
        var answered: [Double] = []
        for round in 0..<3 {
            let (server, port) = try launch()
            if round == 0 {
                let spec = ChartSpec(id: "cpu", title: "CPU", mark: .line, xKind: .time, series: ["user"],
                                     interactions: ChartSpec.defaultInteractions(for: .time), window: 100_000,
                                     retentionSeconds: ChartSpec.defaultRetentionSeconds)
                let put = try rawHTTP(port: port, method: "PUT", path: "/api/charts/cpu",
                                      extraHeaders: ["Content-Type: application/json"], body: spec.encoded())
                XCTAssertEqual(put.status, 201, put.bodyText)
            }
            // Writes of 50 points each until 20 were answered, then SIGKILL at once.
            for write in 0..<20 {
                let base = (round * 20 + write) * 50
                let xs = (base..<base + 50).map { t0 + Double($0) }
                let rows = xs.map { "\(JSONWriter.format($0)),\(JSONWriter.format($0.truncatingRemainder(dividingBy: 1000)))" }
                let response = try rawHTTP(port: port, method: "POST", path: "/api/charts/cpu/points",
                                           extraHeaders: ["Content-Type: text/csv"],
                                           body: Array(("x,user\n" + rows.joined(separator: "\n")).utf8))
                XCTAssertEqual(response.status, 200, response.bodyText)
                answered += xs
            }
            kill(server.process.processIdentifier, SIGKILL)
            server.process.waitUntilExit()
            XCTAssertEqual(server.process.terminationReason, .uncaughtSignal)
        }
        let (server, port) = try launch()
        defer { server.stop() }
        let state = try APIBody.decodeChartState(rawHTTP(port: port, path: "/api/charts/cpu").body)
        XCTAssertEqual(state.spec.id, "cpu", "the chart created over the API is back")
        let xs = state.series.first?.points.compactMap { point -> Double? in
            if case .number(let x) = point.x { return x }
            return nil
        } ?? []
        XCTAssertEqual(xs, answered, "every answered point, in the live window again")
    }

    func testACorruptDatabaseStopsTheServerWithOneLine() throws {
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: directory.file("history.sqlite"),
                                       contents: Data(String(repeating: "not a database\n", count: 400).utf8))
        let run = try LaunchedServer(["--port", "0", "--data", directory.path]).finish()
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("chartcast: "), run.stderr)
        XCTAssertTrue(run.stderr.contains(directory.file("history.sqlite")), run.stderr)
        XCTAssertTrue(run.stderr.contains("not a SQLite database"), run.stderr)
    }

    func testASecondServerOnTheSameDataDirectoryIsRefused() throws {
        let (first, _) = try launch()
        defer { first.stop() }
        let run = try LaunchedServer(["--port", "0", "--data", directory.path]).finish()
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("is in use by process \(first.process.processIdentifier)"), run.stderr)
    }

    func testAnUnwritableDataDirectoryStopsTheServer() throws {
        let file = directory.path + "-file"
        FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let run = try LaunchedServer(["--port", "0", "--data", file + "/data"]).finish()
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("is not a directory"), run.stderr)
    }
}
