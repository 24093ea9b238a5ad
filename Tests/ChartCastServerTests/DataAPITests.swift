import ChartCastIngest
import ChartCastProtocol
import ChartEngine
import XCTest
@testable import ChartCastServer

/// The data API's endpoints against the server core (no sockets): charts defined, replaced and
/// removed while viewers watch; writes in every format, all or nothing; the error table.
final class DataAPITests: XCTestCase {
    private let cpuSpec = #"{"title":"CPU load","mark":"line","x":{"kind":"time","label":"Time"},"y":{"label":"%","domain":[0,100]},"series":["user","system"],"window":600}"#
    private var harness: CoreHarness!

    override func setUp() {
        harness = CoreHarness(dashboard: Dashboard(title: "Test", charts: []))
    }

    private func appends(_ messages: [ServerMessage]) -> [ServerMessage.Append] {
        messages.compactMap { if case .append(let a) = $0 { return a }; return nil }
    }

    func testAChartPutWhileViewersWatchReachesThemAsChartThenSnapshot() throws {
        let viewer = try harness.viewer()
        let created = try harness.api("PUT", "/api/charts/cpu", json: cpuSpec)
        XCTAssertEqual(created.status, 201)
        let spec = try ChartSpec.parse(created.body)
        XCTAssertEqual(spec.id, "cpu")
        XCTAssertEqual(spec.retentionSeconds, 7 * 86_400, "defaults filled in")
        let messages = try harness.drain(viewer)
        XCTAssertEqual(messages.map(\.type), ["chart", "snapshot"])
        XCTAssertEqual(messages.first, .chart(spec))
        XCTAssertEqual(try ChartSpec.decodeList(try harness.api("GET", "/api/charts").body).map(\.id), ["cpu"])
        XCTAssertEqual(try harness.api("PUT", "/api/charts/cpu", json: cpuSpec).status, 200, "replaced")
        let dashboard = try Dashboard.parse(try harness.api("GET", "/api/dashboard").body)
        XCTAssertEqual(dashboard.title, "Test")
        XCTAssertEqual(dashboard.charts, [spec])
    }

