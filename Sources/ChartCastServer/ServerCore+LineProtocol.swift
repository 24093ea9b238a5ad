import ChartCastIngest
import ChartCastProtocol
import ChartCastStorage
import ChartEngine

extension ServerCore {
    private struct UnknownMeasurement: Error { var id: String }

    /// A line-protocol write (one chart per measurement), all or nothing over every chart it
    /// names: in its turn on all of them (`ChartOrder`), validated, the charts it creates saved
    /// and its points committed in one history transaction, then applied; 204 like InfluxDB.
    ///
    /// The write holds every chart it names from validation to apply, and alone those it
    /// creates or adds series to: no chart can be replaced, removed or created under it, so each
    /// is applied to in the state it was validated against — every chart or none, in memory and
    /// in history alike.
    /// - Note: service thread only.
    func write(_ write: LineProtocolWrite, reply: @escaping (APIResponse) -> Void) {
        assertOwningThread()
        if cluster != nil { return clusterWrite(write, reply: reply) }
        let started = chartOrder.run(write.charts.map(\.chart), exclusive: false, points: write.pointCount) { ticket in
            self.startWrite(write, ticket: ticket) { response in
                reply(response)
                self.chartOrder.finish(ticket)
            }
        }
        if !started { reply(.unavailable(waitingRefusal())) }
    }

    /// `write(_:reply:)` once the write holds its charts.
    private func startWrite(_ write: LineProtocolWrite, ticket: ChartOrder.Ticket, reply: @escaping (APIResponse) -> Void) {
        let validated: [ValidatedChartWrite]
        var created: [String: ChartSpec] = [:]
        do {
            validated = try validate(write, creating: &created)
        } catch let error as UnknownMeasurement {
            return reply(.error(404, "unknown_chart", "no chart with id \"\(error.id.prefix(80))\" (the server runs with --no-auto-create)"))
        } catch {
            return reply(.error(ServerCore.ingestError(error)))
        }
        for chart in validated where created[chart.chart] != nil || !chart.batch.newSeries.isEmpty {
            chartOrder.claimExclusive(chart.chart, for: ticket)
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
        let targets = validated.map { channelsByID[$0.chart] }
        afterCommit(writes, { self.applyCommitted(validated, to: targets, newCharts: newCharts) }, done: { result in
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

    /// Applies a committed line-protocol write: defines the charts it created, then applies each
    /// chart's points, to the charts they were validated against (`targets`, nil for the created
    /// ones). The write held them since, so they are as they were; that is checked for every
    /// chart before anything is applied, so even a broken order would apply nothing rather than
    /// part of the write.
    private func applyCommitted(_ validated: [ValidatedChartWrite], to targets: [ChartChannel?],
                                newCharts: [ChartSpec]) -> APIResponse {
        for (chart, target) in zip(validated, targets) {
            let now = channelsByID[chart.chart]
            let intact = target.map { $0 === now && chart.batch.mismatch(with: $0.store) == nil } ?? (now == nil)
            guard intact else {
                return .error(orderViolation("chart \"\(chart.chart)\" was replaced, removed or created"))
            }
        }
        for spec in newCharts { define(spec) }
        do {
            for chart in validated {
                guard let channel = channelsByID[chart.chart] else { continue }
                try apply(chart.batch, to: channel)
            }
        } catch {
            return .error(orderViolation("\(error)"))
        }
        return .noContent
    }
}
