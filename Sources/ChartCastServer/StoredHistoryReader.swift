import ChartCastStorage
import ChartEngine
import Dispatch

/// The history store as the engine's `HistoryReading`: what a viewer zoomed into the past is
/// shown of the points older than the live window. Reads run on a queue of their own, never on
/// the service thread.
final class StoredHistoryReader: HistoryReading {
    let store: HistoryStore
    private static let queue = DispatchQueue(label: "chartcast.history-reads", qos: .userInitiated, attributes: .concurrent)

    init(store: HistoryStore) {
        self.store = store
    }

    /// The stored points with `from ≤ x < to`, on `grid`; series without points are left out.
    func read(chart: String, from: Double, to: Double, grid: M4Grid,
              completion: @escaping @Sendable (Result<[HistorySeries], Error>) -> Void) {
        let store = self.store
        StoredHistoryReader.queue.async {
            completion(Result {
                try store.read(chart: chart, from: from, to: to.nextDown, grid: grid)
                    .filter { !$0.xs.isEmpty }
                    .map { HistorySeries(name: $0.name, xs: $0.xs, ys: $0.ys) }
            })
        }
    }
}
