#define _GNU_SOURCE /* strcasestr */
/*
 * test_auth.c: authentication and authorization of the campaign API
 * through real HTTP against the design note (and api-spec/openapi.yaml):
 * requests without a valid bearer token are refused 401 with the Bearer
 * challenge; tokens of another campaign get 403 on every route and learn
 * nothing of it; player tokens read everything and write nothing.  Every
 * test gets a fresh server over a fresh database (api_fixture.h); "a
 * refused request changes nothing" is checked by reading the state back
 * before and after.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <check.h>
#include <jansson.h>

#include "api_fixture.h"
#include "harness.h"
#include "suites.h"

static const char *jstr(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* Asserts the raw request rq is answered 401 unauthorized with the
 * challenge WWW-Authenticate: Bearer (the harness drops that header). */
static void assert_raw_401(const char *rq)
{
    struct sockaddr_in a = {0};
    char resp[8192];
    const char *body, *h;
    size_t n = 0;
    ssize_t got;
    int fd = socket(AF_INET, SOCK_STREAM, 0), status = 0;

    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)api_fixture_ts->port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(send(fd, rq, strlen(rq), MSG_NOSIGNAL),
                     (ssize_t)strlen(rq));
    while (n + 1 < sizeof resp &&
           (got = recv(fd, resp + n, sizeof resp - n - 1, 0)) > 0)
        n += (size_t)got;
    close(fd);
    resp[n] = '\0';
    body = strstr(resp, "\r\n\r\n");
    h = strcasestr(resp, "\r\nWWW-Authenticate:");
    ck_assert_int_eq(sscanf(resp, "HTTP/1.%*d %d", &status), 1);
    ck_assert_msg(status == 401 && body, "expected 401, got: %s", resp);
    ck_assert_msg(h != NULL && h < body, "no WWW-Authenticate: %s", resp);
    for (h += strlen("\r\nWWW-Authenticate:"); *h == ' ';)
        h++;
    ck_assert_msg(strncasecmp(h, "Bearer", 6) == 0, "challenge: %s", h);
    ck_assert_ptr_nonnull(strcasestr(resp, "application/problem+json"));
    ck_assert_ptr_null(strstr(body, "Red")); /* nothing of the campaign */
    api_fixture_assert_has(api_fixture_keep(json_loads(body + 4, 0, NULL)),
                           "{\"type\":\"urn:umpire:problem:unauthorized\","
                           "\"status\":401,\"code\":\"unauthorized\"}");
}

#define COMBAT_BODY                                                            \
    "{\"sides\":[{\"side\":\"Red\",\"units\":[{\"unit\":\"Alpha\"}]},"         \
    "{\"side\":\"Blue\",\"units\":[{\"unit\":\"Bravo\"}]}]}"

/* Authorization headers that must give 401: value, then the campaign's
 * umpire token appended (1), the same with its last digit changed (2). */
static const struct {
    const char *value;
    int token;
} bad_auth[] = {
    {NULL, 0}, /* no header */
    {"Basic dXNlcjpwYXNz", 0},
    {"Bearer", 0},
    {"Bearer ", 0},
    {"", 1},       /* the token without a scheme */
    {"Token ", 1}, /* another scheme */
    {"Bearer ump_000000000000000000000000000000000000000000000000", 0},
    {"Bearer ply_000000000000000000000000000000000000000000000000", 0},
    {"Bearer ", 2}, /* unknown: one digit off */
};
#define N_BAD_AUTH (int)(sizeof bad_auth / sizeof bad_auth[0])

START_TEST(test_auth_refused_401)
{
    static const char body[] = "{\"name\":\"X\",\"side\":\"Red\"}";
    test_campaign c;
    char tok[128] = "", hdr[256] = "", rq[1024];
    size_t i;

    api_fixture_mk(&c);
    if (bad_auth[_i].token) {
        snprintf(tok, sizeof tok, "%s", c.umpire);
        if (bad_auth[_i].token == 2)
            tok[strlen(tok) - 1] = tok[strlen(tok) - 1] == '0' ? '1' : '0';
    }
    if (bad_auth[_i].value)
        snprintf(hdr, sizeof hdr, "Authorization: %s%s\r\n", bad_auth[_i].value,
                 tok);
    for (i = 0; i < 2; i++) { /* a read, then a write */
        snprintf(rq, sizeof rq,
                 "%s /v1/campaigns/%s%s HTTP/1.1\r\nHost: localhost\r\n%s"
                 "Content-Type: application/json\r\nContent-Length: %zu\r\n"
                 "Connection: close\r\n\r\n%s",
                 i ? "POST" : "GET", c.id, i ? "/units" : "", hdr,
                 i ? strlen(body) : 0, i ? body : "");
        assert_raw_401(rq);
    }
    ck_assert_uint_eq(
        api_fixture_n_items(api_fixture_cp(&c, "/units"), c.umpire), 0);
}
END_TEST

/* Routes of a campaign (after its id): [0] method, [1] path, "*" standing
 * for a unit, [2] body.  Reads first, then writes. */
