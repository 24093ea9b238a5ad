import ChartCastCluster
import ChartCastIngest
import ChartCastProtocol
import ChartCastStorage
import ChartEngine

/// Writes and chart definitions with a cluster. A write is checked here against the chart as
/// this instance has it (a bad body is refused at once and never reaches Redis), added to the
/// stream, and decided when its entry comes back: every instance validates it again against the
/// charts as they are at that point of the stream and applies it whole or not at all — the same
/// decision everywhere — and stores what it applied in its own history, in stream order
/// (`ServerCore+ClusterHistory.swift`). This instance answers once the entry was applied (or
/// refused) here and, when it keeps history, committed: with the `seq` it got, the same on every
/// instance, or with the error that refused it (nothing of it applied or stored anywhere).
extension ServerCore {
    /// A Redis failure as the data API's `503 unavailable`.
    func unavailableError(_ why: String) -> StorageError {
        StorageError(kind: .unavailable, path: cluster.map { "\($0.link.endpoint)" } ?? "redis",
                     message: "the dashboard's Redis cannot take the write now (\(why)); nothing was applied")
    }

    /// The answer to a write whose entry reached the stream but never came back here: the
    /// instance caught up from a snapshot that holds everything up to it, or claimed the
    /// dashboard after Redis lost entries (`ClusterResult.orphaned`). Whether it was applied is
    /// not known; a retry (with the same `Idempotency-Key`) is safe for points, which upsert.
    func orphanedError() -> StorageError {
        StorageError(kind: .unavailable, path: cluster.map { "\($0.link.endpoint)" } ?? "redis",
                     message: "this instance caught up with the dashboard from a snapshot before the write came back to it; "
                        + "it may or may not have been applied: check, or repeat it")
    }

    /// Why a write cannot be taken now, before it reaches the stream: Redis is unreachable, or
    /// this instance's history store is behind (it would have to store `points` more); nil
    /// when it can be taken. Nothing is applied anywhere when it is refused.
    private func clusterAdmission(points: Int) -> StorageError? {
        if let cluster, !cluster.isUp { return unavailableError("\(cluster.link.endpoint) is unreachable") }
        return history?.refusal(points)
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
        let stored = HistoryLink.keeps(channel.spec) ? validated.accepted : 0
        if let refusal = clusterAdmission(points: stored) { return done(.unavailable(refusal)) }
        submit(.points([ServerCore.entryPoints(validated, of: channel.spec)]), tracked: true) { outcome in
            switch outcome {
            case .failed(let error): done(.unavailable(self.unavailableError("\(error)")))
            case .orphaned: done(.unavailable(self.orphanedError()))
            case .applied(.write(let written)): done(written)
            case .applied: done(.unknownChart(id))
            }
        }
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
        var parts: [EntryPoints] = []
        var stored = 0
        for chart in validated {
            guard let spec = channelsByID[chart.chart]?.spec ?? created[chart.chart] else { continue }
            var part = ServerCore.entryPoints(chart.batch, of: spec)
            part.creates = created[chart.chart]
            parts.append(part)
            if HistoryLink.keeps(spec) { stored += chart.batch.accepted }
        }
        if let refusal = clusterAdmission(points: stored) { return reply(.unavailable(refusal)) }
        submit(.points(parts), tracked: true) { outcome in
            switch outcome {
            case .failed(let error): reply(.unavailable(self.unavailableError("\(error)")))
            case .orphaned: reply(.unavailable(self.orphanedError()))
            case .applied(.write(.applied)): reply(.noContent)
            case .applied(.write(.rejected(let error))): reply(.error(error))
            case .applied(.write(.unknownChart(let id))): reply(.unknownChart(id))
            case .applied(.write(.unavailable(let error))): reply(.unavailable(error))
            case .applied: reply(.noContent)
            }
        }
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

    /// Defines a chart (`PUT`, the Swift API) through the stream; `done` gets what applying it
    /// did, once it is applied (and, with history, its spec saved) here.
    /// - Note: service thread only.
    func clusterDefine(_ spec: ChartSpec, done: @escaping (Result<Definition, StorageError>) -> Void) {
        assertOwningThread()
        if let refusal = clusterAdmission(points: 0) { return done(.failure(refusal)) }
        submit(.define(spec), tracked: true) { outcome in
            switch outcome {
            case .failed(let error): done(.failure(self.unavailableError("\(error)")))
            case .orphaned: done(.failure(self.orphanedError()))
            case .applied(.definition(let definition)): done(.success(definition))
            case .applied: done(.success(.created))
            }
        }
    }

    /// Removes a chart (`DELETE`, the Swift API) through the stream; `done` gets whether there
    /// was one to remove when the entry was applied.
    /// - Note: service thread only.
    func clusterRemove(_ id: String, done: @escaping (Result<Bool, StorageError>) -> Void) {
        assertOwningThread()
        guard channelsByID[id] != nil else { return done(.success(false)) }
        if let refusal = clusterAdmission(points: 0) { return done(.failure(refusal)) }
        submit(.remove(chart: id), tracked: true) { outcome in
            switch outcome {
            case .failed(let error): done(.failure(self.unavailableError("\(error)")))
            case .orphaned: done(.failure(self.orphanedError()))
            case .applied(.removed(let removed)): done(.success(removed))
            case .applied: done(.success(false))
            }
        }
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
