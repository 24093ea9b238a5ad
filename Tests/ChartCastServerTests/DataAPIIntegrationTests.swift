import ChartCastIngest
import ChartCastProtocol
import ChartEngine
import Foundation
import TestSupport
import WebSockets
import XCTest

/// The data API over real sockets: charts defined, written, read and removed over HTTP while
/// viewers watch, every refusal of the design's table, idempotency, and WebSocket publish.
/// Messages are built and read with the `ChartCastProtocol` types and API bodies with `APIBody`;
/// the request bodies (JSON, CSV, line protocol) are the data formats under test.
final class DataAPIIntegrationTests: XCTestCase {
    private let json = "Content-Type: application/json"
    private let csv = "Content-Type: text/csv"
    private let t0 = 1_733_011_200_000.0

    private func cpuSpec(title: String = "CPU") -> ChartSpec {
        ChartSpec(id: "cpu", title: title, mark: .line, xKind: .time, xLabel: "Time", yLabel: "%", series: ["user", "system"],
                  interactions: ChartSpec.defaultInteractions(for: .time), window: 100)
    }

    private func put(_ server: TestServer, _ spec: ChartSpec, headers: [String] = []) throws -> RawHTTPResponse {
        try server.request("PUT", "/api/charts/\(spec.id)", headers: [json] + headers, body: spec.encoded())
    }

    private func postPoints(_ server: TestServer, _ body: String, chart: String = "cpu", type: String? = nil,
                            headers: [String] = []) throws -> RawHTTPResponse {
        try server.request("POST", "/api/charts/\(chart)/points", headers: [type ?? json] + headers, body: Array(body.utf8))
    }

    private func state(_ server: TestServer, _ chart: String) throws -> APIBody.ChartState {
        let response = try server.request("GET", "/api/charts/\(chart)")
        XCTAssertEqual(response.status, 200, response.bodyText)
        return try APIBody.decodeChartState(response.body)
    }

    private func failure(_ response: RawHTTPResponse, _ status: Int, _ code: String,
                         file: StaticString = #filePath, line: UInt = #line) throws -> APIBody.Failure {
        XCTAssertEqual(response.status, status, response.bodyText, file: file, line: line)
        XCTAssertEqual(response.headers["content-type"], "application/json", file: file, line: line)
        let failure = try APIBody.decodeFailure(response.body)
        XCTAssertEqual(failure.code, code, failure.message, file: file, line: line)
        return failure
    }

    private func chartMessage(_ viewer: TestViewer, _ id: String) throws -> ChartSpec {
        try viewer.next("chart \(id)") { if case .chart(let spec) = $0, spec.id == id { return spec }; return nil }
    }

    /// The next message that changes what the viewer shows (append, snapshot, chart, removal).
    private func nextChange(_ viewer: TestViewer, timeout: Double = 5) throws -> ServerMessage {
        try viewer.next(timeout: timeout, "a change") { message in
            switch message {
            case .append, .snapshot, .chart, .chartRemoved: return message
            default: return nil
            }
        }
    }

    // MARK: Charts

    func testAChartIsCreatedReplacedReadAndAnnounced() throws {
        let server = try TestServer()
        let viewer = try server.viewer()
        let created = try put(server, cpuSpec())
        XCTAssertEqual(created.status, 201, created.bodyText)
        XCTAssertEqual(created.headers["cache-control"], "no-store")
        let stored = try ChartSpec.parse(created.body)
        XCTAssertEqual(stored.id, "cpu")
        XCTAssertEqual(stored.series, ["user", "system"])
        XCTAssertEqual(try chartMessage(viewer, "cpu"), stored, "viewers are sent the stored spec")
        let snapshot = try viewer.next("snapshot cpu") { if case .snapshot(let s) = $0, s.chart == "cpu" { return s }; return nil }
        XCTAssertEqual(snapshot.series.map(\.name), ["user", "system"])

        let replaced = try put(server, cpuSpec(title: "CPU load"))
        XCTAssertEqual(replaced.status, 200)
        XCTAssertEqual(try ChartSpec.parse(replaced.body).title, "CPU load")
        XCTAssertEqual(try chartMessage(viewer, "cpu").title, "CPU load")

        let read = try state(server, "cpu")
        XCTAssertEqual(read.spec.title, "CPU load")
        XCTAssertEqual(read.series.map(\.name), ["user", "system"])
        XCTAssertTrue(try ChartSpec.decodeList(server.request("GET", "/api/charts").body).contains { $0.id == "cpu" })
        let head = try server.request("HEAD", "/api/charts/cpu")
        XCTAssertEqual(head.status, 200)
        XCTAssertTrue(head.body.isEmpty)
        XCTAssertGreaterThan(Int(head.headers["content-length"] ?? "") ?? 0, 0)
    }

