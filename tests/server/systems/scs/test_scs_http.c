/*
 * test_scs_http.c: SCS over HTTP against docs/rules/scs.md and the API:
 * combat results tables (put, replaced, listed, removed, built-ins, who
 * may change them); units carrying SCS (counters, corrections, resupply,
 * the system filter); the campaign's out-of-supply multipliers and a
 * request's over them; combats refused whole; seeded
 * dice re-derived with rng v1; d66 tables; column shifts, overruns and
 * the advance; replay and tampering; the report's "input" resubmitted;
 * history and the Markdown summary.  The worked examples of the vectors,
 * and tables refused cell by cell, are in test_scs_vectors.c; both use
 * scs_rig.h.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <jansson.h>

#include "combat.h"
#include "harness.h"
#include "pipeline.h"
#include "systems.h"
#include "rig.h"
#include "scs_rig.h"
#include "suites.h"

/* Shorthands for jansson lookups (borrowed; NULL when absent). */
static json_t *get(const json_t *o, const char *k)
{
    return json_object_get(o, k);
}

static json_t *at(const json_t *a, size_t i)
{
    return json_array_get(a, i);
}

static const char *str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static const char *const RB[] = {"Red", "Blue", NULL};

/* ---- 1. Tables: put, replace, read, list, remove; the built-ins ---- */

START_TEST(test_tables_api)
{
    test_campaign c;
    json_t *t, *t2, *doc, *b;
    http_resp r;
    char path[160], name[16], *text;
    int i;

    snprintf(rig_ctx, sizeof rig_ctx, "tables");
    scs_rig_campaign(&c, NULL, RB);
    /* new: 201 with its Location, served as stored */
    snprintf(path, sizeof path, "/v1/campaigns/%s/tables/house", c.id);
    text = scs_text(scs_rig_keep(scs_rig_example_doc()));
    ck_assert_int_eq(ts_request(rig_ts, "PUT", path, c.umpire, text, &r), 0);
    free(text);
    RIG_EQ_INT(r.status, 201);
    RIG_EQ_STR(r.location, path);
    t = scs_rig_keep(json_incref(r.json));
    http_resp_cleanup(&r);
    scs_rig_assert_has(t, "{\"name\":\"house\",\"builtin\":false,"
                          "\"example\":false,\"roll\":\"2d6\"}");
    RIG_IS_TRUE(
        json_equal(scs_call(200, "GET", c.player[0], NULL, "%s", path), t));
    /* replaced: 200, the creation time kept */
    doc = scs_rig_example_doc();
    json_object_set_new(doc, "note", json_string("second edition"));
    scs_rig_set_at(doc, "rows.7[3]", "\"D3r3\"");
    t2 = scs_rig_put_doc(&c, "house", 200, doc);
    RIG_EQ_STR(str(t2, "created_at"), str(t, "created_at"));
    RIG_IS_TRUE(strcmp(str(t2, "updated_at"), str(t, "updated_at")) >= 0);
    scs_rig_assert_has(t2, "{\"note\":\"second edition\"}");
    RIG_EQ_STR(json_string_value(at(get(get(t2, "rows"), "7"), 3)), "D3r3");
    /* a table read from the service can be put back as it is */
    text = scs_text(t2);
    scs_rig_put_table(&c, "house", 200, text);
    free(text);
    /* a d66 table of 36 rows */
    t = scs_rig_put_doc(&c, "d66-house", 201, scs_rig_d66_doc());
    RIG_EQ_STR(str(t, "roll"), "d66");
    RIG_EQ_INT(json_object_size(get(t, "rows")), 36);
    /* the list: the campaign's own */
    t = get(scs_rig_keep(rig_cget(&c, "tables")), "items");
    RIG_EQ_INT(json_array_size(t), 2);
    RIG_IS_TRUE(rig_find_by(t, "name", "house") != NULL);
    RIG_IS_TRUE(rig_find_by(t, "name", "d66-house") != NULL);
    /* built-ins: listed, read, readable through a campaign, not its own */
    t = scs_call(200, "GET", NULL, NULL, "/v1/tables");
    b = rig_find_by(get(t, "items"), "name", "example-2d6");
    scs_rig_assert_has(b, "{\"builtin\":true,\"example\":true}");
    RIG_IS_TRUE(json_equal(
        scs_call(200, "GET", NULL, NULL, "/v1/tables/example-2d6"), b));
    RIG_IS_TRUE(
        json_equal(scs_call(200, "GET", c.player[1], NULL,
                            "/v1/campaigns/%s/tables/example-2d6", c.id),
                   b));
    scs_rig_refuse(404, "not_found", NULL, "GET", NULL, NULL,
                   "/v1/tables/house");
    /* built-in names are refused; so are names unfit for a URL */
    scs_rig_problem(
        scs_rig_put_doc(&c, "example-2d6", 409, scs_rig_example_doc()), 409,
        "conflict", "table_name");
    scs_rig_refuse(409, "conflict", "table_name", "DELETE", c.umpire, NULL,
                   "/v1/campaigns/%s/tables/example-2d6", c.id);
    scs_rig_problem(
        scs_rig_put_doc(&c, "bad%20name", 422, scs_rig_example_doc()), 422,
        "invalid_value", "table_name");
    /* removed: 204, then gone */
    RIG_IS_TRUE(scs_call(204, "DELETE", c.umpire, NULL, "%s", path) == NULL);
    scs_rig_refuse(404, "not_found", NULL, "GET", c.umpire, NULL, "%s", path);
    scs_rig_refuse(404, "not_found", NULL, "DELETE", c.umpire, NULL, "%s",
                   path);
    RIG_EQ_INT(
        json_array_size(get(scs_rig_keep(rig_cget(&c, "tables")), "items")), 1);
    /* at most 100 tables; one of them can still be replaced */
    for (i = 2; i <= 100; i++) {
        snprintf(name, sizeof name, "t%d", i);
        scs_rig_put_doc(&c, name, 201, scs_rig_example_doc());
    }
    scs_rig_problem(scs_rig_put_doc(&c, "t101", 422, scs_rig_example_doc()),
                    422, "limit_exceeded", NULL);
    scs_rig_put_doc(&c, "t2", 200, scs_rig_example_doc());
}
END_TEST

