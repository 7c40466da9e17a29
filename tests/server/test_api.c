#define _GNU_SOURCE /* strcasestr */
/*
 * test_api.c: the campaign API through real HTTP against the design note
 * (docs: api-spec/openapi.yaml): campaigns, sides, tokens, auth, units,
 * corrections, resupply, history, and RFC 9457 problems.  Every test gets
 * a fresh server over a fresh database; "a refused request changes
 * nothing" is checked by reading the state back before and after.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <check.h>
#include <jansson.h>
#include <sodium.h>
#include <sqlite3.h>

#include "harness.h"
#include "suites.h"

static test_server *g_ts;

static void setup(void)
{
    g_ts = ts_start();
}

static void teardown(void)
{
    ts_stop(g_ts);
}

/* ---- helpers ---- */

#define PRINTF(i) __attribute__((format(printf, i, i + 1)))
/* A request that must succeed, its answer dropped. */
#define OK(...) json_decref(ts_call(g_ts, __VA_ARGS__))

static const char *jstr(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* "/v1/campaigns/<id>" + the formatted suffix; 8 rotating buffers. */
static const char *cp(const test_campaign *c, const char *fmt, ...) PRINTF(2);
static const char *cp(const test_campaign *c, const char *fmt, ...)
{
    static char buf[8][512];
    static int next;
    char *b = buf[next++ % 8];
    int n = snprintf(b, 512, "/v1/campaigns/%s", c->id);
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(b + n, (size_t)(512 - n), fmt, ap);
    va_end(ap);
    return b;
}

static void mk(test_campaign *c)
{
    static const char *const sides[] = {"Red", "Blue", NULL};

    ts_campaign(g_ts, c, NULL, sides);
    ck_assert_int_eq(c->n_sides, 2);
}

static void req(http_resp *r, const char *method, const char *path,
                const char *token, const char *body)
{
    ck_assert_msg(ts_request(g_ts, method, path, token, body, r) == 0,
                  "%s %s: no answer", method, path);
}

static void assert_prefix(const char *s, const char *prefix)
{
    ck_assert_msg(s && strncmp(s, prefix, strlen(prefix)) == 0 &&
                      strlen(s) > strlen(prefix),
                  "\"%s\" does not start with %s", s ? s : "(null)", prefix);
}

/* RFC 3339 UTC with milliseconds: 2026-11-22T10:00:00.123Z */
static void assert_time(const char *s)
{
    unsigned f[7];
    char z = 0;

    ck_assert_msg(s && strlen(s) == 24 &&
                      sscanf(s, "%4u-%2u-%2uT%2u:%2u:%2u.%3u%c", &f[0], &f[1],
                             &f[2], &f[3], &f[4], &f[5], &f[6], &z) == 8 &&
                      z == 'Z' && s[4] == '-' && s[19] == '.',
                  "not a timestamp: %s", s ? s : "(null)");
}

/* Whether want is part of got: object members recursively, arrays of the
 * same length element by element, other values equal. */
static int is_part(const json_t *want, const json_t *got)
{
    const char *key;
    json_t *v;
    size_t i;

    if (json_is_object(want) && json_is_object(got)) {
        json_object_foreach((json_t *)want, key, v) {
            if (!is_part(v, json_object_get(got, key)))
                return 0;
        }
        return 1;
    }
    if (json_is_array(want) && json_is_array(got)) {
        json_array_foreach(want, i, v) {
            if (!is_part(v, json_array_get(got, i)))
                return 0;
        }
        return json_array_size(want) == json_array_size(got);
    }
    return got != NULL && json_equal(want, got);
}

/* Asserts that the JSON fmt (printf-style) is part of got. */
static void assert_has(const json_t *got, const char *fmt, ...) PRINTF(2);
static void assert_has(const json_t *got, const char *fmt, ...)
{
    char text[2048];
    json_error_t jerr;
    json_t *want;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    want = json_loads(text, 0, &jerr);
    ck_assert_msg(want != NULL, "bad expectation %s: %s", text, jerr.text);
    if (!is_part(want, got))
        ck_abort_msg("expected %.1500s\n in %.2000s", text,
                     json_dumps(got, JSON_COMPACT | JSON_ENCODE_ANY));
    json_decref(want);
}

#define SCRUD(q, f, d, t, m)                                                  \
    "\"scrud\":{\"quality\":" #q ",\"faces\":" #f ",\"defeat_penalty\":" #d   \
    ",\"fatigue_penalty\":" #t ",\"modifier\":" #m "}"

/* Asserts r is an RFC 9457 problem with this status and code (any code if
 * NULL) and, unless field is NULL, this field.  ctx names the request. */
static void check_problem(const http_resp *r, int status, const char *code,
                          const char *field, const char *ctx)
{
    const json_t *j = r->json;
    char type[128];
    size_t i;

    ck_assert_msg(r->status == status && json_is_object(j),
                  "%s: expected %d %s, got %d: %s", ctx, status,
                  code ? code : "", r->status, r->body);
    ck_assert_str_eq(r->content_type, "application/problem+json");
    if (code == NULL)
        code = jstr(j, "code") ? jstr(j, "code") : "?";
    snprintf(type, sizeof type, "urn:umpire:problem:%s", code);
    for (i = 0; type[i]; i++)
        type[i] = type[i] == '_' ? '-' : type[i];
    assert_has(j, "{\"type\":\"%s\",\"status\":%d,\"code\":\"%s\"}", type,
               status, code);
    ck_assert_msg(jstr(j, "title") && jstr(j, "title")[0], "no title");
    ck_assert_msg(jstr(j, "detail") && jstr(j, "detail")[0], "no detail");
    if (field)
        assert_has(j, "{\"field\":\"%s\"}", field);
}

/* Sends a request and checks that it is refused with this problem. */
static void problem(const char *method, const char *path, const char *token,
                    const char *body, int status, const char *code,
                    const char *field)
{
    http_resp r;

    req(&r, method, path, token, body);
    check_problem(&r, status, code, field, path);
    http_resp_cleanup(&r);
}

static json_t *get(const char *path, const char *token)
{
    return ts_call(g_ts, 200, "GET", path, token, NULL);
}

static size_t n_items(const char *path, const char *token)
{
    json_t *j = get(path, token);
    size_t n = json_array_size(json_object_get(j, "items"));

    json_decref(j);
    return n;
}

/* Asserts that GET path still answers before (stolen). */
static void assert_same(json_t *before, const char *path, const char *token)
{
    json_t *now = get(path, token);

    if (!json_equal(before, now))
        ck_abort_msg("%s changed:\n before %.1800s\n after  %.1800s", path,
                     json_dumps(before, JSON_COMPACT),
                     json_dumps(now, JSON_COMPACT));
    json_decref(before);
    json_decref(now);
}

/* The first column of the first row of sql (with one optional argument),
 * read from the test server's database file, read-only. */
static void db_text(const char *sql, const char *arg, char *out, size_t n)
{
    sqlite3 *sq = NULL;
    sqlite3_stmt *st = NULL;

    ck_assert_int_eq(sqlite3_open_v2(g_ts->db_path, &sq, SQLITE_OPEN_READONLY,
                                     NULL),
                     SQLITE_OK);
    ck_assert_int_eq(sqlite3_prepare_v2(sq, sql, -1, &st, NULL), SQLITE_OK);
    if (arg)
        sqlite3_bind_text(st, 1, arg, -1, SQLITE_TRANSIENT);
    ck_assert_msg(sqlite3_step(st) == SQLITE_ROW, "no row: %s", sql);
    snprintf(out, n, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(sq);
}

static int n_campaigns(void)
{
    char s[32];

    db_text("SELECT count(*) FROM campaigns", NULL, s, sizeof s);
    return atoi(s);
}

/* The campaign as the API shows it (units, sides, combats, every unit's
 * history) and the number of campaigns: what a refusal must not change. */
static json_t *state(const test_campaign *c)
{
    json_t *st = json_pack("{s:o, s:o, s:o, s:i}", "units",
                           get(cp(c, "/units"), c->umpire), "sides",
                           get(cp(c, "/sides"), c->umpire), "combats",
                           get(cp(c, "/combats"), c->umpire), "campaigns",
                           n_campaigns());
    json_t *u;
    size_t i;

    json_array_foreach(json_object_get(json_object_get(st, "units"), "items"),
                       i, u) {
        json_object_set_new(st, jstr(u, "id"),
                            get(cp(c, "/units/%s/history", jstr(u, "id")),
                                c->umpire));
    }
    return st;
}

static void assert_unchanged(json_t *before, const test_campaign *c)
{
    json_t *now = state(c), *v;
    const char *key;

    json_object_foreach(before, key, v) {
        if (!json_equal(v, json_object_get(now, key)))
            ck_abort_msg("%s changed:\n before %.1800s\n after  %.1800s", key,
                         json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY),
                         json_dumps(json_object_get(now, key),
                                    JSON_COMPACT | JSON_ENCODE_ANY));
    }
    ck_assert_uint_eq(json_object_size(before), json_object_size(now));
    json_decref(before);
    json_decref(now);
}

/* Alpha (Red, fatigue 2), Bravo (Blue), Charlie (Red, eliminated); returns
 * the state. */
static json_t *world(test_campaign *c, char alpha[64], char charlie[64])
{
    mk(c);
    ts_unit(g_ts, c, "Alpha", "Red", 1, 6, alpha);
    ts_unit(g_ts, c, "Bravo", "Blue", 0, 6, NULL);
    ts_unit(g_ts, c, "Charlie", "Red", 0, 6, charlie);
    OK(200, "PATCH", cp(c, "/units/%s", alpha), c->umpire,
       "{\"scrud\":{\"fatigue_penalty\":2}}");
    OK(200, "PATCH", cp(c, "/units/%s", charlie), c->umpire,
       "{\"eliminated\":true,\"scrud\":{\"fatigue_penalty\":2}}");
    return state(c);
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
    json_t *j;

    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)g_ts->port);
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
    j = json_loads(body + 4, 0, NULL);
    assert_has(j, "{\"type\":\"urn:umpire:problem:unauthorized\","
                  "\"status\":401,\"code\":\"unauthorized\"}");
    json_decref(j);
}