    func testDeleteRemovesTheChartForEveryone() throws {
        let server = try TestServer()
        XCTAssertEqual(try put(server, cpuSpec()).status, 201)
        let viewer = try server.viewer()
        XCTAssertNotNil(viewer.snapshots["cpu"])
        let deleted = try server.request("DELETE", "/api/charts/cpu")
        XCTAssertEqual(deleted.status, 204)
        XCTAssertTrue(deleted.body.isEmpty)
        XCTAssertNil(deleted.headers["content-length"], "204 carries no body and no length")
        XCTAssertEqual(try nextChange(viewer), .chartRemoved("cpu"))
        _ = try failure(try server.request("GET", "/api/charts/cpu"), 404, "unknown_chart")
        _ = try failure(try server.request("DELETE", "/api/charts/cpu"), 404, "unknown_chart")
        XCTAssertFalse(try ChartSpec.decodeList(server.request("GET", "/api/charts").body).contains { $0.id == "cpu" })
    }

    // MARK: Points

    func testPointsInEveryFormatReachTheViewers() throws {
        let server = try TestServer()
        XCTAssertEqual(try put(server, cpuSpec()).status, 201)
        let viewer = try server.viewer()

        let rows = try postPoints(server, #"{"points":[{"series":"user","x":1733011200000,"y":12.5}]}"#)
        XCTAssertEqual(rows.status, 200, rows.bodyText)
        let (rowsAccepted, rowsSeq) = try APIBody.decodeAccepted(rows.body)
        XCTAssertEqual(rowsAccepted, 1)
        let first = try viewer.append { $0.chart == "cpu" }
        XCTAssertEqual(first.seq, rowsSeq)
        XCTAssertEqual(first.points, [SeriesPoint(series: "user", x: .number(t0), y: 12.5)])

        let columns = try postPoints(server, #"{"x":[1733011201000,1733011202000],"series":{"user":[1,2],"system":[3,null]}}"#)
        XCTAssertEqual(columns.status, 200, columns.bodyText)
        let (columnsAccepted, columnsSeq) = try APIBody.decodeAccepted(columns.body)
        XCTAssertEqual(columnsAccepted, 3, "a null is a missing value, not counted")
        let second = try viewer.append { $0.chart == "cpu" }
        XCTAssertEqual(second.seq, columnsSeq)
        XCTAssertEqual(Set(second.points.map { "\($0.series)@\($0.x)=\($0.y)" }),
                       ["user@number(1733011201000.0)=1.0", "user@number(1733011202000.0)=2.0", "system@number(1733011201000.0)=3.0"])

        let table = try postPoints(server, "x,user,system\n1733011203000,4,5\n", type: csv)
        XCTAssertEqual(table.status, 200, table.bodyText)
        XCTAssertEqual(try APIBody.decodeAccepted(table.body).accepted, 2)
        XCTAssertEqual(try viewer.append { $0.chart == "cpu" }.seq, try APIBody.decodeAccepted(table.body).seq)

        let gzipped = Gzip.compress(Array("x,user\n1733011204000,6\n".utf8))
        let compressed = try server.request("POST", "/api/charts/cpu/points", headers: [csv, "Content-Encoding: gzip"], body: gzipped)
        XCTAssertEqual(compressed.status, 200, compressed.bodyText)
        let (gzipAccepted, gzipSeq) = try APIBody.decodeAccepted(compressed.body)
        XCTAssertEqual(gzipAccepted, 1)
        let fourth = try viewer.append { $0.chart == "cpu" }
        XCTAssertEqual(fourth.seq, gzipSeq)
        XCTAssertEqual(fourth.points, [SeriesPoint(series: "user", x: .number(t0 + 4000), y: 6)])

        let read = try state(server, "cpu")
        XCTAssertEqual(read.seq, gzipSeq)
        XCTAssertEqual(read.series.first { $0.name == "user" }?.points.count, 5)
    }

    func testLineProtocolCreatesChartsUnlessAutoCreateIsOff() throws {
        let body = "mem,host=b used=2i 1733011200000\nmem,host=a used=1.5,free=3 1733011201000\n"
        let server = try TestServer()
        let viewer = try server.viewer()
        let written = try server.request("POST", "/api/v2/write?org=o&bucket=b&precision=ms", body: Array(body.utf8))
        XCTAssertEqual(written.status, 204, written.bodyText)
        XCTAssertTrue(written.body.isEmpty)
        let chart = try chartMessage(viewer, "mem")
        XCTAssertEqual(chart.xKind, .time)
        XCTAssertEqual(Set(chart.series), ["used{host=a}", "used{host=b}", "free{host=a}"])
        let read = try state(server, "mem")
        XCTAssertEqual(read.series.first { $0.name == "used{host=a}" }?.points, [DataPoint(x: .number(t0 + 1000), y: 1.5)],
                       "precision=ms: the timestamps are milliseconds")
        XCTAssertEqual(read.series.first { $0.name == "used{host=b}" }?.points, [DataPoint(x: .number(t0), y: 2)])

        let gzipped = Gzip.compress(Array("mem,host=a used=7 1733011202000\n".utf8))
        let compressed = try server.request("POST", "/api/v2/write?precision=ms", headers: ["Content-Encoding: gzip"], body: gzipped)
        XCTAssertEqual(compressed.status, 204, compressed.bodyText)
        XCTAssertEqual(try state(server, "mem").series.first { $0.name == "used{host=a}" }?.points.count, 2)

        let strict = try TestServer(autoCreate: false)
        let refused = try failure(try strict.request("POST", "/api/v2/write?precision=ms", body: Array(body.utf8)), 404, "unknown_chart")
        XCTAssertTrue(refused.message.contains("mem"), refused.message)
        XCTAssertFalse(try ChartSpec.decodeList(strict.request("GET", "/api/charts").body).contains { $0.id == "mem" })
    }

    // MARK: Refusals

    func testEveryRefusalIsJSONAndAppliesNothing() throws {
        let server = try TestServer()
        XCTAssertEqual(try put(server, cpuSpec()).status, 201)
        let viewer = try server.viewer()
        let before = try state(server, "cpu")

        // 400 bad_request: not JSON, with the line of the problem.
        let syntax = try failure(try postPoints(server, "{\"points\":[{\"series\":\"user\",\n\"x\":1,}]}"), 400, "bad_request")
        XCTAssertEqual(syntax.line, 2)
        // 400 bad_point: a point that does not fit the chart, with its line and index.
        let point = try failure(try postPoints(server, "{\"points\":[{\"series\":\"user\",\"x\":1733011200000,\"y\":1},\n"
                                                + "{\"series\":\"user\",\"x\":\"yesterday\",\"y\":2}]}"), 400, "bad_point")
        XCTAssertEqual(point.line, 2)
        XCTAssertEqual(point.index, 1)
        let cell = try failure(try postPoints(server, "x,user\n1733011200000,1\n1733011201000,abc\n", type: csv), 400, "bad_point")
        XCTAssertEqual(cell.line, 3)
        // 400 bad_request: an invalid spec, an invalid query.
        _ = try failure(try server.request("PUT", "/api/charts/cpu2", headers: [json], body: Array(#"{"title":1}"#.utf8)),
                        400, "bad_request")
        _ = try failure(try server.request("POST", "/api/v2/write?precision=h", body: Array("cpu user=1\n".utf8)), 400, "bad_request")
        // 404: no such chart, no such endpoint.
        _ = try failure(try postPoints(server, #"{"points":[]}"#, chart: "nope"), 404, "unknown_chart")
        _ = try failure(try server.request("GET", "/api/nothing"), 404, "not_found")
        _ = try failure(try server.request("POST", "/api/nothing", body: Array("x".utf8)), 404, "not_found")
        // 405 with Allow.
        let listPost = try server.request("POST", "/api/charts", headers: [json], body: cpuSpec().encoded())
        _ = try failure(listPost, 405, "method_not_allowed")
        XCTAssertEqual(listPost.headers["allow"], "GET, HEAD")
        let pointsPut = try server.request("PUT", "/api/charts/cpu/points", headers: [json], body: Array("{}".utf8))
        _ = try failure(pointsPut, 405, "method_not_allowed")
        XCTAssertEqual(pointsPut.headers["allow"], "GET, HEAD, POST")
        let patch = try server.request("PATCH", "/api/charts/cpu", headers: [json], body: Array("{}".utf8))
        _ = try failure(patch, 405, "method_not_allowed")
        XCTAssertEqual(patch.headers["allow"], "GET, HEAD, PUT, DELETE")
        // 413: a declared size over 16 MiB, answered before any of it is sent.
        let connection = try RawHTTPConnection(port: server.port)
        connection.send(rawRequestBytes(method: "POST", path: "/api/charts/cpu/points", headers: [csv, "Content-Length: 17000000"]))
        _ = try failure(try connection.readResponse(), 413, "too_large")
        XCTAssertTrue(connection.waitForClose())
        // 415: a content type or encoding the endpoint does not take.
        _ = try failure(try postPoints(server, "x,user\n1,2\n", type: "Content-Type: text/plain"), 415, "unsupported_media_type")
        _ = try failure(try postPoints(server, #"{"points":[]}"#, headers: ["Content-Encoding: br"]), 415, "unsupported_media_type")
        _ = try failure(try server.request("PUT", "/api/charts/cpu", headers: [csv], body: cpuSpec(title: "x").encoded()),
                        415, "unsupported_media_type")

        let after = try state(server, "cpu")
        XCTAssertEqual(after.seq, before.seq, "nothing was applied")
        XCTAssertEqual(after.spec, before.spec)
        XCTAssertEqual(after.series, before.series)
        XCTAssertFalse(try ChartSpec.decodeList(server.request("GET", "/api/charts").body).contains { $0.id == "cpu2" })
        // The viewer heard nothing of any of it: its next change is the next valid write.
        let valid = try postPoints(server, #"{"points":[{"series":"system","x":1733011200000,"y":3}]}"#)
        XCTAssertEqual(valid.status, 200)
        guard case .append(let append) = try nextChange(viewer) else { return XCTFail("expected an append first") }
        XCTAssertEqual(append.chart, "cpu")
        XCTAssertEqual(append.seq, before.seq + 1)
    }

    /// With `--no-auto-create`, a line-protocol write naming an existing chart and an unknown
    /// one is refused whole, whichever comes first: the existing chart's `seq` and points stay,
    /// and a viewer watching it is sent nothing.
    func testALineProtocolWriteNamingAnUnknownChartAppliesNothingToTheKnownOne() throws {
        let server = try TestServer(autoCreate: false)
        XCTAssertEqual(try put(server, cpuSpec()).status, 201)
        let viewer = try server.viewer()
        let before = try state(server, "cpu")
        for body in ["cpu user=1,system=2 1733011200000\nmem used=3 1733011200000\n",
                     "mem used=3 1733011200000\ncpu user=1,system=2 1733011200000\n"] {
            let refused = try failure(try server.request("POST", "/api/v2/write?precision=ms", body: Array(body.utf8)), 404, "unknown_chart")
            XCTAssertTrue(refused.message.contains("\"mem\""), refused.message)
        }
        let after = try state(server, "cpu")
        XCTAssertEqual(after.seq, before.seq, "nothing applied to cpu")
        XCTAssertEqual(after.series, before.series)
        XCTAssertTrue(after.series.allSatisfy { $0.points.isEmpty }, "no point of cpu")
        _ = try failure(try server.request("GET", "/api/charts/mem"), 404, "unknown_chart")
        // The viewer was sent nothing: its next change is the next valid write's append.
        let valid = try server.request("POST", "/api/v2/write?precision=ms", body: Array("cpu user=4 1733011201000\n".utf8))
        XCTAssertEqual(valid.status, 204, valid.bodyText)
        guard case .append(let append) = try nextChange(viewer) else { return XCTFail("expected an append first") }
        XCTAssertEqual(append.seq, before.seq + 1)
        XCTAssertEqual(append.points, [SeriesPoint(series: "user", x: .number(t0 + 1_000), y: 4)])
    }

    /// Non-finite values are refused with 400 and nothing applied (docs/api.md): `NaN`,
    /// `Infinity` and numbers beyond a double are `bad_point` in JSON (rows and columns) and CSV,
    /// and beyond a double in line protocol; line protocol has no `NaN` or `Inf` literal, so
    /// those are a syntax error, `bad_request`. The bodies are text on purpose: no writer
    /// produces these literals.
    func testNonFiniteValuesAreRefusedAndApplyNothing() throws {
        let server = try TestServer()
        XCTAssertEqual(try put(server, cpuSpec()).status, 201)
        let viewer = try server.viewer()
        let before = try state(server, "cpu")
        for literal in ["NaN", "Infinity", "-Infinity", "1e999", "-1e999"] {
            for body in [#"{"points":[{"series":"user","x":1733011200000,"y":\#(literal)}]}"#,
                         #"{"x":[1733011200000],"series":{"user":[\#(literal)]}}"#] {
                let refused = try failure(try postPoints(server, body), 400, "bad_point")
                XCTAssertEqual(refused.index, 0, body)
                XCTAssertTrue(refused.message.contains("is not finite"), refused.message)
            }
        }
        for literal in ["NaN", "inf", "1e999"] {
            let refused = try failure(try postPoints(server, "x,user\n1733011200000,\(literal)\n", type: csv), 400, "bad_point")
            XCTAssertEqual(refused.line, 2)
        }
        for (literal, code) in [("1e999", "bad_point"), ("-1e999", "bad_point"), ("NaN", "bad_request"), ("Inf", "bad_request"),
                                ("+Inf", "bad_request"), ("Infinity", "bad_request")] {
            let body = Array("cpu user=\(literal) 1733011200000\n".utf8)
            let refused = try failure(try server.request("POST", "/api/v2/write?precision=ms", body: body), 400, code)
            XCTAssertEqual(refused.line, 1, literal)
        }
        let after = try state(server, "cpu")
        XCTAssertEqual(after.seq, before.seq, "nothing applied")
        XCTAssertEqual(after.series, before.series)
        let valid = try postPoints(server, #"{"points":[{"series":"system","x":1733011200000,"y":3}]}"#)
        XCTAssertEqual(valid.status, 200)
        guard case .append(let append) = try nextChange(viewer) else { return XCTFail("expected an append first") }
        XCTAssertEqual(append.seq, before.seq + 1, "the viewer was sent nothing before it")
    }

    func testAChunkedBodyOverTheLimitGetsTheJSON413() throws {
        let server = try TestServer()
        XCTAssertEqual(try put(server, cpuSpec()).status, 201)
        let connection = try RawHTTPConnection(port: server.port, timeout: 5)
        connection.send(rawRequestBytes(method: "POST", path: "/api/charts/cpu/points",
                                        headers: [csv, "Transfer-Encoding: chunked"]))
        let megabyte = chunkedBody([[UInt8](repeating: UInt8(ascii: "1"), count: 1 << 20)]).dropLast(5)
        for _ in 0..<17 {
            if !connection.send(Array(megabyte)) { break }   // the server stopped reading
        }
        _ = try failure(try connection.readResponse(), 413, "too_large")
        XCTAssertEqual(try state(server, "cpu").seq, 0)
    }

    func testWritesNeedTheTokenWhenOneIsConfigured() throws {
        let server = try TestServer(writeToken: "s3cret")
        let auth = "Authorization: Bearer s3cret"
        _ = try failure(try put(server, cpuSpec()), 401, "unauthorized")
        XCTAssertEqual(try put(server, cpuSpec(), headers: [auth]).status, 201)
        let viewer = try server.viewer()
        let before = try state(server, "cpu")
        let rows = #"{"points":[{"series":"user","x":1733011200000,"y":1}]}"#
        let missing = try failure(try postPoints(server, rows), 401, "unauthorized")
        XCTAssertTrue(missing.message.contains("Authorization"), missing.message)
        _ = try failure(try postPoints(server, rows, headers: ["Authorization: Bearer wrong"]), 401, "unauthorized")
        _ = try failure(try server.request("DELETE", "/api/charts/cpu"), 401, "unauthorized")
        _ = try failure(try server.request("POST", "/api/v2/write?precision=ms", body: Array("cpu user=1 1733011200000\n".utf8)),
                        401, "unauthorized")
        XCTAssertEqual(try state(server, "cpu").seq, before.seq, "nothing was applied")

        let accepted = try postPoints(server, rows, headers: ["Authorization: Token s3cret"])
        XCTAssertEqual(accepted.status, 200, "InfluxDB clients' Token scheme")
        guard case .append(let append) = try nextChange(viewer) else { return XCTFail("expected an append first") }
        XCTAssertEqual(append.seq, before.seq + 1)
    }

    // MARK: Idempotency

    func testARepeatedIdempotencyKeyIsAnsweredAlikeAndAppliedOnce() throws {
        let server = try TestServer()
        XCTAssertEqual(try put(server, cpuSpec()).status, 201)
        let viewer = try server.viewer()
        let rows = #"{"points":[{"series":"user","x":1733011200000,"y":1},{"series":"system","x":1733011200000,"y":2}]}"#
        let first = try postPoints(server, rows, headers: ["Idempotency-Key: batch-7"])
        let again = try postPoints(server, rows, headers: ["Idempotency-Key: batch-7"])
        XCTAssertEqual(first.status, 200, first.bodyText)
        XCTAssertEqual(again.status, first.status)
        XCTAssertEqual(again.body, first.body, "the first answer again")
        let (accepted, seq) = try APIBody.decodeAccepted(first.body)
        XCTAssertEqual(accepted, 2)
        XCTAssertEqual(try state(server, "cpu").seq, seq, "applied once")
        guard case .append(let append) = try nextChange(viewer) else { return XCTFail("expected an append") }
        XCTAssertEqual(append.seq, seq)

        // Another key is another write.
        let other = try postPoints(server, #"{"points":[{"series":"user","x":1733011201000,"y":3}]}"#,
                                   headers: ["Idempotency-Key: batch-8"])
        XCTAssertEqual(try APIBody.decodeAccepted(other.body).seq, seq + 1)
        guard case .append(let next) = try nextChange(viewer) else { return XCTFail("expected an append") }
        XCTAssertEqual(next.seq, seq + 1, "the repeat sent viewers nothing")
        // A refusal is kept too.
        let bad = try postPoints(server, #"{"points":[{"series":"user","x":"soon","y":1}]}"#, headers: ["Idempotency-Key: batch-9"])
        let badAgain = try postPoints(server, rows, headers: ["Idempotency-Key: batch-9"])
        XCTAssertEqual(bad.status, 400)
        XCTAssertEqual(badAgain.status, 400)
        XCTAssertEqual(badAgain.body, bad.body)
        XCTAssertEqual(try state(server, "cpu").seq, seq + 1)
    }

    // MARK: WebSocket publish

    func testPublishNeedsTheWriteTokenInTheHandshake() throws {
        let server = try TestServer(writeToken: "s3cret")
        XCTAssertEqual(try put(server, cpuSpec(), headers: ["Authorization: Bearer s3cret"]).status, 201)
        let publisher = try server.viewer(headers: [HTTPHeaderField(name: "Authorization", value: "Bearer s3cret")])
        let watcher = try server.viewer()
        publisher.send(.publish(.init(chart: "cpu", points: [.init(series: "user", x: .number(t0), y: 5)], ref: "p1")))
        let ack = try publisher.next("ack") { if case .ack(let ack) = $0 { return ack }; return nil }
        XCTAssertEqual(ack.ref, "p1")
        XCTAssertEqual(ack.accepted, 1)
        let append = try watcher.append { $0.chart == "cpu" }
        XCTAssertEqual(append.seq, ack.seq)
        XCTAssertEqual(append.points, [SeriesPoint(series: "user", x: .number(t0), y: 5)])

        let intruder = try server.viewer()
        intruder.send(.publish(.init(chart: "cpu", points: [.init(series: "user", x: .number(t0 + 1000), y: 6)], ref: "p2")))
        XCTAssertEqual(try intruder.error().code, .forbidden)
        let wrong = try server.viewer(headers: [HTTPHeaderField(name: "Authorization", value: "Bearer nope")])
        wrong.send(.publish(.init(chart: "cpu", points: [.init(series: "user", x: .number(t0 + 1000), y: 6)], ref: "p3")))
        XCTAssertEqual(try wrong.error().code, .forbidden)
        XCTAssertEqual(try state(server, "cpu").seq, ack.seq, "the refused publishes applied nothing")
    }
}
