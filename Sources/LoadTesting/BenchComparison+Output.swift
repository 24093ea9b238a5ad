#if canImport(Glibc)
import Glibc
#endif
import ChartCastProtocol

extension BenchComparison {
    /// The side-by-side table: scenario, metric, ChartCast, mirror, ratio, target, verdict.
    public var table: String {
        let header = ["scenario", "metric", "chartcast", "mirror", "ratio", "target", "met"]
        var lines: [[String]] = [header]
        for r in rows {
            let ratio: String
            if let a = r.chartcast, let b = r.mirror, b != 0 { ratio = Format.fixed(a / b, 2) + "×" } else { ratio = "" }
            lines.append([r.scenario, r.metric, r.chartcast.map(Self.show) ?? "-", r.mirror.map(Self.show) ?? "-", ratio, r.target,
                          r.met.map { $0 ? "yes" : "NO" } ?? ""])
        }
        var widths = [Int](repeating: 0, count: header.count)
        for line in lines { for (i, cell) in line.enumerated() { widths[i] = max(widths[i], cell.count) } }
        var out = ""
        var previous = ""
        for (n, line) in lines.enumerated() {
            if n > 1 && line[0] != previous { out += "\n" }
            previous = line[0]
            let cells = line.enumerated().map { i, cell -> String in
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                return (i >= 2 && i <= 4) ? pad + cell : cell + pad
            }
            out += cells.joined(separator: "  ").trimmingTrailingSpaces() + "\n"
        }
        let missed = rows.filter { $0.met == false }
        out += "\n" + (missed.isEmpty ? "all targets met\n"
            : "targets missed: " + missed.map { "\($0.scenario) \($0.metric)" }.joined(separator: "; ") + "\n")
        return out
    }

    /// The whole comparison as JSON: every row, plus each scenario's two full reports.
    public var json: [UInt8] {
        var w = JSONWriter(capacity: 16_384)
        w.beginObject()
        w.key("allTargetsMet"); w.bool(allTargetsMet)
        w.key("rows"); w.beginArray()
        for r in rows {
            w.beginObject()
            w.key("scenario"); w.string(r.scenario)
            w.key("metric"); w.string(r.metric)
            w.key("chartcast"); w.number(r.chartcast)
            w.key("mirror"); w.number(r.mirror)
            w.key("target"); w.string(r.target)
            w.key("met"); if let met = r.met { w.bool(met) } else { w.null() }
            w.endObject()
        }
        w.endArray()
        w.key("scenarios"); w.beginObject()
        for s in scenarios {
            w.key(s.name); w.beginObject()
            w.key("chartcast"); w.value(s.chartcast)
            w.key("mirror"); w.value(s.mirror ?? .null)
            if let floor = s.floor { w.key("floor"); w.value(floor) }
            w.endObject()
        }
        w.endObject()
        w.endObject()
        return w.bytes
    }

    /// A figure with sensible precision: integers as is, small values with two decimals.
    static func show(_ v: Double) -> String {
        if v == v.rounded() && abs(v) < 1e12 { return Format.fixed(v, 0) }
        return abs(v) >= 100 ? Format.fixed(v, 0) : Format.fixed(v, 2)
    }

    /// Loads `<scenario>.chartcast.json` / `<scenario>.mirror.json` pairs (and `<scenario>.floor.json`
    /// where there is one) from `directory`.
    /// - Throws: `ReportWriteError` when the directory cannot be read or a report is not JSON.
    public static func load(directory: String) throws -> BenchComparison {
        guard let dir = opendir(directory) else { throw ReportWriteError(description: "cannot open \(directory)") }
        var names: [String] = []
        while let entry = readdir(dir) {
            names.append(withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) })
        }
        closedir(dir)
        var scenarios: [Scenario] = []
        for name in names.sorted() where name.hasSuffix(".chartcast.json") {
            let base = String(name.dropLast(".chartcast.json".count))
            guard let chartcast = try readJSON("\(directory)/\(name)") else { continue }
            let mirror = try readJSON("\(directory)/\(base).mirror.json")
            let floor = try readJSON("\(directory)/\(base).floor.json")
            scenarios.append(Scenario(name: base, chartcast: chartcast, mirror: mirror, floor: floor))
        }
        return BenchComparison(scenarios: scenarios)
    }

    /// Writes `json` (plus a newline) to `path`.
    /// - Throws: `ReportWriteError` when the file cannot be written.
    public func writeJSON(to path: String) throws { try ReportWriteError.write(json, to: path) }

    private static func readJSON(_ path: String) throws -> JSONValue? {
        guard let text = ServerProcess.readText(path) else { return nil }
        do { return try JSONReader.parse(text) } catch { throw ReportWriteError(description: "\(path): \(error)") }
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}
