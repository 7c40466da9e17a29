/*
 * test_db.c: tests db/db.c and db/migrations.c on real files: migrations
 * and connections (the read pool, read snapshots, readers returned with a
 * transaction open), the writer (batches, failed jobs and commits, group
 * commit, statistics, done callbacks, draining on close), ids and times.
 * db/store.c has its own suite, test_store.c; both use db_fixture.h.
 *
 * Writes go through the writer (db_write, db_submit) and are checked
 * through pooled read connections, as a request would see them.  Batches
 * are made deterministic by the fixture's blocker.  The tracked jobs the
 * writer thread touches are static, so a failed test never leaves the
 * writer pointing into a dead stack frame.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include <check.h>
#include <sqlite3.h>

#include "db.h"
#include "db_fixture.h"
#include "db_sql.h"
#include "scrud.h"
#include "suites.h"

/* A job that wrote (or tried to write) one row, and what done saw. */
typedef enum tracked_kind {
    TRACK_INSERT,       /* inserts campaign id: succeeds */
    TRACK_INSERT_FAIL,  /* inserts campaign id, then returns ERR_RULE */
    TRACK_INSERT_TWICE, /* inserts campaign id twice: ERR_CONFLICT */
    TRACK_DEFER_FK      /* inserts an orphan side id, its FK check deferred */
} tracked_kind;

typedef struct tracked_job {
    db *d;
    tracked_kind kind;
    char id[DB_ID_MAX];
    bool is_done;
    err_code rc;   /* as given to done */
    err_info e;    /* as given to done */
    int n_visible; /* rows with id that a new read saw, in done */
} tracked_job;

#define TRACK_MAX 64

static struct tracker {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int n_done;
    tracked_job jobs[TRACK_MAX];
} track;

/* The fixture's setup, and the tracker reset. */
static void test_setup(void)
{
    db_fixture_setup();
    memset(&track, 0, sizeof track);
    pthread_mutex_init(&track.lock, NULL);
    pthread_cond_init(&track.cond, NULL);
}

/* The fixture's teardown (its db_close may run done_tracked), the tracker's. */
static void test_teardown(void)
{
    db_fixture_teardown();
    pthread_mutex_destroy(&track.lock);
    pthread_cond_destroy(&track.cond);
}

/* ---- tracked jobs ------------------------------------------------------ */

static err_code job_tracked(db_conn *c, void *arg, err_info *e)
{
    tracked_job *t = arg;
    db_campaign cmp;
    db_side s;
    err_code rc;

    if (t->kind == TRACK_DEFER_FK) {
        if (sqlite3_exec(DB_LITE(c), "PRAGMA defer_foreign_keys = ON", NULL,
                         NULL, NULL) != SQLITE_OK)
            return db_fail(c, e, "defer_foreign_keys");
        db_fixture_new_side(&s, "cmp_000000000000000000000000", t->id,
                            "orphan");
        return db_side_insert(c, &s, e);
    }
    db_fixture_new_campaign(&cmp, "tracked");
    snprintf(cmp.id, sizeof cmp.id, "%s", t->id);
    if ((rc = db_campaign_insert(c, &cmp, e)) != ERR_OK)
        return rc;
    switch (t->kind) {
    case TRACK_INSERT_FAIL:
        return err_set(e, ERR_RULE, "tracked", "refused after its insert");
    case TRACK_INSERT_TWICE: return db_campaign_insert(c, &cmp, e);
    default: return ERR_OK;
    }
}

/* Records the outcome and whether a new read transaction sees the row. */
static void done_tracked(void *arg, err_code rc, const err_info *e)
{
    tracked_job *t = arg;
    db_conn *r = db_read_acquire(t->d);
    int n = db_fixture_count_rows(
        r, t->kind == TRACK_DEFER_FK ? "sides" : "campaigns", t->id);

    db_read_release(t->d, r);
    pthread_mutex_lock(&track.lock);
    t->rc = rc;
    if (e != NULL)
        t->e = *e;
    t->n_visible = n;
    t->is_done = true;
    track.n_done++;
    pthread_cond_broadcast(&track.cond);
    pthread_mutex_unlock(&track.lock);
}

static void submit_tracked(int i, tracked_kind kind)
{
    tracked_job *t = &track.jobs[i];

    ck_assert_int_lt(i, TRACK_MAX);
    t->d = db_fixture_db;
    t->kind = kind;
    t->n_visible = -1;
    db_new_id(kind == TRACK_DEFER_FK ? "sd" : "cmp", t->id);
    ck_assert_int_eq(db_submit(db_fixture_db, job_tracked, done_tracked, t),
                     ERR_OK);
}

