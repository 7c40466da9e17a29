/*
 * test_full.c: the writer (db/db.c) when the disk is full, and the
 * write-ahead log kept bounded so that a small volume cannot wedge.
 *
 * A full disk is made on demand by full_vfs.h, installed as SQLite's
 * default VFS before db_open: writes fail with SQLITE_FULL, or fsyncs with
 * ENOSPC, or a quota stands for a small volume.  Every test checks what a
 * failed write left (nothing), what db_health says, and that the database
 * takes writes again once space returns, without being reopened.
 */
#include "db_fixture.h"
#include "full_vfs.h"
#include "suites.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void setup(void)
{
    full_vfs_install();
    db_fixture_setup();
}

static void teardown(void)
{
    full_vfs_fail(0);
    full_vfs_set_quota(0);
    db_fixture_teardown();
    full_vfs_uninstall();
}

/* ---- helpers ----------------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Waits up to seconds for db_health to be want. */
static bool wait_health(db_health_state want, double seconds)
{
    double until = now_s() + seconds;

    while (db_health(db_fixture_db) != want && now_s() < until)
        usleep(10 * 1000);
    return db_health(db_fixture_db) == want;
}

/* Waits up to seconds for the -wal file to be empty (idle checkpoint). */
static bool wait_wal_empty(double seconds)
{
    double until = now_s() + seconds;

    while (db_fixture_log_size(db_fixture_path) > 0 && now_s() < until)
        usleep(10 * 1000);
    return db_fixture_log_size(db_fixture_path) == 0;
}

/* Inserts a new campaign named name through the writer; its code. */
static err_code try_campaign(db_campaign *c, const char *name, err_info *e)
{
    db_fixture_new_campaign(c, name);
    return db_fixture_write_rc(db_fixture_job_campaign, c, e);
}

static int n_campaigns(void)
{
    return db_fixture_raw_query_int("SELECT count(*) FROM campaigns");
}

/* Rows of the campaign id (hex digits and _ only) in the file. */
static int has_campaign(const char *id)
{
    char sql[128];

    snprintf(sql, sizeof sql, "SELECT count(*) FROM campaigns WHERE id = '%s'",
             id);
    return db_fixture_raw_query_int(sql);
}

/* ---- a full disk ------------------------------------------------------- */

/* Writes fail with SQLITE_FULL: the job answers ERR_FULL with the problem
 * the client sees, nothing lands, the health says full; once space returns
 * the next write lands and the health is ok again. */
START_TEST(test_full_write_refused_then_lands)
{
    db_campaign a, b, c;
    unsigned long jobs0, commits0, jobs1, commits1;
    err_info e;

    db_fixture_open();
    db_fixture_add_campaign(&a, "Before");
    ck_assert_int_eq(db_health(db_fixture_db), DB_HEALTH_OK);
    db_writer_stats(db_fixture_db, &jobs0, &commits0);

    full_vfs_fail(FULL_VFS_WRITE);
    ck_assert_int_eq(try_campaign(&b, "Refused", &e), ERR_FULL);
    ck_assert_int_eq(e.code, ERR_FULL);
    ck_assert_str_eq(e.message, DB_FULL_MESSAGE);
    ck_assert_uint_gt(full_vfs_n_refused(), 0);
    ck_assert_int_eq(db_health(db_fixture_db), DB_HEALTH_FULL);
    db_writer_stats(db_fixture_db, &jobs1, &commits1);
    ck_assert_uint_eq(jobs1, jobs0 + 1);
    ck_assert_uint_eq(commits1, commits0);
    /* Still full while the disk is: the writer's retries fail too. */
    usleep(3 * DB_UPKEEP_MS * 1000);
    ck_assert_int_eq(db_health(db_fixture_db), DB_HEALTH_FULL);
    ck_assert_int_eq(n_campaigns(), 1);
    ck_assert_int_eq(has_campaign(b.id), 0);

    full_vfs_fail(0);
    ck_assert_int_eq(try_campaign(&c, "After", &e), ERR_OK);
    ck_assert_int_eq(db_health(db_fixture_db), DB_HEALTH_OK);
    ck_assert_int_eq(n_campaigns(), 2);
}
END_TEST

/* Once space returns, the health is ok again by itself: the idle writer
 * retries a write, no request needed. */
START_TEST(test_full_health_recovers_without_writes)
{
    unsigned long jobs0, commits0, jobs1, commits1;
    db_campaign a, b;
    err_info e;

    db_fixture_open();
    db_fixture_add_campaign(&a, "Before");
    full_vfs_fail(FULL_VFS_WRITE);
    ck_assert_int_eq(try_campaign(&b, "Refused", &e), ERR_FULL);
    ck_assert_int_eq(db_health(db_fixture_db), DB_HEALTH_FULL);
    db_writer_stats(db_fixture_db, &jobs0, &commits0);
    full_vfs_fail(0);
    ck_assert_msg(wait_health(DB_HEALTH_OK, 5.0),
                  "the health stayed full after space returned");
    db_writer_stats(db_fixture_db, &jobs1, &commits1);
    ck_assert_uint_eq(jobs1, jobs0);
    ck_assert_int_eq(n_campaigns(), 1);
}
END_TEST

