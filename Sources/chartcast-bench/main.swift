// chartcast-bench: how the engine's O(log n) lookups compare with the seeds' linear scans.
//
// For n = 10^3, 10^5, 10^6, 10^7 points it measures nanoseconds per
//   - hover lookup: pointer pixel → x value (`ChartProxy`) → nearest point by binary search vs.
//     seed 004's `findElement` (the same x value, then a scan of every point for the smallest distance);
//   - hover event: the whole `SelectionEngine.pointer(.move)` path (gesture, lookup, hover list,
//     change detection), engine only, to show the constant cost around the lookup;
//   - range-total update: `indexRange` + `totals` on the segment trees vs. seed 001's
//     `filter { from ≤ x ≤ to }` followed by a sum/min/max pass;
//   - append to a full rolling window: `ChartStore.upsert` (circular buffer, tree update,
//     domains) vs. an array `append` + `removeFirst` + a scan for the y maximum (seed 002's `maxVal()`).
// Linear-scan repetitions are limited by a time budget so that 10^7 finishes in minutes.
// `--ingest` measures write-body parsing instead (IngestBench.swift): points/s at 10^4 and 10^6.
// `--storage` measures the history store (StorageBench.swift): committed ingest, bytes per point,
// open and downsampled reads of --max-n stored points.
// `--m4` measures M4 downsampling and the store's memory per series instead (M4Bench.swift).
// `--event` measures the server's own work for one pointer event, no sockets (EventBench.swift);
// `--max-n` caps its audience.
//
// Usage: chartcast-bench [--max-n N] [--quick] [--ingest | --storage | --m4 | --event]
// The table goes to stdout (Markdown); progress goes to stderr.

import ChartCastDemo
import ChartEngine
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Options

struct Options {
    var maxN = 10_000_000
    var quick = false
    var ingest = false
    var storage = false
    var m4 = false
    var event = false

    init(arguments: [String]) {
        var maxNGiven = false
        var i = 1
        while i < arguments.count {
            switch arguments[i] {
            case "--quick":
                quick = true
            case "--ingest":
                ingest = true
            case "--storage":
                storage = true
            case "--m4":
                m4 = true
            case "--event":
                event = true
            case "--max-n":
                i += 1
                guard i < arguments.count, let value = Int(arguments[i].replacingUnderscores()), value > 0 else {
                    fail("--max-n needs a positive integer")
                }
                maxN = value
                maxNGiven = true
            case "-h", "--help":
                print("usage: chartcast-bench [--max-n N] [--quick] [--ingest | --storage | --m4 | --event]")
                exit(0)
            default:
                fail("unknown argument \(arguments[i])")
            }
            i += 1
        }
        if quick && !maxNGiven { maxN = 1_000_000 }
    }

    /// Wall-clock budget per measured cell.
    var budget: Duration { quick ? .milliseconds(60) : .milliseconds(400) }
}

extension String {
    func replacingUnderscores() -> String { String(filter { $0 != "_" }) }
}

func fail(_ message: String) -> Never {
    progress("chartcast-bench: \(message)")
    exit(2)
}

// MARK: - Measurement

let clock = ContinuousClock()

/// Runs `body(i)` for increasing `i` until the budget is spent (at least `minReps`, at most
/// `maxReps` times) and returns nanoseconds per call.
func measure(budget: Duration, minReps: Int = 3, maxReps: Int = 2_000_000, _ body: (Int) -> Void) -> Double {
    // Warm up once and use it to size batches.
    let first = clock.measure { body(0) }
    var reps = 1
    var elapsed = first
    var batch = 1
    while (elapsed < budget || reps < minReps) && reps < maxReps {
        let n = Swift.min(batch, maxReps - reps)
        let base = reps
        elapsed += clock.measure { for k in 0..<n { body(base + k) } }
        reps += n
        batch = Swift.min(batch * 2, 65_536)
    }
    let measured = elapsed - first
    let counted = reps - 1
    guard counted > 0 else { return nanoseconds(first) }
    return nanoseconds(measured) / Double(counted)
}

func nanoseconds(_ d: Duration) -> Double {
    let (seconds, attoseconds) = d.components
    return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
}

func progress(_ message: String) {
    var stderr = StandardError()
    print(message, to: &stderr)
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        fputs(string, stderr)
    }
}

/// Keeps results alive so the optimiser cannot drop the measured work.
var sink = 0.0

// MARK: - Workloads

/// One point as the seeds keep it: an array of structs.
struct SeedPoint {
    var x: Double
    var y: Double
}

func makeStore(n: Int, window: Int?) -> ChartStore {
    let spec = ChartSpec(id: "bench", title: "Bench", mark: .line, xKind: .linear, series: ["y"],
                         interactions: Interactions(hover: true, drag: .range, tap: true), window: window)
    let store = ChartStore(spec: spec)
    for i in 0..<n { store.upsert(x: Double(i), values: [Double((i &* 7919) % 1000)]) }
    return store
}

struct Row {
    var n: Int
    var operation: String
    var engine: Double
    /// `nil` when there is no linear counterpart to compare with.
    var linear: Double?
}

