import ChartEngine
import ChartCastProtocol
import Foundation
import TestSupport
import WebSockets
import XCTest
@testable import ChartCastServer

/// Ten connections from one address share one budget for the messages that cost everyone.
final class AddressBudgetTests: XCTestCase {
    func testConnectionsFromOneAddressShareOneLimiterThatGoesWithTheLast() throws {
        let budgets = AddressBudgets(rate: 10)
        let first = try XCTUnwrap(budgets.join("10.0.0.1", now: 0))
        let second = try XCTUnwrap(budgets.join("10.0.0.1", now: 0))
        let other = try XCTUnwrap(budgets.join("10.0.0.2", now: 0))
        XCTAssertTrue(first === second, "one limiter per address")
        XCTAssertFalse(first === other)
        XCTAssertEqual(budgets.count, 2)
        // Burst 20 shared: 20 messages across both connections, then none until it refills.
        for index in 0..<20 { XCTAssertTrue((index.isMultiple(of: 2) ? first : second).allow(now: 0), "\(index)") }
        XCTAssertFalse(first.allow(now: 0))
        XCTAssertFalse(second.allow(now: 0))
        XCTAssertTrue(other.allow(now: 0), "another address has its own budget")
        XCTAssertTrue(second.allow(now: 100_000_000), "0.1 s at 10/s refills one")
        budgets.leave("10.0.0.1")
        XCTAssertEqual(budgets.count, 2)
        budgets.leave("10.0.0.1")
        budgets.leave("10.0.0.2")
        XCTAssertEqual(budgets.count, 0, "budgets go with their address's last connection")
        XCTAssertNil(AddressBudgets(rate: 0).join("10.0.0.1", now: 0), "0 turns it off")
    }

    func testOnlyPointerKeyAndViewDrawOnIt() {
        let viewport = Viewport(x: 0, y: 0, width: 100, height: 100)
        XCTAssertTrue(AddressBudgets.covers(.pointer(.init(chart: "c", phase: .move, x: 1, y: 1))))
        XCTAssertTrue(AddressBudgets.covers(.key(.init(chart: "c", command: .right))))
        XCTAssertTrue(AddressBudgets.covers(.view(.init(chart: "c", domain: nil))))
        XCTAssertFalse(AddressBudgets.covers(.hello(.init(name: "a"))))
        XCTAssertFalse(AddressBudgets.covers(.viewport(.init(chart: "c", viewport: viewport))))
        XCTAssertEqual(AddressBudgets.defaultRate, 4 * ProtocolLimits.v1.messagesPerSecond)
    }

    func testTheOptionParsesAndZeroTurnsItOff() throws {
        guard case .run(let defaults) = try ServerOptions.parse(arguments: [], environment: [:]) else { return XCTFail() }
        XCTAssertEqual(defaults.maxRatePerAddress, 960)
        guard case .run(let off) = try ServerOptions.parse(arguments: ["--max-rate-per-address", "0"],
                                                           environment: ["CHARTCAST_MAX_RATE_PER_ADDRESS": "50"]) else { return XCTFail() }
        XCTAssertEqual(off.maxRatePerAddress, 0)
        XCTAssertThrowsError(try ServerOptions.parse(arguments: ["--max-rate-per-address", "-1"], environment: [:]))
        XCTAssertThrowsError(try ServerOptions.parse(arguments: ["--max-rate-per-address", "nan"], environment: [:]))
    }

    /// Five viewers from 127.0.0.1, each well within its own limit, hovering together.
    private func hoverFromFiveConnections(rate: Double) throws -> (errors: [ProtocolError], drops: Int) {
        let server = try TestServer { $0.maxRatePerAddress = rate }
        let viewers = try (0..<5).map { _ in try server.viewer() }
        for viewer in viewers { viewer.sendViewport("sales") }
        // 5 × 60 = 300 pointer messages at once: 60 is far below one connection's burst (480).
        for step in 0..<60 {
            for viewer in viewers { viewer.pointer("sales", .move, x: TestPlot.standard.categoryX(step % 12, of: 12)) }
        }
        // Each viewer then renames itself (hello is not on the address budget) and reads up to it.
        var errors: [ProtocolError] = []
        for (index, viewer) in viewers.enumerated() {
            viewer.hello("Budget \(index)")
            while true {
                let message = try viewer.nextMessage()
                if case .error(let error) = message { errors.append(error) }
                if case .viewers(let list) = message, list.viewers.contains(where: { $0.id == viewer.id && $0.name == "Budget \(index)" }) {
                    break
                }
            }
        }
        let metrics = try server.request("GET", "/metrics").bodyText
        let line = metrics.split(separator: "\n").first { $0.hasPrefix("chartcast_address_budget_drops_total ") }
        let drops = line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1
        return (errors, drops)
    }

    func testSeveralConnectionsFromOneAddressShareTheBudget() throws {
        let limited = try hoverFromFiveConnections(rate: 50)
        XCTAssertFalse(limited.errors.isEmpty, "300 hovers against a shared burst of 100 are limited")
        XCTAssertTrue(limited.errors.allSatisfy { $0.code == .rateLimited }, "\(limited.errors)")
        XCTAssertTrue(limited.errors.contains { $0.message.contains("from this address") }, "\(limited.errors)")
        XCTAssertGreaterThanOrEqual(limited.drops, 150, "at least 300 − burst 100 − refill were dropped: \(limited.drops)")

        let unlimited = try hoverFromFiveConnections(rate: 0)
        XCTAssertEqual(unlimited.errors, [], "the same traffic with the per-address budget off")
        XCTAssertEqual(unlimited.drops, 0)
    }

    func testArrivalsFromOneAddressAreNotThrottled() throws {
        // A crowd arriving from one load-testing host: hello and a viewport per chart each.
        let server = try TestServer { $0.maxRatePerAddress = 10 }
        let viewers = try (0..<6).map { _ in try server.viewer() }
        for (index, viewer) in viewers.enumerated() {
            for _ in 0..<50 { for chart in ["sales", "workouts", "intake"] { viewer.sendViewport(chart) } }
            viewer.hello("Arrival \(index)")
        }
        for (index, viewer) in viewers.enumerated() {
            while true {
                let message = try viewer.nextMessage()
                if case .error(let error) = message { XCTFail("\(error)") }
                if case .viewers(let list) = message, list.viewers.contains(where: { $0.name == "Arrival \(index)" }) { break }
            }
        }
    }
}
