/*
 * test_odds_http.c: the odds over HTTP (docs/odds.md): POST
 * /v1/odds/{system} for every system with the body of its one-off combat,
 * and /v1/campaigns/{id}/odds/{system} with a player token, the units as
 * they stand (SCRUD penalties, EDNA, SCS steps lost, a Matrix battle half
 * fought with a reserve considered, a Civilization battle's next phase).
 * The odds write nothing: no combat, no unit changed, the next commitment
 * still the next.  The answers' fractions sum to 1 where they should and
 * match the closed forms (EDNA 2d6, SCS 2d6 rows); over the limits, 422
 * with the limit; strict about the "odds" object; tokens as any read.
 */
#include "harness.h"
#include "suites.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *get(const json_t *o, const char *k)
{
    return json_object_get(o, k);
}

/* "n/d" of p (a probability's JSON) as n and d. */
static void frac(const json_t *p, long long *n, long long *d)
{
    const char *f = json_string_value(get(p, "fraction"));

    ck_assert_msg(f != NULL, "not an exact probability");
    ck_assert_int_eq(sscanf(f, "%lld/%lld", n, d), 2);
}

/* The probabilities "p" of the items of a sum to exactly 1. */
static void sums_to_one(const json_t *items)
{
    long double s = 0;
    size_t i;

    for (i = 0; i < json_array_size(items); i++) {
        long long n, d;
        frac(get(json_array_get(items, i), "p"), &n, &d);
        s += (long double)n / (long double)d;
    }
    ck_assert_msg(s > 0.999999999L && s < 1.000000001L, "they sum to %Lf", s);
}

static void is_frac(const json_t *p, const char *want)
{
    const char *f = json_string_value(get(p, "fraction"));

    ck_assert_msg(f && strcmp(f, want) == 0, "%s, expected %s", f ? f : "null",
                  want);
}

static const char *const scrud_oneoff =
    "{\"sides\": [{\"name\": \"red\", \"units\": [{\"name\": \"R1\"}, "
    "{\"name\": \"R2\"}, {\"name\": \"R3\"}]}, {\"name\": \"blue\", "
    "\"units\": [{\"name\": \"B1\", \"quality\": 1}, {\"name\": "
    "\"B2\"}]}]%s}";

START_TEST(test_oneoff_scrud)
{
    test_server *ts = ts_start();
    char body[512];
    json_t *a;
    int s;

    snprintf(body, sizeof body, scrud_oneoff, "");
    a = ts_call(ts, 200, "POST", "/v1/odds/scrud", NULL, "%s", body);
    ck_assert(json_is_true(get(a, "exact")));
    ck_assert_str_eq(json_string_value(get(a, "method")), "enumeration");
    ck_assert_str_eq(json_string_value(get(a, "throws")), "7776");
    for (s = 0; s < 2; s++)
        sums_to_one(get(json_array_get(get(a, "sides"), (size_t)s), "defeats"));
    ck_assert_int_eq(
        json_integer_value(get(
            json_array_get(get(json_array_get(get(a, "sides"), 0), "units"), 0),
            "block")),
        3);
    json_decref(a);
    /* sampled when asked, with its samples and standard errors */
    snprintf(body, sizeof body, scrud_oneoff,
             ", \"odds\": {\"method\": \"sample\", \"samples\": 1000, "
             "\"seed\": \"x\"}");
    a = ts_call(ts, 200, "POST", "/v1/odds/scrud", NULL, "%s", body);
    ck_assert(json_is_false(get(a, "exact")));
    ck_assert_int_eq(json_integer_value(get(a, "samples")), 1000);
    ck_assert_ptr_nonnull(get(get(a, "more_defeats"), "first"));
    ck_assert(json_is_real(get(get(get(a, "more_defeats"), "first"), "se")));
    json_decref(a);
    ts_stop(ts);
}
END_TEST

