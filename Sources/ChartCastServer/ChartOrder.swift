/// Orders the operations on each chart id, so that every write is validated against the very
/// state of its charts it will be applied to.
///
/// A write is validated on the service thread, committed to the history store, and applied when
/// the store reports the commit: in between, other requests run. Operations come in two modes:
///
/// - **shared** — writes of points. Any number run at once on one chart: they change its data,
///   never what validation looks at (the x kind, the categories, the series), and the store
///   commits them, and memory applies them, in the order they started.
/// - **exclusive** — what changes a chart's definition: `PUT` (replace or create), `DELETE`, the
///   Swift API's define and remove. One runs on a chart only when nothing else does, and
///   nothing else starts on that chart until it has finished (applied, or failed).
///
/// A shared write that turns out to change the definition too — it adds series, or a
/// line-protocol write auto-creates its chart — claims the chart exclusively for the rest of its
/// run (`claimExclusive`): the writes in flight before it are applied before it (store order),
/// and everything after it waits until it is applied.
///
/// An operation that cannot start waits in one FIFO queue and starts as soon as the operations
/// it waits for have finished; operations on a chart start in the order they arrived. What
/// waits is bounded (`maxWaitingPoints`): beyond it an operation is refused, never queued.
/// - Note: service thread only.
final class ChartOrder {
    /// An operation's hold on its charts, from its start until `finish`.
    final class Ticket {
        fileprivate let ids: [String]
        fileprivate let exclusive: Bool
        /// Charts a shared operation claimed exclusively after it started.
        fileprivate var claimed: [String] = []
        fileprivate var finished = false

        fileprivate init(ids: [String], exclusive: Bool) {
            self.ids = ids
            self.exclusive = exclusive
        }
    }

    private struct Hold {
        /// Shared operations running on the chart.
        var shared = 0
        /// An exclusive operation (or a shared one that claimed the chart) is running.
        var exclusive = false
    }

    private struct Waiter {
        var ids: [String]
        var exclusive: Bool
        var points: Int
        var start: (Ticket) -> Void
    }

    /// Most points the waiting operations may carry together before another is refused (a
    /// waiting operation of any size is taken when nothing else waits).
    let maxWaitingPoints: Int
    private var holds: [String: Hold] = [:]
    private var waiting: [Waiter] = []
    private(set) var waitingPoints = 0
    private var draining = false

    /// The default bound on waiting points: what the history store may have waiting too.
    static let defaultMaxWaitingPoints = HistoryLink.defaultMaxPendingPoints

    init(maxWaitingPoints: Int = ChartOrder.defaultMaxWaitingPoints) {
        self.maxWaitingPoints = maxWaitingPoints
    }

    /// Operations waiting to start.
    var waitingCount: Int { waiting.count }

    /// Whether anything runs or waits on chart `id`.
    func isBusy(_ id: String) -> Bool { holds[id] != nil || waiting.contains { $0.ids.contains(id) } }

    /// Starts an operation on `ids` — now, or once the operations it waits for have finished.
    /// `start` receives the ticket the operation must hand to `finish` when it is done (applied
    /// or failed), whatever happened.
    /// - Parameter points: what the operation carries, counted against `maxWaitingPoints` while
    ///   it waits.
    /// - Returns: false when it could not start and the waiting operations already carry too
    ///   much: then `start` never runs.
    /// - Complexity: O(ids · waiting) (nothing waits but while a definition changes).
    @discardableResult
    func run(_ ids: [String], exclusive: Bool, points: Int = 0, _ start: @escaping (Ticket) -> Void) -> Bool {
        let ids = Array(Set(ids))
        if waiting.isEmpty || !waiting.contains(where: { !Set($0.ids).isDisjoint(with: ids) }), canStart(ids, exclusive) {
            start(take(ids, exclusive))
            return true
        }
        guard waiting.isEmpty || waitingPoints + points <= maxWaitingPoints else { return false }
        waiting.append(Waiter(ids: ids, exclusive: exclusive, points: points, start: start))
        waitingPoints += points
        return true
    }

    /// Makes a running shared operation exclusive on `id` (it adds series to the chart, or
    /// creates it): operations on `id` that arrive from now on wait until it finished.
    func claimExclusive(_ id: String, for ticket: Ticket) {
        guard !ticket.finished, !ticket.exclusive, !ticket.claimed.contains(id) else { return }
        ticket.claimed.append(id)
        holds[id, default: Hold()].exclusive = true
    }

    /// Ends an operation: its charts are free for the operations waiting on them, which start
    /// now, in the order they arrived. Finishing a ticket twice does nothing.
    /// - Complexity: O(ids + waiting · ids).
    func finish(_ ticket: Ticket) {
        guard !ticket.finished else { return }
        ticket.finished = true
        for id in ticket.ids {
            var hold = holds[id] ?? Hold()
            if ticket.exclusive || ticket.claimed.contains(id) { hold.exclusive = false }
            if !ticket.exclusive { hold.shared -= 1 }
            holds[id] = hold.shared == 0 && !hold.exclusive ? nil : hold
        }
        drain()
    }

    // MARK: Internals

    private func canStart(_ ids: [String], _ exclusive: Bool) -> Bool {
        ids.allSatisfy { id in
            guard let hold = holds[id] else { return true }
            return !hold.exclusive && !(exclusive && hold.shared > 0)
        }
    }

    private func take(_ ids: [String], _ exclusive: Bool) -> Ticket {
        for id in ids {
            if exclusive { holds[id, default: Hold()].exclusive = true } else { holds[id, default: Hold()].shared += 1 }
        }
        return Ticket(ids: ids, exclusive: exclusive)
    }

    /// Starts every waiting operation that can start, in arrival order: one waits while an
    /// earlier waiting operation on one of its charts does. Operations started here may finish
    /// at once (nothing to commit): the loop goes on until nothing more can start.
    private func drain() {
        guard !draining else { return }
        draining = true
        defer { draining = false }
        var progressed = true
        while progressed {
            progressed = false
            var blocked = Set<String>()
            var i = 0
            while i < waiting.count {
                let waiter = waiting[i]
                if blocked.isDisjoint(with: waiter.ids), canStart(waiter.ids, waiter.exclusive) {
                    waiting.remove(at: i)
                    waitingPoints -= waiter.points
                    waiter.start(take(waiter.ids, waiter.exclusive))
                    progressed = true
                    break   // what it did may have freed or taken charts: look again from the front
                }
                blocked.formUnion(waiter.ids)
                i += 1
            }
        }
    }
}
