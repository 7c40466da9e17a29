/*
 * api_fixture.c: the fixture of the campaign API suites; see api_fixture.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <jansson.h>

#include "api_fixture.h"

#define N_RESP 8
test_server *api_fixture_ts;
static json_t *g_pool;           /* JSON kept until teardown */
static http_resp g_resp[N_RESP]; /* the last responses, reused in turn */
static int g_next_resp;

void api_fixture_setup(void)
{
    api_fixture_ts = ts_start();
    g_pool = json_array();
}

void api_fixture_teardown(void)
{
    int i;

    for (i = 0; i < N_RESP; i++)
        http_resp_cleanup(&g_resp[i]);
    json_decref(g_pool);
    ts_stop(api_fixture_ts);
}

/* Keeps j (stolen) until teardown; returns it. */
json_t *api_fixture_keep(json_t *j)
{
    json_array_append_new(g_pool, j);
    return j;
}
json_t *api_fixture_get(const char *path, const char *token)
{
    return API_FIXTURE_CALL(200, "GET", path, token, NULL);
}

static const char *jstr(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* "/v1/campaigns/<id>" + the formatted suffix; 8 rotating buffers. */
const char *api_fixture_cp(const test_campaign *c, const char *fmt, ...)
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

void api_fixture_mk(test_campaign *c)
{
    static const char *const sides[] = {"Red", "Blue", NULL};

    ts_campaign(api_fixture_ts, c, NULL, sides);
    ck_assert_int_eq(c->n_sides, 2);
}

/* Sends a request; the response stays valid for N_RESP more requests. */
http_resp *api_fixture_req(const char *method, const char *path,
                           const char *token, const char *body)
{
    http_resp *r = &g_resp[g_next_resp++ % N_RESP];

    http_resp_cleanup(r);
    ck_assert_msg(ts_request(api_fixture_ts, method, path, token, body, r) == 0,
                  "%s %s: no answer", method, path);
    return r;
}

void api_fixture_assert_prefix(const char *s, const char *prefix)
{
    ck_assert_msg(s && strncmp(s, prefix, strlen(prefix)) == 0 &&
                      strlen(s) > strlen(prefix),
                  "\"%s\" does not start with %s", s ? s : "(null)", prefix);
}

/* RFC 3339 UTC with milliseconds: 2026-11-22T10:00:00.123Z */
void api_fixture_assert_time(const char *s)
{
    unsigned f[7];
    char z = 0;

    ck_assert_msg(s && strlen(s) == 24 &&
                      sscanf(s, "%4u-%2u-%2uT%2u:%2u:%2u.%3u%c", &f[0], &f[1],
                             &f[2], &f[3], &f[4], &f[5], &f[6], &z) == 8 &&
                      z == 'Z' && s[4] == '-' && s[19] == '.',
                  "not a timestamp: %s", s ? s : "(null)");
}

/* j as compact text, for messages (one of two static buffers). */
static const char *text_of(const json_t *j)
{
    static char buf[2][1600];
    static int next;
    char *b = buf[next++ % 2];
    size_t n =
        j ? json_dumpb(j, b, sizeof buf[0] - 1, JSON_COMPACT | JSON_ENCODE_ANY)
          : 0;

    b[n < sizeof buf[0] ? n : sizeof buf[0] - 1] = '\0';
    return b;
}

/* Whether want is part of got: object members recursively, arrays of the
 * same length element by element, other values equal. */
static int is_part(const json_t *want, const json_t *got)
{
    const char *key;
    json_t *v;
    size_t i;

    if (json_is_object(want) && json_is_object(got)) {
        json_object_foreach((json_t *)want, key, v)
        {
            if (!is_part(v, json_object_get(got, key)))
                return 0;
        }
        return 1;
    }
    if (json_is_array(want) && json_is_array(got)) {
        json_array_foreach(want, i, v)
        {
            if (!is_part(v, json_array_get(got, i)))
                return 0;
        }
        return json_array_size(want) == json_array_size(got);
    }
    return got != NULL && json_equal(want, got);
}

/* Asserts that the JSON fmt (printf-style) is part of got. */
void api_fixture_assert_has(const json_t *got, const char *fmt, ...)
{
    char text[2048];
    json_error_t jerr;
    json_t *want;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    want = api_fixture_keep(json_loads(text, 0, &jerr));
    ck_assert_msg(want != NULL, "bad expectation %s: %s", text, jerr.text);
    ck_assert_msg(is_part(want, got), "expected %.1200s\n in %s", text,
                  text_of(got));
}
/* Asserts r is an RFC 9457 problem with this status and code (any code if
 * NULL) and, unless field is NULL, this field.  ctx names the request. */
void api_fixture_check_problem(const http_resp *r, int status, const char *code,
                               const char *field, const char *ctx)
{
    const json_t *j = r->json;
    char type[128];
    size_t i;

    ck_assert_msg(r->status == status && json_is_object(j),
                  "%s: expected %d %s, got %d: %.1500s", ctx, status,
                  code ? code : "", r->status, r->body);
    ck_assert_str_eq(r->content_type, "application/problem+json");
    if (code == NULL)
        code = jstr(j, "code") ? jstr(j, "code") : "?";
    snprintf(type, sizeof type, "urn:umpire:problem:%s", code);
    for (i = 0; type[i]; i++)
        type[i] = type[i] == '_' ? '-' : type[i];
    api_fixture_assert_has(j, "{\"type\":\"%s\",\"status\":%d,\"code\":\"%s\"}",
                           type, status, code);
    ck_assert_msg(jstr(j, "title") && jstr(j, "title")[0], "no title");
    ck_assert_msg(jstr(j, "detail") && jstr(j, "detail")[0], "no detail");
    if (field)
        api_fixture_assert_has(j, "{\"field\":\"%s\"}", field);
}

/* Sends a request and checks that it is refused with this problem. */
void api_fixture_problem(const char *method, const char *path,
                         const char *token, const char *body, int status,
                         const char *code, const char *field)
{
    api_fixture_check_problem(api_fixture_req(method, path, token, body),
                              status, code, field, path);
}

size_t api_fixture_n_items(const char *path, const char *token)
{
    return json_array_size(
        json_object_get(api_fixture_get(path, token), "items"));
}

/* Asserts that GET path still answers before. */
void api_fixture_assert_same(const json_t *before, const char *path,
                             const char *token)
{
    json_t *now = api_fixture_get(path, token);

    ck_assert_msg(json_equal(before, now), "%s changed:\n before %s\n after %s",
                  path, text_of(before), text_of(now));
}

int api_fixture_n_campaigns(void)
{
    return (int)ts_sql_int(api_fixture_ts, "SELECT count(*) FROM campaigns");
}

/* The campaign as the API shows it (units, sides, combats, every unit's
 * history) and the number of campaigns: what a refusal must not change. */
static json_t *state(const test_campaign *c)
{
    json_t *st = api_fixture_keep(json_pack(
        "{s:O, s:O, s:O, s:i}", "units",
        api_fixture_get(api_fixture_cp(c, "/units"), c->umpire), "sides",
        api_fixture_get(api_fixture_cp(c, "/sides"), c->umpire), "combats",
        api_fixture_get(api_fixture_cp(c, "/combats"), c->umpire), "campaigns",
        api_fixture_n_campaigns()));
    json_t *u;
    size_t i;

    json_array_foreach(json_object_get(json_object_get(st, "units"), "items"),
                       i, u)
    {
        json_object_set(st, jstr(u, "id"),
                        api_fixture_get(api_fixture_cp(c, "/units/%s/history",
                                                       jstr(u, "id")),
                                        c->umpire));
    }
    return st;
}

void api_fixture_assert_unchanged(const json_t *before, const test_campaign *c)
{
    json_t *now = state(c), *v;
    const char *key;

    json_object_foreach((json_t *)before, key, v)
    {
        ck_assert_msg(json_equal(v, json_object_get(now, key)),
                      "%s changed:\n before %s\n after  %s", key, text_of(v),
                      text_of(json_object_get(now, key)));
    }
    ck_assert_uint_eq(json_object_size(before), json_object_size(now));
}

/* Alpha (Red, fatigue 2), Bravo (Blue), Charlie (Red, eliminated); returns
 * the state. */
json_t *api_fixture_world(test_campaign *c, char alpha[64], char charlie[64])
{
    api_fixture_mk(c);
    ts_unit(api_fixture_ts, c, "Alpha", "Red", 1, 6, alpha);
    ts_unit(api_fixture_ts, c, "Bravo", "Blue", 0, 6, NULL);
    ts_unit(api_fixture_ts, c, "Charlie", "Red", 0, 6, charlie);
    API_FIXTURE_OK(200, "PATCH", api_fixture_cp(c, "/units/%s", alpha),
                   c->umpire, "{\"scrud\":{\"fatigue_penalty\":2}}");
    API_FIXTURE_OK(200, "PATCH", api_fixture_cp(c, "/units/%s", charlie),
                   c->umpire,
                   "{\"eliminated\":true,\"scrud\":{\"fatigue_penalty\":2}}");
    return state(c);
}
