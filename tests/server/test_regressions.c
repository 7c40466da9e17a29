/*
 * test_regressions.c: one test per fixed bug, named after it, through real
 * HTTP on a fresh server (rig.h).  Each test asserts what the fixed code
 * answers and, where it shows, what the buggy code answered instead, so it
 * fails if the bug comes back.
 *
 * Covered elsewhere, so not repeated here: db_write keeping the caller's
 * first error (tests/db/test_db.c, test_db_write_keeps_first_error), a
 * campaign name of 65 bytes refused out_of_range on "name" (tests/server/
 * resources/test_api.c, test_refused_changes_nothing), and the body "x"
 * refused invalid_value on campaign creation (same table; the other
 * scalars and routes are here).  The descending table column is also
 * checked, less strictly (only that the garbled words are gone), by
 * tests/server/systems/scs/test_scs_vectors.c,
 * test_regression_descending_column_detail; here the fixed sentence is
 * asserted.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <jansson.h>
#include <sqlite3.h>

#include "db_sql.h"
#include "harness.h"
#include "rig.h"
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

/* p is a 422 problem with this code and, unless NULL, this field. */
static void expect_problem(const json_t *p, const char *code, const char *field)
{
    char type[96];
    size_t i;

    RIG_IS_TRUE(json_is_object(p));
    RIG_EQ_INT(rig_inum(p, "status"), 422);
    RIG_EQ_STR(str(p, "code"), code);
    snprintf(type, sizeof type, "urn:umpire:problem:%s", code);
    for (i = 0; type[i]; i++)
        type[i] = type[i] == '_' ? '-' : type[i];
    RIG_EQ_STR(str(p, "type"), type);
    if (field)
        RIG_EQ_STR(str(p, "field"), field);
    RIG_IS_TRUE(get(p, "id") == NULL); /* a problem, not a combat */
}

/* The integer sql gives (one optional text argument); asserts a row. */
static long long db_int(const char *sql, const char *arg)
{
    char v[32];

    if (arg)
        ck_assert_msg(ts_sql_text(rig_ts, v, sizeof v, sql, TS_TEXT(arg)),
                      "no row: %s", sql);
    else
        ck_assert_msg(ts_sql_text(rig_ts, v, sizeof v, sql), "no row: %s", sql);
    return strtoll(v, NULL, 10);
}

static long long n_combats(void)
{
    return db_int("SELECT count(*) FROM combats", NULL);
}

/* Request bodies, written compactly: campaign units (U), one-off units
 * (N: name and die; NF: with faces), sides of each kind. */
#define U(n, d)     "{\"unit\":\"" n "\",\"die\":" #d "}"
#define N(n, d)     "{\"name\":\"" n "\",\"die\":" #d "}"
#define NF(n, f, d) "{\"name\":\"" n "\",\"faces\":" #f ",\"die\":" #d "}"
#define SIDE(s, u)  "{\"side\":\"" s "\",\"units\":[" u "]}"
#define NSIDE(s, u) "{\"name\":\"" s "\",\"units\":[" u "]}"
#define ENTERED_LIST(list)                                                     \
    "{\"sides\":[" list "],\"dice\":{\"source\":\"entered\"}}"
#define ENTERED(s0, s1) ENTERED_LIST(s0 "," s1)
#define ENTERED_OPTS(opts, s0, s1)                                             \
    "{\"sides\":[" s0 "," s1 "],\"dice\":{\"source\":\"entered\"},"            \
    "\"options\":" opts "}"

static const char *const AB[] = {"a", "b", NULL};

/* ---- campaign combat options apply over the campaign's ---- */

/*
 * Bug: a campaign combat's "options" were applied over the default options
 * instead of the campaign's.  With the campaign's floor null, the body's
 * cap 0 was refused (out_of_range on options.floor: the default floor 1
 * is above it).  Now it is accepted and the report shows the merge.
 */
START_TEST(test_campaign_combat_options_over_campaign_options)
{
    test_campaign c, d;
    json_t *cmp, *rep, *o, *p;

    ts_campaign(rig_ts, &c, "{\"floor\":null}", AB);
    ts_unit(rig_ts, &c, "A1", "a", 0, 6, NULL);
    ts_unit(rig_ts, &c, "B1", "b", 0, 6, NULL);
    snprintf(rig_ctx, sizeof rig_ctx, "campaign with floor null");
    cmp = rig_call(200, "GET", c.umpire, NULL, "/v1/campaigns/%s", c.id);
    RIG_IS_TRUE(json_is_null(get(get(get(cmp, "options"), "scrud"), "floor")));
    json_decref(cmp);

    rep = rig_campaign_combat(&c, 201,
                              ENTERED_OPTS("{\"cap\":0}", SIDE("a", U("A1", 2)),
                                           SIDE("b", U("B1", 5))));
    snprintf(rig_ctx, sizeof rig_ctx, "cap 0 over floor null");
    o = get(rep, "options");
    RIG_EQ_INT(rig_inum(o, "cap"), 0);
    RIG_IS_TRUE(json_is_null(get(o, "floor")));
    RIG_EQ_STR(str(o, "extra_dice"), "beat_lowest"); /* the rest as before */
    /* cap 0 took effect: 2 and 5 both score 0, a tie instead of B1's win */
    RIG_EQ_INT(rig_inum(rig_report_unit(rep, "A1"), "score"), 0);
    RIG_EQ_INT(rig_inum(rig_report_unit(rep, "B1"), "score"), 0);
    RIG_EQ_STR(str(at(get(rep, "pairs"), 0), "winner"), "tie");
    RIG_IS_TRUE(str(rep, "id") != NULL);
    json_decref(rep);

    /* The campaign keeps its own options */
    cmp = rig_call(200, "GET", c.umpire, NULL, "/v1/campaigns/%s", c.id);
    RIG_EQ_STR(str(get(get(cmp, "options"), "scrud"), "cap"), "faces");
    RIG_IS_TRUE(json_is_null(get(get(get(cmp, "options"), "scrud"), "floor")));
    json_decref(cmp);

    /* Over a campaign with the default floor 1, the same body is refused */
    ts_campaign(rig_ts, &d, NULL, AB);
    ts_unit(rig_ts, &d, "A1", "a", 0, 6, NULL);
    ts_unit(rig_ts, &d, "B1", "b", 0, 6, NULL);
    snprintf(rig_ctx, sizeof rig_ctx, "cap 0 over floor 1");
    p = rig_campaign_combat(&d, 422,
                            ENTERED_OPTS("{\"cap\":0}", SIDE("a", U("A1", 2)),
                                         SIDE("b", U("B1", 5))));
    expect_problem(p, "out_of_range", "options.floor");
    json_decref(p);
    RIG_EQ_INT(n_combats(), 1);
}
END_TEST