/* Waits until n tracked jobs are done; returns how many are. */
static int wait_tracked(int n)
{
    struct timespec limit;
    int n_done;

    db_fixture_deadline(&limit);
    pthread_mutex_lock(&track.lock);
    while (track.n_done < n && pthread_cond_timedwait(&track.cond, &track.lock,
                                                      &limit) != ETIMEDOUT)
        ;
    n_done = track.n_done;
    pthread_mutex_unlock(&track.lock);
    return n_done;
}

/* ---- migrations and connections ---------------------------------------- */

static const char *const tables[] = {
    "campaigns", "sides", "tokens", "units", "combats", "rolls", "unit_events"};

START_TEST(test_fresh_file_fully_migrated)
{
    db_conn *r;
    char sql[128];
    size_t i;

    ck_assert_int_ge(db_n_migrations(), 1);
    db_fixture_open();
    ck_assert_int_eq(db_schema_version(db_fixture_db), db_n_migrations());
    r = db_read_acquire(db_fixture_db);
    for (i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        snprintf(sql, sizeof sql,
                 "SELECT count(*) FROM sqlite_master WHERE type = 'table' "
                 "AND name = '%s'",
                 tables[i]);
        ck_assert_msg(db_fixture_query_int(r, sql) == 1, "no table %s",
                      tables[i]);
    }
    db_read_release(db_fixture_db, r);
}
END_TEST

START_TEST(test_reopen_is_a_no_op)
{
    const char *count = "SELECT count(*) FROM sqlite_master";
    char wal[256];
    db_campaign c, got;
    db_conn *r;
    int n_objects;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Kept");
    r = db_read_acquire(db_fixture_db);
    n_objects = db_fixture_query_int(r, count);
    db_read_release(db_fixture_db, r);
    ck_assert_int_gt(n_objects, 7);
    db_close(db_fixture_db);
    db_fixture_db = NULL;
    /* The last close checkpoints: the main file holds everything. */
    snprintf(wal, sizeof wal, "%s-wal", db_fixture_path);
    ck_assert_msg(!db_fixture_file_exists(wal), "%s left behind by db_close",
                  wal);
    ck_assert_int_eq(db_fixture_raw_query_int("PRAGMA user_version"),
                     db_n_migrations());

    db_fixture_open();
    ck_assert_int_eq(db_schema_version(db_fixture_db), db_n_migrations());
    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_fixture_query_int(r, count), n_objects);
    ck_assert_int_eq(db_campaign_get(r, c.id, &got, NULL), ERR_OK);
    ck_assert_str_eq(got.name, "Kept");
    db_read_release(db_fixture_db, r);
}
END_TEST

START_TEST(test_newer_schema_refused)
{
    char sql[96];
    err_info e;
    db *d = (db *)&e; /* must be reset to NULL */

    snprintf(sql, sizeof sql,
             "CREATE TABLE future (x); PRAGMA user_version = %d;",
             db_n_migrations() + 1);
    db_fixture_raw_exec(sql);
    err_clear(&e);
    ck_assert_int_eq(db_open(db_fixture_path, 2, &d, &e), ERR_DB);
    ck_assert_ptr_null(d);
    ck_assert_int_eq(e.code, ERR_DB);
    ck_assert_uint_gt(strlen(e.message), 0);
    /* Refused, not migrated: the version and the schema are untouched. */
    ck_assert_int_eq(db_fixture_raw_query_int("PRAGMA user_version"),
                     db_n_migrations() + 1);
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT count(*) FROM "
                                              "sqlite_master WHERE name = "
                                              "'campaigns'"),
                     0);
}
END_TEST

/* A migration that fails half-way leaves nothing: it ran in a transaction. */
START_TEST(test_failed_migration_rolled_back)
{
    err_info e;
    db *d = NULL;

    db_fixture_raw_exec("CREATE TABLE unit_events (x);");
    err_clear(&e);
    ck_assert_int_eq(db_open(db_fixture_path, 2, &d, &e), ERR_DB);
    ck_assert_ptr_null(d);
    ck_assert_int_eq(db_fixture_raw_query_int("PRAGMA user_version"), 0);
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT count(*) FROM "
                                              "sqlite_master WHERE name IN "
                                              "('campaigns', 'units')"),
                     0);
}
END_TEST