START_TEST(test_oneoff_edna_closed_form)
{
    test_server *ts = ts_start();
    json_t *a, *u;

    a = ts_call(ts, 200, "POST", "/v1/odds/edna", NULL,
                "{\"units\": [{\"name\": \"S\", \"edna\": 5, \"modifier\": "
                "-1}, {\"name\": \"P\"}], \"odds\": {\"tests_ahead\": 2}}");
    u = get(a, "units");
    /* 2d6 - 1 <= 5: 15 of 36; 2d6 <= 8: 26 of 36 */
    is_frac(get(json_array_get(u, 0), "passed"), "5/12");
    is_frac(get(json_array_get(u, 1), "passed"), "13/18");
    sums_to_one(get(json_array_get(u, 1), "edna_after"));
    ck_assert_uint_eq(
        json_array_size(get(json_array_get(u, 0), "ineffective_within")), 2);
    json_decref(a);
    ts_stop(ts);
}
END_TEST

START_TEST(test_oneoff_scs_rows)
{
    test_server *ts = ts_start();
    json_t *a, *rows;
    size_t i;

    a = ts_call(ts, 200, "POST", "/v1/odds/scs", NULL,
                "{\"table\": \"example-2d6\", \"attackers\": [{\"name\": "
                "\"P\", \"attack\": 7, \"defense\": 5}, {\"name\": \"G\", "
                "\"attack\": 3, \"defense\": 4}], \"defenders\": [{\"name\": "
                "\"R\", \"attack\": 2, \"defense\": 3, \"multipliers\": "
                "[2]}], \"defender_retreat\": {\"convert_to_steps\": 1}}");
    ck_assert_str_eq(json_string_value(get(a, "odds")), "2:1");
    rows = get(a, "rows");
    ck_assert_uint_eq(json_array_size(rows), 11);
    for (i = 0; i < 11; i++) {
        long long n, d;
        int s = (int)i + 2;
        frac(get(json_array_get(rows, i), "p"), &n, &d);
        ck_assert_int_eq(n * 36, (6 - abs(s - 7)) * d);
    }
    sums_to_one(get(a, "results"));
    sums_to_one(get(json_array_get(get(a, "defenders"), 0), "steps_lost"));
    json_decref(a);
    ts_stop(ts);
}
END_TEST

static const char *const matrix_oneoff =
    "{\"attacker\": {\"name\": \"blue\", \"units\": [{\"name\": \"B1\"}, "
    "{\"name\": \"B2\"}, {\"name\": \"B3\"}]}, \"defender\": {\"name\": "
    "\"red\", \"units\": [{\"name\": \"R1\", \"quality\": 1}, {\"name\": "
    "\"R2\"}]}, \"line\": [{\"attacker\": [\"B1\"], \"defender\": "
    "[\"R1\"]}, {\"attacker\": [\"B2\"], \"defender\": [\"R2\"]}], "
    "\"order\": [1, 0], \"odds\": {\"reserve\": {\"combat\": 0, \"army\": "
    "\"attacker\", \"unit\": \"%s\"}}}";

START_TEST(test_oneoff_matrix)
{
    test_server *ts = ts_start();
    char body[1024];
    json_t *a, *c0, *w;

    snprintf(body, sizeof body, matrix_oneoff, "B3");
    a = ts_call(ts, 200, "POST", "/v1/odds/matrix", NULL, "%s", body);
    ck_assert(json_is_true(get(a, "exact")));
    c0 = json_array_get(get(a, "combats"), 0);
    sums_to_one(get(c0, "results"));
    sums_to_one(get(get(c0, "if_reserve_joins"), "results"));
    ck_assert(json_is_null(
        get(json_array_get(get(a, "combats"), 1), "if_reserve_joins")));
    w = get(get(a, "battle"), "winner");
    ck_assert_ptr_nonnull(get(w, "draw"));
    sums_to_one(get(get(a, "battle"), "army_state"));
    sums_to_one(get(get(get(a, "battle_if_reserve_joins"), "attacker"),
                    "casualty_points"));
    json_decref(a);
    snprintf(body, sizeof body, matrix_oneoff, "B9");
    a = ts_call(ts, 422, "POST", "/v1/odds/matrix", NULL, "%s", body);
    ck_assert_str_eq(json_string_value(get(a, "field")), "odds.reserve.unit");
    json_decref(a);
    snprintf(body, sizeof body, matrix_oneoff, "B1"); /* in the line */
    a = ts_call(ts, 422, "POST", "/v1/odds/matrix", NULL, "%s", body);
    ck_assert_str_eq(json_string_value(get(a, "code")), "rule_violation");
    json_decref(a);
    ts_stop(ts);
}
END_TEST

