/*
 * test_edna_http.c: EDNA tests (docs/rules/edna.md) end to end over HTTP.
 * The worked example of tests/vectors/edna-example.json through a campaign,
 * its expectations read from the file; volleys (several units, dice drawn
 * in listed order) and their all-or-nothing refusals; the ineffective unit;
 * the 2d8 variant; one-off tests with their report, replay and seeded dice
 * re-derived with rng v1; and the unit list's system and ineffective
 * filters.  Seeded results are checked against edna_model below, a plain
 * transcription of the rules' procedure.  Uses rig.h.
 */
#include "harness.h"
#include "rig.h"
#include "rng.h"
#include "suites.h"

#include <check.h>
#include <sodium.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The rules' procedure, steps 2 to 5: the EDNA after a test's total. */
static int edna_model(int edna, int total, bool *is_passed)
{
    int after = total <= edna ? edna : edna - (total - edna);

    *is_passed = total <= edna;
    return after < 0 ? 0 : after;
}

/* A campaign with sides a and b and the given options JSON (or NULL). */
static void campaign_with(test_campaign *c, const char *options)
{
    char body[512];
    json_t *j, *s;
    size_t i;

    snprintf(body, sizeof body,
             "{\"name\":\"edna\",\"sides\":[{\"name\":\"a\"},{\"name\":\"b\"}]"
             "%s%s}",
             options ? ",\"options\":" : "", options ? options : "");
    j = rig_call(201, "POST", NULL, body, "/v1/campaigns");
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "%s", str(j, "id"));
    snprintf(c->umpire, sizeof c->umpire, "%s", str(j, "umpire_token"));
    json_array_foreach(get(j, "sides"), i, s)
    {
        snprintf(c->player[i], sizeof c->player[i], "%s",
                 str(s, "player_token"));
        snprintf(c->side_id[i], sizeof c->side_id[i], "%s", str(s, "id"));
    }
    c->n_sides = (int)json_array_size(get(j, "sides"));
    json_decref(j);
}

/* Creates a unit on side a from the members after name; id_out 64 bytes. */
static void unit_with(const test_campaign *c, const char *name,
                      const char *members, char *id_out)
{
    char body[256];
    json_t *j;

    snprintf(body, sizeof body, "{\"name\":\"%s\",\"side\":\"a\",%s}", name,
             members);
    j = rig_call(201, "POST", c->umpire, body, "/v1/campaigns/%s/units", c->id);
    snprintf(id_out, 64, "%s", str(j, "id"));
    json_decref(j);
}

/* Posts a campaign EDNA test; returns the answer (new). */
static json_t *campaign_edna(const test_campaign *c, int status,
                             const char *body)
{
    return rig_call(status, "POST", c->umpire, body,
                    "/v1/campaigns/%s/combats/edna", c->id);
}

/* The "edna" section of a stored unit (new: the whole unit). */
static json_t *unit_edna(const test_campaign *c, const char *id, json_t **out)
{
    json_t *u = rig_cget(c, "units/%s", id);

    *out = get(u, "edna");
    ck_assert_msg(json_is_object(*out), "%s: the unit has no edna section",
                  rig_ctx);
    return u;
}

/* Asserts a 422 problem with code and field (either may be NULL). */
static void expect_problem(const json_t *p, const char *code, const char *field)
{
    RIG_IS_TRUE(p != NULL);
    RIG_EQ_INT(rig_inum(p, "status"), 422);
    if (code)
        RIG_EQ_STR(str(p, "code"), code);
    if (field)
        RIG_EQ_STR(str(p, "field"), field);
}

/* ---- 1. The worked example, over HTTP through a campaign ---- */