#define N64 "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl"
#define N65 N64 "m"
#define E16 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
#define U64 E16 E16 E16 E16    /* 32 characters, 64 bytes of UTF-8 */
#define U66 U64 "\xc3\xa9"

#define COMBAT_BODY                                                           \
    "{\"sides\":[{\"side\":\"Red\",\"units\":[{\"unit\":\"Alpha\"}]},"        \
    "{\"side\":\"Blue\",\"units\":[{\"unit\":\"Bravo\"}]}]}"
#define DEFAULTS                                                              \
    "{\"cap\":\"faces\",\"floor\":1,\"extra_dice\":\"beat_lowest\","          \
    "\"attrition\":true,\"max_penalty_per_combat\":1,\"eliminate_below\":-2," \
    "\"defeats_per_elimination\":3}"

/* ---- campaigns ---- */

START_TEST(test_campaign_create_and_get)
{
    const char *tok[4];
    http_resp r;
    json_t *j, *p;
    test_campaign c;
    size_t i;

    req(&r, "POST", "/v1/campaigns", NULL,
        "{\"name\":\"Tannenberg 1914\",\"sides\":[{\"name\":\"Russia\"},"
        "{\"name\":\"Germany\"},{\"name\":\"" U64 "\"}]}");
    ck_assert_msg(r.status == 201, "got %d: %s", r.status, r.body);
    ck_assert_str_eq(r.content_type, "application/json");
    j = r.json;
    assert_prefix(jstr(j, "id"), "cmp_");
    snprintf(c.id, sizeof c.id, "%s", jstr(j, "id"));
    ck_assert_str_eq(r.location, cp(&c, "%s", ""));
    assert_time(jstr(j, "created_at"));
    assert_has(j, "{\"name\":\"Tannenberg 1914\",\"sides\":[{\"name\":"
                  "\"Russia\"},{\"name\":\"Germany\"},{\"name\":\"" U64 "\"}],"
                  "\"options\":{\"scrud\":" DEFAULTS "}}");
    tok[0] = jstr(j, "umpire_token");
    assert_prefix(tok[0], "ump_");
    for (i = 0; i < 3; i++) {
        json_t *s = json_array_get(json_object_get(j, "sides"), i);
        assert_prefix(jstr(s, "id"), "sd_");
        snprintf(c.side_id[i], sizeof c.side_id[i], "%s", jstr(s, "id"));
        tok[i + 1] = jstr(s, "player_token");
        assert_prefix(tok[i + 1], "ply_");
    }
    ck_assert_str_ne(tok[1], tok[2]);
    ck_assert_int_eq(n_campaigns(), 1);
    /* Read back by the umpire and by a player: only "you" differs. */
    j = get(cp(&c, "%s", ""), tok[0]);
    p = get(cp(&c, "%s", ""), tok[3]);
    assert_has(j, "{\"id\":\"%s\",\"name\":\"Tannenberg 1914\",\"created_at\":"
                  "\"%s\",\"options\":{\"scrud\":" DEFAULTS "},\"sides\":["
                  "{\"id\":\"%s\",\"name\":\"Russia\"},{\"id\":\"%s\"},"
                  "{\"id\":\"%s\"}],"
                  "\"you\":{\"role\":\"umpire\",\"side_id\":null}}",
               c.id, jstr(r.json, "created_at"), c.side_id[0], c.side_id[1],
               c.side_id[2]);
    assert_has(p, "{\"you\":{\"role\":\"player\",\"side_id\":\"%s\"}}",
               c.side_id[2]);
    json_object_del(j, "you");
    json_object_del(p, "you");
    ck_assert(json_equal(j, p));
    ck_assert_ptr_null(json_object_get(j, "umpire_token"));
    ck_assert_ptr_null(json_object_get(
        json_array_get(json_object_get(j, "sides"), 0), "player_token"));
    json_decref(j);
    json_decref(p);
    http_resp_cleanup(&r);
}
END_TEST

