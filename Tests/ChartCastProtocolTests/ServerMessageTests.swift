import ChartEngine
import XCTest
@testable import ChartCastProtocol

/// The exact wire format of server messages (JSON text appears here on purpose: these tests pin
/// protocol v1 as outside clients see it).
final class ServerMessageTests: XCTestCase {
    private func json(_ message: ServerMessage) throws -> JSONValue { try JSONReader.parse(message.encode()) }

    static let salesSpec = ChartSpec(id: "sales", title: "Product sales in 2022", mark: .bar, xKind: .category,
                                     xLabel: "Month", yLabel: "Sales", series: ["Ice Cream", "Coffee"],
                                     categories: ["January", "February"],
                                     interactions: Interactions(hover: true, drag: .none, tap: false))

    func testChartSpecMatchesTheBriefsShape() throws {
        XCTAssertEqual(try JSONReader.parse(Self.salesSpec.encoded()), try JSONReader.parse(#"""
        {"id":"sales","title":"Product sales in 2022","mark":"bar","x":{"kind":"category","label":"Month","categories":["January","February"]},
         "y":{"label":"Sales"},"series":["Ice Cream","Coffee"],"interactions":{"hover":true,"drag":"none","tap":false},"retention":"0"}
        """#))
        let cpu = ChartSpec(id: "cpu", title: "CPU load", mark: .line, xKind: .time, xLabel: "Time", yLabel: "%",
                            series: ["user", "system"], interactions: Interactions(hover: true, drag: .range, tap: true),
                            window: 600, fixedYDomain: 0...100, retentionSeconds: 7 * 86_400)
        XCTAssertEqual(try JSONReader.parse(cpu.encoded()), try JSONReader.parse(#"""
        {"id":"cpu","title":"CPU load","mark":"line","x":{"kind":"time","label":"Time"},"y":{"label":"%","domain":[0,100]},
         "series":["user","system"],"interactions":{"hover":true,"drag":"range","tap":true},"window":600,"retention":"7d"}
        """#), "the data API's example spec")
    }

    func testWelcomeAnnouncesTheViewerTheChartsAndTheLimits() throws {
        let welcome = ServerMessage.welcome(.init(viewer: ViewerInfo(id: "v3", name: "Viewer 3", color: "#e15759"),
                                                  charts: [Self.salesSpec]))
        let value = try json(welcome)
        XCTAssertEqual(value["type"]?.string, "welcome")
        XCTAssertEqual(value["protocol"]?.number, 1)
        XCTAssertEqual(value["viewer"]?.string, "v3")
        XCTAssertEqual(value["charts"]?[0]?["id"]?.string, "sales")
        XCTAssertEqual(value["limits"], try JSONReader.parse(#"""
        {"maxMessageBytes":65536,"maxNameLength":40,"maxNameBytes":160,"maxRefLength":64,"messagesPerSecond":240,
         "messageBurst":480,"maxHovers":8,"maxRangeRows":500,"maxCoordinate":1000000,
         "maxSnapshotColumns":8192,"maxMessagePoints":131072}
        """#))
    }

    func testSnapshotCarriesPointsDomainsAndTheSelection() throws {
        let snapshot = ServerMessage.Snapshot(
            chart: "sales", seq: 7, x: XAxis(kind: .category, domain: .categories(["January", "February"])), y: 0...2500,
            series: [SeriesData(name: "Coffee", points: [DataPoint(x: .category("January"), y: 1800),
                                                         DataPoint(x: .category("February"), y: 2000)])],
            selection: .empty)
        XCTAssertEqual(String(decoding: ServerMessage.snapshot(snapshot).encode(), as: UTF8.self), #"""
        {"type":"snapshot","chart":"sales","seq":7,"x":{"kind":"category","domain":["January","February"]},"y":{"domain":[0,2500]},"selection":{"hovers":[],"scrub":null,"range":null,"pin":null},"series":[{"name":"Coffee","points":[["January",1800],["February",2000]]}]}
        """#)
    }

    func testSelectionEncodesEveryBodyAndEchoesRef() throws {
        let value = try json(.selection(.init(chart: "sales", seq: 14, ref: "r-991", selection: ProtocolSamples.fullSelection)))
        XCTAssertEqual(value["ref"]?.string, "r-991")
        XCTAssertEqual(value["hovers"]?[0]?["values"]?[1]?["y"], .null)
        XCTAssertEqual(value["hovers"]?[0]?["placement"]?.string, "trailing")
        XCTAssertEqual(value["scrub"]?["yFraction"]?.number, 0.25)
        XCTAssertEqual(value["range"]?["totals"]?[0]?["mean"]?.number, 2050)
        XCTAssertEqual(value["range"]?["totals"]?[1]?["mean"], .null, "an empty series has no mean")
        XCTAssertEqual(value["range"]?["rows"]?[0], try JSONReader.parse(#"{"series":"Calories","x":2,"y":2050}"#))
        XCTAssertEqual(value["range"]?["truncated"], .bool(true))
        XCTAssertEqual(value["pin"]?["x"]?.number, 1_651_363_200_000)
        XCTAssertNil(try json(.selection(.init(chart: "sales", seq: 15, selection: .empty)))["ref"])
    }

    func testAppendOmitsUnchangedDomains() throws {
        let append = ServerMessage.Append(chart: "intake", seq: 13,
                                          points: [SeriesPoint(series: "Calories", x: .number(1_653_955_200_000), y: 2050)],
                                          evictBefore: 1_651_536_000_000, x: XAxis(kind: .time, domain: .numeric(1, 2)))
        XCTAssertEqual(String(decoding: ServerMessage.append(append).encode(), as: UTF8.self), #"""
        {"type":"append","chart":"intake","seq":13,"points":[{"series":"Calories","x":1653955200000,"y":2050}],"evictBefore":1651536000000,"x":{"kind":"time","domain":[1,2]}}
        """#)
    }

    func testErrorEchoesRefOnlyWhenThereIsOne() throws {
        XCTAssertEqual(String(decoding: ServerMessage.error(ProtocolError(.unknownChart, "no chart with id \"salez\"")).encode(), as: UTF8.self),
                       #"{"type":"error","code":"unknown_chart","message":"no chart with id \"salez\""}"#)
        XCTAssertEqual(try json(.error(ProtocolError(.badField, "field \"name\" is too long", ref: "name-2")))["ref"]?.string, "name-2")
    }

    func testViewers() throws {
        let list = ServerMessage.ViewerList(viewers: [ViewerInfo(id: "v2", name: "Viewer 2", color: "#4e79a7")], total: 1)
        XCTAssertEqual(String(decoding: ServerMessage.viewers(list).encode(), as: UTF8.self),
                       ##"{"type":"viewers","viewers":[{"id":"v2","name":"Viewer 2","color":"#4e79a7"}],"total":1}"##)
    }

    func testChartListIsTheSpecsUnderCharts() throws {
        let bytes = ChartSpec.encodeList([Self.salesSpec])
        XCTAssertEqual(try JSONReader.parse(bytes)["charts"]?[0], try JSONReader.parse(Self.salesSpec.encoded()))
        XCTAssertEqual(try ChartSpec.decodeList(bytes), [Self.salesSpec])
    }
}
