/*
 * test_wal_vfs.c: the writer's VFS (db/wal_vfs.c), which hands the
 * write-ahead log's frames to the kernel a commit at a time.
 *
 * full_vfs.h, installed as SQLite's default before the writer opens, sits
 * under it: it counts the writes that reach the log, and those that reach
 * it after SQLite published a commit (late: a commit must have none).
 *   - A commit of a few pages is one write, of many a write for each 64
 *     KiB; another connection reads each commit from the file at once.
 *   - A commit is in the file when it returns without syncs too (the
 *     write at the commit frame).
 *   - A transaction larger than the writer's page cache, spilled to the
 *     log, read back and rewritten in place, comes out whole, and again
 *     after a close and a reopen; without syncs, its files copied right
 *     after the commit (as a crash would leave them) hold it (frames
 *     rewritten in place go to the file at once).
 *   - A spill rolled back leaves nothing to be written later over
 *     another connection's commit (the write at the write lock's
 *     release), and its pages read back within it are its own (the
 *     write before a read).
 *   - A log whose database file does not promise power-safe overwrites
 *     is left to the default VFS.
 * That a refused write still fails its commit as a full disk does, and
 * changes nothing, is test_full.c's (the same shim, the same layer).
 */
#include "db_conn.h"
#include "db_fixture.h"
#include "full_vfs.h"
#include "suites.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <sqlite3.h>

/* The rows of a large fill: the numbers 1 to 400, each a row of 1,000
 * bytes. */
#define ROWS 400
#define NUMBERS                                                                \
    "WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n "          \
    "WHERE k < 400) "

static void setup(void)
{
    full_vfs_install();
    db_fixture_setup();
}

static void teardown(void)
{
    db_fixture_teardown();
    full_vfs_uninstall();
}

static void run(sqlite3 *c, const char *sql)
{
    ck_assert_msg(sqlite3_exec(c, sql, NULL, NULL, NULL) == SQLITE_OK, "%s: %s",
                  sql, sqlite3_errmsg(c));
}

/* A connection of the writer's VFS on the test database, in WAL mode
 * with these settings. */
static sqlite3 *open_writer(const char *settings)
{
    sqlite3 *w = NULL;

    ck_assert_int_eq(sqlite3_open_v2(db_fixture_path, &w,
                                     SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                                     lite_writer_vfs()),
                     SQLITE_OK);
    run(w, "PRAGMA journal_mode = WAL");
    run(w, settings);
    return w;
}

/* *arg rows of 1,000 bytes each, in a table of the test's own. */
static err_code job_fill(db_conn *c, void *arg, err_info *e)
{
    char sql[256];

    (void)e;
    run(DB_LITE(c), "CREATE TABLE IF NOT EXISTS filler (k INTEGER PRIMARY KEY, "
                    "v BLOB)");
    snprintf(sql, sizeof sql,
             "WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n "
             "WHERE k < %d) INSERT INTO filler (v) SELECT randomblob(1000) "
             "FROM n",
             *(const int *)arg);
    run(DB_LITE(c), sql);
    return ERR_OK;
}

/* The same rows, in a transaction larger than a page cache of 8 pages:
 * SQLite writes pages to the log before the commit and reads them back,
 * and the second UPDATE rewrites frames it already wrote.  *arg: the sum
 * the job read back before its commit. */
static err_code job_spill(db_conn *c, void *arg, err_info *e)
{
    (void)e;
    run(DB_LITE(c), "PRAGMA cache_size = 8");
    run(DB_LITE(c), "CREATE TABLE IF NOT EXISTS filler (k INTEGER PRIMARY KEY, "
                    "v BLOB)");
    run(DB_LITE(c),
        NUMBERS "INSERT INTO filler (k, v) SELECT k, zeroblob(1000) FROM n");
    run(DB_LITE(c), "UPDATE filler SET v = randomblob(1000)");
    run(DB_LITE(c), "UPDATE filler SET v = zeroblob(k % 7 * 100 + 300)");
    *(int *)arg = db_fixture_query_int(c, "SELECT sum(length(v)) FROM filler");
    run(DB_LITE(c), "PRAGMA cache_size = -65536"); /* the writer's own again */
    return ERR_OK;
}

/* What job_spill's rows hold: k % 7 * 100 + 300 bytes each. */
static int spill_sum(void)
{
    int k, sum = 0;

    for (k = 1; k <= ROWS; k++)
        sum += k % 7 * 100 + 300;
    return sum;
}

/* A frame of the log: its header and a page of 4 KiB. */
#define FRAME_BYTES (24 + 4096)

