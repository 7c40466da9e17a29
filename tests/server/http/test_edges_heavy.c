/*
 * test_edges_heavy.c: long reads and odds run off the request workers
 * (http_heavy.h).  With one request worker, a long read used to hold it:
 * /health waited for the odds.  Now it answers at once while odds run,
 * odds that find their queue full are refused with 503 busy, and a long
 * read is served while the odds' threads and queue are full.
 */
#include "edges_rig.h"
#include "http_stream.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <check.h>

static const char get_health[] = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n";

/* Slow odds (edges_send_slow_odds): a fraction of a second of work. */
enum { SLOW_SAMPLES = 500000 };

/* How long one odds request takes alone, in seconds. */
static double time_one(test_server *ts)
{
    http_resp r;
    double t0 = edges_now();
    int fd = edges_send_slow_odds(ts, SLOW_SAMPLES);

    ck_assert_int_ge(fd, 0);
    memset(&r, 0, sizeof r);
    ck_assert_int_eq(edges_read_one(fd, 20, &r), 0);
    ck_assert_int_eq(r.status, 200);
    http_resp_cleanup(&r);
    close(fd);
    return edges_now() - t0;
}

/* Sends req (a whole request) on a connection of its own and reads its
 * answer, asserted to be status; seconds from t0 until it came. */
static double answered_after(test_server *ts, const char *req, int status,
                             double t0)
{
    http_resp r;
    double after;
    int fd = edges_connect(ts, "127.0.0.1");

    ck_assert_int_ge(fd, 0);
    ck_assert(edges_send_str(fd, req));
    memset(&r, 0, sizeof r);
    ck_assert_int_eq(edges_read_one(fd, 20, &r), 0);
    after = edges_now() - t0;
    ck_assert_int_eq(r.status, status);
    http_resp_cleanup(&r);
    close(fd);
    return after;
}

START_TEST(test_health_answers_while_long_reads_run)
{
    http_config cfg;
    test_server *ts;
    http_resp r;
    int fds[2], i;
    double alone, t0, health;

    edges_config(&cfg);
    cfg.threads = 1; /* one request worker: a long read on it stalls all */
    cfg.odds_threads = 1;
    ts = edges_start(&cfg);
    alone = time_one(ts);
    t0 = edges_now();
    for (i = 0; i < 2; i++)
        ck_assert_int_ge(fds[i] = edges_send_slow_odds(ts, SLOW_SAMPLES), 0);
    usleep(50 * 1000); /* both read and queued */
    health = answered_after(ts, get_health, 200, t0);
    /* /health came back well before the first long read could end. */
    ck_assert_msg(health < alone / 2,
                  "/health took %.3f s while odds (%.3f s alone) ran", health,
                  alone);
    for (i = 0; i < 2; i++) {
        memset(&r, 0, sizeof r);
        ck_assert_int_eq(edges_read_one(fds[i], 20, &r), 0);
        ck_assert_int_eq(r.status, 200);
        http_resp_cleanup(&r);
        close(fds[i]);
    }
    ts_stop(ts);
}
END_TEST

START_TEST(test_long_read_refused_busy_when_queue_full)
{
    http_config cfg;
    test_server *ts;
    http_resp r;
    int fds[3], i, n_ok = 0, n_busy = 0;
    char retry[32];

    edges_config(&cfg);
    cfg.odds_threads = 1;
    cfg.odds_queue = 1; /* one running, one waiting: the third is refused */
    ts = edges_start(&cfg);
    for (i = 0; i < 3; i++) {
        ck_assert_int_ge(fds[i] = edges_send_slow_odds(ts, SLOW_SAMPLES), 0);
        usleep(20 * 1000);
    }
    for (i = 0; i < 3; i++) {
        memset(&r, 0, sizeof r);
        ck_assert_int_eq(edges_read_one(fds[i], 20, &r), 0);
        if (r.status == 200)
            n_ok++;
        else {
            ck_assert_int_eq(r.status, 503);
            ck_assert_ptr_nonnull(r.json);
            ck_assert_str_eq(json_string_value(json_object_get(r.json, "code")),
                             "busy");
            ck_assert_int_eq(ts_header(&r, "Retry-After", retry, sizeof retry),
                             1);
            ck_assert_str_eq(retry, "1");
            n_busy++;
        }
        http_resp_cleanup(&r);
        close(fds[i]);
    }
    ck_assert_int_eq(n_ok, 2);
    ck_assert_int_eq(n_busy, 1);
    /* Nothing is left waiting: the next long read is served. */
    ck_assert_int_ge(fds[0] = edges_send_slow_odds(ts, SLOW_SAMPLES), 0);
    memset(&r, 0, sizeof r);
    ck_assert_int_eq(edges_read_one(fds[0], 20, &r), 0);
    ck_assert_int_eq(r.status, 200);
    http_resp_cleanup(&r);
    close(fds[0]);
    ts_stop(ts);
}
END_TEST