/* ---- a combat of other than two sides is out_of_range ---- */

/*
 * Bug: a SCRUD combat with 3 sides was refused limit_exceeded; "exactly
 * two" is a range (1 and 0 sides too), so it is out_of_range on "sides".
 */
START_TEST(test_combat_sides_not_two_out_of_range)
{
    static const char *const ABC[] = {"a", "b", "c", NULL};
    static const char *const oneoff[] = {
        "{\"sides\":[" NSIDE("x", "{\"name\":\"X\"}") "," NSIDE(
            "y", "{\"name\":\"Y\"}") "," NSIDE("z", "{\"name\":\"Z\"}") "]}",
        "{\"sides\":[" NSIDE("x", "{\"name\":\"X\"}") "]}",
        "{\"sides\":[]}",
    };
    static const char *const campaign[] = {
        ENTERED_LIST(SIDE("a", U("A1", 3)) "," SIDE("b", U("B1", 2)) "," SIDE(
            "c", U("C1", 4))),
        ENTERED_LIST(SIDE("a", U("A1", 3))),
    };
    test_campaign c;
    json_t *p, *cb;
    size_t i;

    for (i = 0; i < sizeof oneoff / sizeof oneoff[0]; i++) {
        snprintf(rig_ctx, sizeof rig_ctx, "one-off %.150s", oneoff[i]);
        p = rig_call(422, "POST", NULL, oneoff[i], "/v1/combats/scrud");
        expect_problem(p, "out_of_range", "sides");
        json_decref(p);
    }
    ts_campaign(rig_ts, &c, NULL, ABC);
    ts_unit(rig_ts, &c, "A1", "a", 0, 6, NULL);
    ts_unit(rig_ts, &c, "B1", "b", 0, 6, NULL);
    ts_unit(rig_ts, &c, "C1", "c", 0, 6, NULL);
    for (i = 0; i < sizeof campaign / sizeof campaign[0]; i++) {
        snprintf(rig_ctx, sizeof rig_ctx, "campaign %.150s", campaign[i]);
        p = rig_campaign_combat(&c, 422, campaign[i]);
        expect_problem(p, "out_of_range", "sides");
        json_decref(p);
    }
    snprintf(rig_ctx, sizeof rig_ctx, "after the refusals");
    cb = rig_cget(&c, "combats");
    RIG_EQ_INT(json_array_size(get(cb, "items")), 0);
    json_decref(cb);
    RIG_EQ_INT(n_combats(), 0);
    /* two sides are fine */
    json_decref(rig_campaign_combat(
        &c, 201, ENTERED(SIDE("a", U("A1", 3)), SIDE("c", U("C1", 4)))));
}
END_TEST

/* ---- an entered die above its unit's faces names the die ---- */

/*
 * Bug: a one-off combat with an entered die above its unit's faces (7 on
 * a d6) was refused dice_unavailable on "dice", after resolving started.
 * Now it is out_of_range on the die itself, and nothing is stored.
 */
START_TEST(test_oneoff_die_above_faces_out_of_range)
{
    static const struct {
        const char *body, *field;
    } bad[] = {
        {ENTERED(NSIDE("x", N("X1", 3) "," NF("X2", 10, 10)),
                 NSIDE("y", N("Y1", 7))),
         "sides[1].units[0].die"},
        {ENTERED(NSIDE("x", N("X1", 3) "," N("X2", 7)), NSIDE("y", N("Y1", 2))),
         "sides[0].units[1].die"},
        {ENTERED(NSIDE("x", N("X1", 3)),
                 NSIDE("y", N("Y1", 2) "," NF("Y2", 2, 3))),
         "sides[1].units[1].die"},
    };
    json_t *p, *rep;
    size_t i;

    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(rig_ctx, sizeof rig_ctx, "die over faces %zu", i);
        p = rig_call(422, "POST", NULL, bad[i].body, "/v1/combats/scrud");
        expect_problem(p, "out_of_range", bad[i].field);
        json_decref(p);
        RIG_EQ_INT(n_combats(), 0);
        RIG_EQ_INT(db_int("SELECT count(*) FROM rolls", NULL), 0);
    }
    /* The same combat with dice that fit (10 on the d10, 6 on a d6) */
    rep = rig_call(201, "POST", NULL,
                   ENTERED(NSIDE("x", N("X1", 3) "," NF("X2", 10, 10)),
                           NSIDE("y", N("Y1", 6))),
                   "/v1/combats/scrud");
    snprintf(rig_ctx, sizeof rig_ctx, "dice that fit");
    RIG_IS_TRUE(str(rep, "id") != NULL);
    RIG_EQ_INT(rig_inum(rig_report_unit(rep, "X2"), "natural"), 10);
    RIG_EQ_INT(rig_inum(rig_report_unit(rep, "Y1"), "natural"), 6);
    RIG_EQ_INT(json_array_size(get(rep, "rolls")), 3);
    RIG_EQ_INT(n_combats(), 1);
    RIG_EQ_INT(
        db_int("SELECT count(*) FROM combats WHERE id = ?", str(rep, "id")), 1);
    json_decref(rep);
}
END_TEST

/* ---- extra dice name their side ---- */

/* rep's only extra die is unit's, of the side named side, and it defeated
 * defeated; the roll log names the same side for that unit. */
