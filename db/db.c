/*
 * db.c: opening, migrations and the group-commit writer.
 *
 * The writer thread takes every queued job at once, runs each under its own
 * SAVEPOINT inside one BEGIN IMMEDIATE ... COMMIT (a job alone, under the
 * transaction itself), then reports each job's fate.  One fsync thus covers
 * every request that arrived while the last one was on disk: the durable
 * service is no longer bound to one commit per request.  A failed job is rolled
 * back to its savepoint alone; a failed COMMIT fails every job of the batch; a
 * batch whose jobs all failed is rolled back, not committed, so a refused
 * request writes nothing (no log frame, no fsync).
 *
 * The write-ahead log is kept bounded: under load, checkpoints on a thread
 * of their own (checkpointer.c; SQLite's wal_autocheckpoint on the writer
 * where that thread cannot start) and journal_size_limit, and a checkpoint
 * that truncates it whenever the writer has been idle for DB_UPKEEP_MS.  A
 * disk that fills up is the one failure the writer tracks (db_health):
 * writes answer ERR_FULL; the writer at once tries a checkpoint to get the
 * log's space back, then while idle retries it with a one-page write every
 * DB_UPKEEP_MS, so it is healthy again by itself once space is freed; for
 * DB_LOW_SPACE_SECONDS after the disk was last full it checkpoints every
 * DB_LOW_SPACE_BYTES of pages itself (SQLite's own, in place of the
 * checkpointer's), so that the log reuses its own space instead of refilling
 * what was freed.
 *
 * The read pool is db_read.c's; the jobs handed to the writer, and the
 * listeners of its commits, db_jobs.c's; struct db is in db_int.h.
 */
#include "db_int.h"
#include "db_sql.h"
#include "deadline.h"
#include "migrations.h"
#include "token_cache.h"
#include "unit_cache.h"
#include "writer_kept.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#define DB_BATCH_MAX 512
/* After the disk was full: a checkpoint every so many bytes of pages of
 * log, for so many seconds after the last time it was. */
#define DB_LOW_SPACE_BYTES   (64 * 1024)
#define DB_LOW_SPACE_SECONDS 600

/* Finalizes the statements kept on conn, then closes it. */
void db_conn_close(db_conn *conn)
{
    if (conn == NULL)
        return;
    if (conn->kind == DB_KIND_PG) {
        pg_conn_close(conn);
        return;
    }
    db_conn_forget(conn);
    sqlite3_close(conn->lite);
    db_landings_drop(conn, 0);
    free(conn->landings);
    db_kept_forget(conn);
    free(conn);
}

err_code db_exec(db_conn *c, const char *sql, err_info *e)
{
    char *msg = NULL;

    if (c->kind == DB_KIND_PG)
        return pg_exec(c, sql, e);
    if (sqlite3_exec(c->lite, sql, NULL, NULL, &msg) != SQLITE_OK) {
        err_set(e, ERR_DB, NULL, "%s", msg ? msg : sqlite3_errmsg(c->lite));
        sqlite3_free(msg);
        return ERR_DB;
    }
    return ERR_OK;
}

int db_user_version(db_conn *c)
{
    return c->kind == DB_KIND_PG ? pg_schema_version(c)
                                 : lite_user_version(c->lite);
}

static err_code migrate(db_conn *conn, err_info *e)
{
    int v = db_user_version(conn);
    char sql[64];

    if (conn->kind == DB_KIND_PG)
        return pg_migrate(conn, &v, e);
    if (v < 0)
        return err_set(e, ERR_DB, NULL, "cannot read the schema version");
    if (v > migrations_count)
        return err_set(e, ERR_DB, NULL,
                       "the database has schema version %d, newer than this "
                       "build's %d",
                       v, migrations_count);
    for (; v < migrations_count; v++) {
        if (db_exec(conn, "BEGIN IMMEDIATE", e) != ERR_OK)
            return ERR_DB;
        snprintf(sql, sizeof sql, "PRAGMA user_version = %d", v + 1);
        if (db_exec(conn, migrations_sql[v], e) != ERR_OK ||
            (migrations_after[v] && migrations_after[v](conn, e) != ERR_OK) ||
            db_exec(conn, sql, e) != ERR_OK) {
            db_exec(conn, "ROLLBACK", NULL);
            return ERR_DB;
        }
        if (db_exec(conn, "COMMIT", e) != ERR_OK)
            return ERR_DB;
    }
    return ERR_OK;
}

