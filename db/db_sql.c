/*
 * db_sql.c: the SQL helpers the stores share (db_sql.h): statements kept
 * on their connection, stepping, rows read into arrays, text bound, and
 * SQLite's failures as the project's error codes.
 *
 * A failure is ERR_CONFLICT for a constraint, ERR_FULL when the disk
 * holding the database is full (SQLITE_FULL, or an I/O error whose system
 * error, as SQLite or the VFS's file kept it, is ENOSPC or EDQUOT), ERR_DB
 * otherwise.
 */
#include "db_conn.h"
#include "db_sql.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "rng.h"

bool db_path_is_pg(const char *path)
{
    return path != NULL && (strncmp(path, "postgresql://", 13) == 0 ||
                            strncmp(path, "postgres://", 11) == 0);
}

err_code db_lock_campaign(db_conn *c, const char *campaign_id, err_info *e)
{
    db_stmt *st;
    err_code rc;

    if (c->kind != DB_KIND_PG)
        return ERR_OK;
    if ((rc = db_prepare(c,
                         "SELECT pg_advisory_xact_lock("
                         "hashtextextended(?1, 0))",
                         &st, e)) != ERR_OK)
        return rc;
    db_bind_text(st, 1, campaign_id);
    if (db_step(st) != DB_ROW)
        rc = db_fail(c, e, "lock the campaign");
    db_done(st);
    return rc;
}

bool db_is_file(const char *path)
{
    return !db_path_is_pg(path);
}

struct sqlite3 *db_conn_sqlite(db_conn *c)
{
    return c->kind == DB_KIND_SQLITE ? c->lite : NULL;
}

/* The system error of the last failure on conn's main file, or on its
 * journal (the -wal file) when is_journal, as the VFS kept it; 0 if none. */
static int file_errno(sqlite3 *conn, bool is_journal)
{
    sqlite3_file *f = NULL;
    int err = 0;

    if (!is_journal)
        sqlite3_file_control(conn, "main", SQLITE_FCNTL_LAST_ERRNO, &err);
    else if (sqlite3_file_control(conn, "main", SQLITE_FCNTL_JOURNAL_POINTER,
                                  &f) == SQLITE_OK &&
             f != NULL && f->pMethods != NULL)
        f->pMethods->xFileControl(f, SQLITE_FCNTL_LAST_ERRNO, &err);
    return err;
}

static bool is_enospc(int err)
{
    return err == ENOSPC || err == EDQUOT;
}

bool db_is_full(db_conn *c)
{
    int rc;

    if (c->kind == DB_KIND_PG)
        return pg_fail_code(c) == ERR_FULL;
    rc = sqlite3_extended_errcode(c->lite);
    if ((rc & 0xff) == SQLITE_FULL)
        return true;
    if ((rc & 0xff) != SQLITE_IOERR)
        return false;
    /* SQLite records the system error of a statement's failure, not of a
     * COMMIT's (an fsync of the log): the VFS keeps it on the file. */
    return is_enospc(sqlite3_system_errno(c->lite)) ||
           is_enospc(file_errno(c->lite, true)) ||
           is_enospc(file_errno(c->lite, false));
}

err_code db_fail(db_conn *c, err_info *e, const char *what)
{
    int rc;

    if (c->kind == DB_KIND_PG) {
        err_code code = pg_fail_code(c);
        if (code == ERR_FULL)
            return err_set(e, ERR_FULL, NULL, "%s", DB_FULL_MESSAGE);
        if (code == ERR_UNAVAILABLE && strcmp(c->sqlstate, "55P03") == 0)
            return err_set(e, ERR_UNAVAILABLE, NULL,
                           "the campaign is busy with another write; "
                           "nothing was written; retry shortly");
        if (code == ERR_UNAVAILABLE)
            return err_set(e, ERR_UNAVAILABLE, NULL, "%s", DB_DOWN_MESSAGE);
        return err_set(e, code, NULL, "%s: %s", what, c->errmsg);
    }
    rc = sqlite3_extended_errcode(c->lite);
    if ((rc & 0xff) == SQLITE_CONSTRAINT)
        return err_set(e, ERR_CONFLICT, NULL, "%s: %s", what,
                       sqlite3_errmsg(c->lite));
    if (db_is_full(c))
        return err_set(e, ERR_FULL, NULL, "%s", DB_FULL_MESSAGE);
    return err_set(e, ERR_DB, NULL, "%s: %s", what, sqlite3_errmsg(c->lite));
}