START_TEST(test_memory_and_empty_paths_refused)
{
    static const char *const paths[] = {":memory:", ""};
    err_info e;
    db *d = (db *)&e;

    err_clear(&e);
    ck_assert_int_eq(db_open(paths[_i], 2, &d, &e), ERR_INVALID);
    ck_assert_ptr_null(d);
    ck_assert_int_eq(e.code, ERR_INVALID);
}
END_TEST

typedef struct pragma_probe {
    int synchronous;
    char journal_mode[16];
    int foreign_keys;
    bool is_in_transaction;
    char thread_name[16]; /* the thread the job ran on, as ps shows it */
} pragma_probe;

static err_code job_probe(db_conn *c, void *arg, err_info *e)
{
    pragma_probe *p = arg;

    (void)e;
    p->synchronous = db_fixture_query_int(c, "PRAGMA synchronous");
    db_fixture_query_text(c, "PRAGMA journal_mode", p->journal_mode,
                          sizeof p->journal_mode);
    p->foreign_keys = db_fixture_query_int(c, "PRAGMA foreign_keys");
    p->is_in_transaction = sqlite3_get_autocommit(DB_LITE(c)) == 0;
    (void)prctl(PR_GET_NAME, p->thread_name);
    return ERR_OK;
}

START_TEST(test_writer_pragmas)
{
    pragma_probe p;
    db_side orphan;
    err_info e;

    db_fixture_open();
    memset(&p, 0, sizeof p);
    db_fixture_write_ok(job_probe, &p, "probe");
    ck_assert_int_eq(p.synchronous, 2); /* FULL */
    ck_assert_str_eq(p.journal_mode, "wal");
    ck_assert_int_eq(p.foreign_keys, 1);
    ck_assert_msg(p.is_in_transaction, "jobs must run inside the batch");
    ck_assert_str_eq(p.thread_name, "umpire-writer");
    /* Foreign keys are enforced, as a conflict. */
    db_fixture_new_side(&orphan, "cmp_000000000000000000000000", NULL,
                        "Orphans");
    ck_assert_int_eq(db_fixture_write_rc(db_fixture_job_side, &orphan, &e),
                     ERR_CONFLICT);
    ck_assert_ptr_nonnull(strstr(e.message, "FOREIGN KEY"));
}
END_TEST

typedef struct acquirer {
    db *d;
    pthread_mutex_t lock;
    db_conn *got;
} acquirer;

static void *acquire_main(void *arg)
{
    acquirer *a = arg;
    db_conn *c = db_read_acquire(a->d);

    pthread_mutex_lock(&a->lock);
    a->got = c;
    pthread_mutex_unlock(&a->lock);
    return NULL;
}

START_TEST(test_read_pool)
{
    struct timespec pause = {0, 100 * 1000 * 1000};
    acquirer a;
    pthread_t th;
    db_conn *r1, *r2, *early;

    db_fixture_open(); /* two readers */
    r1 = db_read_acquire(db_fixture_db);
    r2 = db_read_acquire(db_fixture_db);
    ck_assert_ptr_nonnull(r1);
    ck_assert_ptr_nonnull(r2);
    ck_assert_ptr_ne(r1, r2);
    /* Readers cannot write. */
    ck_assert_int_eq(sqlite3_db_readonly(DB_LITE(r1), "main"), 1);
    ck_assert_int_ne(
        sqlite3_exec(DB_LITE(r1), "DELETE FROM campaigns", NULL, NULL, NULL),
        SQLITE_OK);
    /* A third borrower waits for a release, then gets that connection. */
    a.d = db_fixture_db;
    a.got = NULL;
    pthread_mutex_init(&a.lock, NULL);
    ck_assert_int_eq(pthread_create(&th, NULL, acquire_main, &a), 0);
    nanosleep(&pause, NULL);
    pthread_mutex_lock(&a.lock);
    early = a.got;
    pthread_mutex_unlock(&a.lock);
    db_read_release(db_fixture_db, r2);
    pthread_join(th, NULL);
    pthread_mutex_destroy(&a.lock);
    ck_assert_ptr_null(early);
    ck_assert_ptr_eq(a.got, r2);
    db_read_release(db_fixture_db, a.got);
    db_read_release(db_fixture_db, r1);
}
END_TEST

static const char *const count_campaigns = "SELECT count(*) FROM campaigns";

/* Checks both pooled readers: each in autocommit mode, seeing n campaigns
 * (the last committed state); one of them must be want (NULL: either). */