/* Sides: listed, added (up to 16, with a working player token), refused. */
START_TEST(test_sides)
{
    test_campaign c;
    http_resp r;
    json_t *j;
    char tok[128], id[64];
    int n;

    mk(&c);
    j = get(cp(&c, "/sides"), c.player[0]);
    assert_has(j, "{\"items\":[{\"id\":\"%s\",\"name\":\"Red\"},"
                  "{\"id\":\"%s\",\"name\":\"Blue\"}]}",
               c.side_id[0], c.side_id[1]);
    assert_time(jstr(json_array_get(json_object_get(j, "items"), 1),
                     "created_at"));
    ck_assert_ptr_null(json_object_get(
        json_array_get(json_object_get(j, "items"), 0), "player_token"));
    json_decref(j);
    req(&r, "POST", cp(&c, "/sides"), c.umpire, "{\"name\":\"" N64 "\"}");
    ck_assert_msg(r.status == 201, "got %d: %s", r.status, r.body);
    assert_prefix(r.location, cp(&c, "%s", ""));
    assert_prefix(jstr(r.json, "id"), "sd_");
    assert_time(jstr(r.json, "created_at"));
    assert_has(r.json, "{\"name\":\"" N64 "\"}");
    assert_prefix(jstr(r.json, "player_token"), "ply_");
    snprintf(tok, sizeof tok, "%s", jstr(r.json, "player_token"));
    snprintf(id, sizeof id, "%s", jstr(r.json, "id"));
    http_resp_cleanup(&r);
    /* The new token works, as a player of the new side. */
    j = get(cp(&c, "%s", ""), tok);
    assert_has(j, "{\"you\":{\"role\":\"player\",\"side_id\":\"%s\"},"
                  "\"sides\":[{},{},{\"id\":\"%s\",\"name\":\"" N64 "\"}]}",
               id, id);
    json_decref(j);
    strcat(tok, "0"); /* not the token */
    problem("GET", cp(&c, "/sides"), tok, NULL, 401, "unauthorized", NULL);
    for (n = 3; n < 16; n++)
        OK(201, "POST", cp(&c, "/sides"), c.umpire, "{\"name\":\"S%d\"}", n);
    problem("POST", cp(&c, "/sides"), c.umpire, "{\"name\":\"S99\"}", 422,
            "limit_exceeded", NULL);
    ck_assert_uint_eq(n_items(cp(&c, "/sides"), c.umpire), 16);
}
END_TEST

