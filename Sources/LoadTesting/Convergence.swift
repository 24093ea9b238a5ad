/// Whether every viewer ended on the same state for every chart.
///
/// Per chart the newest state is the one carried by the highest-`seq` `selection` message any
/// connection received. A connection has converged on the chart when its state digest equals
/// the newest one and its state is that message (same `seq`), or a snapshot taken at or after it
/// (a viewer that fell behind the append log is re-sent a snapshot, whose `seq` counts appends
/// too). Charts without any selection message compare digests only.
public struct ConvergenceResult: Sendable, Equatable {
    public struct Chart: Sendable, Equatable {
        public var id: String
        /// The newest selection `seq` (-1 when no selection message was seen).
        public var newestSeq: Int
        /// Connections whose state differs from the newest.
        public var divergent: Int
    }

    /// Connections compared (connected and not dropped).
    public var compared: Int
    /// Connections that differ on at least one chart.
    public var divergentConnections: Int
    public var charts: [Chart]

    /// True when nobody differs.
    public var converged: Bool { divergentConnections == 0 }

    /// Compares the final views of `connections` (per chart, indexed like `chartIDs`).
    /// - Complexity: O(connections · charts).
    static func evaluate(views connections: [[ChartView]], chartIDs: [String]) -> ConvergenceResult {
        var charts: [Chart] = []
        var divergentSet = Set<Int>()
        for (c, id) in chartIDs.enumerated() {
            // The newest selection message's state.
            var newest: (seq: Int, digest: UInt64)? = nil
            for views in connections where c < views.count && !views[c].stateFromSnapshot && views[c].stateSeq >= 0 {
                if newest == nil || views[c].stateSeq > newest!.seq { newest = (views[c].stateSeq, views[c].stateDigest) }
            }
            // Without selection messages, the most recent snapshot state is the reference.
            if newest == nil {
                for views in connections where c < views.count && views[c].stateSeq >= 0 {
                    if newest == nil || views[c].stateSeq > newest!.seq { newest = (views[c].stateSeq, views[c].stateDigest) }
                }
                if let n = newest { newest = (-1, n.digest) }
            }
            var divergent = 0
            for (k, views) in connections.enumerated() {
                guard let n = newest else { break }
                let ok: Bool
                if c >= views.count || views[c].stateSeq < 0 {
                    ok = false
                } else if views[c].stateDigest != n.digest {
                    ok = false
                } else if views[c].stateFromSnapshot {
                    ok = views[c].stateSeq >= n.seq
                } else {
                    ok = views[c].stateSeq == n.seq || n.seq < 0
                }
                if !ok { divergent += 1; divergentSet.insert(k) }
            }
            charts.append(Chart(id: id, newestSeq: newest?.seq ?? -1, divergent: divergent))
        }
        return ConvergenceResult(compared: connections.count, divergentConnections: divergentSet.count, charts: charts)
    }
}