static void check_pool_fresh(db_conn *want, int n)
{
    db_conn *r[2];
    int k;

    r[0] = db_read_acquire(db_fixture_db);
    r[1] = db_read_acquire(db_fixture_db);
    ck_assert_msg(want == NULL || r[0] == want || r[1] == want,
                  "the connection was not returned to the pool");
    for (k = 0; k < 2; k++) {
        ck_assert_msg(sqlite3_get_autocommit(db_conn_sqlite(r[k])) != 0,
                      "reader %d came back from the pool in a transaction", k);
        ck_assert_int_eq(db_fixture_query_int(r[k], count_campaigns), n);
    }
    db_read_release(db_fixture_db, r[1]);
    db_read_release(db_fixture_db, r[0]);
}

/* db_read_begin .. db_read_end is one snapshot: a write committed between
 * two reads is not seen by the second, and is seen once it ends. */
START_TEST(test_read_snapshot)
{
    db_campaign before, during, got;
    db_conn *c;
    err_info e;

    db_fixture_open();
    db_fixture_add_campaign(&before, "Before");
    err_clear(&e);
    ck_assert_int_eq(db_read_begin(db_fixture_db, &c, &e), ERR_OK);
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(sqlite3_get_autocommit(DB_LITE(c)), 0);
    ck_assert_int_eq(db_fixture_query_int(c, count_campaigns), 1);
    db_fixture_add_campaign(&during, "During"); /* committed: db_write */
    ck_assert_int_eq(db_fixture_query_int(c, count_campaigns), 1);
    ck_assert_int_eq(db_campaign_get(c, during.id, &got, NULL), ERR_NOT_FOUND);
    ck_assert_int_eq(db_campaign_get(c, before.id, &got, NULL), ERR_OK);
    ck_assert_int_eq(db_read_end(db_fixture_db, c, &e), ERR_OK);
    ck_assert_int_eq(e.code, ERR_OK);
    check_pool_fresh(c, 2);

    /* A new snapshot sees it; NULL ends nothing. */
    ck_assert_int_eq(db_read_begin(db_fixture_db, &c, &e), ERR_OK);
    ck_assert_int_eq(db_campaign_get(c, during.id, &got, NULL), ERR_OK);
    ck_assert_str_eq(got.name, "During");
    ck_assert_int_eq(db_read_end(db_fixture_db, c, &e), ERR_OK);
    ck_assert_int_eq(db_read_end(db_fixture_db, NULL, &e), ERR_OK);
    ck_assert_int_eq(e.code, ERR_OK);
}
END_TEST

/* A reader returned with its transaction open (a snapshot taken) is rolled
 * back by db_read_release: the next borrower sees the new writes. */
START_TEST(test_release_ends_open_transaction)
{
    db_campaign a, b;
    db_conn *r;

    db_fixture_open();
    db_fixture_add_campaign(&a, "First");
    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(sqlite3_exec(DB_LITE(r), "BEGIN", NULL, NULL, NULL),
                     SQLITE_OK);
    ck_assert_int_eq(db_fixture_query_int(r, count_campaigns), 1);
    ck_assert_int_eq(sqlite3_get_autocommit(DB_LITE(r)), 0);
    db_read_release(db_fixture_db, r);
    db_fixture_add_campaign(&b, "Second");
    check_pool_fresh(r, 2);
}
END_TEST

/* ---- the writer -------------------------------------------------------- */

/* A tracked job and what it must come to. */
typedef struct tracked_plan {
    tracked_kind kind;
    err_code rc;
} tracked_plan;

/* Each of the n tracked jobs of plan came to its rc, and the row of each
 * that succeeded is there (seen by its done already), the others' not. */
static void check_plan(const tracked_plan *plan, int n)
{
    db_campaign got;
    db_conn *r = db_read_acquire(db_fixture_db);
    int i;

    for (i = 0; i < n; i++) {
        const tracked_job *t = &track.jobs[i];
        ck_assert_msg(t->rc == plan[i].rc, "job %d: %s, want %s", i,
                      err_code_name(t->rc), err_code_name(plan[i].rc));
        ck_assert_int_eq(t->n_visible, plan[i].rc == ERR_OK ? 1 : 0);
        ck_assert_int_eq(db_campaign_get(r, t->id, &got, NULL),
                         plan[i].rc == ERR_OK ? ERR_OK : ERR_NOT_FOUND);
    }
    db_read_release(db_fixture_db, r);
}