/* ---- 2. Who may read and change a campaign's tables ---- */

START_TEST(test_tables_auth)
{
    /* token: 0 umpire, 1 and 2 players, 3 another campaign's umpire, 4
     * its player, 5 none */
    static const struct {
        int token;
        const char *method, *name;
        int status;
    } reqs[] = {
        {1, "GET", "", 200},          {2, "GET", "/house", 200},
        {1, "PUT", "/house", 403},    {2, "PUT", "/new", 403},
        {1, "DELETE", "/house", 403}, {3, "GET", "", 403},
        {4, "GET", "/house", 403},    {3, "PUT", "/house", 403},
        {3, "DELETE", "/house", 403}, {5, "PUT", "/house", 401},
        {5, "GET", "/house", 401},
    };
    test_campaign c, o;
    json_t *before, *r;
    char *doc = scs_text(scs_rig_keep(scs_rig_example_doc()));
    size_t i;

    scs_rig_campaign(&c, NULL, RB);
    scs_rig_campaign(&o, NULL, RB);
    const char *tokens[] = {c.umpire, c.player[0], c.player[1],
                            o.umpire, o.player[0], NULL};
    scs_rig_put_doc(&c, "house", 201, scs_rig_example_doc());
    before = scs_rig_world(&c);
    for (i = 0; i < sizeof reqs / sizeof reqs[0]; i++) {
        snprintf(rig_ctx, sizeof rig_ctx, "tables auth %zu: %s %s", i,
                 reqs[i].method, reqs[i].name);
        r = scs_call(reqs[i].status, reqs[i].method, tokens[reqs[i].token],
                     strcmp(reqs[i].method, "PUT") ? NULL : doc,
                     "/v1/campaigns/%s/tables%s", c.id, reqs[i].name);
        if (reqs[i].status >= 400)
            scs_rig_problem(
                r, reqs[i].status,
                reqs[i].status == 403 ? "forbidden" : "unauthorized", NULL);
    }
    free(doc);
    scs_rig_assert_unchanged(before, &c);
    /* the other campaign has no table of that name */
    scs_rig_refuse(404, "not_found", NULL, "GET", o.umpire, NULL,
                   "/v1/campaigns/%s/tables/house", o.id);
}
END_TEST

/* ---- 3. Units carrying SCS ---- */

static const struct {
    const char *scs, *code, *field;
} bad_counters[] = {
    {"{\"attack\":2,\"defense\":3,\"steps\":1," RED "}", "invalid_value",
     "scs.reduced"},
    {"{\"attack\":2,\"defense\":3,\"steps\":2}", "missing_field",
     "scs.reduced"},
    {"{\"defense\":3}", "missing_field", "scs.attack"},
    {"{\"attack\":2}", "missing_field", "scs.defense"},
    {"{\"attack\":100,\"defense\":3}", "out_of_range", "scs.attack"},
    {"{\"attack\":2,\"defense\":3,\"reduced\":{\"attack\":1,\"defense\":-1}}",
     "out_of_range", "scs.reduced.defense"},
    {"{\"attack\":2,\"defense\":3,\"steps\":0}", "out_of_range", "scs.steps"},
    {"{\"attack\":2,\"defense\":3,\"colour\":1}", "unknown_field",
     "scs.colour"},
    {"{\"attack\":\"2\",\"defense\":3}", "invalid_value", "scs.attack"},
};

START_TEST(test_units)
{
    char full[64], oos[64], both[64], body[256];
    test_campaign c;
    json_t *u, *ev, *before, *l;
    size_t i;

    snprintf(rig_ctx, sizeof rig_ctx, "units");
    scs_rig_campaign(&c, NULL, RB);
    u = scs_rig_unit(&c, "Full", "Red",
                     "{\"attack\":6,\"defense\":4,\"movement\":5,\"reduced\":{"
                     "\"attack\":3,\"defense\":2,\"movement\":5},"
                     "\"exploit_capable\":true}",
                     full);
    scs_rig_assert_has(u, "{\"systems\":[\"scs\"],\"scs\":{\"steps\":2,"
                          "\"steps_left\":2,\"side_shown\":\"full\","
                          "\"exploit_capable\":true,\"reduced\":{\"attack\":"
                          "3}}}"); /* two sides: two steps */
    u = scs_rig_unit(&c, "Single", "Blue", "{\"attack\":null,\"defense\":3}",
                     NULL);
    scs_rig_assert_has(u, "{\"scs\":{\"attack\":null,\"steps\":1,"
                          "\"reduced\":null,\"out_of_supply\":false}}");
    scs_rig_unit(&c, "Supply", "Red",
                 "{\"attack\":0,\"defense\":1,\"out_of_supply\":true}", oos);
    ts_unit(rig_ts, &c, "Scrud", "Red", 0, 6, NULL);
    l = scs_call(201, "POST", c.umpire,
                 "{\"name\":\"Both\",\"side\":\"Blue\",\"scrud\":{},"
                 "\"scs\":" TWO(4, 4) "}",
                 "/v1/campaigns/%s/units", c.id);
    snprintf(both, sizeof both, "%s", str(l, "id"));
    RIG_EQ_INT(json_array_size(get(l, "systems")), 2);
    /* refused counters and corrections change nothing */
    before = scs_rig_world(&c);
    for (i = 0; i < sizeof bad_counters / sizeof bad_counters[0]; i++) {
        snprintf(rig_ctx, sizeof rig_ctx, "unit %s", bad_counters[i].scs);
        snprintf(body, sizeof body,
                 "{\"name\":\"X\",\"side\":\"Red\",\"scs\":%s}",
                 bad_counters[i].scs);
        scs_rig_refuse(422, bad_counters[i].code, bad_counters[i].field, "POST",
                       c.umpire, body, "/v1/campaigns/%s/units", c.id);
    }
    scs_rig_refuse(422, "out_of_range", "scs.steps_lost", "PATCH", c.umpire,
                   "{\"scs\":{\"steps_lost\":3}}", "/v1/campaigns/%s/units/%s",
                   c.id, full);
    scs_rig_refuse(422, "rule_violation", "scs", "PATCH", c.umpire,
                   "{\"scs\":{\"steps_lost\":1}}",
                   "/v1/campaigns/%s/units/Scrud", c.id);
    scs_rig_assert_unchanged(before, &c);
    /* the system filter */
    snprintf(rig_ctx, sizeof rig_ctx, "units?system=scs");
    l = get(scs_rig_keep(rig_cget(&c, "units?system=scs")), "items");
    RIG_EQ_INT(json_array_size(l), 4);
    RIG_IS_TRUE(rig_find_by(l, "name", "Scrud") == NULL);
    RIG_IS_TRUE(rig_find_by(l, "id", both) != NULL);
    /* corrections: a step lost shows the reduced side; all lost eliminate */
    snprintf(rig_ctx, sizeof rig_ctx, "corrections");
    u = scs_call(200, "PATCH", c.umpire, "{\"scs\":{\"steps_lost\":1}}",
                 "/v1/campaigns/%s/units/%s", c.id, full);
    scs_rig_assert_has(u, "{\"eliminated\":false,\"scs\":{\"side_shown\":"
                          "\"reduced\",\"steps_left\":1}}");
    u = scs_call(200, "PATCH", c.umpire,
                 "{\"scs\":{\"steps_lost\":2},\"note\":\"recount\"}",
                 "/v1/campaigns/%s/units/%s", c.id, full);
    scs_rig_assert_has(u, "{\"eliminated\":true,\"eliminated_reason\":"
                          "\"correction\",\"eliminated_by\":null,\"scs\":{"
                          "\"steps_left\":0}}");
    ev = scs_rig_last_event(&c, full);
    scs_rig_assert_has(ev, "{\"kind\":\"correction\",\"note\":\"recount\","
                           "\"before\":{\"scs\":{\"steps_lost\":1}},"
                           "\"after\":{\"eliminated\":true}}");
    /* resupply: in supply again */
    snprintf(rig_ctx, sizeof rig_ctx, "resupply");
    u = scs_call(200, "POST", c.umpire, NULL,
                 "/v1/campaigns/%s/units/%s/resupply", c.id, oos);
    scs_rig_assert_has(u, "{\"scs\":{\"out_of_supply\":false}}");
    scs_rig_assert_has(scs_rig_last_event(&c, oos),
                       "{\"kind\":\"resupply\",\"before\":{\"scs\":{"
                       "\"out_of_supply\":true}},\"after\":{\"scs\":{"
                       "\"out_of_supply\":false}}}");
}
END_TEST

