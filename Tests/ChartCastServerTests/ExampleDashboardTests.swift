import ChartCastDemo
import ChartCastProtocol
import ChartEngine
import Foundation
import XCTest

/// The dashboards shipped in `Examples/dashboards` parse, and the demo file is exactly the
/// built-in demo: the demo is "just a dashboard".
final class ExampleDashboardTests: XCTestCase {
    private let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Examples/dashboards")

    private func dashboard(_ name: String) throws -> Dashboard {
        let bytes = try Data(contentsOf: examples.appendingPathComponent(name))
        return try Dashboard.parse(Array(bytes))
    }

    func testTheDemoFileIsTheBuiltInDemo() throws {
        let demo = try dashboard("demo.json")
        XCTAssertEqual(demo.charts, DemoDashboard.specs(window: 60))
        XCTAssertEqual(demo.title, DemoDashboard.title)
    }

    func testEveryShippedDashboardParses() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: examples.path).filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertTrue(names.contains("system-monitor.json"))
        for name in names {
            XCTAssertNoThrow(try dashboard(name), name)
        }
        XCTAssertEqual(try dashboard("system-monitor.json").charts.map(\.id), ["cpu", "load", "memory", "network"])
    }
}
