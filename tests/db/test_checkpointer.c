/*
 * test_checkpointer.c: the log's checkpoints on a thread of their own
 * (db/checkpointer.c).
 *
 * How many times the log started over from its beginning is read from
 * its header (the checkpoint sequence); the thread's and the writer's
 * checkpoints from db_checkpoint_stats.
 */
#include "db_fixture.h"
#include "db_int.h"
#include "full_vfs.h"
#include "suites.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Bytes each commit adds: some 60 pages of 1 KiB. */
#define ROW_BYTES 60000

static err_code job_table(db_conn *c, void *arg, err_info *e)
{
    (void)arg;
    (void)e;
    ck_assert_int_eq(sqlite3_exec(DB_LITE(c),
                                  "CREATE TABLE filler (n INTEGER, b BLOB)",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    return ERR_OK;
}

static err_code job_row(db_conn *c, void *arg, err_info *e)
{
    char sql[96];

    (void)e;
    snprintf(sql, sizeof sql, "INSERT INTO filler VALUES (%d, randomblob(%d))",
             *(int *)arg, ROW_BYTES);
    ck_assert_int_eq(sqlite3_exec(DB_LITE(c), sql, NULL, NULL, NULL),
                     SQLITE_OK);
    return ERR_OK;
}

/* The log's checkpoint sequence (its header's bytes 12 to 15): how many
 * times it has started over; -1 without a log. */
static long restarts(void)
{
    char path[256];
    unsigned char h[16];
    int fd;
    long n = -1;

    snprintf(path, sizeof path, "%s-wal", db_fixture_path);
    if ((fd = open(path, O_RDONLY)) < 0)
        return -1;
    if (pread(fd, h, sizeof h, 0) == (ssize_t)sizeof h)
        n = (long)h[12] << 24 | (long)h[13] << 16 | (long)h[14] << 8 | h[15];
    close(fd);
    return n;
}

/* Whether a thread of this process is named name. */
static bool has_thread(const char *name)
{
    DIR *dir = opendir("/proc/self/task");
    struct dirent *de;
    bool found = false;

    ck_assert_ptr_nonnull(dir);
    while (!found && (de = readdir(dir)) != NULL) {
        char path[300], comm[64] = "";
        FILE *f;
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", de->d_name);
        if ((f = fopen(path, "r")) == NULL)
            continue;
        if (fgets(comm, sizeof comm, f) != NULL)
            comm[strcspn(comm, "\n")] = '\0';
        fclose(f);
        found = strcmp(comm, name) == 0;
    }
    closedir(dir);
    return found;
}

/* Whether a thread is named name within 5 s (want), or none is (!want):
 * a thread names itself as it starts. */
static bool thread_named(const char *name, bool want)
{
    int i;

    for (i = 0; i < 500 && has_thread(name) != want; i++)
        usleep(10 * 1000);
    return has_thread(name) == want;
}

/* What writing some rows saw: the log's largest size, and the most times
 * it had started over, read after each commit (the idle writer's
 * checkpoint may truncate the log between two, when the file has no
 * header to read). */
typedef struct seen {
    long long max_log;
    long max_restarts;
} seen;

static void note(seen *w)
{
    long long size = db_fixture_log_size(db_fixture_path);
    long n = restarts();

    if (size > w->max_log)
        w->max_log = size;
    if (n > w->max_restarts)
        w->max_restarts = n;
}

/* Writes rows first .. first + n - 1 into *w. */
static void write_rows(int first, int n, seen *w)
{
    int i;

    for (i = first; i < first + n; i++) {
        db_fixture_write_ok(job_row, &i, "row");
        note(w);
    }
}

static err_code job_small_row(db_conn *c, void *arg, err_info *e)
{
    (void)arg;
    (void)e;
    ck_assert_int_eq(sqlite3_exec(DB_LITE(c),
                                  "INSERT INTO filler VALUES (-1, x'00')", NULL,
                                  NULL, NULL),
                     SQLITE_OK);
    return ERR_OK;
}

/* The most the log may hold: twice the 16 MiB that starts a pass, and a
 * commit, frames of 1 KiB and their headers of 24 bytes. */
static long long log_bound(const db_ckpt_stats *st)
{
    return (long long)(2 * st->start_pages + 2 * ROW_BYTES / 1024) *
               (1024 + 24) +
           32;
}

/*
 * A pass, then the writer's tail: rows of 60 KB take the log past the
 * 16 MiB that starts a pass; then commits of a row of a byte each, small
 * enough that the writer adds little while the pass runs (and never
 * idles, which would checkpoint the whole log itself), until the writer
 * has checkpointed the tail; the next commit starts the log over.  Then
 * 1,100 more rows of 60 KB (four times what starts a pass): the log never
 * grows past its bound, starts over again and again, and every row is
 * there, before and after a reopen.
 */
START_TEST(test_checkpoints_off_the_writer)
{
    db_ckpt_stats st;
    seen w = {0, -1};
    long before;
    int i, n_big, n_small;

    db_fixture_open();
    ck_assert(thread_named("umpire-ckpt", true));
    db_checkpoint_stats(db_fixture_db, &st);
    ck_assert(st.is_running);
    ck_assert_int_eq(st.start_pages, 16384);
    db_fixture_write_ok(job_table, NULL, "table");
    /* Up to the commit that takes the log past 16 MiB, which asks for the
     * first pass: none can have ended and been seen by a commit yet. */
    for (n_big = 0; w.max_log < (long long)st.start_pages * (1024 + 24);
         n_big++)
        write_rows(n_big, 1, &w);
    db_checkpoint_stats(db_fixture_db, &st);
    ck_assert_uint_eq(st.tails + st.waits, 0);
    before = w.max_restarts;
    for (n_small = 0; n_small < 100000 && st.tails == 0; n_small++) {
        db_fixture_write_ok(job_small_row, NULL, "small row");
        note(&w);
        db_checkpoint_stats(db_fixture_db, &st);
    }
    ck_assert_uint_ge(st.passes, 1);
    ck_assert_uint_eq(st.tails, 1);
    ck_assert_uint_eq(st.waits, 0);
    ck_assert_int_eq(w.max_restarts, before);
    db_fixture_write_ok(job_small_row, NULL, "small row");
    note(&w);
    ck_assert_int_eq(w.max_restarts, before + 1);

    write_rows(n_big, 1100, &w);
    db_checkpoint_stats(db_fixture_db, &st);
    ck_assert_uint_ge(st.passes, 3);
    ck_assert_uint_ge(st.tails + st.waits, 3);
    ck_assert_int_ge(w.max_restarts, before + 3);
    ck_assert_msg(w.max_log <= log_bound(&st), "the log grew to %lld bytes",
                  w.max_log);
    ck_assert_int_eq(
        db_fixture_raw_query_int("SELECT count(DISTINCT n) FROM filler "
                                 "WHERE n >= 0"),
        n_big + 1100);
    ck_assert_int_eq(db_close(db_fixture_db), ERR_OK);
    db_fixture_db = NULL;
    ck_assert(thread_named("umpire-ckpt", false));
    db_fixture_open();
    i = db_fixture_raw_query_int("SELECT count(*) FROM filler WHERE n >= 0");
    ck_assert_int_eq(i, n_big + 1100);
    ck_assert_int_eq(
        db_fixture_raw_query_int("SELECT count(*) FROM filler WHERE n < 0"),
        n_small + 1);
}
END_TEST

/*
 * A reader holding an old snapshot holds every checkpoint back: past the
 * bound the writer waits for the pass and checkpoints itself, in vain, and
 * the log grows, as it would under SQLite's own checkpoint; the reader
 * still reads its snapshot.  Once it lets go, the next commit catches up
 * and the log starts over.
 */
START_TEST(test_old_snapshot_holds_checkpoints_back)
{
    db_ckpt_stats st;
    seen w = {0, -1};
    sqlite3 *r = NULL;
    long before;

    db_fixture_open();
    db_fixture_write_ok(job_table, NULL, "table");
    write_rows(0, 10, &w);
    ck_assert_int_eq(
        sqlite3_open_v2(db_fixture_path, &r, SQLITE_OPEN_READONLY, NULL),
        SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(r, "BEGIN; SELECT count(*) FROM filler;",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    before = w.max_restarts;
    write_rows(10, 700, &w); /* 42 MB: past the bound */
    db_checkpoint_stats(db_fixture_db, &st);
    ck_assert_uint_ge(st.waits, 1);
    ck_assert_int_eq(w.max_restarts, before);
    ck_assert_int_gt(w.max_log, log_bound(&st));
    ck_assert_int_eq(
        db_fixture_lite_query_int(r, "SELECT count(*) FROM filler"), 10);
    ck_assert_int_eq(sqlite3_exec(r, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(r);
    write_rows(710, 2, &w);
    ck_assert_int_gt(w.max_restarts, before);
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT count(*) FROM filler"),
                     712);
}
END_TEST

/* Closes the test's database (the test VFS then taken off), which must
 * then hold n rows of filler. */
static void close_with_rows(int n)
{
    ck_assert_int_eq(db_close(db_fixture_db), ERR_OK);
    db_fixture_db = NULL;
    full_vfs_uninstall();
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT count(*) FROM filler"),
                     n);
}

/*
 * A disk slower than the writes: each page a checkpoint writes into the
 * database takes 100 us, so a pass of 16 MiB takes some 1.6 s, while the
 * writer adds 60 KB a commit.  Past the bound the writer waits for the
 * pass under way (it holds the checkpoint's lock: a checkpoint of the
 * writer's own then would do nothing) and checkpoints itself: the log
 * never grows past its bound, and starts over.
 */
START_TEST(test_slow_disk_writer_waits)
{
    db_ckpt_stats st;
    seen w = {0, -1};

    full_vfs_install();
    db_fixture_open();
    db_fixture_write_ok(job_table, NULL, "table");
    full_vfs_slow_db_writes(100);
    write_rows(0, 800, &w); /* 48 MB: past the bound */
    db_checkpoint_stats(db_fixture_db, &st);
    full_vfs_slow_db_writes(0);
    ck_assert_uint_ge(st.waits, 1);
    ck_assert_int_ge(w.max_restarts, 1);
    ck_assert_msg(w.max_log <= log_bound(&st), "the log grew to %lld bytes",
                  w.max_log);
    close_with_rows(800);
}
END_TEST

static double seconds_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The while after a full disk, shortened from ten minutes. */
#define LOW_SPACE_SECONDS 4.0

/*
 * A full disk: for a while after it, SQLite's own checkpoint runs on the
 * writer every 64 KiB of log, so that the log starts over in the space
 * it has, and the thread is left out; once that while is over, the next
 * write hands the checkpoints back to the thread, and the log grows to
 * 16 MiB again before a pass.
 */
START_TEST(test_low_space_then_the_thread_again)
{
    db_ckpt_stats st0, st;
    seen low = {0, -1}, after = {0, -1};
    double since;
    err_info e;
    int i = 0, n = 0;

    full_vfs_install();
    db_fixture_open();
    db_fixture_db->low_space_seconds = LOW_SPACE_SECONDS;
    db_fixture_write_ok(job_table, NULL, "table");
    full_vfs_fail(FULL_VFS_WRITE);
    ck_assert_int_eq(db_fixture_write_rc(job_row, &i, &e), ERR_FULL);
    since = seconds_now();
    full_vfs_fail(0);
    db_checkpoint_stats(db_fixture_db, &st0);
    /* The while: the log stays within some pages of 64 KiB, and no pass. */
    while (n < 60 && seconds_now() - since < LOW_SPACE_SECONDS - 1.0)
        write_rows(++n, 1, &low);
    ck_assert_msg(n >= 20, "only %d rows in %.0f s", n, LOW_SPACE_SECONDS - 1);
    ck_assert_msg(low.max_log < 512 * 1024, "the log grew to %lld bytes",
                  low.max_log);
    db_checkpoint_stats(db_fixture_db, &st);
    ck_assert_uint_eq(st.passes, st0.passes);
    /* Then the thread's again, from the next write on. */
    while (seconds_now() - since < LOW_SPACE_SECONDS + 0.2)
        usleep(50 * 1000);
    write_rows(n + 1, 320, &after); /* 19 MB */
    for (i = 0; i < 500; i++) {
        db_checkpoint_stats(db_fixture_db, &st);
        if (st.passes > st0.passes)
            break;
        usleep(10 * 1000);
    }
    ck_assert_uint_gt(st.passes, st0.passes);
    ck_assert_msg(after.max_log > 8 * 1024 * 1024,
                  "the log stayed at %lld bytes", after.max_log);
    ck_assert_msg(after.max_log <= log_bound(&st), "the log grew to %lld bytes",
                  after.max_log);
    close_with_rows(n + 320);
}
END_TEST

Suite *suite_checkpointer(void)
{
    Suite *s = suite_create("checkpointer");
    TCase *tc = tcase_create("checkpointer");

    tcase_set_timeout(tc, 120);
    tcase_add_unchecked_fixture(tc, db_fixture_suite_make,
                                db_fixture_suite_remove);
    tcase_add_checked_fixture(tc, db_fixture_setup, db_fixture_teardown);
    tcase_add_test(tc, test_checkpoints_off_the_writer);
    tcase_add_test(tc, test_old_snapshot_holds_checkpoints_back);
    tcase_add_test(tc, test_slow_disk_writer_waits);
    tcase_add_test(tc, test_low_space_then_the_thread_again);
    suite_add_tcase(s, tc);
    return s;
}