START_TEST(test_oneoff_civ)
{
    test_server *ts = ts_start();
    json_t *a, *p;

    a = ts_call(
        ts, 200, "POST", "/v1/odds/civ", NULL,
        "{\"current_era\": 2, \"attacker\": {\"name\": \"red\", "
        "\"wave_preference\": [\"Knights\", \"Legion\"], \"units\": "
        "[{\"name\": \"Legion\", \"class\": \"infantry\", \"era\": 1, "
        "\"bonus\": 1}, {\"name\": \"Knights\", \"class\": \"cavalry\", "
        "\"era\": 2}, {\"name\": \"Catapult\", \"class\": \"artillery\", "
        "\"era\": 1, \"bonus\": 1}]}, \"defender\": {\"name\": \"blue\", "
        "\"units\": [{\"name\": \"Pikemen\", \"class\": \"infantry\", "
        "\"era\": 2, \"bonus\": 1}, {\"name\": \"Phalanx\", \"class\": "
        "\"infantry\", \"era\": 1}]}, \"odds\": {\"samples\": 2000}}");
    p = get(a, "phase");
    ck_assert(json_is_true(get(p, "exact")));
    ck_assert_str_eq(json_string_value(get(p, "method")), "convolution");
    sums_to_one(get(get(p, "attacker"), "totals"));
    sums_to_one(get(get(p, "defender"), "totals"));
    ck_assert_ptr_nonnull(get(get(a, "battle"), "winner"));
    ck_assert_int_eq(json_integer_value(get(get(a, "battle"), "max_phases")),
                     50);
    json_decref(a);
    ts_stop(ts);
}
END_TEST

/* ---- limits and the "odds" object ---- */

START_TEST(test_limits)
{
    test_server *ts = ts_start();
    char body[512];
    json_t *a;

    snprintf(body, sizeof body, scrud_oneoff,
             ", \"odds\": {\"method\": \"exact\", \"max_resolve_calls\": 10}");
    a = ts_call(ts, 422, "POST", "/v1/odds/scrud", NULL, "%s", body);
    ck_assert_str_eq(json_string_value(get(a, "code")), "limit_exceeded");
    ck_assert_str_eq(json_string_value(get(a, "field")), "odds.method");
    ck_assert(strstr(json_string_value(get(a, "detail")), "budget of 10"));
    json_decref(a);
    /* auto over the same budget: sampled, saying why */
    snprintf(body, sizeof body, scrud_oneoff,
             ", \"odds\": {\"max_resolve_calls\": 10, \"samples\": 500}");
    a = ts_call(ts, 200, "POST", "/v1/odds/scrud", NULL, "%s", body);
    ck_assert(json_is_false(get(a, "exact")));
    ck_assert(strstr(json_string_value(get(a, "why")), "budget of 10"));
    json_decref(a);
    snprintf(body, sizeof body, scrud_oneoff,
             ", \"odds\": {\"samples\": 1000001}");
    a = ts_call(ts, 422, "POST", "/v1/odds/scrud", NULL, "%s", body);
    ck_assert_str_eq(json_string_value(get(a, "field")), "odds.samples");
    json_decref(a);
    snprintf(body, sizeof body, scrud_oneoff,
             ", \"odds\": {\"tests_ahead\": 2}"); /* EDNA's, not SCRUD's */
    a = ts_call(ts, 422, "POST", "/v1/odds/scrud", NULL, "%s", body);
    ck_assert_str_eq(json_string_value(get(a, "code")), "unknown_field");
    ck_assert_str_eq(json_string_value(get(a, "field")), "odds.tests_ahead");
    json_decref(a);
    a = ts_call(ts, 422, "POST", "/v1/odds/edna", NULL,
                "{\"units\": [{\"name\": \"x\", \"edna\": 0}]}");
    ck_assert_str_eq(json_string_value(get(a, "code")), "rule_violation");
    json_decref(a);
    ts_stop(ts);
}
END_TEST

