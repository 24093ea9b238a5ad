import CSQLite

/// A prepared statement of one `SQLiteConnection`: bind, step, read columns.
///
/// Binding never throws; a failed bind is kept and thrown by the next `step()`, so call sites
/// stay a list of binds followed by one `try`.
///
/// - Note: not thread-safe; belongs to its connection's thread of the moment.
final class SQLiteStatement {
    private var raw: OpaquePointer?
    private unowned let connection: SQLiteConnection
    /// The first bind failure since the last reset.
    private var bindFailure: Int32 = SQLITE_OK

    init(_ raw: OpaquePointer, connection: SQLiteConnection) {
        self.raw = raw
        self.connection = connection
    }

    /// Releases the statement; the connection calls it before closing.
    func finalize() {
        sqlite3_finalize(raw)
        raw = nil
    }

    /// Ends the current execution (releasing its read snapshot) and clears the bindings.
    func reset() {
        guard let raw else { return }
        sqlite3_reset(raw)
        sqlite3_clear_bindings(raw)
        bindFailure = SQLITE_OK
    }

    private func note(_ code: Int32) {
        if code != SQLITE_OK && bindFailure == SQLITE_OK { bindFailure = code }
    }

    /// Binds a double to parameter `index` (1-based).
    func bind(_ index: Int32, _ value: Double) { note(sqlite3_bind_double(raw, index, value)) }

    /// Binds an integer to parameter `index`.
    func bind(_ index: Int32, _ value: Int64) { note(sqlite3_bind_int64(raw, index, value)) }

    /// Binds an integer to parameter `index`.
    func bind(_ index: Int32, _ value: Int) { bind(index, Int64(value)) }

    /// Binds UTF-8 text (copied) to parameter `index`.
    func bind(_ index: Int32, _ value: String) {
        var text = value
        text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                note(cc_sqlite3_bind_text_transient(raw, index, chars.baseAddress, Int32(chars.count)))
            }
        }
    }

    /// Binds a blob (copied) to parameter `index`; an empty blob is a zero-length blob, not NULL.
    func bind(_ index: Int32, blob: UnsafeRawBufferPointer) {
        if blob.isEmpty {
            note(sqlite3_bind_zeroblob(raw, index, 0))
        } else {
            note(cc_sqlite3_bind_blob_transient(raw, index, blob.baseAddress, Int32(blob.count)))
        }
    }

    /// Binds a blob (copied) to parameter `index`.
    func bind(_ index: Int32, blob: [UInt8]) {
        blob.withUnsafeBytes { bind(index, blob: $0) }
    }

    /// Binds NULL to parameter `index`.
    func bindNull(_ index: Int32) { note(sqlite3_bind_null(raw, index)) }

    /// Runs the statement to its next row: true with a row to read, false when done.
    /// - Throws: `SQLiteFailure` (including a bind failure since the last reset).
    @discardableResult
    func step() throws -> Bool {
        guard let raw else { throw SQLiteFailure(code: SQLITE_MISUSE, message: "the statement is finalized") }
        if bindFailure != SQLITE_OK { throw connection.failure(bindFailure) }
        let code = sqlite3_step(raw)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.failure(code)
        }
    }

    /// Column `column` (0-based) of the current row as a double.
    func double(_ column: Int32) -> Double { sqlite3_column_double(raw, column) }

    /// Column `column` of the current row as an integer.
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(raw, column) }

    /// Column `column` of the current row as an integer.
    func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(raw, column)) }

    /// Whether column `column` of the current row is NULL.
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(raw, column) == SQLITE_NULL }

    /// Column `column` of the current row as text; nil when NULL.
    func text(_ column: Int32) -> String? {
        guard let chars = sqlite3_column_text(raw, column) else { return nil }
        let count = Int(sqlite3_column_bytes(raw, column))
        return String(decoding: UnsafeBufferPointer(start: chars, count: count), as: UTF8.self)
    }

    /// Calls `body` with the bytes of blob column `column` of the current row (empty for NULL or
    /// a zero-length blob). The bytes are valid only inside `body`.
    func withBlob<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let start = sqlite3_column_blob(raw, column)
        let count = Int(sqlite3_column_bytes(raw, column))
        return try body(UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : count))
    }

    /// Column `column` of the current row as bytes (an empty array for NULL).
    func bytes(_ column: Int32) -> [UInt8] { withBlob(column) { Array($0) } }
}