START_TEST(test_vector_through_campaign)
{
    json_t *vec = ts_load_vector("edna-example.json");
    json_t *opts = get(vec, "options"), *tests = get(vec, "tests"), *t;
    long long start = rig_inum(get(vec, "unit"), "edna_start");
    long long dice = rig_inum(opts, "dice"), faces = rig_inum(opts, "faces");
    char options[160], body[256], uid[64];
    test_campaign c;
    json_t *cmp, *u, *ue, *h;
    size_t i, k;

    snprintf(rig_ctx, sizeof rig_ctx, "vector campaign");
    RIG_IS_TRUE(json_array_size(tests) > 0);
    snprintf(options, sizeof options,
             "{\"edna\":{\"start\":%lld,\"dice\":%lld,\"faces\":%lld}}", start,
             dice, faces);
    campaign_with(&c, options);
    cmp = rig_call(200, "GET", c.umpire, NULL, "/v1/campaigns/%s", c.id);
    RIG_EQ_INT(rig_inum(get(get(cmp, "options"), "edna"), "start"), start);
    RIG_EQ_INT(rig_inum(get(get(cmp, "options"), "edna"), "dice"), dice);
    RIG_EQ_INT(rig_inum(get(get(cmp, "options"), "edna"), "faces"), faces);
    json_decref(cmp);
    unit_with(&c, "Brigade", "\"edna\":{}", uid);
    u = unit_edna(&c, uid, &ue);
    RIG_EQ_INT(rig_inum(ue, "edna"), start); /* the campaign's start */
    RIG_EQ_INT(rig_inum(ue, "start"), start);
    RIG_IS_TRUE(json_is_false(get(ue, "ineffective")));
    RIG_IS_TRUE(get(u, "scrud") == NULL); /* "edna" only: no SCRUD */
    RIG_EQ_INT(json_array_size(get(u, "systems")), 1);
    RIG_EQ_STR(json_string_value(at(get(u, "systems"), 0)), "edna");
    json_decref(u);
    json_array_foreach(tests, i, t)
    {
        json_t *want = get(t, "expect"), *d = get(t, "dice"), *rep, *r, *back;
        char *dtext = json_dumps(d, JSON_COMPACT);
        snprintf(body, sizeof body,
                 "{\"dice\":{\"source\":\"entered\"},\"units\":[{\"unit\":"
                 "\"Brigade\",\"dice\":%s}]}",
                 dtext);
        free(dtext);
        rep = campaign_edna(&c, 201, body);
        snprintf(rig_ctx, sizeof rig_ctx, "vector test %zu", i + 1);
        RIG_EQ_STR(str(rep, "system"), "edna");
        RIG_EQ_STR(str(rep, "campaign_id"), c.id);
        RIG_EQ_INT(json_array_size(get(rep, "tests")), 1);
        r = at(get(rep, "tests"), 0);
        RIG_EQ_STR(str(r, "unit_id"), uid);
        RIG_EQ_INT(rig_inum(r, "total"), rig_inum(want, "total"));
        RIG_EQ_INT(rig_inum(r, "edna_before"), rig_inum(want, "edna_before"));
        RIG_EQ_INT(rig_inum(r, "edna_after"), rig_inum(want, "edna_after"));
        RIG_IS_TRUE(json_is_boolean(get(r, "passed")));
        RIG_IS_TRUE(json_equal(get(r, "passed"), get(want, "passed")));
        RIG_IS_TRUE(
            json_equal(get(r, "ineffective"), get(want, "ineffective")));
        RIG_IS_TRUE(json_equal(get(r, "naturals"), d));
        RIG_EQ_INT(rig_inum(r, "start"), start);
        /* the roll log: the entered dice, in order, as d<faces> */
        RIG_EQ_INT(json_array_size(get(rep, "rolls")), json_array_size(d));
        for (k = 0; k < json_array_size(d); k++) {
            json_t *roll = at(get(rep, "rolls"), k);
            RIG_EQ_INT(rig_inum(roll, "seq"), (long long)k + 1);
            RIG_EQ_INT(rig_inum(roll, "faces"), faces);
            RIG_EQ_INT(rig_inum(roll, "natural"), json_integer_value(at(d, k)));
            RIG_EQ_STR(str(roll, "unit_id"), uid);
            RIG_EQ_STR(str(roll, "source"), "entered");
            RIG_EQ_STR(str(roll, "reason"), "edna.test");
        }
        /* the stored report is the answer; the stored unit has its EDNA */
        back = rig_cget(&c, "combats/%s", str(rep, "id"));
        RIG_IS_TRUE(json_equal(back, rep));
        json_decref(back);
        u = unit_edna(&c, uid, &ue);
        RIG_EQ_INT(rig_inum(ue, "edna"), rig_inum(want, "edna_after"));
        RIG_EQ_INT(rig_inum(ue, "start"), start);
        RIG_IS_TRUE(
            json_equal(get(ue, "ineffective"), get(want, "ineffective")));
        json_decref(u);
        json_decref(rep);
    }
    /* every test is in the unit's history, after its creation */
    h = rig_cget(&c, "units/%s/history", uid);
    snprintf(rig_ctx, sizeof rig_ctx, "vector history");
    RIG_EQ_INT(json_array_size(get(h, "items")), json_array_size(tests) + 1);
    json_array_foreach(tests, i, t)
    {
        json_t *ev = at(get(h, "items"), i + 1);
        RIG_EQ_STR(str(ev, "kind"), "combat");
        RIG_EQ_STR(str(get(ev, "result"), "system"), "edna");
        RIG_EQ_INT(rig_inum(get(ev, "result"), "edna_after"),
                   rig_inum(get(t, "expect"), "edna_after"));
        RIG_EQ_INT(rig_inum(get(get(ev, "after"), "edna"), "edna"),
                   rig_inum(get(t, "expect"), "edna_after"));
    }
    json_decref(h);
    json_decref(vec);
}
END_TEST