/* One batch: ok, fail after insert, ok, conflict after insert, ok. */
START_TEST(test_failed_job_leaves_no_trace)
{
    static const tracked_plan plan[] = {
        {TRACK_INSERT, ERR_OK}, {TRACK_INSERT_FAIL, ERR_RULE},
        {TRACK_INSERT, ERR_OK}, {TRACK_INSERT_TWICE, ERR_CONFLICT},
        {TRACK_INSERT, ERR_OK},
    };
    const int n = (int)(sizeof plan / sizeof plan[0]);
    unsigned long jobs0, commits0, jobs1, commits1;
    int i;

    db_fixture_open();
    db_writer_stats(db_fixture_db, &jobs0, &commits0);
    db_fixture_hold_writer();
    for (i = 0; i < n; i++)
        submit_tracked(i, plan[i].kind);
    db_fixture_release_writer();
    ck_assert_int_eq(wait_tracked(n), n);
    db_writer_stats(db_fixture_db, &jobs1, &commits1);
    ck_assert_uint_eq(jobs1 - jobs0, (unsigned long)n + 1);
    ck_assert_uint_eq(commits1 - commits0, 2); /* blocker, then the rest */
    check_plan(plan, n);
    ck_assert_int_eq(track.jobs[1].e.code, ERR_RULE);
    ck_assert_str_eq(track.jobs[1].e.field, "tracked");
    ck_assert_str_eq(track.jobs[1].e.message, "refused after its insert");
    ck_assert_int_eq(track.jobs[3].e.code, ERR_CONFLICT);
}
END_TEST

/* A job alone in its batch runs under the transaction itself (no
 * savepoint): failing after its insert, it leaves nothing, and the
 * batches after it (alone, then several, a failure among them) write as
 * they should. */
START_TEST(test_failed_job_alone_leaves_no_trace)
{
    static const tracked_plan plan[] = {
        {TRACK_INSERT_FAIL, ERR_RULE}, {TRACK_INSERT_TWICE, ERR_CONFLICT},
        {TRACK_INSERT, ERR_OK},        {TRACK_INSERT, ERR_OK},
        {TRACK_INSERT_FAIL, ERR_RULE}, {TRACK_INSERT, ERR_OK},
    };
    unsigned long jobs0, commits0, jobs1, commits1;
    int i;

    db_fixture_open();
    db_writer_stats(db_fixture_db, &jobs0, &commits0);
    for (i = 0; i < 3; i++) { /* each alone */
        submit_tracked(i, plan[i].kind);
        ck_assert_int_eq(wait_tracked(i + 1), i + 1);
    }
    db_fixture_hold_writer(); /* then three in one batch */
    for (i = 3; i < 6; i++)
        submit_tracked(i, plan[i].kind);
    db_fixture_release_writer();
    ck_assert_int_eq(wait_tracked(6), 6);
    db_writer_stats(db_fixture_db, &jobs1, &commits1);
    ck_assert_uint_eq(jobs1 - jobs0, 7);
    ck_assert_uint_eq(commits1 - commits0, 3); /* the third, blocker, batch */
    check_plan(plan, 6);
}
END_TEST

/* A COMMIT that fails (a deferred foreign key) fails every job of its
 * batch, and the writer carries on cleanly. */
START_TEST(test_failed_commit_fails_batch)
{
    static const tracked_kind plan[] = {TRACK_INSERT, TRACK_DEFER_FK,
                                        TRACK_INSERT};
    db_campaign c;
    db_side orphan;
    err_info e;
    int i;

    db_fixture_open();
    db_fixture_hold_writer();
    for (i = 0; i < 3; i++)
        submit_tracked(i, plan[i]);
    db_fixture_release_writer();
    ck_assert_int_eq(wait_tracked(3), 3);
    for (i = 0; i < 3; i++) {
        ck_assert_msg(track.jobs[i].rc != ERR_OK, "job %d committed", i);
        ck_assert_int_eq(track.jobs[i].e.code, track.jobs[i].rc);
        ck_assert_int_eq(track.jobs[i].n_visible, 0);
    }
    db_fixture_add_campaign(&c, "After");
    db_fixture_new_side(&orphan, "cmp_000000000000000000000000", NULL,
                        "Orphans");
    ck_assert_int_eq(db_fixture_write_rc(db_fixture_job_side, &orphan, &e),
                     ERR_CONFLICT);
}
END_TEST

typedef struct failing_job {
    err_code rc;
    bool sets_info;
} failing_job;

