// chartcast-bench --m4: M4 downsampling throughput and the store's memory per series.
//
// For live windows of 10^5 and 10^6 rows (the ring filled past its end, so the rows wrap around
// the buffer as they do in a running chart) with 1 and 4 series of a random walk, and plot
// widths of 600, 1,000 and 1,400 px, it measures one downsampling of the whole window as the
// server does it for a snapshot: `m4Plan` (the columns' row ranges, by binary search) and
// `m4Rows` per series into a reused buffer. Plain arrays (`M4.downsample`) are measured at 10^7.
// Throughput is points (rows × series) per second on one core; each cell is the best of several
// runs. Memory: resident bytes (free heap trimmed) before and after filling a store with
// 1,000,000 rows of 1 and of 2 series; the difference is what one more series costs.

import ChartCastDemo
@_spi(Benchmarks) import ChartCastServer
import ChartEngine
#if canImport(Glibc)
import Glibc
#endif

struct M4Row {
    var layout: String
    var rows: Int
    var series: Int
    var width: Int
    var nanoseconds: Double
    var kept: Int

    var pointsPerSecond: Double { Double(rows * series) / nanoseconds * 1e9 }
}

/// A random walk with occasional jumps: x one apart, y wandering.
func m4Walk(_ n: Int, seed: UInt64) -> [Double] {
    var probe = SplitMix64(seed: seed)
    var y = 0.0
    return (0..<n).map { _ in
        let r = probe.unit()
        y += r < 0.01 ? (probe.unit() - 0.5) * 200 : probe.unit() - 0.5
        return y
    }
}

/// A store of `series` series whose window of `rows` rows was filled a third past its end.
func m4Store(rows: Int, series: Int) -> ChartStore {
    let spec = ChartSpec(id: "m4", title: "M4", mark: .line, xKind: .linear,
                         series: (0..<series).map { "s\($0)" }, window: rows)
    let store = ChartStore(spec: spec)
    let total = rows + rows / 3
    let walks = (0..<series).map { m4Walk(total, seed: UInt64(17 + $0)) }
    var values = [Double?](repeating: nil, count: series)
    store.batch {
        for i in 0..<total {
            for s in 0..<series { values[s] = walks[s][i] }
            store.upsert(x: Double(i), values: values)
        }
    }
    return store
}

/// Best time of `runs` runs of `body`, in nanoseconds (after one warm-up run).
func best(runs: Int, _ body: () -> Void) -> Double {
    body()
    var fastest = Double.infinity
    for _ in 0..<runs { fastest = Swift.min(fastest, nanoseconds(clock.measure(body))) }
    return fastest
}

/// Resident bytes of this process (`/proc/self/statm`), after handing free heap memory back to
/// the system (glibc's `malloc_trim`, found at run time: Swift's Glibc module lacks `malloc.h`),
/// so that what the stores' growth freed is not counted.
func residentBytes() -> Int {
    if let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "malloc_trim") {
        typealias Trim = @convention(c) (Int) -> Int32
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }
    guard let file = fopen("/proc/self/statm", "r") else { return 0 }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    guard fgets(&line, Int32(line.count), file) != nil else { return 0 }
    // "size resident shared …", in pages.
    let fields = String(cString: line).split(separator: " ").compactMap { Int($0) }
    guard fields.count >= 2 else { return 0 }
    return fields[1] * Int(sysconf(Int32(_SC_PAGESIZE)))
}

func runM4Bench(quick: Bool) {
    let runs = quick ? 3 : 9
    var table: [M4Row] = []
    for rows in [100_000, 1_000_000] {
        for series in [1, 4] {
            progress("m4: \(rows) rows × \(series) series: building …")
            let store = m4Store(rows: rows, series: series)
            let (d0, d1) = store.xDomain
            var out: [Int] = []
            out.reserveCapacity(4 * 1_400)
            for width in [600, 1_000, 1_400] {
                let grid = M4Grid(from: d0, to: d1, columns: width)!
                var kept = 0
                let ns = best(runs: runs) {
                    let plan = store.m4Plan(grid)
                    kept = 0
                    for s in 0..<series {
                        out.removeAll(keepingCapacity: true)
                        store.m4Rows(series: s, plan: plan, into: &out)
                        kept += out.count
                    }
                    sink += Double(out.last ?? 0)
                }
                table.append(M4Row(layout: "store (ring)", rows: rows, series: series, width: width, nanoseconds: ns, kept: kept))
            }
        }
    }
    let n = quick ? 1_000_000 : 10_000_000
    progress("m4: plain arrays, \(n) points …")
    let xs = (0..<n).map(Double.init)
    let ys = m4Walk(n, seed: 5)
    for width in [1_000] {
        let grid = M4Grid(from: 0, to: Double(n - 1), columns: width)!
        var kept = 0
        let ns = best(runs: Swift.max(3, runs / 3)) {
            let result = M4.downsample(xs: xs, ys: [ys], grid: grid)
            kept = result[0].count
            sink += Double(result[0].last ?? 0)
        }
        table.append(M4Row(layout: "arrays", rows: n, series: 1, width: width, nanoseconds: ns, kept: kept))
    }

    print("| layout | rows | series | width px | points kept | time | points/s (one core) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for row in table {
        let millions = Int((row.pointsPerSecond / 1e6).rounded())
        print("| \(row.layout) | \(row.rows) | \(row.series) | \(row.width) | \(row.kept) | \(format(row.nanoseconds)) | \(millions) M |")
    }

    progress("m4: first snapshots …")
    print("")
    print("| first snapshot of a live window (downsampled + encoded) | series | width px | bytes | best | median |")
    print("|---|---:|---:|---:|---:|---:|")
    for series in [1, 4] {
        let store = m4Store(rows: 1_000_000, series: series)
        for width in [1_000] {
            var times: [Double] = []
            var bytes = 0
            for _ in 0..<(runs + 1) {
                let result = SnapshotBenchmark.firstSnapshot(of: store, columns: width)
                times.append(result.nanoseconds)
                bytes = result.bytes
            }
            times.removeFirst()   // warm-up
            times.sort()
            print("| 1,000,000 rows | \(series) | \(width) | \(bytes) | \(format(times[0])) | \(format(times[times.count / 2])) |")
        }
    }

    progress("m4: memory …")
    let rows = 1_000_000
    let before = residentBytes()
    let one = m4Store(rows: rows, series: 1)
    let withOne = residentBytes()
    let two = m4Store(rows: rows, series: 2)
    let withTwo = residentBytes()
    sink += Double(one.count + two.count)
    let oneChart = withOne - before, twoCharts = withTwo - withOne
    let perSeries = twoCharts - oneChart
    print("")
    print("| store of 1,000,000 rows | resident memory |")
    print("|---|---:|")
    print("| 1 series (x column + 1 y column + its tree) | \(mebibytes(oneChart)) |")
    print("| 2 series | \(mebibytes(twoCharts)) |")
    print("| each further series | \(mebibytes(perSeries)) |")
    print("| x column (1 series minus one series' cost) | \(mebibytes(oneChart - perSeries)) |")
}

func mebibytes(_ bytes: Int) -> String {
    let tenths = Int((Double(bytes) / 1_048_576 * 10).rounded())
    return "\(tenths / 10).\(tenths % 10) MiB"
}
