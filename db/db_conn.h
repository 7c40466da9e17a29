/*
 * db_conn.h: what a connection and a statement are, inside db/.
 *
 * A db_conn is a connection to one of the two stores: an SQLite file (the
 * embedded default) or a PostgreSQL database (a libpq connection string).
 * The stores' SQL is written once, in the subset both engines accept,
 * with SQLite's parameters (?, ?N); the PostgreSQL side turns them into
 * $N when it prepares a statement.  Above this header only db_sql.h's
 * functions are used: nothing outside db_sql.c, sql_pg.c, db.c, wal.c,
 * backup.c and db_read.c knows which store it talks to.
 *
 * Included by db/'s own files only.
 */
#ifndef UMPIRE_DB_CONN_H
#define UMPIRE_DB_CONN_H

#include <stdbool.h>
#include <stddef.h>

#include <libpq-fe.h>
#include <sqlite3.h>

#include "db.h"
#include "db_sql.h"
#include "err.h"

typedef struct db_stmt db_stmt;

/* The two stores. */
typedef enum db_kind { DB_KIND_SQLITE, DB_KIND_PG } db_kind;

/* Whether path names a PostgreSQL database (a postgres:// or
 * postgresql:// URL) rather than an SQLite file. */
bool db_path_is_pg(const char *path);

struct db_conn {
    db_kind kind;
    bool is_writer;
    bool is_txn;          /* PostgreSQL: a transaction we opened */
    bool needs_reset;     /* PostgreSQL: make the session again when free */
    bool is_retrying;     /* PostgreSQL: a BEGIN tried again after a break */
    bool is_abandoned;    /* PostgreSQL: a snapshot closed mid-read
                             (db_snapshot_abandon) */
    unsigned epoch;       /* PostgreSQL: pg_epoch when last made (sql_pg.c) */
    sqlite3 *lite;        /* DB_KIND_SQLITE */
    PGconn *pg;           /* DB_KIND_PG */
    unsigned generation;  /* PostgreSQL: bumped at each reconnection */
    unsigned n_named;     /* PostgreSQL: statements prepared so far */
    struct db_stmt *kept; /* statements kept for reuse */
    int changes;          /* PostgreSQL: rows the last statement changed */
    long long total_changes; /* PostgreSQL: rows changed so far */
    char sqlstate[6];        /* PostgreSQL: the last failure's SQLSTATE */
    char errmsg[256];        /* PostgreSQL: the last failure, one line */
    /* SQLite: the units kept between snapshots (unit_cache.h): a
     * reader's while it holds a snapshot (db_read_begin to db_read_end),
     * the writer's always; else NULL. */
    struct unit_cache *units;
    /* A reader's snapshot: the campaign whose version it read
     * (db_campaign_get), or "", and that version. */
    char snap_campaign[DB_ID_MAX];
    long long snap_version;
    /* The campaign's next commitment, read with that version
     * (db_campaign_kept; secret: zeroed with the snapshot), for
     * db_commitment_next; valid while has_snap_next. */
    db_commitment snap_next;
    bool has_snap_next;
    /* The campaign's ledger, read in the same statement (db_campaign_kept),
     * for db_chain_open; valid while has_snap_ledger. */
    db_ledger_head snap_ledger;
    bool has_snap_ledger;
    /* The campaign as combats in flight leave it (db_snapshot_ahead),
     * borrowed, and whether db_campaign_get found the snapshot within
     * it (then reads of it are ahead's). */
    const db_ahead *ahead;
    bool is_ahead;
    /* The writer: what its batch's jobs landed (db_units_landed), kept
     * for the cache until the batch commits. */
    struct unit_landing *landings;
    size_t n_landings, cap_landings;
    /* The SQLite writer: what it keeps between its statements
     * (writer_kept.h), or NULL; forgotten whenever its writes are rolled
     * back (db_kept_forget). */
    struct writer_kept *writer_kept;
    /* SQLite: the store's live tokens kept (token_cache.h), which a
     * reader looks in and the writer forgets on a reissue; else NULL.
     * The writer: whether its batch reissued a token (tokens.c), so
     * that the batch forgets them again once committed (db.c). */
    struct token_cache *tokens;
    bool is_token_reissued;
    /* PostgreSQL: the units read together for the finds that follow
     * (db_units_prefetch to db_units_prefetch_end, units.c), or NULL. */
    struct unit_prefetch *prefetch;
};

/* The most parameters a statement takes. */
#define PG_PARAMS_MAX 64

struct db_stmt {
    db_conn *c;
    char *sql;    /* the text it was prepared from (the cache's key) */
    bool is_busy; /* lent out by db_prepare, not yet db_done */
    bool is_kept; /* on c->kept (else db_finalize frees it) */
    struct db_stmt *next;

    sqlite3_stmt *lite;

