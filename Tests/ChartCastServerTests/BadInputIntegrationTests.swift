import ChartCastProtocol
import ChartEngine
import WebSockets
import XCTest

/// Every class of bad input gets its error code, the connection keeps working (except the
/// oversize close), and another viewer is unaffected. Malformed payloads are written as JSON
/// text on purpose: these tests pin what the server does with bytes no encoder would produce.
final class BadInputIntegrationTests: XCTestCase {
    private var server: TestServer!
    private var sender: TestViewer!
    private var bystander: TestViewer!

    override func setUpWithError() throws {
        server = try TestServer()
        sender = try server.viewer()
        bystander = try server.viewer()
        bystander.sendViewport("sales")
    }

    override func tearDown() {
        server = nil
        sender = nil
        bystander = nil
    }

    /// Sends `payload`, expects an `error` with `code`, then proves both viewers still work:
    /// the sender hovers March on `sales` and both see it.
    private func assertRejected(_ payload: String, code: ErrorCode, file: StaticString = #filePath, line: UInt = #line) throws {
        sender.sendRaw(payload)
        try assertError(code, file: file, line: line)
        try assertStillWorking(file: file, line: line)
    }

    /// A well-formed message the server must refuse with `code`.
    private func assertRejected(_ message: ClientMessage, code: ErrorCode, file: StaticString = #filePath, line: UInt = #line) throws {
        sender.send(message)
        try assertError(code, file: file, line: line)
        try assertStillWorking(file: file, line: line)
    }

    private func assertError(_ code: ErrorCode, file: StaticString = #filePath, line: UInt = #line) throws {
        let error = try sender.error()
        XCTAssertEqual(error.code, code, file: file, line: line)
        XCTAssertFalse(error.message.isEmpty, file: file, line: line)
    }

    private var hoverSide = 0

    private func assertStillWorking(file: StaticString = #filePath, line: UInt = #line) throws {
        hoverSide += 1
        let month = hoverSide % 2 == 0 ? 2 : 8
        let name = XValue.category(month == 2 ? "March" : "September")
        sender.sendViewport("sales")
        sender.pointer("sales", .move, x: TestPlot.standard.categoryX(month, of: 12))
        for viewer in [sender!, bystander!] {
            let update = try viewer.selection("sales") { $0.selection.hovers.first?.x == name }
            XCTAssertEqual(update.selection.hovers.first?.by, sender.id, file: file, line: line)
        }
    }

    func testInvalidJSON() throws {
        try assertRejected("{\"type\":", code: .badJSON)
        try assertRejected("not json at all", code: .badJSON)
        try assertRejected("[\"type\",\"pointer\"]", code: .badJSON)
    }

    func testDeeplyNestedJSON() throws {
        try assertRejected(String(repeating: "[", count: 30_000) + String(repeating: "]", count: 30_000), code: .badJSON)
    }