/* The odds' threads and queue full (one running, one waiting, one more
 * refused): a long read, on threads of its own, is still served at once
 * (a shared link: its secret unknown, 404 from its thread). */
START_TEST(test_long_read_served_while_odds_full)
{
    static const char get_shared[] =
        "GET /v1/shared/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA "
        "HTTP/1.1\r\n"
        "Host: x\r\n\r\n";
    http_config cfg;
    test_server *ts;
    http_resp r;
    int fds[3], i, n_busy = 0;
    double alone, shared;

    edges_config(&cfg);
    cfg.read_threads = 1;
    cfg.read_queue = 1;
    cfg.odds_threads = 1;
    cfg.odds_queue = 1;
    ts = edges_start(&cfg);
    alone = time_one(ts);
    for (i = 0; i < 3; i++) {
        ck_assert_int_ge(fds[i] = edges_send_slow_odds(ts, SLOW_SAMPLES), 0);
        usleep(20 * 1000);
    }
    shared = answered_after(ts, get_shared, 404, edges_now());
    ck_assert_msg(shared < alone / 2,
                  "the long read took %.3f s while odds (%.3f s alone) ran",
                  shared, alone);
    for (i = 0; i < 3; i++) {
        memset(&r, 0, sizeof r);
        ck_assert_int_eq(edges_read_one(fds[i], 20, &r), 0);
        n_busy += r.status == 503;
        http_resp_cleanup(&r);
        close(fds[i]);
    }
    ck_assert_int_eq(n_busy, 1); /* the odds were full indeed */
    ts_stop(ts);
}
END_TEST

/* A socket to ts that asks for path with token and reads nothing, its
 * receive buffer the smallest: the stream behind it fills. */
static int stalled_get(test_server *ts, const char *path, const char *token)
{
    struct sockaddr_in a;
    char req[512];
    int fd = socket(AF_INET, SOCK_STREAM, 0), small = 4096;

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small), 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)ts->port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    snprintf(req, sizeof req,
             "GET %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n\r\n",
             path, token);
    ck_assert(edges_send_str(fd, req));
    return fd;
}

/* Reads fd 256 bytes at a time, a tenth of a second apart (about 2.5 KB
 * a second), until the export pump has cut n streams or timeout seconds
 * pass; whether it did. */
static bool trickle_until_cut(test_server *ts, int fd, unsigned long n,
                              double timeout)
{
    double t0 = edges_now();
    char buf[256];

    while (http_streams_cut(http_export_streams(ts->srv)).stalled < n) {
        if (edges_now() - t0 > timeout)
            return false;
        (void)recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        usleep(100 * 1000);
    }
    return true;
}

/* A campaign of 1,500 combats of 8 rolls on ts: an export of some 6.6 MB,
 * more than the stream (256 KB) and the sockets' buffers hold (about
 * 2.8 MB here). */
static void big_campaign(test_server *ts, test_campaign *c)
{
    static const char *const sides[] = {"Red", "Blue", NULL};
    static const char *const names[] = {"R1", "R2", "R3", "R4",
                                        "B1", "B2", "B3", "B4"};
    char path[160];
    int i;

    ts_campaign(ts, c,
                "{\"attrition\":false,\"defeats_per_elimination\":0,"
                "\"eliminate_below\":-2}",
                sides);
    for (i = 0; i < 8; i++)
        ts_unit(ts, c, names[i], i < 4 ? "Red" : "Blue", 0, 6, NULL);
    snprintf(path, sizeof path, "/v1/campaigns/%s/combats/scrud", c->id);
    for (i = 0; i < 1500; i++)
        json_decref(ts_call(
            ts, 201, "POST", path, c->umpire,
            "{\"sides\":[{\"side\":\"Red\",\"units\":[{\"unit\":\"R1\"},"
            "{\"unit\":\"R2\"},{\"unit\":\"R3\"},{\"unit\":\"R4\"}]},"
            "{\"side\":\"Blue\",\"units\":[{\"unit\":\"B1\"},{\"unit\":"
            "\"B2\"},{\"unit\":\"B3\"},{\"unit\":\"B4\"}]}]}"));
}

/* Two exports whose clients read too slowly, the kernel's buffers and
 * the stream's full: one that reads nothing, one that reads about 2.5 KB
 * a second (under 64 KiB a window; so slowly that the server's socket
 * seldom has room enough to take a block).  Both cut after the stall
 * window (1 s here), their places given back to the token (2 at once),
 * which exports again whole. */