/* ---- 4. Out of supply: the campaign's multipliers, a request's ---- */

#define OOS(a, d)                                                              \
    "{\"attack\":" #a ",\"defense\":" #d ",\"out_of_supply\":true}"

START_TEST(test_out_of_supply)
{
    test_campaign c;
    json_t *rep, *cmp, *now;

    snprintf(rig_ctx, sizeof rig_ctx, "out of supply");
    scs_rig_campaign(&c,
                     "{\"scs\":{\"out_of_supply\":"
                     "{\"attack\":\"1/2\",\"defense\":\"0.5\"}}}",
                     RB);
    cmp = scs_call(200, "GET", c.umpire, NULL, "/v1/campaigns/%s", c.id);
    scs_rig_assert_has(cmp, "{\"options\":{\"scs\":{\"out_of_supply\":{"
                            "\"attack\":\"1/2\",\"defense\":\"1/2\"}}}}");
    scs_rig_unit(&c, "A", "Red", OOS(6, 4), NULL);
    scs_rig_unit(&c, "A2", "Red", ONE(4, 1), NULL);
    scs_rig_unit(&c, "D", "Blue", OOS(1, 6), NULL);
    scs_rig_unit(&c, "B", "Red", OOS(6, 4), NULL);
    scs_rig_unit(&c, "E", "Blue", OOS(1, 6), NULL);
    /* the campaign's: after the combat's own multipliers */
    rep = scs_rig_combat(
        &c, 201, FIGHT(UN("A") "," UN("A2"), UM("D", "\"1/3\""), ROLL(1, 1)));
    scs_rig_check_value(rep, "A", "[\"1/2\"]", "3");
    scs_rig_check_value(rep, "A2", "[]", "4");
    scs_rig_check_value(rep, "D", "[\"1/3\",\"1/2\"]", "1");
    scs_rig_assert_has(
        rep,
        "{\"attack_total\":{\"fraction\":\"7\"},\"odds\":"
        "\"7:1\",\"column\":\"6:1\",\"attackers\":[{\"out_of_supply\":true},"
        "{\"out_of_supply\":false}]}");
    scs_rig_resubmit(rep);
    /* a request's options over the campaign's, for that combat only */
    rep = scs_rig_combat(
        &c, 201,
        FIGHT(UN("B"), UN("E"),
              ",\"options\":{\"out_of_supply\":{\"attack\":\"0.25\"}}" ROLL(
                  1, 1)));
    scs_rig_check_value(rep, "B", "[\"1/4\"]", "3/2");
    scs_rig_check_value(rep, "E", "[\"1/2\"]", "3");
    scs_rig_assert_has(get(rep, "input"),
                       "{\"options\":{\"out_of_supply\":{\"attack\":\"1/4\","
                       "\"defense\":\"1/2\"}}}");
    /* the options are unchanged; the ledger and the next commitment moved
     * on with the combats */
    now = scs_call(200, "GET", c.umpire, NULL, "/v1/campaigns/%s", c.id);
    RIG_IS_TRUE(json_equal(scs_get(now, "options"), scs_get(cmp, "options")));
    RIG_IS_TRUE(!json_equal(scs_get(now, "ledger"), scs_get(cmp, "ledger")));
    scs_rig_resubmit(rep);
    /* one-off: no effect by default; the request's options apply */
    rep = scs_rig_combat(NULL, 201,
                         FIGHT(IU("a", 6, 1, ",\"out_of_supply\":true"),
                               IU("d", 1, 3, ""), ROLL(1, 1)));
    scs_rig_check_value(rep, "a", "[]", "6");
    rep = scs_rig_combat(
        NULL, 201,
        FIGHT(IU("a", 6, 1, ",\"out_of_supply\":true"),
              IU("d", 1, 3, ",\"out_of_supply\":true,\"multipliers\":[2]"),
              ",\"options\":{\"out_of_supply\":{\"attack\":\"1/2\","
              "\"defense\":\"0.5\"}}" ROLL(1, 1)));
    scs_rig_check_value(rep, "a", "[\"1/2\"]", "3");
    scs_rig_check_value(rep, "d", "[\"2\",\"1/2\"]", "3");
    RIG_EQ_STR(str(rep, "odds"), "1:1");
    /* a multiplier that is not positive is refused where it is given */
    scs_rig_refuse(422, "invalid_value", "options.scs.out_of_supply.defense",
                   "POST", NULL,
                   "{\"name\":\"x\",\"sides\":[{\"name\":\"a\"}],"
                   "\"options\":{\"scs\":{\"out_of_supply\":{"
                   "\"defense\":-1}}}}",
                   "/v1/campaigns");
}
END_TEST

