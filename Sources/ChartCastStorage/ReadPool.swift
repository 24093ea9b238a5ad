import Foundation

/// The store's read connections: one per concurrent reader, opened on demand and kept for reuse.
///
/// In WAL mode readers never block the writer nor each other, and each read transaction sees
/// the database as of its start: every commit before it, nothing of a transaction still open.
///
/// - Note: thread-safe: any thread may call `withConnection`; a connection is used by one caller
///   at a time.
final class ReadPool: @unchecked Sendable {
    private let path: String
    private let lock = NSLock()
    private var idle: [SQLiteConnection] = []
    private var closed = false
    /// Idle connections kept beyond this are closed.
    private let maxIdle = 4

    init(path: String) {
        self.path = path
    }

    /// Runs `body` with a connection of its own inside one read transaction (a consistent view
    /// across the statements `body` runs).
    /// - Throws: `StorageError` (`.closed` after `close()`, `.unavailable`/`.corrupt` from
    ///   SQLite) or whatever `body` throws.
    func withConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let db = try checkOut()
        var healthy = true
        defer { checkIn(db, healthy: healthy) }
        do {
            try db.execute("BEGIN")
            defer { db.rollbackIfNeeded() }
            return try body(db)
        } catch let failure as SQLiteFailure {
            healthy = false
            throw StorageError(failure, while: .reading, path: path)
        }
    }

    private func checkOut() throws -> SQLiteConnection {
        lock.lock()
        if closed {
            lock.unlock()
            throw StorageError.closed(path: path)
        }
        if let db = idle.popLast() {
            lock.unlock()
            return db
        }
        lock.unlock()
        do {
            return try DatabaseFiles.openReader(path: path)
        } catch let failure as SQLiteFailure {
            throw StorageError(failure, while: .reading, path: path)
        }
    }

    private func checkIn(_ db: SQLiteConnection, healthy: Bool) {
        lock.lock()
        let keep = healthy && !closed && idle.count < maxIdle
        if keep { idle.append(db) }
        lock.unlock()
        if !keep { db.close() }
    }

    /// Closes the idle connections (`withoutCheckpoint`: as a killed process would leave them);
    /// connections in use close when their reader returns them. Later reads throw `.closed`.
    func close(withoutCheckpoint: Bool = false) {
        lock.lock()
        closed = true
        let connections = idle
        idle.removeAll()
        lock.unlock()
        for db in connections {
            if withoutCheckpoint { db.closeWithoutCheckpoint() } else { db.close() }
        }
    }
}
