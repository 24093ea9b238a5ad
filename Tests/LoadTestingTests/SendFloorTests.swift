import XCTest
@testable import LoadTesting

final class SendFloorTests: XCTestCase {
    func testEveryFrameIsSentWholeToEverySocketAndReadBack() throws {
        var options = SendFloorOptions()
        options.connections = 25
        options.rate = 50
        options.duration = 0.2
        options.messageBytes = 300
        options.wake = .timer
        let report = try SendFloor.run(options)
        XCTAssertEqual(report.events, 10)
        XCTAssertEqual(report.eventsHandled, 10)
        XCTAssertEqual(report.frames, 250)
        XCTAssertEqual(report.frameBytes, 304, "a 300-byte payload takes the 16-bit length form")
        XCTAssertEqual(report.shortWrites, 0)
        XCTAssertEqual(report.bytesReceived, 250 * 304, "the reader drained every frame")
        XCTAssertTrue(report.succeeded)
        XCTAssertGreaterThan(report.senderCPUSeconds, 0)
        XCTAssertEqual(report.bursts.count, 10, "one burst per event")
        XCTAssertEqual(report.offsets.count, 30, "every 8th of the 25 sockets' frames, each event")
        let json = String(decoding: report.json, as: UTF8.self)
        XCTAssertTrue(json.contains("\"cpuMicrosPerFrame\":"))
        XCTAssertTrue(json.contains("\"frameMs\":{\"p50\":"))
    }

    /// Woken by a socket (the default): each of the driver's messages, read after `epoll_wait`,
    /// starts one fan-out, however the kernel groups them.
    func testWokenByASocketEachOfTheDriversEventsIsOneFanOut() throws {
        var options = SendFloorOptions()
        XCTAssertEqual(options.wake, .socket, "a server is woken by a socket")
        options.connections = 10
        options.rate = 200
        options.duration = 0.1
        options.messageBytes = 100
        let report = try SendFloor.run(options)
        XCTAssertEqual(report.events, 20)
        XCTAssertEqual(report.eventsHandled, 20, "every event the driver sent was fanned out")
        XCTAssertEqual(report.frames, 200)
        XCTAssertEqual(report.bytesReceived, 200 * 102)
        XCTAssertTrue(report.succeeded)
        XCTAssertEqual(report.bursts.count, 20, "one burst per event")
        XCTAssertTrue(report.text.contains("woken by a socket"), report.text)
        XCTAssertTrue(String(decoding: report.json, as: UTF8.self).contains("\"wake\":\"socket\",\"events\":20,\"eventsHandled\":20"))
    }

    func testTheServerFrameIsAnUnmaskedTextFrameOfTheGivenPayload() {
        XCTAssertEqual(WebSocketFraming.serverTextFrame(payloadBytes: 3), [0x81, 3, 0x20, 0x20, 0x20])
        let long = WebSocketFraming.serverTextFrame(payloadBytes: 296)
        XCTAssertEqual(Array(long.prefix(4)), [0x81, 126, 0x01, 0x28])
        XCTAssertEqual(long.count, 300)
    }

    func testOptionsParseAndRefuseBadValues() throws {
        let options = try SendFloorOptions.parse(["--send-floor", "--viewers", "5000", "--rate", "10", "--duration", "3",
                                                  "--message-size", "292", "--sender-cpu", "0", "--reader-cpu", "1", "--json", "/tmp/x.json"])
        XCTAssertEqual(options.connections, 5000)
        XCTAssertEqual(options.rate, 10)
        XCTAssertEqual(options.duration, 3)
        XCTAssertEqual(options.messageBytes, 292)
        XCTAssertEqual(options.senderCPU, 0)
        XCTAssertEqual(options.readerCPU, 1)
        XCTAssertEqual(options.jsonPath, "/tmp/x.json")
        XCTAssertEqual(options.wake, .socket)
        XCTAssertEqual(try SendFloorOptions.parse(["--wake", "timer"]).wake, .timer)
        XCTAssertThrowsError(try SendFloorOptions.parse(["--wake", "poll"])) {
            XCTAssertEqual(($0 as? LoadOptionsError)?.description, "--wake: expected socket or timer, got poll")
        }
        XCTAssertThrowsError(try SendFloorOptions.parse(["--viewers", "0"])) {
            XCTAssertEqual(($0 as? LoadOptionsError)?.description, "--viewers: bad value 0")
        }
        XCTAssertThrowsError(try SendFloorOptions.parse(["--rate"])) {
            XCTAssertEqual(($0 as? LoadOptionsError)?.description, "--rate needs a value")
        }
        XCTAssertThrowsError(try SendFloorOptions.parse(["--drivers", "2"])) {
            XCTAssertEqual(($0 as? LoadOptionsError)?.description, "unknown option --drivers for --send-floor")
        }
    }

    func testAnImpossiblePinIsAClearError() {
        var options = SendFloorOptions()
        options.connections = 2
        options.duration = 0.05
        options.readerCPU = 1000
        XCTAssertThrowsError(try SendFloor.run(options)) {
            XCTAssertTrue("\($0)".hasPrefix("cannot pin the reader to CPU 1000"), "\($0)")
        }
    }
}