/* ---- statements ---- */

static void stmt_free(db_stmt *st)
{
    if (st->lite != NULL)
        sqlite3_finalize(st->lite);
    if (st->c->kind == DB_KIND_PG)
        pg_finalize(st);
    free(st->sql);
    free(st);
}

/* A new statement for sql on c, prepared. */
static err_code stmt_new(db_conn *c, const char *sql, db_stmt **out,
                         err_info *e)
{
    db_stmt *st = calloc(1, sizeof *st);
    err_code rc;

    *out = NULL;
    if (st == NULL || (st->sql = strdup(sql)) == NULL) {
        free(st);
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    }
    st->c = c;
    if (c->kind == DB_KIND_PG) {
        if ((rc = pg_prepare(c, st, e)) != ERR_OK) {
            stmt_free(st);
            return rc;
        }
    } else if (sqlite3_prepare_v3(c->lite, sql, -1, SQLITE_PREPARE_PERSISTENT,
                                  &st->lite, NULL) != SQLITE_OK) {
        rc = db_fail(c, e, "prepare");
        stmt_free(st);
        return rc;
    }
    *out = st;
    return ERR_OK;
}

/*
 * Statements are kept on their connection for reuse: db_prepare looks for
 * an idle statement of the same SQL among the connection's own, and moves
 * it to the front (the statements of a request are found first); db_done
 * resets a statement instead of finalizing it.  Each connection is used
 * by one thread at a time.
 */
err_code db_prepare(db_conn *c, const char *sql, db_stmt **out, err_info *e)
{
    db_stmt *s, **prev;
    err_code rc;

    for (prev = &c->kept; (s = *prev) != NULL; prev = &s->next)
        if (!s->is_busy && s->sql[0] == sql[0] && strcmp(s->sql, sql) == 0) {
            *prev = s->next;
            s->next = c->kept;
            c->kept = s;
            s->is_busy = true;
            *out = s;
            return ERR_OK;
        }
    if ((rc = stmt_new(c, sql, &s, e)) != ERR_OK) {
        *out = NULL;
        return rc;
    }
    s->is_kept = s->is_busy = true;
    s->next = c->kept;
    c->kept = s;
    *out = s;
    return ERR_OK;
}

err_code db_prepare_own(db_conn *c, const char *sql, db_stmt **st, err_info *e)
{
    return stmt_new(c, sql, st, e);
}

void db_finalize(db_stmt *st)
{
    if (st != NULL && !st->is_kept)
        stmt_free(st);
}

/* Finalizes every statement kept on c (closing it). */
void db_conn_forget(db_conn *c)
{
    db_stmt *s, *next;

    for (s = c->kept; s != NULL; s = next) {
        next = s->next;
        stmt_free(s);
    }
    c->kept = NULL;
}

void db_reset(db_stmt *st)
{
    if (st->lite != NULL)
        sqlite3_reset(st->lite);
    else
        pg_reset(st);
}

void db_done(db_stmt *st)
{
    if (st == NULL)
        return;
    if (st->lite != NULL) {
        sqlite3_reset(st->lite);
        sqlite3_clear_bindings(st->lite);
    } else {
        pg_reset(st);
        pg_clear(st);
    }
    st->is_busy = false;
}

int db_step(db_stmt *st)
{
    return st->lite != NULL ? sqlite3_step(st->lite) : pg_step(st);
}

int db_bind_int(db_stmt *st, int i, int v)
{
    return db_bind_int64(st, i, v);
}

int db_bind_int64(db_stmt *st, int i, long long v)
{
    char buf[24];

    if (st->lite != NULL)
        return sqlite3_bind_int64(st->lite, i, v);
    snprintf(buf, sizeof buf, "%lld", v);
    return pg_bind(st, i, buf, -1, false, true);
}

