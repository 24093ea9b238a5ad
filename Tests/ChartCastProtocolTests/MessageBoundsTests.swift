import ChartEngine
import XCTest
@testable import ChartCastProtocol

/// The largest messages the limits allow — every count at its maximum, every number at its
/// longest, every name made of characters JSON escapes six-fold — fit
/// `ProtocolLimits.largestMessageBytes`, the bound docs/protocol.md states.
final class MessageBoundsTests: XCTestCase {
    private let limits = ProtocolLimits.v1
    /// The longest number the writer prints (24 characters).
    private let long = -Double.leastNormalMagnitude
    /// Characters JSON writes as `\u00XX`: six bytes for one.
    private let sixFold: [Character] = (1..<0x20).filter { ![0x09, 0x0A, 0x0D].contains($0) }
        .map { Character(Unicode.Scalar(UInt8($0))) }

    /// A distinct name of `length` six-fold characters (number `k`).
    private func name(_ k: Int, length: Int) -> String {
        var tail = "", rest = k
        for _ in 0..<3 {
            tail.append(sixFold[rest % sixFold.count])
            rest /= sixFold.count
        }
        return String(repeating: "\u{1}", count: length - 3) + tail
    }

    private var seriesNames: [String] { (0..<ChartSpec.maxSeries).map { name($0, length: ChartSpec.maxTextLength) } }

    /// 1,000 categories of six-fold characters, exactly `maxCategoryBytes` in all: the first 40
    /// as long as a name may be (what a selection repeats), the others 26 and 25 long.
    private var categoryNames: [String] {
        (0..<ChartSpec.maxCategories).map { name($0, length: $0 < 40 ? ChartSpec.maxTextLength : $0 < 808 ? 26 : 25) }
    }

    private func selection(_ x: (Int) -> XValue) -> Selection {
        let values = seriesNames.map { SeriesValue(series: $0, y: long) }
        let by = "v\(Int.max)"
        return Selection(
            hovers: (0..<limits.maxHovers).map { Hover(by: by, x: x($0), fraction: long, placement: .trailing, values: values) },
            scrub: Scrub(by: by, x: x(0), values: values, fraction: long, yFraction: long),
            range: RangeSelection(by: by, from: x(0), to: x(1), fromFraction: long, toFraction: long, count: Int(Int32.max),
                                  totals: seriesNames.map { SeriesTotals(series: $0, count: Int(Int32.max), sum: long, min: long,
                                                                         max: long, mean: long) },
                                  rows: (0..<limits.maxRangeRows).map { SeriesPoint(series: seriesNames[$0 % 32], x: x($0), y: long) },
                                  truncated: true),
            pin: Pin(by: by, x: x(0), values: values, fraction: long))
    }

    func testTheLargestSpecIsAcceptedByTheSchemaAndItsChartMessageIsBounded() throws {
        let text = name(0, length: ChartSpec.maxTextLength)
        let spec = ChartSpec(id: String(repeating: "i", count: ChartSpec.maxIDLength), title: text, mark: .bar, xKind: .category,
                             xLabel: text, yLabel: text, series: seriesNames, categories: categoryNames,
                             interactions: ChartSpec.defaultInteractions(for: .category),
                             fixedYDomain: long...(-long), retentionSeconds: 3_650 * 86_400)
        XCTAssertEqual(try ChartSpec.parse(spec.encoded()), spec, "the schema takes it: the worst case is reachable")
        var tooMany = spec
        tooMany.categories[0] += "x"
        XCTAssertThrowsError(try ChartSpec.parse(tooMany.encoded()), "one byte more of categories is refused")
        let bytes = ServerMessage.chart(spec).encode().count
        XCTAssertLessThanOrEqual(bytes, 256 << 10, "\(bytes) bytes")
    }

    func testTheLargestSnapshotOfATimeChartFitsTheBound() throws {
        let perSeries = 4 * limits.snapshotColumns(forPlot: .max, series: ChartSpec.maxSeries)
        XCTAssertEqual(perSeries * ChartSpec.maxSeries, limits.maxMessagePoints)
        let points = [DataPoint](repeating: DataPoint(x: .number(long), y: long), count: perSeries)
        let snapshot = ServerMessage.Snapshot(chart: String(repeating: "i", count: 64), seq: .max,
                                              x: XAxis(kind: .linear, domain: .numeric(long, -long)), y: long...(-long),
                                              series: seriesNames.map { SeriesData(name: $0, points: points) },
                                              selection: selection { _ in .number(self.long) }, view: long...(-long))
        let bytes = ServerMessage.snapshot(snapshot).encode().count
        XCTAssertLessThanOrEqual(bytes, ProtocolLimits.largestMessageBytes, "\(bytes) bytes")
        let selectionBytes = ServerMessage.selection(.init(chart: snapshot.chart, seq: .max, ref: String(repeating: "r", count: 64),
                                                           selection: snapshot.selection)).encode().count
        XCTAssertLessThanOrEqual(selectionBytes, 2 << 20, "\(selectionBytes) bytes")
    }

    func testTheLargestSnapshotOfACategoryChartFitsTheBound() throws {
        let categories = categoryNames
        XCTAssertEqual(categories.reduce(0) { $0 + $1.utf8.count }, ChartSpec.maxCategoryBytes)
        let points = categories.map { DataPoint(x: .category($0), y: long) }
        let snapshot = ServerMessage.Snapshot(chart: String(repeating: "i", count: 64), seq: .max,
                                              x: XAxis(kind: .category, domain: .categories(categories)), y: long...(-long),
                                              series: seriesNames.map { SeriesData(name: $0, points: points) },
                                              selection: selection { .category(categories[$0 % 40]) })
        let bytes = ServerMessage.snapshot(snapshot).encode().count
        XCTAssertLessThanOrEqual(bytes, ProtocolLimits.largestMessageBytes, "\(bytes) bytes")
    }

    func testViewerListsAndErrorsAreSmall() {
        // 64 listed viewers with the longest names JSON escapes (quotes: two bytes each).
        let name = String(repeating: "\"", count: limits.maxNameBytes)
        let list = ServerMessage.viewers(.init(viewers: (0..<64).map { ViewerInfo(id: "v\(Int.max - $0)", name: name, color: "#4e79a7") },
                                               total: .max))
        XCTAssertLessThanOrEqual(list.encode().count, 25_000, "\(list.encode().count) bytes")
        // An error message is cut at 1,000 scalars, whatever produced it.
        let error = ServerMessage.error(ProtocolError(.badPoint, String(repeating: "\u{1}", count: 100_000),
                                                      ref: String(repeating: "r", count: 64)))
        let bytes = error.encode()
        XCTAssertLessThanOrEqual(bytes.count, 6_000 + 128)
        guard case .error(let decoded) = try? ServerMessage.decode(bytes) else { return XCTFail("not an error") }
        XCTAssertEqual(decoded.message.unicodeScalars.count, ProtocolError.maxMessageScalars)
        XCTAssertTrue(decoded.message.hasSuffix("…"))
        let short = ProtocolError(.badPoint, "line 3: field \"user\" is not a number")
        XCTAssertEqual(try ServerMessage.decode(ServerMessage.error(short).encode()), .error(short), "short messages unchanged")
    }
}