START_TEST(test_tokens_stored_hashed)
{
    test_campaign c;
    char tok[4][128], hex[65], sql[128], role[16];
    unsigned char h[crypto_hash_sha256_BYTES];
    sqlite3 *sq;
    sqlite3_stmt *tables, *st;
    json_t *j;
    int i, k, n_rows = 0;

    mk(&c);
    j = ts_call(g_ts, 201, "POST", cp(&c, "/sides"), c.umpire,
                "{\"name\":\"Green\"}");
    snprintf(tok[0], 128, "%s", c.umpire);
    snprintf(tok[1], 128, "%s", c.player[0]);
    snprintf(tok[2], 128, "%s", c.player[1]);
    snprintf(tok[3], 128, "%s", jstr(j, "player_token"));
    json_decref(j);
    /* No column of the tokens table, nor of any other, holds a token. */
    ck_assert_int_eq(sqlite3_open_v2(g_ts->db_path, &sq, SQLITE_OPEN_READONLY,
                                     NULL),
                     SQLITE_OK);
    ck_assert_int_eq(sqlite3_prepare_v2(sq, "SELECT name FROM sqlite_master "
                                            "WHERE type = 'table'",
                                        -1, &tables, NULL),
                     SQLITE_OK);
    while (sqlite3_step(tables) == SQLITE_ROW) {
        const char *table = (const char *)sqlite3_column_text(tables, 0);
        snprintf(sql, sizeof sql, "SELECT * FROM \"%s\"", table);
        ck_assert_int_eq(sqlite3_prepare_v2(sq, sql, -1, &st, NULL), 0);
        for (; sqlite3_step(st) == SQLITE_ROW; n_rows += !strcmp(table, "tokens"))
            for (k = 0; k < sqlite3_column_count(st) * 4; k++) {
                const char *v = (const char *)sqlite3_column_text(st, k / 4);
                ck_assert_msg(!v || !strstr(v, tok[k % 4]), "%s.%s holds %s",
                              table, sqlite3_column_name(st, k / 4),
                              tok[k % 4]);
            }
        sqlite3_finalize(st);
    }
    sqlite3_finalize(tables);
    sqlite3_close(sq);
    ck_assert_int_eq(n_rows, 4);
    /* What is stored is each token's SHA-256, with its role. */
    for (i = 0; i < 4; i++) {
        crypto_hash_sha256(h, (const unsigned char *)tok[i], strlen(tok[i]));
        for (k = 0; k < (int)sizeof h; k++)
            snprintf(hex + 2 * k, 3, "%02x", h[k]);
        db_text("SELECT role FROM tokens WHERE hash = ?1", hex, role,
                sizeof role);
        ck_assert_str_eq(role, i == 0 ? "umpire" : "player");
    }
}
END_TEST

/* ---- auth ---- */

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

    mk(&c);
    if (bad_auth[_i].token) {
        snprintf(tok, sizeof tok, "%s", c.umpire);
        if (bad_auth[_i].token == 2)
            tok[strlen(tok) - 1] = tok[strlen(tok) - 1] == '0' ? '1' : '0';
    }
    if (bad_auth[_i].value)
        snprintf(hdr, sizeof hdr, "Authorization: %s%s\r\n",
                 bad_auth[_i].value, tok);
    for (i = 0; i < 2; i++) { /* a read, then a write */
        snprintf(rq, sizeof rq,
                 "%s /v1/campaigns/%s%s HTTP/1.1\r\nHost: localhost\r\n%s"
                 "Content-Type: application/json\r\nContent-Length: %zu\r\n"
                 "Connection: close\r\n\r\n%s",
                 i ? "POST" : "GET", c.id, i ? "/units" : "", hdr,
                 i ? strlen(body) : 0, i ? body : "");
        assert_raw_401(rq);
    }
    ck_assert_uint_eq(n_items(cp(&c, "/units"), c.umpire), 0);
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
        return cp(c, "%s", routes[i][1]);
    return cp(c, "%.*s%s%s", (int)(star - routes[i][1]), routes[i][1], unit,
              star + 1);
}

/* Any token of another campaign: 403 on every route, nothing told of the
 * campaign (its name, sides, units), nothing changed. */
START_TEST(test_auth_other_campaign_403)
{
    static const char *const secrets[] = {"\"test\"", "Alpha", "Bravo",
                                          "Charlie", "Red", "Blue"};
    test_campaign a, b;
    char alpha[64], charlie[64];
    json_t *before;
    size_t k;
    int i, t;

    mk(&b); /* first: the state counts campaigns */
    before = world(&a, alpha, charlie);
    for (t = 0; t < 3; t++)
        for (i = 0; i < N_ROUTES; i++) {
            http_resp r;
            req(&r, routes[i][0], route_path(&a, i, t ? alpha : "Alpha"),
                t ? b.player[t - 1] : b.umpire, routes[i][2]);
            check_problem(&r, 403, "forbidden", NULL, routes[i][1]);
            for (k = 0; k < sizeof secrets / sizeof secrets[0]; k++)
                ck_assert_msg(!strstr(r.body, secrets[k]), "%s %s leaks: %s",
                              routes[i][0], routes[i][1], r.body);
            ck_assert_str_eq(r.location, "");
            http_resp_cleanup(&r);
        }
    assert_unchanged(before, &a);
}
END_TEST

/* Player tokens: 403 on every write route, and nothing changed. */
START_TEST(test_auth_player_cannot_write)
{
    test_campaign c;
    char alpha[64], charlie[64];
    json_t *before = world(&c, alpha, charlie);
    int p;

    for (p = 0; p < 2; p++)
        problem(routes[_i][0], route_path(&c, _i, alpha), c.player[p],
                routes[_i][2], 403, "forbidden", NULL);
    assert_unchanged(before, &c);
}
END_TEST

