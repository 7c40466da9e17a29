/*
 * test_full_http.c: a full disk seen through HTTP (the database's writer in
 * db/db.c, GET /health in resources/service.c): a combat answers 507
 * database_full and changes nothing, /health says "database": "full" with
 * 503, and once space returns the next combat lands and /health is ok
 * again, without restarting the server.
 *
 * The disk fills on demand: full_vfs.h is installed as SQLite's default
 * VFS before the test server opens its database (api_fixture.h).
 */
#include "api_fixture.h"
#include "full_vfs.h"
#include "problem.h"
#include "suites.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#define CAMPAIGN_COMBAT                                                        \
    "{\"sides\":[{\"side\":\"Red\",\"units\":[{\"unit\":\"Alpha\"}]},"         \
    "{\"side\":\"Blue\",\"units\":[{\"unit\":\"Bravo\"}]}]}"
#define ONEOFF_COMBAT                                                          \
    "{\"sides\":[{\"name\":\"a\",\"units\":[{\"name\":\"a1\"}]},"              \
    "{\"name\":\"b\",\"units\":[{\"name\":\"b1\"}]}]}"

static void setup(void)
{
    full_vfs_install();
    api_fixture_setup();
}

static void teardown(void)
{
    full_vfs_fail(0);
    api_fixture_teardown();
    full_vfs_uninstall();
}

static const char *jstr(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* A campaign with Alpha (Red) and Bravo (Blue), and one combat landed. */
static void world(test_campaign *c)
{
    api_fixture_mk(c);
    ts_unit(api_fixture_ts, c, "Alpha", "Red", 0, 6, NULL);
    ts_unit(api_fixture_ts, c, "Bravo", "Blue", 0, 6, NULL);
    API_FIXTURE_OK(201, "POST", api_fixture_cp(c, "/combats/scrud"), c->umpire,
                   CAMPAIGN_COMBAT);
}

/* What a refused write must not change: the units, the combats, Alpha's
 * history and the campaign (its next commitment among the rest). */
static json_t *state(const test_campaign *c)
{
    return api_fixture_keep(json_pack(
        "{s:O, s:O, s:O, s:O}", "units",
        api_fixture_get(api_fixture_cp(c, "/units"), c->umpire), "combats",
        api_fixture_get(api_fixture_cp(c, "/combats"), c->umpire), "history",
        api_fixture_get(api_fixture_cp(c, "/units/Alpha/history"), c->umpire),
        "campaign", api_fixture_get(api_fixture_cp(c, "%s", ""), c->umpire)));
}

/* GET /health: its status, and its "database" into db (n bytes). */
static int health(char *said, size_t n)
{
    http_resp *r = api_fixture_req("GET", "/health", NULL, NULL);
    const char *v = jstr(r->json, "database");

    snprintf(said, n, "%s", v ? v : "(none)");
    return r->status;
}

/* Waits up to seconds for /health to answer 200. */
static bool wait_healthy(double seconds)
{
    char said[32];
    int i;

    for (i = 0; i < (int)(seconds * 50); i++) {
        if (health(said, sizeof said) == 200)
            return true;
        usleep(20 * 1000);
    }
    return false;
}

/* The problem of a write refused for a full disk. */
static void check_full_problem(const http_resp *r, const char *ctx)
{
    api_fixture_check_problem(r, problem_status(ERR_FULL), "database_full",
                              NULL, ctx);
}

START_TEST(test_full_disk_answers_507)
{
    test_campaign c;
    const json_t *before, *rep;
    const char *next;
    char said[32];

    world(&c);
    before = state(&c);
    next = jstr(json_object_get(before, "campaign"), "next_commitment");
    ck_assert_ptr_nonnull(next);
    ck_assert_int_eq(health(said, sizeof said), 200);
    ck_assert_str_eq(said, "ok");

    full_vfs_fail(FULL_VFS_WRITE);
    check_full_problem(api_fixture_req("POST",
                                       api_fixture_cp(&c, "/combats/scrud"),
                                       c.umpire, CAMPAIGN_COMBAT),
                       "campaign combat");
    check_full_problem(
        api_fixture_req("POST", "/v1/combats/scrud", NULL, ONEOFF_COMBAT),
        "one-off combat");
    ck_assert_int_eq(health(said, sizeof said), 503);
    ck_assert_str_eq(said, "full");
    /* Nothing acknowledged before has changed (reads still work). */
    api_fixture_assert_same(json_object_get(before, "units"),
                            api_fixture_cp(&c, "/units"), c.umpire);
    ck_assert(
        json_equal(json_object_get(before, "combats"),
                   api_fixture_get(api_fixture_cp(&c, "/combats"), c.umpire)));
    ck_assert(json_equal(state(&c), before));

    /* Space returns: the next combat lands, with the commitment that was
     * next before, and the health is ok. */
    full_vfs_fail(0);
    rep = API_FIXTURE_CALL(201, "POST", api_fixture_cp(&c, "/combats/scrud"),
                           c.umpire, CAMPAIGN_COMBAT);
    ck_assert_str_eq(jstr(json_object_get(rep, "dice"), "commitment"), next);
    ck_assert_int_eq(health(said, sizeof said), 200);
    ck_assert_str_eq(said, "ok");
    ck_assert_uint_eq(
        api_fixture_n_items(api_fixture_cp(&c, "/combats"), c.umpire), 2);
}
END_TEST

/* Once space returns, /health is ok again by itself: no write needed. */
START_TEST(test_full_disk_health_recovers_alone)
{
    test_campaign c;
    char said[32];

    world(&c);
    full_vfs_fail(FULL_VFS_WRITE);
    check_full_problem(api_fixture_req("POST",
                                       api_fixture_cp(&c, "/combats/scrud"),
                                       c.umpire, CAMPAIGN_COMBAT),
                       "campaign combat");
    ck_assert_int_eq(health(said, sizeof said), 503);
    full_vfs_fail(0);
    ck_assert_msg(wait_healthy(5.0), "/health still says %s", said);
    ck_assert_uint_eq(
        api_fixture_n_items(api_fixture_cp(&c, "/combats"), c.umpire), 1);
}
END_TEST

/* ERR_FULL is 507 Insufficient Storage, and its detail (which says that
 * nothing was written and when to retry) reaches the client, unlike other
 * 5xx details. */
START_TEST(test_full_problem_is_507)
{
    const json_t *p;
    err_info e;

    err_clear(&e);
    err_set(&e, ERR_FULL, NULL, "%s", DB_FULL_MESSAGE);
    ck_assert_int_eq(problem_status(ERR_FULL), 507);
    ck_assert_str_eq(err_code_name(ERR_FULL), "database_full");
    p = api_fixture_keep(problem_json(&e));
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(json_integer_value(json_object_get(p, "status")), 507);
    ck_assert_str_eq(jstr(p, "code"), "database_full");
    ck_assert_str_eq(jstr(p, "type"), "urn:umpire:problem:database-full");
    ck_assert_str_eq(jstr(p, "detail"), DB_FULL_MESSAGE);
}
END_TEST

Suite *suite_full_http(void)
{
    Suite *s = suite_create("full_http");
    TCase *tc = tcase_create("full_http");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_full_disk_answers_507);
    tcase_add_test(tc, test_full_disk_health_recovers_alone);
    tcase_add_test(tc, test_full_problem_is_507);
    suite_add_tcase(s, tc);
    return s;
}