/* ---- 5. Refused combats change nothing ---- */

static const struct {
    bool is_oneoff;
    const char *body, *code, *field;
} refused[] = {
    {0, FIGHT(UN("R6"), UN("S"), ROLL(3, 4)), "rule_violation",
     "defenders[0].unit"}, /* S does not carry SCS */
    {0, FIGHT(UN("R6"), UN("Gone"), ROLL(3, 4)), "rule_violation",
     "defenders[0].unit"},
    {0, FIGHT(UN("R6") "," UN("B4"), UN("B3"), ROLL(3, 4)), "rule_violation",
     "attackers[1].unit"},
    {0, FIGHT(UN("R6"), UN("B4") "," UN("R3"), ROLL(3, 4)), "rule_violation",
     "defenders[1].unit"},
    {0, FIGHT(UN("R6"), UN("R3"), ROLL(3, 4)), "rule_violation",
     "defenders[0].unit"},
    {0, FIGHT(UN("R6") "," UN("R6"), UN("B4"), ROLL(3, 4)), "invalid_value",
     "attackers[1].unit"},
    {0, FIGHT(UN("R6"), UN("B4") "," UN("R6"), ROLL(3, 4)), "invalid_value",
     "defenders[1].unit"},
    {0, FIGHT(UN("Nobody"), UN("B4"), ROLL(3, 4)), "invalid_value",
     "attackers[0].unit"},
    {0, COMBAT("nope", UN("R6"), UN("B4"), ENTERED ROLL(3, 4)), "invalid_value",
     "table"},
    {0, FIGHT(UN("RN"), UN("B4"), ROLL(3, 4)), "rule_violation",
     "attackers[0]"},
    {0, FIGHT(UN("R3") "," UN("RN"), UN("B4"), ROLL(3, 4)), "rule_violation",
     "attackers[1]"},
    {0, FIGHT(UN("R0") "," UN("R00"), UN("B4"), ROLL(3, 4)), "rule_violation",
     "attackers"},
    {0,
     FIGHT(UN("R6") "," UN("R3"), UN("B4"),
           ",\"attacker_allocation\":[\"R6\",\"R6\"]" ROLL(1, 1)),
     "rule_violation", "attacker_allocation[1]"}, /* 8.0b */
    {0,
     FIGHT(UN("R6"), UN("B4") "," UN("B3"),
           ",\"defender_allocation\":[\"B3\"]" ROLL(1, 1)),
     "rule_violation", "defender_allocation[0]"}, /* 8.0a */
    {0,
     FIGHT(UN("R6"), UN("B4"), ",\"attacker_allocation\":[\"B4\"]" ROLL(1, 1)),
     "invalid_value", "attacker_allocation[0]"},
    {0, COMBAT("example-2d6", UN("R6"), UN("B4"), ROLL(3, 4)), "invalid_value",
     "roll"}, /* seeded dice and a roll */
    {0, FIGHT(UN("R6"), UN("B4"), ""), "missing_field", "roll"},
    {0, FIGHT(UN("R3"), UM("B4", "4"), ROLL(3, 4)), "invalid_value",
     "roll"}, /* off the table: no roll */
    {0, FIGHT(UN("R6"), UN("B4"), ROLL(7, 1)), "out_of_range", "roll[0]"},
    {0, FIGHT(UN("R6"), UN("B4"), ROLL(1, 0)), "out_of_range", "roll[1]"},
    {0, FIGHT(UN("R6"), UN("B4"), ",\"roll\":[3]"), "out_of_range", "roll"},
    {0, FIGHT(UN("R6"), UN("B4"), ",\"hexes\":1" ROLL(3, 4)), "unknown_field",
     "hexes"},
    {0, FIGHT("{\"unit\":\"R6\",\"attack\":9}", UN("B4"), ROLL(3, 4)),
     "unknown_field", "attackers[0].attack"},
    {0,
     FIGHT(UN("R6"), UN("B4"), ",\"defender_retreat\":{\"zoc\":1}" ROLL(3, 4)),
     "unknown_field", "defender_retreat.zoc"},
    {0,
     FIGHT(UN("R6"), UN("B4"),
           ",\"defender_retreat\":{\"convert_to_steps\":21}" ROLL(3, 4)),
     "out_of_range", "defender_retreat.convert_to_steps"},
    {0,
     FIGHT(UN("R6"), UN("B4"),
           ",\"defender_retreat\":{\"extra_step_units\":[\"R6\"]}" ROLL(3, 4)),
     "invalid_value", "defender_retreat.extra_step_units[0]"},
    {0, FIGHT(UM("R6", "\"0\""), UN("B4"), ROLL(3, 4)), "invalid_value",
     "attackers[0].multipliers[0]"},
    {0, FIGHT(UN("R6"), UN("B4"), ",\"column_shift\":21" ROLL(3, 4)),
     "out_of_range", "column_shift"},
    /* one-off: units inline, built-in tables only */
    {1,
     FIGHT(IU("a", 5, 3, ",\"steps\":2,\"steps_lost\":2," RED),
           IU("d", 1, 1, ""), ROLL(3, 4)),
     "rule_violation", "attackers[0].steps_lost"},
    {1,
     FIGHT(IU("a", 5, 3, ",\"steps\":1," RED), IU("d", 1, 1, ""), ROLL(3, 4)),
     "invalid_value", "attackers[0].reduced"},
    {1, FIGHT(IU("a", 5, 3, ""), IU("a", 1, 1, ""), ROLL(3, 4)),
     "invalid_value", "defenders[0].name"},
    {1, FIGHT(IU("a", 5, 3, ",\"hexes\":1"), IU("d", 1, 1, ""), ROLL(3, 4)),
     "unknown_field", "attackers[0].hexes"},
    {1, FIGHT(IU("a", 1, 3, ""), IU("d", 1, 9, ""), ROLL(3, 4)),
     "invalid_value", "roll"},
    {1,
     COMBAT("house", IU("a", 5, 3, ""), IU("d", 1, 1, ""), ENTERED ROLL(3, 4)),
     "invalid_value", "table"},
};