static void check_extra(const json_t *rep, const char *side, size_t big,
                        const char *unit, const char *defeated)
{
    json_t *x = at(get(rep, "extra"), 0), *r;
    size_t i;
    int n_found = 0;

    RIG_EQ_INT(json_array_size(get(rep, "extra")), 1);
    RIG_IS_TRUE(json_is_string(get(x, "side")));
    RIG_EQ_STR(str(x, "side"), side);
    RIG_EQ_STR(str(x, "side"), str(at(get(rep, "sides"), big), "name"));
    RIG_EQ_STR(str(x, "unit"), unit);
    RIG_EQ_STR(str(x, "defeated"), defeated);
    RIG_EQ_STR(str(x, "result"), "defeat");
    json_array_foreach(get(rep, "rolls"), i, r)
    {
        if (strcmp(str(r, "unit"), unit) != 0)
            continue;
        RIG_EQ_STR(str(r, "side"), str(x, "side"));
        n_found++;
    }
    RIG_EQ_INT(n_found, 1);
}

/*
 * Bug: a report's "extra" entries gave their side as an index (0 or 1)
 * where the roll log gives its name.  Checked with the larger side first
 * (one-off) and second (campaign), so neither index could pass.
 */
START_TEST(test_extra_dice_name_their_side)
{
    static const char *const sides[] = {"West", "East", NULL};
    test_campaign c;
    json_t *rep;

    /* North 6 beats South 2; North's extra 5 beats the lowest, S1's 2 */
    rep = rig_call(201, "POST", NULL,
                   ENTERED(NSIDE("North", N("N1", 6) "," N("N2", 5)),
                           NSIDE("South", N("S1", 2))),
                   "/v1/combats/scrud");
    snprintf(rig_ctx, sizeof rig_ctx, "one-off extra die");
    check_extra(rep, "North", 0, "N2", "S1");
    json_decref(rep);

    ts_campaign(rig_ts, &c, NULL, sides);
    ts_unit(rig_ts, &c, "W1", "West", 0, 6, NULL);
    ts_unit(rig_ts, &c, "E1", "East", 0, 6, NULL);
    ts_unit(rig_ts, &c, "E2", "East", 0, 6, NULL);
    rep = rig_campaign_combat(&c, 201,
                              ENTERED(SIDE("West", U("W1", 3)),
                                      SIDE("East", U("E1", 4) "," U("E2", 5))));
    snprintf(rig_ctx, sizeof rig_ctx, "campaign extra die");
    check_extra(rep, "East", 1, "E1", "W1"); /* E2 5 pairs; E1 4 is extra */
    json_decref(rep);
}
END_TEST

/* ---- unit history seq is per unit ---- */

/* The unit's history has these kinds, numbered 1, 2, 3... */
static void check_history(const test_campaign *c, const char *id,
                          const char *name, const char *const kinds[], size_t n)
{
    json_t *h = rig_cget(c, "units/%s/history", id), *items, *ev;
    size_t i;

    items = get(h, "items");
    snprintf(rig_ctx, sizeof rig_ctx, "history of %s", name);
    RIG_EQ_INT(json_array_size(items), n);
    json_array_foreach(items, i, ev)
    {
        snprintf(rig_ctx, sizeof rig_ctx, "history of %s, event %zu", name,
                 i + 1);
        RIG_EQ_INT(rig_inum(ev, "seq"), (long long)i + 1);
        RIG_EQ_STR(str(ev, "kind"), kinds[i]);
    }
    json_decref(h);
}

/*
 * Bug: a unit's history numbered its events with a counter shared by every
 * unit, so the second unit's history started at 2.  Corrections of the two
 * units are interleaved, and a combat adds to both.
 */
START_TEST(test_unit_history_seq_per_unit)
{
    static const char *const k_alpha[] = {"created", "correction", "combat"};
    static const char *const k_bravo[] = {"created", "correction", "correction",
                                          "combat"};
    test_campaign c;
    char alpha[64], bravo[64];

    ts_campaign(rig_ts, &c, NULL, AB);
    ts_unit(rig_ts, &c, "Alpha", "a", 0, 6, alpha);
    ts_unit(rig_ts, &c, "Bravo", "b", 0, 6, bravo);
    json_decref(rig_call(200, "PATCH", c.umpire, "{\"scrud\":{\"quality\":1}}",
                         "/v1/campaigns/%s/units/%s", c.id, bravo));
    check_history(&c, bravo, "Bravo", k_bravo, 2);
    json_decref(rig_call(200, "PATCH", c.umpire, "{\"scrud\":{\"quality\":2}}",
                         "/v1/campaigns/%s/units/%s", c.id, alpha));
    json_decref(rig_call(200, "PATCH", c.umpire, "{\"scrud\":{\"quality\":3}}",
                         "/v1/campaigns/%s/units/%s", c.id, bravo));
    check_history(&c, bravo, "Bravo", k_bravo, 3);
    check_history(&c, alpha, "Alpha", k_alpha, 2);
    json_decref(rig_campaign_combat(
        &c, 201, ENTERED(SIDE("a", U("Alpha", 4)), SIDE("b", U("Bravo", 2)))));
    check_history(&c, alpha, "Alpha", k_alpha, 3);
    check_history(&c, bravo, "Bravo", k_bravo, 4);
}
END_TEST

/* ---- replay verifies seeded dice ---- */

/* POST path/replay; the answer (new). */
static json_t *replay(const char *path)
{
    return rig_call(200, "POST", NULL, NULL, "%s/replay", path);
}

/* Some difference of the replay r mentions what. */
static int mentions(const json_t *r, const char *what)
{
    json_t *d;
    size_t i;

    json_array_foreach(get(r, "differences"), i, d)
    {
        if (json_is_string(d) && strstr(json_string_value(d), what))
            return 1;
    }
    return 0;
}

/*
 * Bug: replay did not check seeded dice against their seed: it re-ran the
 * combat with the logged naturals, so a server seed changed in the
 * database went unnoticed.  Now "seeded_dice_verified" says whether the
 * seed matches its commitment and gives every logged die (null for
 * entered dice), and a mismatch is a difference.
 */
