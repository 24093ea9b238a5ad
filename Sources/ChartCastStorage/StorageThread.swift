import Foundation

/// The store's one storage thread and the queue that feeds it.
///
/// Callers on any thread enqueue; the thread takes everything enqueued within `groupingDelay`
/// of the oldest waiting write (up to `maxPointsPerTransaction` points), applies it in one
/// transaction, commits, and then calls each write's completion: with success once the commit
/// returned, or with the error, in which case nothing of the group is in the database. While a
/// transaction commits, the next writes queue up, so the next group starts as soon as the
/// thread is free if their delay has already passed.
///
/// - Note: thread-safe: `enqueue`, `stop` and `statistics` may be called from any thread.
///   Completions run on the storage thread and must not block it (hand the result to your own
///   thread; the server uses its `perform`).
final class StorageThread: @unchecked Sendable {
    typealias Completion = @Sendable (Result<Void, StorageError>) -> Void

    private struct Request {
        var op: WriteOp
        var enqueued: ContinuousClock.Instant
        var completion: Completion?
    }

    private enum State { case running, draining, abandoning }

    private let condition = NSCondition()
    private var queue: [Request] = []
    private var queuedPoints = 0
    private var state = State.running
    private var finished = false
    private var stats = HistoryStore.Statistics()
    private var thread: pthread_t?

    private let writer: HistoryWriter
    private let delay: Duration
    private let maxPoints: Int
    private let clock = ContinuousClock()

    init(writer: HistoryWriter, options: HistoryStore.Options) {
        self.writer = writer
        self.delay = options.groupingDelay
        self.maxPoints = options.maxPointsPerTransaction
    }

    /// Starts the thread.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "chartcast-storage"
        thread.start()
    }

    /// Queues a write; after `stop` the completion is called at once, here, with `.closed`.
    func enqueue(_ op: WriteOp, completion: Completion?) {
        condition.lock()
        guard state == .running else {
            condition.unlock()
            completion?(.failure(.closed(path: writer.db.path)))
            return
        }
        queue.append(Request(op: op, enqueued: clock.now, completion: completion))
        queuedPoints += op.weight
        stats.queuedWrites = queue.count
        condition.signal()
        condition.unlock()
    }

    /// Stops the thread: `abandon` false commits what is queued first; true fails the queued
    /// writes with `.closed` after the transaction in progress, and closes the writer without a
    /// checkpoint. Waits for the thread to end unless called on it. Idempotent.
    func stop(abandon: Bool) {
        condition.lock()
        if state == .running || (abandon && state == .draining) {
            state = abandon ? .abandoning : .draining
        }
        condition.broadcast()
        let onStorageThread = thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
        while !finished && !onStorageThread { condition.wait() }
        condition.unlock()
    }

    /// The counters so far.
    var statistics: HistoryStore.Statistics {
        condition.lock()
        defer { condition.unlock() }
        return stats
    }

    private func run() {
        condition.lock()
        thread = pthread_self()
        condition.unlock()
        // Below the thread serving viewers when they share a core (idle time is all the storage
        // thread's): packing and committing a write must not delay a viewer's pointer.
        IdlePriority.adoptForCallingThread()
        while let group = nextGroup() {
            let error = writer.commit(group.map(\.op))
            condition.lock()
            if error == nil {
                stats.transactions += 1
                stats.writesCommitted += group.count
                stats.pointsCommitted += group.reduce(0) { $0 + $1.op.appendedPoints }
            } else {
                stats.failedTransactions += 1
                stats.writesFailed += group.count
            }
            condition.unlock()
            let result: Result<Void, StorageError> = error.map { .failure($0) } ?? .success(())
            for request in group { request.completion?(result) }
        }
    }

    /// Waits for the next group; nil when the thread should end (after failing what an
    /// abandon left queued and closing the writer).
    private func nextGroup() -> [Request]? {
        condition.lock()
        while queue.isEmpty && state == .running { condition.wait() }
        if state == .running, let oldest = queue.first?.enqueued {
            let deadline = oldest.advanced(by: delay)
            while state == .running && queuedPoints < maxPoints {
                let left = clock.now.duration(to: deadline)
                guard left > .zero else { break }
                let (seconds, attoseconds) = left.components
                _ = condition.wait(until: Date(timeIntervalSinceNow: Double(seconds) + Double(attoseconds) * 1e-18))
            }
        }
        if state == .abandoning || queue.isEmpty {
            let dropped = queue
            queue.removeAll()
            queuedPoints = 0
            let abandoned = state == .abandoning
            condition.unlock()
            for request in dropped { request.completion?(.failure(.closed(path: writer.db.path))) }
            if abandoned { writer.db.closeWithoutCheckpoint() } else { writer.db.close() }
            condition.lock()
            finished = true
            condition.broadcast()
            condition.unlock()
            return nil
        }
        var take = 0, points = 0
        while take < queue.count
                && (take == 0 || (!queue[0].op.isSolo && !queue[take].op.isSolo && points + queue[take].op.weight <= maxPoints)) {
            points += queue[take].op.weight
            take += 1
        }
        let group = Array(queue[..<take])
        queue.removeFirst(take)
        queuedPoints -= points
        stats.queuedWrites = queue.count
        condition.unlock()
        return group
    }
}
