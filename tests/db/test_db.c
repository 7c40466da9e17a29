/*
 * test_db.c: tests db/db.c, db/migrations.c and db/store.c on real files.
 *
 * Every test gets a fresh database file in its own mkdtemp folder under
 * /tmp, opened with db_open (so every migration runs), and removes it with
 * its -wal and -shm files afterwards; a per-TCase folder holding the test
 * folders is swept at the end too, for tests that failed in a forked child
 * before their teardown could run.  Writes go through the writer (db_write,
 * db_submit) and are checked through pooled read connections, as a request
 * would see them.  Batches are made deterministic by a "blocker" job that
 * holds the writer while the jobs of the next batch are queued.  State the
 * writer thread touches (blocker, tracked jobs) is static, so a failed test
 * never leaves the writer pointing into a dead stack frame.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "db.h"
#include "scrud.h"
#include "store.h"
#include "suites.h"

#define HEX64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define HEX64_B                                                                \
    "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
#define WAIT_SECONDS 30 /* the longest a test waits for the writer */

static char suite_dir[64]; /* per TCase: holds every test folder */
static char test_dir[128]; /* per test */
static char db_path[192];  /* test_dir/umpire.db */
static db *tdb;            /* the open database of the test, or NULL */

/* ---- fixtures ---------------------------------------------------------- */

