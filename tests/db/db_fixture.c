/*
 * db_fixture.c: the fresh database of a database test, SQL probes, the
 * writer's blocker and rows written through the writer; see db_fixture.h.
 *
 * The blocker is static, so a failed test never leaves the writer pointing
 * into a dead stack frame; teardown releases it before closing.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "db_fixture.h"
#include "scrud.h"

db *db_fixture_db;
char db_fixture_path[192];

static char suite_dir[64]; /* per TCase: holds every test folder */
static char test_dir[128]; /* per test */

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

void db_fixture_suite_make(void)
{
    snprintf(suite_dir, sizeof suite_dir, "/tmp/umpire-test-db-XXXXXX");
    ck_assert_msg(mkdtemp(suite_dir) != NULL, "mkdtemp: %s", strerror(errno));
}

void db_fixture_suite_remove(void)
{
    if (suite_dir[0] != '\0')
        remove_tree(suite_dir);
    suite_dir[0] = '\0';
}

/* Holds the writer inside a job until released (or DB_FIXTURE_WAIT_SECONDS
 * pass). */
static struct blocker {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool is_started, is_released;
} blocker;

void db_fixture_setup(void)
{
    ck_assert_msg(suite_dir[0] != '\0', "no suite folder");
    snprintf(test_dir, sizeof test_dir, "%s/t-XXXXXX", suite_dir);
    ck_assert_msg(mkdtemp(test_dir) != NULL, "mkdtemp: %s", strerror(errno));
    snprintf(db_fixture_path, sizeof db_fixture_path, "%s/umpire.db", test_dir);
    db_fixture_db = NULL;
    memset(&blocker, 0, sizeof blocker);
    pthread_mutex_init(&blocker.lock, NULL);
    pthread_cond_init(&blocker.cond, NULL);
}

void db_fixture_teardown(void)
{
    static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
    char file[256];
    size_t i;

    db_fixture_release_writer();
    db_close(db_fixture_db);
    db_fixture_db = NULL;
    for (i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        snprintf(file, sizeof file, "%s%s", db_fixture_path, suffixes[i]);
        unlink(file);
    }
    rmdir(test_dir);
    pthread_mutex_destroy(&blocker.lock);
    pthread_cond_destroy(&blocker.cond);
}

void db_fixture_open(void)
{
    err_info e;
    err_code rc;

    err_clear(&e);
    rc = db_open(db_fixture_path, 2, &db_fixture_db, &e);
    ck_assert_msg(rc == ERR_OK, "db_open(%s): %s", db_fixture_path, e.message);
    ck_assert_ptr_nonnull(db_fixture_db);
}

/* ---- SQL probes -------------------------------------------------------- */

bool db_fixture_file_exists(const char *path)
{
    struct stat sb;

    return stat(path, &sb) == 0;
}

/* The first column of the first row of sql as an int, or -1. */
int db_fixture_query_int(sqlite3 *c, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int v = -1;

    if (sqlite3_prepare_v2(c, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

void db_fixture_query_text(sqlite3 *c, const char *sql, char *buf, size_t n)
{
    sqlite3_stmt *st = NULL;

    snprintf(buf, n, "%s", "(none)");
    if (sqlite3_prepare_v2(c, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        snprintf(buf, n, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
}

/* Rows of table (a literal name) whose id is id, or -1. */
int db_fixture_count_rows(sqlite3 *c, const char *table, const char *id)
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

void db_fixture_raw_exec(const char *sql)
{
    sqlite3 *c = NULL;
    int rc;

    ck_assert_int_eq(sqlite3_open(db_fixture_path, &c), SQLITE_OK);
    rc = sqlite3_exec(c, sql, NULL, NULL, NULL);
    ck_assert_msg(rc == SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(c));
    sqlite3_close(c);
}

int db_fixture_raw_query_int(const char *sql)
{
    sqlite3 *c = NULL;
    int v;

    ck_assert_int_eq(
        sqlite3_open_v2(db_fixture_path, &c, SQLITE_OPEN_READONLY, NULL),
        SQLITE_OK);
    v = db_fixture_query_int(c, sql);
    sqlite3_close(c);
    return v;
}

void db_fixture_deadline(struct timespec *ts)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += DB_FIXTURE_WAIT_SECONDS;
}

/* ---- the writer -------------------------------------------------------- */

static err_code job_block(sqlite3 *c, void *arg, err_info *e)
{
    struct timespec limit;

    (void)c;
    (void)arg;
    (void)e;
    db_fixture_deadline(&limit);
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
 * job submitted before db_fixture_release_writer lands in the next batch. */
void db_fixture_hold_writer(void)
{
    struct timespec limit;

    ck_assert_int_eq(db_submit(db_fixture_db, job_block, done_nothing, NULL),
                     ERR_OK);
    db_fixture_deadline(&limit);
    pthread_mutex_lock(&blocker.lock);
    while (!blocker.is_started &&
           pthread_cond_timedwait(&blocker.cond, &blocker.lock, &limit) !=
               ETIMEDOUT)
        ;
    pthread_mutex_unlock(&blocker.lock);
    ck_assert_msg(blocker.is_started, "the writer never ran the blocker");
}

void db_fixture_release_writer(void)
{
    pthread_mutex_lock(&blocker.lock);
    blocker.is_released = true;
    pthread_cond_broadcast(&blocker.cond);
    pthread_mutex_unlock(&blocker.lock);
}

/* Job wrappers: one store call each, the row as arg. */
err_code db_fixture_job_campaign(sqlite3 *c, void *arg, err_info *e)
{
    return db_campaign_insert(c, arg, e);
}

err_code db_fixture_job_side(sqlite3 *c, void *arg, err_info *e)
{
    return db_side_insert(c, arg, e);
}

/* db_write of run(arg); returns its code, the details in *e. */
err_code db_fixture_write_rc(db_job_fn run, void *arg, err_info *e)
{
    err_clear(e);
    return db_write(db_fixture_db, run, arg, e);
}

void db_fixture_write_ok(db_job_fn run, void *arg, const char *what)
{
    err_info e;
    err_code rc = db_fixture_write_rc(run, arg, &e);

    ck_assert_msg(rc == ERR_OK, "%s: %s: %s", what, err_code_name(rc),
                  e.message);
}

void db_fixture_new_campaign(db_campaign *c, const char *name)
{
    memset(c, 0, sizeof *c);
    db_new_id("cmp", c->id);
    snprintf(c->name, sizeof c->name, "%s", name);
    db_now(c->created_at);
    scrud_options_default(&c->scrud);
}

void db_fixture_add_campaign(db_campaign *c, const char *name)
{
    db_fixture_new_campaign(c, name);
    db_fixture_write_ok(db_fixture_job_campaign, c, "insert campaign");
}

/* id NULL: a random one. */
void db_fixture_new_side(db_side *s, const char *campaign_id, const char *id,
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

void db_fixture_add_side(db_side *s, const char *campaign_id, const char *id,
                         const char *name)
{
    db_fixture_new_side(s, campaign_id, id, name);
    db_fixture_write_ok(db_fixture_job_side, s, "insert side");
}
