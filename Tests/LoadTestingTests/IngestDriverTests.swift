import ChartCastIngest
import ChartCastProtocol
import ChartEngine
import XCTest
@testable import LoadTesting

/// The publishers' bodies and how viewers time them.
final class IngestDriverTests: XCTestCase {
    func testABatchIsJSONColumnsWithTheSendTimeOnItsFirstX() throws {
        var random: UInt64 = 7
        let body = IngestDriver.columns(firstX: 500, count: 1_000, sentAt: 123_456_789_012_345, random: &random)
        let batch = try JSONPointsParser.parse(body)
        XCTAssertEqual(batch.series, ["t", "v"])
        XCTAssertEqual(batch.count, 1_001, "one t value and a v value per x")
        let spec = ChartSpec(id: "load-ingest-0", title: "i", mark: .line, xKind: .linear, series: ["t", "v"], window: 10_000)
        let validated = try batch.validate(against: spec)
        XCTAssertEqual(validated.rowCount, 1_000)
        XCTAssertEqual(validated.x(row: 0), 500)
        XCTAssertEqual(Array(validated.cells(row: 0)).first?.series, 0)
        XCTAssertEqual(Array(validated.cells(row: 0)).first?.y, 123_456_789_012_345)
    }

    func testAViewerReadsTheSendTimeFromTheAppendWithoutDecodingIt() throws {
        let append = ServerMessage.append(.init(chart: "load-ingest-3", seq: 9, points: [
            SeriesPoint(series: "t", x: .number(500), y: 98_765_432_101_234),
            SeriesPoint(series: "v", x: .number(500), y: 0.25),
        ]))
        let header = try XCTUnwrap(ServerMessageHeader(append.encode()))
        XCTAssertEqual(IngestDriver.sentAt(header), 98_765_432_101_234)
    }

    func testAViewerReadsTheNewestSendTimeFromASnapshotWithoutReadingTheOtherSeries() throws {
        func snapshot(view: ClosedRange<Double>?, series: [SeriesData]) -> ServerMessage {
            .snapshot(.init(chart: "load-ingest-0", seq: 4, x: .init(kind: .linear, domain: .numeric(0, 30_000)), y: 0...100,
                            series: series, selection: .empty, view: view))
        }
        let t = SeriesData(name: "t", points: [DataPoint(x: .number(0), y: 11_000_000_000), DataPoint(x: .number(10_000), y: 12_000_000_000),
                                                DataPoint(x: .number(20_000), y: 13_500_000_000)])
        let v = SeriesData(name: "v", points: (0..<30_000).map { DataPoint(x: .number(Double($0)), y: 0.5) })
        for view in [nil, 5_000.0...25_000] as [ClosedRange<Double>?] {
            let header = try XCTUnwrap(ServerMessageHeader(snapshot(view: view, series: [t, v]).encode()))
            XCTAssertEqual(IngestDriver.newestSentAt(inSnapshot: header), 13_500_000_000, "view \(String(describing: view))")
            XCTAssertEqual(header.leadingSeriesPoints(named: "t"), t.points)
        }
        let otherFirst = try XCTUnwrap(ServerMessageHeader(snapshot(view: nil, series: [v, t]).encode()))
        XCTAssertNil(otherFirst.leadingSeriesPoints(named: "t"), "only the first series is looked at")
        let selection = try XCTUnwrap(ServerMessageHeader(ServerMessage.selection(.init(chart: "c", seq: 1, selection: .empty)).encode()))
        XCTAssertNil(selection.leadingSeriesPoints(named: "t"))
        XCTAssertNil(selection.firstAppendedY)
    }

    func testPublisherOptions() throws {
        let options = try LoadOptions.parse(["--publishers", "4", "--points-per-second", "300000", "--batch-points", "10000",
                                             "--write-token", "t"])
        XCTAssertEqual(options.publishers, 4)
        XCTAssertEqual(options.pointsPerSecond, 300_000)
        XCTAssertEqual(options.batchPoints, 10_000)
        XCTAssertEqual(options.writeToken, "t")
        XCTAssertThrowsError(try LoadOptions.parse(["--mirror", "--publishers", "1"]))
        XCTAssertThrowsError(try LoadOptions.parse(["--batch-points", "0"]))
    }
}
