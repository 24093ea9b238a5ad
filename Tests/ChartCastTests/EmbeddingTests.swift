import ChartCast
import ChartCastProtocol
import Foundation
import TestSupport
import XCTest

/// A Swift program embedding ChartCast: start, define and remove charts, publish from any thread.
final class EmbeddingTests: XCTestCase {
    enum Shift: String, ChartCategory { case early = "Early", late = "Late" }

    private let cpu = Chart("cpu", title: "CPU") {
        LineMark(x: .value("Time", Date.self), y: .value("%", Double.self)).foregroundStyle(by: .series("user"))
    }

    func testAnEmbeddedServerTakesChartsAndPointsFromAnyThread() throws {
        let server = ChartCastServer(options: ServerOptions(port: 0, logLevel: .error),
                                     dashboard: try Dashboard("Embedded") { cpu })
        XCTAssertThrowsError(try server.publish([Point(series: "user", x: .number(1), y: 1)], to: "cpu")) { error in
            XCTAssertEqual(error as? EmbeddingError, .notRunning)
        }
        let port = try server.start()
        defer { server.shutdown() }
        let units = Chart("units") { BarMark(x: .value("Shift", Shift.self), y: .value("Units", Int.self)) }
        XCTAssertTrue(try server.define(units), "a new chart")
        XCTAssertFalse(try server.define(units), "replaced")

        let threads = 4, perThread = 25
        let group = DispatchGroup()
        let failures = Failures()
        for t in 0..<threads {
            DispatchQueue.global().async(group: group) {
                for i in 0..<perThread {
                    let time = Date(timeIntervalSince1970: Double(1_733_011_200 + t * 1000 + i))
                    do { try server.publish(to: self.cpu, x: time, values: ["user": Double(i)]) } catch { failures.add("\(error)") }
                }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(failures.all, [])
        try server.publish(to: units, x: .late, values: ["Units": 7])

        let state = try APIBody.decodeChartState(try rawHTTP(port: port, path: "/api/charts/cpu").body)
        XCTAssertEqual(state.series.first?.points.count, threads * perThread, "every point from every thread")
        let shifts = try APIBody.decodeChartState(try rawHTTP(port: port, path: "/api/charts/units").body)
        XCTAssertEqual(shifts.series.first?.points, [DataPoint(x: .category("Late"), y: 7)])

        XCTAssertThrowsError(try server.publish([Point(series: "user", x: .category("Mon"), y: 1)], to: "cpu")) { error in
            guard case .badPoints(let message)? = error as? EmbeddingError else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("points[0].x"), message)
        }
        XCTAssertThrowsError(try server.publish([], to: "nope")) { error in
            XCTAssertEqual(error as? EmbeddingError, .unknownChart("nope"))
        }
        XCTAssertTrue(try server.removeChart("units"))
        XCTAssertEqual(server.charts()?.map(\.id), ["cpu"])
    }

    func testAChartTheSchemaRefusesFailsWithTheFieldNamingMessage() throws {
        let server = ChartCastServer(options: ServerOptions(port: 0, logLevel: .error), dashboard: try Dashboard("") {})
        _ = try server.start()
        defer { server.shutdown() }
        let unlisted = Chart("tags") { BarMark(x: .value("Tag", String.self), y: .value("n", Int.self)) }
        XCTAssertThrowsError(try server.define(unlisted)) { error in
            XCTAssertEqual((error as? ProtocolError)?.message, "x.categories: is required")
        }
    }

    private final class Failures: @unchecked Sendable {
        private let lock = NSLock()
        private var messages: [String] = []
        func add(_ message: String) { lock.lock(); messages.append(message); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return messages }
    }
}
