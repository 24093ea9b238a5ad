import ChartCastDemo
import ChartCastIngest
import ChartCastProtocol
import ChartEngine
import TestSupport
import WebSockets
import XCTest
@testable import ChartCastServer

/// A server core with big time charts and viewers to watch them, for the downsampling and zoom
/// tests: charts filled with random walks, viewers opened and drained, and the check that a
/// snapshot draws the raw picture.
final class BigCharts {
    let harness = CoreHarness(dashboard: Dashboard(title: "Big", charts: []))
    private var nextID = 1_000
    static let t0 = 1_733_011_200_000.0

    /// A random walk with flat runs and spikes, per series.
    static func walk(_ n: Int, seed: UInt64) -> [Double] {
        var random = SplitMix64(seed: seed)
        var y = 50.0
        return (0..<n).map { _ in
            let r = random.unit()
            if r < 0.002 { y += (random.unit() - 0.5) * 80 } else if r > 0.2 { y += random.unit() - 0.5 }
            return (y * 100).rounded() / 100
        }
    }

    /// Defines a time line chart holding `rows` rows, one second apart, of each series; returns
    /// its x and y columns. All rows but the last go into the chart's store directly (a million
    /// rows through the write path take half a minute in a debug build; `DataAPITests` covers
    /// that path); the last is written through it, which brings the chart's domains, `seq` and
    /// live edge up to date.
    @discardableResult
    func bigChart(_ id: String, rows: Int, series: [String] = ["a", "b"], window: Int = 1_000_000,
                  retentionSeconds: Int = 0) throws -> (xs: [Double], ys: [[Double]]) {
        let spec = ChartSpec(id: id, title: id, mark: .line, xKind: .time, series: series,
                             interactions: ChartSpec.defaultInteractions(for: .time), window: window, retentionSeconds: retentionSeconds)
        XCTAssertEqual(try harness.api("PUT", "/api/charts/\(id)", headers: ["content-type": "application/json"],
                                       body: spec.encoded()).status, 201)
        let xs = (0..<rows).map { BigCharts.t0 + Double($0) * 1_000 }
        let ys = series.indices.map { BigCharts.walk(rows, seed: UInt64(31 + $0)) }
        let store = try XCTUnwrap(harness.core.channelsByID[id]).store
        var values = [Double?](repeating: nil, count: series.count)
        store.batch {
            for i in 0..<(rows - 1) {
                for s in series.indices { values[s] = ys[s][i] }
                store.upsert(x: xs[i], values: values)
            }
        }
        for (s, name) in series.enumerated() {
            try write(id, series: name, xs: [xs[rows - 1]], ys: [ys[s][rows - 1]])
        }
        return (xs, ys)
    }

    /// One write of `xs`/`ys` to one series, through the write path (validation, apply, fan-out).
    func write(_ id: String, series: String, xs: [Double], ys: [Double]) throws {
        let channel = try XCTUnwrap(harness.core.channelsByID[id])
        let rows = xs.indices.map { PublishedRow(series: series, x: .number(xs[$0]), y: ys[$0]) }
        try harness.core.apply(try PointBatch(published: rows).validate(against: channel.spec), to: channel)
        harness.core.finishServicePass()
    }

    /// A viewer and everything it was sent on arrival.
    func openViewer() throws -> (CoreHarness.Connection, [ServerMessage]) {
        nextID += 1
        let connection = CoreHarness.Connection(id: nextID, remoteAddress: "127.0.0.1:\(nextID)", authorization: nil)
        harness.core.open(connection)
        return (connection, try harness.drain(connection))
    }

    /// The frames the core has for `connection`, undecoded (to compare identities).
    func pullFrames(_ connection: CoreHarness.Connection) -> [OutboundFrame] {
        var frames: [OutboundFrame] = []
        while true {
            let next = harness.core.nextFrame(for: connection)
            if next.frame == nil, harness.core.isHeld(connection) { harness.core.finishServicePass(); continue }   // woken next pass
            guard let frame = next.frame else { return frames }
            frames.append(frame)
        }
    }

    func snapshots(_ messages: [ServerMessage], chart: String) -> [ServerMessage.Snapshot] {
        messages.compactMap { if case .snapshot(let s) = $0, s.chart == chart { return s }; return nil }
    }

    func viewport(_ chart: String, width: Double, x: Double = 0) -> ClientMessage {
        .viewport(.init(chart: chart, viewport: Viewport(x: x, y: 0, width: width, height: 300)))
    }

    static func number(_ x: XValue) -> Double {
        if case .number(let v) = x { return v }
        return .nan
    }

    /// Every series of `snapshot`: at most 4 points per pixel column of `width`, and the same
    /// pixels lit per column as the raw points of its domain.
    func assertDrawsTheRawPicture(_ snapshot: ServerMessage.Snapshot, width: Int, xs: [Double], ys: [[Double]],
                                  file: StaticString = #filePath, line: UInt = #line) throws {
        guard case .numeric(let d0, let d1) = snapshot.x.domain else { return XCTFail("not numeric", file: file, line: line) }
        let grid = try XCTUnwrap(M4Grid(from: d0, to: d1, columns: width))
        let lo = xs.firstIndex { $0 >= d0 } ?? xs.count, hi = (xs.lastIndex { $0 <= d1 } ?? -1) + 1
        for (s, series) in snapshot.series.enumerated() {
            let sx = series.points.map { BigCharts.number($0.x) }, sy = series.points.map(\.y)
            XCTAssertLessThanOrEqual(sx.count, 4 * width, "series \(series.name)", file: file, line: line)
            var perColumn = [Int](repeating: 0, count: width)
            for x in sx { perColumn[grid.column(of: x)] += 1 }
            XCTAssertLessThanOrEqual(perColumn.max() ?? 0, 4, "points in one pixel column", file: file, line: line)
            let domain = (snapshot.y.lowerBound, snapshot.y.upperBound)
            let raw = LineRaster(xs: Array(xs[lo..<hi]), ys: Array(ys[s][lo..<hi]), xDomain: (d0, d1), yDomain: domain,
                                 width: width, height: 300)
            let drawn = LineRaster(xs: sx, ys: sy, xDomain: (d0, d1), yDomain: domain, width: width, height: 300)
            XCTAssertEqual(raw, drawn, "\(series.name) at \(width) px: \(raw.differences(from: drawn))", file: file, line: line)
            XCTAssertEqual(drawn.drawnColumns, width, "the line spans the plot", file: file, line: line)
        }
    }
}
