import ChartEngine
@testable import ChartCastProtocol

/// One instance of every message of protocol v1, both directions, with every optional member
/// both present and absent, for the round-trip tests.
enum ProtocolSamples {
    static let fullSelection: Selection = {
        var selection = Selection.empty
        selection.hovers = [Hover(by: "v2", x: .category("March"), fraction: 0.25, placement: .trailing,
                                  values: [SeriesValue(series: "Ice Cream", y: 900), SeriesValue(series: "Coffee", y: nil)]),
                            Hover(by: "v5", x: .number(-12.5), fraction: 0.75, placement: .leading, values: [])]
        selection.scrub = Scrub(by: "v1", x: .category("Wed"), values: [SeriesValue(series: "Minutes", y: 76)],
                                fraction: 0.5, yFraction: 0.25)
        selection.range = RangeSelection(by: "v3", from: .number(1), to: .number(5), fromFraction: 0.1, toFraction: 0.5, count: 1,
                                         totals: [SeriesTotals(series: "Calories", count: 1, sum: 2050, min: 2050, max: 2050, mean: 2050),
                                                  SeriesTotals(series: "Empty", count: 0, sum: 0, min: nil, max: nil, mean: nil)],
                                         rows: [SeriesPoint(series: "Calories", x: .number(2), y: 2050)], truncated: true)
        selection.pin = Pin(by: "v4", x: .number(1_651_363_200_000), values: [SeriesValue(series: "Temperature", y: 36.57)],
                            fraction: 1.0 / 3)
        return selection
    }()

    static let specs: [ChartSpec] = [
        ChartSpec(id: "sales", title: "Product sales in 2022", mark: .bar, xKind: .category, xLabel: "Month",
                  yLabel: "Sales", series: ["Ice Cream", "Coffee"], categories: ["January", "February", "März"], interactions: Interactions(hover: true, drag: .none, tap: false)),
        ChartSpec(id: "cpu.load-1", title: "CPU \"load\" ⚙︎", mark: .line, xKind: .time, series: [],
                  interactions: Interactions(hover: true, drag: .range, tap: true), window: 1_000_000, fixedYDomain: -1.5...100),
        ChartSpec(id: "lin", title: "Linear", mark: .point, xKind: .linear, series: ["a"],
                  interactions: Interactions(hover: false, drag: .scrub, tap: false), window: 50,
                  retentionSeconds: 7 * 86_400),
        ChartSpec(id: "a_1", title: "Area", mark: .area, xKind: .time, series: ["in", "out"], window: 1,
                  retentionSeconds: 90),
    ]

    static let client: [ClientMessage] = [
        .hello(.init(name: "Ana")),
        .hello(.init(name: "Zoë 🐙", ref: "name-1")),
        .viewport(.init(chart: "sales", viewport: Viewport(x: 48, y: 12.5, width: 620, height: 280, rtl: true))),
        .viewport(.init(chart: "s", viewport: Viewport(x: -3, y: 0, width: 0.5, height: 1e6))),
        .pointer(.init(chart: "sales", phase: .down, x: 130.5, y: 90)),
        .pointer(.init(chart: "sales", phase: .move, x: -1e6, y: 1e-3, ref: "r-991")),
        .pointer(.init(chart: "sales", phase: .up, x: 0, y: 0, ref: "")),
        .pointer(.init(chart: "sales", phase: .leave, x: 1, y: 2)),
        .publish(.init(chart: "cpu", points: [.init(series: "user", x: .number(1_733_011_200_000), y: 12.5),
                                              .init(series: "system", x: .category("2024-12-01T00:00:00Z"), y: nil)], ref: "p1")),
        .publish(.init(chart: "c", points: [])),
        .view(.init(chart: "cpu", domain: 1_733_011_200_000...1_733_014_800_000, ref: "z-1")),
        .view(.init(chart: "lin", domain: -0.5...1e-3)),
        .view(.init(chart: "cpu", domain: nil)),
        .view(.init(chart: "cpu", domain: nil, ref: "live-2")),
    ] + [KeyCommand.left, .right, .home, .end, .enter, .escape].enumerated().map { i, command in
        .key(.init(chart: "temperature", command: command, shift: i % 2 == 0, ref: i % 3 == 0 ? nil : "k-\(i)"))
    }

    static let server: [ServerMessage] = [
        .welcome(.init(viewer: ViewerInfo(id: "v3", name: "Viewer 3", color: "#e15759"), charts: specs)),
        .welcome(.init(viewer: ViewerInfo(id: "v1", name: "A", color: ""), charts: [])),
        .snapshot(.init(chart: "sales", seq: 7, x: XAxis(kind: .category, domain: .categories(["January", "February"])),
                        y: 0...2500, series: [SeriesData(name: "Coffee", points: [DataPoint(x: .category("January"), y: 1800)]),
                                              SeriesData(name: "Empty", points: [])],
                        selection: fullSelection)),
        .snapshot(.init(chart: "intake", seq: 0, x: XAxis(kind: .time, domain: .numeric(1_651_320_000_000, 1_653_912_000_000)),
                        y: -0.25...1, series: [SeriesData(name: "Calories", points: [DataPoint(x: .number(1_651_363_200_000), y: 0.1)])],
                        selection: .empty)),
        .snapshot(.init(chart: "cpu", seq: 99, x: XAxis(kind: .time, domain: .numeric(1_733_011_200_000, 1_733_014_800_000)),
                        y: 0...100, series: [SeriesData(name: "user", points: [DataPoint(x: .number(1_733_011_260_000), y: 12.5)])],
                        selection: fullSelection, view: 1_733_011_200_000...1_733_014_800_000)),
        .append(.init(chart: "intake", seq: 13, points: [SeriesPoint(series: "Calories", x: .number(1_653_955_200_000), y: 2050)],
                      evictBefore: 1_651_536_000_000, x: XAxis(kind: .linear, domain: .numeric(-1, 1)), y: 0...2200)),
        .append(.init(chart: "workouts", seq: 2, points: [SeriesPoint(series: "Minutes", x: .category("Sun"), y: 12)])),
        .selection(.init(chart: "sales", seq: 14, ref: "r-991", selection: fullSelection)),
        .selection(.init(chart: "sales", seq: 15, selection: .empty)),
        .viewers(.init(viewers: [ViewerInfo(id: "v2", name: "Viewer 2", color: "#4e79a7"),
                                 ViewerInfo(id: "v9", name: "\u{1F600} \"q\"\\", color: "#000")], total: 70)),
        .viewers(.init(viewers: [])),
        .chart(specs[1]),
        .chartRemoved("cpu.load-1"),
        .ack(.init(ref: "p1", seq: 42, accepted: 1)),
        .ack(.init(ref: nil, seq: 0, accepted: 0)),
    ] + ErrorCode.allCases.map { .error(ProtocolError($0, "why \($0)", ref: $0 == .badField ? "name-3" : nil)) }
}
