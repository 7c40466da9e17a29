/*
 * test_http.c: server/http/http.c and router.c through real HTTP: the
 * service routes, router errors (404, 405 with Allow), body limits (413),
 * media types (415), malformed JSON, keep-alive, many concurrent durable
 * combats sharing commits, and a graceful stop with requests in flight.
 */
#define _GNU_SOURCE
#include "harness.h"
#include "suites.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const small_combat =
    "{\"sides\":[{\"name\":\"a\",\"units\":[{\"name\":\"a1\"},{\"name\":"
    "\"a2\",\"quality\":1}]},{\"name\":\"b\",\"units\":[{\"name\":\"b1\"}]}]}";

static void assert_problem(const http_resp *r, int status, const char *code)
{
    ck_assert_int_eq(r->status, status);
    ck_assert_str_eq(r->content_type, "application/problem+json");
    ck_assert_ptr_nonnull(r->json);
    ck_assert_int_eq(json_integer_value(json_object_get(r->json, "status")),
                     status);
    ck_assert_str_eq(json_string_value(json_object_get(r->json, "code")), code);
    ck_assert_ptr_nonnull(json_string_value(json_object_get(r->json, "title")));
    ck_assert_ptr_nonnull(
        json_string_value(json_object_get(r->json, "detail")));
    ck_assert(strncmp(json_string_value(json_object_get(r->json, "type")),
                      "urn:umpire:problem:", 19) == 0);
}

START_TEST(test_health_and_systems)
{
    test_server *ts = ts_start();
    json_t *h = ts_call(ts, 200, "GET", "/health", NULL, NULL);
    json_t *s = ts_call(ts, 200, "GET", "/v1/systems", NULL, NULL);
    json_t *first = json_array_get(json_object_get(s, "items"), 0);

    ck_assert_str_eq(json_string_value(json_object_get(h, "status")), "ok");
    ck_assert_int_ge(json_integer_value(json_object_get(h, "schema_version")),
                     1);
    ck_assert_str_eq(json_string_value(json_object_get(first, "name")),
                     "scrud");
    json_decref(h);
    json_decref(s);
    ts_stop(ts);
}
END_TEST

START_TEST(test_unknown_route_is_404)
{
    test_server *ts = ts_start();
    static const char *const paths[] = {
        "/console",     "/v2/campaigns",
        "/v1/campaign", "/v1/campaigns/x/units/y/z",
        "/v1/combats/", "/health/more"};
    size_t i;

    for (i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        http_resp r;
        ck_assert_int_eq(ts_request(ts, "GET", paths[i], NULL, NULL, &r), 0);
        assert_problem(&r, 404, "no_such_route");
        http_resp_cleanup(&r);
    }
    ts_stop(ts);
}
END_TEST

START_TEST(test_wrong_method_is_405_with_allow)
{
    test_server *ts = ts_start();
    http_resp r;

    ck_assert_int_eq(ts_request(ts, "DELETE", "/v1/campaigns", NULL, NULL, &r),
                     0);
    assert_problem(&r, 405, "method_not_allowed");
    ck_assert_str_eq(r.allow, "POST, OPTIONS");
    http_resp_cleanup(&r);
    ck_assert_int_eq(
        ts_request(ts, "PUT", "/v1/campaigns/c/units/u", NULL, "{}", &r), 0);
    assert_problem(&r, 405, "method_not_allowed");
    ck_assert_str_eq(r.allow, "GET, HEAD, PATCH, OPTIONS");
    http_resp_cleanup(&r);
    ts_stop(ts);
}
END_TEST

START_TEST(test_body_over_limit_is_413_and_changes_nothing)
{
    test_server *ts = ts_start_with(2048);
    char *big = malloc(8192);
    http_resp r;
    json_t *list;
    test_campaign c;
    static const char *const sides[] = {"a", "b", NULL};
    char path[128];

    ck_assert_ptr_nonnull(big);
    ts_campaign(ts, &c, NULL, sides);
    /* A valid unit body padded past the limit with a long note. */
    snprintf(big, 8192, "{\"name\":\"u\",\"side\":\"a\",\"note\":\"%0*d\"}",
             4000, 0);
    snprintf(path, sizeof path, "/v1/campaigns/%s/units", c.id);
    ck_assert_int_eq(ts_request(ts, "POST", path, c.umpire, big, &r), 0);
    assert_problem(&r, 413, "body_too_large");
    ck_assert_ptr_nonnull(
        strstr(json_string_value(json_object_get(r.json, "detail")), "2048"));
    http_resp_cleanup(&r);
    list = ts_call(ts, 200, "GET", path, c.umpire, NULL);
    ck_assert_int_eq(json_array_size(json_object_get(list, "items")), 0);
    json_decref(list);
    free(big);
    ts_stop(ts);
}
END_TEST