int db_bind_null(db_stmt *st, int i)
{
    if (st->lite != NULL)
        return sqlite3_bind_null(st->lite, i);
    return pg_bind(st, i, NULL, 0, false, false);
}

int db_bind_blob(db_stmt *st, int i, const void *p, size_t n)
{
    if (st->lite != NULL)
        return sqlite3_bind_blob(st->lite, i, p, (int)n, SQLITE_STATIC);
    return pg_bind(st, i, p, (int)n, true, false);
}

int db_bind_text_copy(db_stmt *st, int i, const char *s)
{
    if (st->lite != NULL)
        return sqlite3_bind_text(st->lite, i, s, -1, SQLITE_TRANSIENT);
    return pg_bind(st, i, s, -1, false, true);
}

int db_bind_text(db_stmt *st, int i, const char *s)
{
    if (st->lite != NULL)
        return sqlite3_bind_text(st->lite, i, s, -1, SQLITE_STATIC);
    return pg_bind(st, i, s, -1, false, false);
}

int db_column_int(db_stmt *st, int col)
{
    return (int)db_column_int64(st, col);
}

long long db_column_int64(db_stmt *st, int col)
{
    const char *v;

    if (st->lite != NULL)
        return sqlite3_column_int64(st->lite, col);
    if ((v = pg_value(st, col)) == NULL)
        return 0;
    if (v[0] == 't' && v[1] == '\0') /* a boolean */
        return 1;
    return strtoll(v, NULL, 10);
}

const unsigned char *db_column_text(db_stmt *st, int col)
{
    size_t n;

    if (st->lite != NULL)
        return sqlite3_column_text(st->lite, col);
    if (pg_column_type(st, col) == DB_BLOB)
        /* bytea holding text: its bytes, NUL-terminated */
        return pg_column_blob(st, col, &n);
    return (const unsigned char *)pg_value(st, col);
}

const void *db_column_blob(db_stmt *st, int col)
{
    size_t n;

    if (st->lite != NULL)
        return sqlite3_column_blob(st->lite, col);
    if (pg_column_type(st, col) == DB_BLOB)
        return pg_column_blob(st, col, &n);
    return pg_value(st, col);
}

int db_column_bytes(db_stmt *st, int col)
{
    size_t n = 0;
    const char *v;

    if (st->lite != NULL)
        return sqlite3_column_bytes(st->lite, col);
    if (pg_column_type(st, col) == DB_BLOB) {
        pg_column_blob(st, col, &n);
        return (int)n;
    }
    v = pg_value(st, col);
    return v ? (int)strlen(v) : 0;
}

int db_column_type(db_stmt *st, int col)
{
    if (st->lite != NULL)
        return sqlite3_column_type(st->lite, col);
    return pg_column_type(st, col);
}

int db_changes(db_conn *c)
{
    return c->kind == DB_KIND_PG ? c->changes : sqlite3_changes(c->lite);
}

struct writer_kept **db_conn_kept(db_conn *c)
{
    return c->kind == DB_KIND_SQLITE && c->is_writer ? &c->writer_kept : NULL;
}

long long db_last_rowid(db_conn *c)
{
    return c->kind == DB_KIND_PG ? 0 : sqlite3_last_insert_rowid(c->lite);
}

long long db_total_changes(db_conn *c)
{
    return c->kind == DB_KIND_PG ? c->total_changes
                                 : sqlite3_total_changes64(c->lite);
}

bool db_in_transaction(db_conn *c)
{
    return c->kind == DB_KIND_PG ? pg_in_transaction(c)
                                 : !sqlite3_get_autocommit(c->lite);
}

/* Steps a statement expected to finish without rows. */
err_code db_step_done(db_conn *c, db_stmt *st, err_info *e, const char *what)
{
    if (db_step(st) != DB_DONE)
        return db_fail(c, e, what);
    return ERR_OK;
}

/* Grows a malloc'd array of size elements by doubling. */
static void *grow(void *p, size_t *cap, size_t size)
{
    size_t n = *cap ? *cap * 2 : 16;
    void *q = realloc(p, n * size);

    if (q != NULL)
        *cap = n;
    return q;
}

/*
 * Steps st (prepared and bound) to the end, reading each row with read into
 * a growing array of size-byte elements: *out (new) and *n.  On failure the
 * array is released, with release (may be NULL) first, and *out is NULL.
 * st is released in any case.
 */
