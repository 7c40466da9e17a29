#define _GNU_SOURCE /* pthread_timedjoin_np */
/*
 * test_edges_stop.c: the suite "edges", stopping with database writes in
 * flight (see test_edges.c).  A write is held back by taking SQLite's
 * write lock from the test, so that clients can leave while their writes
 * wait: http_stop then never returned (a request whose client left before
 * its answer was never counted done).  Now it returns, within its bound,
 * and every combat lands whole or not at all.
 */
#include "edges_rig.h"
#include "suites.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const small_combat =
    "{\"sides\":[{\"name\":\"a\",\"units\":[{\"name\":\"a1\"},{\"name\":"
    "\"a2\",\"quality\":1}]},{\"name\":\"b\",\"units\":[{\"name\":\"b1\"}]}]}";

/* Takes the database's write lock: the server's writer waits for it. */
static sqlite3 *hold_writer(const test_server *ts)
{
    sqlite3 *conn;

    ck_assert_int_eq(sqlite3_open(ts->db_path, &conn), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(conn, "BEGIN IMMEDIATE", NULL, NULL, NULL),
                     SQLITE_OK);
    return conn;
}

static void release_writer(sqlite3 *conn)
{
    ck_assert_int_eq(sqlite3_exec(conn, "ROLLBACK", NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(conn);
}

/* A client that has sent a combat on a kept-alive connection. */
static int send_combat(const test_server *ts)
{
    int fd = edges_connect(ts, "127.0.0.1");
    char req[1024];

    ck_assert_int_ge(fd, 0);
    snprintf(req, sizeof req,
             "POST /v1/combats/scrud HTTP/1.1\r\nHost: x\r\n"
             "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
             strlen(small_combat), small_combat);
    ck_assert(edges_send_str(fd, req));
    return fd;
}

static int count(sqlite3 *conn, const char *sql, const char *arg)
{
    sqlite3_stmt *st;
    int n = -1;

    ck_assert_int_eq(sqlite3_prepare_v2(conn, sql, -1, &st, NULL), SQLITE_OK);
    if (arg)
        sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return n;
}

/* The database after a clean stop: checkpointed, id (when given) there,
 * and every combat whole (a small combat rolls 3 dice); the number of
 * combats. */
static int check_database(const char *db_path, const char *id)
{
    char wal[160];
    struct stat sb;
    sqlite3 *conn;
    int n;

    snprintf(wal, sizeof wal, "%s-wal", db_path);
    ck_assert(stat(wal, &sb) != 0 || sb.st_size == 0);
    ck_assert_int_eq(
        sqlite3_open_v2(db_path, &conn, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    if (id)
        ck_assert_int_eq(
            count(conn, "SELECT count(*) FROM combats WHERE id = ?", id), 1);
    ck_assert_int_eq(count(conn,
                           "SELECT count(*) FROM combats c WHERE CASE WHEN "
                           "c.rolls IS NULL THEN (SELECT count(*) FROM rolls "
                           "r WHERE r.combat_id = c.id) <> 3 ELSE "
                           "length(c.rolls) = 0 END",
                           NULL),
                     0);
    n = count(conn, "SELECT count(*) FROM combats", NULL);
    sqlite3_close(conn);
    return n;
}

typedef struct stopper {
    http_server *srv;
    bool is_clean;
    double took;
} stopper;

static void *stop_main(void *arg)
{
    stopper *s = arg;
    double start = edges_now();

    s->is_clean = http_stop(s->srv);
    s->took = edges_now() - start;
    return NULL;
}

/* Regression: a client that left while its write waited made SIGTERM
 * hang for ever. */
START_TEST(test_stop_after_client_left_during_write)
{
    enum { N = 4 };
    http_config cfg;
    test_server *ts;
    sqlite3 *lock;
    struct linger hard = {1, 0};
    struct timespec until;
    stopper s;
    pthread_t th;

    TS_SQLITE_ONLY(); /* holds SQLite's write lock from the test */
    json_t *first;
    char id[64];
    int fd[N], i, n;

    edges_config(&cfg);
    cfg.stop_timeout = 3;
    ts = edges_start(&cfg);
    first =
        ts_call(ts, 201, "POST", "/v1/combats/scrud", NULL, "%s", small_combat);
    snprintf(id, sizeof id, "%s",
             json_string_value(json_object_get(first, "id")));
    json_decref(first);
    lock = hold_writer(ts);
    for (i = 0; i < N; i++)
        fd[i] = send_combat(ts);
    ck_assert(edges_wait_stats(ts, 2.0, edges_n_pending_is, N));
    /* The clients leave, half of them with a reset. */
    for (i = 0; i < N; i++) {
        if (i % 2)
            setsockopt(fd[i], SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
        close(fd[i]);
    }
    usleep(100 * 1000);
    release_writer(lock);
    usleep(200 * 1000);
    s.srv = ts->srv;
    pthread_create(&th, NULL, stop_main, &s);
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 5;
    if (pthread_timedjoin_np(th, NULL, &until) != 0)
        ck_abort_msg("http_stop still waits after 5 s");
    ts->srv = NULL;
    ck_assert_msg(s.is_clean && s.took < 2.5, "clean %d after %.2f s",
                  s.is_clean, s.took);
    n = check_database(ts->db_path, id);
    ck_assert_int_ge(n, 1);
    ck_assert_int_le(n, 1 + N);
    ts_stop(ts);
}
END_TEST

/* The wait is bounded: a write that does not finish lets http_stop
 * return (false) after stop_timeout; once it has finished, the answer
 * still goes out and a second http_stop closes everything. */
START_TEST(test_stop_bounded_while_write_runs)
{
    http_config cfg;
    test_server *ts;
    sqlite3 *lock;
    double start;
    http_resp r;
    char id[64];
    int fd;

    TS_SQLITE_ONLY(); /* holds SQLite's write lock from the test */
    edges_config(&cfg);
    cfg.stop_timeout = 1;
    ts = edges_start(&cfg);
    lock = hold_writer(ts);
    fd = send_combat(ts);
    ck_assert(edges_wait_stats(ts, 2.0, edges_n_pending_is, 1));
    start = edges_now();
    ck_assert(!http_stop(ts->srv));
    ck_assert_double_ge(edges_now() - start, 0.9);
    ck_assert_double_lt(edges_now() - start, 1.8);
    release_writer(lock);
    ck_assert_int_eq(edges_read_one(fd, 3.0, &r), 0);
    ck_assert_int_eq(r.status, 201);
    snprintf(id, sizeof id, "%s",
             json_string_value(json_object_get(r.json, "id")));
    http_resp_cleanup(&r);
    close(fd);
    ck_assert(edges_wait_stats(ts, 2.0, edges_n_pending_is, 0));
    ck_assert(http_stop(ts->srv));
    ts->srv = NULL;
    ck_assert_int_eq(check_database(ts->db_path, id), 1);
    ts_stop(ts);
}
END_TEST

void edges_add_stop_tests(TCase *tc)
{
    tcase_add_test(tc, test_stop_after_client_left_during_write);
    tcase_add_test(tc, test_stop_bounded_while_write_runs);
}