/* ---- 2. A volley: several units, one request, all or nothing ---- */

/* What a refused volley must not change: units, combats, the feed. */
typedef struct snapshot {
    json_t *units, *combats, *feed;
} snapshot;

static void snapshot_take(const test_campaign *c, snapshot *s)
{
    s->units = rig_cget(c, "units");
    s->combats = rig_cget(c, "combats");
    s->feed = rig_cget(c, "history?limit=200");
}

static void snapshot_free(snapshot *s)
{
    json_decref(s->units);
    json_decref(s->combats);
    json_decref(s->feed);
}

/* Posts a refused volley and asserts nothing changed. */
static void refuse(const test_campaign *c, const snapshot *s0, const char *body,
                   const char *code, const char *field)
{
    snapshot s;
    json_t *p;

    snprintf(rig_ctx, sizeof rig_ctx, "refused %.160s", body);
    p = campaign_edna(c, 422, body);
    expect_problem(p, code, field);
    json_decref(p);
    snapshot_take(c, &s);
    RIG_IS_TRUE(json_equal(s.units, s0->units));
    RIG_IS_TRUE(json_equal(s.combats, s0->combats));
    RIG_IS_TRUE(json_equal(s.feed, s0->feed));
    snapshot_free(&s);
}

#define EU(n, d) "{\"unit\":\"" n "\",\"dice\":" d "}"
#define VOLLEY(units)                                                          \
    "{\"dice\":{\"source\":\"entered\"},\"units\":[" units "]}"