START_TEST(test_stalled_export_cut)
{
    http_config cfg;
    test_server *ts;
    test_campaign c;
    char path[160];
    http_resp r;
    edges_end end;
    int fds[2], i;
    json_t *doc;

    edges_config(&cfg);
    cfg.stream_stall_timeout = 1;
    ts = edges_start(&cfg);
    big_campaign(ts, &c);
    snprintf(path, sizeof path, "/v1/campaigns/%s/ledger", c.id);
    for (i = 0; i < 2; i++)
        fds[i] = stalled_get(ts, path, c.umpire);
    usleep(300 * 1000);

    /* Both hold the token's places. */
    memset(&r, 0, sizeof r);
    ck_assert_int_eq(ts_request(ts, "GET", path, c.umpire, NULL, &r), 0);
    ck_assert_int_eq(r.status, 429);
    http_resp_cleanup(&r);
    /* The second trickles (about 2.5 KB a second) until both are cut. */
    ck_assert_msg(trickle_until_cut(ts, fds[1], 2, 10),
                  "the stalled exports were not cut");
    /* Their connections were shut: what the kernel held, then the end,
     * short of the whole document (some 6.6 MB). */
    for (i = 0; i < 2; i++) {
        edges_read_to_close(fds[i], 10, &end);
        ck_assert(end.is_closed);
        ck_assert_uint_lt(end.n_bytes, 6000000);
        close(fds[i]);
    }
    /* Their places are the token's again: a whole export. */
    memset(&r, 0, sizeof r);
    ck_assert_int_eq(ts_request(ts, "GET", path, c.umpire, NULL, &r), 0);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(doc = r.json);
    ck_assert_uint_eq(json_array_size(json_object_get(doc, "entries")), 12000);
    http_resp_cleanup(&r);
    ts_stop(ts);
}
END_TEST

/* An export whose client reads steadily (16 KB at most every 50 ms, above
 * the stall floor, the whole document far away) is cut at the export time
 * limit (2 s here), counted as such and not as a stall; its connection
 * ends short of the document, and its place is given back. */
START_TEST(test_long_export_cut)
{
    http_streams *exports;
    http_config cfg;
    test_server *ts;
    test_campaign c;
    char path[160], buf[16384];
    double t0, cut_after;
    size_t n_bytes = 0;
    edges_end end;
    ssize_t k;
    int fd;

    edges_config(&cfg);
    cfg.export_time_limit = 2;
    ts = edges_start(&cfg);
    exports = http_export_streams(ts->srv);
    big_campaign(ts, &c);
    snprintf(path, sizeof path, "/v1/campaigns/%s/ledger", c.id);
    t0 = edges_now();
    fd = stalled_get(ts, path, c.umpire);
    while (http_streams_cut(exports).too_long == 0 && edges_now() - t0 < 10) {
        if ((k = recv(fd, buf, sizeof buf, MSG_DONTWAIT)) > 0)
            n_bytes += (size_t)k;
        usleep(50 * 1000);
    }
    cut_after = edges_now() - t0;
    ck_assert_msg(http_streams_cut(exports).too_long == 1,
                  "the export was not cut (%zu bytes read in %.1f s)", n_bytes,
                  cut_after);
    ck_assert_msg(cut_after >= 1.9, "cut after %.2f s, before its limit",
                  cut_after);
    ck_assert_uint_gt(n_bytes, 64 * 1024); /* its client did read */
    ck_assert_uint_eq(http_streams_cut(exports).stalled, 0);
    /* What the kernel held, then the end, short of the whole document
     * (some 6.6 MB). */
    edges_read_to_close(fd, 10, &end);
    close(fd);
    ck_assert(end.is_closed);
    ck_assert_uint_lt(n_bytes + end.n_bytes, 6000000);
    /* libmicrohttpd frees the connection it was shut under soon after. */
    t0 = edges_now();
    while (http_streams_count(exports) > 0 && edges_now() - t0 < 5)
        usleep(10 * 1000);
    ck_assert_int_eq(http_streams_count(exports), 0);
    ts_stop(ts);
}
END_TEST

void edges_add_heavy_tests(TCase *tc)
{
    tcase_add_test(tc, test_stalled_export_cut);
    tcase_add_test(tc, test_long_export_cut);
    tcase_add_test(tc, test_long_read_served_while_odds_full);
    tcase_add_test(tc, test_health_answers_while_long_reads_run);
    tcase_add_test(tc, test_long_read_refused_busy_when_queue_full);
}
