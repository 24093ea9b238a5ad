import Foundation
import ChartCastServer
import XCTest

/// `--max-viewers`, `--max-per-address`, `--ping-interval`, `--idle-timeout` and their variables.
final class LimitOptionsTests: XCTestCase {
    private func parsed(_ arguments: [String], _ environment: [String: String] = [:]) throws -> ServerOptions {
        guard case .run(let options) = try ServerOptions.parse(arguments: arguments, environment: environment) else {
            throw TestFailure("not a run request")
        }
        return options
    }

    func testDefaults() throws {
        let options = try parsed([])
        XCTAssertEqual(options.maxViewers, 10_000)
        XCTAssertEqual(options.maxPerAddress, 1_000)
        XCTAssertEqual(options.pingInterval, 30)
        XCTAssertEqual(options.idleTimeout, 75)
    }

    func testFlagsAndVariablesWithFlagsWinning() throws {
        let options = try parsed(["--max-viewers", "500", "--ping-interval=1", "--idle-timeout", "3"],
                                 ["CHARTCAST_MAX_VIEWERS": "7", "CHARTCAST_MAX_PER_ADDRESS": "20000"])
        XCTAssertEqual(options.maxViewers, 500)
        XCTAssertEqual(options.maxPerAddress, 20_000)
        XCTAssertEqual(options.pingInterval, 1)
        XCTAssertEqual(options.idleTimeout, 3)
    }

    func testBadValuesAreExplained() {
        for (arguments, words) in [(["--max-viewers", "0"], "--max-viewers must be an integer from 1"),
                                   (["--max-per-address", "lots"], "--max-per-address must be an integer"),
                                   (["--ping-interval", "0"], "--ping-interval must be a whole number of seconds"),
                                   (["--ping-interval", "30", "--idle-timeout", "30"], "must be longer than --ping-interval")] {
            XCTAssertThrowsError(try parsed(arguments)) { error in
                XCTAssertTrue("\(error)".contains(words), "\(arguments): \(error)")
            }
        }
        XCTAssertTrue(ServerOptions.usage.contains("--max-per-address N"))
        XCTAssertTrue(ServerOptions.usage.contains("CHARTCAST_MAX_VIEWERS"))
    }
}