/* An fsync failing with ENOSPC (an I/O error, not SQLITE_FULL) is a full
 * disk too. */
START_TEST(test_full_fsync_enospc)
{
    db_campaign a, b, c;
    err_info e;

    db_fixture_open();
    db_fixture_add_campaign(&a, "Before");
    full_vfs_fail(FULL_VFS_SYNC);
    ck_assert_int_eq(try_campaign(&b, "Refused", &e), ERR_FULL);
    ck_assert_str_eq(e.message, DB_FULL_MESSAGE);
    ck_assert_int_eq(db_health(db_fixture_db), DB_HEALTH_FULL);
    full_vfs_fail(0);
    ck_assert_int_eq(try_campaign(&c, "After", &e), ERR_OK);
    ck_assert_int_eq(db_health(db_fixture_db), DB_HEALTH_OK);
    ck_assert_int_eq(has_campaign(b.id), 0);
    ck_assert_int_eq(has_campaign(c.id), 1);
}
END_TEST

/* ---- the log kept bounded ---------------------------------------------- */

/* The writer's limits on its log, and an idle writer truncates it. */
static err_code job_wal_pragmas(db_conn *c, void *arg, err_info *e)
{
    int *v = arg;

    (void)e;
    v[0] = db_fixture_query_int(c, "PRAGMA journal_size_limit");
    v[1] = db_fixture_query_int(c, "PRAGMA wal_autocheckpoint");
    return ERR_OK;
}

START_TEST(test_idle_writer_truncates_log)
{
    db_ckpt_stats st;
    db_campaign a;
    int v[2];

    db_fixture_open();
    db_fixture_write_ok(job_wal_pragmas, v, "pragmas");
    ck_assert_int_eq(v[0], 16 * 1024 * 1024);
    /* SQLite's own checkpoint off: the checkpointer's, every 16 MiB of
     * log, and a new database's pages are of 1 KiB. */
    ck_assert_int_eq(v[1], 0);
    db_checkpoint_stats(db_fixture_db, &st);
    ck_assert(st.is_running);
    ck_assert_int_eq(st.start_pages, 16384);
    ck_assert_int_eq(db_fixture_raw_query_int("PRAGMA page_size"), 1024);
    db_fixture_add_campaign(&a, "Logged");
    ck_assert_msg(wait_wal_empty(5.0), "the idle writer left %lld bytes of log",
                  db_fixture_log_size(db_fixture_path));
    ck_assert_int_eq(n_campaigns(), 1);
}
END_TEST

/* A database made before with pages of 4 KiB keeps them (SQLite sets the
 * size once), and its log is checkpointed after the same 16 MiB: 4096 of
 * its pages. */
START_TEST(test_older_page_size_kept)
{
    db_ckpt_stats st;
    db_campaign a;

    db_fixture_raw_exec("PRAGMA page_size = 4096;"
                        "CREATE TABLE made_before (a);"
                        "DROP TABLE made_before;");
    ck_assert_int_eq(db_fixture_raw_query_int("PRAGMA page_size"), 4096);
    db_fixture_open();
    db_checkpoint_stats(db_fixture_db, &st);
    ck_assert_int_eq(st.start_pages, 4096);
    db_fixture_add_campaign(&a, "Kept");
    ck_assert_int_eq(n_campaigns(), 1);
    ck_assert_int_eq(db_fixture_raw_query_int("PRAGMA page_size"), 4096);
}
END_TEST

/*
 * A small volume fills up: writes fail.  Some space is freed: the writer
 * gets the log's space back (a checkpoint that truncates it) and from then
 * on checkpoints often, so the log starts over in its own space instead of
 * refilling what was freed: many more writes land than the freed space
 * could hold as log, and the log never grows past a few pages.
 */
START_TEST(test_small_volume_does_not_wedge)
{
    const int n_after = 300;
    long long quota, max_wal = 0;
    db_campaign c;
    err_info e;
    int i, n_landed = 0, v[2];

    db_fixture_open();
    db_fixture_add_campaign(&c, "First");
    ck_assert(wait_wal_empty(5.0));
    quota = full_vfs_used() + 96 * 1024;
    full_vfs_set_quota(quota);
    for (i = 0; i < 1000; i++) {
        char name[32];
        snprintf(name, sizeof name, "Fill %d", i);
        err_clear(&e);
        if (try_campaign(&c, name, &e) != ERR_OK)
            break;
        n_landed++;
    }
    ck_assert_msg(i < 1000, "the volume never filled up");
    ck_assert_int_eq(e.code, ERR_FULL);
    ck_assert_int_eq(db_health(db_fixture_db), DB_HEALTH_FULL);
    ck_assert_int_le(full_vfs_used(), quota);

    /* Space is freed: 1 MiB more. */
    full_vfs_set_quota(quota + 1024 * 1024);
    ck_assert_msg(wait_health(DB_HEALTH_OK, 5.0), "no recovery");
    for (i = 0; i < n_after; i++) {
        char name[32];
        snprintf(name, sizeof name, "After %d", i);
        err_clear(&e);
        ck_assert_msg(try_campaign(&c, name, &e) == ERR_OK,
                      "write %d after space was freed: %s", i, e.message);
        if (db_fixture_log_size(db_fixture_path) > max_wal)
            max_wal = db_fixture_log_size(db_fixture_path);
    }
    ck_assert_msg(max_wal <= 256 * 1024, "the log grew to %lld bytes", max_wal);
    /* Still checkpointing every 64 KiB of pages, on the writer. */
    db_fixture_write_ok(job_wal_pragmas, v, "pragmas");
    ck_assert_int_eq(v[1], 64);
    ck_assert_int_eq(n_campaigns(), 1 + n_landed + n_after);
    ck_assert(wait_wal_empty(5.0));
}
END_TEST