static void remove_tree(const char *path)
{
    DIR *dir = opendir(path);
    struct dirent *de;
    struct stat sb;
    char child[1024];

    if (dir == NULL) {
        unlink(path);
        return;
    }
    while ((de = readdir(dir)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        snprintf(child, sizeof child, "%s/%s", path, de->d_name);
        if (lstat(child, &sb) == 0 && S_ISDIR(sb.st_mode))
            remove_tree(child);
        else
            unlink(child);
    }
    closedir(dir);
    rmdir(path);
}

static void suite_dir_make(void)
{
    snprintf(suite_dir, sizeof suite_dir, "/tmp/umpire-test-db-XXXXXX");
    ck_assert_msg(mkdtemp(suite_dir) != NULL, "mkdtemp: %s", strerror(errno));
}

static void suite_dir_remove(void)
{
    if (suite_dir[0] != '\0')
        remove_tree(suite_dir);
    suite_dir[0] = '\0';
}

/* Holds the writer inside a job until released (or WAIT_SECONDS pass). */
static struct blocker {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool is_started, is_released;
} blocker;

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

static void test_setup(void)
{
    ck_assert_msg(suite_dir[0] != '\0', "no suite folder");
    snprintf(test_dir, sizeof test_dir, "%s/t-XXXXXX", suite_dir);
    ck_assert_msg(mkdtemp(test_dir) != NULL, "mkdtemp: %s", strerror(errno));
    snprintf(db_path, sizeof db_path, "%s/umpire.db", test_dir);
    tdb = NULL;
    memset(&blocker, 0, sizeof blocker);
    pthread_mutex_init(&blocker.lock, NULL);
    pthread_cond_init(&blocker.cond, NULL);
    memset(&track, 0, sizeof track);
    pthread_mutex_init(&track.lock, NULL);
    pthread_cond_init(&track.cond, NULL);
}

static void test_teardown(void)
{
    static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
    char file[256];
    size_t i;

    pthread_mutex_lock(&blocker.lock);
    blocker.is_released = true;
    pthread_cond_broadcast(&blocker.cond);
    pthread_mutex_unlock(&blocker.lock);
    db_close(tdb);
    tdb = NULL;
    for (i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        snprintf(file, sizeof file, "%s%s", db_path, suffixes[i]);
        unlink(file);
    }
    rmdir(test_dir);
    pthread_mutex_destroy(&blocker.lock);
    pthread_cond_destroy(&blocker.cond);
    pthread_mutex_destroy(&track.lock);
    pthread_cond_destroy(&track.cond);
}

/* ---- helpers ----------------------------------------------------------- */

static void open_db(void)
{
    err_info e;
    err_code rc;

    err_clear(&e);
    rc = db_open(db_path, 2, &tdb, &e);
    ck_assert_msg(rc == ERR_OK, "db_open(%s): %s", db_path, e.message);
    ck_assert_ptr_nonnull(tdb);
}

static bool file_exists(const char *path)
{
    struct stat sb;

    return stat(path, &sb) == 0;
}

/* The first column of the first row of sql as an int, or -1. */
static int query_int(sqlite3 *c, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int v = -1;

    if (sqlite3_prepare_v2(c, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void query_text(sqlite3 *c, const char *sql, char *buf, size_t n)
{
    sqlite3_stmt *st = NULL;

    snprintf(buf, n, "%s", "(none)");
    if (sqlite3_prepare_v2(c, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        snprintf(buf, n, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
}

/* Rows of table (a literal name) whose id is id, or -1. */
static int count_rows(sqlite3 *c, const char *table, const char *id)
{
    char sql[96];
    sqlite3_stmt *st = NULL;
    int v = -1;

    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s WHERE id = ?", table);
    if (sqlite3_prepare_v2(c, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* Runs sql on the file at path with a plain connection, outside db_open. */
static void raw_exec(const char *path, const char *sql)
{
    sqlite3 *c = NULL;
    int rc;

    ck_assert_int_eq(sqlite3_open(path, &c), SQLITE_OK);
    rc = sqlite3_exec(c, sql, NULL, NULL, NULL);
    ck_assert_msg(rc == SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(c));
    sqlite3_close(c);
}

static int raw_query_int(const char *path, const char *sql)
{
    sqlite3 *c = NULL;
    int v;

    ck_assert_int_eq(sqlite3_open_v2(path, &c, SQLITE_OPEN_READONLY, NULL),
                     SQLITE_OK);
    v = query_int(c, sql);
    sqlite3_close(c);
    return v;
}

static void deadline(struct timespec *ts)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += WAIT_SECONDS;
}

/* Job wrappers: one store call each, the row as arg. */
static err_code job_campaign(sqlite3 *c, void *arg, err_info *e)
{
    return db_campaign_insert(c, arg, e);
}

static err_code job_side(sqlite3 *c, void *arg, err_info *e)
{
    return db_side_insert(c, arg, e);
}

static err_code job_unit(sqlite3 *c, void *arg, err_info *e)
{
    return db_unit_insert(c, arg, e);
}

static err_code job_unit_update(sqlite3 *c, void *arg, err_info *e)
{
    return db_unit_update(c, arg, e);
}

static err_code job_event(sqlite3 *c, void *arg, err_info *e)
{
    return db_event_insert(c, arg, e);
}

typedef struct token_row {
    db_token t;
    const char *hash;
} token_row;

static err_code job_token(sqlite3 *c, void *arg, err_info *e)
{
    token_row *r = arg;

    return db_token_insert(c, &r->t, r->hash, "2026-01-01T00:00:00.000Z", e);
}

typedef struct combat_row {
    const db_combat *cb;
    const db_roll *rolls;
    size_t n_rolls;
} combat_row;

static err_code job_combat(sqlite3 *c, void *arg, err_info *e)
{
    combat_row *r = arg;

    return db_combat_insert(c, r->cb, r->rolls, r->n_rolls, e);
}

/* db_write of run(arg); returns its code, the details in *e. */
static err_code write_rc(db_job_fn run, void *arg, err_info *e)
{
    err_clear(e);
    return db_write(tdb, run, arg, e);
}

static void write_ok(db_job_fn run, void *arg, const char *what)
{
    err_info e;
    err_code rc = write_rc(run, arg, &e);

    ck_assert_msg(rc == ERR_OK, "%s: %s: %s", what, err_code_name(rc),
                  e.message);
}

static void new_campaign(db_campaign *c, const char *name)
{
    memset(c, 0, sizeof *c);
    db_new_id("cmp", c->id);
    snprintf(c->name, sizeof c->name, "%s", name);
    db_now(c->created_at);
    scrud_options_default(&c->scrud);
}

static void add_campaign(db_campaign *c, const char *name)
{
    new_campaign(c, name);
    write_ok(job_campaign, c, "insert campaign");
}

/* id NULL: a random one. */
static void new_side(db_side *s, const char *campaign_id, const char *id,
                     const char *name)
{
    memset(s, 0, sizeof *s);
    if (id != NULL)
        snprintf(s->id, sizeof s->id, "%s", id);
    else
        db_new_id("sd", s->id);
    snprintf(s->campaign_id, sizeof s->campaign_id, "%s", campaign_id);
    snprintf(s->name, sizeof s->name, "%s", name);
    db_now(s->created_at);
}

static void add_side(db_side *s, const char *campaign_id, const char *id,
                     const char *name)
{
    new_side(s, campaign_id, id, name);
    write_ok(job_side, s, "insert side");
}

static void new_unit(db_unit *u, const db_side *s, const char *id,
                     const char *name)
{
    memset(u, 0, sizeof *u);
    if (id != NULL)
        snprintf(u->id, sizeof u->id, "%s", id);
    else
        db_new_id("un", u->id);
    snprintf(u->campaign_id, sizeof u->campaign_id, "%s", s->campaign_id);
    snprintf(u->side_id, sizeof u->side_id, "%s", s->id);
    snprintf(u->name, sizeof u->name, "%s", name);
    db_now(u->created_at);
    scrud_unit_default(&u->scrud);
}

static bool str_eq_or_null(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    return strcmp(a, b) == 0;
}

/* Every stored field of a unit; side_name only when want_side is given. */
static void check_unit(const db_unit *got, const db_unit *want,
                       const char *want_side)
{
    ck_assert_str_eq(got->id, want->id);
    ck_assert_str_eq(got->campaign_id, want->campaign_id);
    ck_assert_str_eq(got->side_id, want->side_id);
    ck_assert_str_eq(got->name, want->name);
    ck_assert_str_eq(got->created_at, want->created_at);
    ck_assert_int_eq(got->is_eliminated, want->is_eliminated);
    ck_assert_int_eq(got->scrud.is_eliminated, want->is_eliminated);
    ck_assert_str_eq(got->eliminated_reason, want->eliminated_reason);
    ck_assert_str_eq(got->eliminated_by, want->eliminated_by);
    ck_assert_int_eq(got->scrud.quality, want->scrud.quality);
    ck_assert_int_eq(got->scrud.faces, want->scrud.faces);
    ck_assert_int_eq(got->scrud.defeat_penalty, want->scrud.defeat_penalty);
    ck_assert_int_eq(got->scrud.fatigue_penalty, want->scrud.fatigue_penalty);
    if (want_side != NULL)
        ck_assert_str_eq(got->side_name, want_side);
}

/* ---- blocker and tracked jobs ------------------------------------------ */

static err_code job_block(sqlite3 *c, void *arg, err_info *e)
{
    struct timespec limit;

    (void)c;
    (void)arg;
    (void)e;
    deadline(&limit);
    pthread_mutex_lock(&blocker.lock);
    blocker.is_started = true;
    pthread_cond_broadcast(&blocker.cond);
    while (!blocker.is_released &&
           pthread_cond_timedwait(&blocker.cond, &blocker.lock, &limit) !=
               ETIMEDOUT)
        ;
    pthread_mutex_unlock(&blocker.lock);
    return ERR_OK;
}

static void done_nothing(void *arg, err_code rc, const err_info *e)
{
    (void)arg;
    (void)rc;
    (void)e;
}

/* Queues the blocker and returns once the writer is inside it, so every
 * job submitted before release_writer lands in the next batch. */
static void hold_writer(void)
{
    struct timespec limit;

    ck_assert_int_eq(db_submit(tdb, job_block, done_nothing, NULL), ERR_OK);
    deadline(&limit);
    pthread_mutex_lock(&blocker.lock);
    while (!blocker.is_started &&
           pthread_cond_timedwait(&blocker.cond, &blocker.lock, &limit) !=
               ETIMEDOUT)
        ;
    pthread_mutex_unlock(&blocker.lock);
    ck_assert_msg(blocker.is_started, "the writer never ran the blocker");
}

static void release_writer(void)
{
    pthread_mutex_lock(&blocker.lock);
    blocker.is_released = true;
    pthread_cond_broadcast(&blocker.cond);
    pthread_mutex_unlock(&blocker.lock);
}

static err_code job_tracked(sqlite3 *c, void *arg, err_info *e)
{
    tracked_job *t = arg;
    db_campaign cmp;
    db_side s;
    err_code rc;

    if (t->kind == TRACK_DEFER_FK) {
        if (sqlite3_exec(c, "PRAGMA defer_foreign_keys = ON", NULL, NULL,
                         NULL) != SQLITE_OK)
            return db_fail(c, e, "defer_foreign_keys");
        new_side(&s, "cmp_000000000000000000000000", t->id, "orphan");
        return db_side_insert(c, &s, e);
    }
    new_campaign(&cmp, "tracked");
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
    sqlite3 *r = db_read_acquire(t->d);
    int n =
        count_rows(r, t->kind == TRACK_DEFER_FK ? "sides" : "campaigns", t->id);

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
    t->d = tdb;
    t->kind = kind;
    t->n_visible = -1;
    db_new_id(kind == TRACK_DEFER_FK ? "sd" : "cmp", t->id);
    ck_assert_int_eq(db_submit(tdb, job_tracked, done_tracked, t), ERR_OK);
}

/* Waits until n tracked jobs are done; returns how many are. */
static int wait_tracked(int n)
{
    struct timespec limit;
    int n_done;

    deadline(&limit);
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
    sqlite3 *r;
    char sql[128];
    size_t i;

    ck_assert_int_ge(db_n_migrations(), 1);
    open_db();
    ck_assert_int_eq(db_schema_version(tdb), db_n_migrations());
    r = db_read_acquire(tdb);
    for (i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        snprintf(sql, sizeof sql,
                 "SELECT count(*) FROM sqlite_master WHERE type = 'table' "
                 "AND name = '%s'",
                 tables[i]);
        ck_assert_msg(query_int(r, sql) == 1, "no table %s", tables[i]);
    }
    db_read_release(tdb, r);
}
END_TEST

START_TEST(test_reopen_is_a_no_op)
{
    const char *count = "SELECT count(*) FROM sqlite_master";
    char wal[256];
    db_campaign c, got;
    sqlite3 *r;
    int n_objects;

    open_db();
    add_campaign(&c, "Kept");
    r = db_read_acquire(tdb);
    n_objects = query_int(r, count);
    db_read_release(tdb, r);
    ck_assert_int_gt(n_objects, 7);
    db_close(tdb);
    tdb = NULL;
    /* The last close checkpoints: the main file holds everything. */
    snprintf(wal, sizeof wal, "%s-wal", db_path);
    ck_assert_msg(!file_exists(wal), "%s left behind by db_close", wal);
    ck_assert_int_eq(raw_query_int(db_path, "PRAGMA user_version"),
                     db_n_migrations());

    open_db();
    ck_assert_int_eq(db_schema_version(tdb), db_n_migrations());
    r = db_read_acquire(tdb);
    ck_assert_int_eq(query_int(r, count), n_objects);
    ck_assert_int_eq(db_campaign_get(r, c.id, &got, NULL), ERR_OK);
    ck_assert_str_eq(got.name, "Kept");
    db_read_release(tdb, r);
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
    raw_exec(db_path, sql);
    err_clear(&e);
    ck_assert_int_eq(db_open(db_path, 2, &d, &e), ERR_DB);
    ck_assert_ptr_null(d);
    ck_assert_int_eq(e.code, ERR_DB);
    ck_assert_uint_gt(strlen(e.message), 0);
    /* Refused, not migrated: the version and the schema are untouched. */
    ck_assert_int_eq(raw_query_int(db_path, "PRAGMA user_version"),
                     db_n_migrations() + 1);
    ck_assert_int_eq(raw_query_int(db_path, "SELECT count(*) FROM "
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

    raw_exec(db_path, "CREATE TABLE unit_events (x);");
    err_clear(&e);
    ck_assert_int_eq(db_open(db_path, 2, &d, &e), ERR_DB);
    ck_assert_ptr_null(d);
    ck_assert_int_eq(raw_query_int(db_path, "PRAGMA user_version"), 0);
    ck_assert_int_eq(raw_query_int(db_path, "SELECT count(*) FROM "
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
} pragma_probe;

static err_code job_probe(sqlite3 *c, void *arg, err_info *e)
{
    pragma_probe *p = arg;

    (void)e;
    p->synchronous = query_int(c, "PRAGMA synchronous");
    query_text(c, "PRAGMA journal_mode", p->journal_mode,
               sizeof p->journal_mode);
    p->foreign_keys = query_int(c, "PRAGMA foreign_keys");
    p->is_in_transaction = sqlite3_get_autocommit(c) == 0;
    return ERR_OK;
}

START_TEST(test_writer_pragmas)
{
    pragma_probe p;
    db_side orphan;
    err_info e;

    open_db();
    memset(&p, 0, sizeof p);
    write_ok(job_probe, &p, "probe");
    ck_assert_int_eq(p.synchronous, 2); /* FULL */
    ck_assert_str_eq(p.journal_mode, "wal");
    ck_assert_int_eq(p.foreign_keys, 1);
    ck_assert_msg(p.is_in_transaction, "jobs must run inside the batch");
    /* Foreign keys are enforced, as a conflict. */
    new_side(&orphan, "cmp_000000000000000000000000", NULL, "Orphans");
    ck_assert_int_eq(write_rc(job_side, &orphan, &e), ERR_CONFLICT);
    ck_assert_ptr_nonnull(strstr(e.message, "FOREIGN KEY"));
}
END_TEST

typedef struct acquirer {
    db *d;
    pthread_mutex_t lock;
    sqlite3 *got;
} acquirer;

static void *acquire_main(void *arg)
{
    acquirer *a = arg;
    sqlite3 *c = db_read_acquire(a->d);

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
    sqlite3 *r1, *r2, *early;

    open_db(); /* two readers */
    r1 = db_read_acquire(tdb);
    r2 = db_read_acquire(tdb);
    ck_assert_ptr_nonnull(r1);
    ck_assert_ptr_nonnull(r2);
    ck_assert_ptr_ne(r1, r2);
    /* Readers cannot write. */
    ck_assert_int_eq(sqlite3_db_readonly(r1, "main"), 1);
    ck_assert_int_ne(
        sqlite3_exec(r1, "DELETE FROM campaigns", NULL, NULL, NULL), SQLITE_OK);
    /* A third borrower waits for a release, then gets that connection. */
    a.d = tdb;
    a.got = NULL;
    pthread_mutex_init(&a.lock, NULL);
    ck_assert_int_eq(pthread_create(&th, NULL, acquire_main, &a), 0);
    nanosleep(&pause, NULL);
    pthread_mutex_lock(&a.lock);
    early = a.got;
    pthread_mutex_unlock(&a.lock);
    db_read_release(tdb, r2);
    pthread_join(th, NULL);
    pthread_mutex_destroy(&a.lock);
    ck_assert_ptr_null(early);
    ck_assert_ptr_eq(a.got, r2);
    db_read_release(tdb, a.got);
    db_read_release(tdb, r1);
}
END_TEST

/* ---- store round trips ------------------------------------------------- */

START_TEST(test_campaign_round_trip)
{
    db_campaign cmps[2], got;
    scrud_options def;
    err_info e;
    sqlite3 *r;
    size_t i;

    new_campaign(&cmps[0], "");
    memset(cmps[0].name, 'x', DB_NAME_MAX - 1); /* the longest name */
    memcpy(cmps[0].name, "\xc3\x89t\xc3\xa9 ", 6); /* "Été " */
    cmps[0].name[DB_NAME_MAX - 1] = '\0';
    cmps[0].scrud = (scrud_options){.cap_kind = SCRUD_CAP_FIXED,
                                    .cap = 9,
                                    .has_floor = false,
                                    .floor = 2,
                                    .extra_dice = SCRUD_EXTRA_HALF,
                                    .attrition = false,
                                    .max_penalty_per_combat = 2,
                                    .eliminate_below = -5,
                                    .defeats_per_elimination = 0};
    /* Every field differs from the default, so a dropped column shows. */
    scrud_options_default(&def);
    ck_assert_int_ne(cmps[0].scrud.cap_kind, def.cap_kind);
    ck_assert_int_ne(cmps[0].scrud.cap, def.cap);
    ck_assert_int_ne(cmps[0].scrud.has_floor, def.has_floor);
    ck_assert_int_ne(cmps[0].scrud.floor, def.floor);
    ck_assert_int_ne(cmps[0].scrud.extra_dice, def.extra_dice);
    ck_assert_int_ne(cmps[0].scrud.attrition, def.attrition);
    ck_assert_int_ne(cmps[0].scrud.max_penalty_per_combat,
                     def.max_penalty_per_combat);
    ck_assert_int_ne(cmps[0].scrud.eliminate_below, def.eliminate_below);
    ck_assert_int_ne(cmps[0].scrud.defeats_per_elimination,
                     def.defeats_per_elimination);
    new_campaign(&cmps[1], "Tannenberg 1914");
    cmps[1].scrud.cap_kind = SCRUD_CAP_NONE;
    cmps[1].scrud.floor = -3;
    cmps[1].scrud.extra_dice = SCRUD_EXTRA_IGNORE;
    cmps[1].scrud.max_penalty_per_combat = 0;
    cmps[1].scrud.eliminate_below = -100;
    cmps[1].scrud.defeats_per_elimination = 7;

    open_db();
    for (i = 0; i < 2; i++)
        write_ok(job_campaign, &cmps[i], "insert campaign");
    r = db_read_acquire(tdb);
    for (i = 0; i < 2; i++) {
        const scrud_options *w = &cmps[i].scrud, *g = &got.scrud;
        ck_assert_int_eq(db_campaign_get(r, cmps[i].id, &got, NULL), ERR_OK);
        ck_assert_str_eq(got.id, cmps[i].id);
        ck_assert_str_eq(got.name, cmps[i].name);
        ck_assert_str_eq(got.created_at, cmps[i].created_at);
        ck_assert_int_eq(g->cap_kind, w->cap_kind);
        ck_assert_int_eq(g->cap, w->cap);
        ck_assert_int_eq(g->has_floor, w->has_floor);
        ck_assert_int_eq(g->floor, w->floor);
        ck_assert_int_eq(g->extra_dice, w->extra_dice);
        ck_assert_int_eq(g->attrition, w->attrition);
        ck_assert_int_eq(g->max_penalty_per_combat, w->max_penalty_per_combat);
        ck_assert_int_eq(g->eliminate_below, w->eliminate_below);
        ck_assert_int_eq(g->defeats_per_elimination,
                         w->defeats_per_elimination);
    }
    err_clear(&e);
    ck_assert_int_eq(db_campaign_get(r, "cmp_nope", &got, &e), ERR_NOT_FOUND);
    ck_assert_int_eq(e.code, ERR_NOT_FOUND);
    db_read_release(tdb, r);
}
END_TEST

START_TEST(test_sides)
{
    /* Creation order differs from id and name order; one side is named
     * like another side's id. */
    static const char *const ids[] = {"sd_3", "sd_1", "sd_2"};
    static const char *const names[] = {"North", "South", "sd_1"};
    db_campaign c1, c2, c3;
    db_side sides[3], other, dup, got, *list;
    size_t i, n;
    err_info e;
    sqlite3 *r;

    open_db();
    add_campaign(&c1, "One");
    add_campaign(&c2, "Two");
    add_campaign(&c3, "Empty");
    add_side(&sides[0], c1.id, ids[0], names[0]);
    add_side(&other, c2.id, "sd_9", "North"); /* same name, other campaign */
    for (i = 1; i < 3; i++)
        add_side(&sides[i], c1.id, ids[i], names[i]);
    new_side(&dup, c1.id, "sd_4", "North");
    ck_assert_int_eq(write_rc(job_side, &dup, &e), ERR_CONFLICT);

    r = db_read_acquire(tdb);
    ck_assert_int_eq(db_sides_list(r, c1.id, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 3);
    for (i = 0; i < n; i++) {
        ck_assert_str_eq(list[i].id, ids[i]);
        ck_assert_str_eq(list[i].name, names[i]);
        ck_assert_str_eq(list[i].campaign_id, c1.id);
        ck_assert_str_eq(list[i].created_at, sides[i].created_at);
    }
    free(list);
    ck_assert_int_eq(db_sides_list(r, c3.id, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 0);
    free(list);

    ck_assert_int_eq(db_side_find(r, c1.id, "sd_1", &got, NULL), ERR_OK);
    ck_assert_str_eq(got.name, "South"); /* the id wins over the name */
    ck_assert_int_eq(db_side_find(r, c1.id, "sd_2", &got, NULL), ERR_OK);
    ck_assert_str_eq(got.name, "sd_1");
    ck_assert_int_eq(db_side_find(r, c1.id, "North", &got, NULL), ERR_OK);
    ck_assert_str_eq(got.id, "sd_3");
    ck_assert_str_eq(got.campaign_id, c1.id);
    ck_assert_int_eq(db_side_find(r, c2.id, "North", &got, NULL), ERR_OK);
    ck_assert_str_eq(got.id, "sd_9");
    err_clear(&e);
    ck_assert_int_eq(db_side_find(r, c1.id, "sd_9", &got, &e), ERR_NOT_FOUND);
    ck_assert_int_eq(e.code, ERR_NOT_FOUND);
    ck_assert_int_eq(db_side_find(r, c1.id, "West", &got, NULL), ERR_NOT_FOUND);
    db_read_release(tdb, r);
}
END_TEST

START_TEST(test_tokens)
{
    db_campaign c;
    db_side s;
    token_row umpire, player, dup;
    db_token got;
    err_info e;
    sqlite3 *r;

    open_db();
    add_campaign(&c, "Tokens");
    add_side(&s, c.id, NULL, "Blue");
    memset(&umpire, 0, sizeof umpire);
    db_new_id("tok", umpire.t.id);
    snprintf(umpire.t.campaign_id, sizeof umpire.t.campaign_id, "%s", c.id);
    umpire.t.is_umpire = true;
    umpire.hash = HEX64;
    player = umpire;
    db_new_id("tok", player.t.id);
    snprintf(player.t.side_id, sizeof player.t.side_id, "%s", s.id);
    player.t.is_umpire = false;
    player.hash = HEX64_B;
    write_ok(job_token, &umpire, "insert umpire token");
    write_ok(job_token, &player, "insert player token");
    dup = player;
    db_new_id("tok", dup.t.id);
    ck_assert_int_eq(write_rc(job_token, &dup, &e), ERR_CONFLICT);

    r = db_read_acquire(tdb);
    ck_assert_int_eq(db_token_find(r, HEX64, &got, NULL), ERR_OK);
    ck_assert_str_eq(got.id, umpire.t.id);
    ck_assert_str_eq(got.campaign_id, c.id);
    ck_assert_str_eq(got.side_id, "");
    ck_assert(got.is_umpire);
    ck_assert_int_eq(db_token_find(r, player.hash, &got, NULL), ERR_OK);
    ck_assert_str_eq(got.id, player.t.id);
    ck_assert_str_eq(got.side_id, s.id);
    ck_assert(!got.is_umpire);
    err_clear(&e);
    ck_assert_int_eq(db_token_find(r, "ee" HEX64, &got, &e), ERR_NOT_FOUND);
    ck_assert_int_eq(e.code, ERR_NOT_FOUND);
    db_read_release(tdb, r);
}
END_TEST

START_TEST(test_unit_round_trip_and_update)
{
    db_campaign c;
    db_side a, b;
    db_unit u, twin, got, ghost;
    err_info e;
    sqlite3 *r;

    open_db();
    add_campaign(&c, "Units");
    add_side(&a, c.id, NULL, "Blue");
    add_side(&b, c.id, NULL, "Red");
    new_unit(&u, &a, NULL, "1st Foot");
    u.scrud.quality = 2;
    u.scrud.faces = 10;
    u.scrud.defeat_penalty = 1;
    u.scrud.fatigue_penalty = 3;
    write_ok(job_unit, &u, "insert unit");
    new_unit(&twin, &b, NULL, u.id); /* named like the first one's id */
    write_ok(job_unit, &twin, "insert twin");

    r = db_read_acquire(tdb);
    ck_assert_int_eq(db_unit_find(r, c.id, u.id, &got, NULL), ERR_OK);
    check_unit(&got, &u, "Blue"); /* the id wins over the twin's name */
    ck_assert_int_eq(db_unit_find(r, c.id, "1st Foot", &got, NULL), ERR_OK);
    check_unit(&got, &u, "Blue");
    ck_assert_int_eq(db_unit_find(r, c.id, twin.id, &got, NULL), ERR_OK);
    check_unit(&got, &twin, "Red");
    db_read_release(tdb, r);

    snprintf(u.name, sizeof u.name, "Old Guard");
    snprintf(u.side_id, sizeof u.side_id, "%s", b.id);
    u.is_eliminated = true;
    snprintf(u.eliminated_reason, sizeof u.eliminated_reason, "three_defeats");
    db_new_id("cmb", u.eliminated_by);
    u.scrud.quality = -1;
    u.scrud.faces = 12;
    u.scrud.defeat_penalty = 4;
    u.scrud.fatigue_penalty = 0;
    write_ok(job_unit_update, &u, "update unit");
    ghost = u;
    db_new_id("un", ghost.id);
    ck_assert_int_eq(write_rc(job_unit_update, &ghost, &e), ERR_NOT_FOUND);

    r = db_read_acquire(tdb);
    ck_assert_int_eq(db_unit_find(r, c.id, "Old Guard", &got, NULL), ERR_OK);
    check_unit(&got, &u, "Red");
    ck_assert_int_eq(db_unit_find(r, c.id, "1st Foot", &got, NULL),
                     ERR_NOT_FOUND);
    db_read_release(tdb, r);
}
END_TEST

/* The units of test_units_list, in creation order; ids run backwards. */
static const struct {
    const char *id, *name;
    int side;
    bool is_eliminated;
} unit_specs[] = {
    {"un_e", "1st Foot", 0, false}, {"un_d", "2nd Foot", 1, true},
    {"un_c", "Horse", 0, true},     {"un_b", "Guns", 1, false},
    {"un_a", "Militia", 0, false},
};
#define N_UNIT_SPECS (sizeof unit_specs / sizeof unit_specs[0])

START_TEST(test_units_list)
{
    db_campaign c, c2;
    db_side sides[2], s2;
    db_unit u, *list;
    size_t i, n, k, want;
    int side, elim, count;
    sqlite3 *r;

    open_db();
    add_campaign(&c, "List");
    add_campaign(&c2, "Elsewhere");
    add_side(&sides[0], c.id, NULL, "Blue");
    add_side(&sides[1], c.id, NULL, "Red");
    add_side(&s2, c2.id, NULL, "Blue");
    for (i = 0; i < N_UNIT_SPECS; i++) {
        new_unit(&u, &sides[unit_specs[i].side], unit_specs[i].id,
                 unit_specs[i].name);
        u.is_eliminated = unit_specs[i].is_eliminated;
        if (u.is_eliminated)
            snprintf(u.eliminated_reason, sizeof u.eliminated_reason,
                     "threshold");
        write_ok(job_unit, &u, "insert unit");
    }
    new_unit(&u, &s2, NULL, "Horse"); /* another campaign's */
    write_ok(job_unit, &u, "insert other unit");

    r = db_read_acquire(tdb);
    /* Every filter against the reference: the specs, filtered, in order. */
    for (side = -1; side < 2; side++)
        for (elim = -1; elim <= 1; elim++) {
            const char *side_id = side < 0 ? NULL : sides[side].id;
            ck_assert_int_eq(
                db_units_list(r, c.id, side_id, elim, &list, &n, NULL), ERR_OK);
            for (i = 0, k = 0, want = 0; i < N_UNIT_SPECS; i++) {
                if ((side >= 0 && unit_specs[i].side != side) ||
                    (elim >= 0 && unit_specs[i].is_eliminated != (elim == 1)))
                    continue;
                want++;
                ck_assert_msg(k < n, "side %d elim %d: %s missing", side, elim,
                              unit_specs[i].name);
                ck_assert_str_eq(list[k].id, unit_specs[i].id);
                ck_assert_str_eq(list[k].name, unit_specs[i].name);
                ck_assert_str_eq(list[k].side_name,
                                 sides[unit_specs[i].side].name);
                ck_assert_int_eq(list[k].is_eliminated,
                                 unit_specs[i].is_eliminated);
                k++;
            }
            ck_assert_msg(n == want, "side %d elim %d: %zu units, want %zu",
                          side, elim, n, want);
            free(list);
        }
    ck_assert_int_eq(db_units_count(r, c.id, &count, NULL), ERR_OK);
    ck_assert_int_eq(count, (int)N_UNIT_SPECS);
    ck_assert_int_eq(db_units_count(r, c2.id, &count, NULL), ERR_OK);
    ck_assert_int_eq(count, 1);
    db_read_release(tdb, r);
}
END_TEST

START_TEST(test_unit_name_unique_per_campaign)
{
    db_campaign c, c2;
    db_side s, s2;
    db_unit first, dup, other, second;
    err_info e;
    int count;
    sqlite3 *r;

    open_db();
    add_campaign(&c, "One");
    add_campaign(&c2, "Two");
    add_side(&s, c.id, NULL, "Blue");
    add_side(&s2, c2.id, NULL, "Blue");
    new_unit(&first, &s, NULL, "Lancers");
    write_ok(job_unit, &first, "insert unit");
    new_unit(&dup, &s, NULL, "Lancers");
    ck_assert_int_eq(write_rc(job_unit, &dup, &e), ERR_CONFLICT);
    ck_assert_int_eq(e.code, ERR_CONFLICT);
    ck_assert_ptr_nonnull(strstr(e.message, "UNIQUE"));
    new_unit(&other, &s2, NULL, "Lancers");
    write_ok(job_unit, &other, "same name, other campaign");
    /* Renaming onto a taken name is the same conflict. */
    new_unit(&second, &s, NULL, "Dragoons");
    write_ok(job_unit, &second, "insert second");
    snprintf(second.name, sizeof second.name, "Lancers");
    ck_assert_int_eq(write_rc(job_unit_update, &second, &e), ERR_CONFLICT);

    r = db_read_acquire(tdb);
    ck_assert_int_eq(db_units_count(r, c.id, &count, NULL), ERR_OK);
    ck_assert_int_eq(count, 2);
    ck_assert_int_eq(db_unit_find(r, c.id, dup.id, &dup, NULL), ERR_NOT_FOUND);
    ck_assert_int_eq(db_unit_find(r, c.id, "Dragoons", &second, NULL), ERR_OK);
    ck_assert_int_eq(db_unit_find(r, c2.id, "Lancers", &dup, NULL), ERR_OK);
    ck_assert_str_eq(dup.id, other.id);
    db_read_release(tdb, r);
}
END_TEST

/* A combat of campaign_id ("" one-off) with note and client seed. */
static void new_combat(db_combat *cb, const char *campaign_id,
                       const char *created_at, char *note, char *client_seed)
{
    memset(cb, 0, sizeof *cb);
    db_new_id("cmb", cb->id);
    snprintf(cb->campaign_id, sizeof cb->campaign_id, "%s", campaign_id);
    snprintf(cb->system, sizeof cb->system, "scrud");
    snprintf(cb->created_at, sizeof cb->created_at, "%s", created_at);
    snprintf(cb->dice_source, sizeof cb->dice_source, "seeded");
    snprintf(cb->rng, sizeof cb->rng, "v1");
    snprintf(cb->commitment, sizeof cb->commitment, "%s", HEX64);
    snprintf(cb->server_seed, sizeof cb->server_seed, "%s", HEX64_B);
    db_new_id("tok", cb->actor_token_id);
    cb->note = note;
    cb->client_seed = client_seed;
    cb->summary = "Blue 2 defeats, Red 3 defeats";
    cb->input = "{\"sides\":[{\"name\":\"Blue\"},{\"name\":\"Red\"}]}";
    cb->report = "{\"winner\":\"Blue\",\"note\":\"\xc3\xa9t\xc3\xa9\"}";
}

static void check_combat(const db_combat *got, const db_combat *want,
                         bool has_docs)
{
    ck_assert_str_eq(got->id, want->id);
    ck_assert_str_eq(got->campaign_id, want->campaign_id);
    ck_assert_str_eq(got->system, want->system);
    ck_assert_str_eq(got->created_at, want->created_at);
    ck_assert_str_eq(got->dice_source, want->dice_source);
    ck_assert_str_eq(got->rng, want->rng);
    ck_assert_str_eq(got->commitment, want->commitment);
    ck_assert_str_eq(got->server_seed, want->server_seed);
    ck_assert_str_eq(got->actor_token_id, want->actor_token_id);
    ck_assert(str_eq_or_null(got->note, want->note));
    ck_assert(str_eq_or_null(got->client_seed, want->client_seed));
    ck_assert(str_eq_or_null(got->summary, want->summary));
    if (has_docs) {
        ck_assert(str_eq_or_null(got->input, want->input));
        ck_assert(str_eq_or_null(got->report, want->report));
    } else {
        ck_assert_ptr_null(got->input);
        ck_assert_ptr_null(got->report);
    }
}

START_TEST(test_combats_and_rolls)
{
    /* Inserted out of seq order; seq 2 is a die of no unit. */
    static const db_roll rolls[] = {
        {3, "Red", "un_r", "Guns", "scrud.front", 6, 5, 4, "seeded", "v1"},
        {1, "Blue", "un_b", "Foot", "scrud.front", 6, 2, 3, "seeded", "v1"},
        {2, "", "", "", "test.weather", 20, 17, 17, "seeded", "v1"},
    };
    db_campaign c;
    db_combat c1, c0, c2, got, *list;
    combat_row row;
    db_roll bad[2], *rl;
    size_t n, i;
    err_info e;
    sqlite3 *r;

    open_db();
    add_campaign(&c, "Combats");
    new_combat(&c1, c.id, "2026-03-01T10:00:00.000Z", NULL, "my seed");
    new_combat(&c0, "", "2026-03-01T10:00:01.000Z", "one-off", NULL);
    new_combat(&c2, c.id, "2026-03-01T10:00:02.000Z", "second", NULL);
    row = (combat_row){&c1, rolls, 3};
    write_ok(job_combat, &row, "insert c1");
    row = (combat_row){&c0, NULL, 0};
    write_ok(job_combat, &row, "insert c0");
    row = (combat_row){&c2, rolls, 1};
    write_ok(job_combat, &row, "insert c2");
    /* A duplicate roll fails the combat as a whole: no combat row. */
    db_new_id("cmb", c0.id);
    bad[0] = rolls[0];
    bad[1] = rolls[0];
    row = (combat_row){&c0, bad, 2};
    ck_assert_int_eq(write_rc(job_combat, &row, &e), ERR_CONFLICT);

    r = db_read_acquire(tdb);
    ck_assert_int_eq(db_combat_get(r, c0.id, &got, NULL), ERR_NOT_FOUND);
    db_combat_cleanup(&got);
    ck_assert_int_eq(db_combat_get(r, c1.id, &got, NULL), ERR_OK);
    check_combat(&got, &c1, true);
    db_combat_cleanup(&got);
    ck_assert_int_eq(db_combats_list(r, c.id, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 2); /* the one-off is in no campaign */
    check_combat(&list[0], &c1, false);
    check_combat(&list[1], &c2, false);
    db_combats_free(list, n);

    ck_assert_int_eq(db_rolls_list(r, c1.id, &rl, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 3);
    for (i = 0; i < n; i++) {
        const db_roll *w = &rolls[i == 0 ? 1 : i == 1 ? 2 : 0];
        ck_assert_int_eq(rl[i].seq, (int)i + 1);
        ck_assert_int_eq(rl[i].seq, w->seq);
        ck_assert_str_eq(rl[i].side_name, w->side_name);
        ck_assert_str_eq(rl[i].unit_id, w->unit_id);
        ck_assert_str_eq(rl[i].unit_name, w->unit_name);
        ck_assert_str_eq(rl[i].reason, w->reason);
        ck_assert_int_eq(rl[i].faces, w->faces);
        ck_assert_int_eq(rl[i].natural, w->natural);
        ck_assert_int_eq(rl[i].modified, w->modified);
        ck_assert_str_eq(rl[i].source, w->source);
        ck_assert_str_eq(rl[i].rng, w->rng);
    }
    free(rl);
    ck_assert_int_eq(db_rolls_list(r, c2.id, &rl, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(rl[0].unit_name, "Guns");
    free(rl);
    err_clear(&e);
    ck_assert_int_eq(db_combat_get(r, "cmb_nope", &got, &e), ERR_NOT_FOUND);
    ck_assert_int_eq(e.code, ERR_NOT_FOUND);
    db_combat_cleanup(&got);
    db_read_release(tdb, r);
}
END_TEST

START_TEST(test_history_events)
{
    db_campaign c;
    db_side s;
    db_unit a, b;
    db_combat cb;
    combat_row row;
    db_event evs[4], *list;
    const db_event *want_a[3];
    size_t n, i;
    sqlite3 *r;

    open_db();
    add_campaign(&c, "History");
    add_side(&s, c.id, NULL, "Blue");
    new_unit(&a, &s, NULL, "A");
    write_ok(job_unit, &a, "insert a");
    new_unit(&b, &s, NULL, "B");
    write_ok(job_unit, &b, "insert b");
    new_combat(&cb, c.id, "2026-03-01T10:00:00.000Z", NULL, NULL);
    row = (combat_row){&cb, NULL, 0};
    write_ok(job_combat, &row, "insert combat");

    memset(evs, 0, sizeof evs);
    for (i = 0; i < 4; i++) {
        snprintf(evs[i].unit_id, sizeof evs[i].unit_id, "%s",
                 i == 1 ? b.id : a.id);
        snprintf(evs[i].campaign_id, sizeof evs[i].campaign_id, "%s", c.id);
        snprintf(evs[i].at, sizeof evs[i].at, "2026-03-01T10:00:0%zu.000Z", i);
        evs[i].after = "{\"quality\":0}";
    }
    snprintf(evs[0].kind, sizeof evs[0].kind, "created");
    snprintf(evs[1].kind, sizeof evs[1].kind, "created");
    snprintf(evs[2].kind, sizeof evs[2].kind, "combat");
    snprintf(evs[2].combat_id, sizeof evs[2].combat_id, "%s", cb.id);
    snprintf(evs[2].actor_token_id, sizeof evs[2].actor_token_id, "tok_x");
    evs[2].note = "held the ridge";
    evs[2].before = "{\"quality\":0}";
    evs[2].after = "{\"quality\":0,\"defeat_penalty\":1}";
    evs[2].result = "{\"defeats\":1}";
    snprintf(evs[3].kind, sizeof evs[3].kind, "correction");
    evs[3].note = ""; /* stored as NULL */
    evs[3].before = "{\"quality\":0,\"defeat_penalty\":1}";
    for (i = 0; i < 4; i++)
        write_ok(job_event, &evs[i], "insert event");

    r = db_read_acquire(tdb);
    ck_assert_int_eq(db_events_list(r, a.id, &list, &n, NULL), ERR_OK);
    want_a[0] = &evs[0];
    want_a[1] = &evs[2];
    want_a[2] = &evs[3];
    ck_assert_uint_eq(n, 3);
    for (i = 0; i < n; i++) {
        const db_event *w = want_a[i];
        if (i > 0)
            ck_assert_int_gt(list[i].seq, list[i - 1].seq);
        ck_assert_str_eq(list[i].unit_id, a.id);
        ck_assert_str_eq(list[i].campaign_id, c.id);
        ck_assert_str_eq(list[i].at, w->at);
        ck_assert_str_eq(list[i].kind, w->kind);
        ck_assert_str_eq(list[i].combat_id, w->combat_id);
        ck_assert_str_eq(list[i].actor_token_id, w->actor_token_id);
        ck_assert(str_eq_or_null(list[i].before, w->before));
        ck_assert(str_eq_or_null(list[i].after, w->after));
        ck_assert(str_eq_or_null(list[i].result, w->result));
    }
    ck_assert_ptr_null(list[0].note);
    ck_assert_str_eq(list[1].note, "held the ridge");
    ck_assert_ptr_null(list[2].note);
    db_events_free(list, n);
    ck_assert_int_eq(db_events_list(r, b.id, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(list[0].at, evs[1].at);
    db_events_free(list, n);
    ck_assert_int_eq(db_events_list(r, "un_nope", &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 0);
    db_events_free(list, n);
    db_read_release(tdb, r);
}
END_TEST

/* ---- the writer -------------------------------------------------------- */

/* One batch: ok, fail after insert, ok, conflict after insert, ok. */
START_TEST(test_failed_job_leaves_no_trace)
{
    static const struct {
        tracked_kind kind;
        err_code rc;
    } plan[] = {
        {TRACK_INSERT, ERR_OK}, {TRACK_INSERT_FAIL, ERR_RULE},
        {TRACK_INSERT, ERR_OK}, {TRACK_INSERT_TWICE, ERR_CONFLICT},
        {TRACK_INSERT, ERR_OK},
    };
    const int n = (int)(sizeof plan / sizeof plan[0]);
    unsigned long jobs0, commits0, jobs1, commits1;
    db_campaign got;
    sqlite3 *r;
    int i;

    open_db();
    db_writer_stats(tdb, &jobs0, &commits0);
    hold_writer();
    for (i = 0; i < n; i++)
        submit_tracked(i, plan[i].kind);
    release_writer();
    ck_assert_int_eq(wait_tracked(n), n);
    db_writer_stats(tdb, &jobs1, &commits1);
    ck_assert_uint_eq(jobs1 - jobs0, (unsigned long)n + 1);
    ck_assert_uint_eq(commits1 - commits0, 2); /* blocker, then the rest */

    r = db_read_acquire(tdb);
    for (i = 0; i < n; i++) {
        const tracked_job *t = &track.jobs[i];
        ck_assert_msg(t->rc == plan[i].rc, "job %d: %s, want %s", i,
                      err_code_name(t->rc), err_code_name(plan[i].rc));
        ck_assert_int_eq(t->n_visible, (plan[i].rc == ERR_OK) ? 1 : 0);
        ck_assert_int_eq(db_campaign_get(r, t->id, &got, NULL),
                         plan[i].rc == ERR_OK ? ERR_OK : ERR_NOT_FOUND);
    }
    db_read_release(tdb, r);
    ck_assert_int_eq(track.jobs[1].e.code, ERR_RULE);
    ck_assert_str_eq(track.jobs[1].e.field, "tracked");
    ck_assert_str_eq(track.jobs[1].e.message, "refused after its insert");
    ck_assert_int_eq(track.jobs[3].e.code, ERR_CONFLICT);
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

    open_db();
    hold_writer();
    for (i = 0; i < 3; i++)
        submit_tracked(i, plan[i]);
    release_writer();
    ck_assert_int_eq(wait_tracked(3), 3);
    for (i = 0; i < 3; i++) {
        ck_assert_msg(track.jobs[i].rc != ERR_OK, "job %d committed", i);
        ck_assert_int_eq(track.jobs[i].e.code, track.jobs[i].rc);
        ck_assert_int_eq(track.jobs[i].n_visible, 0);
    }
    add_campaign(&c, "After");
    new_side(&orphan, "cmp_000000000000000000000000", NULL, "Orphans");
    ck_assert_int_eq(write_rc(job_side, &orphan, &e), ERR_CONFLICT);
}
END_TEST

typedef struct failing_job {
    err_code rc;
    bool sets_info;
} failing_job;

static err_code job_failing(sqlite3 *c, void *arg, err_info *e)
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
    sqlite3 *r;

    open_db();
    ck_assert_int_eq(write_rc(job_failing, &f, &e), f.rc);
    ck_assert_int_eq(e.code, f.rc);
    if (f.sets_info) {
        ck_assert_str_eq(e.field, "units[3].faces");
        ck_assert_str_eq(e.message, "faces 1001 out of range");
    } else {
        ck_assert_str_eq(e.field, "");
        ck_assert_uint_gt(strlen(e.message), 0);
    }
    /* The next write is not affected, and success leaves e clear. */
    new_campaign(&c, "Next");
    ck_assert_int_eq(write_rc(job_campaign, &c, &e), ERR_OK);
    ck_assert_int_eq(e.code, ERR_OK);
    r = db_read_acquire(tdb);
    ck_assert_int_eq(db_campaign_get(r, c.id, &got, NULL), ERR_OK);
    db_read_release(tdb, r);
}
END_TEST

/* Regression (err.h: "the first error wins"): an err_info that already
 * holds an error keeps it through a failed db_write. */
START_TEST(test_db_write_keeps_first_error)
{
    failing_job f = {ERR_RANGE, true};
    err_info e;

    open_db();
    err_clear(&e);
    err_set(&e, ERR_RULE, "earlier", "an earlier error");
    ck_assert_int_eq(db_write(tdb, job_failing, &f, &e), ERR_RANGE);
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
    raw_exec(db_path, sql);
    err_clear(&e);
    err_set(&e, ERR_RULE, "earlier", "an earlier error");
    ck_assert_int_eq(db_open(db_path, 2, &d, &e), ERR_DB);
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
        new_side(&s, t->campaign_id, NULL, name);
        err_clear(&e);
        rc = db_write(t->d, job_side, &s, &e);
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
    sqlite3 *r;
    int t, j;

    open_db();
    add_campaign(&c, "Busy");
    db_writer_stats(tdb, &jobs0, &commits0);
    for (t = 0; t < GC_THREADS; t++) {
        threads[t] = (gc_thread){tdb, c.id, t, 0, ERR_OK, ""};
        ck_assert_int_eq(pthread_create(&ids[t], NULL, gc_main, &threads[t]),
                         0);
    }
    for (t = 0; t < GC_THREADS; t++)
        pthread_join(ids[t], NULL);
    db_writer_stats(tdb, &jobs1, &commits1);
    for (t = 0; t < GC_THREADS; t++)
        ck_assert_msg(threads[t].n_failed == 0, "thread %d: %d failed (%s)", t,
                      threads[t].n_failed, threads[t].first_message);
    ck_assert_uint_eq(jobs1 - jobs0, GC_THREADS * GC_WRITES);
    ck_assert_uint_gt(commits1 - commits0, 0);
    ck_assert_uint_lt(commits1 - commits0, GC_THREADS * GC_WRITES);

    /* Every row landed, each thread's in the order it wrote them. */
    r = db_read_acquire(tdb);
    ck_assert_int_eq(db_sides_list(r, c.id, &list, &n, NULL), ERR_OK);
    db_read_release(tdb, r);
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

    open_db();
    add_campaign(&c, "Watched");
    for (t = 0; t < 2; t++) {
        threads[t] = (gc_thread){tdb, c.id, t, 0, ERR_OK, ""};
        ck_assert_int_eq(pthread_create(&ids[t], NULL, gc_main, &threads[t]),
                         0);
    }
    for (k = 0; k < 2000; k++) {
        db_writer_stats(tdb, &jobs, &commits);
        ck_assert_uint_ge(jobs, last_jobs);
        ck_assert_uint_ge(commits, last_commits);
        last_jobs = jobs;
        last_commits = commits;
    }
    for (t = 0; t < 2; t++)
        pthread_join(ids[t], NULL);
    db_writer_stats(tdb, &jobs, &commits);
    ck_assert_uint_eq(jobs, 1 + 2 * GC_WRITES);
    ck_assert_uint_le(commits, jobs);
}
END_TEST

/* done runs once the row is visible to a new read transaction. */
START_TEST(test_done_after_visible)
{
    const int n = 20;
    int i;

    open_db();
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

    open_db();
    hold_writer();
    for (i = 0; i < n; i++)
        submit_tracked(i, TRACK_INSERT);
    release_writer();
    db_close(tdb);
    tdb = NULL;
    ck_assert_int_eq(track.n_done, n);
    for (i = 0; i < n; i++)
        ck_assert_int_eq(track.jobs[i].rc, ERR_OK);
    ck_assert_int_eq(raw_query_int(db_path, "SELECT count(*) FROM campaigns"),
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
    TCase *store = tcase_create("store");
    TCase *writer = tcase_create("writer");
    TCase *ids = tcase_create("ids");
    TCase *all[] = {mig, store, writer};
    size_t i;

    for (i = 0; i < sizeof all / sizeof all[0]; i++) {
        tcase_add_unchecked_fixture(all[i], suite_dir_make, suite_dir_remove);
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

    tcase_add_test(store, test_campaign_round_trip);
    tcase_add_test(store, test_sides);
    tcase_add_test(store, test_tokens);
    tcase_add_test(store, test_unit_round_trip_and_update);
    tcase_add_test(store, test_units_list);
    tcase_add_test(store, test_unit_name_unique_per_campaign);
    tcase_add_test(store, test_combats_and_rolls);
    tcase_add_test(store, test_history_events);

    tcase_add_test(writer, test_failed_job_leaves_no_trace);
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