static const char *const routes[][3] = {
    {"GET", "", NULL},
    {"GET", "/sides", NULL},
    {"GET", "/units", NULL},
    {"GET", "/units/*", NULL},
    {"GET", "/units/*/history", NULL},
    {"GET", "/combats", NULL},
#define N_READS 6
    {"POST", "/units", "{\"name\":\"Sneaky\",\"side\":\"Red\"}"},
    {"PATCH", "/units/*", "{\"scrud\":{\"quality\":5}}"},
    {"PATCH", "/units/*", "{\"eliminated\":true}"},
    {"PATCH", "/units/*", "{\"name\":\"Renamed\"}"},
    {"POST", "/units/*/resupply", NULL},
    {"POST", "/units/*/resupply", "{\"note\":\"x\"}"},
    {"POST", "/sides", "{\"name\":\"Traitors\"}"},
    {"POST", "/combats/scrud", COMBAT_BODY},
};
#define N_ROUTES (int)(sizeof routes / sizeof routes[0])

/* The path of route i in campaign c, with unit for the "*". */
static const char *route_path(const test_campaign *c, int i, const char *unit)
{
    const char *star = strchr(routes[i][1], '*');

    if (star == NULL)
        return api_fixture_cp(c, "%s", routes[i][1]);
    return api_fixture_cp(c, "%.*s%s%s", (int)(star - routes[i][1]),
                          routes[i][1], unit, star + 1);
}

/* Tokens of another campaign: 403 on every route, nothing told of the
 * campaign (its name, sides, units), nothing changed. */
START_TEST(test_auth_other_campaign_403)
{
    static const char *const secrets[] = {"test",    "Alpha", "Bravo",
                                          "Charlie", "Red",   "Blue"};
    test_campaign a, b;
    char alpha[64], charlie[64];
    const json_t *before;
    size_t k;
    int i, t;

    api_fixture_mk(&b); /* first: the state counts campaigns */
    before = api_fixture_world(&a, alpha, charlie);
    for (t = 0; t < 3; t++)
        for (i = 0; i < N_ROUTES; i++) {
            http_resp *r = api_fixture_req(
                routes[i][0], route_path(&a, i, t ? alpha : "Alpha"),
                t ? b.player[t - 1] : b.umpire, routes[i][2]);
            api_fixture_check_problem(r, 403, "forbidden", NULL, routes[i][1]);
            for (k = 0; k < sizeof secrets / sizeof secrets[0]; k++)
                ck_assert_msg(!strstr(r->body, secrets[k]), "%s %s leaks: %s",
                              routes[i][0], routes[i][1], r->body);
            ck_assert_str_eq(r->location, "");
        }
    api_fixture_assert_unchanged(before, &a);
}
END_TEST

/* Player tokens: 403 on each write route, and nothing changed. */
START_TEST(test_auth_player_cannot_write)
{
    test_campaign c;
    char alpha[64], charlie[64];
    const json_t *before = api_fixture_world(&c, alpha, charlie);
    int p;

    for (p = 0; p < 2; p++)
        api_fixture_problem(routes[_i][0], route_path(&c, _i, alpha),
                            c.player[p], routes[_i][2], 403, "forbidden", NULL);
    api_fixture_assert_unchanged(before, &c);
}
END_TEST

/* Player tokens read everything: units, a unit, history, combats. */
START_TEST(test_auth_player_reads)
{
    test_campaign c;
    char alpha[64], charlie[64], cbt[64];
    int p, i;

    api_fixture_world(&c, alpha, charlie);
    snprintf(
        cbt, sizeof cbt, "%s",
        jstr(API_FIXTURE_CALL(201, "POST", api_fixture_cp(&c, "/combats/scrud"),
                              c.umpire, "%s", COMBAT_BODY),
             "id"));
    api_fixture_assert_prefix(cbt, "cbt_");
    for (p = 0; p < 2; p++) {
        const char *tok = c.player[p];
        for (i = 0; i < N_READS; i++)
            api_fixture_get(route_path(&c, i, i % 2 ? "Alpha" : alpha), tok);
        ck_assert_uint_eq(
            api_fixture_n_items(api_fixture_cp(&c, "/units"), tok), 3);
        api_fixture_assert_has(
            api_fixture_get(api_fixture_cp(&c, "/units/%s", charlie), tok),
            "{\"id\":\"%s\",\"name\":\"Charlie\"}", charlie);
        api_fixture_assert_has(
            api_fixture_get(api_fixture_cp(&c, "/units/%s/history", alpha),
                            tok),
            "{\"unit_id\":\"%s\",\"items\":[{\"kind\":\"created\"},"
            "{},{\"kind\":\"combat\",\"combat_id\":\"%s\"}]}",
            alpha, cbt);
        api_fixture_assert_has(
            api_fixture_get(api_fixture_cp(&c, "/combats"), tok),
            "{\"items\":[{\"id\":\"%s\"}]}", cbt);
        api_fixture_assert_has(
            api_fixture_get(api_fixture_cp(&c, "/combats/%s", cbt), tok),
            "{\"id\":\"%s\",\"campaign_id\":\"%s\"}", cbt, c.id);
    }
}
END_TEST

Suite *suite_auth(void)
{
    Suite *s = suite_create("auth");
    TCase *auth = tcase_create("auth");

    tcase_add_checked_fixture(auth, api_fixture_setup, api_fixture_teardown);
    tcase_set_timeout(auth, 60);
    suite_add_tcase(s, auth);
    tcase_add_loop_test(auth, test_auth_refused_401, 0, N_BAD_AUTH);
    tcase_add_test(auth, test_auth_other_campaign_403);
    tcase_add_loop_test(auth, test_auth_player_cannot_write, N_READS, N_ROUTES);
    tcase_add_test(auth, test_auth_player_reads);
    return s;
}