static err_code job_failing(db_conn *c, void *arg, err_info *e)
{
    failing_job *f = arg;

    (void)c;
    if (f->sets_info)
        return err_set(e, f->rc, "units[3].faces", "faces %d out of range",
                       1001);
    return f->rc;
}

START_TEST(test_db_write_returns_job_error)
{
    static const failing_job cases[] = {
        {ERR_RANGE, true}, {ERR_LIMIT, false}, {ERR_NOT_FOUND, true}};
    failing_job f = cases[_i];
    db_campaign c, got;
    err_info e;
    db_conn *r;

    db_fixture_open();
    ck_assert_int_eq(db_fixture_write_rc(job_failing, &f, &e), f.rc);
    ck_assert_int_eq(e.code, f.rc);
    if (f.sets_info) {
        ck_assert_str_eq(e.field, "units[3].faces");
        ck_assert_str_eq(e.message, "faces 1001 out of range");
    } else {
        ck_assert_str_eq(e.field, "");
        ck_assert_uint_gt(strlen(e.message), 0);
    }
    /* The next write is not affected, and success leaves e clear. */
    db_fixture_new_campaign(&c, "Next");
    ck_assert_int_eq(db_fixture_write_rc(db_fixture_job_campaign, &c, &e),
                     ERR_OK);
    ck_assert_int_eq(e.code, ERR_OK);
    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_campaign_get(r, c.id, &got, NULL), ERR_OK);
    db_read_release(db_fixture_db, r);
}
END_TEST

/* Regression (err.h: "the first error wins"): an err_info that already
 * holds an error keeps it through a failed db_write. */
START_TEST(test_db_write_keeps_first_error)
{
    failing_job f = {ERR_RANGE, true};
    err_info e;

    db_fixture_open();
    err_clear(&e);
    err_set(&e, ERR_RULE, "earlier", "an earlier error");
    ck_assert_int_eq(db_write(db_fixture_db, job_failing, &f, &e), ERR_RANGE);
    ck_assert_int_eq(e.code, ERR_RULE);
    ck_assert_str_eq(e.field, "earlier");
    ck_assert_str_eq(e.message, "an earlier error");
}
END_TEST

/* Regression: db_open returns its own failure, not whatever code the
 * caller's err_info already held. */
START_TEST(test_db_open_returns_own_code)
{
    char sql[64];
    err_info e;
    db *d = NULL;

    snprintf(sql, sizeof sql, "PRAGMA user_version = %d;",
             db_n_migrations() + 1);
    db_fixture_raw_exec(sql);
    err_clear(&e);
    err_set(&e, ERR_RULE, "earlier", "an earlier error");
    ck_assert_int_eq(db_open(db_fixture_path, 2, &d, &e), ERR_DB);
    ck_assert_ptr_null(d);
    ck_assert_int_eq(e.code, ERR_RULE); /* the first error stays */
}
END_TEST

#define GC_THREADS 8
#define GC_WRITES  50

typedef struct gc_thread {
    db *d;
    const char *campaign_id;
    int index;
    int n_failed;
    err_code first_rc;
    char first_message[ERR_MESSAGE_MAX];
} gc_thread;

static void *gc_main(void *arg)
{
    gc_thread *t = arg;
    db_side s;
    err_info e;
    err_code rc;
    char name[16];
    int j;

    for (j = 0; j < GC_WRITES; j++) {
        snprintf(name, sizeof name, "t%d-%02d", t->index, j);
        db_fixture_new_side(&s, t->campaign_id, NULL, name);
        err_clear(&e);
        rc = db_write(t->d, db_fixture_job_side, &s, &e);
        if (rc != ERR_OK && t->n_failed++ == 0) {
            t->first_rc = rc;
            snprintf(t->first_message, sizeof t->first_message, "%s",
                     e.message);
        }
    }
    return NULL;
}

