import XCTest
import ChartCastDemo
import ChartEngine
@testable import ChartCastIngest

/// Random damage to valid bodies: every parser must return a batch or throw an `IngestError`
/// (a crash or another error type fails the test), and what parses must validate or throw
/// `IngestError` too. A smoke test in the spirit of the fuzzers that will run on these parsers.
final class RobustnessTests: XCTestCase {
    private let seeds: [(String, [UInt8])] = [
        ("json", bytes(#"{"points":[{"series":"user","x":1733011200000,"y":12.5},{"series":"s\u00e9","x":"Mon","y":null}],"k":[{"a":[1,-2e3,true]}]}"#)),
        ("json", bytes("{\"x\":[1,\"2024-12-01T00:00:00Z\",\"Tue\"],\n\"series\":{\"user\":[1,null,3],\"sys\":[4,5,6]}}")),
        ("csv", bytes("x,user,\"sys, \"\"2\"\"\"\r\n1,2,3\r\n\"Mon\nx\",,4\n2024-12-01T00:00:00Z,1e3,-.5\n")),
        ("lp", bytes("# c\ncpu,host=a\\ b,z=1 user=1.5,sys=2i 1733011200000000000\nmem free=3u\ncpu user=\"s\" 1\n")),
    ]

    func testRandomlyDamagedBodiesNeverEscapeAsAnythingButIngestError() {
        var random = SplitMix64(seed: 0x5EED)
        let alphabet = bytes("{}[]\",:\\ \n\r\t=#-+.eE0123456789aNIxuty") + [0x00, 0x80, 0xC3, 0xFF, 0xED, 0xA0]
        let specs = [timeSpec(), linearSpec(series: ["user"]), categorySpec(series: ["user"])]
        for round in 0..<20_000 {
            let (format, seed) = seeds[round % seeds.count]
            var body = seed
            for _ in 0...(random.next() % 4) {
                let k = Int(random.next() % UInt64(body.count + 1))
                switch random.next() % 4 {
                case 0 where k < body.count: body[k] = alphabet[Int(random.next() % UInt64(alphabet.count))]
                case 1: body.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: k)
                case 2 where k < body.count: body.remove(at: k)
                default: body = Array(body.prefix(k))
                }
            }
            do {
                let batches: [PointBatch]
                switch format {
                case "json": batches = [try JSONPointsParser.parse(body)]
                case "csv": batches = [try CSVPointsParser.parse(body)]
                default: batches = try LineProtocolParser.parse(body, receivedAt: 1).charts.map(\.points)
                }
                for batch in batches {
                    for k in 0..<batch.count { XCTAssertTrue(batch[k].y.isFinite) }
                    for spec in specs {
                        do { _ = try batch.validate(against: spec) } catch is IngestError {}
                    }
                }
            } catch is IngestError {
            } catch {
                XCTFail("\(format) round \(round): \(error)")
            }
        }
    }

    func testRandomGzipDamageIsBadRequestOrTheBody() {
        var random = SplitMix64(seed: 42)
        let plain = bytes(String(repeating: "cpu user=1 1\n", count: 200))
        let good = Gzip.compress(plain)
        for _ in 0..<2_000 {
            var body = good
            body[Int(random.next() % UInt64(body.count))] ^= UInt8(truncatingIfNeeded: random.next() | 1)
            do {
                let inflated = try Gzip.inflate(body, limit: 10_000)
                XCTAssertEqual(inflated, plain, "a damaged stream inflates only to the body (a header byte no check covers)")
            } catch let error as IngestError {
                XCTAssertNotEqual(error.code, .badPoint)
            } catch {
                XCTFail("\(error)")
            }
        }
    }
}