START_TEST(test_replay_verifies_seeded_dice)
{
    json_t *rep, *r;
    char path[128], seed[65];

    rep = rig_call(
        201, "POST", NULL,
        "{\"sides\":[" NSIDE(
            "x",
            "{\"name\":\"X1\"},{\"name\":"
            "\"X2\",\"faces\":20}") "," NSIDE("y", "{\"name\":\"Y1\"}") "]}",
        "/v1/combats/scrud");
    snprintf(rig_ctx, sizeof rig_ctx, "seeded combat");
    RIG_EQ_STR(str(get(rep, "dice"), "source"), "seeded");
    snprintf(path, sizeof path, "/v1/combats/%s", str(rep, "id"));
    snprintf(seed, sizeof seed, "%s", str(get(rep, "dice"), "server_seed"));
    RIG_EQ_INT(strlen(seed), 64);
    r = replay(path);
    RIG_IS_TRUE(json_is_true(get(r, "seeded_dice_verified")));
    RIG_IS_TRUE(json_is_true(get(r, "reproduced")));
    RIG_EQ_INT(json_array_size(get(r, "differences")), 0);
    RIG_EQ_INT(rig_inum(r, "n_rolls"), 3);
    json_decref(r);

    /* Another 64-hex seed: the first digit changed */
    seed[0] = seed[0] == '0' ? '1' : '0';
    RIG_EQ_INT(ts_sql_exec(rig_ts,
                           "UPDATE combats SET server_seed = ? WHERE id = ?",
                           TS_TEXT(seed), TS_TEXT(str(rep, "id"))),
               1);
    snprintf(rig_ctx, sizeof rig_ctx, "seed changed");
    /* it took (a one-off is stored as its facts, db.h: its report is
     * rendered from its row, and shows the new seed) */
    RIG_EQ_INT(
        db_int("SELECT count(*) FROM combats WHERE server_seed = ?", seed), 1);
    r = rig_call(200, "GET", NULL, NULL, "%s", path);
    RIG_EQ_STR(str(get(r, "dice"), "server_seed"), seed);
    json_decref(r);
    r = replay(path);
    RIG_IS_TRUE(json_is_false(get(r, "seeded_dice_verified")));
    RIG_IS_TRUE(json_is_false(get(r, "reproduced")));
    ck_assert_msg(mentions(r, "commitment"),
                  "no difference mentions the commitment: %s",
                  json_string_value(at(get(r, "differences"), 0)));
    json_decref(r);
    json_decref(rep);

    /* A system that keeps its report as written (EDNA): its own dice
     * there no longer agree with the row either. */
    snprintf(rig_ctx, sizeof rig_ctx, "seed changed, stored report");
    rep = rig_call(201, "POST", NULL,
                   "{\"units\":[{\"name\":\"X\",\"edna\":5,\"start\":8},"
                   "{\"name\":\"Y\",\"start\":10}]}",
                   "/v1/combats/edna");
    RIG_EQ_STR(str(get(rep, "dice"), "source"), "seeded");
    snprintf(path, sizeof path, "/v1/combats/%s", str(rep, "id"));
    snprintf(seed, sizeof seed, "%s", str(get(rep, "dice"), "server_seed"));
    seed[0] = seed[0] == '0' ? '1' : '0';
    RIG_EQ_INT(ts_sql_exec(rig_ts,
                           "UPDATE combats SET server_seed = ? WHERE id = ?",
                           TS_TEXT(seed), TS_TEXT(str(rep, "id"))),
               1);
    r = replay(path);
    RIG_IS_TRUE(json_is_false(get(r, "seeded_dice_verified")));
    ck_assert_msg(mentions(r, "dice.server_seed"),
                  "no difference names the report's dice.server_seed");
    json_decref(r);
    json_decref(rep);

    /* Entered dice cannot be verified: null, and still reproduced */
    rep = rig_call(201, "POST", NULL,
                   ENTERED(NSIDE("x", N("X1", 4)), NSIDE("y", N("Y1", 3))),
                   "/v1/combats/scrud");
    snprintf(path, sizeof path, "/v1/combats/%s", str(rep, "id"));
    snprintf(rig_ctx, sizeof rig_ctx, "entered combat");
    r = replay(path);
    RIG_IS_TRUE(json_is_null(get(r, "seeded_dice_verified")));
    RIG_IS_TRUE(json_is_true(get(r, "reproduced")));
    RIG_EQ_INT(json_array_size(get(r, "differences")), 0);
    json_decref(r);
    json_decref(rep);
}
END_TEST

/* ---- a scalar JSON body is invalid_value ---- */

/*
 * Bug: a body that is valid JSON but not an object ("x", 42, null) was
 * refused 400 invalid_json, as if it were malformed.  It is 422
 * invalid_value, on every route that takes a body, and changes nothing.
 */
START_TEST(test_scalar_body_invalid_value)
{
    static const char *const bodies[] = {"\"x\"", "42",   "null", "true",
                                         "-1.5",  "\"\"", " 7 "};
    test_campaign c;
    char unit[64], paths[4][160];
    const char *tokens[4];
    http_resp r;
    size_t i, k;

    ts_campaign(rig_ts, &c, NULL, AB);
    ts_unit(rig_ts, &c, "A1", "a", 0, 6, unit);
    snprintf(paths[0], sizeof paths[0], "/v1/campaigns");
    snprintf(paths[1], sizeof paths[1], "/v1/combats/scrud");
    snprintf(paths[2], sizeof paths[2], "/v1/campaigns/%s/units/%s", c.id,
             unit);
    snprintf(paths[3], sizeof paths[3], "/v1/campaigns/%s/combats/scrud", c.id);
    tokens[0] = tokens[1] = NULL;
    tokens[2] = tokens[3] = c.umpire;
    for (k = 0; k < 4; k++)
        for (i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
            const char *method = k == 2 ? "PATCH" : "POST";
            snprintf(rig_ctx, sizeof rig_ctx, "%s %s body %s", method, paths[k],
                     bodies[i]);
            ck_assert_int_eq(
                ts_request(rig_ts, method, paths[k], tokens[k], bodies[i], &r),
                0);
            RIG_EQ_INT(r.status, 422);
            RIG_EQ_STR(r.content_type, "application/problem+json");
            expect_problem(r.json, "invalid_value", NULL);
            http_resp_cleanup(&r);
        }
    snprintf(rig_ctx, sizeof rig_ctx, "after the scalar bodies");
    RIG_EQ_INT(db_int("SELECT count(*) FROM campaigns", NULL), 1);
    RIG_EQ_INT(n_combats(), 0);
    RIG_EQ_INT(db_int("SELECT count(*) FROM unit_events", NULL), 1);
}
END_TEST