START_TEST(test_chunked_body_over_limit_is_413)
{
    test_server *ts = ts_start_with(1024);
    char req[4096];
    int n = snprintf(req, sizeof req,
                     "POST /v1/combats/scrud HTTP/1.1\r\nHost: x\r\n"
                     "Content-Type: application/json\r\n"
                     "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                     "800\r\n%0*d\r\n0\r\n\r\n",
                     2048, 0);
    http_resp r;

    ck_assert_int_eq(ts_raw(ts, req, (size_t)n, &r), 0);
    assert_problem(&r, 413, "body_too_large");
    http_resp_cleanup(&r);
    ts_stop(ts);
}
END_TEST

/* Headers fit the connection's memory (HTTP_CONNECTION_MEMORY, 16 KiB)
 * up to about 14 KiB, as docs/operations.md says: 12 KiB of them are
 * served, 20 KiB refused with 431. */
START_TEST(test_headers_fit_the_connection_memory)
{
    test_server *ts = ts_start();
    size_t sizes[2] = {12 * 1024, 20 * 1024}, i;
    char *req = malloc(32 * 1024), *filler = malloc(32 * 1024);
    http_resp r;

    ck_assert_ptr_nonnull(req);
    ck_assert_ptr_nonnull(filler);
    for (i = 0; i < 2; i++) {
        int n;
        memset(filler, 'a', sizes[i]);
        filler[sizes[i]] = '\0';
        n = snprintf(req, 32 * 1024,
                     "GET /health HTTP/1.1\r\nHost: x\r\n"
                     "X-Filler: %s\r\nConnection: close\r\n\r\n",
                     filler);
        ck_assert_int_lt(n, 32 * 1024);
        ck_assert_int_eq(ts_raw(ts, req, (size_t)n, &r), 0);
        ck_assert_int_eq(r.status, i == 0 ? 200 : 431);
        http_resp_cleanup(&r);
    }
    free(req);
    free(filler);
    ts_stop(ts);
}
END_TEST

START_TEST(test_non_json_media_type_is_415)
{
    test_server *ts = ts_start();
    const char *req = "POST /v1/campaigns HTTP/1.1\r\nHost: x\r\n"
                      "Content-Type: text/plain\r\nContent-Length: 2\r\n"
                      "Connection: close\r\n\r\n{}";
    http_resp r;

    ck_assert_int_eq(ts_raw(ts, req, strlen(req), &r), 0);
    assert_problem(&r, 415, "unsupported_media_type");
    http_resp_cleanup(&r);
    ts_stop(ts);
}
END_TEST

START_TEST(test_malformed_json_is_400)
{
    test_server *ts = ts_start();
    static const char *const bodies[] = {"{", "{\"name\": }", "nope", "",
                                         "{\"a\":1,\"a\":2}"};
    size_t i;

    for (i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        http_resp r;
        ck_assert_int_eq(
            ts_request(ts, "POST", "/v1/combats/scrud", NULL, bodies[i], &r),
            0);
        assert_problem(&r, 400, "invalid_json");
        http_resp_cleanup(&r);
    }
    ts_stop(ts);
}
END_TEST

START_TEST(test_keep_alive_serves_two_requests)
{
    test_server *ts = ts_start();
    const char *req = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
                      "GET /v1/systems HTTP/1.1\r\nHost: x\r\n"
                      "Connection: close\r\n\r\n";
    http_resp r;

    ck_assert_int_eq(ts_raw(ts, req, strlen(req), &r), 0);
    ck_assert_int_eq(r.status, 200);
    /* The second response follows the first on the same connection. */
    ck_assert_ptr_nonnull(strstr(r.body, "HTTP/1.1 200"));
    ck_assert_ptr_nonnull(strstr(r.body, "scrud"));
    http_resp_cleanup(&r);
    ts_stop(ts);
}
END_TEST

typedef struct load {
    test_server *ts;
    int n_requests;
    atomic_int n_created;
    atomic_int n_failed;
    atomic_int n_unreachable;
    char (*ids)[64];
    atomic_int n_ids;
    bool is_until_refused;
} load;

static void *post_combats(void *arg)
{
    load *l = arg;
    int i;

    for (i = 0; l->is_until_refused || i < l->n_requests; i++) {
        http_resp r;
        if (ts_request(l->ts, "POST", "/v1/combats/scrud", NULL, small_combat,
                       &r) != 0) {
            atomic_fetch_add(&l->n_unreachable, 1);
            if (l->is_until_refused)
                break;
            continue;
        }
        if (r.status == 201) {
            int k = atomic_fetch_add(&l->n_ids, 1);
            atomic_fetch_add(&l->n_created, 1);
            if (k < 4096)
                snprintf(l->ids[k], 64, "%s",
                         json_string_value(json_object_get(r.json, "id")));
        } else if (r.status == 503 && l->is_until_refused) {
            /* Stopping: turned away, not failed. */
            atomic_fetch_add(&l->n_unreachable, 1);
        } else {
            atomic_fetch_add(&l->n_failed, 1);
        }
        http_resp_cleanup(&r);
        if (l->is_until_refused && i > 2000)
            break;
    }
    return NULL;
}