START_TEST(test_volley)
{
    static const struct {
        const char *unit;
        int n1, n2, total, before, after;
        bool is_passed;
    } want[] = {{"C", 1, 2, 3, 12, 12, true},
                {"A", 6, 6, 12, 8, 4, false},
                {"B", 3, 3, 6, 6, 6, true}};
    static const struct {
        const char *body, *code, *field;
    } refusals[] = {
        {VOLLEY(EU("A", "[1,1]") "," EU("D", "[1,1]") "," EU("B", "[1,1]")),
         "rule_violation", "units[1]"},
        {VOLLEY(EU("A", "[1,1]") "," EU("S", "[1,1]")), "rule_violation",
         "units[1].unit"},
        {VOLLEY(EU("A", "[1,1]") "," EU("B", "[1]")), "out_of_range",
         "units[1].dice"},
        {VOLLEY(EU("A", "[1,1,1]")), "out_of_range", "units[0].dice"},
        {VOLLEY(EU("A", "[2,2]") "," EU("B", "[7,1]")), "out_of_range",
         "units[1].dice"},
        {VOLLEY(EU("A", "[0,1]")), "out_of_range", "units[0].dice"},
        {"{\"dice\":{\"source\":\"seeded\"},\"units\":[" EU("A", "[1,1]") "]}",
         "invalid_value", "units[0].dice"},
        {"{\"units\":[" EU("A", "[1,1]") "]}", "invalid_value",
         "units[0].dice"},
        {VOLLEY("{\"unit\":\"A\"}"), "missing_field", "units[0].dice"},
        {VOLLEY(EU("A", "[1,1,1,1,1,1,1,1,1,1,1]")), "limit_exceeded",
         "units[0].dice"},
        {VOLLEY(""), "out_of_range", "units"},
        {VOLLEY(EU("A", "[1,1]") "," EU("Nobody", "[1,1]")), "invalid_value",
         "units[1].unit"},
        {VOLLEY(EU("A", "[1,1]") "," EU("A", "[2,2]")), "invalid_value",
         "units[1].unit"},
    };
    char ids[5][64], body[256], path[160];
    test_campaign c;
    snapshot s0;
    json_t *rep, *rolls, *x, *ue;
    size_t i;

    campaign_with(&c, NULL); /* the defaults: 2d6, start 8 */
    unit_with(&c, "A", "\"edna\":{}", ids[0]);
    unit_with(&c, "B", "\"edna\":{\"start\":6}", ids[1]);
    unit_with(&c, "C", "\"edna\":{\"start\":12}", ids[2]);
    unit_with(&c, "D", "\"edna\":{}", ids[3]);
    unit_with(&c, "S", "\"scrud\":{\"quality\":1}", ids[4]);
    /* Listed C, A, B: each unit's dice together, in that order */
    rep = campaign_edna(
        &c, 201,
        VOLLEY(EU("C", "[1,2]") "," EU("A", "[6,6]") "," EU("B", "[3,3]")));
    rolls = get(rep, "rolls");
    snprintf(rig_ctx, sizeof rig_ctx, "volley");
    /* The three as the volley left them, kept for the campaign's next
     * test: the store's rows, byte for byte. */
    RIG_EQ_INT(ts_check_kept_units(rig_ts, c.id), ts_is_pg() ? -1 : 3);
    RIG_EQ_INT(json_array_size(get(rep, "tests")), 3);
    RIG_EQ_INT(json_array_size(rolls), 6);
    for (i = 0; i < 3; i++) {
        json_t *t = at(get(rep, "tests"), i);
        snprintf(rig_ctx, sizeof rig_ctx, "volley, unit %s", want[i].unit);
        RIG_EQ_STR(str(t, "unit"), want[i].unit);
        RIG_EQ_INT(rig_inum(t, "total"), want[i].total);
        RIG_EQ_INT(json_integer_value(at(get(t, "naturals"), 0)), want[i].n1);
        RIG_EQ_INT(json_integer_value(at(get(t, "naturals"), 1)), want[i].n2);
        RIG_EQ_INT(rig_inum(t, "edna_before"), want[i].before);
        RIG_EQ_INT(rig_inum(t, "edna_after"), want[i].after);
        RIG_IS_TRUE(json_is_true(get(t, "passed")) == want[i].is_passed);
        RIG_IS_TRUE(json_is_false(get(t, "ineffective")));
        RIG_EQ_STR(str(at(rolls, 2 * i), "unit"), want[i].unit);
        RIG_EQ_STR(str(at(rolls, 2 * i + 1), "unit"), want[i].unit);
        RIG_EQ_INT(rig_inum(at(rolls, 2 * i), "natural"), want[i].n1);
        RIG_EQ_INT(rig_inum(at(rolls, 2 * i + 1), "natural"), want[i].n2);
    }
    snprintf(path, sizeof path, "/v1/campaigns/%s/combats/%s", c.id,
             str(rep, "id"));
    rig_check_replay(path, c.player[0]);
    json_decref(rep);
    for (i = 0; i < 3; i++) {
        size_t k = want[i].unit[0] == 'A' ? 0 : want[i].unit[0] == 'B' ? 1 : 2;
        x = unit_edna(&c, ids[k], &ue);
        snprintf(rig_ctx, sizeof rig_ctx, "after the volley, %s", want[i].unit);
        RIG_EQ_INT(rig_inum(ue, "edna"), want[i].after);
        json_decref(x);
    }
    /* D is made ineffective by an umpire's correction */
    x = rig_call(200, "PATCH", c.umpire, "{\"edna\":{\"edna\":0}}",
                 "/v1/campaigns/%s/units/%s", c.id, ids[3]);
    snprintf(rig_ctx, sizeof rig_ctx, "correction of D");
    RIG_EQ_INT(rig_inum(get(x, "edna"), "edna"), 0);
    RIG_IS_TRUE(json_is_true(get(get(x, "edna"), "ineffective")));
    json_decref(x);
    snapshot_take(&c, &s0);
    RIG_EQ_INT(json_array_size(get(s0.combats, "items")), 1);
    for (i = 0; i < sizeof refusals / sizeof refusals[0]; i++)
        refuse(&c, &s0, refusals[i].body, refusals[i].code, refusals[i].field);
    /* the same unit by name and by id */
    snprintf(body, sizeof body,
             VOLLEY(EU("A", "[1,1]") ",{\"unit\":\"%s\",\"dice\":[2,2]}"),
             ids[0]);
    refuse(&c, &s0, body, "invalid_value", "units[1].unit");
    snapshot_free(&s0);
    /* the request's options apply before the entered dice are checked */
    rep = campaign_edna(&c, 201,
                        "{\"dice\":{\"source\":\"entered\"},\"options\":{"
                        "\"faces\":8},\"units\":[" EU("B", "[7,1]") "]}");
    snprintf(rig_ctx, sizeof rig_ctx, "a d8 by request");
    RIG_EQ_INT(rig_inum(at(get(rep, "rolls"), 0), "faces"), 8);
    RIG_EQ_INT(rig_inum(at(get(rep, "tests"), 0), "edna_after"), 4);
    json_decref(rep);
}
END_TEST

