import ChartCastIngest
import ChartCastProtocol
import ChartEngine

extension FuzzTarget {
    /// `JSONPointsParser.parse` (rows and columns bodies), then validation against a time, a
    /// linear and a category chart. Both JSON readers are strict RFC 8259: a body the one-pass
    /// points parser accepts must be a document `JSONReader` accepts too (but for its cap on
    /// the length of a number literal).
    static let ingestJSON = FuzzTarget(name: "ingest-json", summary: "JSONPointsParser (rows and columns bodies)") { bytes in
        IngestCheck.run(bytes) { try JSONPointsParser.parse(bytes, limits: $0) }
        guard (try? JSONPointsParser.parse(bytes)) != nil else { return }
        do {
            _ = try JSONReader.parse(bytes, maxDepth: IngestLimits.standard.maxDepth)
        } catch let error as JSONReadError {
            expect(error.reason == "number literal too long", "the points parser accepted what JSONReader refuses: \(error)")
        } catch {
            fatalError("unexpected error type: \(error)")
        }
    }

    /// `CSVPointsParser.parse`, then validation as for JSON.
    static let ingestCSV = FuzzTarget(name: "ingest-csv", summary: "CSVPointsParser (text/csv bodies)") { bytes in
        IngestCheck.run(bytes) { try CSVPointsParser.parse(bytes, limits: $0) }
    }

    /// `LineProtocolParser.parse` (the precision chosen by the input's length), then every chart's
    /// batch checked and validated as for JSON; chart ids are valid and distinct.
    static let lineProtocol = FuzzTarget(name: "line-protocol", summary: "LineProtocolParser (InfluxDB line protocol)") { bytes in
        let precisions = LineProtocolPrecision.allCases
        let precision = precisions[bytes.count % precisions.count]
        let parse = { (limits: IngestLimits) throws -> LineProtocolWrite in
            try LineProtocolParser.parse(bytes, precision: precision, receivedAt: IngestCheck.receivedAt, limits: limits)
        }
        let tight: LineProtocolWrite?
        do { tight = try parse(IngestCheck.tight) } catch { IngestCheck.checkRefusal(error); tight = nil }
        do {
            let write = try parse(.standard)
            expect(Set(write.charts.map(\.chart)).count == write.charts.count, "one chart listed twice")
            expect(2 * write.pointCount <= bytes.count, "\(write.pointCount) points from \(bytes.count) bytes")
            for chart in write.charts {
                expect(ChartSpec.isValidID(chart.chart), "chart id \(chart.chart)")
                expect(chart.points.count > 0, "a chart without points")
                IngestCheck.checkBatch(chart.points, bytes, .standard)
            }
            if let tight { expect(tight.pointCount == write.pointCount, "tight limits kept \(tight.pointCount) points, standard \(write.pointCount)") }
        } catch {
            IngestCheck.checkRefusal(error)
            expect(tight == nil, "accepted under tight limits, refused under standard ones: \(error)")
        }
    }

    /// `Gzip.inflate` on hostile input (bounded output), and a round trip of the input through
    /// `Gzip.compress`: inflated to itself, refused one byte under its size.
    static let gzip = FuzzTarget(name: "gzip", summary: "Gzip.inflate (gzip bodies), Gzip.compress round trip") { bytes in
        let limit = 1 << 20
        do {
            let inflated = try Gzip.inflate(bytes, limit: limit)
            expect(inflated.count <= limit, "inflated to \(inflated.count) bytes past the \(limit)-byte limit")
        } catch {
            IngestCheck.checkRefusal(error)
        }
        let compressed = Gzip.compress(bytes)
        do {
            let back = try Gzip.inflate(compressed, limit: bytes.count)
            expect(back == bytes, "a round trip changed \(bytes.count) bytes into \(back.count)")
        } catch {
            fatalError("cannot inflate its own gzip of \(bytes.count) bytes: \(error)")
        }
        if !bytes.isEmpty {
            do {
                _ = try Gzip.inflate(compressed, limit: bytes.count - 1)
                fatalError("\(bytes.count) bytes inflated under a limit of \(bytes.count - 1)")
            } catch let error as IngestError {
                expect(error.code == .tooLarge, "one byte over the limit was \(error.code)")
            } catch {
                fatalError("unexpected error type: \(error)")
            }
        }
    }
}

/// The invariants every parsed point body keeps, whatever the format.
enum IngestCheck {
    /// Epoch ms given to line-protocol lines without a timestamp.
    static let receivedAt = 1_733_011_200_000.0

    /// Small limits, so that every limit is reached by short inputs.
    static let tight = IngestLimits(maxPoints: 16, maxColumnLength: 16, maxSeriesPerChart: 3, maxSeriesNameBytes: 8,
                                    maxDepth: 4, maxInflatedBytes: 4096)

