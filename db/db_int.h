/*
 * db_int.h: db.c's and db_read.c's own: the state of an open database
 * (its writer, queue and read pool) and the connection helpers both use.
 * Included by no file outside db/.
 */
#ifndef UMPIRE_DB_INT_H
#define UMPIRE_DB_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "db.h"
#include "db_conn.h"

typedef struct db_job {
    db_job_fn run;
    db_done_fn done;
    void *arg;
    char campaign[DB_ID_MAX]; /* the campaign it writes, or "" */
    struct db_job *next;
} db_job;

/* The writers of a PostgreSQL store: each its own connection and thread
 * (per-campaign order is the database's row locks', not one thread's). */
#define DB_PG_WRITERS 4

struct db {
    char *path;
    bool is_pg;        /* a PostgreSQL store (else an SQLite file) */
    db_conn *writer;   /* owned by the writer thread once started */
    db_conn **readers; /* the read pool */
    bool *is_lent;
    int n_readers;
    pthread_mutex_t pool_lock;
    pthread_cond_t pool_free;

    pthread_t thread;
    /* PostgreSQL: the other writers (writer is the first's). */
    db_conn *more_writers[DB_PG_WRITERS - 1];
    pthread_t more_threads[DB_PG_WRITERS - 1];
    int n_more;
    /* The campaign each writer's job writes ("" for none), under
     * queue_lock: a writer takes no job of a campaign another has. */
    char running[DB_PG_WRITERS][DB_ID_MAX];
    pthread_mutex_t queue_lock;
    pthread_cond_t queue_ready;
    db_job *head, *tail;
    bool is_stopping;
    bool is_running;
    atomic_ulong n_jobs;    /* jobs run */
    atomic_ulong n_commits; /* batches committed */

    /* Called after every committed batch, in the order added
     * (db_add_commit_listener); listen_lock is held while they run, so
     * that one removed is never running once its removal returns. */
    pthread_mutex_t listen_lock;
    struct {
        void (*fn)(void *arg);
        void *arg;
    } listeners[DB_LISTENERS_MAX];
    int n_listeners;
    /* rows written by jobs that then failed (rolled back): a refused
     * request should write nothing, so this stays 0 (db_writer_refused) */
    atomic_ulong n_refused_changes;

    /* SQLite: the log's checkpoints, off the writer (checkpointer.c);
     * NULL for PostgreSQL, or where it could not start (SQLite's own
     * checkpoint on the writer then). */
    struct db_ckpt *ckpt;

    /* SQLite: campaigns' units kept between snapshots (unit_cache.h);
     * NULL for PostgreSQL, or when out of memory. */
    struct unit_cache *units;
    /* SQLite: the live tokens its readers found (token_cache.h); NULL
     * for PostgreSQL, or when out of memory. */
    struct token_cache *tokens;

    /* The writer's upkeep: written by the writer thread only (health is
     * read by any). */
    atomic_int health;        /* db_health_state */
    bool is_wal_dirty;        /* committed since the last full checkpoint */
    bool is_low_space;        /* checkpointing every DB_LOW_SPACE_BYTES */
    double low_space_until;   /* monotonic seconds; then back to normal */
    double low_space_seconds; /* DB_LOW_SPACE_SECONDS (the tests shorten it,
                               * before the first write) */
    err_info *close_report;   /* where db_close writes its outcome, or NULL */

    /* PostgreSQL: what the instances share (instances.c). */
    pthread_t news_thread;
    bool has_news_thread;
    atomic_bool is_news_stopping;
    pthread_mutex_t poster_lock;
    db_conn *poster_conn; /* holds the posters' advisory lock, or NULL */
    bool is_poster;
    double poster_checked; /* monotonic seconds */
};

/* Runs jobs (one, or SQLite's batch) in one transaction on w and reports
 * each one's fate (db.c). */
void db_run_batch(db *d, db_conn *w, db_job *jobs);
/* PostgreSQL's writers (pg_writers.c): writer slot's loop on w, and the
 * start of the writers after the first (slot 0, the writer thread). */
void db_pg_run_jobs(db *d, db_conn *w, int slot);
err_code db_pg_start_writers(db *d, err_info *e);

/* Calls every commit listener (db_add_commit_listener). */
void db_fire_listeners(db *d);

/*
 * What several instances of a PostgreSQL store share (instances.c): every
 * commit that changed rows is announced (NOTIFY umpire_commit, sent in the
 * writer's transaction, so it arrives only if the transaction commits), and
 * a thread of each instance, listening, calls that instance's commit
 * listeners, so that event streams and channel posts on every instance
 * see every instance's writes.  db_news_start starts the thread (nothing
 * for SQLite); db_news_stop ends it.
 */
err_code db_news_start(db *d, err_info *e);
void db_news_stop(db *d);
/* Announces the transaction's commit on w (PostgreSQL; nothing for
 * SQLite). */
err_code db_news_send(db_conn *w, err_info *e);
void db_poster_release(db *d);

/*
 * The log's checkpoints on a thread of their own (checkpointer.c).
 * db_ckpt_start opens the thread's connection to path, starts it and
 * attaches it to the writer's connection (a WAL hook, in place of SQLite's
 * own checkpoint); *out new (db_ckpt_stop, after the writer has
 * stopped).  db_ckpt_detach and db_ckpt_attach take the hook off the
 * writer and put it back (SQLite's own checkpoint set in between replaces
 * it in any case).
 */
typedef struct db_ckpt db_ckpt;
err_code db_ckpt_start(const char *path, db_conn *writer, db_ckpt **out,
                       err_info *e);
void db_ckpt_attach(db_ckpt *k, db_conn *writer);
void db_ckpt_detach(db_ckpt *k, db_conn *writer);
void db_ckpt_stop(db_ckpt *k);
void db_ckpt_get_stats(db_ckpt *k, db_ckpt_stats *out);

/* A connection to path, the writer's (read-write) or a reader's (read
 * only), set up as every connection is; *out new (db_conn_close). */
err_code db_conn_open(const char *path, bool is_writer, db_conn **out,
                      err_info *e);
/* Closes conn, finalizing its kept statements; NULL allowed. */
void db_conn_close(db_conn *conn);
/* Runs sql (no rows) on conn; a failure is described in e. */
err_code db_exec(db_conn *conn, const char *sql, err_info *e);
/* Runs the control statement sql (BEGIN, COMMIT, SAVEPOINT ...) through
 * a kept prepared statement. */
err_code db_control(db_conn *conn, const char *sql, err_info *e);
/* The schema version of conn (SQLite's PRAGMA user_version), or -1. */
int db_user_version(db_conn *conn);

#endif