    func testPointsInEveryFormatReachViewersAsOneAppendAndTheAnswerCountsThem() throws {
        _ = try harness.api("PUT", "/api/charts/cpu", json: cpuSpec)
        let viewer = try harness.viewer()
        let rows = try harness.api("POST", "/api/charts/cpu/points",
                                   json: #"{"points":[{"series":"user","x":1733011200000,"y":12.5},{"series":"system","x":1733011200000,"y":null}]}"#)
        XCTAssertEqual(rows.status, 200, rows.text)
        XCTAssertEqual(try APIBody.decodeAccepted(rows.body).accepted, 1, "a null is a missing value, not counted")
        let columns = try harness.api("POST", "/api/charts/cpu/points", json: #"{"x":[1733011260000,"2024-12-01T00:02:00Z"],"series":{"user":[13,14],"system":[2,3]}}"#)
        XCTAssertEqual(try APIBody.decodeAccepted(columns.body).accepted, 4, columns.text)
        let csv = try harness.api("POST", "/api/charts/cpu/points", headers: ["content-type": "text/csv"],
                                  body: Array("x,user,guest\n1733011380000,15,\n1733011440000,16,1\n".utf8))
        XCTAssertEqual(try APIBody.decodeAccepted(csv.body).accepted, 3, csv.text)
        let gzipped = try harness.api("POST", "/api/charts/cpu/points", headers: ["content-type": "text/csv", "content-encoding": "gzip"],
                                      body: try Gzip.compress(Array("x,user\n1733011500000,17\n".utf8)))
        XCTAssertEqual(gzipped.status, 200, gzipped.text)
        let received = appends(try harness.drain(viewer))
        XCTAssertEqual(received.count, 4, "one append per write")
        XCTAssertEqual(received.map { $0.points.count }, [1, 4, 3, 1])
        XCTAssertEqual(received[1].points.first, SeriesPoint(series: "user", x: .number(1_733_011_260_000), y: 13))
        XCTAssertEqual(received.last?.seq, try APIBody.decodeAccepted(gzipped.body).seq)
        let state = try APIBody.decodeChartState(try harness.api("GET", "/api/charts/cpu").body)
        XCTAssertEqual(state.spec.series, ["user", "system", "guest"], "data named a new series")
        XCTAssertEqual(state.series[0].points.count, 6, "user: 1 row + 2 columns + 2 CSV + 1 gzip")
    }

    func testLineProtocolCreatesChartsAndHonoursPrecisionTagsAndNoAutoCreate() throws {
        let write = try harness.api("POST", "/api/v2/write", query: "org=o&bucket=b&precision=s",
                                    body: Array("cpu,host=b,core=1 user=10,system=2i 1733011200\ncpu,host=b,core=1 user=11 1733011260\n".utf8))
        XCTAssertEqual(write.status, 204, write.text)
        let state = try APIBody.decodeChartState(try harness.api("GET", "/api/charts/cpu").body)
        XCTAssertEqual(state.spec.mark, .line)
        XCTAssertEqual(state.spec.xKind, .time)
        XCTAssertEqual(state.spec.series, ["user{core=1,host=b}", "system{core=1,host=b}"])
        XCTAssertEqual(state.series[0].points.map(\.x), [.number(1_733_011_200_000), .number(1_733_011_260_000)])

        let strict = CoreHarness(options: ServerOptions(port: 0, logLevel: .error, autoCreate: false), dashboard: Dashboard(title: "", charts: []))
        let refused = try strict.api("POST", "/api/v2/write", body: Array("mem used=1\n".utf8))
        XCTAssertEqual(refused.status, 404)
        XCTAssertEqual(try refused.failure().code, "unknown_chart")
        XCTAssertEqual(try strict.api("GET", "/api/charts/mem").status, 404)
    }

    /// Every error of the brief's table, each leaving the chart and its viewers untouched.
    func testEveryRefusalAppliesNothing() throws {
        _ = try harness.api("PUT", "/api/charts/cpu", json: cpuSpec)
        _ = try harness.api("PUT", "/api/charts/days", json: #"{"mark":"bar","x":{"kind":"category","categories":["Mon","Tue"]},"series":["n"]}"#)
        let viewer = try harness.viewer()
        let seq = harness.core.channelsByID["cpu"]?.seq
        let points = "/api/charts/cpu/points"
        let cases: [(String, APIResponse, Int, String, String?)] = [
            ("malformed JSON", try harness.api("POST", points, json: #"{"points":[{"series":"user","x":1,"y":2},"#), 400, "bad_request", nil),
            ("NaN-like literal", try harness.api("POST", points, json: #"{"points":[{"series":"user","x":1,"y":1e999}]}"#), 400, "bad_point", nil),
            ("wrong x kind", try harness.api("POST", points, json: #"{"points":[{"series":"user","x":1,"y":1},{"series":"user","x":"Mon","y":2}]}"#), 400, "bad_point", "1"),
            ("unknown category", try harness.api("POST", "/api/charts/days/points", json: #"{"points":[{"series":"n","x":"Wed","y":2}]}"#), 400, "bad_point", "0"),
            ("33rd series", try harness.api("POST", points, headers: ["content-type": "text/csv"],
                                             body: Array(("x," + (0..<33).map { "s\($0)" }.joined(separator: ",") + "\n1," + (0..<33).map { _ in "1" }.joined(separator: ",") + "\n").utf8)), 400, "bad_point", nil),
            ("mismatched columns", try harness.api("POST", points, json: #"{"x":[1,2],"series":{"user":[1]}}"#), 400, "bad_request", nil),
            ("bad CSV", try harness.api("POST", points, headers: ["content-type": "text/csv"], body: Array("x,user\n1,2,3\n".utf8)), 400, "bad_request", nil),
            ("bad line protocol", try harness.api("POST", "/api/v2/write", body: Array("cpu user=1\ncpu user=\"text\"\n".utf8)), 400, "bad_point", nil),
            ("wrong content type", try harness.api("POST", points, headers: ["content-type": "application/xml"], body: [0x3C]), 415, "unsupported_media_type", nil),
            ("unknown chart", try harness.api("POST", "/api/charts/nope/points", json: "{}"), 404, "unknown_chart", nil),
            ("a writer off loopback", try harness.api("POST", points, json: #"{"points":[]}"#, peer: "10.1.2.3"), 401, "unauthorized", nil),
            ("a gzip bomb", try harness.api("POST", points, headers: ["content-type": "text/csv", "content-encoding": "gzip"],
                                            body: try Gzip.compress([UInt8](repeating: 0x31, count: 70 << 20))), 413, "too_large", nil),
            ("a declared oversize body", try harness.api("POST", points, headers: ["content-type": "text/csv", "content-length": "1073741824"]), 413, "too_large", nil),
            ("an unknown encoding", try harness.api("POST", points, headers: ["content-type": "text/csv", "content-encoding": "br"]), 415, "unsupported_media_type", nil),
            ("a bad spec", try harness.api("PUT", "/api/charts/pie", json: #"{"mark":"pie","x":{"kind":"time"}}"#), 400, "bad_request", nil),
            ("an id mismatch", try harness.api("PUT", "/api/charts/cpu", json: #"{"id":"other","mark":"line","x":{"kind":"time"}}"#), 400, "bad_request", nil),
            ("delete unknown", try harness.api("DELETE", "/api/charts/nope"), 404, "unknown_chart", nil),
        ]
        for (label, response, status, code, index) in cases {
            XCTAssertEqual(response.status, status, "\(label): \(response.text)")
            let failure = try response.failure()
            XCTAssertEqual(failure.code, code, "\(label): \(failure.message)")
            XCTAssertFalse(failure.message.isEmpty, label)
            if let index { XCTAssertEqual(failure.index.map(String.init), index, "\(label): \(failure)") }
        }
        XCTAssertEqual(try harness.api("POST", points, json: #"{"points":[{"series":"user","x":1,"y":1},{"series":"user","x":"Mon","y":2}]}"#).failure().line, 1)
        XCTAssertEqual(harness.core.channelsByID["cpu"]?.seq, seq, "nothing applied to cpu")
        XCTAssertEqual(harness.core.channelsByID["cpu"]?.store.count, 0)
        XCTAssertNil(harness.core.channelsByID["pie"])
        XCTAssertEqual(appends(try harness.drain(viewer)), [], "viewers saw no append")
        let put = try harness.api("PUT", "/api/charts/pie", json: #"{"mark":"pie","x":{"kind":"time"}}"#)
        XCTAssertEqual(try put.failure().message, #"mark: "pie" is not one of bar, line, point, area"#)
    }

    func testMethodsOutsideTheTableGet405WithAllow() throws {
        let response = try harness.api("POST", "/api/charts")
        XCTAssertEqual(response.status, 405)
        XCTAssertEqual(response.header("allow"), "GET, HEAD")
        XCTAssertEqual(try harness.api("GET", "/api/v2/write").header("allow"), "POST")
        XCTAssertEqual(try harness.api("PATCH", "/api/charts/cpu").header("allow"), "GET, HEAD, PUT, DELETE")
        XCTAssertEqual(try harness.api("GET", "/api/nothing").status, 404)
    }

    func testWithAWriteTokenOnlyTheTokenWritesEvenOnLoopback() throws {
        let guarded = CoreHarness(options: ServerOptions(port: 0, logLevel: .error, writeToken: "s3cret"), dashboard: Dashboard(title: "", charts: []))
        XCTAssertEqual(try guarded.api("PUT", "/api/charts/cpu", json: cpuSpec).status, 401)
        XCTAssertEqual(try guarded.api("PUT", "/api/charts/cpu", json: cpuSpec, headers: ["authorization": "Bearer wrong"]).status, 401)
        XCTAssertEqual(try guarded.api("PUT", "/api/charts/cpu", json: cpuSpec, headers: ["authorization": "Bearer s3cret"], peer: "10.0.0.9").status, 201)
        XCTAssertEqual(try guarded.api("POST", "/api/v2/write", headers: ["authorization": "Token s3cret"], body: Array("cpu user=1 1\n".utf8)).status, 204)
    }

    func testARepeatedIdempotencyKeyGetsTheFirstAnswerAndAppliesNothing() throws {
        _ = try harness.api("PUT", "/api/charts/cpu", json: cpuSpec)
        let body = #"{"points":[{"series":"user","x":1733011200000,"y":1},{"series":"user","x":1733011260000,"y":2}]}"#
        let first = try harness.api("POST", "/api/charts/cpu/points", json: body, headers: ["idempotency-key": "k-1"])
        let again = try harness.api("POST", "/api/charts/cpu/points", json: body, headers: ["idempotency-key": "k-1"])
        XCTAssertEqual(first, again)
        XCTAssertEqual(harness.core.channelsByID["cpu"]?.seq, try APIBody.decodeAccepted(first.body).seq, "applied once")
        let other = try harness.api("POST", "/api/charts/cpu/points", json: body, headers: ["idempotency-key": "k-2"])
        XCTAssertNotEqual(try APIBody.decodeAccepted(other.body).seq, try APIBody.decodeAccepted(first.body).seq)
        let refused = try harness.api("POST", "/api/charts/cpu/points", json: "{", headers: ["idempotency-key": "k-3"])
        XCTAssertEqual(try harness.api("POST", "/api/charts/cpu/points", json: body, headers: ["idempotency-key": "k-3"]), refused,
                       "a 4xx answer is kept")
    }

    func testRemovingAChartEndsItsSelectionsAndTellsViewersOnce() throws {
        _ = try harness.api("PUT", "/api/charts/days", json: #"{"mark":"bar","x":{"kind":"category","categories":["Mon","Tue"]},"series":["n"]}"#)
        _ = try harness.api("POST", "/api/charts/days/points", json: #"{"points":[{"series":"n","x":"Mon","y":3}]}"#)
        let owner = try harness.viewer(), watcher = try harness.viewer()
        harness.send(.viewport(.init(chart: "days", viewport: Viewport(x: 0, y: 0, width: 200, height: 100))), from: owner)
        harness.send(.pointer(.init(chart: "days", phase: .move, x: 50, y: 50)), from: owner)
        XCTAssertEqual(harness.core.channelsByID["days"]?.engine.selection.hovers.count, 1)
        _ = try harness.drain(watcher)
        XCTAssertEqual(try harness.api("DELETE", "/api/charts/days").status, 204)
        XCTAssertEqual(try harness.drain(watcher), [.chartRemoved("days")])
        XCTAssertEqual(try harness.drain(watcher), [], "told once")
        harness.send(.pointer(.init(chart: "days", phase: .move, x: 60, y: 50, ref: "late")), from: owner)
        let late = try harness.drain(owner).compactMap { if case .error(let e) = $0 { return e }; return nil }
        XCTAssertEqual(late.last?.code, .unknownChart)
        // The slot is reused once everyone was told.
        _ = try harness.drain(owner)
        XCTAssertEqual(try harness.api("PUT", "/api/charts/cpu", json: cpuSpec).status, 201)
        XCTAssertEqual(harness.core.channelsByID["cpu"]?.index, 0, "the removed chart's slot")
        XCTAssertEqual(try harness.drain(watcher).map(\.type), ["chart", "snapshot"])
    }

    func testChartsAreListedInTheOrderTheyWereFirstDefinedWhateverTheirSlot() throws {
        for id in ["a", "b", "c"] { _ = try harness.api("PUT", "/api/charts/\(id)", json: cpuSpec) }
        let watcher = try harness.viewer()
        _ = try harness.api("DELETE", "/api/charts/a")
        _ = try harness.drain(watcher)
        _ = try harness.api("PUT", "/api/charts/d", json: cpuSpec)   // reuses a's slot
        _ = try harness.api("PUT", "/api/charts/b", json: #"{"mark":"bar","x":{"kind":"linear"}}"#)   // replaced in place
        XCTAssertEqual(harness.core.channelsByID["d"]?.index, 0)
        XCTAssertEqual(try ChartSpec.decodeList(try harness.api("GET", "/api/charts").body).map(\.id), ["b", "c", "d"],
                       "the order a watching viewer built: d appended at the end, b in its place")
        XCTAssertEqual(try Dashboard.parse(try harness.api("GET", "/api/dashboard").body).charts.map(\.id), ["b", "c", "d"])
        let late = CoreHarness.Connection(id: 999, remoteAddress: "127.0.0.1:1", authorization: nil)
        harness.core.open(late)
        guard case .welcome(let welcome)? = try harness.drain(late).first else { return XCTFail("no welcome") }
        XCTAssertEqual(welcome.charts.map(\.id), ["b", "c", "d"], "a viewer arriving now is welcomed in that order")
    }

    func testTheWelcomeAnArrivingViewerGetsFollowsEveryChangeToTheDashboard() throws {
        func welcomeBytes() throws -> [UInt8] {
            let late = CoreHarness.Connection(id: Int.random(in: 1000...1_000_000), remoteAddress: "127.0.0.1:1", authorization: nil)
            harness.core.open(late)
            return try XCTUnwrap(harness.core.nextFrame(for: late).frame?.bytes, "no welcome")
        }
        func expected(_ bytes: [UInt8]) throws -> [UInt8] {
            guard case .welcome(let w) = try ServerMessage.decode(bytes) else {
                XCTFail("not a welcome")
                return []
            }
            return ServerMessage.welcome(ServerMessage.Welcome(viewer: w.viewer, charts: harness.core.liveChannels.map(\.spec),
                                                               limits: w.limits)).encode()
        }
        _ = try harness.api("PUT", "/api/charts/cpu", json: cpuSpec)
        let first = try welcomeBytes()
        XCTAssertEqual(first, try expected(first))
        _ = try harness.api("PUT", "/api/charts/mem", json: cpuSpec)                                   // defined
        let second = try welcomeBytes()
        XCTAssertEqual(second, try expected(second))
        XCTAssertTrue(String(decoding: second, as: UTF8.self).contains(#""id":"mem""#))
        _ = try harness.api("PUT", "/api/charts/cpu", json: #"{"mark":"bar","x":{"kind":"linear"}}"#)  // replaced
        let third = try welcomeBytes()
        XCTAssertEqual(third, try expected(third))
        XCTAssertTrue(String(decoding: third, as: UTF8.self).contains(#""mark":"bar""#))
        _ = try harness.api("POST", "/api/charts/mem/points", json: #"{"points":[{"series":"disk","x":1000,"y":5}]}"#)  // a series added
        let fourth = try welcomeBytes()
        XCTAssertEqual(fourth, try expected(fourth))
        XCTAssertTrue(String(decoding: fourth, as: UTF8.self).contains(#""disk""#))
        _ = try harness.api("DELETE", "/api/charts/cpu")                                                // removed
        let fifth = try welcomeBytes()
        XCTAssertEqual(fifth, try expected(fifth))
        XCTAssertFalse(String(decoding: fifth, as: UTF8.self).contains(#""id":"cpu""#))
    }

    func testReplacingKeepsTheDataWhenTheAxisStaysTheSame() throws {
        _ = try harness.api("PUT", "/api/charts/cpu", json: cpuSpec)
        _ = try harness.api("POST", "/api/charts/cpu/points", json: #"{"points":[{"series":"user","x":1000,"y":5},{"series":"system","x":1000,"y":6}]}"#)
        let replaced = try harness.api("PUT", "/api/charts/cpu", json: #"{"title":"CPU","mark":"area","x":{"kind":"time"},"series":["user"]}"#)
        XCTAssertEqual(replaced.status, 200)
        var state = try APIBody.decodeChartState(try harness.api("GET", "/api/charts/cpu").body)
        XCTAssertEqual(state.spec.mark, .area)
        XCTAssertEqual(state.series.map(\.name), ["user", "system"], "series the new spec omits keep their data")
        XCTAssertEqual(state.series.map { $0.points.count }, [1, 1])
        _ = try harness.api("PUT", "/api/charts/cpu", json: #"{"mark":"line","x":{"kind":"linear"}}"#)
        state = try APIBody.decodeChartState(try harness.api("GET", "/api/charts/cpu").body)
        XCTAssertEqual(state.series.flatMap(\.points), [], "a new x kind starts empty")
    }

    func testPublishIsAckedForWritersAndForbiddenForViewers() throws {
        _ = try harness.api("PUT", "/api/charts/cpu", json: cpuSpec)
        let publisher = try harness.viewer(), remote = try harness.viewer(peer: "10.0.0.7"), watcher = try harness.viewer()
        let publish = ClientMessage.publish(.init(chart: "cpu", points: [.init(series: "user", x: .number(1_733_011_200_000), y: 12.5)], ref: "p1"))
        harness.send(publish, from: publisher)
        let ack = try harness.drain(publisher).compactMap { if case .ack(let a) = $0 { return a }; return nil }
        XCTAssertEqual(ack, [.init(ref: "p1", seq: harness.core.channelsByID["cpu"]!.seq, accepted: 1)])
        XCTAssertEqual(appends(try harness.drain(watcher)).first?.points, [SeriesPoint(series: "user", x: .number(1_733_011_200_000), y: 12.5)])

        harness.send(publish, from: remote)
        let refused = try harness.drain(remote).compactMap { if case .error(let e) = $0 { return e }; return nil }
        XCTAssertEqual(refused.map(\.code), [.forbidden])
        XCTAssertEqual(refused.first?.ref, "p1")

        let seq = harness.core.channelsByID["cpu"]!.seq
        harness.send(.publish(.init(chart: "cpu", points: [.init(series: "user", x: .number(1), y: 1), .init(series: "user", x: .category("Mon"), y: 2)],
                                    ref: "p2")), from: publisher)
        let bad = try harness.drain(publisher).compactMap { if case .error(let e) = $0 { return e }; return nil }
        XCTAssertEqual(bad.map(\.code), [.badPoint])
        XCTAssertTrue(bad.first?.message.contains("points[1].x") ?? false, bad.first?.message ?? "")
        XCTAssertEqual(harness.core.channelsByID["cpu"]!.seq, seq, "nothing applied")
        XCTAssertEqual(appends(try harness.drain(watcher)), [])

        let guarded = CoreHarness(options: ServerOptions(port: 0, logLevel: .error, writeToken: "t"), dashboard: Dashboard(title: "", charts: []))
        _ = try guarded.api("PUT", "/api/charts/cpu", json: cpuSpec, headers: ["authorization": "Bearer t"])
        let withToken = try guarded.viewer(peer: "10.0.0.8", authorization: "Bearer t")
        guarded.send(publish, from: withToken)
        XCTAssertTrue(try guarded.drain(withToken).map(\.type).contains("ack"))
        let loopbackWithoutToken = try guarded.viewer()
        guarded.send(publish, from: loopbackWithoutToken)
        XCTAssertEqual(try guarded.drain(loopbackWithoutToken).map(\.type), ["error"])
    }

    func testAWriteLargerThanTheChartReachesViewersAsASnapshotAndOthersAsOneAppend() throws {
        _ = try harness.api("PUT", "/api/charts/big", json: #"{"mark":"line","x":{"kind":"linear"},"window":1000}"#)
        let viewer = try harness.viewer()
        func csv(_ xs: Range<Int>) -> [UInt8] { Array(("x,v\n" + xs.map { "\($0),\($0 % 7)" }.joined(separator: "\n") + "\n").utf8) }
        _ = try harness.api("POST", "/api/charts/big/points", headers: ["content-type": "text/csv"], body: csv(0..<800))
        XCTAssertEqual(try harness.drain(viewer).map(\.type), ["append"], "800 points into an empty window: the append is no bigger")
        // 5,000 points into a window of 1,000: the snapshot (1,000 points) is the smaller message.
        let answer = try harness.api("POST", "/api/charts/big/points", headers: ["content-type": "text/csv"], body: csv(800..<5_800))
        XCTAssertEqual(try APIBody.decodeAccepted(answer.body).accepted, 5_000)
        let messages = try harness.drain(viewer)
        XCTAssertEqual(messages.map(\.type), ["snapshot"])
        guard case .snapshot(let snapshot)? = messages.first else { return }
        XCTAssertEqual(snapshot.series.first?.points.count, 1_000)
        XCTAssertEqual(snapshot.series.first?.points.first?.x, .number(4_800))
        _ = try harness.api("POST", "/api/charts/big/points", headers: ["content-type": "text/csv"], body: csv(5_800..<6_000))
        let next = try harness.drain(viewer)
        XCTAssertEqual(next.map(\.type), ["append"])
        guard case .append(let append)? = next.first else { return }
        XCTAssertEqual(append.points.count, 200)
        XCTAssertEqual(append.evictBefore, 5_000)
    }
}