START_TEST(test_group_commit)
{
    gc_thread threads[GC_THREADS];
    pthread_t ids[GC_THREADS];
    int next[GC_THREADS] = {0};
    unsigned long jobs0, commits0, jobs1, commits1;
    db_campaign c;
    db_side *list;
    size_t n, i;
    db_conn *r;
    int t, j;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Busy");
    db_writer_stats(db_fixture_db, &jobs0, &commits0);
    for (t = 0; t < GC_THREADS; t++) {
        threads[t] = (gc_thread){db_fixture_db, c.id, t, 0, ERR_OK, ""};
        ck_assert_int_eq(pthread_create(&ids[t], NULL, gc_main, &threads[t]),
                         0);
    }
    for (t = 0; t < GC_THREADS; t++)
        pthread_join(ids[t], NULL);
    db_writer_stats(db_fixture_db, &jobs1, &commits1);
    for (t = 0; t < GC_THREADS; t++)
        ck_assert_msg(threads[t].n_failed == 0, "thread %d: %d failed (%s)", t,
                      threads[t].n_failed, threads[t].first_message);
    ck_assert_uint_eq(jobs1 - jobs0, GC_THREADS * GC_WRITES);
    ck_assert_uint_gt(commits1 - commits0, 0);
    ck_assert_uint_lt(commits1 - commits0, GC_THREADS * GC_WRITES);

    /* Every row landed, each thread's in the order it wrote them. */
    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_sides_list(r, c.id, &list, &n, NULL), ERR_OK);
    db_read_release(db_fixture_db, r);
    ck_assert_uint_eq(n, GC_THREADS * GC_WRITES);
    for (i = 0; i < n; i++) {
        ck_assert_int_eq(sscanf(list[i].name, "t%d-%d", &t, &j), 2);
        ck_assert(t >= 0 && t < GC_THREADS);
        ck_assert_int_eq(j, next[t]);
        next[t]++;
    }
    free(list);
}
END_TEST

/* db_writer_stats while the writer works (as a status endpoint would):
 * the counts only grow and never show more commits than jobs could need.
 * The counters must be read and written under one lock: run under
 * -fsanitize=thread, this test reports the data race if they are not. */
START_TEST(test_stats_while_writing)
{
    gc_thread threads[2];
    pthread_t ids[2];
    unsigned long jobs, commits, last_jobs = 0, last_commits = 0;
    db_campaign c;
    int t, k;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Watched");
    for (t = 0; t < 2; t++) {
        threads[t] = (gc_thread){db_fixture_db, c.id, t, 0, ERR_OK, ""};
        ck_assert_int_eq(pthread_create(&ids[t], NULL, gc_main, &threads[t]),
                         0);
    }
    for (k = 0; k < 2000; k++) {
        db_writer_stats(db_fixture_db, &jobs, &commits);
        ck_assert_uint_ge(jobs, last_jobs);
        ck_assert_uint_ge(commits, last_commits);
        last_jobs = jobs;
        last_commits = commits;
    }
    for (t = 0; t < 2; t++)
        pthread_join(ids[t], NULL);
    db_writer_stats(db_fixture_db, &jobs, &commits);
    ck_assert_uint_eq(jobs, 1 + 2 * GC_WRITES);
    ck_assert_uint_le(commits, jobs);
}
END_TEST

/* done runs once the row is visible to a new read transaction. */
START_TEST(test_done_after_visible)
{
    const int n = 20;
    int i;

    db_fixture_open();
    for (i = 0; i < n; i++)
        submit_tracked(i, TRACK_INSERT);
    ck_assert_int_eq(wait_tracked(n), n);
    for (i = 0; i < n; i++) {
        ck_assert_int_eq(track.jobs[i].rc, ERR_OK);
        ck_assert_msg(track.jobs[i].n_visible == 1,
                      "job %d: done ran before its row was visible (%d)", i,
                      track.jobs[i].n_visible);
    }
}
END_TEST

/* db_close waits for queued jobs: all of them land and report. */
START_TEST(test_close_drains_queue)
{
    const int n = 30;
    int i;

    db_fixture_open();
    db_fixture_hold_writer();
    for (i = 0; i < n; i++)
        submit_tracked(i, TRACK_INSERT);
    db_fixture_release_writer();
    db_close(db_fixture_db);
    db_fixture_db = NULL;
    ck_assert_int_eq(track.n_done, n);
    for (i = 0; i < n; i++)
        ck_assert_int_eq(track.jobs[i].rc, ERR_OK);
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT count(*) FROM campaigns"),
                     n);
}
END_TEST

/* ---- ids and times ----------------------------------------------------- */