START_TEST(test_refusals_change_nothing)
{
    test_campaign c;
    char r6[64], body[512];
    json_t *before, *p;
    size_t i;

    scs_rig_campaign(&c, NULL, RB);
    scs_rig_put_doc(&c, "house", 201, scs_rig_example_doc());
    scs_rig_unit(&c, "R6", "Red", TWO(6, 4), r6);
    scs_rig_unit(&c, "R3", "Red", TWO(3, 3), NULL);
    scs_rig_unit(&c, "R0", "Red", ONE(0, 2), NULL);
    scs_rig_unit(&c, "R00", "Red", ONE(0, 1), NULL);
    scs_rig_unit(&c, "RN", "Red", "{\"attack\":null,\"defense\":2}", NULL);
    scs_rig_unit(&c, "B4", "Blue", TWO(2, 4), NULL);
    scs_rig_unit(&c, "B2", "Blue", TWO(2, 2), NULL);
    scs_rig_unit(&c, "B3", "Blue", TWO(2, 3), NULL);
    scs_rig_unit(&c, "Gone", "Blue", ONE(1, 1), NULL);
    ts_unit(rig_ts, &c, "S", "Blue", 0, 6, NULL);
    scs_call(200, "PATCH", c.umpire, "{\"scs\":{\"steps_lost\":1}}",
             "/v1/campaigns/%s/units/Gone", c.id);
    scs_rig_combat(&c, 201, FIGHT(UN("R6"), UN("B2"), ROLL(3, 4)));
    before = scs_rig_world(&c); /* with the database's combats and rolls */
    for (i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        snprintf(rig_ctx, sizeof rig_ctx, "refused %s%.150s",
                 refused[i].is_oneoff ? "one-off " : "", refused[i].body);
        p = scs_rig_combat(refused[i].is_oneoff ? NULL : &c, 422,
                           refused[i].body);
        scs_rig_problem(p, 422, refused[i].code, refused[i].field);
        if (strstr(refused[i].field, "allocation[") &&
            !strcmp(refused[i].code, "rule_violation"))
            scs_rig_assert_contains(str(p, "detail"), "(rule 8.0");
        scs_rig_assert_unchanged(before, &c);
    }
    /* the same unit by name and by id; a player may not fight */
    snprintf(rig_ctx, sizeof rig_ctx, "R6 by name and by id");
    snprintf(body, sizeof body,
             FIGHT(UN("R6") ",{\"unit\":\"%s\"}", UN("B4"), ROLL(3, 4)), r6);
    scs_rig_problem(scs_rig_combat(&c, 422, body), 422, "invalid_value",
                    "attackers[1].unit");
    scs_rig_refuse(403, "forbidden", NULL, "POST", c.player[0],
                   FIGHT(UN("R6"), UN("B4"), ROLL(3, 4)),
                   "/v1/campaigns/%s/combats/scs", c.id);
    scs_rig_assert_unchanged(before, &c);
}
END_TEST

/* ---- 6. Dice: seeded ones re-derived; d66, the first die the tens ---- */

#define TENS(more) COMBAT("tens", UN("R"), UN("B"), more)

START_TEST(test_dice)
{
    json_t *d66 = scs_rig_keep(scs_rig_d66_doc()), *ex, *rep, *r;
    test_campaign c;
    char *text;
    int n;

    scs_rig_campaign(&c, NULL, RB);
    scs_rig_put_doc(&c, "tens", 201, scs_rig_d66_doc());
    scs_rig_unit(&c, "R", "Red",
                 "{\"attack\":9,\"defense\":4,\"steps\":9,\"reduced\":{"
                 "\"attack\":8,\"defense\":4}}",
                 NULL);
    scs_rig_unit(&c, "B", "Blue",
                 "{\"attack\":2,\"defense\":3,\"steps\":20,\"reduced\":{"
                 "\"attack\":1,\"defense\":3}}",
                 NULL);
    ex = scs_call(200, "GET", NULL, NULL, "/v1/tables/example-2d6");
    /* 3:1 on the example table, R losing at most 1 step a combat and B 3:
     * neither runs out of steps */
    for (n = 0; n < 4; n++) {
        snprintf(rig_ctx, sizeof rig_ctx, "seeded campaign combat %d", n + 1);
        rep =
            scs_rig_combat(&c, 201,
                           COMBAT("example-2d6", UN("R"), UN("B"),
                                  ",\"dice\":{\"client_seed\":\"discord:7\"}"));
        RIG_EQ_STR(str(get(rep, "dice"), "client_seed"), "discord:7");
        scs_rig_check_seeded(rep);
        scs_rig_check_cell(rep, ex);
        /* a step lost shows the reduced side, attack 8 */
        r = scs_rig_report_unit(rep, "R");
        RIG_EQ_INT(rig_inum(r, "strength"),
                   strcmp(str(r, "side_shown"), "full") ? 8 : 9);
        RIG_IS_TRUE(json_is_true(get(scs_rig_replay(rep, c.player[1], true),
                                     "seeded_dice_verified")));
        scs_rig_resubmit(rep);
    }
    /* the campaign's d66 table with entered dice: 35 and 53 differ */
    snprintf(rig_ctx, sizeof rig_ctx, "d66 entered");
    rep = scs_rig_combat(&c, 201, TENS(ENTERED ROLL(3, 5)));
    scs_rig_assert_has(rep, "{\"table\":{\"name\":\"tens\",\"source\":"
                            "\"campaign\",\"roll\":\"d66\"},\"roll\":{"
                            "\"kind\":\"d66\",\"dice\":[3,5],\"value\":35},"
                            "\"result\":\"D1r2\"}");
    scs_rig_assert_contains(str(rep, "summary_markdown"), "Roll 35 (d66)");
    scs_rig_replay(rep, c.umpire, true);
    scs_rig_resubmit(rep);
    rep = scs_rig_combat(&c, 201, TENS(ENTERED ROLL(5, 3)));
    scs_rig_assert_has(rep, "{\"roll\":{\"value\":53},\"result\":\"A1\"}");
    scs_rig_resubmit(rep);
    /* one-off, d66, no client seed: 10 x the first die + the second */
    text = scs_text(scs_rig_keep(
        json_pack("{s:O, s:[{s:s, s:i, s:i}], s:[{s:s, s:i, s:i}]}", "table",
                  d66, "attackers", "name", "a", "attack", 6, "defense", 1,
                  "defenders", "name", "d", "attack", 1, "defense", 2)));
    for (n = 0; n < 4; n++) {
        snprintf(rig_ctx, sizeof rig_ctx, "seeded one-off d66 %d", n + 1);
        rep = scs_rig_combat(NULL, 201, text);
        scs_rig_assert_has(rep, "{\"roll\":{\"kind\":\"d66\"},\"dice\":{"
                                "\"client_seed\":null}}");
        scs_rig_check_seeded(rep);
        scs_rig_check_cell(rep, d66);
        RIG_IS_TRUE(json_is_true(
            get(scs_rig_replay(rep, NULL, true), "seeded_dice_verified")));
    }
    free(text);
}
END_TEST

