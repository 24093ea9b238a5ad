import ChartEngine
import XCTest
@testable import ChartCastProtocol

/// Every message of protocol v1, both directions: encode → decode gives the same value, and
/// malformed input decodes to the documented error code naming the field.
final class RoundTripTests: XCTestCase {
    func testEveryClientMessageRoundTrips() throws {
        for message in ProtocolSamples.client {
            XCTAssertEqual(try ClientMessage.decode(message.encode()), message, String(decoding: message.encode(), as: UTF8.self))
        }
    }

    func testEveryServerMessageRoundTrips() throws {
        for message in ProtocolSamples.server {
            XCTAssertEqual(try ServerMessage.decode(message.encode()), message, String(decoding: message.encode(), as: UTF8.self))
        }
    }

    func testTheSamplesCoverEveryMessageType() {
        XCTAssertEqual(Set(ProtocolSamples.server.map(\.type)),
                       ["welcome", "snapshot", "append", "selection", "viewers", "error", "chart", "chart_removed", "ack"])
        let clientTypes = Set(ProtocolSamples.client.map { String(decoding: $0.encode(), as: UTF8.self).split(separator: "\"")[3] })
        XCTAssertEqual(clientTypes, ["hello", "viewport", "pointer", "key", "publish", "view"])
    }

    /// One table row: malformed server input → the error code and a fragment of its message.
    private let malformedServer: [(String, ErrorCode, String)] = [
        ("nope", .badJSON, "invalid JSON"),
        ("[]", .badJSON, "JSON object"),
        (#"{"type":"goodbye"}"#, .unknownType, "goodbye"),
        (##"{"type":"welcome","protocol":1,"viewer":"v1","name":"A","color":"#fff","charts":[],"limits":{}}"##, .badField, "limits.maxMessageBytes"),
        (##"{"type":"welcome","protocol":1,"viewer":"v1","name":"A","color":"#fff","charts":[{"id":"c"}],"limits":{}}"##, .badField, "charts[0].mark: is required"),
        (##"{"type":"welcome","protocol":1.5,"viewer":"v1","name":"A","color":"#fff","charts":[],"limits":{}}"##, .badField, "protocol"),
        (#"{"type":"snapshot","chart":"c","seq":1,"x":{"kind":"time","domain":[2,1]},"y":{"domain":[0,1]},"series":[],"selection":{"hovers":[]}}"#, .badField, "x.domain"),
        (#"{"type":"snapshot","chart":"c","seq":1,"x":{"kind":"pie","domain":[]},"y":{"domain":[0,1]},"series":[],"selection":{"hovers":[]}}"#, .badField, "x.kind"),
        (#"{"type":"snapshot","chart":"c","seq":1,"x":{"kind":"time","domain":[0,1]},"y":{"domain":[0,1]},"series":[{"name":"s","points":[[1]]}],"selection":{"hovers":[]}}"#, .badField, "series[0].points[0]"),
        (#"{"type":"snapshot","chart":"c","seq":1,"x":{"kind":"time","domain":[0,1]},"y":{"domain":[0,1]},"series":[],"selection":{"hovers":[]},"view":{"from":5,"to":5}}"#, .badField, "view.to"),
        (#"{"type":"snapshot","chart":"c","seq":1,"x":{"kind":"time","domain":[0,1]},"y":{"domain":[0,1]},"series":[],"selection":{"hovers":[]},"view":{"from":5}}"#, .badField, "view.to"),
        (#"{"type":"append","chart":"c","seq":-1,"points":[]}"#, .badField, "seq"),
        (#"{"type":"append","chart":"c","seq":1,"points":[{"series":"s","x":true,"y":1}]}"#, .badField, "points[0].x"),
        (#"{"type":"selection","chart":"c","seq":1,"hovers":[{"by":"v1","x":"a","fraction":0.5,"placement":"above","values":[]}]}"#, .badField, "hovers[0].placement"),
        (#"{"type":"selection","chart":"c","seq":1,"hovers":[],"range":{"by":"v1"}}"#, .badField, "range.from"),
        (#"{"type":"viewers","viewers":[{"id":"v1","name":7,"color":""}]}"#, .badField, "viewers[0].name"),
        (#"{"type":"error","code":"exploded","message":"m"}"#, .badField, "code"),
        (#"{"type":"chart","spec":{"id":"c","mark":"pie","x":{"kind":"time"}}}"#, .badField, #"spec.mark: "pie" is not one of"#),
        (#"{"type":"chart_removed"}"#, .badField, "chart"),
        (#"{"type":"ack","seq":1}"#, .badField, "accepted"),
    ]

    func testMalformedServerMessagesGetTheDocumentedCode() {
        for (text, code, fragment) in malformedServer {
            XCTAssertThrowsError(try ServerMessage.decode(Array(text.utf8)), text) { error in
                guard let error = error as? ProtocolError else { return XCTFail("\(text): \(error)") }
                XCTAssertEqual(error.code, code, "\(text): \(error.message)")
                XCTAssertTrue(error.message.contains(fragment), "\(text): \(error.message) lacks \(fragment)")
            }
        }
    }

    /// The wire spelling of every engine enum, pinned: renaming a Swift case must not change it.
    func testWireNamesArePinned() {
        XCTAssertEqual(XKind.wireNames, ["category", "time", "linear"])
        XCTAssertEqual(Mark.wireNames, ["bar", "line", "point", "area"])
        XCTAssertEqual(DragInteraction.wireNames, ["none", "scrub", "range"])
        XCTAssertEqual(PointerPhase.wireNames, ["down", "move", "up", "leave"])
        XCTAssertEqual(KeyCommand.wireNames, ["left", "right", "home", "end", "enter", "escape"])
        XCTAssertEqual(Placement.wireNames, ["leading", "trailing"])
        XCTAssertEqual(ErrorCode.allCases.map(\.rawValue),
                       ["bad_json", "unknown_type", "unknown_chart", "bad_field", "no_viewport", "unsupported", "too_large",
                        "rate_limited", "forbidden", "bad_point", "unavailable"])
        for name in PointerPhase.wireNames { XCTAssertEqual(PointerPhase(wireName: name)?.wireName, name) }
        XCTAssertNil(PointerPhase(wireName: "Move"))
    }
}
