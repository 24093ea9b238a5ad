import ChartEngine
import XCTest
@testable import ChartCastProtocol

/// The viewport fast path takes plain `viewport` messages and leaves everything else to the
/// generic decoder, and `decode` answers exactly what the generic decoder answers.
final class ViewportFastPathTests: XCTestCase {
    private func assertAgrees(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        FastPathAgreement.assertAgrees(bytes, fast: { ViewportFastPath.decode($0, limits: .v1) }, file: file, line: line)
    }

    func testPlainViewportMessagesTakeTheFastPathAndDecodeAsTheGenericDecoderDoes() {
        let taken: [(String, ClientMessage.ViewportReport)] = [
            (#"{"type":"viewport","chart":"sales","plot":{"x":48,"y":12,"width":620,"height":280},"rtl":false}"#,
             .init(chart: "sales", viewport: Viewport(x: 48, y: 12, width: 620, height: 280, rtl: false))),
            (#"{"type":"viewport","chart":"s","plot":{"x":0,"y":-0,"width":0.5,"height":1e3}}"#,
             .init(chart: "s", viewport: Viewport(x: 0, y: 0, width: 0.5, height: 1000, rtl: false))),
            (" { \"rtl\" : true , \"plot\" : { \"height\" : 2 , \"width\" : 3 , \"y\" : 4 , \"x\" : 5 , \"dpr\" : 2 } , \"chart\" : \"c\" , \"type\" : \"viewport\" } ",
             .init(chart: "c", viewport: Viewport(x: 5, y: 4, width: 3, height: 2, rtl: true))),
            (#"{"type":"viewport","chart":"c","extra":null,"n":-1.5e2,"s":"t","plot":{"x":1,"y":2,"width":3,"height":4,"note":"n","f":false}}"#,
             .init(chart: "c", viewport: Viewport(x: 1, y: 2, width: 3, height: 4, rtl: false))),
            (#"{"type":"viewport","chart":"c","plot":{"x":-1000000,"y":1e6,"width":1000000,"height":1}}"#,
             .init(chart: "c", viewport: Viewport(x: -1_000_000, y: 1_000_000, width: 1_000_000, height: 1, rtl: false))),
        ]
        for (text, expected) in taken {
            let bytes = Array(text.utf8)
            XCTAssertEqual(ViewportFastPath.decode(bytes, limits: .v1), .viewport(expected), text)
            assertAgrees(bytes)
        }
    }

    func testAnythingButThePlainShapeIsLeftToTheGenericDecoder() {
        let left = [
            #"{"type":"viewport","chart":"c","plot":{"x":1,"y":2,"width":0,"height":4}}"#,        // not positive
            #"{"type":"viewport","chart":"c","plot":{"x":1,"y":2,"width":3,"height":-4}}"#,
            #"{"type":"viewport","chart":"c","plot":{"x":1,"y":2,"width":3}}"#,                  // a side missing
            #"{"type":"viewport","chart":"c"}"#,                                                  // no plot
            #"{"type":"viewport","plot":{"x":1,"y":2,"width":3,"height":4}}"#,                   // no chart
            #"{"type":"viewport","chart":"c","plot":[1,2,3,4]}"#,                                // plot not an object
            #"{"type":"viewport","chart":"c","plot":{"x":"1","y":2,"width":3,"height":4}}"#,     // wrong kinds
            #"{"type":"viewport","chart":"c","plot":{"x":null,"y":2,"width":3,"height":4}}"#,
            #"{"type":"viewport","chart":5,"plot":{"x":1,"y":2,"width":3,"height":4}}"#,
            #"{"type":"viewport","chart":"c","plot":{"x":1,"y":2,"width":3,"height":4},"rtl":"yes"}"#,
            #"{"type":"viewport","chart":"c","plot":{"x":1,"y":2,"width":3,"height":4},"rtl":null}"#,
            #"{"type":"viewport","chart":"c","plot":{"x":1,"y":2,"width":3,"height":4},"rtl":1}"#,
            #"{"type":"viewport","chart":"c","plot":{"x":1,"x":9,"y":2,"width":3,"height":4}}"#,  // repeated members
            #"{"type":"viewport","chart":"c","chart":"d","plot":{"x":1,"y":2,"width":3,"height":4}}"#,
            #"{"type":"viewport","chart":"c","plot":{"x":1,"y":2,"width":3,"height":4},"plot":{"x":1,"y":2,"width":3,"height":4}}"#,
            #"{"type":"viewport","chart":"c","plot":{"x":1,"y":2,"width":3,"height":4},"rtl":true,"rtl":false}"#,
            #"{"type":"viewport","chart":"c","plot":{"x":1e400,"y":2,"width":3,"height":4}}"#,  // not finite
            #"{"type":"viewport","chart":"c","plot":{"x":1000001,"y":2,"width":3,"height":4}}"#, // out of range
            #"{"type":"viewport","chart":"c","plot":{"x":1,"y":2,"width":3,"height":4,"inner":{}}}"#,  // deeper nesting
            #"{"type":"viewport","chart":"c","meta":[1],"plot":{"x":1,"y":2,"width":3,"height":4}}"#,
            #"{"type":"viewport","chart":"ventes-été","plot":{"x":1,"y":2,"width":3,"height":4}}"#,    // non-ASCII
            #"{"type":"viewport","chart":"a\"b","plot":{"x":1,"y":2,"width":3,"height":4}}"#,          // escapes
            #"{"type":"v\u0069ewport","chart":"c","plot":{"x":1,"y":2,"width":3,"height":4}}"#,
            #"{"type":"viewport","chart":"c","plot":{"x":01,"y":2,"width":3,"height":4}}"#,            // not JSON
            #"{"type":"viewport","chart":"c","plot":{"x":1,"y":2,"width":3,"height":4,}}"#,
            #"{"type":"viewport","chart":"c","plot":{"x":1,"y":2,"width":3,"height":4}} x"#,
            #"{"type":"viewport","chart":"c","plot":{"x":1,"y":2,"width":3,"height":4}"#,
            #"{"type":"pointer","chart":"c","plot":{"x":1,"y":2,"width":3,"height":4}}"#,              // another type
            #"{"type":"viewport","chart":"c","plot":{}}"#, "{}", "[]", "", "null",
        ]
        for text in left {
            let bytes = Array(text.utf8)
            XCTAssertNil(ViewportFastPath.decode(bytes, limits: .v1), text)
            assertAgrees(bytes)
        }
    }

    /// Thousands of near-misses of a viewport message: the fast path never accepts what the
    /// generic decoder refuses nor decodes anything differently.
    func testMutatedViewportMessagesDecodeTheSameEitherWay() {
        let base = Array(#"{"type":"viewport","chart":"sales","plot":{"x":48.5,"y":-1.2e1,"width":620,"height":280,"k":1},"rtl":false,"z":"q"}"#.utf8)
        var taken = 0
        for bytes in FastPathAgreement.mutations(of: base, count: 20_000, seed: 2026_12_03) {
            if ViewportFastPath.decode(bytes, limits: .v1) != nil { taken += 1 }
            assertAgrees(bytes)
        }
        XCTAssertGreaterThan(taken, 1_000, "the mutations keep many messages plain (the fast path is exercised)")
    }
}
