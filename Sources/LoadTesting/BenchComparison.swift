import ChartCastProtocol

/// The side-by-side benchmark table: ChartCast against the lws mirror baseline, scenario by
/// scenario, with ratios and the performance targets checked.
///
/// Input is the JSON reports `chartcast-load --json` wrote, named `<scenario>.chartcast.json`
/// and `<scenario>.mirror.json`; `bench/run.sh` produces them. Scenario names carry the targets:
/// `n100` (p99 ≤ mirror + 1 ms), `n1000` (p99 ≤ 10 ms and ≤ 0.6× the mirror's), `n5000` (p99 ≤ 40 ms,
/// CPU per frame ≤ 1.1× ChartCast's own at `n1000`, converged),
/// `stall1000` (p99 less than 10 % above that of `range1000` — the same load without the stalled
/// viewer — or of `n1000`, bounded memory, converged), `hold10k` (every connection held).
/// `leave5000` (5,000 viewers leave at once: server CPU per departure ≤ per arrival),
/// `ingest100` (HTTP ingest of 10,000-point writes while 100 viewers watch: ≥ 300,000 points/s
/// accepted, and the viewers' fan-out p99 within 2× of `n100`'s, the same load without ingest).
/// Every scenario with a mirror run also checks CPU per frame (`n100` ≤ 0.8×, `n1000` ≤ 0.5×,
/// `n5000` ≤ 0.4×, others ≤ 1.0×) and, from 1000 viewers
/// up, RSS per idle viewer (≤ 1.5×). Every scenario reports the server's CPU per arrival and
/// per departure.
public struct BenchComparison {
    /// One scenario's pair of reports.
    public struct Scenario {
        public var name: String
        public var chartcast: JSONValue
        public var mirror: JSONValue?
        /// `chartcast-load --send-floor` with the scenario's sockets, rate and message size.
        public var floor: JSONValue?
        public init(name: String, chartcast: JSONValue, mirror: JSONValue?, floor: JSONValue? = nil) {
            self.name = name
            self.chartcast = chartcast
            self.mirror = mirror
            self.floor = floor
        }
    }

    /// One table row.
    public struct Row: Equatable {
        public var scenario: String
        public var metric: String
        public var chartcast: Double?
        public var mirror: Double?
        /// The target's wording, empty when the row is informational.
        public var target: String
        /// nil when there is no target or a figure is missing.
        public var met: Bool?
    }

    public let scenarios: [Scenario]
    public private(set) var rows: [Row] = []

    /// Scenario order in the table.
    static let order = ["n100", "n1000", "n5000", "range1000", "stall1000", "hold10k", "leave5000", "ingest100"]

    public init(scenarios: [Scenario]) {
        self.scenarios = scenarios.sorted {
            (Self.order.firstIndex(of: $0.name) ?? 99, $0.name) < (Self.order.firstIndex(of: $1.name) ?? 99, $1.name)
        }
        for s in self.scenarios { rows += Self.rows(for: s, all: self.scenarios) }
    }

    /// True when every row that has a target met it.
    public var allTargetsMet: Bool { rows.allSatisfy { $0.met != false } }

    static func number(_ v: JSONValue?, _ path: String...) -> Double? {
        var cur = v
        for key in path { cur = cur?[key] }
        return cur?.number
    }

    /// CPU per frame against the mirror's, by scenario (issue 12's targets; 1.0× elsewhere).
    static let cpuPerFrameTarget: [String: Double] = ["n100": 0.8, "n1000": 0.5, "n5000": 0.4]

