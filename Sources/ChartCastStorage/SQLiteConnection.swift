import CSQLite

/// One SQLite connection and its prepared statements, kept for reuse.
///
/// Every failure is thrown as a `SQLiteFailure` (code, SQLite's message, the system errno);
/// callers turn it into a `StorageError` that says what they were doing.
///
/// - Note: not thread-safe: used by one thread at a time (the storage thread owns the writer,
///   each reader is checked out of `ReadPool` by one caller at a time). SQLite is opened in
///   multi-thread mode (`SQLITE_OPEN_NOMUTEX`), which relies on exactly that.
final class SQLiteConnection {
    /// The database file.
    let path: String
    /// The handle; nil once closed.
    private var db: OpaquePointer?
    /// Prepared statements by SQL text.
    private var statements: [String: SQLiteStatement] = [:]

    /// Opens (and with `create`, creates) the database file.
    /// - Throws: `SQLiteFailure` when SQLite cannot open it.
    init(path: String, create: Bool) throws {
        self.path = path
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let failure = SQLiteFailure(code: code, message: handle.map { String(cString: sqlite3_errmsg($0)) } ?? "",
                                        systemErrno: handle.map { sqlite3_system_errno($0) } ?? 0)
            sqlite3_close_v2(handle)
            throw failure
        }
        db = handle
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit { close() }

    /// Whether `close` has run.
    var isClosed: Bool { db == nil }

    /// Finalizes every statement and closes the handle. Idempotent.
    func close() {
        for statement in statements.values { statement.finalize() }
        statements.removeAll()
        if let db { sqlite3_close_v2(db) }
        db = nil
    }

    /// Closes without the checkpoint SQLite runs when the last connection to a WAL database
    /// closes: the WAL stays as it is, exactly as a `kill -9` would leave it.
    func closeWithoutCheckpoint() {
        if let db { _ = cc_sqlite3_set_no_checkpoint_on_close(db, 1) }
        close()
    }

    /// The open handle, or a `SQLITE_MISUSE` failure once closed.
    func handle() throws -> OpaquePointer {
        guard let db else { throw SQLiteFailure(code: SQLITE_MISUSE, message: "the connection is closed") }
        return db
    }

    /// The failure for `code` with the connection's current message and errno.
    func failure(_ code: Int32) -> SQLiteFailure {
        guard let db else { return SQLiteFailure(code: code, message: String(cString: sqlite3_errstr(code))) }
        return SQLiteFailure(code: code, message: String(cString: sqlite3_errmsg(db)), systemErrno: sqlite3_system_errno(db))
    }

    /// Runs SQL that returns no rows (one or more statements separated by `;`).
    /// - Throws: `SQLiteFailure`.
    func execute(_ sql: String) throws {
        let db = try handle()
        let code = sqlite3_exec(db, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw failure(code) }
    }

    /// The prepared statement for `sql`, reset and with no bindings; prepared once per connection.
    /// Callers `reset()` it when done (`defer`), so a half-read statement never pins a snapshot.
    /// - Throws: `SQLiteFailure` when the SQL does not compile (or the schema is not there).
    func statement(_ sql: String) throws -> SQLiteStatement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        let db = try handle()
        var raw: OpaquePointer?
        let code = sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard code == SQLITE_OK, let raw else { throw failure(code) }
        let statement = SQLiteStatement(raw, connection: self)
        statements[sql] = statement
        return statement
    }

    /// The first column of the first row of `sql` as an integer; nil when there is no row.
    /// - Throws: `SQLiteFailure`.
    func integer(_ sql: String) throws -> Int64? {
        let s = try statement(sql)
        defer { s.reset() }
        return try s.step() ? s.int64(0) : nil
    }

    /// The first column of every row of `sql` as text (PRAGMA answers).
    /// - Throws: `SQLiteFailure`.
    func texts(_ sql: String) throws -> [String] {
        let s = try statement(sql)
        defer { s.reset() }
        var rows: [String] = []
        while try s.step() { rows.append(s.text(0) ?? "") }
        return rows
    }

    /// The rowid of the last row inserted on this connection.
    var lastInsertRowID: Int64 { db.map { sqlite3_last_insert_rowid($0) } ?? 0 }

    /// Whether no transaction is open (SQLite rolls a transaction back by itself after some
    /// failures, e.g. `SQLITE_FULL` in the middle of a statement).
    var isAutocommit: Bool { db.map { sqlite3_get_autocommit($0) != 0 } ?? true }

    /// Rolls back the open transaction, if any; failures are ignored (there is nothing left to
    /// undo when SQLite already rolled back).
    func rollbackIfNeeded() {
        guard !isAutocommit else { return }
        for statement in statements.values { statement.reset() }
        _ = try? execute("ROLLBACK")
    }
}
