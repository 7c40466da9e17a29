/*
 * db.h: the SQLite database: opening, migrations, connections, and the
 * single writer that commits many requests' writes with one fsync.
 *
 * Invariants:
 *   - the database runs in WAL mode with synchronous=FULL: a transaction
 *     reported committed survives a crash or power loss;
 *   - exactly one connection writes, owned by the writer thread; reads use
 *     a pool of read-only connections and see the last committed state;
 *   - migrations are numbered, forward-only, each in its own transaction,
 *     and recorded in PRAGMA user_version.
 */
#ifndef UMPIRE_DB_H
#define UMPIRE_DB_H

#include <stdbool.h>
#include <stddef.h>

#include <sqlite3.h>

#include "err.h"

typedef struct db db;

/* A unit of write work, run inside the writer's transaction (under its own
 * savepoint: a job that fails leaves no trace, and the others still land). */
typedef err_code (*db_job_fn)(sqlite3 *conn, void *arg, err_info *e);

/* Called on the writer thread once the job's fate is durable: rc ERR_OK
 * means committed.  e is the job's error (borrowed for the call). */
typedef void (*db_done_fn)(void *arg, err_code rc, const err_info *e);

#define DB_ID_MAX   40 /* ids such as "cmp_0123456789abcdef01234567" */
#define DB_TIME_MAX 32 /* "2026-11-22T10:00:00.123Z" */

/*
 * Opens (creating if needed) the database at path (":memory:" is refused:
 * the pool needs a file), applies pending migrations and starts the writer.
 * n_readers is the size of the read pool.  *out is new: free with db_close.
 */
err_code db_open(const char *path, int n_readers, db **out, err_info *e);

/* Waits for queued jobs, stops the writer, checkpoints and closes. NULL ok. */
void db_close(db *d);

/* The schema version after migrations (PRAGMA user_version). */
int db_schema_version(db *d);

/* Reads the schema through a pooled connection: the schema version, or -1
 * when the database cannot be read. */
int db_ping(db *d);

/* Number of migrations this build knows. */
int db_n_migrations(void);

/* A read-only connection from the pool; blocks while all are lent out.
 * Return it with db_read_release. */
sqlite3 *db_read_acquire(db *d);
void db_read_release(db *d, sqlite3 *conn);

/*
 * Queues run(arg) for the writer; done(arg, ...) is called on the writer
 * thread after the batch holding it committed or failed.  Never blocks on
 * the disk.  Fails only if the writer has stopped (ERR_INTERNAL).
 */
err_code db_submit(db *d, db_job_fn run, db_done_fn done, void *arg);

/* Runs run(arg) through the writer and waits for its durable outcome. */
err_code db_write(db *d, db_job_fn run, void *arg, err_info *e);

/* Statistics of the writer: jobs and commits so far. */
void db_writer_stats(db *d, unsigned long *n_jobs, unsigned long *n_commits);

/* A new id "<prefix>_<24 hex digits>" into out (DB_ID_MAX bytes): the
 * time in milliseconds (12 digits), then 48 random bits. */
void db_new_id(const char *prefix, char out[DB_ID_MAX]);

/* The current UTC time as RFC 3339 with milliseconds. */
void db_now(char out[DB_TIME_MAX]);

/*
 * Helpers for the stores.  db_prepare gives a statement for sql on conn,
 * reusing one kept on the connection when it is idle; release it with
 * db_done (never sqlite3_finalize).  db_fail maps a SQLite failure to
 * ERR_DB (or ERR_CONFLICT for a constraint) with a message.
 */
err_code db_prepare(sqlite3 *conn, const char *sql, sqlite3_stmt **st,
                    err_info *e);
void db_done(sqlite3_stmt *st);
err_code db_fail(sqlite3 *conn, err_info *e, const char *what);

/* A copy of column col as text into buf (size n); "" for NULL. */
void db_column_copy(sqlite3_stmt *st, int col, char *buf, size_t n);

/* A malloc'd copy of column col, or NULL for NULL (caller frees). */
char *db_column_dup(sqlite3_stmt *st, int col);

/* Binds text or NULL when s is NULL or "". */
int db_bind_text_or_null(sqlite3_stmt *st, int i, const char *s);

#endif