/* A floor above a unit's die with the cap at its faces made every such die
 * score the floor (a d6 scoring 7); it is refused now, naming the unit. */
START_TEST(test_floor_above_faces_cap_refused)
{
    http_resp r;

    ck_assert_int_eq(
        ts_request(rig_ts, "POST", "/v1/combats/scrud", NULL,
                   "{\"options\":{\"floor\":7},\"sides\":["
                   "{\"name\":\"a\",\"units\":[{\"name\":\"a1\",\"faces\":8},"
                   "{\"name\":\"a2\"}]},"
                   "{\"name\":\"b\",\"units\":[{\"name\":\"b1\",\"faces\":10}"
                   "]}]}",
                   &r),
        0);
    RIG_EQ_INT(r.status, 422);
    expect_problem(r.json, "out_of_range", "sides[0].units[1].faces");
    http_resp_cleanup(&r);
}
END_TEST

/* ---- the writer when SQLite drops the whole transaction ---- */

typedef struct lost_job {
    const char *sql; /* what the job runs */
    bool is_failing; /* then it fails, whatever the SQL did */
    err_code rc;     /* its fate, once done */
    atomic_int *n_done;
} lost_job;

static err_code lost_run(db_conn *c, void *arg, err_info *e)
{
    lost_job *j = arg;

    if (sqlite3_exec(DB_LITE(c), j->sql, NULL, NULL, NULL) != SQLITE_OK)
        return db_fail(c, e, "job");
    if (j->is_failing)
        return err_set(e, ERR_DB, NULL, "disk I/O error");
    return ERR_OK;
}

static void lost_done(void *arg, err_code rc, const err_info *e)
{
    lost_job *j = arg;

    (void)e;
    j->rc = rc;
    atomic_fetch_add(j->n_done, 1);
}

/* Holds the writer until the test has queued what must share a batch
 * (arg[1] set), or 10 s; says it holds it (arg[0]), so that the test
 * queues nothing before the writer has taken this job alone in its batch:
 * deterministic however loaded the machine is. */
static err_code hold_run(db_conn *c, void *arg, err_info *e)
{
    atomic_int *flags = arg;
    int waited;

    (void)c;
    (void)e;
    atomic_store(&flags[0], 1);
    for (waited = 0; !atomic_load(&flags[1]) && waited < 10000; waited++)
        usleep(1000);
    return ERR_OK;
}

static void hold_done(void *arg, err_code rc, const err_info *e)
{
    (void)arg;
    (void)rc;
    (void)e;
}

/*
 * Some failures (an I/O error, out of memory) make SQLite roll back the
 * whole transaction; the second job below does what SQLite does then.  The
 * writer used to carry on: the next job's SAVEPOINT opened a transaction of
 * its own and its RELEASE committed it, while the batch's COMMIT failed, so
 * a stored write was answered as failed.  Now every job of that batch fails
 * and none of them is stored.
 */
START_TEST(test_writer_fails_whole_batch_when_transaction_is_lost)
{
    TS_SQLITE_ONLY(); /* drops the transaction as SQLite itself does */
    test_server *ts = ts_start();
    db *d = http_db(ts->srv);
    atomic_int n_done = 0;
    lost_job jobs[3] = {
        {"INSERT INTO sides (id, campaign_id, name, created_at) SELECT "
         "'sd_before', id, 'before', 'now' FROM campaigns LIMIT 1",
         false, ERR_OK, &n_done},
        {"ROLLBACK", true, ERR_OK, &n_done},
        {"INSERT INTO sides (id, campaign_id, name, created_at) SELECT "
         "'sd_after', id, 'after', 'now' FROM campaigns LIMIT 1",
         false, ERR_OK, &n_done}};
    atomic_int hold[2] = {0, 0}; /* is holding, is released */
    int i, waited;
    db_conn *r;
    test_campaign c;
    static const char *const sides[] = {"a", NULL};

    ts_campaign(ts, &c, NULL, sides);
    /* The three jobs queue behind a job that holds the writer, so they
     * share one batch. */
    ck_assert_int_eq(db_submit(d, hold_run, hold_done, hold), ERR_OK);
    for (waited = 0; !atomic_load(&hold[0]) && waited < 10000; waited += 10)
        usleep(10 * 1000);
    ck_assert_msg(atomic_load(&hold[0]), "the writer never took the job");
    for (i = 0; i < 3; i++)
        ck_assert_int_eq(db_submit(d, lost_run, lost_done, &jobs[i]), ERR_OK);
    atomic_store(&hold[1], 1);
    for (waited = 0; atomic_load(&n_done) < 3 && waited < 10000; waited += 10)
        usleep(10 * 1000);
    ck_assert_int_eq(atomic_load(&n_done), 3);
    for (i = 0; i < 3; i++)
        ck_assert_msg(jobs[i].rc != ERR_OK, "job %d was answered as stored", i);
    r = db_read_acquire(d);
    {
        sqlite3_stmt *st;
        ck_assert_int_eq(sqlite3_prepare_v2(DB_LITE(r),
                                            "SELECT count(*) FROM sides "
                                            "WHERE id IN ('sd_before', "
                                            "'sd_after')",
                                            -1, &st, NULL),
                         SQLITE_OK);
        ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
        ck_assert_int_eq(sqlite3_column_int(st, 0), 0);
        sqlite3_finalize(st);
    }
    db_read_release(d, r);
    ts_stop(ts);
}
END_TEST

