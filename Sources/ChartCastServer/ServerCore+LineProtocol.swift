import ChartCastIngest
import ChartCastProtocol
import ChartCastStorage
import ChartEngine

extension ServerCore {
    private struct UnknownMeasurement: Error { var id: String }

    /// A line-protocol write (one chart per measurement): validated all or nothing, charts it
    /// creates saved and its points committed in one history transaction, then applied; 204
    /// like InfluxDB.
    /// - Note: service thread only.
    func write(_ write: LineProtocolWrite, reply: @escaping (APIResponse) -> Void) {
        assertOwningThread()
        if cluster != nil { return clusterWrite(write, reply: reply) }
        let validated: [ValidatedChartWrite]
        var created: [String: ChartSpec] = [:]
        do {
            validated = try validate(write, creating: &created)
        } catch let error as UnknownMeasurement {
            return reply(.error(404, "unknown_chart", "no chart with id \"\(error.id.prefix(80))\" (the server runs with --no-auto-create)"))
        } catch {
            return reply(.error(ServerCore.ingestError(error)))
        }
        let newCharts = created.values.sorted { $0.id < $1.id }
        var writes: [HistoryWrite] = []
        if history != nil {
            writes = newCharts.map { .save($0) }
            for chart in validated {
                guard let spec = channelsByID[chart.chart]?.spec ?? created[chart.chart], HistoryLink.keeps(spec) else { continue }
                writes.append(HistoryLink.append(chart.batch, of: spec))
            }
        }
        afterCommit(writes, { self.applyCommitted(write, validated, newCharts: newCharts) }, done: { result in
            switch result {
            case .success(let response): reply(response)
            case .failure(let error): reply(.unavailable(error))
            }
        })
    }

    /// Validates every chart's points; a measurement naming no chart gets an auto-created spec
    /// (added to `created`) unless the server runs with `--no-auto-create`.
    private func validate(_ write: LineProtocolWrite, creating created: inout [String: ChartSpec]) throws -> [ValidatedChartWrite] {
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

    /// Applies a committed line-protocol write: defines the charts it created (unless defined
    /// meanwhile), then applies each chart's points. A chart whose state moved on while the
    /// write was committed (another write added series, or replaced it) has the write
    /// validated again against it; a chart removed meanwhile is skipped.
    private func applyCommitted(_ write: LineProtocolWrite, _ validated: [ValidatedChartWrite],
                                newCharts: [ChartSpec]) -> APIResponse {
        for spec in newCharts where channelsByID[spec.id] == nil { define(spec) }
        var moved: Set<String> = []
        do {
            for chart in validated {
                guard let channel = channelsByID[chart.chart] else { continue }
                do {
                    try apply(chart.batch, to: channel)
                } catch is StoreMismatch {
                    moved.insert(chart.chart)
                }
            }
            guard !moved.isEmpty else { return .noContent }
            var ignored: [String: ChartSpec] = [:]
            for chart in try validate(write, creating: &ignored) where moved.contains(chart.chart) {
                guard let channel = channelsByID[chart.chart] else { continue }
                try apply(chart.batch, to: channel)
            }
            return .noContent
        } catch {
            // Only a chart that changed under the write gets here (e.g. concurrent writes took
            // it past 32 series): the charts applied before it stay applied.
            return .error(ServerCore.ingestError(error))
        }
    }
}
