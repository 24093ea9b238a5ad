import ChartEngine
import WebSockets
import Dispatch

/// What `chartcast-bench --m4` measures of the server itself: a viewer's first snapshot of a
/// chart, downsampled for its width and encoded, exactly as the fan-out builds it.
@_spi(Benchmarks)
public enum SnapshotBenchmark {
    /// One first snapshot.
    public struct Result {
        /// Time to choose the key, downsample and encode, in nanoseconds.
        public var nanoseconds: Double
        /// The encoded message's size.
        public var bytes: Int
    }

    /// Builds the first snapshot of `store`'s live window for a plot `columns` pixels wide,
    /// from an empty cache (a fresh channel over the store each time), and times it.
    /// - Note: the store must not be used by a running server.
    public static func firstSnapshot(of store: ChartStore, columns: Int) -> Result {
        let channel = ChartChannel(index: 0, store: store, appendLogCapacity: ServerCore.appendLogCapacity, specVersion: 1)
        let start = DispatchTime.now().uptimeNanoseconds
        let frame = channel.snapshotFrame(channel.snapshotKey(columns: columns, view: nil))
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        return Result(nanoseconds: Double(elapsed), bytes: frame.count)
    }
}