/* ---- SCS ---- */

/* SCS bodies: a counter of two steps whose reduced side is 1-1; the
 * example table's combat of campaign units A1 and B1 with a roll entered;
 * the rows of a 2d6 table with the same cells c in every row. */
#define SCS_TWO(a, d)                                                          \
    "{\"attack\":" #a ",\"defense\":" #d                                       \
    ",\"reduced\":{\"attack\":1,\"defense\":1}}"
#define SCS_A1_B1(d0, d1)                                                      \
    "{\"table\":\"example-2d6\",\"attackers\":[{\"unit\":\"A1\"}],"            \
    "\"defenders\":[{\"unit\":\"B1\"}],\"dice\":{\"source\":\"entered\"},"     \
    "\"roll\":[" #d0 "," #d1 "]}"
#define ROWS_2D6(c)                                                            \
    "{\"2\":[" c "],\"3\":[" c "],\"4\":[" c "],\"5\":[" c "],\"6\":[" c       \
    "],\"7\":[" c "],\"8\":[" c "],\"9\":[" c "],\"10\":[" c "],\"11\":[" c    \
    "],\"12\":[" c "]}"

/* Creates a campaign unit carrying SCS only, scs its counter (JSON); its
 * id in id_out (64 bytes) unless NULL. */
static void new_scs_unit(const test_campaign *c, const char *name,
                         const char *side, const char *scs, char *id_out)
{
    char body[512];
    json_t *u;

    snprintf(body, sizeof body, "{\"name\":\"%s\",\"side\":\"%s\",\"scs\":%s}",
             name, side, scs);
    u = rig_call(201, "POST", c->umpire, body, "/v1/campaigns/%s/units", c->id);
    if (id_out)
        snprintf(id_out, 64, "%s", str(u, "id"));
    json_decref(u);
}

/*
 * Bug: a correction of {"eliminated": false} alone brought back an SCS
 * unit that had lost all its steps: 200, and a unit "in play" with
 * steps_left 0 that every combat then refused.  Now it is refused
 * (rule_violation on "eliminated") and changes nothing; giving a step
 * back in the same correction returns the unit to play.
 */
START_TEST(test_scs_uneliminate_needs_a_step)
{
    test_campaign c;
    char id[64];
    json_t *u, *before, *p;

    ts_campaign(rig_ts, &c, NULL, AB);
    new_scs_unit(&c, "A1", "a", SCS_TWO(4, 4), id);
    new_scs_unit(&c, "B1", "b", SCS_TWO(2, 4), NULL);
    snprintf(rig_ctx, sizeof rig_ctx, "every step lost by correction");
    u = rig_call(200, "PATCH", c.umpire, "{\"scs\":{\"steps_lost\":2}}",
                 "/v1/campaigns/%s/units/%s", c.id, id);
    RIG_IS_TRUE(json_is_true(get(u, "eliminated")));
    RIG_EQ_STR(str(u, "eliminated_reason"), "correction");
    RIG_EQ_INT(rig_inum(get(u, "scs"), "steps_left"), 0);
    json_decref(u);

    snprintf(rig_ctx, sizeof rig_ctx, "eliminated false alone");
    before = rig_cget(&c, "units/%s", id);
    p = rig_call(422, "PATCH", c.umpire, "{\"eliminated\":false}",
                 "/v1/campaigns/%s/units/%s", c.id, id);
    expect_problem(p, "rule_violation", "eliminated");
    json_decref(p);
    u = rig_cget(&c, "units/%s", id);
    RIG_IS_TRUE(json_equal(u, before)); /* still eliminated, 0 left */
    json_decref(u);
    json_decref(before);
    RIG_EQ_INT(db_int("SELECT count(*) FROM unit_events WHERE unit_row = "
                      "(SELECT rowid FROM units WHERE id = ?)",
                      id),
               2);

    snprintf(rig_ctx, sizeof rig_ctx, "eliminated false with the steps back");
    u = rig_call(200, "PATCH", c.umpire,
                 "{\"eliminated\":false,\"scs\":{\"steps_lost\":0}}",
                 "/v1/campaigns/%s/units/%s", c.id, id);
    RIG_IS_TRUE(json_is_false(get(u, "eliminated")));
    RIG_IS_TRUE(json_is_null(get(u, "eliminated_reason")));
    RIG_EQ_INT(rig_inum(get(u, "scs"), "steps_left"), 2);
    RIG_EQ_STR(str(get(u, "scs"), "side_shown"), "full");
    json_decref(u);
    /* in play for real: it fights (4 against 4, 1:1, row 7: D1r1) */
    u = rig_call(201, "POST", c.umpire, SCS_A1_B1(3, 4),
                 "/v1/campaigns/%s/combats/scs", c.id);
    RIG_EQ_STR(str(u, "result"), "D1r1");
    json_decref(u);
}
END_TEST

/*
 * Bug: a unit could be created with all its steps lost: 201, eliminated
 * false and steps_left 0, in play with no step to lose.  Now it is
 * refused out_of_range on "scs.steps_lost" and no unit is created.
 */