START_TEST(test_commit_is_one_write)
{
    int few = 20, many = ROWS;
    unsigned long before, writes, late;
    long long size, frames;

    db_fixture_open();
    late = full_vfs_n_late_log_writes();
    /* The first commit on a log also writes its header (and syncs it). */
    db_fixture_write_ok(job_fill, &few, "fill");
    /* A commit of a few pages: one write, where there were two a page. */
    before = full_vfs_n_log_writes();
    size = db_fixture_log_size(db_fixture_path);
    db_fixture_write_ok(job_fill, &few, "fill again");
    frames = (db_fixture_log_size(db_fixture_path) - size) / FRAME_BYTES;
    ck_assert_int_ge(frames, 6);
    ck_assert_uint_eq(full_vfs_n_log_writes() - before, 1);
    /* Of about a hundred pages: a write for each 64 KiB of frames (15
     * whole frames, or 16 with the next one's header). */
    before = full_vfs_n_log_writes();
    size = db_fixture_log_size(db_fixture_path);
    db_fixture_write_ok(job_fill, &many, "fill with more");
    frames = (db_fixture_log_size(db_fixture_path) - size) / FRAME_BYTES;
    writes = full_vfs_n_log_writes() - before;
    ck_assert_int_ge(frames, 100);
    ck_assert_uint_ge(writes,
                      (unsigned long)((frames * FRAME_BYTES + 65535) / 65536));
    ck_assert_uint_le(writes, (unsigned long)(frames / 15 + 1));
    ck_assert_uint_eq(full_vfs_n_late_log_writes(), late);
    /* Another connection reads each commit from the file at once. */
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT count(*) FROM filler"),
                     2 * few + many);
    ck_assert_int_eq(db_fixture_raw_query_int(
                         "SELECT count(*) FROM filler WHERE length(v) = 1000"),
                     2 * few + many);
}
END_TEST

START_TEST(test_spilled_transaction_comes_out_whole)
{
    int read_back = 0;

    db_fixture_open();
    db_fixture_write_ok(job_spill, &read_back, "spill");
    ck_assert_int_eq(read_back, spill_sum());
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT sum(length(v)) FROM "
                                              "filler"),
                     spill_sum());
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT count(*) FROM filler "
                                              "WHERE v != zeroblob(length(v))"),
                     0);
    /* And after the writer closed (its last checkpoint) and reopened. */
    ck_assert_int_eq(db_close(db_fixture_db), ERR_OK);
    db_fixture_db = NULL;
    db_fixture_open();
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT sum(length(v)) FROM "
                                              "filler"),
                     spill_sum());
    ck_assert_int_eq(
        db_fixture_raw_query_int("SELECT count(*) FROM pragma_integrity_check "
                                 "WHERE integrity_check != 'ok'"),
        0);
}
END_TEST

/* Without syncs (synchronous=OFF, which the writer never runs with), a
 * commit is in the file as soon as it returns all the same: the layer
 * writes what it holds once the commit frame is whole, not only at a
 * sync. */
START_TEST(test_commit_visible_without_sync)
{
    sqlite3 *w = open_writer("PRAGMA synchronous = OFF;"
                             "CREATE TABLE t (k INTEGER PRIMARY KEY, v);");
    int i;

    for (i = 1; i <= 3; i++) {
        unsigned long late = full_vfs_n_late_log_writes();
        run(w, "INSERT INTO t (v) VALUES (randomblob(3000)), "
               "(randomblob(3000))");
        ck_assert_uint_eq(full_vfs_n_late_log_writes(), late);
        ck_assert_int_eq(
            db_fixture_raw_query_int("SELECT count(*) FROM t WHERE "
                                     "length(v) = 3000"),
            2 * i);
    }
    sqlite3_close(w);
}
END_TEST

/* from's bytes into a new file at to. */
static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buf[65536];
    size_t n;

    ck_assert_ptr_nonnull(in);
    ck_assert_ptr_nonnull(out);
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        ck_assert_uint_eq(fwrite(buf, 1, n, out), n);
    fclose(in);
    ck_assert_int_eq(fclose(out), 0);
}

/* A transaction that spills to the log, reads its pages back, then rolls
 * back; another
 * connection commits at the same places of the log; then the writer goes
 * on.  The frames rolled back must have reached the log while it was
 * still the writer's (when it let go of the log's write lock), not over
 * the other connection's commit later. */
