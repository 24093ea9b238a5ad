import ChartCastIngest
import ChartCastProtocol
import ChartEngine
import Foundation
import TestSupport
import XCTest
@testable import ChartCastServer

/// `GET /api/charts/{id}/points`: stored history merged with the live window on one M4 grid,
/// ranges in epoch ms or RFC 3339, JSON and RFC 4180 CSV, and every bad query a 400 naming it.
final class PointsReadTests: XCTestCase {
    private let json = "Content-Type: application/json"
    private var directory: TemporaryDirectory!

    override func setUp() { directory = TemporaryDirectory("points") }
    override func tearDown() { directory.remove() }

    /// A minute ago in whole seconds (epoch ms).
    private let t0 = ((Date().timeIntervalSince1970 - 600).rounded(.down)) * 1_000

    private func chart(_ server: TestServer, window: Int, retentionSeconds: Int = 7 * 86_400) throws {
        let spec = ChartSpec(id: "cpu", title: "CPU", mark: .line, xKind: .time, series: ["user"],
                             interactions: ChartSpec.defaultInteractions(for: .time), window: window, retentionSeconds: retentionSeconds)
        XCTAssertEqual(try server.request("PUT", "/api/charts/cpu", headers: [json], body: spec.encoded()).status, 201)
    }

    /// The test signal at x (ms after t0): a wave with spikes, so M4's picks are distinct.
    private func y(_ i: Int) -> Double { sin(Double(i) / 13) * 50 + (i % 97 == 0 ? 80 : 0) }

    /// Writes rows `range` (x = t0 + i ms) as CSV, in writes of 5,000.
    private func write(_ server: TestServer, _ range: Range<Int>) throws {
        for start in stride(from: range.lowerBound, to: range.upperBound, by: 5_000) {
            let rows = (start..<min(start + 5_000, range.upperBound)).map { "\(JSONWriter.format(t0 + Double($0))),\(JSONWriter.format(y($0)))" }
            let response = try server.request("POST", "/api/charts/cpu/points", headers: ["Content-Type: text/csv"],
                                              body: Array(("x,user\n" + rows.joined(separator: "\n")).utf8))
            XCTAssertEqual(response.status, 200, response.bodyText)
        }
    }

    /// The answer's points of `series`, as (x, y).
    private func points(_ response: RawHTTPResponse, _ series: String = "user") throws -> [[Double]] {
        XCTAssertEqual(response.status, 200, response.bodyText)
        let body = try JSONReader.parse(response.body)
        let entry = body["series"]?.array?.first { $0["name"]?.string == series }
        return entry?["points"]?.array?.map { $0.array?.compactMap(\.number) ?? [] } ?? []
    }

