/// The history database's tables, their version, and why they look the way they do.
///
/// **Layout (schema version 1).**
///
/// - `schema_version(version)`: one row. A database from a newer ChartCast is refused at open
///   rather than misread; an older one would be migrated here (there is none yet).
/// - `chart(id, position, kind, axis, retention, spec)`, one row per chart that has stored
///   points or a saved spec: its x kind (0 time, 1 linear, 2 category), its `axis` (category
///   names joined with U+001F, so a changed axis can be noticed), its retention in seconds, and
///   the spec's JSON (`ChartSpec.encoded()`) when saved through the API — NULL for charts that
///   only have points (dashboard-file charts). `position` keeps the order of first definition.
/// - `series(id, chart, name)`: a small integer per (chart, series name), the key of the chunks.
/// - `chunk(series, x0, x1, n, y0, y1, xmin, ymin, xmax, ymax, t0, t1, data)`, a WITHOUT ROWID
///   table keyed by (series, x0): one row per chunk of up to `chunkCapacity` points of one series,
///   with its x range, count, first and last y, the extremes and the x of the first point holding
///   each, and the oldest and newest write time. A series' chunks never overlap in x, and within
///   a chunk x is ascending and unique, so (series, x) identifies at most one stored point.
/// - `chunk_data(id, points)`: the chunk's points as one BLOB of packed doubles (`ChunkPoints`).
///   It sits in its own table so that the summary rows stay small (about 40 to a 4 KiB page) and
///   a downsampling read can walk a series' summaries without touching the blobs.
///
/// **Why chunks, not a row per point.** A row per point costs about 40 bytes with its index
/// entry and a B-tree step per point on both ingest and read; reading 10^7 points back to
/// downsample them cannot meet 200 ms that way. With chunks, ingest writes one summary row and
/// one blob per ~1,000 points, and an M4 read decodes only the chunks that straddle a column
/// boundary or the range's ends: every other chunk lies inside one column, and its summary
/// (first, last, min, max) is exactly what M4 keeps of it. Points cost 16 bytes (24 with write
/// times) plus a few bytes of summary and page slack; `chartcast-bench --storage` states it.
///
/// **Frequent small writes.** A write that does not overlap stored chunks adds chunks; one that
/// does rewrites the chunks it overlaps (merging, the new value winning at equal x). A write of
/// few points makes a small chunk, so when a run of `mergeRun` neighbouring chunks are all below
/// half the capacity, the write that completes the run merges it, in the same transaction: the
/// work is bounded (at most a few capacities of points) and the chunk count stays about
/// (points / capacity) × 2 however small the writes are.
enum Schema {
    /// The version this build writes and reads.
    static let version: Int64 = 1

    /// The tables of version 1.
    static let createVersion1 = """
        CREATE TABLE schema_version (version INTEGER NOT NULL);
        CREATE TABLE chart (
            id TEXT PRIMARY KEY NOT NULL,
            position INTEGER NOT NULL,
            kind INTEGER NOT NULL,
            axis TEXT NOT NULL,
            retention INTEGER NOT NULL,
            spec BLOB
        ) WITHOUT ROWID;
        CREATE TABLE series (
            id INTEGER PRIMARY KEY,
            chart TEXT NOT NULL,
            name TEXT NOT NULL,
            UNIQUE (chart, name)
        );
        CREATE TABLE chunk (
            series INTEGER NOT NULL,
            x0 REAL NOT NULL, x1 REAL NOT NULL, n INTEGER NOT NULL,
            y0 REAL NOT NULL, y1 REAL NOT NULL,
            xmin REAL NOT NULL, ymin REAL NOT NULL,
            xmax REAL NOT NULL, ymax REAL NOT NULL,
            t0 REAL NOT NULL, t1 REAL NOT NULL,
            data INTEGER NOT NULL,
            PRIMARY KEY (series, x0)
        ) WITHOUT ROWID;
        CREATE TABLE chunk_data (id INTEGER PRIMARY KEY, points BLOB NOT NULL);
        """

    /// Creates the tables in an empty database, or checks the version of an existing one.
    /// - Throws: `StorageError` (`.newerSchema`, or `.cannotOpen` for a SQLite database that is
    ///   not a ChartCast history); `SQLiteFailure` from SQLite.
    static func prepare(_ db: SQLiteConnection) throws {
        try db.execute("BEGIN IMMEDIATE")
        do {
            let ours = try db.integer("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'") ?? 0
            if ours == 0 {
                let tables = try db.integer("SELECT count(*) FROM sqlite_master") ?? 0
                guard tables == 0 else {
                    throw StorageError(kind: .cannotOpen, path: db.path, message:
                        "Opening the history database \(db.path) failed: it is a SQLite database of something else (it has tables but no schema_version table); move it away or choose another --data directory.")
                }
                try db.execute(createVersion1)
                try db.execute("INSERT INTO schema_version (version) VALUES (\(version))")
            } else {
                let found = try db.integer("SELECT max(version) FROM schema_version") ?? 0
                guard found <= version else {
                    throw StorageError(kind: .newerSchema, path: db.path, message:
                        "Opening the history database \(db.path) failed: it was written by a newer ChartCast (schema version \(found); this one reads up to \(version)).")
                }
                guard found == version else {
                    throw StorageError.corrupt(path: db.path, "its schema_version table says \(found), a version that never existed")
                }
            }
            try db.execute("COMMIT")
        } catch {
            db.rollbackIfNeeded()
            throw error
        }
    }
}