/* ---- 3. An ineffective unit takes no more tests ---- */

START_TEST(test_ineffective_unit)
{
    char id[64];
    test_campaign c;
    json_t *rep, *t, *u, *ue, *p, *card;

    campaign_with(&c, NULL);
    unit_with(&c, "Shaky", "\"edna\":{\"start\":2}", id);
    rep = campaign_edna(&c, 201, VOLLEY(EU("Shaky", "[6,6]")));
    t = at(get(rep, "tests"), 0);
    snprintf(rig_ctx, sizeof rig_ctx, "12 against EDNA 2");
    RIG_EQ_INT(rig_inum(t, "total"), 12);
    RIG_EQ_INT(rig_inum(t, "edna_before"), 2);
    RIG_EQ_INT(rig_inum(t, "edna_after"), 0); /* not 2 - 10 */
    RIG_IS_TRUE(json_is_false(get(t, "passed")));
    RIG_IS_TRUE(json_is_true(get(t, "ineffective")));
    json_decref(rep);
    u = unit_edna(&c, id, &ue);
    RIG_EQ_INT(rig_inum(ue, "edna"), 0);
    RIG_IS_TRUE(json_is_true(get(ue, "ineffective")));
    json_decref(u);
    card = rig_cget(&c, "units/%s/card", id);
    RIG_IS_TRUE(json_is_true(get(card, "ineffective")));
    json_decref(card);
    /* refused with entered or seeded dice, whatever the roll */
    p = campaign_edna(&c, 422, VOLLEY(EU("Shaky", "[1,1]")));
    snprintf(rig_ctx, sizeof rig_ctx, "test of an ineffective unit");
    expect_problem(p, "rule_violation", "units[0]");
    json_decref(p);
    p = campaign_edna(&c, 422, "{\"units\":[{\"unit\":\"Shaky\"}]}");
    expect_problem(p, "rule_violation", "units[0]");
    json_decref(p);
    /* it stays in the campaign, and an umpire may set its EDNA again */
    u = rig_cget(&c, "units?ineffective=true");
    RIG_EQ_INT(json_array_size(get(u, "items")), 1);
    RIG_EQ_STR(str(at(get(u, "items"), 0), "id"), id);
    json_decref(u);
    json_decref(rig_call(200, "PATCH", c.umpire, "{\"edna\":{\"edna\":3}}",
                         "/v1/campaigns/%s/units/%s", c.id, id));
    rep = campaign_edna(&c, 201, VOLLEY(EU("Shaky", "[1,2]")));
    snprintf(rig_ctx, sizeof rig_ctx, "after the correction");
    RIG_IS_TRUE(json_is_true(get(at(get(rep, "tests"), 0), "passed")));
    RIG_EQ_INT(rig_inum(at(get(rep, "tests"), 0), "edna_after"), 3);
    json_decref(rep);
}
END_TEST

/* ---- 4. The 2d8 variant, and EDNA never rises through a test ---- */

/* Checks every test of rep against the rules and its own roll log. */
static void check_tests_model(const json_t *rep, int dice, int faces)
{
    json_t *t, *rolls = get(rep, "rolls");
    size_t i;
    int k;

    RIG_EQ_INT(json_array_size(rolls),
               (long long)json_array_size(get(rep, "tests")) * dice);
    json_array_foreach(get(rep, "tests"), i, t)
    {
        int sum = 0, before = (int)rig_inum(t, "edna_before");
        bool is_passed;
        int after;
        for (k = 0; k < dice; k++) {
            json_t *r = at(rolls, i * (size_t)dice + (size_t)k);
            RIG_EQ_STR(str(r, "unit"), str(t, "unit"));
            RIG_EQ_INT(rig_inum(r, "faces"), faces);
            RIG_IS_TRUE(rig_inum(r, "natural") >= 1 &&
                        rig_inum(r, "natural") <= faces);
            RIG_EQ_INT(rig_inum(r, "natural"),
                       json_integer_value(at(get(t, "naturals"), (size_t)k)));
            sum += (int)rig_inum(r, "natural");
        }
        RIG_EQ_INT(json_array_size(get(t, "naturals")), dice);
        RIG_EQ_INT(rig_inum(t, "total"), sum + rig_inum(t, "modifier"));
        after = edna_model(before, (int)rig_inum(t, "total"), &is_passed);
        RIG_EQ_INT(rig_inum(t, "edna_after"), after);
        RIG_IS_TRUE(json_is_true(get(t, "passed")) == is_passed);
        RIG_IS_TRUE(json_is_true(get(t, "ineffective")) == (after == 0));
        RIG_IS_TRUE(after <= before);
    }
}

