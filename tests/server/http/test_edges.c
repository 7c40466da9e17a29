#define _GNU_SOURCE /* strcasestr */
/*
 * test_edges.c: the suite "edges": the HTTP layer against clients that do
 * not behave, each test named after the hole it closes.
 *
 * Here, slow and idle clients (server/http/http_conn.c: the request
 * deadline that trickling cannot extend, the per-address limit, idle
 * kept-alive connections given up near the connection limit) and bodies
 * refused from their headers (http.c: 413 before any of an announced body
 * is read, a chunked body cut at the limit, a body that never comes cut at
 * the deadline).  test_edges_text.c has text that is not UTF-8, and
 * test_edges_stop.c stopping with writes in flight.
 *
 * Deadlines are 1 s and limits small, so that a test fails within a few
 * seconds when what it checks is broken; each also checks that what was
 * already answered stays as it was.
 */
#include "edges_rig.h"
#include "suites.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *const small_combat =
    "{\"sides\":[{\"name\":\"a\",\"units\":[{\"name\":\"a1\"},{\"name\":"
    "\"a2\",\"quality\":1}]},{\"name\":\"b\",\"units\":[{\"name\":\"b1\"}]}]}";

static const char *const get_health = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n";

/* A one-off combat, answered 201; its id into id (64 bytes). */
static void post_combat(test_server *ts, char *id)
{
    json_t *j =
        ts_call(ts, 201, "POST", "/v1/combats/scrud", NULL, "%s", small_combat);

    snprintf(id, 64, "%s", json_string_value(json_object_get(j, "id")));
    json_decref(j);
}

static void assert_combat_readable(test_server *ts, const char *id)
{
    char path[128];
    json_t *j;

    snprintf(path, sizeof path, "/v1/combats/%s", id);
    j = ts_call(ts, 200, "GET", path, NULL, NULL);
    ck_assert_int_eq(json_array_size(json_object_get(j, "rolls")), 3);
    json_decref(j);
}

static unsigned long writer_jobs(test_server *ts)
{
    unsigned long n_jobs, n_commits;

    db_writer_stats(http_db(ts->srv), &n_jobs, &n_commits);
    return n_jobs;
}

/* The status of the response in what edges_read_to_close read, and its
 * problem code (into code, n bytes; "" if none). */
static int end_status(const edges_end *end, char *code, size_t n)
{
    const char *body = strstr(end->head, "\r\n\r\n");
    json_t *j = body ? json_loads(body + 4, 0, NULL) : NULL;
    int status = 0;

    sscanf(end->head, "HTTP/1.1 %d", &status);
    snprintf(code, n, "%s",
             j ? json_string_value(json_object_get(j, "code")) : "");
    json_decref(j);
    return status;
}

/* ---- slow clients ---- */

/* A client that sends a request line, then one header byte every 100 ms
 * for 3 s or until the server closes the connection. */
typedef struct trickler {
    test_server *ts;
    double connected; /* when it connected */
    double closed;    /* when it saw the server close, or 0 */
    double last_sent; /* when it last sent a byte */
} trickler;

