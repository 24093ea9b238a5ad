import XCTest
@testable import ChartCastProtocol

/// The one rule for viewer names (mirrored by the page's `names.js`).
final class ViewerNameTests: XCTestCase {
    func testTrimsNormalisesAndStripsControlAndBidiCharacters() throws {
        XCTAssertEqual(try ViewerName.normalise("  Ana \r\n"), "Ana")
        XCTAssertEqual(try ViewerName.normalise("A\u{202E}na\u{2066}\u{0007}"), "Ana", "bidi overrides and controls removed")
        XCTAssertEqual(try ViewerName.normalise("Ana\r\nINFO forged line"), "AnaINFO forged line", "no line breaks survive")
        XCTAssertEqual(try ViewerName.normalise("\u{1B}[31mred"), "[31mred", "no ANSI escape reaches a terminal")
        XCTAssertEqual(try ViewerName.normalise("Zoe\u{0308}").unicodeScalars.count, 3, "NFC: e + combining diaeresis is one scalar")
        XCTAssertEqual(try ViewerName.normalise("\u{85}x\u{9F}"), "x", "C1 controls removed")
    }

    func testLimitsScalarsAndBytes() throws {
        XCTAssertEqual(try ViewerName.normalise(String(repeating: "é", count: 40)).count, 40)
        XCTAssertThrowsError(try ViewerName.normalise(String(repeating: "e", count: 41))) { error in
            XCTAssertEqual((error as? ProtocolError)?.code, .badField)
            XCTAssertTrue("\(error)".contains("40 characters"))
        }
        // 40 scalars but 160 bytes: four-byte emoji are allowed up to the byte limit.
        XCTAssertEqual(try ViewerName.normalise(String(repeating: "🐙", count: 40)).utf8.count, 160)
        // A name of combining marks: one grapheme, many scalars and bytes.
        XCTAssertThrowsError(try ViewerName.normalise("a" + String(repeating: "\u{0301}\u{0302}", count: 30)))
        let tight = ProtocolLimits(maxMessageBytes: 65_536, maxNameLength: 40, maxNameBytes: 10, maxRefLength: 64,
                                   messagesPerSecond: 1, messageBurst: 1, maxHovers: 8, maxRangeRows: 500, maxCoordinate: 1)
        XCTAssertThrowsError(try ViewerName.normalise("ééééééé", limits: tight)) { error in
            XCTAssertTrue("\(error)".contains("10 bytes"), "\(error)")
        }
    }

    func testBidiMarksGoAndNFCEquivalentNamesAreEqual() throws {
        XCTAssertEqual(try ViewerName.normalise("\u{200F}Ana\u{200E}"), "Ana")
        XCTAssertEqual(try ViewerName.normalise("Zoe\u{0308}"), try ViewerName.normalise("Zo\u{00EB}"))
        XCTAssertEqual(try ViewerName.normalise("Zoe\u{0308}").unicodeScalars.map(\.value), [0x5A, 0x6F, 0xEB])
        XCTAssertEqual(try ViewerName.normalise("\u{1E9B}\u{0323}"), "\u{1E9B}\u{0323}", "NFC, not NFKC")
    }

    func testA60KBNameOfCombiningMarksIsRefusedByItsLength() {
        // One grapheme cluster of 30,000 combining marks: 60 KB of UTF-8.
        let bomb = "a" + String(repeating: "\u{0301}", count: 30_000)
        XCTAssertEqual(bomb.count, 1)
        XCTAssertGreaterThan(bomb.utf8.count, 60_000)
        XCTAssertThrowsError(try ViewerName.normalise(bomb)) { error in
            XCTAssertEqual((error as? ProtocolError)?.code, .badField)
        }
        // Whatever passes is within both limits.
        let mixed = String(repeating: "\u{1F600}\u{0301}", count: 20)
        if let name = try? ViewerName.normalise(mixed) {
            XCTAssertLessThanOrEqual(name.utf8.count, ProtocolLimits.v1.maxNameBytes)
            XCTAssertLessThanOrEqual(name.unicodeScalars.count, ProtocolLimits.v1.maxNameLength)
        } else {
            XCTAssertGreaterThan(mixed.utf8.count, ProtocolLimits.v1.maxNameBytes, "refused only for being over a limit")
        }
    }

    /// Found by fuzzing (Fuzz/corpus/client-message/crash-name-not-nfc): a removed character
    /// between a letter and a combining mark left the name decomposed, so the name a viewer was
    /// shown changed bytes when normalised again.
    func testNameIsNFCAfterRemovingCharactersBetweenALetterAndItsMark() throws {
        let name = try ViewerName.normalise("e\u{7F}\u{301}e\u{202E}\u{308}")
        XCTAssertEqual(Array(name.utf8), Array("\u{E9}\u{EB}".utf8), "é and ë, each one precomposed scalar")
        let sample = "  e\u{7F}\u{7F}\u{301}e\u{301}\u{85}\u{301} \u{2066}Zo\u{202A}\u{308} "
        let once = try ViewerName.normalise(sample)
        XCTAssertEqual(Array(try ViewerName.normalise(once).utf8), Array(once.utf8), "normalising twice changes no byte")
    }

    func testRefusesWhatIsEmptyAfterCleaning() {
        XCTAssertThrowsError(try ViewerName.normalise("\u{202E}\r\n \t"))
    }
}