START_TEST(test_2d8_variant)
{
    char p_id[64], q_id[64];
    test_campaign c;
    json_t *rep, *t, *u, *ue;
    int n, before;

    campaign_with(&c, "{\"edna\":{\"start\":10,\"dice\":2,\"faces\":8}}");
    unit_with(&c, "P", "\"edna\":{}", p_id);
    unit_with(&c, "Q", "\"edna\":{}", q_id);
    u = unit_edna(&c, p_id, &ue);
    snprintf(rig_ctx, sizeof rig_ctx, "2d8 campaign");
    RIG_EQ_INT(rig_inum(ue, "edna"), 10);
    json_decref(u);
    /* an 8 and a 7 are d8 dice; 15 - 1 = 14 against 10 leaves 6 */
    rep = campaign_edna(&c, 201,
                        VOLLEY("{\"unit\":\"P\",\"modifier\":-1,\"dice\":[8,7]}"
                               "," EU("Q", "[1,1]")));
    snprintf(rig_ctx, sizeof rig_ctx, "2d8 entered");
    RIG_EQ_INT(rig_inum(get(rep, "options"), "faces"), 8);
    RIG_EQ_INT(rig_inum(get(rep, "options"), "dice"), 2);
    t = at(get(rep, "tests"), 0);
    RIG_EQ_INT(rig_inum(t, "modifier"), -1);
    RIG_EQ_INT(rig_inum(t, "total"), 14);
    RIG_EQ_INT(rig_inum(t, "edna_after"), 6);
    check_tests_model(rep, 2, 8);
    json_decref(rep);
    t = campaign_edna(&c, 422, VOLLEY(EU("P", "[9,1]")));
    expect_problem(t, "out_of_range", "units[0].dice");
    json_decref(t);
    /* seeded volleys at Q: two d8 per unit, and EDNA never rises */
    for (n = 0; n < 40; n++) {
        u = unit_edna(&c, q_id, &ue);
        before = (int)rig_inum(ue, "edna");
        json_decref(u);
        if (before == 0)
            break;
        rep = campaign_edna(&c, 201, "{\"units\":[{\"unit\":\"Q\"}]}");
        snprintf(rig_ctx, sizeof rig_ctx, "2d8 seeded test %d", n + 1);
        RIG_EQ_STR(str(get(rep, "dice"), "source"), "seeded");
        RIG_EQ_INT(rig_inum(at(get(rep, "tests"), 0), "edna_before"), before);
        check_tests_model(rep, 2, 8);
        u = unit_edna(&c, q_id, &ue);
        RIG_EQ_INT(rig_inum(ue, "edna"),
                   rig_inum(at(get(rep, "tests"), 0), "edna_after"));
        json_decref(u);
        if (n == 0) {
            char path[160];
            snprintf(path, sizeof path, "/v1/campaigns/%s/combats/%s", c.id,
                     str(rep, "id"));
            rig_check_replay(path, c.umpire);
        }
        json_decref(rep);
    }
    snprintf(rig_ctx, sizeof rig_ctx, "2d8 seeded tests");
    RIG_IS_TRUE(n > 1); /* from 10, 2d8 cannot end it in one test */
}
END_TEST

/* ---- 5. One-off tests: report, replay, seeded dice re-derived ---- */