/* ---- 7. Column shifts, a defense of 0, overruns, the advance ---- */

#define STEPS3 ",\"steps\":3," RED

static const struct {
    const char *what, *body;
    const char *expect; /* part of the report */
    int att_lost, def_lost;
} shapes[] = {
    {"3:1 shifted right",
     FIGHT(IU("a", 9, 1, ""), IU("d", 1, 3, ""),
           ",\"column_shift\":1" ROLL(3, 4)),
     "{\"odds\":\"3:1\",\"column_before_shifts\":\"3:1\",\"column\":\"4:1\","
     "\"roll\":{\"value\":7},\"result\":\"D2r3\",\"hex_vacated\":true,"
     "\"advance\":{\"allowed\":true,\"required\":false,\"hexes\":1,"
     "\"exploit_hexes\":3},\"defender\":{\"steps_ignored\":1}}",
     0, 1},
    {"shifted off the left",
     FIGHT(IU("a", 3, 1, STEPS3), IU("d", 1, 3, ""), ",\"column_shift\":-2"),
     "{\"odds\":\"1:1\",\"column_before_shifts\":\"1:1\",\"column\":null,"
     "\"off_table\":true,\"roll\":null,\"result\":null,\"rolls\":[],"
     "\"losses\":[{\"cause\":\"off_table\"}],\"hex_vacated\":false}",
     1, 0},
    {"shifts stop at the right edge",
     FIGHT(IU("a", 10, 1, ""), IU("d", 1, 2, STEPS3),
           ",\"column_shift\":5" ROLL(1, 1)),
     "{\"odds\":\"5:1\",\"column\":\"6:1\",\"result\":\"D1r2\","
     "\"defender\":{\"retreat_hexes\":2},\"advance\":{\"allowed\":true,"
     "\"hexes\":1,\"exploit_hexes\":2}}",
     0, 1},
    {"a defense of 0: the rightmost column",
     FIGHT(IU("a", 1, 1, ""), IU("d", 1, 0, STEPS3), ROLL(1, 1)),
     "{\"odds\":null,\"ratio\":null,\"column_before_shifts\":\"6:1\","
     "\"column\":\"6:1\",\"result\":\"D1r2\"}",
     0, 1},
    {"overrun, the defender destroyed",
     FIGHT(IU("a", 12, 1, ",\"exploit_capable\":true"), IU("d", 1, 2, ""),
           ",\"overrun\":true" ROLL(6, 6)),
     "{\"overrun\":true,\"result\":\"D4r5\",\"eliminated\":[\"d\"],"
     "\"hex_vacated\":true,\"advance\":{\"allowed\":true,\"required\":true,"
     "\"hexes\":1,\"exploit_hexes\":5},\"input\":{\"overrun\":true}}",
     0, 1},
    {"overrun, the attacker retreats",
     FIGHT(IU("a", 3, 1, STEPS3), IU("d", 1, 3, ""),
           ",\"overrun\":true" ROLL(1, 1)),
     "{\"overrun\":true,\"result\":\"A2r1\",\"attacker\":{\"retreat_hexes\":"
     "1},\"hex_vacated\":false,\"advance\":{\"allowed\":false,\"required\":"
     "false,\"hexes\":0}}",
     2, 0},
    {"no retreat: converted, the exploit kept",
     FIGHT(IU("a", 10, 1, ",\"exploit_capable\":true") "," IU("b", 0, 1, ""),
           IU("d", 1, 2, STEPS3),
           ",\"defender_retreat\":{\"convert_to_steps\":1}" ROLL(1, 2)),
     "{\"result\":\"D1r2\",\"defender\":{\"converted\":1,\"retreat_hexes\":1},"
     "\"losses\":[{\"cause\":\"table\"},{\"cause\":\"conversion\"}],"
     "\"advance\":{\"allowed\":true,\"hexes\":1,\"exploit_hexes\":2}}",
     0, 2},
    {"an EZOC hex and a blocked one",
     FIGHT(IU("a", 10, 1, ""), IU("d", 1, 2, ",\"steps\":5," RED),
           ",\"defender_retreat\":{\"ezoc_hexes\":1,\"blocked_hexes\":1}" ROLL(
               6, 6)),
     "{\"result\":\"D4r4\",\"defender\":{\"ezoc_hexes\":1,\"blocked_hexes\":"
     "1,\"steps_ignored\":1,\"retreat_hexes\":0,\"eliminated\":true},"
     "\"losses\":[{},{},{},{},{\"cause\":\"blocked\"}],\"eliminated\":[\"d\"]}",
     0, 5},
};