/* ---- a campaign ---- */

/* A campaign with units of every system; c's tokens. */
static void campaign(test_server *ts, test_campaign *c)
{
    static const char *const sides[] = {"red", "blue", NULL};
    static const char *const units[][3] = {
        {"R1", "red",
         "{\"scrud\": {\"defeat_penalty\": 1}, \"edna\": "
         "{\"start\": 8}, \"matrix\": {}}"},
        {"R2", "red", "{\"scrud\": {}, \"matrix\": {}}"},
        {"R3", "red", "{\"matrix\": {}}"},
        {"B1", "blue",
         "{\"scrud\": {\"quality\": 1}, \"matrix\": "
         "{\"quality\": 1}}"},
        {"B2", "blue", "{\"matrix\": {}}"},
        {"RS", "red",
         "{\"scs\": {\"attack\": 6, \"defense\": 5, "
         "\"reduced\": {\"attack\": 3, \"defense\": 3}, "
         "\"steps_lost\": 1}}"},
        {"BS", "blue", "{\"scs\": {\"attack\": 2, \"defense\": 4}}"},
        {"RC", "red", "{\"civ\": {\"class\": \"infantry\", \"era\": 3}}"},
        {"BC", "blue", "{\"civ\": {\"class\": \"cavalry\", \"era\": 2}}"},
    };
    char path[128];
    size_t i;

    ts_campaign(ts, c, NULL, sides);
    snprintf(path, sizeof path, "/v1/campaigns/%s/units", c->id);
    for (i = 0; i < sizeof units / sizeof units[0]; i++) {
        json_t *u = json_loads(units[i][2], 0, NULL);
        char *b;
        json_object_set_new(u, "name", json_string(units[i][0]));
        json_object_set_new(u, "side", json_string(units[i][1]));
        b = json_dumps(u, 0);
        json_decref(ts_call(ts, 201, "POST", path, c->umpire, "%s", b));
        free(b);
        json_decref(u);
    }
}

/* What the odds must leave as it was: the units, the combats, the next
 * commitment (new: compare with json_equal). */
static json_t *state_of(test_server *ts, const test_campaign *c)
{
    char p1[128], p2[128], p3[128];
    json_t *s = json_object();

    snprintf(p1, sizeof p1, "/v1/campaigns/%s/units", c->id);
    snprintf(p2, sizeof p2, "/v1/campaigns/%s/combats", c->id);
    snprintf(p3, sizeof p3, "/v1/campaigns/%s", c->id);
    json_object_set_new(s, "units",
                        ts_call(ts, 200, "GET", p1, c->player[0], NULL));
    json_object_set_new(s, "combats",
                        ts_call(ts, 200, "GET", p2, c->player[0], NULL));
    json_object_set_new(s, "campaign",
                        ts_call(ts, 200, "GET", p3, c->player[0], NULL));
    return s;
}