START_TEST(test_new_id)
{
    static const char hex[] = "0123456789abcdef";
    static char ids[200][DB_ID_MAX];
    bool seen[16] = {false};
    size_t i, k;
    int n_digits = 0;

    for (i = 0; i < 200; i++) {
        db_new_id("cmp", ids[i]);
        ck_assert_uint_eq(strlen(ids[i]), 4 + 24);
        ck_assert_int_eq(strncmp(ids[i], "cmp_", 4), 0);
        for (k = 4; k < 28; k++) {
            const char *p = strchr(hex, ids[i][k]);
            ck_assert_msg(p != NULL && *p != '\0', "%s: not hex", ids[i]);
            seen[p - hex] = true;
        }
        for (k = 0; k < i; k++)
            ck_assert_str_ne(ids[i], ids[k]);
    }
    for (k = 0; k < 16; k++)
        n_digits += seen[k];
    ck_assert_int_eq(n_digits, 16); /* 4800 random digits use all 16 */
    db_new_id("u", ids[0]);
    ck_assert_uint_eq(strlen(ids[0]), 2 + 24);
    ck_assert_int_eq(strncmp(ids[0], "u_", 2), 0);
}
END_TEST

/* Milliseconds since the epoch on the real-time clock. */
static long long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

START_TEST(test_now)
{
    static const char shape[] = "dddd-dd-ddTdd:dd:dd.dddZ";
    struct timespec pause = {0, 3 * 1000 * 1000};
    char t[DB_TIME_MAX], later[DB_TIME_MAX];
    long long before, after, at;
    struct tm tm;
    int ms, k;
    size_t i;

    for (k = 0; k < 20; k++) {
        before = now_ms();
        db_now(t);
        after = now_ms();
        ck_assert_uint_eq(strlen(t), strlen(shape));
        for (i = 0; shape[i] != '\0'; i++)
            ck_assert_msg(shape[i] == 'd' ? isdigit((unsigned char)t[i]) != 0
                                          : t[i] == shape[i],
                          "%s does not look like %s", t, shape);
        memset(&tm, 0, sizeof tm);
        ck_assert_int_eq(sscanf(t, "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ", &tm.tm_year,
                                &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                                &tm.tm_min, &tm.tm_sec, &ms),
                         7);
        ck_assert(tm.tm_mon >= 1 && tm.tm_mon <= 12);
        ck_assert(tm.tm_mday >= 1 && tm.tm_mday <= 31);
        ck_assert(tm.tm_hour <= 23 && tm.tm_min <= 59 && tm.tm_sec <= 60);
        tm.tm_year -= 1900;
        tm.tm_mon -= 1;
        /* UTC to the millisecond: the Z and the fraction are honest. */
        at = (long long)timegm(&tm) * 1000 + ms;
        ck_assert_msg(at >= before && at <= after,
                      "%s is not between %lld and %lld ms", t, before, after);
        db_now(later);
        ck_assert_int_le(strcmp(t, later), 0);
        nanosleep(&pause, NULL);
    }
}
END_TEST

Suite *suite_db(void)
{
    Suite *s = suite_create("db");
    TCase *mig = tcase_create("migrations");
    TCase *writer = tcase_create("writer");
    TCase *ids = tcase_create("ids");
    TCase *all[] = {mig, writer};
    size_t i;

    for (i = 0; i < sizeof all / sizeof all[0]; i++) {
        tcase_add_unchecked_fixture(all[i], db_fixture_suite_make,
                                    db_fixture_suite_remove);
        tcase_add_checked_fixture(all[i], test_setup, test_teardown);
        tcase_set_timeout(all[i], 60);
        suite_add_tcase(s, all[i]);
    }
    tcase_add_test(mig, test_fresh_file_fully_migrated);
    tcase_add_test(mig, test_reopen_is_a_no_op);
    tcase_add_test(mig, test_newer_schema_refused);
    tcase_add_test(mig, test_db_open_returns_own_code);
    tcase_add_test(mig, test_failed_migration_rolled_back);
    tcase_add_loop_test(mig, test_memory_and_empty_paths_refused, 0, 2);
    tcase_add_test(mig, test_writer_pragmas);
    tcase_add_test(mig, test_read_pool);
    tcase_add_test(mig, test_read_snapshot);
    tcase_add_test(mig, test_release_ends_open_transaction);

    tcase_add_test(writer, test_failed_job_leaves_no_trace);
    tcase_add_test(writer, test_failed_job_alone_leaves_no_trace);
    tcase_add_test(writer, test_failed_commit_fails_batch);
    tcase_add_loop_test(writer, test_db_write_returns_job_error, 0, 3);
    tcase_add_test(writer, test_db_write_keeps_first_error);
    tcase_add_test(writer, test_group_commit);
    tcase_add_test(writer, test_stats_while_writing);
    tcase_add_test(writer, test_done_after_visible);
    tcase_add_test(writer, test_close_drains_queue);

    tcase_add_test(ids, test_new_id);
    tcase_add_test(ids, test_now);
    suite_add_tcase(s, ids);
    return s;
}