/* Player tokens read everything: units, a unit, history, combats. */
START_TEST(test_auth_player_reads)
{
    test_campaign c;
    char alpha[64], charlie[64], cbt[64];
    json_t *j = world(&c, alpha, charlie);
    int p, i;

    json_decref(j);
    j = ts_call(g_ts, 201, "POST", cp(&c, "/combats/scrud"), c.umpire, "%s",
                COMBAT_BODY);
    snprintf(cbt, sizeof cbt, "%s", jstr(j, "id"));
    assert_prefix(cbt, "cbt_");
    json_decref(j);
    for (p = 0; p < 2; p++) {
        const char *tok = c.player[p];
        for (i = 0; i < N_READS; i++)
            json_decref(get(route_path(&c, i, i % 2 ? "Alpha" : alpha), tok));
        ck_assert_uint_eq(n_items(cp(&c, "/units"), tok), 3);
        j = get(cp(&c, "/units/%s", charlie), tok);
        assert_has(j, "{\"id\":\"%s\",\"name\":\"Charlie\"}", charlie);
        json_decref(j);
        j = get(cp(&c, "/units/%s/history", alpha), tok);
        assert_has(j, "{\"unit_id\":\"%s\",\"items\":[{\"kind\":\"created\"},"
                      "{},{\"kind\":\"combat\",\"combat_id\":\"%s\"}]}",
                   alpha, cbt);
        json_decref(j);
        j = get(cp(&c, "/combats"), tok);
        assert_has(j, "{\"items\":[{\"id\":\"%s\"}]}", cbt);
        json_decref(j);
        j = get(cp(&c, "/combats/%s", cbt), tok);
        assert_has(j, "{\"id\":\"%s\",\"campaign_id\":\"%s\"}", cbt, c.id);
        json_decref(j);
    }
}
END_TEST

/* ---- units ---- */

START_TEST(test_unit_create)
{
    test_campaign c;
    http_resp r;
    char loc[256];
    json_t *u;
    int i;

    mk(&c);
    req(&r, "POST", cp(&c, "/units"), c.umpire,
        "{\"name\":\"1st Lancers\",\"side\":\"Blue\"}");
    ck_assert_msg(r.status == 201, "got %d: %s", r.status, r.body);
    assert_prefix(jstr(r.json, "id"), "unit_");
    snprintf(loc, sizeof loc, "%s", cp(&c, "/units/%s", jstr(r.json, "id")));
    ck_assert_str_eq(r.location, loc);
    assert_time(jstr(r.json, "created_at"));
    assert_has(r.json, "{\"name\":\"1st Lancers\",\"side\":{\"id\":\"%s\","
                       "\"name\":\"Blue\"},\"eliminated\":false,"
                       "\"eliminated_reason\":null,\"eliminated_by\":null,"
                       SCRUD(0, 6, 0, 0, 0) "}",
               c.side_id[1]);
    assert_same(json_incref(r.json), loc, c.umpire); /* as stored */
    http_resp_cleanup(&r);
    /* Given values, the modifier computed; the side by id and by name. */
    for (i = 0; i < 2; i++) {
        u = ts_call(g_ts, 201, "POST", cp(&c, "/units"), c.umpire,
                    "{\"name\":\"Guard%d\",\"side\":\"%s\",\"scrud\":{"
                    "\"quality\":3,\"faces\":10,\"defeat_penalty\":1,"
                    "\"fatigue_penalty\":4}}",
                    i, i ? "Red" : c.side_id[0]);
        assert_has(u, "{\"side\":{\"id\":\"%s\",\"name\":\"Red\"},"
                      SCRUD(3, 10, 1, 4, -2) "}",
                   c.side_id[0]);
        json_decref(u);
    }
    /* Edges are accepted: a 64-byte name, the ends of the ranges. */
    u = ts_call(g_ts, 201, "POST", cp(&c, "/units"), c.umpire,
                "{\"name\":\"%s\",\"side\":\"Blue\",\"scrud\":{\"quality\":"
                "-100,\"faces\":1000,\"defeat_penalty\":100}}", U64);
    assert_has(u, "{\"name\":\"%s\"," SCRUD(-100, 1000, 100, 0, -200) "}",
               U64);
    json_decref(u);
    ck_assert_uint_eq(n_items(cp(&c, "/units"), c.umpire), 4);
}
END_TEST

START_TEST(test_unit_read)
{
    static const char *const missing[][3] = {
        {"GET", "/units/unit_nosuchunit", NULL},
        {"GET", "/units/Nobody", NULL},
        {"GET", "/units/Theirs", NULL}, /* another campaign's unit */
        {"PATCH", "/units/unit_nope", "{\"scrud\":{\"quality\":1}}"},
        {"POST", "/units/unit_nope/resupply", NULL},
        {"GET", "/units/unit_nope/history", NULL},
    };
    test_campaign c, other;
    char id[64], oid[64];
    json_t *a, *b;
    size_t i;

    mk(&c);
    mk(&other);
    ts_unit(g_ts, &c, "1st Lancers", "Red", 2, 8, id);
    ts_unit(g_ts, &other, "Theirs", "Red", 0, 6, oid);
    a = get(cp(&c, "/units/%s", id), c.umpire);
    b = get(cp(&c, "/units/1st%%20Lancers"), c.player[1]);
    assert_has(a, "{\"id\":\"%s\"," SCRUD(2, 8, 0, 0, 2) "}", id);
    ck_assert(json_equal(a, b));
    json_decref(a);
    json_decref(b);
    for (i = 0; i < sizeof missing / sizeof missing[0]; i++)
        problem(missing[i][0], cp(&c, "%s", missing[i][1]), c.umpire,
                missing[i][2], 404, "not_found", NULL);
    problem("GET", cp(&c, "/units/%s", oid), c.player[0], NULL, 404,
            "not_found", NULL);
    ck_assert_uint_eq(n_items(cp(&c, "/units"), c.umpire), 1);
}
END_TEST

