/*
 * db_sql.h: the SQL helpers the stores share (prepared statements kept on
 * their connection, stepping, reading rows, binding text).
 *
 * db/'s own header: included only by the .c files of db/ (and the tests
 * of db/).  Above db/, code includes db.h, which names no SQLite type; here
 * a db_conn is what it is, a sqlite3 connection (db.h's typedef), so the
 * stores may take sqlite3 * where db.h says db_conn *.
 */
#ifndef UMPIRE_DB_SQL_H
#define UMPIRE_DB_SQL_H

#include <stdbool.h>
#include <stddef.h>

#include <sqlite3.h>

#include "db.h"
#include "err.h"

/*
 * Helpers for the stores.  db_prepare gives a statement for sql on conn,
 * reusing one kept on the connection when it is idle; release it with
 * db_done (never sqlite3_finalize).  db_fail maps a SQLite failure to
 * ERR_DB with a message, ERR_CONFLICT for a constraint, or ERR_FULL with
 * DB_FULL_MESSAGE when the disk is full (db_is_full).
 */
err_code db_prepare(sqlite3 *conn, const char *sql, sqlite3_stmt **st,
                    err_info *e);
void db_done(sqlite3_stmt *st);
err_code db_fail(sqlite3 *conn, err_info *e, const char *what);

/* Whether conn's last failure was the disk being full: SQLITE_FULL, or an
 * I/O error (a write, fsync or truncate) whose system error is ENOSPC or
 * EDQUOT. */
bool db_is_full(sqlite3 *conn);

/* Steps st, expected to finish without rows; what names it in an error. */
err_code db_step_done(sqlite3 *c, sqlite3_stmt *st, err_info *e,
                      const char *what);

/* How long a connection waits for a lock held by another (ms). */
#define DB_BUSY_MS 5000

/*
 * The log's upkeep (wal.c), on the writer's connection w outside any
 * transaction.  db_wal_checkpoint moves the write-ahead log into the
 * database and truncates it (TRUNCATE), waiting up to timeout_ms for
 * locks: with a reader still on an old snapshot it moves what it can and
 * answers ERR_CONFLICT; ERR_FULL when the database cannot grow.
 * db_wal_probe writes and commits one page (the schema version, unchanged):
 * ERR_OK when the disk takes writes, ERR_FULL when it is full.
 */
err_code db_wal_checkpoint(sqlite3 *w, int timeout_ms, err_info *e);
err_code db_wal_probe(sqlite3 *w, err_info *e);

/* Reads a row into the element at elem (zeroed beforehand). */
typedef void (*db_row_reader)(sqlite3_stmt *st, void *elem);

/*
 * Steps st (prepared and bound) to the end, reading each row with read into
 * a growing array of size-byte elements: *out (new) and *n.  On failure the
 * array is released, with release (may be NULL) first, and *out is NULL.
 * st is released (db_done) in any case.
 */
err_code db_read_rows(sqlite3 *c, sqlite3_stmt *st, size_t size,
                      db_row_reader read, void (*release)(void *, size_t),
                      void **out, size_t *n, const char *what, err_info *e);

/* A copy of column col as text into buf (size n); "" for NULL. */
void db_column_copy(sqlite3_stmt *st, int col, char *buf, size_t n);

/* A malloc'd copy of column col, or NULL for NULL (caller frees). */
char *db_column_dup(sqlite3_stmt *st, int col);

/*
 * Documents stored packed.  A document column holds text, or a blob: the
 * text packed by zstd, in one frame that records its length.
 * db_doc_pack makes the blob (new, *len its size; NULL when out of
 * memory); db_column_doc reads either as a malloc'd text, NULL for NULL
 * or for a blob that does not inflate to its length.
 */
unsigned char *db_doc_pack(const char *text, size_t *len);
char *db_column_doc(sqlite3_stmt *st, int col);

/* Binds s as text, without a copy: s (not NULL) is borrowed and must
 * stay valid until st is released (db_done).  Returns SQLite's code. */
int db_bind_text(sqlite3_stmt *st, int i, const char *s);

/* Binds a copy of s as text, or NULL when s is NULL or "".  Returns
 * SQLite's code. */
int db_bind_text_or_null(sqlite3_stmt *st, int i, const char *s);

/* The same without the copy: s is borrowed, as db_bind_text's is. */
int db_bind_text_or_null_borrowed(sqlite3_stmt *st, int i, const char *s);

#endif
