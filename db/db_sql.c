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
#include "db_sql.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zstd.h>

#include <sodium.h>

#include "rng.h"

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

bool db_is_full(sqlite3 *conn)
{
    int rc = sqlite3_extended_errcode(conn);

    if ((rc & 0xff) == SQLITE_FULL)
        return true;
    if ((rc & 0xff) != SQLITE_IOERR)
        return false;
    /* SQLite records the system error of a statement's failure, not of a
     * COMMIT's (an fsync of the log): the VFS keeps it on the file. */
    return is_enospc(sqlite3_system_errno(conn)) ||
           is_enospc(file_errno(conn, true)) ||
           is_enospc(file_errno(conn, false));
}

err_code db_fail(sqlite3 *conn, err_info *e, const char *what)
{
    int rc = sqlite3_extended_errcode(conn);

    if ((rc & 0xff) == SQLITE_CONSTRAINT)
        return err_set(e, ERR_CONFLICT, NULL, "%s: %s", what,
                       sqlite3_errmsg(conn));
    if (db_is_full(conn))
        return err_set(e, ERR_FULL, NULL, "%s", DB_FULL_MESSAGE);
    return err_set(e, ERR_DB, NULL, "%s: %s", what, sqlite3_errmsg(conn));
}

/*
 * Statements are kept on their connection for reuse: db_prepare looks for
 * an idle statement of the same SQL among the connection's own statements
 * (sqlite3_next_stmt), so no cache lives outside SQLite; db_done resets a
 * statement instead of finalizing it.  Each connection is used by one
 * thread at a time and a store function finishes its statement before it
 * returns, so an idle (reset) statement is free to reuse.
 */
err_code db_prepare(sqlite3 *conn, const char *sql, sqlite3_stmt **st,
                    err_info *e)
{
    sqlite3_stmt *s = NULL;

    /* The text first: it tells most statements apart at its first bytes,
     * and only a match needs to be idle. */
    while ((s = sqlite3_next_stmt(conn, s)) != NULL) {
        const char *text = sqlite3_sql(s);
        if (text != NULL && strcmp(text, sql) == 0 && !sqlite3_stmt_busy(s)) {
            *st = s;
            return ERR_OK;
        }
    }
    if (sqlite3_prepare_v3(conn, sql, -1, SQLITE_PREPARE_PERSISTENT, st,
                           NULL) != SQLITE_OK)
        return db_fail(conn, e, "prepare");
    return ERR_OK;
}

void db_done(sqlite3_stmt *st)
{
    if (st == NULL)
        return;
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
}

/* Steps a statement expected to finish without rows. */
err_code db_step_done(sqlite3 *c, sqlite3_stmt *st, err_info *e,
                      const char *what)
{
    if (sqlite3_step(st) != SQLITE_DONE)
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
err_code db_read_rows(sqlite3 *c, sqlite3_stmt *st, size_t size,
                      db_row_reader read, void (*release)(void *, size_t),
                      void **out, size_t *n, const char *what, err_info *e)
{
    char *v = NULL;
    size_t cap = 0;
    err_code rc = ERR_OK;
    int step;

    *out = NULL;
    *n = 0;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
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
    if (rc == ERR_OK && step != SQLITE_DONE)
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

void db_column_copy(sqlite3_stmt *st, int col, char *buf, size_t n)
{
    const char *t = (const char *)sqlite3_column_text(st, col);
    size_t len;

    /* As snprintf "%s" would, without its cost on every column read. */
    if (n == 0)
        return;
    len = t ? strnlen(t, n - 1) : 0;
    memcpy(buf, t ? t : "", len);
    buf[len] = '\0';
}

char *db_column_dup(sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);

    return t ? strdup((const char *)t) : NULL;
}

int db_bind_text(sqlite3_stmt *st, int i, const char *s)
{
    return sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
}

int db_bind_text_or_null(sqlite3_stmt *st, int i, const char *s)
{
    if (s == NULL || s[0] == '\0')
        return sqlite3_bind_null(st, i);
    return sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
}

int db_bind_text_or_null_borrowed(sqlite3_stmt *st, int i, const char *s)
{
    if (s == NULL || s[0] == '\0')
        return sqlite3_bind_null(st, i);
    return sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
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

/* ---- documents stored packed ---- */

enum { DOC_MAX = 64 * 1024 * 1024 };

/* zstd at its fastest level that still packs JSON about four to one, with
 * a context kept per thread (made once: making one per document costs
 * more than the packing), freed when its thread ends. */
enum { DOC_LEVEL = 1 };
static pthread_key_t doc_key;
static pthread_once_t doc_once = PTHREAD_ONCE_INIT;

static void doc_cctx_free(void *cctx)
{
    ZSTD_freeCCtx(cctx);
}

static void doc_key_make(void)
{
    (void)pthread_key_create(&doc_key, doc_cctx_free);
}

/* This thread's context, or NULL when out of memory. */
static ZSTD_CCtx *doc_cctx(void)
{
    ZSTD_CCtx *cctx;

    pthread_once(&doc_once, doc_key_make);
    if ((cctx = pthread_getspecific(doc_key)) == NULL &&
        (cctx = ZSTD_createCCtx()) != NULL &&
        pthread_setspecific(doc_key, cctx) != 0) {
        ZSTD_freeCCtx(cctx);
        cctx = NULL;
    }
    return cctx;
}

unsigned char *db_doc_pack(const char *text, size_t *len)
{
    size_t n = strlen(text), room = ZSTD_compressBound(n), got;
    ZSTD_CCtx *cctx;
    unsigned char *z;

    if (n > DOC_MAX || (cctx = doc_cctx()) == NULL)
        return NULL;
    if ((z = malloc(room)) == NULL)
        return NULL;
    got = ZSTD_compressCCtx(cctx, z, room, text, n, DOC_LEVEL);
    if (ZSTD_isError(got)) {
        free(z);
        return NULL;
    }
    *len = got;
    return z;
}

char *db_column_doc(sqlite3_stmt *st, int col)
{
    const void *z;
    size_t zlen, got;
    unsigned long long n;
    char *text;

    if (sqlite3_column_type(st, col) != SQLITE_BLOB)
        return db_column_dup(st, col);
    z = sqlite3_column_blob(st, col);
    zlen = (size_t)sqlite3_column_bytes(st, col);
    if (z == NULL)
        return NULL;
    n = ZSTD_getFrameContentSize(z, zlen);
    if (n == ZSTD_CONTENTSIZE_UNKNOWN || n == ZSTD_CONTENTSIZE_ERROR ||
        n > DOC_MAX || (text = malloc((size_t)n + 1)) == NULL)
        return NULL;
    got = ZSTD_decompress(text, (size_t)n, z, zlen);
    if (ZSTD_isError(got) || got != n) {
        free(text);
        return NULL;
    }
    text[n] = '\0';
    return text;
}
