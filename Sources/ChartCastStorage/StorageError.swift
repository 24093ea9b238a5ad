import CSQLite
#if canImport(Glibc)
import Glibc
#endif

/// Why the history store could not do what it was asked: one readable sentence naming the
/// database file (or its directory) and the cause.
///
/// The server answers a write that failed with `isUnavailable` (disk full, read-only, I/O error,
/// locked, or the store closed) with HTTP 503 `unavailable`: nothing of that write was applied,
/// and the same write may succeed later, when the cause is gone. The other kinds come from `open`
/// and stop the server from starting: it never starts empty on top of a file it cannot use.
public struct StorageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong, for callers that branch on it.
    public enum Kind: Equatable, Sendable {
        /// The directory or the database file cannot be created, opened or written at open.
        case cannotOpen
        /// The file is not a SQLite database, or fails its integrity check, or holds data the
        /// store cannot read back.
        case corrupt
        /// The database was written by a newer ChartCast (its schema version is higher).
        case newerSchema
        /// The store cannot take the write or read now: disk full, read-only, I/O error, locked.
        /// Nothing was applied; the store recovers by itself when the cause goes away.
        case unavailable
        /// The store was closed (the server is shutting down).
        case closed
    }

    /// What went wrong.
    public var kind: Kind
    /// The database file or directory concerned.
    public var path: String
    /// The sentence: what was being done, the path, the cause and SQLite's own words.
    public var message: String
    /// SQLite's extended result code when SQLite reported the failure.
    public var sqliteCode: Int32?

    /// Creates an error from its parts.
    public init(kind: Kind, path: String, message: String, sqliteCode: Int32? = nil) {
        self.kind = kind
        self.path = path
        self.message = message
        self.sqliteCode = sqliteCode
    }

    /// The message.
    public var description: String { message }

    /// Whether the failure is temporary and nothing was applied: the server's 503 `unavailable`.
    public var isUnavailable: Bool { kind == .unavailable || kind == .closed }

    /// What the store was doing when SQLite failed; the first words of the message.
    enum Action: String {
        case opening = "Opening the history database"
        case writing = "Writing to the history database"
        case reading = "Reading the history database"
    }

    /// Maps a SQLite failure to the error callers see.
    /// - Parameters:
    ///   - failure: SQLite's code and words.
    ///   - action: what the store was doing.
    ///   - path: the database file.
    init(_ failure: SQLiteFailure, while action: Action, path: String) {
        let primary = failure.code & 0xFF
        let kind: Kind
        switch primary {
        case SQLITE_NOTADB, SQLITE_CORRUPT: kind = .corrupt
        default: kind = action == .opening ? .cannotOpen : .unavailable
        }
        var cause = StorageError.cause(of: primary)
        if failure.systemErrno != 0, let text = strerror(failure.systemErrno) {
            cause += " (\(String(cString: text)))"
        }
        let detail = failure.message.isEmpty ? "" : "; SQLite says: \(failure.message)"
        self.init(kind: kind, path: path, message: "\(action.rawValue) \(path) failed: \(cause)\(detail).",
                  sqliteCode: failure.code)
    }

    /// A plain-language cause for a primary SQLite result code.
    static func cause(of primary: Int32) -> String {
        switch primary {
        case SQLITE_FULL: return "the disk is full or the database reached its size limit"
        case SQLITE_READONLY: return "the database or its directory is read-only"
        case SQLITE_IOERR: return "an input/output error"
        case SQLITE_CANTOPEN: return "the file cannot be opened or created"
        case SQLITE_PERM, SQLITE_AUTH: return "permission denied"
        case SQLITE_BUSY, SQLITE_LOCKED: return "another connection or process holds a lock on it"
        case SQLITE_NOTADB: return "the file is not a SQLite database"
        case SQLITE_CORRUPT: return "the database file is corrupt"
        case SQLITE_NOMEM: return "out of memory"
        default: return "SQLite error \(primary)"
        }
    }

    /// A failure of the file system outside SQLite (creating or checking the directory).
    static func system(_ what: String, path: String, errno code: Int32, kind: Kind = .cannotOpen) -> StorageError {
        let cause = strerror(code).map { String(cString: $0) } ?? "error \(code)"
        return StorageError(kind: kind, path: path, message: "\(what) \(path) failed: \(cause.lowercased()) (errno \(code)).")
    }

    /// Stored data the store cannot read back (a chunk of the wrong size, a spec that no longer
    /// parses): the file was changed behind the store's back.
    static func corrupt(path: String, _ cause: String) -> StorageError {
        StorageError(kind: .corrupt, path: path, message: "The history database \(path) is corrupt: \(cause).")
    }

    /// The answer to any call on a closed store.
    static func closed(path: String) -> StorageError {
        StorageError(kind: .closed, path: path, message: "The history database \(path) is closed.")
    }
}

/// A SQLite result code with SQLite's message and, for I/O failures, the system's errno.
struct SQLiteFailure: Error {
    var code: Int32
    var message: String
    var systemErrno: Int32 = 0
}