err_code db_read_rows(db_conn *c, db_stmt *st, size_t size, db_row_reader read,
                      void (*release)(void *, size_t), void **out, size_t *n,
                      const char *what, err_info *e)
{
    char *v = NULL;
    size_t cap = 0;
    err_code rc = ERR_OK;
    int step;

    *out = NULL;
    *n = 0;
    while ((step = db_step(st)) == DB_ROW) {
        if (*n == cap) {
            char *g = grow(v, &cap, size);
            if (g == NULL) {
                rc = err_set(e, ERR_NOMEM, NULL, "out of memory");
                break;
            }
            v = g;
        }
        memset(v + *n * size, 0, size);
        read(st, v + *n * size);
        (*n)++;
    }
    if (rc == ERR_OK && step != DB_DONE)
        rc = db_fail(c, e, what);
    db_done(st);
    if (rc != ERR_OK) {
        if (release)
            release(v, *n);
        else
            free(v);
        v = NULL;
        *n = 0;
    }
    *out = v;
    return rc;
}

void db_column_copy(db_stmt *st, int col, char *buf, size_t n)
{
    const char *t = (const char *)db_column_text(st, col);
    size_t len;

    /* As snprintf "%s" would, without its cost on every column read. */
    if (n == 0)
        return;
    len = t ? strnlen(t, n - 1) : 0;
    memcpy(buf, t ? t : "", len);
    buf[len] = '\0';
}

char *db_column_dup(db_stmt *st, int col)
{
    const unsigned char *t = db_column_text(st, col);

    return t ? strdup((const char *)t) : NULL;
}

int db_bind_text_or_null(db_stmt *st, int i, const char *s)
{
    if (s == NULL || s[0] == '\0')
        return db_bind_null(st, i);
    return db_bind_text_copy(st, i, s);
}

int db_bind_text_or_null_borrowed(db_stmt *st, int i, const char *s)
{
    if (s == NULL || s[0] == '\0')
        return db_bind_null(st, i);
    return db_bind_text(st, i, s);
}

/* ---- ids and times (db.h) ---- */

void db_new_id(const char *prefix, char out[DB_ID_MAX])
{
    struct timespec ts;
    uint64_t ms;
    uint8_t raw[6], when[6];
    char hex[13];
    size_t n = strlen(prefix), i;

    /* The time in milliseconds first: new rows append to the B-trees
     * instead of landing on random pages; 48 random bits keep ids
     * unguessable. */
    clock_gettime(CLOCK_REALTIME, &ts);
    ms = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
    randombytes_buf(raw, sizeof raw);
    for (i = 0; i < sizeof when; i++)
        when[i] = (uint8_t)(ms >> (8 * (sizeof when - 1 - i)));
    if (n > DB_ID_MAX - 26)
        n = DB_ID_MAX - 26;
    memcpy(out, prefix, n);
    out[n] = '_';
    rng_hex(when, sizeof when, out + n + 1);
    rng_hex(raw, sizeof raw, hex);
    memcpy(out + n + 13, hex, sizeof hex);
}

/* v (0..10^n - 1) in n decimal digits at p. */
static void put_digits(char *p, int v, int n)
{
    while (n-- > 0) {
        p[n] = (char)('0' + v % 10);
        v /= 10;
    }
}

void db_now(char out[DB_TIME_MAX])
{
    struct timespec ts;
    struct tm tm;
    int year, ms;

    char date[24];

    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    year = tm.tm_year + 1900;
    ms = (int)(ts.tv_nsec / 1000000L) % 1000;
    if (year < 1000 || year > 9999) {
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(out, DB_TIME_MAX, "%.19s.%03dZ", date, ms);
        return;
    }
    /* As the lines above write it, without their cost on every row
     * written: "YYYY-MM-DDTHH:MM:SS.mmmZ". */
    memcpy(out, "0000-00-00T00:00:00.000Z", 25);
    put_digits(out, year, 4);
    put_digits(out + 5, tm.tm_mon + 1, 2);
    put_digits(out + 8, tm.tm_mday, 2);
    put_digits(out + 11, tm.tm_hour, 2);
    put_digits(out + 14, tm.tm_min, 2);
    put_digits(out + 17, tm.tm_sec, 2);
    put_digits(out + 20, ms, 3);
}

