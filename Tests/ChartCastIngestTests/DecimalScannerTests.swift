import XCTest
@testable import ChartCastIngest

final class DecimalScannerTests: XCTestCase {
    private func scan(_ text: String, _ grammar: DecimalScanner.Grammar) -> Double? {
        let b = bytes(text)
        return b.withUnsafeBufferPointer { p in
            guard let (value, end) = DecimalScanner.scan(p, from: 0, grammar: grammar), end == p.count else { return nil }
            return value
        }
    }

    func testGrammars() {
        let cases: [(String, Double?, Double?)] = [  // text, JSON, lenient
            ("0", 0, 0), ("-0", -0.0, -0.0), ("12.5", 12.5, 12.5), ("1e3", 1000, 1000), ("1E-3", 0.001, 0.001),
            ("+1", nil, 1), (".5", nil, 0.5), ("5.", nil, 5), ("01", nil, 1), ("-", nil, nil), ("", nil, nil),
            ("1e", nil, nil), ("1e+", nil, nil), (".", nil, nil), ("0.000001", 1e-6, 1e-6),
            ("123456789012345678901234567890", 1.2345678901234568e29, 1.2345678901234568e29),
            ("1e400", .infinity, .infinity), ("-1e400", -.infinity, -.infinity), ("1e-400", 0, 0),
            ("1e99999999999999999999", .infinity, .infinity),
        ]
        for (text, json, lenient) in cases {
            XCTAssertEqual(scan(text, .json), json, "json \(text)")
            XCTAssertEqual(scan(text, .lenient), lenient, "lenient \(text)")
        }
    }

    func testTheFastPathAgreesWithTheStandardLibraryOnRandomLiterals() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let value = Double.random(in: -1e6...1e6, using: &generator)
            for text in [value.description, String(Int64(value)), "\(Int64(value))e\(Int.random(in: -25...25))",
                         String(format6(value))] {
                XCTAssertEqual(scan(text, .lenient), Double(text), text)
            }
        }
    }

    private func format6(_ value: Double) -> String {
        let scaled = Int64((value * 1_000_000).rounded())
        let sign = scaled < 0 ? "-" : ""
        let magnitude = scaled.magnitude
        let fraction = String(magnitude % 1_000_000)
        return "\(sign)\(magnitude / 1_000_000).\(String(repeating: "0", count: 6 - fraction.count))\(fraction)"
    }
}
