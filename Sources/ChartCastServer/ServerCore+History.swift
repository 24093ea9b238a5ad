import ChartCastIngest
import ChartCastProtocol
import ChartCastStorage
import ChartEngine
import Foundation

/// How a write of points ended.
enum WriteOutcome {
    /// Stored (when the chart keeps history) and applied: the chart's `seq` after it.
    case applied(seq: Int, accepted: Int)
    /// No chart with this id (any more).
    case unknownChart(String)
    /// A point broke a rule; nothing was applied.
    case rejected(IngestError)
    /// The history store could not take it; nothing was applied.
    case unavailable(StorageError)
}

extension ServerCore {
    // MARK: Commit, then apply

    /// Commits `writes` to the history store, then runs `apply` on the service thread and hands
    /// its result to `done`: what is answered has been committed, so a `kill -9` right after the
    /// answer loses none of it. With no store, or nothing to store, `apply` runs at once. When
    /// the store fails (or already holds `maxPendingPoints` waiting) `done` gets the error and
    /// `apply` never runs: nothing of the write reaches memory or viewers.
    ///
    /// Writes reach the store in the order of these calls and come back in that order, and
    /// their applies take turns in that order too (`stageApply`: at the end of service passes, a
    /// budget's worth per pass), so memory applies them in the order the disk did.
    /// - Note: service thread only; the service thread never waits on the disk.
    func afterCommit<T>(_ writes: [HistoryWrite], _ apply: @escaping () -> T,
                        done: @escaping (Result<T, StorageError>) -> Void) {
        assertOwningThread()
        guard let history, !writes.isEmpty else { return stageApply { done(.success(apply())) } }
        let points = HistoryLink.points(in: writes)
        if let refusal = history.reserve(points) {
            metrics.historyWritesRefused += 1
            return done(.failure(refusal))
        }
        let back = runOnServiceThread
        history.store.write(writes) { result in
            back {
                history.release(points)
                switch result {
                case .success:
                    self.stageApply { done(.success(apply())) }
                case .failure(let error):
                    self.metrics.historyWritesFailed += 1
                    if history.shouldWarn(now: ServerCore.now()) { self.logger.warn("history: \(error)") }
                    done(.failure(error))
                }
            }
        }
    }

    // MARK: Writes of points

    /// A write of points to one chart (HTTP, `publish`, the Swift API), all or nothing: in its
    /// turn among the chart's operations (`ChartOrder`), validated against the chart, committed
    /// when the chart keeps history, then applied, and reported to `done` (at once when nothing
    /// is stored).
    ///
    /// From validation to apply the write holds its chart: the chart cannot be replaced or
    /// removed in between (that waits for the write), and a write that adds series holds it
    /// alone, so that the chart is applied to in exactly the state it was validated against —
    /// what is answered 2xx is applied and stored whole, what is answered with an error is
    /// neither.
    /// - Note: service thread only.
    func write(_ batch: PointBatch, to id: String, done: @escaping (WriteOutcome) -> Void) {
        assertOwningThread()
        if cluster != nil { return clusterWrite(batch, to: id, done: done) }
        let started = chartOrder.run([id], exclusive: false, points: batch.count) { ticket in
            self.startWrite(batch, to: id, ticket: ticket) { outcome in
                done(outcome)
                self.chartOrder.finish(ticket)
            }
        }
        if !started { done(.unavailable(waitingRefusal())) }
    }

    /// `write(_:to:done:)` once the write holds its chart.
    private func startWrite(_ batch: PointBatch, to id: String, ticket: ChartOrder.Ticket,
                            done: @escaping (WriteOutcome) -> Void) {
        guard let channel = channelsByID[id] else { return done(.unknownChart(id)) }
        let validated: ValidatedBatch
        do {
            validated = try batch.validate(against: channel.spec)
        } catch {
            return done(.rejected(ServerCore.ingestError(error)))
        }
        if !validated.newSeries.isEmpty { chartOrder.claimExclusive(id, for: ticket) }
        let writes = history != nil && HistoryLink.keeps(channel.spec) ? [HistoryLink.append(validated, of: channel.spec)] : []
        afterCommit(writes, { self.applyCommitted(validated, to: channel) }, done: { result in
            switch result {
            case .success(let outcome): done(outcome)
            case .failure(let error): done(.unavailable(error))
            }
        })
    }

