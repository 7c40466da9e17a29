/*
 * db.c: opening, migrations, the read pool and the group-commit writer.
 *
 * The writer thread takes every queued job at once, runs each under its own
 * SAVEPOINT inside one BEGIN IMMEDIATE ... COMMIT, then reports each job's
 * fate.  One fsync thus covers every request that arrived while the last
 * one was on disk: the durable service is no longer bound to one commit per
 * request.  A failed job is rolled back to its savepoint alone; a failed
 * COMMIT fails every job of the batch.
 *
 * Readers go back to the pool in autocommit mode: db_read_release rolls
 * back a transaction a borrower left open (or replaces the connection), so
 * no borrower reads from another's old snapshot.
 */
#include "db_sql.h"
#include "migrations.h"
#include "rng.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#define DB_BATCH_MAX 512

typedef struct db_job {
    db_job_fn run;
    db_done_fn done;
    void *arg;
    struct db_job *next;
} db_job;

struct db {
    char *path;
    sqlite3 *writer;   /* owned by the writer thread once started */
    sqlite3 **readers; /* the read pool */
    bool *is_lent;
    int n_readers;
    pthread_mutex_t pool_lock;
    pthread_cond_t pool_free;

    pthread_t thread;
    pthread_mutex_t queue_lock;
    pthread_cond_t queue_ready;
    db_job *head, *tail;
    bool is_stopping;
    bool is_running;
    atomic_ulong n_jobs;    /* jobs run */
    atomic_ulong n_commits; /* batches committed */

    /* Called after every committed batch (db_set_commit_listener);
     * listen_lock is held while it runs, so that it can be replaced. */
    pthread_mutex_t listen_lock;
    void (*on_commit)(void *arg);
    void *on_commit_arg;
};