    private static func rows(for s: Scenario, all: [Scenario]) -> [Row] {
        var rows: [Row] = []
        let c = s.chartcast, m = s.mirror
        func row(_ metric: String, _ path: [String], target: String = "", check: ((Double, Double?) -> Bool)? = nil) {
            var cv: JSONValue? = c, mv: JSONValue? = m
            for key in path { cv = cv?[key]; mv = mv?[key] }
            let a = cv?.number, b = mv?.number
            var met: Bool? = nil
            if let check, let a { met = check(a, b) }
            rows.append(Row(scenario: s.name, metric: metric, chartcast: a, mirror: b, target: target, met: met))
        }
        let viewers = Int(number(c, "viewers") ?? 0)
        let rate = number(c, "rate") ?? 0
        row("viewers × rate (Hz)", ["viewers"])
        rows[rows.count - 1].metric = "viewers (\(viewers) × \(Format.fixed(rate, 0)) Hz)"
        row("connections ok", ["connections", "ok"])
        row("connections failed", ["connections", "failed"], target: "0") { a, b in a == 0 }
        row("handshakes/s", ["handshakesPerSecond"])
        row("achieved rate (Hz)", ["achievedRate"])
        row("state msg bytes (mean)", ["meanStateBytes"])
        row("fan-out p50 (ms)", ["fanoutMs", "p50"])
        switch s.name {
        case "n100":
            row("fan-out p99 (ms)", ["fanoutMs", "p99"], target: "≤ mirror + 1 ms") { a, b in b.map { a <= $0 + 1 } ?? false }
        case "n1000":
            row("fan-out p99 (ms)", ["fanoutMs", "p99"], target: "≤ 10 ms, ≤ 0.6× mirror") { a, b in a <= 10 && b.map { a <= 0.6 * $0 } ?? true }
        case "n5000":
            row("fan-out p99 (ms)", ["fanoutMs", "p99"], target: "≤ 40 ms") { a, _ in a <= 40 }
        case "ingest100":
            let idle = all.first { $0.name == "n100" }.flatMap { number($0.chartcast, "fanoutMs", "p99") }
            row("fan-out p99 (ms)", ["fanoutMs", "p99"], target: idle.map { "≤ 2× n100's (\(Format.fixed($0, 2)))" } ?? "≤ 2× n100's") { a, _ in
                idle.map { a <= 2 * $0 } ?? false
            }
            row("ingest points/s", ["ingest", "pointsPerSecond"], target: "≥ 300,000") { a, _ in a >= 300_000 }
            row("ingest write p99 (ms)", ["ingest", "requestMs", "p99"])
            if (number(c, "ingest", "toViewerMs", "count") ?? 0) > 0 {
                row("ingest → viewer p99 (ms)", ["ingest", "toViewerMs", "p99"])
            } else {
                // No batch was timed (no viewer received an ingest chart's update): say so, not 0 ms.
                rows.append(Row(scenario: s.name, metric: "ingest → viewer p99 (ms), not measured", chartcast: nil, mirror: nil, target: "", met: nil))
            }
        case "stall1000":
            // The same load without the stalled viewer: `range1000`, else `n1000`.
            let baseline = all.first { $0.name == "range1000" } ?? all.first { $0.name == "n1000" }
            let base = baseline.flatMap { number($0.chartcast, "fanoutMs", "p99") }
            let baseName = baseline?.name ?? "n1000"
            row("fan-out p99 (ms)", ["fanoutMs", "p99"], target: base.map { "< 1.1× \(baseName)'s (\(Format.fixed($0, 2)))" } ?? "") { a, _ in
                guard let base, base > 0 else { return false }
                return a < 1.10 * base
            }
            let basePeak = baseline.flatMap { number($0.chartcast, "server", "peakRSS") }
            if let basePeak, let peak = number(c, "server", "peakRSS") {
                let delta = (peak - basePeak) / 1_048_576
                rows.append(Row(scenario: s.name, metric: "peak RSS − \(baseName)'s (MiB)", chartcast: delta, mirror: nil,
                                target: "bounded (< 8 MiB)", met: delta < 8))
            }
            row("stalled viewer's seq lag at resume", ["stalledLag"])
        default:
            row("fan-out p99 (ms)", ["fanoutMs", "p99"])
        }
        row("fan-out max (ms)", ["fanoutMs", "max"])
        // The tester's own delay on top: one thread reads every viewer's frame.
        row("fan-out p99 as read by the tester (ms)", ["fanoutReadMs", "p99"])
        row("freshness p99 (ms)", ["freshnessMs", "p99"])
        if m != nil {
            let ratio = Self.cpuPerFrameTarget[s.name] ?? 1.0
            row("server CPU / frame (µs)", ["server", "cpuMicrosPerFrame"], target: "≤ \(Format.fixed(ratio, 1))× mirror") { a, b in
                b.map { a <= ratio * $0 } ?? false
            }
            if s.name == "n5000", let own = all.first(where: { $0.name == "n1000" }).flatMap({ number($0.chartcast, "server", "cpuMicrosPerFrame") }) {
                let a = number(c, "server", "cpuMicrosPerFrame")
                rows.append(Row(scenario: s.name, metric: "server CPU / frame ÷ own n1000's", chartcast: a.map { $0 / own }, mirror: nil,
                                target: "≤ 1.1", met: a.map { $0 / own <= 1.1 }))
            }
            if let f = s.floor { rows += floorRows(s.name, c, m, f, ratio: ratio) }
            if viewers >= 1000 {
                row("RSS / idle viewer (B)", ["server", "rssPerIdleViewer"], target: "≤ 1.5× mirror") { a, b in b.map { a <= 1.5 * $0 } ?? false }
            } else {
                row("RSS / idle viewer (B)", ["server", "rssPerIdleViewer"])
            }
        }
        row("server CPU while driving (%)", ["server", "driveCPUPercent"])
        row("server CPU / arrival (µs)", ["server", "arrivalCPUMicrosPerViewer"])
        if s.name == "leave5000" {
            let arrival = number(c, "server", "arrivalCPUMicrosPerViewer")
            row("server CPU / departure (µs)", ["server", "departureCPUMicrosPerViewer"],
                target: arrival.map { "≤ per arrival (\(Format.fixed($0, 0)))" } ?? "≤ per arrival") { a, _ in
                arrival.map { a <= $0 } ?? false
            }
        } else {
            row("server CPU / departure (µs)", ["server", "departureCPUMicrosPerViewer"])
        }
        row("departures done after (s)", ["server", "departureSeconds"])
        row("server peak RSS (MiB)", ["server", "peakRSS"])
        if let i = rows.indices.last { rows[i].chartcast = rows[i].chartcast.map { $0 / 1_048_576 }; rows[i].mirror = rows[i].mirror.map { $0 / 1_048_576 } }
        let convC = c["convergence"]?["converged"]?.bool
        let convM = m?["convergence"]?["converged"]?.bool
        let convTarget = ["n5000", "stall1000", "hold10k"].contains(s.name) ? "converged" : ""
        rows.append(Row(scenario: s.name, metric: "converged (1 = yes)", chartcast: convC.map { $0 ? 1 : 0 },
                        mirror: convM.map { $0 ? 1 : 0 }, target: convTarget, met: convTarget.isEmpty ? nil : convC == true))
        if s.name == "hold10k" {
            let ok = number(c, "connections", "ok") ?? 0
            rows.append(Row(scenario: s.name, metric: "concurrent viewers held", chartcast: ok, mirror: number(m, "connections", "ok"),
                            target: "≥ 10,000", met: ok >= 10_000 && (number(c, "connections", "dropped") ?? 1) == 0))
        }
        return rows
    }