    func testHistoryAndTheLiveWindowMergeExactlyOnOneGrid() throws {
        let server = try TestServer(dataDirectory: directory.path)
        try chart(server, window: 1_000)
        try write(server, 0..<20_000)   // 19,000 only in history, the newest 1,000 in memory too

        let all = try points(server.request("GET", "/api/charts/cpu/points?max=1000000"))
        XCTAssertEqual(all.count, 20_000)
        XCTAssertEqual(all.first, [t0, y(0)])
        XCTAssertEqual(all.last, [t0 + 19_999, y(19_999)])

        // max=400: 100 columns over [first, last]; the answer is M4 of every point on that grid.
        let kept = try points(server.request("GET", "/api/charts/cpu/points?max=400"))
        let xs = (0..<20_000).map { t0 + Double($0) }, ys = (0..<20_000).map(y)
        let grid = try XCTUnwrap(M4Grid(from: xs[0], to: xs[19_999], columns: 100))
        let expected = M4.downsample(xs: xs, ys: [ys], grid: grid)[0].map { [xs[$0], ys[$0]] }
        XCTAssertEqual(kept, expected)
        XCTAssertLessThanOrEqual(kept.count, 400)

        // A range across the edge of the live window, in RFC 3339 and epoch ms.
        let from = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: (t0 + 18_000) / 1000))
        let range = try points(server.request("GET", "/api/charts/cpu/points?from=\(from)&to=\(JSONWriter.format(t0 + 19_499))"))
        XCTAssertEqual(range.map { $0[0] }, (18_000...19_499).map { t0 + Double($0) })
    }

    func testWithoutHistoryTheLiveWindowAnswers() throws {
        let server = try TestServer()   // no data directory
        try chart(server, window: 50)
        try write(server, 0..<200)
        let answer = try points(server.request("GET", "/api/charts/cpu/points"))
        XCTAssertEqual(answer.map { $0[0] }, (150..<200).map { t0 + Double($0) })
        let stored = try TestServer(dataDirectory: directory.path)
        try chart(stored, window: 50, retentionSeconds: 0)
        try write(stored, 0..<200)
        XCTAssertEqual(try points(stored.request("GET", "/api/charts/cpu/points")).count, 50, "retention 0: live window only")
    }

    func testCSVIsRFC4180WithOneRecordPerX() throws {
        let server = try TestServer(dataDirectory: directory.path)
        let spec = ChartSpec(id: "mix", title: "Mix", mark: .line, xKind: .linear, series: ["plain", "with, comma", "say \"hi\""],
                             interactions: ChartSpec.defaultInteractions(for: .linear), window: ChartSpec.defaultWindow,
                             retentionSeconds: ChartSpec.defaultRetentionSeconds)
        XCTAssertEqual(try server.request("PUT", "/api/charts/mix", headers: [json], body: spec.encoded()).status, 201)
        let body = PointsBody.rows([(series: "plain", x: .number(1), y: 0.5), (series: "with, comma", x: .number(1), y: 2),
                                    (series: "say \"hi\"", x: .number(2.5), y: -3)])
        XCTAssertEqual(try server.request("POST", "/api/charts/mix/points", headers: [json], body: body).status, 200)
        let csv = try server.request("GET", "/api/charts/mix/points?format=csv")
        XCTAssertEqual(csv.status, 200)
        XCTAssertEqual(csv.headers["content-type"], "text/csv; charset=utf-8; header=present")
        XCTAssertEqual(csv.bodyText, "x,plain,\"with, comma\",\"say \"\"hi\"\"\"\r\n1,0.5,2,\r\n2.5,,,-3\r\n")
    }

    func testCategoryChartsAnswerEveryCategory() throws {
        let server = try TestServer()
        let csv = try server.request("GET", "/api/charts/sales/points?format=csv")
        XCTAssertEqual(csv.status, 200, csv.bodyText)
        XCTAssertTrue(csv.bodyText.hasPrefix("x,"), csv.bodyText)
        XCTAssertEqual(csv.bodyText.components(separatedBy: "\r\n").count, 12 + 2, "a header, twelve months, the last line end")
        let refused = try server.request("GET", "/api/charts/sales/points?from=0")
        XCTAssertEqual(refused.status, 400)
        XCTAssertTrue(refused.bodyText.contains("category charts have no x range"), refused.bodyText)
    }

    func testBadQueriesAre400NamingTheParameter() throws {
        let server = try TestServer()
        try chart(server, window: 10)
        let cases: [(String, String)] = [
            ("from=yesterday", #"from: \"yesterday\" is not epoch milliseconds or an RFC 3339 date-time"#),
            ("to=nan", #"to: \"nan\" is not"#),
            ("from=1e999", #"from: \"1e999\" is not"#),
            ("from=10&to=5", "from (10) is after to (5)"),
            ("max=0", #"max: \"0\" must be a whole number from 4 to 1000000"#),
            ("max=-5", "max: \\\"-5\\\""),
            ("max=2.5", "max: \\\"2.5\\\""),
            ("format=xml", #"format: \"xml\" must be json or csv"#),
        ]
        for (query, message) in cases {
            let response = try server.request("GET", "/api/charts/cpu/points?\(query)")
            XCTAssertEqual(response.status, 400, query)
            XCTAssertEqual(try APIBody.decodeFailure(response.body).code, "bad_request", query)
            XCTAssertTrue(response.bodyText.contains(message), "\(query): \(response.bodyText)")
        }
        XCTAssertEqual(try server.request("GET", "/api/charts/nope/points").status, 404)
        XCTAssertEqual(try server.request("DELETE", "/api/charts/cpu/points").status, 405)
    }
}