START_TEST(test_scs_new_unit_needs_a_step)
{
    static const char *const bad[] = {
        "{\"attack\":1,\"defense\":1,\"steps\":1,\"steps_lost\":1}",
        "{\"attack\":1,\"defense\":1,\"steps\":3,\"steps_lost\":3,"
        "\"reduced\":{\"attack\":1,\"defense\":1}}"};
    test_campaign c;
    char body[256];
    json_t *p, *u;
    size_t i;

    ts_campaign(rig_ts, &c, NULL, AB);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(rig_ctx, sizeof rig_ctx, "new unit %s", bad[i]);
        snprintf(body, sizeof body,
                 "{\"name\":\"X\",\"side\":\"a\",\"scs\":%s}", bad[i]);
        p = rig_call(422, "POST", c.umpire, body, "/v1/campaigns/%s/units",
                     c.id);
        expect_problem(p, "out_of_range", "scs.steps_lost");
        json_decref(p);
        p = rig_cget(&c, "units");
        RIG_EQ_INT(json_array_size(get(p, "items")), 0);
        json_decref(p);
        RIG_EQ_INT(db_int("SELECT count(*) FROM units", NULL), 0);
        RIG_EQ_INT(db_int("SELECT count(*) FROM unit_events", NULL), 0);
    }
    /* one step left is a unit in play */
    snprintf(rig_ctx, sizeof rig_ctx, "new unit with one step left");
    u = rig_call(201, "POST", c.umpire,
                 "{\"name\":\"X\",\"side\":\"a\",\"scs\":{\"attack\":1,"
                 "\"defense\":1,\"steps\":3,\"steps_lost\":2,\"reduced\":{"
                 "\"attack\":1,\"defense\":1}}}",
                 "/v1/campaigns/%s/units", c.id);
    RIG_IS_TRUE(json_is_false(get(u, "eliminated")));
    RIG_EQ_INT(rig_inum(get(u, "scs"), "steps_left"), 1);
    json_decref(u);
}
END_TEST

/* Posts a one-off combat of a (attack 10) against d1 and d2 (defense 5,
 * three steps each) on a table whose every cell is D4, at 1:1, with the
 * defender_allocation alloc (JSON); the answer (new). */
static json_t *d4_combat(int status, const char *alloc)
{
#define D3(n)                                                                  \
    "{\"name\":\"" n "\",\"attack\":1,\"defense\":5,\"steps\":3,"              \
    "\"reduced\":{\"attack\":1,\"defense\":1}}"
    char body[1024];

    snprintf(body, sizeof body,
             "{\"table\":{\"name\":\"d4\",\"roll\":\"2d6\",\"columns\":"
             "[\"1:1\"],\"rows\":%s},\"attackers\":[{\"name\":\"a\","
             "\"attack\":10,\"defense\":1}],\"defenders\":[%s,%s],"
             "\"defender_allocation\":%s,\"dice\":{\"source\":\"entered\"},"
             "\"roll\":[3,4]}",
             ROWS_2D6("\"D4\""), D3("d1"), D3("d2"), alloc);
#undef D3
    snprintf(rig_ctx, sizeof rig_ctx, "defender allocation %s", alloc);
    return rig_call(status, "POST", NULL, body, "/v1/combats/scs");
}

/*
 * Bug: rule 8.0b (every unit loses one step before any loses two) was
 * enforced past its reach, so d1's third step after one each was refused
 * at defender_allocation[3]; once every unit has lost one the owner
 * chooses.  And the refusal of a second step too early named the unit
 * waiting for its first by index ("defenders[1]"), not by name.
 */
START_TEST(test_scs_allocation_free_after_one_each)
{
    json_t *rep, *d, *l, *p;
    const char *detail;
    size_t k;

    rep = d4_combat(201, "[\"d1\",\"d2\",\"d1\",\"d1\"]");
    RIG_EQ_STR(str(rep, "result"), "D4");
    d = get(rep, "defenders");
    RIG_EQ_STR(str(at(d, 0), "unit"), "d1");
    RIG_EQ_INT(rig_inum(at(d, 0), "lost"), 3);
    RIG_IS_TRUE(json_is_true(get(at(d, 0), "eliminated")));
    RIG_EQ_STR(str(at(d, 1), "unit"), "d2");
    RIG_EQ_INT(rig_inum(at(d, 1), "lost"), 1);
    RIG_IS_TRUE(json_is_false(get(at(d, 1), "eliminated")));
    RIG_EQ_INT(json_array_size(get(rep, "losses")), 4);
    json_array_foreach(get(rep, "losses"), k, l)
    {
        RIG_EQ_STR(str(l, "chosen_by"), "orders");
    }
    json_decref(rep);

    p = d4_combat(422, "[\"d1\",\"d1\"]");
    expect_problem(p, "rule_violation", "defender_allocation[1]");
    detail = str(p, "detail");
    ck_assert_msg(detail && strstr(detail, "8.0b): d2 has lost none") &&
                      !strstr(detail, "defenders["),
                  "%s: the detail does not name d2: %s", rig_ctx, detail);
    json_decref(p);
    RIG_EQ_INT(n_combats(), 1);
}
END_TEST

/*
 * Bug: a column lower than the one before it gave the detail "the column
 * 1:3 columns go from the lowest odds to the highest", the reason's first
 * half lost.  Now it reads as a sentence, and nothing is stored.
 */
START_TEST(test_scs_descending_column_detail)
{
    test_campaign c;
    json_t *p;
    const char *detail;

    ts_campaign(rig_ts, &c, NULL, AB);
    snprintf(rig_ctx, sizeof rig_ctx, "columns 1:2 1:1 1:3");
    p = rig_call(422, "PUT", c.umpire,
                 "{\"roll\":\"2d6\",\"columns\":[\"1:2\",\"1:1\",\"1:3\"],"
                 "\"rows\":" ROWS_2D6("\"-\",\"-\",\"-\"") "}",
                 "/v1/campaigns/%s/tables/t", c.id);
    expect_problem(p, "invalid_value", "columns[2]");
    detail = str(p, "detail");
    ck_assert_msg(detail && strstr(detail, "the column 1:3 is lower than") &&
                      !strstr(detail, "1:3 columns"),
                  "%s: the detail is %s", rig_ctx, detail);
    json_decref(p);
    p = rig_cget(&c, "tables");
    RIG_EQ_INT(json_array_size(get(p, "items")), 0);
    json_decref(p);
}
END_TEST

/*
 * Bug: a combat on a built-in table kept the table in its report's input
 * with the "builtin" and "example" flags GET shows, so the input was not
 * the table as a request gives it.  Now input.table is the table's name,
 * note, roll, columns and rows, nothing else.
 */