    /// The scenario against the send() floor: what a bare loop of `send()`s pays for the same
    /// frames on this machine, each server's CPU per frame as a multiple of it, where the CPU
    /// target sits above it, and the floor's own fan-out p99 (informational rows: the floor is
    /// what no one-thread server can go below).
    private static func floorRows(_ name: String, _ c: JSONValue, _ m: JSONValue?, _ f: JSONValue, ratio: Double) -> [Row] {
        guard let floor = number(f, "cpuMicrosPerFrame"), floor > 0 else { return [] }
        let cc = number(c, "server", "cpuMicrosPerFrame"), mc = number(m, "server", "cpuMicrosPerFrame")
        return [
            Row(scenario: name, metric: "send() floor: CPU / frame (µs)", chartcast: floor, mirror: nil, target: "", met: nil),
            Row(scenario: name, metric: "server CPU / frame ÷ send() floor", chartcast: cc.map { $0 / floor },
                mirror: mc.map { $0 / floor }, target: "", met: nil),
            Row(scenario: name, metric: "CPU target (\(Format.fixed(ratio, 1))× mirror) ÷ send() floor", chartcast: mc.map { ratio * $0 / floor },
                mirror: nil, target: "", met: nil),
            Row(scenario: name, metric: "send() floor: fan-out p99 (ms)", chartcast: number(f, "frameMs", "p99"), mirror: nil, target: "", met: nil),
        ]
    }
}