void db_time_ago(long seconds, char out[DB_TIME_MAX])
{
    time_t t = time(NULL) - seconds;
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(out, DB_TIME_MAX, "%Y-%m-%dT%H:%M:%S.000Z", &tm);
}

err_code db_find_one(db_conn *c, const char *sql, const char *campaign_id,
                     const char *id_or_name, bool (*read)(db_stmt *, void *),
                     void *out, const char *noun, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;
    int step;

    if ((rc = db_prepare(c, sql, &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    db_bind_text(st, 2, id_or_name);
    step = db_step(st);
    if (step == DB_ROW && !read(st, out))
        rc = err_set(e, ERR_DB, NULL, "%s %s holds impossible values", noun,
                     (const char *)db_column_text(st, 0));
    else if (step == DB_DONE)
        rc = err_set(e, ERR_NOT_FOUND, NULL, "the campaign has no %s \"%s\"",
                     noun, id_or_name);
    else if (step != DB_ROW) {
        char what[48];
        snprintf(what, sizeof what, "find %s", noun);
        rc = db_fail(c, e, what);
    }
    db_done(st);
    return rc;
}

/* The key sql finds (?1 the row's id, ?2 its campaign) for the row id of
 * campaign_id: its rowid, after its created_at into at when is_timed. */
static err_code cursor_key(db_conn *c, const char *sql, const char *campaign_id,
                           const char *id, bool is_timed, char at[DB_TIME_MAX],
                           long long *rowid, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;
    int step;

    *rowid = 0;
    if ((rc = db_prepare(c, sql, &st, e)))
        return rc;
    db_bind_text(st, 1, id);
    db_bind_text(st, 2, campaign_id);
    step = db_step(st);
    if (step == DB_ROW) {
        if (is_timed)
            db_column_copy(st, 0, at, DB_TIME_MAX);
        *rowid = db_column_int64(st, is_timed);
    } else if (step == DB_DONE) {
        rc = err_set(e, ERR_NOT_FOUND, NULL, "no row %s for the cursor", id);
    } else {
        rc = db_fail(c, e, "read a cursor");
    }
    db_done(st);
    return rc;
}

err_code db_int64_of(db_conn *c, const char *sql, const char *key,
                     long long *out, const char *what, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;
    int step;

    *out = 0;
    if ((rc = db_prepare(c, sql, &st, e)))
        return rc;
    db_bind_text(st, 1, key);
    if ((step = db_step(st)) == DB_ROW)
        *out = db_column_int64(st, 0);
    else if (step != DB_DONE)
        rc = db_fail(c, e, what);
    db_done(st);
    return rc;
}

err_code db_cursor_rowid(db_conn *c, const char *sql, const char *campaign_id,
                         const char *id, long long *out, err_info *e)
{
    return cursor_key(c, sql, campaign_id, id, false, NULL, out, e);
}

err_code db_read_page(db_conn *c, const db_page_sql *ps,
                      const char *campaign_id, const db_page *pg, size_t size,
                      db_row_reader read, void (*release)(void *, size_t),
                      void **out, size_t *n, const char *what, err_info *e)
{
    int limit_at = ps->is_timed ? 4 : 3;
    char at[DB_TIME_MAX] = "";
    long long rowid = 0;
    db_stmt *st = NULL;
    err_code rc;

    *out = NULL;
    *n = 0;
    if (pg->after && (rc = cursor_key(c, ps->key, campaign_id, pg->after,
                                      ps->is_timed, at, &rowid, e)))
        return rc;
    if ((rc = db_prepare(c, ps->rows[pg->after != NULL][pg->is_newest_first],
                         &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    if (pg->after) {
        if (ps->is_timed)
            db_bind_text(st, 2, at);
        db_bind_int64(st, limit_at - 1, rowid);
    }
    db_bind_int(st, limit_at, pg->limit);
    /* db_read_rows releases st in every case. */
    return db_read_rows(c, st, size, read, release, out, n, what, e);
}
