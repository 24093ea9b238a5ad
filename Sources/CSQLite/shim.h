/* CSQLite: what Swift cannot import from SQLite directly.
 * SQLITE_TRANSIENT is a macro that casts -1 to a destructor function pointer, which Swift does
 * not import, so binding a buffer SQLite must copy goes through these static inline functions.
 * sqlite3_db_config is variadic, which Swift cannot call; the one option ChartCast sets through
 * it has a fixed-argument wrapper. Nothing else lives here. */
#ifndef CHARTCAST_CSQLITE_SHIM_H
#define CHARTCAST_CSQLITE_SHIM_H

#include <sqlite3.h>

/* sqlite3_bind_blob with SQLITE_TRANSIENT: SQLite copies the bytes before returning, so the
 * caller's buffer only has to live for the call. */
static inline int cc_sqlite3_bind_blob_transient(sqlite3_stmt *stmt, int index, const void *bytes, int count) {
    return sqlite3_bind_blob(stmt, index, bytes, count, SQLITE_TRANSIENT);
}

/* sqlite3_bind_text with SQLITE_TRANSIENT: `count` UTF-8 bytes, copied before returning. */
static inline int cc_sqlite3_bind_text_transient(sqlite3_stmt *stmt, int index, const char *text, int count) {
    return sqlite3_bind_text(stmt, index, text, count, SQLITE_TRANSIENT);
}

/* sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, on, NULL): whether closing the last
 * connection skips the checkpoint that would fold the WAL into the database and delete it. */
static inline int cc_sqlite3_set_no_checkpoint_on_close(sqlite3 *db, int on) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, on, (int *)0);
}

#endif
