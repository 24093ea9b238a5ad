#if canImport(Glibc)
import Glibc
#endif

/// Where the database lives and how its connections are opened and checked.
enum DatabaseFiles {
    /// The database file's name inside the store's directory.
    static let fileName = "history.sqlite"

    /// Page cache per connection, KiB (SQLite's default is 2,000).
    static let cacheKiB = 16_384

    /// Creates `path` and any missing parents, then checks it is a directory this process may
    /// write into.
    /// - Throws: `StorageError(.cannotOpen)` naming the directory and the system's cause.
    static func ensureDirectory(_ path: String) throws {
        guard !path.isEmpty else {
            throw StorageError(kind: .cannotOpen, path: path, message: "Opening the history store failed: the directory path is empty.")
        }
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            var info = stat()
            if stat(prefix, &info) == 0 {
                guard info.st_mode & S_IFMT == S_IFDIR else {
                    throw StorageError(kind: .cannotOpen, path: path, message:
                        "Creating the history directory \(path) failed: \(prefix) exists and is not a directory.")
                }
            } else if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw StorageError.system("Creating the history directory", path: prefix == path ? path : "\(path) (at \(prefix))", errno: errno)
            }
            prefix += "/"
        }
        guard access(path, W_OK | X_OK) == 0 else {
            throw StorageError.system("Opening the history directory", path: path, errno: errno)
        }
    }

    /// Opens the writer: checks the file (`PRAGMA quick_check`), switches to WAL with the given
    /// durability, and creates or checks the schema.
    /// - Throws: `StorageError`: `.corrupt` for a file that is not a database or fails the
    ///   check, `.newerSchema`, `.cannotOpen` for everything that stops SQLite opening it.
    static func openWriter(path: String, durability: HistoryStore.Durability) throws -> SQLiteConnection {
        do {
            let db = try SQLiteConnection(path: path, create: true)
            do {
                try db.execute("PRAGMA busy_timeout = 5000")
                try check(db)
                let mode = try db.texts("PRAGMA journal_mode = WAL")
                guard mode.first?.lowercased() == "wal" else {
                    throw StorageError(kind: .cannotOpen, path: path, message:
                        "Opening the history database \(path) failed: SQLite could not switch it to WAL mode (journal_mode is \(mode.first ?? "unknown")).")
                }
                try db.execute("""
                    PRAGMA synchronous = \(durability.synchronous);
                    PRAGMA cache_size = -\(cacheKiB);
                    PRAGMA wal_autocheckpoint = 4000;
                    PRAGMA journal_size_limit = 67108864;
                    """)
                try Schema.prepare(db)
                return db
            } catch {
                db.close()
                throw error
            }
        } catch let failure as SQLiteFailure {
            throw StorageError(failure, while: .opening, path: path)
        }
    }

    /// `PRAGMA quick_check`: every page and B-tree read once (O(file size)); anything but "ok"
    /// is corruption. A file that is not a database fails here with `SQLITE_NOTADB`.
    /// - Throws: `StorageError(.corrupt)` quoting SQLite's first findings; `SQLiteFailure`.
    static func check(_ db: SQLiteConnection) throws {
        let findings = try db.texts("PRAGMA quick_check(5)")
        guard findings == ["ok"] else {
            let quoted = findings.prefix(3).joined(separator: "; ")
            throw StorageError.corrupt(path: db.path, "PRAGMA quick_check found \(quoted.isEmpty ? "no answer" : quoted)")
        }
    }

    /// Opens a reader: an ordinary read-write connection told to refuse writes
    /// (`query_only`), so it can share the WAL index with the writer.
    /// - Throws: `SQLiteFailure`.
    static func openReader(path: String) throws -> SQLiteConnection {
        let db = try SQLiteConnection(path: path, create: false)
        try db.execute("""
            PRAGMA busy_timeout = 5000;
            PRAGMA query_only = 1;
            PRAGMA cache_size = -\(cacheKiB);
            """)
        return db
    }
}
