import ChartEngine
import XCTest
@testable import ChartCastProtocol

/// The pointer fast path takes plain `pointer` messages and leaves everything else to the generic
/// decoder, and `decode` answers exactly what the generic decoder answers, message or error.
final class PointerFastPathTests: XCTestCase {
    private func assertAgrees(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        FastPathAgreement.assertAgrees(bytes, fast: { PointerFastPath.decode($0, limits: .v1) }, file: file, line: line)
    }

    func testPlainPointerMessagesTakeTheFastPathAndDecodeAsTheGenericDecoderDoes() throws {
        let taken: [(String, ClientMessage.PointerInput)] = [
            (#"{"type":"pointer","chart":"sales","phase":"move","x":130.5,"y":90,"ref":"r-991"}"#,
             .init(chart: "sales", phase: .move, x: 130.5, y: 90, ref: "r-991")),
            (#"{"type":"pointer","chart":"sales","phase":"down","x":0,"y":-0}"#,
             .init(chart: "sales", phase: .down, x: 0, y: 0)),
            (" \t\r\n{ \"y\" : 1e2 ,\"x\":-2.5E-1, \"phase\":\"up\", \"chart\":\"\",\"type\":\"pointer\" } \n",
             .init(chart: "", phase: .up, x: -0.25, y: 100)),
            (#"{"type":"pointer","chart":"c","phase":"leave","x":1,"y":2,"ref":null}"#,
             .init(chart: "c", phase: .leave, x: 1, y: 2)),
            (#"{"type":"pointer","extra":true,"chart":"c","more":null,"phase":"move","n":12.5e3,"x":1,"y":2,"s":"t","f":false}"#,
             .init(chart: "c", phase: .move, x: 1, y: 2)),
            (#"{"type":"pointer","chart":"c","phase":"move","x":1000000,"y":-1e6}"#,
             .init(chart: "c", phase: .move, x: 1_000_000, y: -1_000_000)),
        ]
        for (text, expected) in taken {
            let bytes = Array(text.utf8)
            XCTAssertEqual(PointerFastPath.decode(bytes, limits: .v1), .pointer(expected), text)
            assertAgrees(bytes)
        }
    }

    func testAnythingButThePlainShapeIsLeftToTheGenericDecoder() throws {
        let left = [
            #"{"typ\u0065":"pointer","chart":"c","phase":"move","x":1,"y":2}"#,     // an escaped key
            #"{"type":"pointer","chart":"s\"x","phase":"move","x":1,"y":2}"#,        // an escaped value
            #"{"type":"pointer","chart":"ventes-été","phase":"move","x":1,"y":2}"#,  // non-ASCII
            "{\"type\":\"pointer\",\"chart\":\"a\u{7F}\",\"phase\":\"move\",\"x\":1,\"y\":2}",   // DEL
            "{\"type\":\"pointer\",\"chart\":\"a\tb\",\"phase\":\"move\",\"x\":1,\"y\":2}",      // a control character
            #"{"type":"pointer","chart":"c","phase":"move","x":1,"y":2,"meta":{"a":1}}"#,   // a nested object
            #"{"type":"pointer","chart":"c","phase":"move","x":1,"y":2,"list":[1]}"#,       // an array
            #"{"type":"pointer","chart":"c","phase":"move","x":1,"x":3,"y":2}"#,            // a repeated member
            #"{"type":"pointer","chart":"c","chart":"d","phase":"move","x":1,"y":2}"#,
            #"{"type":"pointer","chart":"c","phase":"move","x":1,"y":2,"ref":"a","ref":"b"}"#,
            #"{"type":"pointer","chart":"c","phase":"move","x":1,"y":2,"ref":null,"ref":"b"}"#,
            #"{"type":"pointer","chart":"c","phase":"move","x":"1","y":2}"#,               // wrong kinds
            #"{"type":"pointer","chart":7,"phase":"move","x":1,"y":2}"#,
            #"{"type":"pointer","chart":"c","phase":"move","x":1,"y":null}"#,
            #"{"type":"pointer","chart":"c","phase":"move","x":1,"y":2,"ref":5}"#,
            #"{"type":"pointer","chart":"c","phase":"move","x":1,"y":2,"ref":true}"#,
            #"{"type":"pointer","chart":"c","phase":"move","x":1e400,"y":2}"#,             // not finite
            #"{"type":"pointer","chart":"c","phase":"move","x":1000001,"y":2}"#,           // out of range
            #"{"type":"pointer","chart":"c","phase":"hover","x":1,"y":2}"#,                // unknown phase
            #"{"type":"pointer","chart":"c","phase":"move","x":1}"#,                       // missing y
            #"{"type":"hello","name":"Ana"}"#,                                              // another type
            #"{"type":"pointer","chart":"c","phase":"move","x":01,"y":2}"#,                // not JSON numbers
            #"{"type":"pointer","chart":"c","phase":"move","x":1.,"y":2}"#,
            #"{"type":"pointer","chart":"c","phase":"move","x":+1,"y":2}"#,
            #"{"type":"pointer","chart":"c","phase":"move","x":1,"y":2,}"#,                // a trailing comma
            #"{"type":"pointer","chart":"c","phase":"move","x":1,"y":2} x"#,               // trailing data
            #"{"type":"pointer","chart":"c","phase":"move","x":1,"y":2"#,                  // cut short
            #"{"type":"pointer","chart":"c","phase":"move","x":1,"y":2,"flag":nul}"#,      // a broken literal
            #"{"type":"pointer","chart":"c","phase":"move","x":1,"y":2,"ref":""# + String(repeating: "r", count: 65) + #""}"#,
            "{}", "[]", "", "null",
        ]
        for text in left {
            let bytes = Array(text.utf8)
            XCTAssertNil(PointerFastPath.decode(bytes, limits: .v1), text)
            assertAgrees(bytes)
        }
    }

    /// Thousands of near-misses of a pointer message (bytes replaced, inserted or removed, drawn
    /// from JSON's own punctuation): the fast path never accepts what the generic decoder refuses
    /// nor decodes anything differently.
    func testMutatedPointerMessagesDecodeTheSameEitherWay() {
        let base = Array(#"{"type":"pointer","chart":"sales","phase":"move","x":130.5,"y":-9e1,"ref":"r-1","k":true}"#.utf8)
        var taken = 0
        for bytes in FastPathAgreement.mutations(of: base, count: 20_000, seed: 2026_12_02) {
            if PointerFastPath.decode(bytes, limits: .v1) != nil { taken += 1 }
            assertAgrees(bytes)
        }
        XCTAssertGreaterThan(taken, 1_000, "the mutations keep many messages plain (the fast path is exercised)")
    }
}
