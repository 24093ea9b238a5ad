import ChartCastDemo
import XCTest
@testable import ChartCastProtocol

/// What the fast-path tests share: a decode's outcome as a value, the check that `decode`, the
/// generic decoder and one fast path agree on some bytes, and seeded near-misses of a message.
enum FastPathAgreement {
    static func outcome(_ result: () throws -> ClientMessage) -> Result<ClientMessage, ProtocolError> {
        do { return .success(try result()) } catch let error as ProtocolError { return .failure(error) } catch {
            XCTFail("unexpected error \(error)")
            return .failure(ProtocolError(.badJSON, "\(error)"))
        }
    }

    /// `decode` answers what `decodeGeneric` answers on `bytes`, and what `fast` takes the generic
    /// decoder decodes the same.
    static func assertAgrees(_ bytes: [UInt8], fast: ([UInt8]) -> ClientMessage?,
                             file: StaticString = #filePath, line: UInt = #line) {
        let text = String(decoding: bytes, as: UTF8.self)
        let generic = outcome { try ClientMessage.decodeGeneric(bytes) }
        XCTAssertEqual(outcome { try ClientMessage.decode(bytes) }, generic, "decode and decodeGeneric differ on \(text)",
                       file: file, line: line)
        if let taken = fast(bytes) {
            XCTAssertEqual(generic, .success(taken), "the fast path took \(text) but the generic decoder says otherwise",
                           file: file, line: line)
        }
    }

    /// `count` copies of `base` with one to three bytes replaced, inserted or removed, drawn from
    /// JSON's own punctuation and a few bytes no plain message has (seeded: the same every run).
    static func mutations(of base: [UInt8], count: Int, seed: UInt64) -> [[UInt8]] {
        let alphabet = Array(#"{}[]":,.-+eE0123456789 \nabcdefnrstuxy"#.utf8) + [0x5C, 0x7F, 0xC3, 0xA9, 0x00]
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            var bytes = base
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                let byte = alphabet.randomElement(using: &random)!
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[at] = byte
                case 1: bytes.insert(byte, at: at)
                default: if bytes.count > 1 { bytes.remove(at: at) }
                }
            }
            return bytes
        }
    }
}