    /// A chart of each x kind to validate against.
    static let charts = [
        ChartSpec(id: "cpu", title: "CPU", mark: .line, xKind: .time, series: ["user"], window: 1000),
        ChartSpec(id: "lin", title: "Linear", mark: .point, xKind: .linear, series: []),
        ChartSpec(id: "sales", title: "Sales", mark: .bar, xKind: .category, series: ["a"],
                  categories: ["Mon", "Tue", "a", "0", "1", "2024-12-01T00:00:00Z"]),
    ]

    /// Parses under tight and standard limits: whatever the tight limits accept, the standard
    /// ones accept with the same points; every accepted batch is checked and validated.
    static func run(_ bytes: [UInt8], _ parse: (IngestLimits) throws -> PointBatch) {
        var tight: PointBatch?
        do {
            let batch = try parse(IngestCheck.tight)
            checkBatch(batch, bytes, IngestCheck.tight)
            tight = batch
        } catch {
            checkRefusal(error)
        }
        do {
            let batch = try parse(.standard)
            checkBatch(batch, bytes, .standard)
            if let tight {
                expect(tight.count == batch.count && tight.series == batch.series
                       && (0..<batch.count).allSatisfy { tight[$0] == batch[$0] }, "tight and standard limits read different points")
            }
        } catch {
            checkRefusal(error)
            expect(tight == nil, "accepted under tight limits, refused under standard ones: \(error)")
        }
    }

    /// The batch holds no more points than the body has room for, within `limits`, each naming
    /// a listed series, a finite y and a line of the body; it validates consistently.
    static func checkBatch(_ batch: PointBatch, _ bytes: [UInt8], _ limits: IngestLimits) {
        // Every stored point has its own value of at least one byte and a separator.
        expect(2 * batch.count <= bytes.count, "\(batch.count) points from \(bytes.count) bytes")
        expect(batch.count <= limits.maxPoints, "\(batch.count) points over the limit of \(limits.maxPoints)")
        expect(batch.series.count <= batch.count, "\(batch.series.count) series for \(batch.count) points")
        expect(Set(batch.series).count == batch.series.count, "a series listed twice")
        for name in batch.series {
            expect(!name.isEmpty && name.utf8.count <= limits.maxSeriesNameBytes, "series name of \(name.utf8.count) bytes")
        }
        let lines = bytes.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
        for k in 0..<batch.count {
            let point = batch[k]
            expect(batch.series.indices.contains(point.series), "point \(k) names series \(point.series)")
            expect(point.y.isFinite, "point \(k) has y \(point.y)")
            expect((1...lines).contains(point.origin.line) && (1...lines).contains(point.origin.xLine),
                   "point \(k) on line \(point.origin.line)/\(point.origin.xLine) of \(lines)")
            if case .number(let x) = point.x { expect(x.isFinite, "point \(k) has x \(x)") }
        }
        for spec in charts { checkValidation(batch, spec, limits) }
    }

    /// A validated batch keeps every point, adds only the batch's series within the limit, and
    /// lists rows in strictly ascending x.
    static func checkValidation(_ batch: PointBatch, _ spec: ChartSpec, _ limits: IngestLimits) {
        let validated: ValidatedBatch
        do {
            validated = try batch.validate(against: spec, limits: limits)
        } catch {
            checkRefusal(error)
            return
        }
        expect(validated.accepted == batch.count, "validation kept \(validated.accepted) of \(batch.count) points")
        expect(validated.series.count <= max(limits.maxSeriesPerChart, spec.series.count), "\(validated.series.count) series")
        expect(validated.series == spec.series + validated.newSeries, "series are not the existing ones then the new ones")
        expect(Set(validated.newSeries).isSubset(of: Set(batch.series)), "a new series not in the batch")
        expect(validated.rowCount <= batch.count, "\(validated.rowCount) rows for \(batch.count) points")
        var cells = 0
        for r in 0..<validated.rowCount {
            if r > 0 { expect(validated.x(row: r - 1) < validated.x(row: r), "rows out of order at \(r)") }
            let row = validated.cells(row: r)
            expect(!row.isEmpty, "row \(r) is empty")
            for c in row.indices { expect(validated.series.indices.contains(row[c].series), "a cell names no series") }
            cells += row.count
            if spec.xKind == .category {
                expect(validated.x(row: r) >= 0 && Int(validated.x(row: r)) < spec.categories.count, "category row \(validated.x(row: r))")
            }
        }
        expect(cells == validated.accepted, "rows hold \(cells) cells for \(validated.accepted) points")
    }

    /// A refusal is an `IngestError` with a bounded message and, when it names one, a line ≥ 1.
    static func checkRefusal(_ error: Error) {
        guard let error = error as? IngestError else { fatalError("unexpected error type: \(error)") }
        expect(error.message.utf8.count <= maxErrorMessageBytes, "a \(error.message.utf8.count)-byte error message")
        if let line = error.line { expect(line >= 1, "error on line \(line)") }
        if let index = error.index { expect(index >= 0, "error at index \(index)") }
    }
}