err_code db_conn_open(const char *path, bool is_writer, db_conn **out,
                      err_info *e)
{
    db_conn *c;
    sqlite3 *lite = NULL;

    *out = NULL;
    if (db_path_is_pg(path))
        return pg_conn_open(path, is_writer, out, e);
    if ((c = calloc(1, sizeof *c)) == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    if (lite_open(path, is_writer, &lite, e) != ERR_OK) {
        free(c);
        return ERR_DB;
    }
    c->kind = DB_KIND_SQLITE;
    c->is_writer = is_writer;
    c->lite = lite;
    *out = c;
    return ERR_OK;
}

/* Runs one transaction-control statement through the statement cache. */
err_code db_control(db_conn *conn, const char *sql, err_info *e)
{
    db_stmt *st;
    err_code rc;

    if (conn->kind == DB_KIND_PG)
        return pg_exec(conn, sql, e);
    if ((rc = db_prepare(conn, sql, &st, e)) != ERR_OK)
        return rc;
    if (db_step(st) != DB_DONE)
        rc = db_fail(conn, e, sql);
    db_done(st);
    return rc;
}

/* ---- the disk being full, and the log's upkeep ---- */

/* Space is short: checkpoint often for a while, so the log starts over
 * in its own space instead of growing into what is left. */
static void note_low_space(db *d)
{
    d->low_space_until = monotonic_s() + d->low_space_seconds;
    if (!d->is_low_space) {
        if (!d->is_pg) {
            if (d->ckpt)
                db_ckpt_detach(d->ckpt, d->writer);
            sqlite3_wal_autocheckpoint(
                d->writer->lite,
                lite_pages_of(d->writer->lite, DB_LOW_SPACE_BYTES));
        }
        d->is_low_space = true;
    }
}

/* Writes fail because the disk is full. */
static void note_full(db *d)
{
    atomic_store(&d->health, DB_HEALTH_FULL);
    note_low_space(d);
}

/* A write landed: healthy, and back to normal checkpoints in time. */
static void note_written(db *d)
{
    atomic_store(&d->health, DB_HEALTH_OK);
    if (d->is_pg) /* several writers; no log of its own to keep */
        return;
    d->is_wal_dirty = true;
    if (d->is_low_space && monotonic_s() > d->low_space_until) {
        if (d->ckpt)
            db_ckpt_attach(d->ckpt, d->writer);
        else
            sqlite3_wal_autocheckpoint(
                d->writer->lite,
                lite_pages_of(d->writer->lite, DB_AUTOCHECKPOINT_BYTES));
        d->is_low_space = false;
    }
}

/* What an idle writer does every DB_UPKEEP_MS while it has some to do. */
static bool needs_upkeep(const db *d)
{
    if (d->is_pg) /* PostgreSQL keeps its own log */
        return false;
    return d->is_wal_dirty || atomic_load(&d->health) == DB_HEALTH_FULL;
}

/* A checkpoint that truncates the log; while writes fail for a full disk,
 * a one-page write to see whether they work again.  A checkpoint that
 * fails for want of space only makes checkpoints more frequent: the
 * health says whether writes fail. */
static void upkeep(db *d)
{
    err_code rc = db_wal_checkpoint(d->writer, 0, NULL);

    if (rc == ERR_OK)
        d->is_wal_dirty = false;
    else if (rc == ERR_FULL)
        note_low_space(d);
    if (atomic_load(&d->health) == DB_HEALTH_FULL) {
        rc = db_wal_probe(d->writer, NULL);
        if (rc == ERR_OK)
            note_written(d);
        else if (rc == ERR_FULL)
            note_full(d);
    }
}

/* ---- the writer ---- */

/* Runs job j of a batch into *rc and *ej: under its own savepoint where
 * the batch has others (SQLite's), so that its failure is rolled back
 * alone; a batch's only job (is_alone) under the transaction itself,
 * which end_batch rolls back where the job failed (sparing SQLite's
 * writer a SAVEPOINT and a RELEASE a combat that arrives alone).  When a
 * failure rolled back the whole transaction under it, the batch has
 * failed: *batch_rc and *be say why. */
static void run_job(db *d, db_conn *w, db_job *j, bool is_alone, err_code *rc,
                    err_info *ej, err_code *batch_rc, err_info *be)
{
    bool has_savepoint = !d->is_pg && !is_alone;
    long long before;
    size_t n_landings;

    if (*batch_rc != ERR_OK) {
        *rc = *batch_rc;
        *ej = *be;
        return;
    }

    /* PostgreSQL runs a job per transaction: the transaction is its
     * savepoint. */
    if (has_savepoint && (*rc = db_control(w, "SAVEPOINT job", ej)) != ERR_OK) {
        /* the transaction is gone (a PostgreSQL store's connection
         * broke): the whole batch with it */
        *batch_rc = *rc;
        *be = *ej;
        return;
    }
    before = db_total_changes(w);
    n_landings = w->n_landings;
    if (j->campaign[0] != '\0' &&
        (*rc = db_lock_campaign(w, j->campaign, ej)) != ERR_OK) {
        if (!db_in_transaction(w) && !w->is_txn) {
            *batch_rc = *rc;
            *be = *ej;
        }
        return;
    }
    db_keys_job_start(w);
    *rc = j->run(w, j->arg, ej);
    if (*rc != ERR_OK) {
        atomic_fetch_add(&d->n_refused_changes,
                         (unsigned long)(db_total_changes(w) - before));
        db_landings_drop(w, n_landings); /* its writes are rolled back */
        db_kept_forget(w);
    }
    if (*rc != ERR_OK && ej->code == ERR_OK)
        err_set(ej, *rc, NULL, "the write failed");
    /* Some failures (disk full, I/O, out of memory) make SQLite roll back
     * the whole transaction.  Then every job of the batch, done or not,
     * has failed; the next SAVEPOINT would otherwise start a transaction
     * of its own and commit it behind the batch's back. */
    if (*rc != ERR_OK && !db_in_transaction(w)) {
        if (*rc == ERR_FULL || db_is_full(w)) {
            *batch_rc = ERR_FULL;
            err_set(be, ERR_FULL, NULL, "%s", DB_FULL_MESSAGE);
        } else if (*rc == ERR_UNAVAILABLE) {
            *batch_rc = ERR_UNAVAILABLE;
            err_set(be, ERR_UNAVAILABLE, NULL, "%s", DB_DOWN_MESSAGE);
        } else {
            *batch_rc = ERR_DB;
            err_set(be, ERR_DB, NULL,
                    "the batch's transaction was rolled back: %s", ej->message);
        }
        return;
    }
    if (!has_savepoint)
        return; /* end_batch commits or rolls back the job's transaction */
    if (*rc != ERR_OK)
        db_control(w, "ROLLBACK TO job", NULL);
    db_control(w, "RELEASE job", NULL);
}

/* Ends the batch's transaction: COMMIT when a job succeeded, else ROLLBACK
 * (nothing to keep: no log frame, no fsync).  Whether it committed. */
static bool end_batch(db *d, db_conn *w, int n_ok, err_code *batch_rc,
                      err_info *e)
{
    if (*batch_rc != ERR_OK || n_ok == 0) {
        if (db_in_transaction(w) || w->is_txn)
            db_control(w, "ROLLBACK", NULL);
        return false;
    }
    if (db_control(w, "COMMIT", e) != ERR_OK) {
        db_control(w, "ROLLBACK", NULL);
        *batch_rc = e->code != ERR_OK ? e->code : ERR_DB;
        return false;
    }
    atomic_fetch_add(&d->n_commits, 1);
    return true;
}

/* Runs one batch: every job under a savepoint (but a job alone), one
 * commit. */
void db_run_batch(db *d, db_conn *w, db_job *jobs)
{
    err_code rcs[DB_BATCH_MAX];
    err_info errs[DB_BATCH_MAX];
    long long changes = db_total_changes(w);
    bool is_full = false, is_committed;
    db_job *j;
    err_info e;
    int i, n, n_ok = 0;
    err_code batch_rc;

    err_clear(&e);
    batch_rc = db_control(w, "BEGIN IMMEDIATE", &e);
    for (j = jobs, n = 0; j != NULL; j = j->next, n++) {
        err_clear(&errs[n]);
        run_job(d, w, j, jobs->next == NULL, &rcs[n], &errs[n], &batch_rc, &e);
    }
    for (i = 0; i < n; i++)
        n_ok += rcs[i] == ERR_OK;
    if (batch_rc == ERR_OK && n_ok > 0 && d->is_pg &&
        db_total_changes(w) != changes && db_news_send(w, &e) != ERR_OK)
        batch_rc = e.code;
    is_committed = end_batch(d, w, n_ok, &batch_rc, &e);
    /* What the combats landed, to the cache once it is committed. */
    if (is_committed)
        db_landings_publish(d, w);
    else
        db_kept_forget(w); /* the batch's writes are rolled back */
    /* The tokens kept forgotten once a reissue has ended, before any
     * answer: committed or not (the log may hold a commit that failed
     * to sync), a token read again is read as it now stands. */
    if (w->is_token_reissued)
        token_cache_reissued(w->tokens);
    w->is_token_reissued = false;
    db_landings_drop(w, 0);
    for (i = 0; i < n; i++) {
        if (batch_rc != ERR_OK && rcs[i] == ERR_OK) {
            rcs[i] = batch_rc;
            errs[i] = e;
        }
        is_full |= rcs[i] == ERR_FULL;
    }
    if (is_full) {
        /* Get the log's space back at once, if the disk lets us. */
        note_full(d);
        if (!d->is_pg && db_wal_checkpoint(w, 0, NULL) == ERR_OK)
            d->is_wal_dirty = false;
    } else if (is_committed && db_total_changes(w) != changes) {
        note_written(d);
    }
    for (j = jobs, i = 0; j != NULL; i++) {
        db_job *next = j->next;
        atomic_fetch_add(&d->n_jobs, 1);
        j->done(j->arg, rcs[i], &errs[i]);
        free(j);
        j = next;
    }
    if (batch_rc == ERR_OK)
        db_fire_listeners(d);
}

/* The next batch of queued jobs (NULL: stopping, the queue drained).  An
 * idle writer does its upkeep every DB_UPKEEP_MS while it has some. */
static db_job *next_batch(db *d)
{
    struct timespec until;
    bool has_deadline = false;
    db_job *batch, *last;
    int n;

    pthread_mutex_lock(&d->queue_lock);
    while (d->head == NULL && !d->is_stopping) {
        if (!needs_upkeep(d)) {
            pthread_cond_wait(&d->queue_ready, &d->queue_lock);
            continue;
        }
        if (!has_deadline) {
            until = deadline_in_ms(DB_UPKEEP_MS);
            has_deadline = true;
        }
        if (pthread_cond_timedwait(&d->queue_ready, &d->queue_lock, &until) ==
                ETIMEDOUT &&
            d->head == NULL && !d->is_stopping) {
            pthread_mutex_unlock(&d->queue_lock);
            upkeep(d);
            pthread_mutex_lock(&d->queue_lock);
            has_deadline = false;
        }
    }
    batch = last = d->head;
    for (n = 1; last != NULL && n < DB_BATCH_MAX && last->next != NULL; n++)
        last = last->next;
    if (last != NULL) {
        d->head = last->next;
        if (d->head == NULL)
            d->tail = NULL;
        last->next = NULL;
    }
    pthread_mutex_unlock(&d->queue_lock);
    return batch;
}

static void *writer_main(void *arg)
{
    db *d = arg;
    db_job *batch;

    /* The name ps, top -H and perf show. */
    (void)prctl(PR_SET_NAME, "umpire-writer");
    if (d->is_pg) {
        db_pg_run_jobs(d, d->writer, 0);
        return NULL;
    }
    while ((batch = next_batch(d)) != NULL)
        db_run_batch(d, d->writer, batch);
    return NULL;
}

/* Process-wide SQLite settings, once, before any connection opens: no
 * memory statistics (they take a global mutex on every allocation). */
static void configure_sqlite(void)
{
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/* The writer's wake-up: on the monotonic clock, which its idle timeout
 * (DB_UPKEEP_MS) is measured on. */
static void init_queue_cond(pthread_cond_t *c)
{
    pthread_condattr_t attr;

    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(c, &attr);
    pthread_condattr_destroy(&attr);
}

/* What a failed open answers: ERR_DB, or for a PostgreSQL store that
 * cannot be reached, ERR_UNAVAILABLE. */
static err_code open_code(const db *d, const err_info *e)
{
    return d->is_pg && e != NULL && e->code == ERR_UNAVAILABLE ? ERR_UNAVAILABLE
                                                               : ERR_DB;
}

err_code db_open(const char *path, int n_readers, db **out, err_info *e)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    db *d;
    int i;

    pthread_once(&once, configure_sqlite);
    *out = NULL;
    if (!db_path_is_pg(path) &&
        (strcmp(path, ":memory:") == 0 || path[0] == '\0'))
        return err_set(e, ERR_INVALID, "db",
                       "the database must be a file, not \"%s\"", path);
    d = calloc(1, sizeof *d);
    if (d == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    d->path = strdup(path);
    d->is_pg = db_path_is_pg(path);
    d->n_readers = n_readers < 1 ? 1 : n_readers;
    d->readers = calloc((size_t)d->n_readers, sizeof *d->readers);
    d->is_lent = calloc((size_t)d->n_readers, sizeof *d->is_lent);
    pthread_mutex_init(&d->pool_lock, NULL);
    pthread_cond_init(&d->pool_free, NULL);
    pthread_mutex_init(&d->queue_lock, NULL);
    init_queue_cond(&d->queue_ready);
    pthread_mutex_init(&d->listen_lock, NULL);
    pthread_mutex_init(&d->poster_lock, NULL);
    atomic_init(&d->health, DB_HEALTH_OK);
    d->low_space_seconds = DB_LOW_SPACE_SECONDS;
    if (!d->path || !d->readers || !d->is_lent) {
        db_close(d);
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    }
    if (db_conn_open(path, true, &d->writer, e) != ERR_OK ||
        migrate(d->writer, e) != ERR_OK) {
        err_code rc = open_code(d, e);
        db_close(d);
        return rc;
    }
    /* Without memory for it, nothing is kept: every unit is read. */
    if (!d->is_pg && (d->units = unit_cache_new()) != NULL)
        d->writer->units = d->units;
    /* The same: without it, every token shown is read. */
    if (!d->is_pg)
        d->writer->tokens = d->tokens = token_cache_new();
    for (i = 0; i < d->n_readers; i++) {
        if (db_conn_open(path, false, &d->readers[i], e) != ERR_OK) {
            err_code rc = open_code(d, e);
            db_close(d);
            return rc;
        }
        d->readers[i]->tokens = d->tokens;
    }
    /* Where the checkpointer cannot start, SQLite's own checkpoint (set
     * on the writer's connection as it opened) does its work. */
    if (!d->is_pg && db_ckpt_start(path, d->writer, &d->ckpt, NULL) != ERR_OK)
        d->ckpt = NULL;
    if (pthread_create(&d->thread, NULL, writer_main, d) != 0) {
        db_close(d);
        return err_set(e, ERR_INTERNAL, NULL, "cannot start the writer");
    }
    d->is_running = true;
    if (d->is_pg && (db_pg_start_writers(d, e) != ERR_OK ||
                     db_news_start(d, e) != ERR_OK)) {
        err_code rc = e->code;
        db_close(d);
        return rc;
    }
    *out = d;
    return ERR_OK;
}

/* The final checkpoint, the writer stopped and the readers closed: the
 * whole log into the database and the log truncated, waiting for other
 * processes' readers (a backup) up to DB_BUSY_MS. */
static err_code final_checkpoint(db *d, err_info *e)
{
    err_code rc;

    if (d->is_pg)
        return ERR_OK;
    rc = db_wal_checkpoint(d->writer, DB_BUSY_MS, NULL);
    if (rc == ERR_FULL)
        return err_set(e, ERR_FULL, NULL,
                       "the final checkpoint failed: the disk is full; "
                       "%s-wal keeps every committed write: keep it beside "
                       "the database, which replays it when next opened",
                       d->path);
    if (rc != ERR_OK)
        return err_set(e, ERR_DB, NULL,
                       "the final checkpoint failed (%s); %s-wal keeps "
                       "every committed write: keep it beside the database, "
                       "which replays it when next opened",
                       rc == ERR_CONFLICT ? "another process reads the "
                                            "database"
                                          : sqlite3_errmsg(d->writer->lite),
                       d->path);
    return ERR_OK;
}

err_code db_close(db *d)
{
    err_info e;
    err_code rc = ERR_OK;
    int i;

    if (d == NULL)
        return ERR_OK;
    db_news_stop(d);
    db_poster_release(d);
    if (d->is_running) {
        pthread_mutex_lock(&d->queue_lock);
        d->is_stopping = true;
        pthread_cond_broadcast(&d->queue_ready);
        pthread_mutex_unlock(&d->queue_lock);
        pthread_join(d->thread, NULL);
        for (i = 0; i < d->n_more; i++)
            pthread_join(d->more_threads[i], NULL);
    }
    /* The writer stopped: no pass asked for.  Its hook off first, so
     * that no later commit on its connection calls into it. */
    if (d->ckpt)
        db_ckpt_detach(d->ckpt, d->writer);
    db_ckpt_stop(d->ckpt);
    d->ckpt = NULL;
    for (i = 0; i < DB_PG_WRITERS - 1; i++)
        db_conn_close(d->more_writers[i]);
    for (i = 0; d->readers && i < d->n_readers; i++)
        db_conn_close(d->readers[i]);
    err_clear(&e);
    if (d->writer) {
        rc = final_checkpoint(d, &e);
        db_conn_close(d->writer);
    }
    if (d->close_report)
        *d->close_report = e;
    pthread_mutex_destroy(&d->pool_lock);
    pthread_cond_destroy(&d->pool_free);
    pthread_mutex_destroy(&d->queue_lock);
    pthread_cond_destroy(&d->queue_ready);
    pthread_mutex_destroy(&d->listen_lock);
    pthread_mutex_destroy(&d->poster_lock);
    unit_cache_free(d->units);
    token_cache_free(d->tokens);
    free(d->readers);
    free(d->is_lent);
    free(d->path);
    free(d);
    return rc;
}

bool db_commits_in_order(db *d)
{
    return !d->is_pg;
}

void db_close_report(db *d, err_info *out)
{
    err_clear(out);
    d->close_report = out;
}

db_health_state db_health(db *d)
{
    return (db_health_state)atomic_load(&d->health);
}

void db_checkpoint_stats(db *d, db_ckpt_stats *out)
{
    db_ckpt_get_stats(d->ckpt, out);
}

unsigned long db_writer_refused(db *d)
{
    return atomic_load(&d->n_refused_changes);
}