func run(n: Int, budget: Duration) -> [Row] {
    progress("n = \(n): building store …")
    let store = makeStore(n: n, window: n)
    var seed = (0..<n).map { SeedPoint(x: Double($0), y: Double(($0 &* 7919) % 1000)) }
    let viewport = Viewport(x: 0, y: 0, width: 1_000, height: 500, rtl: false)
    var probe = SplitMix64(seed: 42)
    let probes = (0..<4_096).map { _ in probe.unit() }
    var rows: [Row] = []

    progress("n = \(n): hover lookup")
    let proxy = ChartProxy(store: store, viewport: viewport)
    let hoverEngine = measure(budget: budget) { i in
        let px = probes[i & 4_095] * viewport.width
        guard case .number(let target)? = proxy.value(atX: px) else { return }
        sink += Double(store.nearestIndex(toX: target) ?? 0)
    }
    let hoverLinear = measure(budget: budget) { i in
        // Seed 004's findElement: the x value under the pointer, then the closest point by scanning all.
        let px = probes[i & 4_095] * viewport.width
        guard case .number(let target)? = proxy.value(atX: px) else { return }
        var best = -1, bestDistance = Double.infinity
        for k in seed.indices where Swift.abs(seed[k].x - target) < bestDistance {
            bestDistance = Swift.abs(seed[k].x - target)
            best = k
        }
        sink += Double(best)
    }
    rows.append(Row(n: n, operation: "hover lookup", engine: hoverEngine, linear: hoverLinear))

    progress("n = \(n): hover event")
    let engine = SelectionEngine(store: store)
    let hoverEvent = measure(budget: budget) { i in
        let px = probes[i & 4_095] * viewport.width
        if engine.pointer(viewer: "v1", phase: .move, x: px, y: 10, viewport: viewport) { sink += 1 }
    }
    rows.append(Row(n: n, operation: "hover event (whole engine path)", engine: hoverEvent, linear: nil))

    progress("n = \(n): range totals")
    let totalsEngine = measure(budget: budget) { i in
        let a = probes[i & 4_095] * Double(n), b = probes[(i + 1) & 4_095] * Double(n)
        let range = store.indexRange(fromX: Swift.min(a, b), toX: Swift.max(a, b))
        let t = store.totals(series: 0, in: range)
        sink += t.sum + (t.max ?? 0)
    }
    let totalsLinear = measure(budget: budget) { i in
        // Seed 001's selectedData filter, then the totals shown under the chart.
        let a = probes[i & 4_095] * Double(n), b = probes[(i + 1) & 4_095] * Double(n)
        let lo = Swift.min(a, b), hi = Swift.max(a, b)
        let selected = seed.filter { $0.x >= lo && $0.x <= hi }
        var sum = 0.0, maxY = -Double.infinity, minY = Double.infinity
        for p in selected { sum += p.y; maxY = Swift.max(maxY, p.y); minY = Swift.min(minY, p.y) }
        sink += sum + Double(selected.count) + (selected.isEmpty ? 0 : maxY + minY)
    }
    rows.append(Row(n: n, operation: "range totals", engine: totalsEngine, linear: totalsLinear))

    progress("n = \(n): append to a full window")
    var nextX = Double(n)
    let appendEngine = measure(budget: budget) { i in
        let change = store.upsert(x: nextX, values: [Double(i % 1000)])
        nextX += 1
        if change.yDomainChanged { sink += 1 }
    }
    var seedNextX = Double(n)
    let appendLinear = measure(budget: budget) { i in
        // The seeds' @State array as a rolling window, then seed 002's maxVal() for the y domain.
        seed.append(SeedPoint(x: seedNextX, y: Double(i % 1000)))
        seedNextX += 1
        if seed.count > n { seed.removeFirst() }
        var maxY = -Double.infinity
        for p in seed where p.y > maxY { maxY = p.y }
        sink += maxY
    }
    rows.append(Row(n: n, operation: "append (window full)", engine: appendEngine, linear: appendLinear))
    return rows
}

// MARK: - Main

func format(_ ns: Double) -> String {
    if ns >= 1e6 { return String(Int((ns / 1e3).rounded())) + " µs" }
    if ns >= 100 { return String(Int(ns.rounded())) + " ns" }
    let tenths = Int((ns * 10).rounded())
    return "\(tenths / 10).\(tenths % 10) ns"
}

let options = Options(arguments: CommandLine.arguments)
if options.event {
    runEventBench(maxViewers: options.maxN, quick: options.quick)
    progress("done")
    exit(0)
}
if options.m4 {
    runM4Bench(quick: options.quick)
    progress("done (checksum \(sink))")
    exit(0)
}
if options.ingest {
    let ingestSizes = [10_000, 1_000_000].filter { $0 <= options.maxN }
    guard !ingestSizes.isEmpty else { fail("--max-n must be at least 10000 with --ingest") }
    runIngestBench(sizes: ingestSizes, quick: options.quick)
    progress("done (checksum \(sink))")
    exit(0)
}
if options.storage {
    runStorageBench(points: options.maxN, quick: options.quick)
    progress("done")
    exit(0)
}
let sizes = [1_000, 100_000, 1_000_000, 10_000_000].filter { $0 <= options.maxN }
guard !sizes.isEmpty else { fail("--max-n must be at least 1000") }
var table: [Row] = []
for n in sizes { table += run(n: n, budget: options.budget) }

print("| n | operation | engine ns/op | linear scan ns/op | speed-up |")
print("|---:|---|---:|---:|---:|")
for row in table {
    guard let linear = row.linear else {
        print("| \(row.n) | \(row.operation) | \(format(row.engine)) | – | – |")
        continue
    }
    let ratio = linear / Swift.max(row.engine, 1e-9)
    let tenths = Int((ratio * 10).rounded())
    let ratioText = ratio >= 100 ? String(Int(ratio.rounded())) : "\(tenths / 10).\(tenths % 10)"
    print("| \(row.n) | \(row.operation) | \(format(row.engine)) | \(format(linear)) | \(ratioText)× |")
}
progress("done (checksum \(sink))")