static bool is_closed_now(int fd)
{
    char c;
    ssize_t n = recv(fd, &c, 1, MSG_DONTWAIT);

    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

static void *trickle(void *arg)
{
    trickler *t = arg;
    int fd = edges_connect(t->ts, "127.0.0.1");

    t->connected = edges_now();
    if (fd < 0 || !edges_send_str(fd, "GET /health HTTP/1.1\r\nX-Slow: "))
        goto out;
    while (edges_now() - t->connected < 3.0) {
        usleep(100 * 1000);
        if (is_closed_now(fd) || !edges_send_str(fd, "a")) {
            t->closed = edges_now();
            break;
        }
        t->last_sent = edges_now();
    }
out:
    if (fd >= 0)
        close(fd);
    return NULL;
}

/* GET /health on a new connection, retried until answered or until end;
 * the status, or 0. */
static int get_health_until(test_server *ts, double end)
{
    while (edges_now() < end) {
        int fd = edges_connect(ts, "127.0.0.1");
        http_resp r;
        int status = 0;
        if (fd >= 0 && edges_send_str(fd, get_health) &&
            edges_read_one(fd, end - edges_now(), &r) == 0) {
            status = r.status;
            http_resp_cleanup(&r);
        }
        if (fd >= 0)
            close(fd);
        if (status)
            return status;
        usleep(20 * 1000);
    }
    return 0;
}

/* Regression: clients trickling header bytes held every connection (each
 * byte restarted libmicrohttpd's timeout). */
START_TEST(test_trickling_clients_cut_at_deadline_others_answered)
{
    enum { N = 6 };
    http_config cfg;
    test_server *ts;
    trickler t[N];
    pthread_t th[N];
    http_stats st;
    double start;
    char id[64];
    int i;

    edges_config(&cfg);
    cfg.connection_limit = N;
    cfg.per_ip_connection_limit = 0;
    cfg.request_timeout = 1;
    ts = edges_start(&cfg);
    post_combat(ts, id);
    memset(t, 0, sizeof t);
    for (i = 0; i < N; i++) {
        t[i].ts = ts;
        pthread_create(&th[i], NULL, trickle, &t[i]);
    }
    ck_assert(edges_wait_stats(ts, 1.0, edges_n_connections_is, N));
    /* Every slot is taken; within the deadline (and a tick of the reaper)
     * they are freed and a normal client is answered. */
    start = edges_now();
    ck_assert_int_eq(get_health_until(ts, start + 2.5), 200);
    ck_assert_msg(edges_now() - start < 1.8, "answered after %.2f s",
                  edges_now() - start);
    for (i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
        ck_assert_msg(t[i].closed > 0, "trickler %d was never cut", i);
        ck_assert_double_ge(t[i].closed - t[i].connected, 0.9);
        ck_assert_double_lt(t[i].closed - t[i].connected, 1.8);
        /* It kept sending until it was cut. */
        ck_assert_double_lt(t[i].closed - t[i].last_sent, 0.35);
    }
    http_stats_read(ts->srv, &st);
    ck_assert_uint_ge(st.n_cut, N);
    assert_combat_readable(ts, id);
    ts_stop(ts);
}
END_TEST

/* A port another server holds: the start fails naming the port and why,
 * and the first server is not disturbed. */
START_TEST(test_port_in_use_refused_with_reason)
{
    http_config cfg, cfg2;
    test_server *ts;
    http_server *srv2 = NULL;
    err_info e;

    edges_config(&cfg);
    ts = edges_start(&cfg);
    edges_config(&cfg2);
    cfg2.listen = "127.0.0.1";
    cfg2.port = ts->port;
    cfg2.db_path = ts->db_path;
    err_clear(&e);
    ck_assert_int_ne(http_start(&cfg2, &srv2, &e), ERR_OK);
    ck_assert_ptr_null(srv2);
    ck_assert_str_eq(e.field, "port");
    ck_assert_msg(strstr(e.message, "in use") != NULL, "%s", e.message);
    ck_assert_int_eq(get_health_until(ts, edges_now() + 1.0), 200);
    ts_stop(ts);
}
END_TEST

/* Far more connections than the limit at once: the server holds the
 * limit's worth (the rest wait in the kernel's queue), for longer than
 * the accepting thread waits before it writes off a connection never
 * taken up, and answers once they go.  A burst past the limit used to
 * hang a worker for good (http_listen.h). */
START_TEST(test_burst_past_limit_held_at_limit)
{
    enum { N = 100, LIMIT = 16 };
    http_config cfg;
    test_server *ts;
    http_stats st;
    int fds[N], i, most = 0;
    double end;

    edges_config(&cfg);
    cfg.connection_limit = LIMIT;
    cfg.per_ip_connection_limit = 0;
    cfg.idle_close_percent = 100;
    ts = edges_start(&cfg);
    for (i = 0; i < N; i++)
        ck_assert_int_ge(fds[i] = edges_connect(ts, "127.0.0.1"), 0);
    end = edges_now() + 2.5;
    while (edges_now() < end) {
        http_stats_read(ts->srv, &st);
        if (st.n_connections > most)
            most = st.n_connections;
        usleep(50 * 1000);
    }
    ck_assert_int_eq(most, LIMIT);
    for (i = 0; i < N; i++)
        close(fds[i]);
    ck_assert_int_eq(get_health_until(ts, edges_now() + 5.0), 200);
    ts_stop(ts);
}
END_TEST

/* Regression: no limit per address: one client could take every slot. */
START_TEST(test_per_ip_limit_refuses_one_more)
{
    http_config cfg;
    test_server *ts;
    int held[3], fd, i;
    edges_end end;
    http_resp r;

    edges_config(&cfg);
    cfg.connection_limit = 20;
    cfg.per_ip_connection_limit = 3;
    ts = edges_start(&cfg);
    for (i = 0; i < 3; i++)
        ck_assert_int_ge(held[i] = edges_connect(ts, "127.0.0.1"), 0);
    ck_assert(edges_wait_stats(ts, 1.0, edges_n_connections_is, 3));
    /* The fourth from the same address is closed unanswered. */
    ck_assert_int_ge(fd = edges_connect(ts, "127.0.0.1"), 0);
    edges_send_str(fd, get_health);
    edges_read_to_close(fd, 1.0, &end);
    ck_assert(end.is_closed);
    ck_assert_uint_eq(end.n_bytes, 0);
    close(fd);
    /* Another address is served (where the system lets us use one). */
    if ((fd = edges_connect(ts, "127.0.0.2")) >= 0) {
        ck_assert(edges_send_str(fd, get_health));
        ck_assert_int_eq(edges_read_one(fd, 1.0, &r), 0);
        ck_assert_int_eq(r.status, 200);
        http_resp_cleanup(&r);
        close(fd);
    }
    /* The three held connections work. */
    for (i = 0; i < 3; i++) {
        ck_assert(edges_send_str(held[i], get_health));
        ck_assert_int_eq(edges_read_one(held[i], 1.0, &r), 0);
        ck_assert_int_eq(r.status, 200);
        http_resp_cleanup(&r);
    }
    /* Only open connections count. */
    close(held[0]);
    ck_assert(edges_wait_stats(ts, 1.0, edges_n_connections_is, 2));
    ck_assert_int_eq(get_health_until(ts, edges_now() + 1.0), 200);
    close(held[1]);
    close(held[2]);
    ts_stop(ts);
}
END_TEST

/* Regression: idle kept-alive connections held every slot. */
START_TEST(test_idle_keepalive_given_up_near_limit)
{
    enum { LIMIT = 10, N_IDLE = LIMIT - 1 };
    http_config cfg;
    test_server *ts;
    int idle[N_IDLE], partial, fd, i;
    http_stats st;
    edges_end end;
    http_resp r;

    edges_config(&cfg);
    cfg.threads = 1;
    cfg.connection_limit = LIMIT;
    cfg.per_ip_connection_limit = 0;
    cfg.idle_close_percent = 90; /* at 9 open, down to 8 */
    ts = edges_start(&cfg);
    /* The oldest connection is in the middle of its request: not idle. */
    ck_assert_int_ge(partial = edges_connect(ts, "127.0.0.1"), 0);
    ck_assert(edges_send_str(partial, "GET /health HTTP/1.1\r\nHost: x\r\n"));
    for (i = 0; i < N_IDLE; i++) {
        ck_assert_int_ge(idle[i] = edges_connect(ts, "127.0.0.1"), 0);
        ck_assert(edges_send_str(idle[i], get_health));
        ck_assert_int_eq(edges_read_one(idle[i], 1.0, &r), 0);
        ck_assert_int_eq(r.status, 200);
        http_resp_cleanup(&r);
    }
    /* Every slot is taken; a new client is answered at once. */
    ck_assert_int_ge(fd = edges_connect(ts, "127.0.0.1"), 0);
    ck_assert(edges_send_str(fd, get_health));
    ck_assert_int_eq(edges_read_one(fd, 1.0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    http_resp_cleanup(&r);
    close(fd);
    /* The longest idle went, three of them: at 9 open, down to 8. */
    for (i = 0; i < 3; i++) {
        edges_read_to_close(idle[i], 0.5, &end);
        ck_assert_msg(end.is_closed, "idle connection %d still open", i);
        ck_assert_uint_eq(end.n_bytes, 0);
    }
    for (i = 3; i < N_IDLE; i++) {
        ck_assert(edges_send_str(idle[i], get_health));
        ck_assert_int_eq(edges_read_one(idle[i], 1.0, &r), 0);
        ck_assert_int_eq(r.status, 200);
        http_resp_cleanup(&r);
    }
    /* The request in progress was left alone. */
    ck_assert(edges_send_str(partial, "\r\n"));
    ck_assert_int_eq(edges_read_one(partial, 1.0, &r), 0);
    ck_assert_int_eq(r.status, 200);
    http_resp_cleanup(&r);
    http_stats_read(ts->srv, &st);
    ck_assert_uint_eq(st.n_given_up, 3);
    for (i = 0; i < N_IDLE; i++)
        close(idle[i]);
    close(partial);
    ts_stop(ts);
}
END_TEST

/* ---- bodies refused from their headers ---- */

static test_server *start_small_bodies(int request_timeout)
{
    http_config cfg;

    edges_config(&cfg);
    cfg.body_limit = 1024;
    cfg.request_timeout = request_timeout;
    return edges_start(&cfg);
}

/* Sends raw, then expects a 413 body_too_large and the connection closed
 * within 0.5 s, while the client sends nothing more. */
static void assert_413_at_once(test_server *ts, const char *raw, size_t len)
{
    int fd = edges_connect(ts, "127.0.0.1");
    edges_end end;
    char code[64];

    ck_assert_int_ge(fd, 0);
    ck_assert(edges_send(fd, raw, len));
    edges_read_to_close(fd, 1.0, &end);
    close(fd);
    ck_assert_msg(end.is_closed && end.after < 0.5,
                  "closed %d after %.2f s: %s", end.is_closed, end.after,
                  end.head);
    ck_assert_int_eq(end_status(&end, code, sizeof code), 413);
    ck_assert_str_eq(code, "body_too_large");
    ck_assert_ptr_nonnull(strcasestr(end.head, "application/problem+json"));
    ck_assert_ptr_null(strstr(end.head, "100 Continue"));
}

/* Regression: a Content-Length over the limit was read whole (or waited
 * for) before the 413. */
START_TEST(test_content_length_over_limit_refused_before_body)
{
    test_server *ts = start_small_bodies(5);
    static const char *const heads[] = {
        "POST /v1/combats/scrud HTTP/1.1\r\nHost: x\r\n"
        "Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n",
        "POST /v1/combats/scrud HTTP/1.1\r\nHost: x\r\n"
        "Content-Type: application/json\r\nContent-Length: 1000000\r\n"
        "Expect: 100-continue\r\n\r\n",
        "PATCH /v1/campaigns/c/units/u HTTP/1.1\r\nHost: x\r\n"
        "Content-Length: 1025\r\n\r\n"};
    size_t i;

    for (i = 0; i < sizeof heads / sizeof heads[0]; i++)
        assert_413_at_once(ts, heads[i], strlen(heads[i]));
    ck_assert_uint_eq(writer_jobs(ts), 0);
    ts_stop(ts);
}
END_TEST

/* A body within the limit still gets 100 Continue, then its answer. */
START_TEST(test_expect_100_continue_within_limit_still_served)
{
    test_server *ts = start_small_bodies(5);
    int fd = edges_connect(ts, "127.0.0.1");
    char head[512], cont[32] = "";
    http_resp r;
    ssize_t n;

    ck_assert_int_ge(fd, 0);
    snprintf(head, sizeof head,
             "POST /v1/combats/scrud HTTP/1.1\r\nHost: x\r\n"
             "Content-Type: application/json\r\nContent-Length: %zu\r\n"
             "Expect: 100-continue\r\n\r\n",
             strlen(small_combat));
    ck_assert(edges_send_str(fd, head));
    n = recv(fd, cont, 25, MSG_WAITALL);
    ck_assert_int_eq(n, 25);
    ck_assert_str_eq(cont, "HTTP/1.1 100 Continue\r\n\r\n");
    ck_assert(edges_send_str(fd, small_combat));
    ck_assert_int_eq(edges_read_one(fd, 2.0, &r), 0);
    ck_assert_int_eq(r.status, 201);
    http_resp_cleanup(&r);
    close(fd);
    ck_assert_uint_eq(writer_jobs(ts), 1);
    ts_stop(ts);
}
END_TEST

/* Regression: a chunked body over the limit was read to its end (or
 * waited for) before the 413. */
START_TEST(test_chunked_body_cut_at_limit)
{
    test_server *ts = start_small_bodies(5);
    char raw[4096], ok[1024];
    http_resp r;
    int n;

    /* Two chunks of 800 bytes, and no last chunk: the client is still
     * sending as far as the server knows. */
    n = snprintf(raw, sizeof raw,
                 "POST /v1/combats/scrud HTTP/1.1\r\nHost: x\r\n"
                 "Content-Type: application/json\r\n"
                 "Transfer-Encoding: chunked\r\n\r\n"
                 "320\r\n%0800d\r\n320\r\n%0800d\r\n",
                 0, 0);
    assert_413_at_once(ts, raw, (size_t)n);
    ck_assert_uint_eq(writer_jobs(ts), 0);
    /* A chunked body within the limit is served as before. */
    n = snprintf(ok, sizeof ok,
                 "POST /v1/combats/scrud HTTP/1.1\r\nHost: x\r\n"
                 "Content-Type: application/json\r\nConnection: close\r\n"
                 "Transfer-Encoding: chunked\r\n\r\n%zx\r\n%s\r\n0\r\n\r\n",
                 strlen(small_combat), small_combat);
    ck_assert_int_eq(ts_raw(ts, ok, (size_t)n, &r), 0);
    ck_assert_int_eq(r.status, 201);
    http_resp_cleanup(&r);
    ts_stop(ts);
}
END_TEST

/* Regression: a body shorter than its Content-Length held the connection
 * as long as the client kept it open. */
START_TEST(test_lying_content_length_cut_at_deadline)
{
    test_server *ts = start_small_bodies(1);
    int fd = edges_connect(ts, "127.0.0.1");
    const char *raw = "POST /v1/combats/scrud HTTP/1.1\r\nHost: x\r\n"
                      "Content-Type: application/json\r\n"
                      "Content-Length: 100\r\n\r\n{}";
    http_stats st;
    edges_end end;

    ck_assert_int_ge(fd, 0);
    ck_assert(edges_send_str(fd, raw));
    edges_read_to_close(fd, 2.5, &end);
    close(fd);
    ck_assert(end.is_closed);
    ck_assert_uint_eq(end.n_bytes, 0);
    ck_assert_double_ge(end.after, 0.9);
    ck_assert_double_lt(end.after, 1.8);
    http_stats_read(ts->srv, &st);
    ck_assert_uint_eq(st.n_cut, 1);
    ck_assert_uint_eq(writer_jobs(ts), 0);
    ts_stop(ts);
}
END_TEST

Suite *suite_edges(void)
{
    Suite *s = suite_create("edges");
    TCase *slow = tcase_create("slow_clients");
    TCase *bodies = tcase_create("bodies");
    TCase *text = tcase_create("text");
    TCase *stop = tcase_create("stop");
    TCase *heavy = tcase_create("long_reads");

    tcase_set_timeout(slow, 20);
    tcase_add_test(slow,
                   test_trickling_clients_cut_at_deadline_others_answered);
    tcase_add_test(slow, test_per_ip_limit_refuses_one_more);
    tcase_add_test(slow, test_port_in_use_refused_with_reason);
    tcase_add_test(slow, test_burst_past_limit_held_at_limit);
    tcase_add_test(slow, test_idle_keepalive_given_up_near_limit);
    suite_add_tcase(s, slow);
    tcase_set_timeout(bodies, 20);
    tcase_add_test(bodies, test_content_length_over_limit_refused_before_body);
    tcase_add_test(bodies, test_expect_100_continue_within_limit_still_served);
    tcase_add_test(bodies, test_chunked_body_cut_at_limit);
    tcase_add_test(bodies, test_lying_content_length_cut_at_deadline);
    suite_add_tcase(s, bodies);
    tcase_set_timeout(text, 20);
    edges_add_text_tests(text);
    suite_add_tcase(s, text);
    tcase_set_timeout(stop, 20);
    edges_add_stop_tests(stop);
    suite_add_tcase(s, stop);
    tcase_set_timeout(heavy, 60);
    edges_add_heavy_tests(heavy);
    suite_add_tcase(s, heavy);
    return s;
}
