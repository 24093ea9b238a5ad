import ChartCastCluster
import ChartCastIngest
import ChartCastProtocol
import ChartCastStorage
import ChartEngine

/// Writes and chart definitions with a cluster: checked here against the chart as this
/// instance has it (a bad write is refused at once and never reaches Redis), stored in this
/// instance's history first when it keeps one (commit, then add: a write that could not be
/// stored is refused with nothing applied anywhere), added to the stream, and answered once the
/// entry has been applied here — with the `seq` it got, the same on every instance.
extension ServerCore {
    /// A Redis failure as the data API's `503 unavailable`.
    func unavailableError(_ why: String) -> StorageError {
        StorageError(kind: .unavailable, path: cluster.map { "\($0.link.endpoint)" } ?? "redis",
                     message: "the dashboard's Redis cannot take the write now (\(why)); nothing was applied")
    }

    /// The refusal of a write while Redis is unreachable, nil while it is reachable.
    private func refusalWhileDown() -> StorageError? {
        guard let cluster, !cluster.isUp else { return nil }
        return unavailableError("\(cluster.link.endpoint) is unreachable")
    }

    /// A write of points to one chart (HTTP, `publish`, the Swift API) through the stream.
    /// - Note: service thread only.
    func clusterWrite(_ batch: PointBatch, to id: String, done: @escaping (WriteOutcome) -> Void) {
        assertOwningThread()
        guard let channel = channelsByID[id] else { return done(.unknownChart(id)) }
        let validated: ValidatedBatch
        do {
            validated = try batch.validate(against: channel.spec)
        } catch {
            return done(.rejected(ServerCore.ingestError(error)))
        }
        if let refusal = refusalWhileDown() { return done(.unavailable(refusal)) }
        let spec = channel.spec
        let writes = history != nil && HistoryLink.keeps(spec) ? [HistoryLink.append(validated, of: spec)] : []
        let entry = ClusterEntry.points([ServerCore.entryPoints(validated, of: spec)])
        afterCommit(writes, { () }, done: { result in
            if case .failure(let error) = result { return done(.unavailable(error)) }
            self.submit(entry) { outcome in
                switch outcome {
                case .failed(let error): done(.unavailable(self.unavailableError("\(error)")))
                case .applied(.write(let written)): done(written)
                case .applied: done(.unknownChart(id))
                }
            }
        })
    }

    /// A line-protocol write through the stream: the charts it creates travel with their points
    /// in one entry, applied all or nothing; 204 like InfluxDB.
    /// - Note: service thread only.
    func clusterWrite(_ write: LineProtocolWrite, reply: @escaping (APIResponse) -> Void) {
        assertOwningThread()
        let validated: [ValidatedChartWrite]
        var created: [String: ChartSpec] = [:]
        do {
            validated = try clusterValidate(write, creating: &created)
        } catch let error as UnknownMeasurement {
            return reply(.error(404, "unknown_chart", "no chart with id \"\(error.id.prefix(80))\" (the server runs with --no-auto-create)"))
        } catch {
            return reply(.error(ServerCore.ingestError(error)))
        }
        if let refusal = refusalWhileDown() { return reply(.unavailable(refusal)) }
        var parts: [EntryPoints] = []
        var writes: [HistoryWrite] = []
        if history != nil { writes = created.values.sorted { $0.id < $1.id }.map { .save($0) } }
        for chart in validated {
            guard let spec = channelsByID[chart.chart]?.spec ?? created[chart.chart] else { continue }
            var part = ServerCore.entryPoints(chart.batch, of: spec)
            part.creates = created[chart.chart]
            parts.append(part)
            if history != nil && HistoryLink.keeps(spec) { writes.append(HistoryLink.append(chart.batch, of: spec)) }
        }
        afterCommit(writes, { () }, done: { result in
            if case .failure(let error) = result { return reply(.unavailable(error)) }
            self.submit(.points(parts)) { outcome in
                switch outcome {
                case .failed(let error): reply(.unavailable(self.unavailableError("\(error)")))
                case .applied(.write(.applied)): reply(.noContent)
                case .applied(.write(.rejected(let error))): reply(.error(error))
                case .applied(.write(.unknownChart(let id))): reply(.unknownChart(id))
                case .applied(.write(.unavailable(let error))): reply(.unavailable(error))
                case .applied: reply(.noContent)
                }
            }
        })
    }

    private struct UnknownMeasurement: Error { var id: String }

    /// Validates every chart's points of a line-protocol write; a measurement naming no chart
    /// gets an auto-created spec (added to `created`) unless the server runs with
    /// `--no-auto-create` (as the single-instance path does).
    private func clusterValidate(_ write: LineProtocolWrite, creating created: inout [String: ChartSpec]) throws -> [ValidatedChartWrite] {
        var specs: [String: ChartSpec] = [:]
        let validated = try write.validate { id in
            if let channel = self.channelsByID[id] { return ChartTarget(spec: channel.spec) }
            guard self.options.autoCreate else { throw UnknownMeasurement(id: id) }
            let spec = ChartSpec.autoCreated(id: id)
            specs[id] = spec
            return ChartTarget(spec: spec)
        }
        created = specs
        return validated
    }

    /// Defines a chart (`PUT`, the Swift API) through the stream: saved in this instance's
    /// history first, then added; `done` gets what applying it did.
    /// - Note: service thread only.
    func clusterDefine(_ spec: ChartSpec, done: @escaping (Result<Definition, StorageError>) -> Void) {
        assertOwningThread()
        if let refusal = refusalWhileDown() { return done(.failure(refusal)) }
        afterCommit(history == nil ? [] : [.save(spec)], { () }, done: { result in
            if case .failure(let error) = result { return done(.failure(error)) }
            self.submit(.define(spec)) { outcome in
                switch outcome {
                case .failed(let error): done(.failure(self.unavailableError("\(error)")))
                case .applied(.definition(let definition)): done(.success(definition))
                case .applied: done(.success(.created))
                }
            }
        })
    }

    /// Removes a chart (`DELETE`, the Swift API) through the stream; `done` gets whether there
    /// was one to remove.
    /// - Note: service thread only.
    func clusterRemove(_ id: String, done: @escaping (Result<Bool, StorageError>) -> Void) {
        assertOwningThread()
        guard channelsByID[id] != nil else { return done(.success(false)) }
        if let refusal = refusalWhileDown() { return done(.failure(refusal)) }
        afterCommit(history == nil ? [] : [.delete(id)], { () }, done: { result in
            if case .failure(let error) = result { return done(.failure(error)) }
            self.submit(.remove(chart: id)) { outcome in
                switch outcome {
                case .failed(let error): done(.failure(self.unavailableError("\(error)")))
                case .applied(.removed(let removed)): done(.success(removed))
                case .applied: done(.success(false))
                }
            }
        })
    }

    /// A validated batch as an entry's points: the rows' x (category charts: the category's
    /// name) and each cell, validated again identically where the entry is applied.
    static func entryPoints(_ batch: ValidatedBatch, of spec: ChartSpec) -> EntryPoints {
        var points: [EntryPoint] = []
        points.reserveCapacity(batch.accepted)
        let isCategory = spec.xKind == .category
        for row in 0..<batch.rowCount {
            let x = batch.x(row: row)
            let px: EntryPoint.X = isCategory ? .text(spec.categories[Int(x)]) : .number(x)
            for (series, y) in batch.cells(row: row) { points.append(EntryPoint(series: series, x: px, y: y)) }
        }
        return EntryPoints(chart: batch.chart, series: batch.series, points: points)
    }
}