START_TEST(test_rolled_back_frames_left_behind_nothing)
{
    sqlite3 *w = open_writer("PRAGMA synchronous = FULL;"
                             "PRAGMA wal_autocheckpoint = 0;"
                             "CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB);"
                             "CREATE TABLE u (k INTEGER PRIMARY KEY, v BLOB);"
                             "PRAGMA wal_checkpoint(TRUNCATE);"
                             "PRAGMA cache_size = 8;");

    /* A spill that the buffer holds whole: 40 rows, over a cache of 8
     * pages, are a few frames. */
    run(w, "BEGIN; WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 "
           "FROM n WHERE k < 40) INSERT INTO t SELECT k, randomblob(1000) "
           "FROM n");
    /* Read back from the log (the pages spilled: the buffer written
     * first), then more spilled, which the buffer holds at the
     * rollback. */
    ck_assert_int_eq(db_fixture_lite_query_int(
                         w, "SELECT count(*) FROM t WHERE length(v) = 1000"),
                     40);
    run(w, "WITH RECURSIVE n(k) AS (SELECT 41 UNION ALL SELECT k + 1 FROM n "
           "WHERE k < 80) INSERT INTO t SELECT k, randomblob(1000) FROM n");
    run(w, "ROLLBACK");
    db_fixture_raw_exec(
        "WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n "
        "WHERE k < 150) INSERT INTO u SELECT k, zeroblob(1000) FROM n");
    run(w, "INSERT INTO t VALUES (1, randomblob(10))");
    sqlite3_close(w);
    ck_assert_int_eq(
        db_fixture_raw_query_int("SELECT count(*) FROM u WHERE v = "
                                 "zeroblob(1000)"),
        150);
    ck_assert_int_eq(
        db_fixture_raw_query_int("SELECT count(*) FROM pragma_integrity_check "
                                 "WHERE integrity_check != 'ok'"),
        0);
}
END_TEST

/* Without syncs, a transaction that spilled and rewrote its frames in
 * place (and their checksums at its commit): its files copied right
 * after the commit, as a crash would leave them, hold it.  The frames
 * rewritten must have gone to the file at once. */
START_TEST(test_spilled_commit_in_the_files_without_syncs)
{
    sqlite3 *w = open_writer("PRAGMA synchronous = NORMAL;"
                             "PRAGMA wal_autocheckpoint = 0;"
                             "CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB);"
                             "PRAGMA cache_size = 8;");
    char copy[224], from[256], to[256];
    unsigned long late = full_vfs_n_late_log_writes();

    run(w, "BEGIN;" NUMBERS "INSERT INTO t SELECT k, zeroblob(1000) FROM n");
    run(w, "UPDATE t SET v = randomblob(1000)");
    run(w, "UPDATE t SET v = randomblob(900)");
    run(w, "COMMIT");
    /* Every write before the commit was published, none after. */
    ck_assert_uint_eq(full_vfs_n_late_log_writes(), late);
    snprintf(copy, sizeof copy, "%s.crash", db_fixture_path);
    copy_file(db_fixture_path, copy);
    snprintf(from, sizeof from, "%s-wal", db_fixture_path);
    snprintf(to, sizeof to, "%s-wal", copy);
    copy_file(from, to);
    sqlite3_close(w);
    {
        sqlite3 *c = NULL;
        ck_assert_int_eq(sqlite3_open(copy, &c), SQLITE_OK);
        ck_assert_int_eq(db_fixture_lite_query_int(
                             c, "SELECT count(*) FROM t WHERE length(v) = 900"),
                         ROWS);
        sqlite3_close(c);
    }
    unlink(copy);
    unlink(to);
    snprintf(to, sizeof to, "%s-shm", copy);
    unlink(to);
}
END_TEST

/* A database file (_i 0), or both it and its log (_i 1), whose device
 * does not say that a write leaves the rest of its sector alone: SQLite
 * pads each commit to a sector and writes part of a frame after its
 * sync, so the layer steps aside (two writes a frame, as SQLite makes
 * them, none after a commit was published), and another connection reads
 * every commit. */
START_TEST(test_log_without_powersafe_writes_is_the_defaults)
{
    sqlite3 *w;
    unsigned long before;
    int i;

    full_vfs_set_powersafe(false, _i == 0);
    w = open_writer("PRAGMA synchronous = FULL;"
                    "CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB);");
    for (i = 1; i <= 5; i++) {
        unsigned long late = full_vfs_n_late_log_writes();
        before = full_vfs_n_log_writes();
        run(w, "INSERT INTO t (v) VALUES (randomblob(1500))");
        ck_assert_uint_ge(full_vfs_n_log_writes() - before, 2);
        ck_assert_uint_eq(full_vfs_n_late_log_writes(), late);
        ck_assert_int_eq(db_fixture_raw_query_int("SELECT count(*) FROM t "
                                                  "WHERE length(v) = 1500"),
                         i);
    }
    sqlite3_close(w);
}
END_TEST

Suite *suite_wal_vfs(void)
{
    Suite *s = suite_create("wal_vfs");
    TCase *tc = tcase_create("wal_vfs");

    tcase_add_unchecked_fixture(tc, db_fixture_suite_make,
                                db_fixture_suite_remove);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_commit_is_one_write);
    tcase_add_test(tc, test_spilled_transaction_comes_out_whole);
    tcase_add_test(tc, test_commit_visible_without_sync);
    tcase_add_test(tc, test_rolled_back_frames_left_behind_nothing);
    tcase_add_test(tc, test_spilled_commit_in_the_files_without_syncs);
    tcase_add_loop_test(tc, test_log_without_powersafe_writes_is_the_defaults,
                        0, 2);
    suite_add_tcase(s, tc);
    return s;
}