START_TEST(test_shapes)
{
    size_t i, k;
    json_t *rep, *u;

    for (i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        snprintf(rig_ctx, sizeof rig_ctx, "%s", shapes[i].what);
        rep = scs_rig_combat(NULL, 201, shapes[i].body);
        scs_rig_assert_has(rep, "%s", shapes[i].expect);
        RIG_EQ_INT(scs_rig_n_lost(rep, "attacker"), shapes[i].att_lost);
        RIG_EQ_INT(scs_rig_n_lost(rep, "defender"), shapes[i].def_lost);
        /* each attacker its hexes; defenders never advance */
        json_array_foreach(get(rep, "attackers"), k, u)
        {
            RIG_EQ_INT(rig_inum(u, "advance_hexes"),
                       json_is_true(get(u, "eliminated")) ? 0
                       : json_is_true(get(u, "exploit_capable"))
                           ? rig_inum(get(rep, "advance"), "exploit_hexes")
                           : rig_inum(get(rep, "advance"), "hexes"));
        }
        json_array_foreach(get(rep, "defenders"), k, u)
        {
            RIG_EQ_INT(rig_inum(u, "advance_hexes"), 0);
        }
        /* the summary says what happened */
        scs_rig_assert_contains(str(rep, "summary_markdown"),
                                json_is_true(get(rep, "off_table"))
                                    ? "off the left of the table"
                                    : str(rep, "result"));
        if (json_is_true(get(rep, "overrun")))
            scs_rig_assert_contains(str(rep, "summary_markdown"), "overrun");
        scs_rig_replay(rep, NULL, true);
        scs_rig_resubmit(rep);
    }
}
END_TEST

/* ---- 8. Replay: a table replaced changes nothing; tampering shows ---- */

#define HOUSE(more) COMBAT("house", UN("R"), UN("B"), more)

START_TEST(test_replay_and_tampering)
{
    /* the first roll's natural, then members of the stored report */
    static const struct {
        const char *path, *value;
    } tamper[] = {{NULL, "6"},
                  {"result", "\"D4r4\""},
                  {"input.column_shift", "3"},
                  {"input.defenders[0].multipliers", "[\"1/2\"]"}};
    static const char *const steady = "{\"attack\":3,\"defense\":3,\"steps\":"
                                      "20,\"reduced\":{\"attack\":3,"
                                      "\"defense\":3}}";
    test_campaign c;
    json_t *rep, *doc, *r;
    size_t i;

    scs_rig_campaign(&c, NULL, RB);
    scs_rig_put_doc(&c, "house", 201, scs_rig_example_doc());
    scs_rig_unit(&c, "R", "Red", steady, NULL);
    scs_rig_unit(&c, "B", "Blue", steady, NULL);
    for (i = 0; i < sizeof tamper / sizeof tamper[0]; i++) {
        snprintf(rig_ctx, sizeof rig_ctx, "tamper: %s = %s",
                 tamper[i].path ? tamper[i].path : "natural", tamper[i].value);
        rep = scs_rig_combat(&c, 201, HOUSE(ENTERED ROLL(1, 1)));
        RIG_EQ_STR(str(rep, "result"), "A2r1");
        /* the campaign's table replaced: the report kept the old one */
        doc = scs_rig_example_doc();
        scs_rig_set_at(doc, "rows.2[1]", "\"D1\"");
        scs_rig_put_doc(&c, "house", 200, doc);
        scs_rig_replay(rep, c.umpire, true);
        scs_rig_put_doc(&c, "house", 200, scs_rig_example_doc());
        RIG_EQ_INT(tamper[i].path
                       ? scs_rig_edit_report(str(rep, "id"), tamper[i].path,
                                             tamper[i].value)
                       : rig_edit_roll(str(rep, "id"), 1, "6"),
                   1);
        r = scs_rig_replay(rep, c.umpire, false);
        RIG_IS_TRUE(json_is_null(get(r, "seeded_dice_verified")));
    }
    /* a seeded roll altered: the dice no longer follow from the seed */
    snprintf(rig_ctx, sizeof rig_ctx, "tamper a seeded roll");
    rep = scs_rig_combat(&c, 201, HOUSE(""));
    scs_rig_replay(rep, c.umpire, true);
    RIG_EQ_INT(rig_edit_roll(str(rep, "id"), 2, "\"natural\" % 6 + 1"), 1);
    r = scs_rig_replay(rep, c.umpire, false);
    RIG_IS_TRUE(json_is_false(get(r, "seeded_dice_verified")));
    /* the table removed: its combats still read and replay */
    snprintf(rig_ctx, sizeof rig_ctx, "table removed");
    scs_call(204, "DELETE", c.umpire, NULL, "/v1/campaigns/%s/tables/house",
             c.id);
    rep = scs_rig_combat(&c, 201, FIGHT(UN("R"), UN("B"), ROLL(2, 2)));
    scs_rig_replay(rep, c.umpire, true);
}
END_TEST

/* ---- 9. A campaign combat: input, history, Markdown, the list ---- */

#define RECORD                                                                 \
    ",\"column_shift\":1,\"note\":\"Hill 112\",\"defender_retreat\":{"         \
    "\"convert_to_steps\":1,\"blocked_hexes\":1,\"extra_step_units\":["        \
    "\"B2\"]}"