START_TEST(test_campaign_odds_write_nothing)
{
    test_server *ts = ts_start();
    test_campaign c, other;
    char path[160];
    json_t *before, *after, *a;

    campaign(ts, &c);
    campaign(ts, &other);
    before = state_of(ts, &c);
    snprintf(path, sizeof path, "/v1/campaigns/%s/odds/scrud", c.id);
    a = ts_call(ts, 200, "POST", path, c.player[1],
                "{\"sides\": [{\"side\": \"red\", \"units\": [{\"unit\": "
                "\"R1\"}, {\"unit\": \"R2\"}]}, {\"side\": \"blue\", "
                "\"units\": [{\"unit\": \"B1\"}]}]}");
    {
        json_t *r1 =
            json_array_get(get(json_array_get(get(a, "sides"), 0), "units"), 0);
        ck_assert_int_eq(
            json_integer_value(get(get(r1, "defeat_penalty"), "before")), 1);
        ck_assert(json_is_string(get(r1, "unit_id")));
    }
    json_decref(a);
    snprintf(path, sizeof path, "/v1/campaigns/%s/odds/edna", c.id);
    a = ts_call(ts, 200, "POST", path, c.player[0],
                "{\"units\": [{\"unit\": \"R1\"}]}");
    is_frac(get(json_array_get(get(a, "units"), 0), "passed"), "13/18");
    json_decref(a);
    snprintf(path, sizeof path, "/v1/campaigns/%s/odds/scs", c.id);
    a = ts_call(ts, 200, "POST", path, c.player[0],
                "{\"table\": \"example-2d6\", \"attackers\": [{\"unit\": "
                "\"RS\"}], \"defenders\": [{\"unit\": \"BS\"}]}");
    ck_assert_str_eq(json_string_value(get(a, "odds")), "1:1"); /* 3 v 4 */
    json_decref(a);
    after = state_of(ts, &c);
    ck_assert(json_equal(before, after));
    json_decref(before);
    json_decref(after);
    /* tokens as for any read */
    json_decref(ts_call(ts, 401, "POST", path, NULL, "{}"));
    json_decref(ts_call(ts, 403, "POST", path, other.umpire, "{}"));
    ts_stop(ts);
}
END_TEST

START_TEST(test_campaign_matrix_battle)
{
    test_server *ts = ts_start();
    test_campaign c;
    char path[160], odds[160], body[512];
    json_t *b, *a, *c0;

    campaign(ts, &c);
    snprintf(path, sizeof path, "/v1/campaigns/%s/battles", c.id);
    b = ts_call(ts, 201, "POST", path, c.umpire,
                "{\"turn\": 1, \"attacker\": {\"side\": \"red\", \"units\": "
                "[\"R1\", \"R2\", \"R3\"]}, \"defender\": {\"side\": "
                "\"blue\", \"units\": [\"B1\", \"B2\"]}, \"line\": "
                "[{\"attacker\": [\"R1\"], \"defender\": [\"B1\"]}, "
                "{\"attacker\": [\"R2\"], \"defender\": [\"B2\"]}], "
                "\"dice\": {\"source\": \"entered\"}}");
    snprintf(path, sizeof path, "/v1/campaigns/%s/battles/%s/actions", c.id,
             json_string_value(get(b, "id")));
    json_decref(ts_call(ts, 200, "POST", path, c.umpire,
                        "{\"action\": \"roll\", \"combat\": 0, \"dice\": "
                        "{\"R1\": 3, \"B1\": 3}}"));
    snprintf(odds, sizeof odds, "/v1/campaigns/%s/odds/matrix", c.id);
    snprintf(body, sizeof body,
             "{\"battle\": \"%s\", \"expect_actions\": 1, \"odds\": "
             "{\"reserve\": {\"combat\": 0, \"army\": \"attacker\", "
             "\"unit\": \"R3\"}}}",
             json_string_value(get(b, "id")));
    a = ts_call(ts, 200, "POST", odds, c.player[1], "%s", body);
    c0 = json_array_get(get(a, "combats"), 0);
    ck_assert(json_is_true(get(c0, "rolled")));
    /* 3 v 4 as it stands: the attacker repulsed, certain */
    is_frac(get(json_array_get(get(c0, "results"), 1), "p"), "1/1");
    /* R3 joins at -1: 3 + d6 - 1 against 4 */
    sums_to_one(get(get(c0, "if_reserve_joins"), "results"));
    is_frac(get(json_array_get(get(get(c0, "if_reserve_joins"), "results"), 1),
                "p"),
            "1/6");
    ck_assert(json_is_true(get(a, "exact")));
    json_decref(a);
    /* a stale state: 409 */
    body[strlen("{\"battle\": \"") + strlen(json_string_value(get(b, "id"))) +
         strlen("\", \"expect_actions\": ")] = '7';
    json_decref(ts_call(ts, 409, "POST", odds, c.player[1], "%s", body));
    json_decref(ts_call(ts, 404, "POST", odds, c.player[1],
                        "{\"battle\": \"battle_nope\"}"));
    /* a setup not yet created */
    a = ts_call(ts, 200, "POST", odds, c.umpire,
                "{\"turn\": 2, \"attacker\": {\"side\": \"red\", \"units\": "
                "[\"R1\", \"R2\"]}, \"defender\": {\"side\": \"blue\", "
                "\"units\": [\"B1\", \"B2\"]}, \"line\": [{\"attacker\": "
                "[\"R1\"], \"defender\": [\"B1\"]}, {\"attacker\": [\"R2\"], "
                "\"defender\": [\"B2\"]}]}");
    sums_to_one(get(get(get(a, "battle"), "attacker"), "casualty_points"));
    json_decref(a);
    json_decref(b);
    ts_stop(ts);
}
END_TEST

