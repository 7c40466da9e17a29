/*
 * api_fixture.h: what the campaign API suites (tests/server/resources/
 * test_api.c and tests/server/http/test_auth.c) share: a fresh server over
 * a fresh database per test (harness.h), requests and their answers,
 * RFC 9457 problems, JSON expectations, and the state a refused request
 * must not change.
 *
 * Responses and JSON documents belong to the fixture (freed at teardown),
 * so a failing assertion leaks nothing, with or without CK_FORK.  Helpers
 * abort the test (Check) on failure.
 */
#ifndef UMPIRE_TESTS_API_FIXTURE_H
#define UMPIRE_TESTS_API_FIXTURE_H

#include <stddef.h>

#include <jansson.h>

#include "harness.h"

/* The server of the running test (between setup and teardown). */
extern test_server *api_fixture_ts;

/* Checked fixture: starts the server; stops it and frees what was kept. */
void api_fixture_setup(void);
void api_fixture_teardown(void);

/* Keeps j (stolen) until teardown; returns it. */
json_t *api_fixture_keep(json_t *j);

/* A request that must answer status (ts_call's arguments after the
 * server); its JSON (kept until teardown) or NULL.  _OK drops the JSON. */
#define API_FIXTURE_CALL(...)                                                  \
    api_fixture_keep(ts_call(api_fixture_ts, __VA_ARGS__))
#define API_FIXTURE_OK(...) ((void)API_FIXTURE_CALL(__VA_ARGS__))

/* GET path, which must answer 200; its JSON (kept). */
json_t *api_fixture_get(const char *path, const char *token);

/* "/v1/campaigns/<id>" + the formatted suffix, in one of 8 rotating static
 * buffers (valid for 7 more calls). */
const char *api_fixture_cp(const test_campaign *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A campaign with the sides Red and Blue. */
void api_fixture_mk(test_campaign *c);

/* Sends a request and reads the response; the last 8 stay valid. */
http_resp *api_fixture_req(const char *method, const char *path,
                           const char *token, const char *body);

/* s is prefix and something more. */
void api_fixture_assert_prefix(const char *s, const char *prefix);
/* RFC 3339 UTC with milliseconds: 2026-11-22T10:00:00.123Z */
void api_fixture_assert_time(const char *s);
/* The JSON fmt (printf-style) is part of got: object members recursively,
 * arrays of the same length element by element, other values equal. */
void api_fixture_assert_has(const json_t *got, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* r is an RFC 9457 problem with this status and code (any code if NULL)
 * and, unless field is NULL, this field.  ctx names the request. */
void api_fixture_check_problem(const http_resp *r, int status, const char *code,
                               const char *field, const char *ctx);
/* Sends a request and checks that it is refused with this problem. */
void api_fixture_problem(const char *method, const char *path,
                         const char *token, const char *body, int status,
                         const char *code, const char *field);

/* The number of items GET path lists. */
size_t api_fixture_n_items(const char *path, const char *token);
/* GET path still answers before. */
void api_fixture_assert_same(const json_t *before, const char *path,
                             const char *token);

/* The number of campaigns in the database. */
int api_fixture_n_campaigns(void);

/* The campaign's units, sides, combats and every unit's history, and the
 * number of campaigns, are as in before (from api_fixture_world). */
void api_fixture_assert_unchanged(const json_t *before, const test_campaign *c);
/* A campaign (api_fixture_mk) with Alpha (Red, fatigue 2), Bravo (Blue)
 * and Charlie (Red, eliminated), their ids in alpha and charlie; returns
 * the state for api_fixture_assert_unchanged (kept). */
json_t *api_fixture_world(test_campaign *c, char alpha[64], char charlie[64]);

#endif