    /* PostgreSQL: the statement, its parameters and its result. */
    char *pg_sql;        /* with $N */
    char name[24];       /* the server-side prepared statement */
    unsigned generation; /* c->generation it was prepared in */
    int n_params;
    Oid *param_types;            /* as the server inferred them */
    bool is_used[PG_PARAMS_MAX]; /* whether the SQL names $k+1 (sql_pg.c) */
    char **values;               /* bound values (owned copies, or borrowed) */
    int *lengths;
    int *formats;
    bool *is_owned;
    PGresult *res;
    int row, n_rows;
    bool is_run;         /* executed since the last reset */
    bool is_control;     /* BEGIN, COMMIT ...: run unprepared */
    bool is_stream_open; /* a row at a time, rows still to come */
    unsigned char *blob; /* the last bytea column decoded */
    size_t blob_len;
    int blob_row, blob_col;
};

/* Finalizes every statement kept on c (before it closes). */
void db_conn_forget(db_conn *c);

/* ---- the SQLite side (sql_lite.c) ---- */
/* The page size of a database the service creates; one made before keeps
 * its own (SQLite sets it once, at creation).  A commit writes every page
 * it changed to the log whole, each with a checksum of every byte of it,
 * and a combat changes a page or two in each of some ten tables and
 * indexes, wherever the page size.  SQLite's default of 4 KiB made that
 * checksum the writer's dearest work on a combat (about 50k instructions
 * of its 205k for a campaign SCRUD 4 v 4; bench/README.md, "Cost in
 * instructions", pages of 1 KiB).  At 1 KiB a commit writes a quarter of
 * the bytes, for 2 to 10 % more room in the database (a combat's row no
 * longer fits a page whole: its larger part takes an overflow page, and
 * three or two of what is left fit a page, as the row is a few bytes
 * shorter or longer). */
#define DB_PAGE_SIZE 1024
/* The log is checkpointed once it holds this many bytes of pages (4096
 * pages of 4 KiB, 16384 of 1 KiB), and cut back to DB_WAL_LIMIT bytes when
 * it starts over. */
#define DB_AUTOCHECKPOINT_BYTES (16 * 1024 * 1024)
#define DB_WAL_LIMIT            16777216
/* The name of the VFS the writer opens with (wal_vfs.c): SQLite's default
 * one, but for the write-ahead log, written a commit at a time; NULL (the
 * default itself) where it cannot be made. */
const char *lite_writer_vfs(void);
/* PRAGMA user_version of conn, or -1. */
int lite_user_version(sqlite3 *conn);
/* How many of conn's database pages hold bytes (its own page size), 1 at
 * least: the unit of wal_autocheckpoint. */
int lite_pages_of(sqlite3 *conn, long bytes);
/* An SQLite connection to the file at path, the writer's (read-write, WAL,
 * synchronous=FULL, on lite_writer_vfs) or a reader's (read-only). */
err_code lite_open(const char *path, bool is_writer, sqlite3 **out,
                   err_info *e);

/* ---- the PostgreSQL side (sql_pg.c) ---- */
err_code pg_conn_open(const char *url, bool is_writer, db_conn **out,
                      err_info *e);
/* Sets a writer's session up (pg_conn.c says with what): whether it
 * could, on a new connection or one made again. */
bool pg_session_setup(db_conn *c);
/* How many times a server said it is no longer the primary (or stops):
 * a connection made at an older count is made again (sql_pg.c). */
unsigned pg_epoch_now(void);
/* A libpq connection to url as the service opens them (keepalives, and
 * name as its application_name unless the URL gives one). */
PGconn *pg_connect(const char *url, const char *name);
void pg_conn_close(db_conn *c);
err_code pg_prepare(db_conn *c, db_stmt *st, err_info *e);
void pg_reset(db_stmt *st);
void pg_clear(db_stmt *st);
void pg_finalize(db_stmt *st);
int pg_step(db_stmt *st);
/* SQL in the stores' dialect as PostgreSQL takes it (sql_pg.c says how),
 * new (NULL when out of memory); *n_params its largest parameter, used[k]
 * whether $k+1 appears. */
char *pg_sql_text(const char *sql, int *n_params, bool used[PG_PARAMS_MAX]);
int pg_bind(db_stmt *st, int i, const void *v, int len, bool is_binary,
            bool is_copy);
const char *pg_value(db_stmt *st, int col);
int pg_column_type(db_stmt *st, int col);
const void *pg_column_blob(db_stmt *st, int col, size_t *len);
err_code pg_exec(db_conn *c, const char *sql, err_info *e);
bool pg_in_transaction(db_conn *c);
/* ERR_CONFLICT, ERR_FULL, ERR_UNAVAILABLE or ERR_DB for c's last
 * failure. */
err_code pg_fail_code(db_conn *c);
/* Migrations on a PostgreSQL store, under an advisory lock (several
 * instances may start at once); the schema version into *version. */
err_code pg_migrate(db_conn *c, int *version, err_info *e);
int pg_schema_version(db_conn *c);

#endif