START_TEST(test_oneoff)
{
    static const char *const cs = "table-7";
    json_t *rep, *back, *t, *dice, *p;
    uint8_t seed[RNG_SEED_LEN], hash[crypto_hash_sha256_BYTES];
    char hex[2 * crypto_hash_sha256_BYTES + 1], path[128];
    rng_v1 rng;
    size_t i;

    /* X: 3 + 4 - 2 = 5 against EDNA 5 passes; Y from its start 10 fails */
    rep = rig_call(201, "POST", NULL,
                   "{\"dice\":{\"source\":\"entered\"},\"units\":[{\"name\":"
                   "\"X\",\"edna\":5,\"start\":8,\"modifier\":-2,\"dice\":[3,"
                   "4]},{\"name\":\"Y\",\"start\":10,\"dice\":[6,6]}]}",
                   "/v1/combats/edna");
    snprintf(rig_ctx, sizeof rig_ctx, "one-off entered");
    RIG_IS_TRUE(json_is_null(get(rep, "campaign_id")));
    t = at(get(rep, "tests"), 0);
    RIG_EQ_STR(str(t, "unit"), "X");
    RIG_IS_TRUE(json_is_null(get(t, "unit_id")));
    RIG_EQ_INT(rig_inum(t, "total"), 5);
    RIG_EQ_INT(rig_inum(t, "start"), 8);
    RIG_EQ_INT(rig_inum(t, "edna_before"), 5);
    RIG_EQ_INT(rig_inum(t, "edna_after"), 5);
    RIG_IS_TRUE(json_is_true(get(t, "passed")));
    t = at(get(rep, "tests"), 1);
    RIG_EQ_STR(str(t, "unit"), "Y");
    RIG_EQ_INT(rig_inum(t, "edna_before"), 10);
    RIG_EQ_INT(rig_inum(t, "edna_after"), 8);
    RIG_IS_TRUE(json_is_false(get(t, "passed")));
    check_tests_model(rep, 2, 6);
    snprintf(path, sizeof path, "/v1/combats/%s", str(rep, "id"));
    back = rig_call(200, "GET", NULL, NULL, "%s", path);
    RIG_IS_TRUE(json_equal(back, rep));
    json_decref(back);
    rig_check_replay(path, NULL);
    json_decref(rep);
    /* Seeded, 3d10 by request: every natural from the revealed seed */
    rep = rig_call(201, "POST", NULL,
                   "{\"dice\":{\"source\":\"seeded\",\"client_seed\":"
                   "\"table-7\"},\"options\":{\"dice\":3,\"faces\":10},"
                   "\"units\":[{\"name\":\"X\",\"start\":20},{\"name\":\"Y\","
                   "\"edna\":4,\"modifier\":1}]}",
                   "/v1/combats/edna");
    snprintf(rig_ctx, sizeof rig_ctx, "one-off seeded");
    dice = get(rep, "dice");
    RIG_EQ_STR(str(dice, "source"), "seeded");
    RIG_EQ_STR(str(dice, "client_seed"), cs);
    RIG_IS_TRUE(json_is_true(get(dice, "verifiable")));
    ck_assert_ptr_nonnull(str(dice, "server_seed"));
    ck_assert_int_eq(rng_unhex(str(dice, "server_seed"), seed, sizeof seed), 0);
    crypto_hash_sha256(hash, seed, sizeof seed);
    sodium_bin2hex(hex, sizeof hex, hash, sizeof hash);
    RIG_EQ_STR(str(dice, "commitment"), hex);
    RIG_EQ_INT(json_array_size(get(rep, "rolls")), 6);
    rng_v1_init(&rng, seed, (const uint8_t *)cs, strlen(cs));
    json_array_foreach(get(rep, "rolls"), i, t)
    {
        snprintf(rig_ctx, sizeof rig_ctx, "one-off seeded roll %zu", i + 1);
        RIG_EQ_STR(str(t, "rng"), "v1");
        RIG_EQ_INT(rig_inum(t, "natural"), rng_v1_die(&rng, 10));
    }
    rng_v1_cleanup(&rng);
    snprintf(rig_ctx, sizeof rig_ctx, "one-off seeded");
    RIG_EQ_INT(rig_inum(at(get(rep, "tests"), 0), "edna_before"), 20);
    RIG_EQ_INT(rig_inum(at(get(rep, "tests"), 1), "edna_before"), 4);
    RIG_EQ_INT(rig_inum(at(get(rep, "tests"), 1), "start"), 8);
    check_tests_model(rep, 3, 10);
    snprintf(path, sizeof path, "/v1/combats/%s", str(rep, "id"));
    back = rig_call(200, "GET", NULL, NULL, "%s", path);
    RIG_IS_TRUE(json_equal(back, rep));
    json_decref(back);
    rig_check_replay(path, NULL);
    json_decref(rep);
    /* an ineffective unit is refused one-off too */
    p = rig_call(422, "POST", NULL,
                 "{\"units\":[{\"name\":\"X\"},{\"name\":\"Z\",\"edna\":0}]}",
                 "/v1/combats/edna");
    snprintf(rig_ctx, sizeof rig_ctx, "one-off ineffective");
    expect_problem(p, "rule_violation", "units[1]");
    json_decref(p);
    snprintf(rig_ctx, sizeof rig_ctx, "one-off d4 and a 5");
    p = rig_call(422, "POST", NULL,
                 "{\"dice\":{\"source\":\"entered\"},\"options\":{\"faces\":"
                 "4},\"units\":[{\"name\":\"X\",\"dice\":[5,1]}]}",
                 "/v1/combats/edna");
    expect_problem(p, "out_of_range", "units[0].dice");
    json_decref(p);
}
END_TEST

