// chartcast-bench --ingest: write-body throughput of ChartCastIngest.
//
// For 10^4 and 10^6 points of a two-series time chart (`user`, `system`) it builds the same
// data as line protocol (one line per timestamp, two fields, a host tag), JSON rows, JSON
// columns and CSV, then measures on one thread:
//   - parse + validate: bytes → PointBatch → ValidatedBatch (the work the server does on a worker);
//   - apply: ValidatedBatch → a fresh ChartStore with a 1,000,000-point window (service thread).
// Line protocol is also measured gzip-compressed (inflate + parse + validate).
// Each cell is the best of several runs (a few for 10^6), so that other processes on the
// machine disturb the figures less.

import ChartCastDemo
import ChartCastIngest
import ChartEngine

struct IngestCase {
    var format: String
    var points: Int
    var body: [UInt8]
    var gzip: Bool
    var parse: ([UInt8]) throws -> PointBatch
}

/// The benchmark's data: `points / 2` timestamps one second apart, two series, values with two
/// decimals from a fixed pseudo-random sequence. The JSON bodies are written by `PointsBody`
/// (what clients of the data API use); line protocol and CSV, which have no writer type, as text.
struct IngestData {
    let rows: Int
    let xs: [Int64]
    /// Values in hundredths.
    let user: [Int]
    let system: [Int]

    init(points: Int) {
        rows = points / 2
        var probe = SplitMix64(seed: 7)
        xs = (0..<rows).map { 1_733_011_200_000 + Int64($0) * 1_000 }
        user = (0..<rows).map { _ in Int(probe.next() % 10_000) }
        system = (0..<rows).map { _ in Int(probe.next() % 10_000) }
    }

    /// `cents` with two decimals, as line protocol and CSV carry it.
    private static func text(_ cents: Int) -> String { "\(cents / 100).\(cents % 100 < 10 ? "0" : "")\(cents % 100)" }

    /// `cents` as a number: the nearest double to the decimal `text(cents)` spells.
    private static func value(_ cents: Int) -> Double { Double(cents) / 100 }

    var lineProtocol: [UInt8] {
        var out = ""
        out.reserveCapacity(rows * 64)
        for k in 0..<rows { out += "cpu,host=a user=\(Self.text(user[k])),system=\(Self.text(system[k])) \(xs[k])000000\n" }
        return Array(out.utf8)
    }

    var jsonRows: [UInt8] {
        var points: [(series: String, x: XValue, y: Double?)] = []
        points.reserveCapacity(2 * rows)
        for k in 0..<rows {
            points.append((series: "user", x: .number(Double(xs[k])), y: Self.value(user[k])))
            points.append((series: "system", x: .number(Double(xs[k])), y: Self.value(system[k])))
        }
        return PointsBody.rows(points)
    }

    var jsonColumns: [UInt8] {
        PointsBody.columns(x: xs.map(Double.init), series: [(name: "user", values: user.map { Self.value($0) }),
                                                            (name: "system", values: system.map { Self.value($0) })])
    }

    var csv: [UInt8] {
        var out = "x,user,system\n"
        out.reserveCapacity(rows * 32)
        for k in 0..<rows { out += "\(xs[k]),\(Self.text(user[k])),\(Self.text(system[k]))\n" }
        return Array(out.utf8)
    }
}

struct IngestRow {
    var format: String
    var points: Int
    var bytes: Int
    var parseSeconds: Double
    var applySeconds: Double?
}

func runIngestBench(sizes: [Int], quick: Bool) {
    let spec = ChartSpec(id: "cpu", title: "CPU", mark: .line, xKind: .time, series: ["user", "system"],
                         window: 1_000_000)
    let lpSpec = ChartSpec(id: "cpu", title: "CPU", mark: .line, xKind: .time,
                           series: ["user{host=a}", "system{host=a}"], window: 1_000_000)
    var table: [IngestRow] = []
    for n in sizes {
        progress("ingest: building \(n)-point bodies …")
        let data = IngestData(points: n)
        let lp = data.lineProtocol
        let cases = [
            IngestCase(format: "line protocol", points: n, body: lp, gzip: false) { body in
                try LineProtocolParser.parse(body, precision: .nanoseconds, receivedAt: 0).charts[0].points
            },
            IngestCase(format: "line protocol, gzip", points: n, body: Gzip.compress(lp), gzip: true) { body in
                try LineProtocolParser.parse(try Gzip.inflate(body), precision: .nanoseconds, receivedAt: 0).charts[0].points
            },
            IngestCase(format: "JSON rows", points: n, body: data.jsonRows, gzip: false) { try JSONPointsParser.parse($0) },
            IngestCase(format: "JSON columns", points: n, body: data.jsonColumns, gzip: false) { try JSONPointsParser.parse($0) },
            IngestCase(format: "CSV", points: n, body: data.csv, gzip: false) { try CSVPointsParser.parse($0) },
        ]
        let reps = n >= 1_000_000 ? (quick ? 2 : 4) : (quick ? 20 : 100)
        for c in cases {
            progress("ingest: \(c.format), \(n) points")
            let target = c.format.hasPrefix("line protocol") ? lpSpec : spec
            var validated: ValidatedBatch?
            var best = Double.infinity
            for _ in 0..<reps {
                let start = clock.now
                do {
                    let batch = try c.parse(c.body)
                    validated = try batch.validate(against: target)
                } catch {
                    fail("\(c.format): \(error)")
                }
                best = Swift.min(best, seconds(clock.now - start))
            }
            guard let validated, validated.accepted == n else { fail("\(c.format): expected \(n) points") }
            var applyBest: Double? = nil
            if !c.gzip {
                for _ in 0..<Swift.max(1, reps / 2) {
                    let store = ChartStore(spec: target)
                    let start = clock.now
                    do { try validated.apply(to: store) } catch { fail("\(c.format): \(error)") }
                    applyBest = Swift.min(applyBest ?? .infinity, seconds(clock.now - start))
                    sink += Double(store.count)
                }
            }
            table.append(IngestRow(format: c.format, points: n, bytes: c.body.count, parseSeconds: best, applySeconds: applyBest))
        }
    }
    print("| format | points | body | parse + validate | points/s | MB/s | apply, window 1,000,000 (points/s) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for row in table {
        let rate = Double(row.points) / row.parseSeconds
        let mbps = Double(row.bytes) / row.parseSeconds / 1e6
        let apply = row.applySeconds.map { "\(formatRate(Double(row.points) / $0))" } ?? "–"
        print("| \(row.format) | \(row.points) | \(formatBytes(row.bytes)) | \(formatTime(row.parseSeconds)) | "
              + "\(formatRate(rate)) | \(Int(mbps.rounded())) | \(apply) |")
    }
}

func seconds(_ d: Duration) -> Double { nanoseconds(d) / 1e9 }

func formatRate(_ perSecond: Double) -> String {
    perSecond >= 1e6 ? "\(Double(Int(perSecond / 1e4)) / 100) M" : "\(Int((perSecond / 1e3).rounded())) k"
}

func formatBytes(_ n: Int) -> String {
    n >= 1 << 20 ? "\(Double(Int(Double(n) / Double(1 << 20) * 10)) / 10) MiB" : "\(Int((Double(n) / 1024).rounded())) KiB"
}

func formatTime(_ s: Double) -> String {
    s >= 1 ? "\(Double(Int(s * 100)) / 100) s" : "\(Double(Int(s * 1e5)) / 100) ms"
}