START_TEST(test_concurrent_combats_share_commits)
{
    TS_SQLITE_ONLY(); /* counts the commits of SQLite's writer */
    test_server *ts = ts_start();
    pthread_t th[16];
    load l;
    unsigned long n_jobs, n_commits;
    int i;

    memset(&l, 0, sizeof l);
    l.ts = ts;
    l.n_requests = 25;
    l.ids = calloc(4096, sizeof *l.ids);
    for (i = 0; i < 16; i++)
        pthread_create(&th[i], NULL, post_combats, &l);
    for (i = 0; i < 16; i++)
        pthread_join(th[i], NULL);
    ck_assert_int_eq(atomic_load(&l.n_created), 16 * 25);
    ck_assert_int_eq(atomic_load(&l.n_failed), 0);
    db_writer_stats(http_db(ts->srv), &n_jobs, &n_commits);
    ck_assert_uint_eq(n_jobs, 16 * 25);
    /* Requests arriving together share a commit. */
    ck_assert_uint_lt(n_commits, n_jobs);
    /* Every id answered is readable, with its rolls. */
    for (i = 0; i < 16 * 25; i += 37) {
        char path[128];
        json_t *j;
        snprintf(path, sizeof path, "/v1/combats/%s", l.ids[i]);
        j = ts_call(ts, 200, "GET", path, NULL, NULL);
        ck_assert_int_eq(json_array_size(json_object_get(j, "rolls")), 3);
        json_decref(j);
    }
    free(l.ids);
    ts_stop(ts);
}
END_TEST

/* The ids of the combats stored, sorted. */
typedef struct id_set {
    char (*ids)[64];
    size_t n, cap;
} id_set;

static void add_id(void *ctx, int n, const char *const *names,
                   const char *const *values)
{
    id_set *s = ctx;

    (void)names;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->ids = realloc(s->ids, s->cap * sizeof *s->ids);
        ck_assert_ptr_nonnull(s->ids);
    }
    if (n > 0 && values[0])
        snprintf(s->ids[s->n++], 64, "%s", values[0]);
}