START_TEST(test_campaign_combat_record)
{
    test_campaign c;
    char r_id[64], b_id[64];
    json_t *rep, *l, *ev;

    snprintf(rig_ctx, sizeof rig_ctx, "campaign combat record");
    scs_rig_campaign(&c, "{\"scs\":{\"out_of_supply\":{\"attack\":\"1/2\"}}}",
                     RB);
    scs_rig_put_doc(&c, "house", 201, scs_rig_example_doc());
    scs_rig_unit(&c, "R", "Red",
                 "{\"attack\":6,\"defense\":4,\"reduced\":{\"attack\":3,"
                 "\"defense\":2},\"exploit_capable\":true,\"out_of_supply\":"
                 "true}",
                 r_id);
    scs_rig_unit(&c, "R2", "Red", TWO(3, 3), NULL);
    scs_rig_unit(&c, "B", "Blue", TWO(2, 4), b_id);
    scs_rig_unit(&c, "B2", "Blue", ONE(1, 2), NULL);
    /* 6 x 2 x 1/2 + 3 = 9 against 4 x 1/2 + 2 = 4: 2:1, shifted to 3:1;
     * D2r2: a step from each, one hex converted (B2 has none left: B),
     * which leaves the side no unit to retreat, so no hex is blocked; R,
     * exploit capable, two hexes */
    rep = scs_rig_combat(&c, 201,
                         COMBAT("house", UM("R", "2") "," UN("R2"),
                                UM("B", "\"1/2\"") "," UN("B2"),
                                RECORD ENTERED ROLL(4, 4)));
    scs_rig_assert_has(
        rep, "{\"odds\":\"2:1\",\"column\":\"3:1\",\"result\":\"D2r2\","
             "\"note\":\"Hill 112\",\"eliminated\":[\"B\",\"B2\"],"
             "\"table\":{\"name\":\"house\",\"source\":\"campaign\"},"
             "\"defender\":{\"converted\":1,\"blocked_hexes\":0,"
             "\"steps_ignored\":0},\"attackers\":[{\"advance_hexes\":2},"
             "{\"advance_hexes\":1}]}");
    /* The four units as the combat left them (steps lost, eliminated,
     * out of supply), kept for the campaign's next combat: the store's
     * rows, byte for byte. */
    RIG_EQ_INT(ts_check_kept_units(rig_ts, c.id), ts_is_pg() ? -1 : 4);
    RIG_IS_TRUE(json_equal(get(get(get(rep, "input"), "table"), "rows"),
                           get(scs_rig_keep(scs_rig_example_doc()), "rows")));
    scs_rig_resubmit(rep);
    scs_rig_replay(rep, c.player[0], true);
    /* read back, listed with its summary, and the Markdown */
    RIG_IS_TRUE(json_equal(
        scs_rig_keep(rig_cget(&c, "combats/%s", str(rep, "id"))), rep));
    l = get(scs_rig_keep(rig_cget(&c, "combats")), "items");
    RIG_EQ_INT(json_array_size(l), 1);
    RIG_EQ_STR(str(at(l, 0), "system"), "scs");
    scs_rig_assert_contains(str(at(l, 0), "summary"), "D2r2");
    scs_rig_assert_contains(str(rep, "summary_markdown"), "3:1");
    scs_rig_assert_contains(str(rep, "summary_markdown"), "D2r2");
    scs_rig_assert_contains(str(rep, "summary_markdown"),
                            "B loses 2 steps (eliminated)");
    scs_rig_assert_contains(str(rep, "summary_markdown"),
                            "B2 loses 1 step (eliminated)");
    /* the units' histories: a combat of system "scs" */
    ev = scs_rig_last_event(&c, b_id);
    scs_rig_assert_has(
        ev,
        "{\"kind\":\"combat\",\"combat_id\":\"%s\",\"note\":"
        "\"Hill 112\",\"result\":{\"system\":\"scs\",\"lost\":2},"
        "\"after\":{\"eliminated\":true,\"eliminated_reason\":\"steps\"}}",
        str(rep, "id"));
    ev = scs_rig_last_event(&c, r_id);
    scs_rig_assert_has(ev, "{\"kind\":\"combat\",\"result\":{\"system\":"
                           "\"scs\",\"advance_hexes\":2,\"multipliers\":["
                           "\"2\",\"1/2\"]}}");
}
END_TEST

/* A combat worked out off the writer (pipeline_stage) whose campaign
 * table is replaced before the writer lands it: worked out again with the
 * table as it is then (SCS's reset drops a table found by name). */
START_TEST(test_staged_combat_sees_table_replaced)
{
    const systems_entry *sys = systems_find("scs");
    long long landed0, redone0, landed, redone;
    test_campaign c;
    json_t *body, *rep;
    void *job = NULL;
    char path[192], id[64];
    err_info e;

    scs_rig_campaign(&c, NULL, RB);
    scs_rig_unit(&c, "A", "Red", ONE(6, 1), NULL);
    scs_rig_unit(&c, "D", "Blue", ONE(1, 2), NULL);
    scs_rig_put_doc(&c, "house", 201, scs_rig_example_doc());
    body = scs_rig_keep(
        scs_json(COMBAT("house", UN("A"), UN("D"), ENTERED ROLL(3, 4))));
    err_clear(&e);
    RIG_EQ_INT(pipeline_read(sys, body, c.id, "", &job, &e), ERR_OK);
    pipeline_stats(&landed0, &redone0);
    RIG_IS_TRUE(pipeline_stage(http_db(rig_ts->srv), job));
    /* Replaced by a d66 table before the writer lands the combat. */
    scs_rig_put_doc(&c, "house", 200, scs_rig_d66_doc());
    RIG_EQ_INT(db_write(http_db(rig_ts->srv), pipeline_campaign_job, job, &e),
               ERR_OK);
    snprintf(id, sizeof id, "%s", ((combat_record *)job)->cb.id);
    sys->job_free(job);
    pipeline_stats(&landed, &redone);
    RIG_EQ_INT(landed, landed0);
    RIG_EQ_INT(redone, redone0 + 1);
    snprintf(path, sizeof path, "/v1/campaigns/%s/combats/%s", c.id, id);
    rep = scs_call(200, "GET", c.umpire, NULL, "%s", path);
    RIG_EQ_STR(scs_str(scs_get(rep, "table"), "roll"), "d66");
}
END_TEST

Suite *suite_scs_http(void)
{
    Suite *s = suite_create("scs_http");
    TCase *tc = tcase_create("scs_http");

    tcase_add_checked_fixture(tc, scs_rig_setup, scs_rig_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_tables_api);
    tcase_add_test(tc, test_tables_auth);
    tcase_add_test(tc, test_units);
    tcase_add_test(tc, test_out_of_supply);
    tcase_add_test(tc, test_refusals_change_nothing);
    tcase_add_test(tc, test_dice);
    tcase_add_test(tc, test_shapes);
    tcase_add_test(tc, test_replay_and_tampering);
    tcase_add_test(tc, test_campaign_combat_record);
    tcase_add_test(tc, test_staged_combat_sees_table_replaced);
    suite_add_tcase(s, tc);
    return s;
}