START_TEST(test_units_list_filters)
{
    static const char *const sides[] = {"Red Army", "Blue", NULL};
    static const char *const cases[][2] = {
        {"", "A,B,C"},
        {"?side=Red%20Army", "A,C"},
        {"?side=Blue", "B"},
        {"?eliminated=true", "C"},
        {"?eliminated=false", "A,B"},
        {"?side=Red%20Army&eliminated=false", "A"},
        {"?side=Blue&eliminated=true", ""},
        {NULL, "B"}, /* ?side=<Blue's id> */
    };
    test_campaign c;
    char got[128], cid[64];
    json_t *j, *u;
    size_t i, k;

    ts_campaign(g_ts, &c, NULL, sides);
    ts_unit(g_ts, &c, "A", "Red Army", 0, 6, NULL);
    ts_unit(g_ts, &c, "B", c.side_id[1], 0, 6, NULL);
    ts_unit(g_ts, &c, "C", "Red Army", 0, 6, cid);
    OK(200, "PATCH", cp(&c, "/units/%s", cid), c.umpire,
       "{\"eliminated\":true}");
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        j = cases[i][0] ? get(cp(&c, "/units%s", cases[i][0]), c.player[1])
                        : get(cp(&c, "/units?side=%s", c.side_id[1]),
                              c.player[0]);
        got[0] = '\0';
        json_array_foreach(json_object_get(j, "items"), k, u) {
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s",
                     k ? "," : "", jstr(u, "name"));
        }
        json_decref(j);
        ck_assert_msg(strcmp(got, cases[i][1]) == 0, "%s: got \"%s\"",
                      cases[i][0] ? cases[i][0] : "by id", got);
    }
    problem("GET", cp(&c, "/units?eliminated=yes"), c.umpire, NULL, 422,
            "invalid_value", "eliminated");
    problem("GET", cp(&c, "/units?eliminated=1"), c.player[0], NULL, 422,
            "invalid_value", "eliminated");
}
END_TEST

/* ---- corrections and resupply ---- */

/* PATCHes the unit; asserts the answer has want and is what is stored. */
static void patch(const test_campaign *c, const char *id, const char *body,
                  const char *want)
{
    json_t *u = ts_call(g_ts, 200, "PATCH", cp(c, "/units/%s", id), c->umpire,
                        "%s", body);

    assert_has(u, "%s", want);
    assert_same(u, cp(c, "/units/%s", id), c->umpire);
}

#define STATE(name, elim, reason, scrud)                                      \
    "{\"name\":\"" name "\",\"eliminated\":" elim ",\"eliminated_reason\":"   \
    reason "," scrud "}"

START_TEST(test_patch_and_history)
{
    test_campaign c;
    char id[64], tok_id[64];
    json_t *h, *e0, *e1;

    mk(&c);
    ts_unit(g_ts, &c, "Alpha", "Red", 1, 8, id);
    patch(&c, id, "{\"name\":\"Omega\",\"scrud\":{\"quality\":3,"
                  "\"defeat_penalty\":1},\"note\":\"fell in a river\"}",
          "{\"name\":\"Omega\"," SCRUD(3, 8, 1, 0, 2) "}"); /* faces kept */
    assert_same(get(cp(&c, "/units/%s", id), c.umpire), cp(&c, "/units/Omega"),
                c.umpire);
    problem("GET", cp(&c, "/units/Alpha"), c.umpire, NULL, 404, "not_found",
            NULL);
    patch(&c, id, "{\"scrud\":{\"faces\":12,\"fatigue_penalty\":2}}",
          "{" SCRUD(3, 12, 1, 2, 0) "}"); /* earlier changes kept */
    patch(&c, id, "{\"eliminated\":true}",
          "{\"eliminated\":true,\"eliminated_reason\":\"correction\","
          "\"eliminated_by\":null," SCRUD(3, 12, 1, 2, 0) "}");
    patch(&c, id, "{\"eliminated\":false}",
          "{\"eliminated\":false,\"eliminated_reason\":null}");
    /* The history: who changed what, from what to what, and why. */
    db_text("SELECT id FROM tokens WHERE campaign_id = ?1 AND role = 'umpire'",
            c.id, tok_id, sizeof tok_id);
    assert_prefix(tok_id, "tok_");
    h = get(cp(&c, "/units/%s/history", id), c.player[0]);
    assert_has(h, "{\"unit_id\":\"%s\",\"items\":[{\"kind\":\"created\","
                  "\"combat_id\":null,\"note\":null,\"before\":null,"
                  "\"actor\":{\"role\":\"umpire\",\"token_id\":\"%s\"},"
                  "\"after\":" STATE("Alpha", "false", "null",
                                     SCRUD(1, 8, 0, 0, 1)) "},"
                  "{\"kind\":\"correction\",\"combat_id\":null,"
                  "\"note\":\"fell in a river\","
                  "\"actor\":{\"role\":\"umpire\",\"token_id\":\"%s\"},"
                  "\"before\":" STATE("Alpha", "false", "null",
                                      SCRUD(1, 8, 0, 0, 1)) ","
                  "\"after\":" STATE("Omega", "false", "null",
                                     SCRUD(3, 8, 1, 0, 2)) "},"
                  "{\"kind\":\"correction\",\"note\":null},"
                  "{\"after\":" STATE("Omega", "true", "\"correction\"",
                                      SCRUD(3, 12, 1, 2, 0)) "},"
                  "{\"after\":{\"eliminated\":false}}]}",
               id, tok_id, tok_id);
    e0 = json_array_get(json_object_get(h, "items"), 0);
    e1 = json_array_get(json_object_get(h, "items"), 1);
    ck_assert(json_is_integer(json_object_get(e0, "seq")));
    ck_assert_int_lt(json_integer_value(json_object_get(e0, "seq")),
                     json_integer_value(json_object_get(e1, "seq")));
    assert_time(jstr(e0, "at"));
    assert_time(jstr(e1, "at"));
    ck_assert_int_le(strcmp(jstr(e0, "at"), jstr(e1, "at")), 0);
    json_decref(h);
}
END_TEST