static int compare_ids(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* Reads the ids of every combat of ts's database into s (free s->ids). */
static void stored_combats(test_server *ts, id_set *s)
{
    memset(s, 0, sizeof *s);
    ts_sql_each(ts, add_id, s, "SELECT id FROM combats");
    if (s->n > 0)
        qsort(s->ids, s->n, sizeof *s->ids, compare_ids);
}

static bool is_stored(const id_set *s, const char *id)
{
    char key[64];

    snprintf(key, sizeof key, "%s", id);
    return s->n > 0 &&
           bsearch(key, s->ids, s->n, sizeof *s->ids, compare_ids) != NULL;
}

START_TEST(test_graceful_stop_keeps_every_answered_combat)
{
    test_server *ts = ts_start();
    char wal[640], ok[16];
    pthread_t th[8];
    struct stat sb;
    id_set stored;
    load l;
    int i;

    memset(&l, 0, sizeof l);
    l.ts = ts;
    l.is_until_refused = true;
    l.ids = calloc(4096, sizeof *l.ids);
    for (i = 0; i < 8; i++)
        pthread_create(&th[i], NULL, post_combats, &l);
    usleep(300 * 1000);
    http_stop(ts->srv); /* what SIGTERM does */
    ts->srv = NULL;
    for (i = 0; i < 8; i++)
        pthread_join(th[i], NULL);
    ck_assert_int_gt(atomic_load(&l.n_created), 0);
    ck_assert_int_eq(atomic_load(&l.n_failed), 0);
    /* SQLite's file closed cleanly: checkpointed, and whole. */
    if (!ts_is_pg()) {
        snprintf(wal, sizeof wal, "%s-wal", ts->db_path);
        ck_assert(stat(wal, &sb) != 0 || sb.st_size == 0);
        ts_sql_text(ts, ok, sizeof ok, "PRAGMA integrity_check");
        ck_assert_str_eq(ok, "ok");
    }
    /* Every combat a client was told about is there. */
    stored_combats(ts, &stored);
    for (i = 0; i < atomic_load(&l.n_ids) && i < 4096; i++)
        ck_assert_msg(is_stored(&stored, l.ids[i]), "%s is lost", l.ids[i]);
    free(stored.ids);
    free(l.ids);
    ts_stop(ts);
}
END_TEST

/* A keep-alive client: POSTs combats on one connection until the server
 * closes it, counting answers by status. */
typedef struct keep_alive_client {
    int port;
    int n_created, n_stopping, n_other;
    char ids[512][64];
} keep_alive_client;

/* Reads one response (headers, then Content-Length bytes); 0 at EOF. */
static int read_response(int fd, int *status, char *body, size_t cap)
{
    char head[4096];
    size_t n = 0, len = 0, got = 0;
    const char *cl;

    while (n + 1 < sizeof head) {
        ssize_t k = recv(fd, head + n, 1, 0);
        if (k <= 0)
            return 0;
        n++;
        if (n >= 4 && memcmp(head + n - 4, "\r\n\r\n", 4) == 0)
            break;
    }
    head[n] = '\0';
    if (sscanf(head, "HTTP/1.1 %d", status) != 1)
        return 0;
    cl = strcasestr(head, "Content-Length:");
    if (cl)
        len = strtoul(cl + 15, NULL, 10);
    if (len >= cap)
        return 0;
    while (got < len) {
        ssize_t k = recv(fd, body + got, len - got, 0);
        if (k <= 0)
            return 0;
        got += (size_t)k;
    }
    body[len] = '\0';
    return 1;
}

static void *keep_alive_combats(void *arg)
{
    keep_alive_client *k = arg;
    struct sockaddr_in a;
    char *body = malloc(65536);
    char req[1024];
    int fd = socket(AF_INET, SOCK_STREAM, 0), n, status, i;

    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)k->port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (body == NULL || fd < 0 ||
        connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        if (fd >= 0)
            close(fd);
        free(body);
        return NULL;
    }
    n = snprintf(req, sizeof req,
                 "POST /v1/combats/scrud HTTP/1.1\r\nHost: x\r\n"
                 "Content-Type: application/json\r\n"
                 "Content-Length: %zu\r\n\r\n%s",
                 strlen(small_combat), small_combat);
    for (i = 0; i < 100000; i++) {
        if (send(fd, req, (size_t)n, MSG_NOSIGNAL) != n ||
            !read_response(fd, &status, body, 65536))
            break;
        if (status == 201) {
            json_t *j = json_loads(body, 0, NULL);
            if (k->n_created < 512)
                snprintf(k->ids[k->n_created], 64, "%s",
                         json_string_value(json_object_get(j, "id")));
            k->n_created++;
            json_decref(j);
        } else if (status == 503) {
            k->n_stopping++;
        } else {
            k->n_other++;
        }
    }
    close(fd);
    free(body);
    return NULL;
}

/* Regression: stopping under keep-alive load aborted the process
 * (libmicrohttpd stopped with connections still suspended). */
START_TEST(test_stop_under_keep_alive_load)
{
    test_server *ts = ts_start();
    static keep_alive_client k[4];
    pthread_t th[4];
    id_set stored;
    int i, j;

    memset(k, 0, sizeof k);
    for (i = 0; i < 4; i++) {
        k[i].port = ts->port;
        pthread_create(&th[i], NULL, keep_alive_combats, &k[i]);
    }
    usleep(300 * 1000);
    http_stop(ts->srv);
    ts->srv = NULL;
    for (i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    stored_combats(ts, &stored);
    for (i = 0; i < 4; i++) {
        ck_assert_int_gt(k[i].n_created, 0);
        ck_assert_int_eq(k[i].n_other, 0); /* only 201s, then 503s */
        for (j = 0; j < k[i].n_created && j < 512; j++)
            ck_assert_msg(is_stored(&stored, k[i].ids[j]), "%s is lost",
                          k[i].ids[j]);
    }
    free(stored.ids);
    ts_stop(ts);
}
END_TEST

Suite *suite_http(void)
{
    Suite *s = suite_create("http");
    TCase *tc = tcase_create("server");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_health_and_systems);
    tcase_add_test(tc, test_unknown_route_is_404);
    tcase_add_test(tc, test_wrong_method_is_405_with_allow);
    tcase_add_test(tc, test_body_over_limit_is_413_and_changes_nothing);
    tcase_add_test(tc, test_chunked_body_over_limit_is_413);
    tcase_add_test(tc, test_headers_fit_the_connection_memory);
    tcase_add_test(tc, test_non_json_media_type_is_415);
    tcase_add_test(tc, test_malformed_json_is_400);
    tcase_add_test(tc, test_keep_alive_serves_two_requests);
    tcase_add_test(tc, test_concurrent_combats_share_commits);
    tcase_add_test(tc, test_graceful_stop_keeps_every_answered_combat);
    tcase_add_test(tc, test_stop_under_keep_alive_load);
    suite_add_tcase(s, tc);
    return s;
}
