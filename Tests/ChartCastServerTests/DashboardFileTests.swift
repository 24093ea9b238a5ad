import ChartCastProtocol
import ChartEngine
import Foundation
import TestSupport
import XCTest

/// `chartcast --dashboard FILE` on the real executable: an invalid file is one line naming the
/// file and the field, and exit status 2; a valid one is served (and saved back by
/// `GET /api/dashboard` in the same shape).
final class DashboardFileTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("chartcast-dashboards-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func file(_ name: String, _ text: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    func testAnInvalidFileIsOneLineNamingFileAndFieldAndExitStatus2() throws {
        let bad = try file("plant.json", #"{"title":"Plant floor","charts":[{"id":"a","mark":"line","x":{"kind":"time"}},{"id":"b","mark":"pie","x":{"kind":"time"}}]}"#)
        let cases: [([String], [String: String], String)] = [
            (["--dashboard", bad], [:], #"chartcast: \#(bad): charts[1].mark: "pie" is not one of bar, line, point, area"#),
            ([], ["CHARTCAST_DASHBOARD": bad], #"chartcast: \#(bad): charts[1].mark: "pie" is not one of bar, line, point, area"#),
            (["--dashboard", directory.appendingPathComponent("missing.json").path], [:], "missing.json: cannot be read"),
            (["--dashboard", try file("broken.json", "{\"charts\":[")], [:], "broken.json: invalid JSON"),
        ]
        for (arguments, environment, expected) in cases {
            let run = try LaunchedServer(arguments + ["--port", "0"], environment: environment).finish()
            XCTAssertEqual(run.status, 2, run.stderr)
            let lines = run.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, run.stderr)
            XCTAssertTrue(lines.first?.contains(expected) ?? false, "\(run.stderr) lacks \(expected)")
        }
    }

    func testAValidFileIsServedAndReadBackInTheSameShape() throws {
        let text = #"{"title":"Plant floor","charts":[{"id":"temp","mark":"line","x":{"kind":"time"},"series":["oven"]},{"id":"shift","mark":"bar","x":{"kind":"category","categories":["early","late"]}}]}"#
        let server = try LaunchedServer(["--dashboard", try file("plant.json", text), "--port", "0"])
        defer { server.stop() }
        let port = try server.waitForPort()
        let viewer = try TestViewer(port: port)
        XCTAssertEqual(viewer.welcome?.charts.map(\.id), ["temp", "shift"])
        let served = try Dashboard.parse(try rawHTTP(port: port, path: "/api/dashboard").body)
        XCTAssertEqual(served, try Dashboard.parse(Array(text.utf8)), "the file's dashboard, defaults spelled out")
        XCTAssertEqual(served.title, "Plant floor")
        XCTAssertNil(viewer.snapshots["workouts"], "no demo charts")
    }
}