START_TEST(test_resupply)
{
    test_campaign c;
    char id[64];
    json_t *u, *h;

    mk(&c);
    ts_unit(g_ts, &c, "Alpha", "Red", 2, 8, id);
    OK(200, "PATCH", cp(&c, "/units/%s", id), c.umpire,
       "{\"scrud\":{\"defeat_penalty\":1,\"fatigue_penalty\":3}}");
    u = ts_call(g_ts, 200, "POST", cp(&c, "/units/%s/resupply", id), c.umpire,
                NULL);
    assert_has(u, "{" SCRUD(2, 8, 1, 0, 1) "}"); /* only fatigue cleared */
    assert_same(u, cp(&c, "/units/%s", id), c.umpire);
    /* Again, with a note, on a rested unit. */
    OK(200, "POST", cp(&c, "/units/%s/resupply", id), c.umpire,
       "{\"note\":\"depot at Lyck\"}");
    h = get(cp(&c, "/units/%s/history", id), c.umpire);
    assert_has(h, "{\"items\":[{\"kind\":\"created\"},{\"kind\":\"correction\"},"
                  "{\"kind\":\"resupply\",\"note\":null,\"before\":"
                  STATE("Alpha", "false", "null", SCRUD(2, 8, 1, 3, -2))
                  ",\"after\":"
                  STATE("Alpha", "false", "null", SCRUD(2, 8, 1, 0, 1)) "},"
                  "{\"kind\":\"resupply\",\"note\":\"depot at Lyck\",\"after\":"
                  STATE("Alpha", "false", "null", SCRUD(2, 8, 1, 0, 1)) "}]}");
    json_decref(h);
}
END_TEST

/* ---- refused requests ---- */

#define NOTE520 N65 N65 N65 N65 N65 N65 N65 N65
#define UNIT(rest) "{\"name\":\"X\",\"side\":\"Red\"" rest "}"
#define CMP(rest) "{\"name\":\"x\",\"sides\":[{\"name\":\"A\"}]" rest "}"
#define S4(p)                                                                 \
    "{\"name\":\"" p "1\"},{\"name\":\"" p "2\"},{\"name\":\"" p "3\"},"      \
    "{\"name\":\"" p "4\"}"
#define SIDES(list) "{\"name\":\"x\",\"sides\":[" list "]}"

/* Route: C create campaign, U create unit, P patch Alpha, S add side,
 * R resupply Charlie (eliminated).  Code NULL: any code.  lo and hi, when
 * set, must appear in the detail. */
static const struct {
    char route;
    const char *body;
    int status;
    const char *code, *field, *lo, *hi;
} refused[] = {
#define BAD(route, body, status, code, field)                                 \
    {route, body, status, code, field, NULL, NULL}
#define TYPE(route, body, field) BAD(route, body, 422, "invalid_value", field)
#define UNKNOWN(route, body, field)                                           \
    BAD(route, body, 422, "unknown_field", field)
#define MISSING(route, body, field)                                           \
    BAD(route, body, 422, "missing_field", field)
#define RANGE(route, body, field, lo, hi)                                     \
    {route, body, 422, "out_of_range", field, lo, hi}
    /* malformed JSON, and JSON that is not an object */
    BAD('C', "{\"name\":", 400, "invalid_json", NULL),
    BAD('U', "{name: 1}", 400, "invalid_json", NULL),
    BAD('P', "{\"a\":1}}", 400, "invalid_json", NULL),
    BAD('S', "", 400, "invalid_json", NULL),
    TYPE('C', "[{\"name\":\"x\"}]", NULL),
    TYPE('U', "[]", NULL),
    TYPE('C', "\"x\"", NULL), /* valid JSON, not an object */
    /* wrong types */
    TYPE('U', UNIT(",\"scrud\":{\"quality\":\"3\"}"), "scrud.quality"),
    TYPE('U', UNIT(",\"scrud\":{\"faces\":6.0}"), "scrud.faces"),
    TYPE('U', "{\"name\":42,\"side\":\"Red\"}", "name"),
    TYPE('P', "{\"name\":null}", "name"),
    TYPE('P', "{\"eliminated\":\"true\"}", "eliminated"),
    TYPE('C', "{\"name\":7,\"sides\":[{\"name\":\"A\"}]}", "name"),
    TYPE('C', SIDES("{\"name\":\"A\"},\"B\""), "sides[1]"),
    TYPE('C', CMP(",\"options\":{\"scrud\":{\"attrition\":\"yes\"}}"),
         "options.scrud.attrition"),
    /* unknown fields, top level and nested */
    UNKNOWN('U', UNIT(",\"colour\":\"red\""), "colour"),
    UNKNOWN('U', UNIT(",\"scrud\":{\"qualty\":2}"), "scrud.qualty"),
    UNKNOWN('U', UNIT(",\"scrud\":{\"modifier\":2}"), "scrud.modifier"),
    UNKNOWN('P', "{\"side\":\"Blue\"}", "side"),
    UNKNOWN('C', CMP(",\"owner\":\"me\""), "owner"),
    UNKNOWN('C', SIDES("{\"name\":\"A\"},{\"name\":\"B\",\"colour\":\"b\"}"),
            "sides[1].colour"),
    UNKNOWN('C', CMP(",\"options\":{\"scrud\":{\"capp\":3}}"),
            "options.scrud.capp"),
    UNKNOWN('R', "{\"note\":\"x\",\"fatigue_penalty\":0}", "fatigue_penalty"),
    /* missing required fields */
    MISSING('C', "{\"sides\":[{\"name\":\"A\"}]}", "name"),
    MISSING('C', "{\"name\":\"x\"}", "sides"),
    MISSING('C', SIDES("{\"name\":\"A\"},{}"), "sides[1].name"),
    MISSING('U', "{\"side\":\"Red\"}", "name"),
    MISSING('U', "{\"name\":\"X\"}", "side"),
    MISSING('S', "{}", "name"),
    /* out of range: the detail names the range */
    RANGE('P', "{\"scrud\":{\"quality\":101}}", "scrud.quality", "-100", "100"),
    RANGE('P', "{\"scrud\":{\"faces\":1}}", "scrud.faces", "2", "1000"),
    RANGE('P', "{\"scrud\":{\"defeat_penalty\":101}}", "scrud.defeat_penalty",
          "0", "100"),
    RANGE('P', "{\"scrud\":{\"quality\":2,\"fatigue_penalty\":-1}}",
          "scrud.fatigue_penalty", "0", "100"),
    RANGE('U', UNIT(",\"scrud\":{\"fatigue_penalty\":101}"),
          "scrud.fatigue_penalty", "0", "100"),
    RANGE('C', CMP(",\"options\":{\"scrud\":{\"max_penalty_per_combat\":3}}"),
          "options.scrud.max_penalty_per_combat", "0", "2"),
    RANGE('P', "{\"scrud\":{\"quality\":5},\"note\":\"" NOTE520 "\"}", "note",
          "500", NULL),
    /* names: 1..64 bytes */
    RANGE('P', "{\"name\":\"\"}", "name", "64", NULL),
    RANGE('P', "{\"name\":\"" N65 "\"}", "name", "64", NULL),
    RANGE('U', "{\"name\":\"" U66 "\",\"side\":\"Red\"}", "name", "64", NULL),
    RANGE('S', "{\"name\":\"" N65 "\"}", "name", "64", NULL),
    RANGE('C', SIDES("{\"name\":\"" U66 "\"}"), "sides[0].name", "64", NULL),
    RANGE('C', "{\"name\":\"" N65 "\",\"sides\":[{\"name\":\"A\"}]}", "name",
          "64", NULL),
    /* counts and uniqueness */
    RANGE('C', SIDES(""), "sides", NULL, NULL),
    BAD('C', SIDES(S4("a") "," S4("b") "," S4("c") "," S4("d") ",{\"name\":\"e\"}"),
        422, "limit_exceeded", "sides"), /* 17 sides */
    TYPE('C', SIDES("{\"name\":\"Red\"},{\"name\":\"Blue\"},{\"name\":\"Red\"}"),
         "sides[2].name"),
    BAD('U', "{\"name\":\"Alpha\",\"side\":\"Blue\"}", 409, "conflict", NULL),
    TYPE('U', "{\"name\":\"New\",\"side\":\"Purple\"}", "side"),
    BAD('P', "{\"name\":\"Bravo\",\"scrud\":{\"quality\":5}}", 409, "conflict",
        NULL),
    BAD('S', "{\"name\":\"Red\"}", 409, "conflict", NULL),
    /* corrections that change nothing; resupply of an eliminated unit */
    BAD('P', "{\"note\":\"nothing at all\"}", 422, NULL, NULL),
    BAD('P', "{}", 422, NULL, NULL),
    BAD('R', NULL, 422, "rule_violation", NULL),
};
#define N_REFUSED (int)(sizeof refused / sizeof refused[0])