/* ---- closing ----------------------------------------------------------- */

/* db_close says whether its final checkpoint succeeded, return and report
 * alike; a failed one loses nothing: the log is replayed on the next
 * open. */
START_TEST(test_close_reports_failed_checkpoint)
{
    db_campaign c;
    err_info report, e;
    int tries;

    db_fixture_open();
    /* Something in the log when the disk fills (an idle checkpoint may
     * have emptied it first: then write again). */
    for (tries = 0; tries < 5; tries++) {
        char name[32];
        snprintf(name, sizeof name, "Logged %d", tries);
        ck_assert_int_eq(try_campaign(&c, name, &e), ERR_OK);
        full_vfs_fail(FULL_VFS_WRITE);
        if (db_fixture_log_size(db_fixture_path) > 0)
            break;
        full_vfs_fail(0);
    }
    ck_assert_int_lt(tries, 5);
    db_close_report(db_fixture_db, &report);
    ck_assert_int_eq(db_close(db_fixture_db), ERR_FULL);
    db_fixture_db = NULL;
    ck_assert_int_eq(report.code, ERR_FULL);
    ck_assert_ptr_nonnull(strstr(report.message, "-wal"));
    ck_assert_int_gt(db_fixture_log_size(db_fixture_path), 0);

    full_vfs_fail(0);
    db_fixture_open();
    ck_assert_int_eq(has_campaign(c.id), 1);
    db_close_report(db_fixture_db, &report);
    ck_assert_int_eq(db_close(db_fixture_db), ERR_OK);
    db_fixture_db = NULL;
    ck_assert_int_eq(report.code, ERR_OK);
    ck_assert_int_eq(db_fixture_log_size(db_fixture_path), 0);
}
END_TEST

/* ---- refusals write nothing -------------------------------------------- */

/* A job that wrote, then was refused, alone in its batch: the batch is
 * rolled back, not committed, so the log does not grow at all. */
static err_code job_insert_then_refuse(db_conn *c, void *arg, err_info *e)
{
    err_code rc = db_fixture_job_campaign(c, arg, e);

    return rc ? rc : err_set(e, ERR_RULE, NULL, "refused after its insert");
}

START_TEST(test_refused_batch_writes_nothing)
{
    unsigned long jobs0, commits0, jobs1, commits1;
    long long wal0;
    db_campaign a, b;
    err_info e;

    db_fixture_open();
    db_fixture_add_campaign(&a, "Before");
    wal0 = db_fixture_log_size(db_fixture_path);
    ck_assert_int_gt(wal0, 0);
    db_writer_stats(db_fixture_db, &jobs0, &commits0);
    db_fixture_new_campaign(&b, "Refused");
    ck_assert_int_eq(db_fixture_write_rc(job_insert_then_refuse, &b, &e),
                     ERR_RULE);
    db_writer_stats(db_fixture_db, &jobs1, &commits1);
    ck_assert_uint_eq(commits1, commits0);
    ck_assert_int_le(db_fixture_log_size(db_fixture_path), wal0);
    ck_assert_int_eq(has_campaign(b.id), 0);
    ck_assert_int_eq(db_health(db_fixture_db), DB_HEALTH_OK);
}
END_TEST

Suite *suite_full(void)
{
    Suite *s = suite_create("full");
    TCase *tc = tcase_create("full");

    tcase_add_unchecked_fixture(tc, db_fixture_suite_make,
                                db_fixture_suite_remove);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_full_write_refused_then_lands);
    tcase_add_test(tc, test_full_health_recovers_without_writes);
    tcase_add_test(tc, test_full_fsync_enospc);
    tcase_add_test(tc, test_idle_writer_truncates_log);
    tcase_add_test(tc, test_older_page_size_kept);
    tcase_add_test(tc, test_small_volume_does_not_wedge);
    tcase_add_test(tc, test_close_reports_failed_checkpoint);
    tcase_add_test(tc, test_refused_batch_writes_nothing);
    suite_add_tcase(s, tc);
    return s;
}