START_TEST(test_campaign_civ_phase)
{
    test_server *ts = ts_start();
    test_campaign c;
    char path[160];
    json_t *b, *a;

    campaign(ts, &c);
    snprintf(path, sizeof path, "/v1/campaigns/%s/battles", c.id);
    b = ts_call(ts, 201, "POST", path, c.umpire,
                "{\"system\": \"civ\", \"turn\": 1, \"current_era\": 3, "
                "\"attacker\": {\"side\": \"red\", \"units\": [\"RC\"]}, "
                "\"defender\": {\"side\": \"blue\", \"units\": [\"BC\"]}}");
    snprintf(path, sizeof path, "/v1/campaigns/%s/odds/civ", c.id);
    a = ts_call(ts, 200, "POST", path, c.player[0],
                "{\"battle\": \"%s\", \"action\": \"phase\", "
                "\"expect_actions\": 0, \"odds\": {\"samples\": 1000}}",
                json_string_value(get(b, "id")));
    sums_to_one(get(get(get(a, "phase"), "attacker"), "totals"));
    sums_to_one(get(get(get(a, "phase"), "defender"), "totals"));
    ck_assert_ptr_nonnull(get(get(a, "battle"), "winner"));
    json_decref(a);
    /* another system's battle, or none */
    snprintf(path, sizeof path, "/v1/campaigns/%s/odds/matrix", c.id);
    a = ts_call(ts, 422, "POST", path, c.player[0], "{\"battle\": \"%s\"}",
                json_string_value(get(b, "id")));
    ck_assert_str_eq(json_string_value(get(a, "field")), "battle");
    json_decref(a);
    snprintf(path, sizeof path, "/v1/campaigns/%s/odds/civ", c.id);
    json_decref(ts_call(ts, 404, "POST", path, c.player[0],
                        "{\"battle\": \"battle_nope\"}"));
    json_decref(b);
    ts_stop(ts);
}
END_TEST

Suite *suite_odds_http(void)
{
    Suite *s = suite_create("odds_http");
    TCase *tc = tcase_create("routes");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_oneoff_scrud);
    tcase_add_test(tc, test_oneoff_edna_closed_form);
    tcase_add_test(tc, test_oneoff_scs_rows);
    tcase_add_test(tc, test_oneoff_matrix);
    tcase_add_test(tc, test_oneoff_civ);
    tcase_add_test(tc, test_limits);
    tcase_add_test(tc, test_campaign_odds_write_nothing);
    tcase_add_test(tc, test_campaign_matrix_battle);
    tcase_add_test(tc, test_campaign_civ_phase);
    suite_add_tcase(s, tc);
    return s;
}