    func testUnknownType() throws {
        try assertRejected(#"{"type":"teleport"}"#, code: .unknownType)
    }

    func testUnknownChart() throws {
        try assertRejected(.viewport(.init(chart: "salez", viewport: Viewport(x: 0, y: 0, width: 10, height: 10))), code: .unknownChart)
        try assertRejected(.pointer(.init(chart: "salez", phase: .move, x: 1, y: 1)), code: .unknownChart)
    }

    func testMissingAndWrongTypedFields() throws {
        try assertRejected(#"{"type":"pointer","chart":"sales","phase":"move","y":1}"#, code: .badField)
        try assertRejected(#"{"type":"pointer","chart":"sales","phase":"move","x":"12","y":1}"#, code: .badField)
        try assertRejected(#"{"type":"viewport","chart":"sales","plot":"big"}"#, code: .badField)
        try assertRejected(#"{"phase":"move"}"#, code: .badField)
    }

    func testNonFiniteAndAbsurdNumbers() throws {
        try assertRejected(#"{"type":"pointer","chart":"sales","phase":"move","x":1e999,"y":1}"#, code: .badField)
        try assertRejected(#"{"type":"pointer","chart":"sales","phase":"move","x":-1e300,"y":1}"#, code: .badField)
        try assertRejected(#"{"type":"viewport","chart":"sales","plot":{"x":0,"y":0,"width":1e20,"height":10}}"#, code: .badField)
    }

    func testPointerBeforeViewportIsNoViewport() throws {
        try assertRejected(.pointer(.init(chart: "workouts", phase: .down, x: 100, y: 100)), code: .noViewport)
    }

    func testBinaryFramesAreUnsupported() throws {
        sender.client.send(bytes: [0x7B, 0x7D, 0x00, 0xFF], binary: true)
        try assertError(.unsupported)
        try assertStillWorking()
    }

    func testFragmentedMessageIsReassembled() throws {
        sender.sendViewport("sales")
        let message = ClientMessage.pointer(.init(chart: "sales", phase: .move, x: TestPlot.standard.categoryX(5, of: 12),
                                                  y: 90, ref: "frag-1")).encode()
        let third = message.count / 3
        sender.client.sendFragments([Array(message[..<third]), Array(message[third..<(2 * third)]), Array(message[(2 * third)...])], binary: false)
        let update = try bystander.selection("sales") { $0.ref == "frag-1" }
        XCTAssertEqual(update.selection.hovers.first?.x, .category("June"))
    }

    func testOversizedMessageGetsTooLargeThenClose1009() throws {
        let huge = #"{"type":"hello","name":""# + String(repeating: "x", count: 70_000) + #""}"#
        sender.sendRaw(huge)
        try assertError(.tooLarge)
        let deadline = Date().addingTimeInterval(5)
        while sender.client.closeCode == nil, Date() < deadline {
            do { _ = try sender.client.receive(timeout: 0.2) } catch WebSocketError.closed { break } catch WebSocketError.timeout { continue }
        }
        XCTAssertEqual(sender.client.closeCode, 1009)
        // The other viewer carries on.
        bystander.pointer("sales", .move, x: TestPlot.standard.categoryX(0, of: 12))
        let update = try bystander.selection("sales") { $0.selection.hovers.first?.x == .category("January") }
        XCTAssertEqual(update.selection.hovers.first?.by, bystander.id)
    }

    /// The transport's message limit is the one protocol v1 declares (and announces in
    /// `welcome`): a message of exactly `maxMessageBytes` is read, one byte more is refused.
    func testTheMessageLimitIsTheDeclaredProtocolLimitToTheByte() throws {
        let limit = ProtocolLimits.v1.maxMessageBytes
        let hover = ClientMessage.pointer(.init(chart: "sales", phase: .move, x: TestPlot.standard.categoryX(4, of: 12),
                                                y: 90, ref: "at-limit")).encode()
        sender.sendViewport("sales")
        // JSON allows whitespace after the document; pad the hover to exactly the limit.
        sender.client.send(bytes: hover + [UInt8](repeating: UInt8(ascii: " "), count: limit - hover.count), binary: false)
        let update = try bystander.selection("sales") { $0.ref == "at-limit" }
        XCTAssertEqual(update.selection.hovers.first?.x, .category("May"))
        sender.client.send(bytes: hover + [UInt8](repeating: UInt8(ascii: " "), count: limit + 1 - hover.count), binary: false)
        try assertError(.tooLarge)
    }

    func testOversizedFragmentedMessageIsAlsoRefused() throws {
        let chunk = [UInt8](repeating: UInt8(ascii: " "), count: 20_000)
        sender.client.sendFragments([Array("{\"type\":\"hello\",".utf8), chunk, chunk, chunk, chunk, Array("\"name\":\"x\"}".utf8)], binary: false)
        try assertError(.tooLarge)
    }

    func testFloodIsRateLimitedAndTheConnectionSurvives() throws {
        for _ in 0..<1_500 { sender.sendViewport("sales") }
        try assertError(.rateLimited)
        Thread.sleep(forTimeInterval: 2.5)   // let the bucket refill
        try assertStillWorking()
    }
}
