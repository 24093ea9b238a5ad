import ChartCastDemo
import XCTest

/// The project's one seeded generator is SplitMix64 as published (Vigna's reference outputs),
/// so the demo data, the soak's choices, the benches' data and the property tests built on it
/// repeat on every machine and run.
final class SplitMix64Tests: XCTestCase {
    func testSeedZeroGivesTheReferenceSequence() {
        var random = SplitMix64(seed: 0)
        XCTAssertEqual((0..<3).map { _ in random.next() }, [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F])
    }

    func testBoundedAndUnitValuesComeFromTheSameSequence() {
        var random = SplitMix64(seed: 0)
        var again = SplitMix64(seed: 0)
        XCTAssertEqual(random.next(upperBound: 1_000), Int(again.next() % 1_000))
        let unit = random.unit()
        XCTAssertEqual(unit, Double(again.next() >> 11) / Double(1 << 53))
        XCTAssertTrue((0..<10_000).allSatisfy { _ in (0..<1).contains(random.unit()) }, "unit() is in [0, 1)")
    }
}