    /// Applies a write whose points are committed, to the chart it was validated against: the
    /// write held the chart since, so it is still installed and in that state.
    private func applyCommitted(_ validated: ValidatedBatch, to channel: ChartChannel) -> WriteOutcome {
        guard channelsByID[channel.id] === channel else {
            return .rejected(orderViolation("chart \"\(channel.id)\" was replaced or removed"))
        }
        do {
            return .applied(seq: try apply(validated, to: channel), accepted: validated.accepted)
        } catch {
            return .rejected(orderViolation("\(error)"))
        }
    }

    /// What a write gets when its chart changed between validation and apply despite
    /// `ChartOrder` — which would be a bug: logged as one, answered as a refused write.
    func orderViolation(_ what: String) -> IngestError {
        logger.error("bug: a write's chart changed between its validation and its apply (\(what)); its points were committed")
        return IngestError(.badPoint, "the chart changed while the write was committed: \(what)")
    }

    /// The `unavailable` answer to an operation that would have had to wait while the waiting
    /// ones already carry `ChartOrder.maxWaitingPoints` points.
    func waitingRefusal() -> StorageError {
        StorageError(kind: .unavailable, path: history?.store.path ?? "", message:
            "Too many writes are waiting for charts being defined or removed (\(chartOrder.waitingPoints) points, "
            + "at most \(chartOrder.maxWaitingPoints)); retry shortly.")
    }

    /// `error` as an `IngestError` (validation throws nothing else; anything else is a bug
    /// reported as such rather than dropped).
    static func ingestError(_ error: Error) -> IngestError {
        error as? IngestError ?? IngestError(.badPoint, "the write could not be applied: \(error)")
    }

    // MARK: Charts

    /// Defines `spec` like `define(_:)`; a new chart that keeps history starts with its live
    /// window refilled from the store (points kept from an earlier definition under this id).
    /// Reads the disk on a worker; `done` runs on the service thread.
    /// - Note: service thread only.
    func defineRefilled(_ spec: ChartSpec, done: @escaping (Definition) -> Void) {
        assertOwningThread()
        guard let history, channelsByID[spec.id] == nil, HistoryLink.keeps(spec) else { return done(define(spec)) }
        let store = history.store, limit = ServerCore.refillLimit(of: spec)
        onWorker({ try store.latest(chart: spec.id, limit: limit) }, then: { result in
            if case .failure(let error) = result { self.logger.warn("history: chart \(spec.id) starts empty: \(error)") }
            done(self.define(spec, refill: try? result.get()))
        })
    }

    /// How many rows refill a chart's live window: its window (time and linear charts), its
    /// category count (category charts).
    static func refillLimit(of spec: ChartSpec) -> Int {
        spec.xKind == .category ? spec.categories.count : (spec.window ?? ChartSpec.maxWindow)
    }

    /// Loads stored rows into a chart's store, mapping series by name (a stored series beyond
    /// the 32nd is left out). Returns the number of values loaded.
    /// - Complexity: O(rows × series), plus the store's bookkeeping.
    @discardableResult
    static func refill(_ store: ChartStore, from rows: HistoryRows) -> Int {
        let targets = rows.series.map { store.addSeries($0) }
        var values = [Double?](repeating: nil, count: store.spec.series.count)
        var loaded = 0
        store.batch {
            for row in rows.rows {
                for i in values.indices { values[i] = nil }
                for (s, target) in targets.enumerated() {
                    if let target, let y = row.values[s] {
                        values[target] = y
                        loaded += 1
                    }
                }
                store.upsert(x: row.x, values: values)
            }
        }
        return loaded
    }

    // MARK: Retention

    /// Deletes what retention no longer keeps (the periodic sweep; `HistoryStore.open` swept
    /// once at start).
    /// - Note: service thread only.
    func sweepHistory() {
        assertOwningThread()
        guard let history else { return }
        let logger = self.logger
        history.store.sweep(now: (Date().timeIntervalSince1970 * 1_000).rounded(.down)) { result in
            if case .failure(let error) = result { logger.warn("history: retention sweep failed: \(error)") }
        }
    }
}