/* ---- 6. The unit list's system and ineffective filters ---- */

/* The names of the units ?query lists, comma-separated, in order. */
static void listed(const test_campaign *c, const char *query, char *out,
                   size_t n)
{
    json_t *l = rig_cget(c, "units?%s", query), *u;
    size_t i;

    out[0] = '\0';
    json_array_foreach(get(l, "items"), i, u)
        snprintf(out + strlen(out), n - strlen(out), "%s%s", i ? "," : "",
                 str(u, "name"));
    json_decref(l);
}

START_TEST(test_unit_filters)
{
    /* Units without EDNA are in neither ineffective list (the spec's
     * IneffectiveFilter); S is SCRUD only. */
    static const struct {
        const char *query, *names;
    } cases[] = {
        {"side=a", "S,E,Both,Z"},
        {"system=edna", "E,Both,Z"},
        {"system=scrud", "S,Both"},
        {"ineffective=true", "Z"},
        {"ineffective=false", "E,Both"},
        {"system=edna&ineffective=false", "E,Both"},
        {"system=scrud&ineffective=true", ""},
        {"system=scrud&ineffective=false", "Both"},
        {"system=edna&eliminated=false", "E,Both,Z"},
        {"system=edna&eliminated=true", ""},
    };
    /* checked in the order eliminated, ineffective, system, then side */
    static const struct {
        const char *query, *field;
    } bad[] = {{"system=chess", "system"},
               {"system=", "system"},
               {"system=EDNA", "system"},
               {"ineffective=yes", "ineffective"},
               {"ineffective=1", "ineffective"},
               {"ineffective=", "ineffective"},
               {"system=x&side=nobody", "system"},
               {"system=x&ineffective=x", "ineffective"},
               {"ineffective=x&eliminated=x", "eliminated"}};
    char ids[4][64], names[128];
    test_campaign c;
    json_t *p;
    size_t i;

    campaign_with(&c, NULL);
    unit_with(&c, "S", "\"scrud\":{}", ids[0]);
    unit_with(&c, "E", "\"edna\":{}", ids[1]);
    unit_with(&c, "Both", "\"scrud\":{},\"edna\":{}", ids[2]);
    unit_with(&c, "Z", "\"edna\":{\"start\":3}", ids[3]);
    json_decref(rig_call(200, "PATCH", c.umpire, "{\"edna\":{\"edna\":0}}",
                         "/v1/campaigns/%s/units/%s", c.id, ids[3]));
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(rig_ctx, sizeof rig_ctx, "units?%s", cases[i].query);
        listed(&c, cases[i].query, names, sizeof names);
        RIG_EQ_STR(names, cases[i].names);
    }
    /* a player reads the filtered list too */
    p = rig_call(200, "GET", c.player[1], NULL,
                 "/v1/campaigns/%s/units?ineffective=true", c.id);
    snprintf(rig_ctx, sizeof rig_ctx, "player's filtered list");
    RIG_EQ_INT(json_array_size(get(p, "items")), 1);
    json_decref(p);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(rig_ctx, sizeof rig_ctx, "units?%s", bad[i].query);
        p = rig_call(422, "GET", c.umpire, NULL, "/v1/campaigns/%s/units?%s",
                     c.id, bad[i].query);
        expect_problem(p, "invalid_value", bad[i].field);
        json_decref(p);
    }
    /* a unit without EDNA is not ineffective on its card either */
    p = rig_cget(&c, "units/%s/card", ids[0]);
    snprintf(rig_ctx, sizeof rig_ctx, "card of S");
    RIG_IS_TRUE(json_is_false(get(p, "ineffective")));
    RIG_IS_TRUE(get(p, "edna") == NULL);
    json_decref(p);
    p = rig_cget(&c, "units/%s/card", ids[3]);
    snprintf(rig_ctx, sizeof rig_ctx, "card of Z");
    RIG_IS_TRUE(json_is_true(get(p, "ineffective")));
    json_decref(p);
}
END_TEST

Suite *suite_edna_http(void)
{
    Suite *s = suite_create("edna_http");
    TCase *tc = tcase_create("edna_http");

    tcase_add_checked_fixture(tc, rig_setup, rig_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_vector_through_campaign);
    tcase_add_test(tc, test_volley);
    tcase_add_test(tc, test_ineffective_unit);
    tcase_add_test(tc, test_2d8_variant);
    tcase_add_test(tc, test_oneoff);
    tcase_add_test(tc, test_unit_filters);
    suite_add_tcase(s, tc);
    return s;
}
