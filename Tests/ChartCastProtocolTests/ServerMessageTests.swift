import ChartEngine
import XCTest
@testable import ChartCastProtocol

final class ServerMessageTests: XCTestCase {
    private func parse(_ bytes: [UInt8]) throws -> JSONValue { try JSONReader.parse(bytes) }

    private func salesStore() -> ChartStore {
        let spec = ChartSpec(id: "sales", title: "Product sales in 2022", mark: .bar, xKind: .category, xLabel: "Month",
                             yLabel: "Sales", series: ["Ice Cream", "Coffee"], categories: ["January", "February"],
                             interactions: Interactions(hover: true, drag: .none, tap: false), window: nil, xPadding: 0)
        let store = ChartStore(spec: spec)
        store.setValue(1000, series: 0, category: 0)
        store.setValue(1200, series: 0, category: 1)
        store.setValue(1800, series: 1, category: 0)
        store.setValue(2000, series: 1, category: 1)
        return store
    }

    func testChartSpecMatchesTheBriefsShape() throws {
        let json = try parse(ServerMessage.chartSpec(salesStore().spec))
        XCTAssertEqual(json, try JSONReader.parse(#"""
        {"id":"sales","title":"Product sales in 2022","mark":"bar","x":{"kind":"category","label":"Month"},
         "y":{"label":"Sales"},"series":["Ice Cream","Coffee"],"interactions":{"hover":true,"drag":"none","tap":false}}
        """#))
    }

    func testSnapshotCarriesPointsDomainsAndTheSelection() throws {
        let store = salesStore()
        let json = try parse(ServerMessage.snapshot(store: store, seq: 7, xDomain: .categories(["January", "February"]),
                                                    yDomain: (0, 2500), selection: .empty))
        XCTAssertEqual(json["type"]?.string, "snapshot")
        XCTAssertEqual(json["seq"]?.number, 7)
        XCTAssertEqual(json["x"]?["domain"], .array([.string("January"), .string("February")]))
        XCTAssertEqual(json["y"]?["domain"], .array([.number(0), .number(2500)]))
        XCTAssertEqual(json["series"]?[1]?["points"], .array([.array([.string("January"), .number(1800)]),
                                                               .array([.string("February"), .number(2000)])]))
        XCTAssertEqual(json["selection"], try JSONReader.parse(#"{"hovers":[],"scrub":null,"range":null,"pin":null}"#))
    }

    func testSelectionEncodesEveryBodyAndEchoesRef() throws {
        var selection = Selection.empty
        selection.hovers = [Hover(by: "v2", x: .category("March"), fraction: 0.25, placement: .trailing,
                                  values: [SeriesValue(series: "Ice Cream", y: 900), SeriesValue(series: "Coffee", y: nil)])]
        selection.scrub = Scrub(by: "v1", x: .category("Wed"), values: [SeriesValue(series: "Minutes", y: 76)], fraction: 0.5, yFraction: 0.25)
        selection.range = RangeSelection(by: "v3", from: .number(1), to: .number(5), fromFraction: 0.1, toFraction: 0.5, count: 0,
                                         totals: [SeriesTotals(series: "Calories", count: 0, sum: 0, min: nil, max: nil, mean: nil)],
                                         rows: [], truncated: false)
        selection.pin = Pin(by: "v4", x: .number(1_651_363_200_000), values: [SeriesValue(series: "Temperature", y: 36.5)], fraction: 0.75)
        let json = try parse(ServerMessage.selection(chart: "sales", seq: 14, ref: "r-991", selection: selection))
        XCTAssertEqual(json["ref"]?.string, "r-991")
        XCTAssertEqual(json["hovers"]?[0]?["values"]?[1]?["y"], .null)
        XCTAssertEqual(json["hovers"]?[0]?["placement"]?.string, "trailing")
        XCTAssertEqual(json["scrub"]?["yFraction"]?.number, 0.25)
        XCTAssertEqual(json["range"]?["totals"]?[0]?["mean"], .null)
        XCTAssertEqual(json["range"]?["truncated"], .bool(false))
        XCTAssertEqual(json["pin"]?["x"]?.number, 1_651_363_200_000)
        let withoutRef = try parse(ServerMessage.selection(chart: "sales", seq: 15, ref: nil, selection: .empty))
        XCTAssertNil(withoutRef["ref"])
    }

    func testAppendOmitsUnchangedDomains() throws {
        let json = try parse(ServerMessage.append(chart: "intake", kind: .time, seq: 13,
                                                  points: [AppendPoint(series: "Calories", x: .number(1_653_955_200_000), y: 2050)],
                                                  evictBefore: 1_651_536_000_000, xDomain: .numeric(1, 2), yDomain: nil))
        XCTAssertEqual(json["points"]?[0]?["x"]?.number, 1_653_955_200_000)
        XCTAssertEqual(json["evictBefore"]?.number, 1_651_536_000_000)
        XCTAssertEqual(json["x"]?["domain"], .array([.number(1), .number(2)]))
        XCTAssertEqual(json["x"]?["kind"]?.string, "time")
        XCTAssertNil(json["y"])
    }

    func testErrorAndViewers() throws {
        let error = try parse(ServerMessage.error(ProtocolError(.unknownChart, "no chart with id \"salez\"")))
        XCTAssertEqual(error, .object([("type", .string("error")), ("code", .string("unknown_chart")),
                                       ("message", .string("no chart with id \"salez\""))]))
        let viewers = try parse(ServerMessage.viewers([ViewerInfo(id: "v2", name: "Viewer 2", color: "#4e79a7")], total: 1))
        XCTAssertEqual(viewers, try JSONReader.parse(##"{"type":"viewers","viewers":[{"id":"v2","name":"Viewer 2","color":"#4e79a7"}],"total":1}"##))
    }
}