START_TEST(test_refused_changes_nothing)
{
    test_campaign c;
    char alpha[64], charlie[64], ctx[160];
    const char *path = "/v1/campaigns", *method = "POST", *tok = c.umpire;
    json_t *before = world(&c, alpha, charlie);
    const char *detail;
    http_resp r;

    switch (refused[_i].route) {
    case 'C': tok = NULL; break;
    case 'U': path = cp(&c, "/units"); break;
    case 'S': path = cp(&c, "/sides"); break;
    case 'P': path = cp(&c, "/units/%s", alpha), method = "PATCH"; break;
    case 'R': path = cp(&c, "/units/%s/resupply", charlie); break;
    default: ck_abort_msg("bad route");
    }
    snprintf(ctx, sizeof ctx, "%s %c %.100s", method, refused[_i].route,
             refused[_i].body ? refused[_i].body : "(no body)");
    req(&r, method, path, tok, refused[_i].body);
    check_problem(&r, refused[_i].status, refused[_i].code, refused[_i].field,
                  ctx);
    detail = jstr(r.json, "detail");
    ck_assert_msg((!refused[_i].lo || strstr(detail, refused[_i].lo)) &&
                      (!refused[_i].hi || strstr(detail, refused[_i].hi)),
                  "%s: the detail \"%s\" does not name the range", ctx,
                  detail);
    http_resp_cleanup(&r);
    assert_unchanged(before, &c);
}
END_TEST

Suite *suite_api(void)
{
    Suite *s = suite_create("api");
    TCase *camp = tcase_create("campaigns"), *auth = tcase_create("auth"),
          *units = tcase_create("units"), *corr = tcase_create("corrections"),
          *errs = tcase_create("errors");
    TCase *all[] = {camp, auth, units, corr, errs};
    size_t i;

    for (i = 0; i < sizeof all / sizeof all[0]; i++) {
        tcase_add_checked_fixture(all[i], setup, teardown);
        tcase_set_timeout(all[i], 60);
        suite_add_tcase(s, all[i]);
    }
    tcase_add_test(camp, test_campaign_create_and_get);
    tcase_add_test(camp, test_sides);
    tcase_add_test(camp, test_tokens_stored_hashed);
    tcase_add_loop_test(auth, test_auth_refused_401, 0, N_BAD_AUTH);
    tcase_add_test(auth, test_auth_other_campaign_403);
    tcase_add_loop_test(auth, test_auth_player_cannot_write, N_READS,
                        N_ROUTES);
    tcase_add_test(auth, test_auth_player_reads);
    tcase_add_test(units, test_unit_create);
    tcase_add_test(units, test_unit_read);
    tcase_add_test(units, test_units_list_filters);
    tcase_add_test(corr, test_patch_and_history);
    tcase_add_test(corr, test_resupply);
    tcase_add_loop_test(errs, test_refused_changes_nothing, 0, N_REFUSED);
    return s;
}