err_code db_fail(sqlite3 *conn, err_info *e, const char *what)
{
    int rc = sqlite3_extended_errcode(conn);

    if ((rc & 0xff) == SQLITE_CONSTRAINT)
        return err_set(e, ERR_CONFLICT, NULL, "%s: %s", what,
                       sqlite3_errmsg(conn));
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

    while ((s = sqlite3_next_stmt(conn, s)) != NULL)
        if (!sqlite3_stmt_busy(s) && sqlite3_sql(s) != NULL &&
            strcmp(sqlite3_sql(s), sql) == 0) {
            *st = s;
            return ERR_OK;
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

/* Finalizes the statements kept on conn, then closes it. */
static void close_conn(sqlite3 *conn)
{
    sqlite3_stmt *st;

    if (conn == NULL)
        return;
    while ((st = sqlite3_next_stmt(conn, NULL)) != NULL)
        sqlite3_finalize(st);
    sqlite3_close(conn);
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
    const unsigned char *t = sqlite3_column_text(st, col);

    snprintf(buf, n, "%s", t ? (const char *)t : "");
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

void db_now(char out[DB_TIME_MAX])
{
    struct timespec ts;
    struct tm tm;

    char date[24];

    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out, DB_TIME_MAX, "%.19s.%03dZ", date,
             (int)(ts.tv_nsec / 1000000L) % 1000);
}

void db_time_ago(long seconds, char out[DB_TIME_MAX])
{
    time_t t = time(NULL) - seconds;
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(out, DB_TIME_MAX, "%Y-%m-%dT%H:%M:%S.000Z", &tm);
}

static err_code exec(sqlite3 *conn, const char *sql, err_info *e)
{
    char *msg = NULL;

    if (sqlite3_exec(conn, sql, NULL, NULL, &msg) != SQLITE_OK) {
        err_set(e, ERR_DB, NULL, "%s", msg ? msg : sqlite3_errmsg(conn));
        sqlite3_free(msg);
        return ERR_DB;
    }
    return ERR_OK;
}

static int user_version(sqlite3 *conn)
{
    sqlite3_stmt *st = NULL;
    int v = -1;

    if (sqlite3_prepare_v2(conn, "PRAGMA user_version", -1, &st, NULL) ==
            SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

static err_code migrate(sqlite3 *conn, err_info *e)
{
    int v = user_version(conn);
    char sql[64];

    if (v < 0)
        return err_set(e, ERR_DB, NULL, "cannot read the schema version");
    if (v > migrations_count)
        return err_set(e, ERR_DB, NULL,
                       "the database has schema version %d, newer than this "
                       "build's %d",
                       v, migrations_count);
    for (; v < migrations_count; v++) {
        if (exec(conn, "BEGIN IMMEDIATE", e) != ERR_OK)
            return ERR_DB;
        snprintf(sql, sizeof sql, "PRAGMA user_version = %d", v + 1);
        if (exec(conn, migrations_sql[v], e) != ERR_OK ||
            (migrations_after[v] && migrations_after[v](conn, e) != ERR_OK) ||
            exec(conn, sql, e) != ERR_OK) {
            exec(conn, "ROLLBACK", NULL);
            return ERR_DB;
        }
        if (exec(conn, "COMMIT", e) != ERR_OK)
            return ERR_DB;
    }
    return ERR_OK;
}

/* Switches conn to WAL and says whether SQLite really did. */
static bool is_wal(sqlite3 *conn)
{
    sqlite3_stmt *st = NULL;
    bool ok = false;

    if (sqlite3_prepare_v2(conn, "PRAGMA journal_mode = WAL", -1, &st, NULL) ==
            SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        ok = sqlite3_stricmp((const char *)sqlite3_column_text(st, 0), "wal") ==
             0;
    sqlite3_finalize(st);
    return ok;
}

static err_code open_conn(const char *path, bool is_writer, sqlite3 **out,
                          err_info *e)
{
    int flags = is_writer ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
                          : SQLITE_OPEN_READONLY;
    sqlite3 *conn = NULL;

    flags |= SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(path, &conn, flags, NULL) != SQLITE_OK) {
        err_set(e, ERR_DB, "db", "cannot open the database %s: %s", path,
                conn ? sqlite3_errmsg(conn) : "out of memory");
        sqlite3_close(conn);
        return ERR_DB;
    }
    sqlite3_busy_timeout(conn, 5000);
    sqlite3_extended_result_codes(conn, 1);
    /* Refuse a newer schema before changing anything in the file. */
    if (is_writer && user_version(conn) > migrations_count) {
        err_set(e, ERR_DB, "db",
                "the database has schema version %d, newer than this "
                "build's %d",
                user_version(conn), migrations_count);
        sqlite3_close(conn);
        return ERR_DB;
    }
    if (is_writer && !is_wal(conn)) {
        err_set(e, ERR_DB, "db",
                "the database %s cannot run in WAL mode, which durability "
                "needs",
                path);
        sqlite3_close(conn);
        return ERR_DB;
    }
    if (is_writer &&
        (exec(conn, "PRAGMA synchronous = FULL", e) != ERR_OK ||
         exec(conn, "PRAGMA cache_size = -65536", e) != ERR_OK ||
         exec(conn, "PRAGMA wal_autocheckpoint = 4000", e) != ERR_OK ||
         exec(conn, "PRAGMA foreign_keys = ON", e) != ERR_OK)) {
        sqlite3_close(conn);
        return ERR_DB;
    }
    *out = conn;
    return ERR_OK;
}

/* Runs one transaction-control statement through the statement cache. */
static err_code control(sqlite3 *conn, const char *sql, err_info *e)
{
    sqlite3_stmt *st;
    err_code rc;

    if ((rc = db_prepare(conn, sql, &st, e)) != ERR_OK)
        return rc;
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = db_fail(conn, e, sql);
    db_done(st);
    return rc;
}

/* Runs one batch: every job under a savepoint, one commit. */
static void run_batch(db *d, db_job *jobs)
{
    err_code rcs[DB_BATCH_MAX];
    err_info errs[DB_BATCH_MAX];
    db_job *j;
    err_info e;
    int i, n;
    err_code batch_rc;

    err_clear(&e);
    batch_rc = control(d->writer, "BEGIN IMMEDIATE", &e);
    for (j = jobs, n = 0; j != NULL; j = j->next, n++) {
        err_clear(&errs[n]);
        if (batch_rc != ERR_OK) {
            rcs[n] = batch_rc;
            errs[n] = e;
            continue;
        }
        if (control(d->writer, "SAVEPOINT job", &errs[n]) != ERR_OK) {
            rcs[n] = ERR_DB;
            continue;
        }
        rcs[n] = j->run(d->writer, j->arg, &errs[n]);
        if (rcs[n] != ERR_OK && errs[n].code == ERR_OK)
            err_set(&errs[n], rcs[n], NULL, "the write failed");
        /* Some failures (disk full, I/O, out of memory) make SQLite roll
         * back the whole transaction.  Then every job of the batch, done
         * or not, has failed; the next SAVEPOINT would otherwise start a
         * transaction of its own and commit it behind the batch's back. */
        if (rcs[n] != ERR_OK && sqlite3_get_autocommit(d->writer)) {
            batch_rc = ERR_DB;
            err_set(&e, ERR_DB, NULL,
                    "the batch's transaction was rolled back: %s",
                    errs[n].message);
            continue;
        }
        if (rcs[n] != ERR_OK)
            control(d->writer, "ROLLBACK TO job", NULL);
        control(d->writer, "RELEASE job", NULL);
    }
    if (batch_rc == ERR_OK && control(d->writer, "COMMIT", &e) != ERR_OK) {
        control(d->writer, "ROLLBACK", NULL);
        batch_rc = ERR_DB;
    }
    if (batch_rc != ERR_OK)
        for (i = 0; i < n; i++)
            if (rcs[i] == ERR_OK) {
                rcs[i] = e.code != ERR_OK ? e.code : ERR_DB;
                errs[i] = e;
            }
    if (batch_rc == ERR_OK)
        atomic_fetch_add(&d->n_commits, 1);
    for (j = jobs, i = 0; j != NULL; i++) {
        db_job *next = j->next;
        atomic_fetch_add(&d->n_jobs, 1);
        j->done(j->arg, rcs[i], &errs[i]);
        free(j);
        j = next;
    }
    if (batch_rc == ERR_OK) {
        pthread_mutex_lock(&d->listen_lock);
        if (d->on_commit)
            d->on_commit(d->on_commit_arg);
        pthread_mutex_unlock(&d->listen_lock);
    }
}

static void *writer_main(void *arg)
{
    db *d = arg;

    for (;;) {
        db_job *batch, *last;
        int n;

        pthread_mutex_lock(&d->queue_lock);
        while (d->head == NULL && !d->is_stopping)
            pthread_cond_wait(&d->queue_ready, &d->queue_lock);
        if (d->head == NULL && d->is_stopping) {
            pthread_mutex_unlock(&d->queue_lock);
            break;
        }
        batch = last = d->head;
        for (n = 1; n < DB_BATCH_MAX && last->next != NULL; n++)
            last = last->next;
        d->head = last->next;
        if (d->head == NULL)
            d->tail = NULL;
        last->next = NULL;
        pthread_mutex_unlock(&d->queue_lock);
        run_batch(d, batch);
    }
    return NULL;
}

/* Process-wide SQLite settings, once, before any connection opens: no
 * memory statistics (they take a global mutex on every allocation). */
static void configure_sqlite(void)
{
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

err_code db_open(const char *path, int n_readers, db **out, err_info *e)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    db *d;
    int i;

    pthread_once(&once, configure_sqlite);
    *out = NULL;
    if (strcmp(path, ":memory:") == 0 || path[0] == '\0')
        return err_set(e, ERR_INVALID, "db",
                       "the database must be a file, not \"%s\"", path);
    d = calloc(1, sizeof *d);
    if (d == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    d->path = strdup(path);
    d->n_readers = n_readers < 1 ? 1 : n_readers;
    d->readers = calloc((size_t)d->n_readers, sizeof *d->readers);
    d->is_lent = calloc((size_t)d->n_readers, sizeof *d->is_lent);
    pthread_mutex_init(&d->pool_lock, NULL);
    pthread_cond_init(&d->pool_free, NULL);
    pthread_mutex_init(&d->queue_lock, NULL);
    pthread_cond_init(&d->queue_ready, NULL);
    pthread_mutex_init(&d->listen_lock, NULL);
    if (!d->path || !d->readers || !d->is_lent) {
        db_close(d);
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    }
    if (open_conn(path, true, &d->writer, e) != ERR_OK ||
        migrate(d->writer, e) != ERR_OK) {
        db_close(d);
        return ERR_DB;
    }
    for (i = 0; i < d->n_readers; i++)
        if (open_conn(path, false, &d->readers[i], e) != ERR_OK) {
            db_close(d);
            return ERR_DB;
        }
    if (pthread_create(&d->thread, NULL, writer_main, d) != 0) {
        db_close(d);
        return err_set(e, ERR_INTERNAL, NULL, "cannot start the writer");
    }
    d->is_running = true;
    *out = d;
    return ERR_OK;
}

void db_close(db *d)
{
    int i;

    if (d == NULL)
        return;
    if (d->is_running) {
        pthread_mutex_lock(&d->queue_lock);
        d->is_stopping = true;
        pthread_cond_signal(&d->queue_ready);
        pthread_mutex_unlock(&d->queue_lock);
        pthread_join(d->thread, NULL);
    }
    for (i = 0; d->readers && i < d->n_readers; i++)
        close_conn(d->readers[i]);
    if (d->writer) {
        sqlite3_exec(d->writer, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL,
                     NULL);
        close_conn(d->writer);
    }
    pthread_mutex_destroy(&d->pool_lock);
    pthread_cond_destroy(&d->pool_free);
    pthread_mutex_destroy(&d->queue_lock);
    pthread_cond_destroy(&d->queue_ready);
    pthread_mutex_destroy(&d->listen_lock);
    free(d->readers);
    free(d->is_lent);
    free(d->path);
    free(d);
}

int db_schema_version(db *d)
{
    sqlite3 *c = db_read_acquire(d);
    int v = user_version(c);

    db_read_release(d, c);
    return v;
}

int db_ping(db *d)
{
    sqlite3 *c = db_read_acquire(d);
    int ok = sqlite3_exec(c, "SELECT count(*) FROM sqlite_schema", NULL, NULL,
                          NULL) == SQLITE_OK;
    int v = ok ? user_version(c) : -1;

    db_read_release(d, c);
    return v;
}

int db_n_migrations(void)
{
    return migrations_count;
}

sqlite3 *db_read_acquire(db *d)
{
    sqlite3 *c = NULL;
    int i;

    pthread_mutex_lock(&d->pool_lock);
    for (;;) {
        for (i = 0; i < d->n_readers; i++)
            if (!d->is_lent[i]) {
                d->is_lent[i] = true;
                c = d->readers[i];
                break;
            }
        if (c != NULL)
            break;
        pthread_cond_wait(&d->pool_free, &d->pool_lock);
    }
    pthread_mutex_unlock(&d->pool_lock);
    return c;
}

/* The pool slot of conn, or -1; the caller holds pool_lock.  A lent
 * connection keeps its slot until its borrower returns it. */
static int reader_slot(db *d, sqlite3 *conn)
{
    int i;

    for (i = 0; i < d->n_readers; i++)
        if (d->readers[i] == conn)
            return i;
    return -1;
}

/* Rolls back a transaction left open on conn; whether conn is now in
 * autocommit mode, as a pooled reader must be. */
static bool reader_is_clean(sqlite3 *conn)
{
    if (sqlite3_get_autocommit(conn))
        return true;
    exec(conn, "ROLLBACK", NULL);
    return sqlite3_get_autocommit(conn) != 0;
}

void db_read_release(db *d, sqlite3 *conn)
{
    sqlite3 *fresh = NULL;
    bool is_clean;
    int slot;

    if (conn == NULL)
        return;
    pthread_mutex_lock(&d->pool_lock);
    slot = reader_slot(d, conn);
    pthread_mutex_unlock(&d->pool_lock);
    if (slot < 0)
        return;
    /* Kept with a transaction open, conn would lend its old snapshot to
     * every later borrower: roll it back, or replace conn. */
    is_clean = reader_is_clean(conn);
    if (!is_clean) {
        close_conn(conn);
        if (open_conn(d->path, false, &fresh, NULL) != ERR_OK)
            fresh = NULL;
    }
    pthread_mutex_lock(&d->pool_lock);
    if (!is_clean)
        d->readers[slot] = fresh;
    /* A slot whose replacement failed stays lent, and empty: the pool is
     * one smaller, which is better than a reader stuck in the past. */
    if (is_clean || fresh != NULL) {
        d->is_lent[slot] = false;
        pthread_cond_signal(&d->pool_free);
    }
    pthread_mutex_unlock(&d->pool_lock);
}

err_code db_read_begin(db *d, db_conn **out, err_info *e)
{
    sqlite3 *c = db_read_acquire(d);
    err_code rc;

    *out = NULL;
    if ((rc = control(c, "BEGIN", e)) != ERR_OK) {
        db_read_release(d, c);
        return rc;
    }
    *out = c;
    return ERR_OK;
}

err_code db_read_end(db *d, db_conn *c, err_info *e)
{
    err_code rc;

    if (c == NULL)
        return ERR_OK;
    if ((rc = control(c, "COMMIT", e)) != ERR_OK)
        control(c, "ROLLBACK", NULL);
    db_read_release(d, c);
    return rc;
}

err_code db_submit(db *d, db_job_fn run, db_done_fn done, void *arg)
{
    db_job *j = calloc(1, sizeof *j);

    if (j == NULL)
        return ERR_NOMEM;
    j->run = run;
    j->done = done;
    j->arg = arg;
    pthread_mutex_lock(&d->queue_lock);
    if (d->is_stopping) {
        pthread_mutex_unlock(&d->queue_lock);
        free(j);
        return ERR_INTERNAL;
    }
    if (d->tail)
        d->tail->next = j;
    else
        d->head = j;
    d->tail = j;
    pthread_cond_signal(&d->queue_ready);
    pthread_mutex_unlock(&d->queue_lock);
    return ERR_OK;
}

typedef struct sync_wait {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool is_done;
    err_code rc;
    err_info *e;
    db_job_fn run;
    void *arg;
} sync_wait;

static err_code sync_run(sqlite3 *conn, void *arg, err_info *e)
{
    sync_wait *w = arg;

    return w->run(conn, w->arg, e);
}

static void sync_done(void *arg, err_code rc, const err_info *e)
{
    sync_wait *w = arg;

    pthread_mutex_lock(&w->lock);
    w->rc = rc;
    /* The first error wins: keep one the caller already holds. */
    if (rc != ERR_OK && w->e != NULL && e != NULL && w->e->code == ERR_OK)
        *w->e = *e;
    w->is_done = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

err_code db_write(db *d, db_job_fn run, void *arg, err_info *e)
{
    sync_wait w;
    err_code rc;

    memset(&w, 0, sizeof w);
    pthread_mutex_init(&w.lock, NULL);
    pthread_cond_init(&w.cond, NULL);
    w.e = e;
    w.run = run;
    w.arg = arg;
    rc = db_submit(d, sync_run, sync_done, &w);
    if (rc == ERR_OK) {
        pthread_mutex_lock(&w.lock);
        while (!w.is_done)
            pthread_cond_wait(&w.cond, &w.lock);
        pthread_mutex_unlock(&w.lock);
        rc = w.rc;
    } else {
        err_set(e, rc, NULL, "the database writer has stopped");
    }
    pthread_mutex_destroy(&w.lock);
    pthread_cond_destroy(&w.cond);
    return rc;
}

void db_writer_stats(db *d, unsigned long *n_jobs, unsigned long *n_commits)
{
    *n_jobs = atomic_load(&d->n_jobs);
    *n_commits = atomic_load(&d->n_commits);
}

void db_set_commit_listener(db *d, void (*fn)(void *arg), void *arg)
{
    pthread_mutex_lock(&d->listen_lock);
    d->on_commit = fn;
    d->on_commit_arg = arg;
    pthread_mutex_unlock(&d->listen_lock);
}