START_TEST(test_scs_builtin_table_input_is_canonical)
{
    static const char *const keys[] = {"name", "note", "roll", "columns",
                                       "rows"};
    json_t *rep, *t, *b;
    size_t k;

    snprintf(rig_ctx, sizeof rig_ctx, "one-off on example-2d6");
    rep = rig_call(201, "POST", NULL,
                   "{\"table\":\"example-2d6\",\"attackers\":[{\"name\":\"a\","
                   "\"attack\":6,\"defense\":1}],\"defenders\":[{\"name\":"
                   "\"d\",\"attack\":1,\"defense\":3}],\"dice\":{\"source\":"
                   "\"entered\"},\"roll\":[3,4]}",
                   "/v1/combats/scs");
    RIG_EQ_STR(str(get(rep, "table"), "source"), "builtin");
    t = get(get(rep, "input"), "table");
    b = rig_call(200, "GET", NULL, NULL, "/v1/tables/example-2d6");
    RIG_IS_TRUE(json_is_true(get(b, "builtin"))); /* what used to leak */
    RIG_EQ_INT(json_object_size(t), sizeof keys / sizeof keys[0]);
    for (k = 0; k < sizeof keys / sizeof keys[0]; k++)
        ck_assert_msg(
            get(t, keys[k]) && json_equal(get(t, keys[k]), get(b, keys[k])),
            "%s: input.table.%s is not the table's", rig_ctx, keys[k]);
    RIG_IS_TRUE(get(t, "builtin") == NULL);
    RIG_IS_TRUE(get(t, "example") == NULL);
    json_decref(b);
    json_decref(rep);
}
END_TEST

/*
 * Bug: the combat list's summary of an SCS combat gave its losses as
 * "attacker -0"; it says "steps lost, attacker N, defender M".
 */
START_TEST(test_scs_summary_says_steps_lost)
{
    test_campaign c;
    json_t *l;
    const char *s;

    ts_campaign(rig_ts, &c, NULL, AB);
    new_scs_unit(&c, "A1", "a", SCS_TWO(4, 4), NULL);
    new_scs_unit(&c, "B1", "b", SCS_TWO(2, 4), NULL);
    /* 4 against 4, 1:1, row 2: A2r1, both of A1's steps */
    json_decref(rig_call(201, "POST", c.umpire, SCS_A1_B1(1, 1),
                         "/v1/campaigns/%s/combats/scs", c.id));
    snprintf(rig_ctx, sizeof rig_ctx, "combat list summary");
    l = rig_cget(&c, "combats");
    RIG_EQ_INT(json_array_size(get(l, "items")), 1);
    s = str(at(get(l, "items"), 0), "summary");
    ck_assert_msg(s && strstr(s, "A2r1") &&
                      strstr(s, "steps lost, attacker 2, defender 0") &&
                      !strstr(s, "-0"),
                  "%s: the summary is %s", rig_ctx, s);
    json_decref(l);
}
END_TEST

/* ---- names cannot forge a line of a Markdown summary ---- */

/*
 * Bug: SCRUD and EDNA wrote unit and side names into their Markdown
 * summaries as given, so a name holding a line break and "- " made a list
 * item of its own (a forged line in a report pasted into a chat).  Names
 * are now written Markdown-safe: control characters become spaces and
 * Markdown's marks are escaped.
 */
START_TEST(test_markdown_names_cannot_forge_lines)
{
    json_t *rep;
    const char *md;

    rep = rig_call(201, "POST", NULL,
                   ENTERED(NSIDE("x\\n**y**", N("A\\n- forged", 4)),
                           NSIDE("z", N("B_1", 3))),
                   "/v1/combats/scrud");
    md = str(rep, "summary_markdown");
    ck_assert_ptr_nonnull(md);
    ck_assert_msg(strstr(md, "\n- forged") == NULL, "forged line in: %s", md);
    ck_assert_msg(strstr(md, "A - forged") != NULL, "name lost in: %s", md);
    ck_assert_msg(strstr(md, "x \\*\\*y\\*\\*") != NULL,
                  "side's marks not escaped in: %s", md);
    ck_assert_msg(strstr(md, "B\\_1") != NULL, "unit's mark not escaped: %s",
                  md);
    json_decref(rep);
    rep = rig_call(201, "POST", NULL,
                   "{\"units\":[{\"name\":\"C\\n- forged\",\"dice\":[2,3]}],"
                   "\"dice\":{\"source\":\"entered\"}}",
                   "/v1/combats/edna");
    md = str(rep, "summary_markdown");
    ck_assert_ptr_nonnull(md);
    ck_assert_msg(strstr(md, "\n- forged") == NULL, "forged line in: %s", md);
    json_decref(rep);
}
END_TEST

Suite *suite_regressions(void)
{
    Suite *s = suite_create("regressions");
    TCase *tc = tcase_create("regressions");

    tcase_add_checked_fixture(tc, rig_setup, rig_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_campaign_combat_options_over_campaign_options);
    tcase_add_test(tc, test_combat_sides_not_two_out_of_range);
    tcase_add_test(tc, test_oneoff_die_above_faces_out_of_range);
    tcase_add_test(tc, test_extra_dice_name_their_side);
    tcase_add_test(tc, test_unit_history_seq_per_unit);
    tcase_add_test(tc, test_replay_verifies_seeded_dice);
    tcase_add_test(tc, test_scalar_body_invalid_value);
    tcase_add_test(tc, test_floor_above_faces_cap_refused);
    tcase_add_test(tc, test_writer_fails_whole_batch_when_transaction_is_lost);
    tcase_add_test(tc, test_scs_uneliminate_needs_a_step);
    tcase_add_test(tc, test_scs_new_unit_needs_a_step);
    tcase_add_test(tc, test_scs_allocation_free_after_one_each);
    tcase_add_test(tc, test_scs_descending_column_detail);
    tcase_add_test(tc, test_scs_builtin_table_input_is_canonical);
    tcase_add_test(tc, test_scs_summary_says_steps_lost);
    tcase_add_test(tc, test_markdown_names_cannot_forge_lines);
    suite_add_tcase(s, tc);
    return s;
}
