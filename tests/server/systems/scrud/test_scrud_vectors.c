/*
 * test_scrud_vectors.c: the worked examples of the SCRUD rules
 * (docs/rules/scrud.md) end to end over HTTP, from the test vectors: the
 * Tannenberg campaign three days in a row with the unit state persisted
 * between them (reports, unit lists, histories, read-back and replay), and
 * the blog examples as one-off combats.
 *
 * Every expectation is read from the vector files.  The other SCRUD
 * combats over HTTP are in test_scrud_http.c; both use rig.h.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <jansson.h>

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

/*
 * The request body of one vector combat with entered dice: campaign units
 * by reference, or inline units with their quality (from vunits).
 */
static char *vector_body(const json_t *vunits, const json_t *cv,
                         const json_t *options, bool is_campaign)
{
    json_t *body = json_object(), *sides = json_array();
    char *text;
    int s;

    for (s = 0; s < 2; s++) {
        const char *side = str(cv, s ? "second" : "first");
        json_t *dice = get(get(cv, "dice"), side), *units = json_array(), *d;
        size_t i;
        json_array_foreach(dice, i, d)
        {
            const char *name = json_string_value(at(d, 0));
            json_t *u = json_pack("{s:s, s:O}", is_campaign ? "unit" : "name",
                                  name, "die", at(d, 1));
            if (!is_campaign)
                json_object_set(u, "quality",
                                get(get(vunits, name), "quality"));
            json_array_append_new(units, u);
        }
        json_array_append_new(sides, json_pack("{s:s, s:o}",
                                               is_campaign ? "side" : "name",
                                               side, "units", units));
    }
    json_object_set_new(body, "sides", sides);
    json_object_set_new(body, "dice", json_pack("{s:s}", "source", "entered"));
    if (options && json_object_size(options) > 0)
        json_object_set(body, "options", (json_t *)options);
    text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    ck_assert_ptr_nonnull(text);
    return text;
}

/* Report rows (objects) against vector rows [k0, k1, k2] in order. */
static void check_rows(const json_t *got, const json_t *want, const char *k0,
                       const char *k1, const char *k2)
{
    const char *keys[3] = {k0, k1, k2};
    size_t i, k;

    RIG_EQ_INT(json_array_size(got), json_array_size(want));
    for (i = 0; i < json_array_size(want); i++)
        for (k = 0; k < 3; k++)
            ck_assert_msg(
                json_equal(get(at(got, i), keys[k]), at(at(want, i), k)),
                "%s: row %zu: %s is not %s", rig_ctx, i, keys[k],
                json_string_value(at(at(want, i), k)));
}

/*
 * The outcome of a report against a vector combat's "expect": line-ups,
 * defeats, eliminations with reasons, pairs in order, unpaired dice.
 */
static void check_outcome(const json_t *rep, const json_t *vunits,
                          const json_t *cv)
{
    const json_t *ex = get(cv, "expect");
    json_t *sides = get(rep, "sides"), *v;
    size_t n_elim = 0, i;
    int s;

    RIG_EQ_INT(json_array_size(sides), 2);
    for (s = 0; s < 2; s++) {
        const char *name = str(cv, s ? "second" : "first");
        json_t *side = at(sides, (size_t)s);
        json_t *want = get(get(ex, "lined_up"), name);
        json_t *got = get(side, "lined_up");
        RIG_EQ_STR(str(side, "name"), name);
        RIG_EQ_INT(json_array_size(got), json_array_size(want));
        for (i = 0; i < json_array_size(want); i++)
            RIG_EQ_INT(rig_inum(at(got, i), "score"),
                       json_integer_value(at(want, i)));
        RIG_EQ_INT(rig_inum(side, "defeats_suffered"),
                   json_integer_value(get(get(ex, "defeats_suffered"), name)));
        json_array_foreach(get(side, "eliminated"), i, v)
        {
            const char *unit = str(v, "unit");
            const char *reason = str(get(ex, "eliminated"), unit);
            ck_assert_msg(reason != NULL, "%s: %s eliminated unexpectedly",
                          rig_ctx, unit);
            RIG_EQ_STR(str(v, "reason"), reason);
            RIG_EQ_STR(str(get(vunits, unit), "side"), name);
            RIG_EQ_STR(str(rig_report_unit(rep, unit), "eliminated"), reason);
            n_elim++;
        }
    }
    RIG_EQ_INT(n_elim, json_object_size(get(ex, "eliminated")));
    check_rows(get(rep, "pairs"), get(ex, "pairs"), "first", "second",
               "winner");
    check_rows(get(rep, "extra"), get(ex, "extra"), "unit", "defeated",
               "result");
}

/* State {defeat_penalty, fatigue_penalty, modifier} against a vector's. */
static void check_state(const json_t *got, const json_t *want)
{
    RIG_EQ_INT(rig_inum(got, "defeat_penalty"),
               rig_inum(want, "defeat_penalty"));
    RIG_EQ_INT(rig_inum(got, "fatigue_penalty"),
               rig_inum(want, "fatigue_penalty"));
    RIG_EQ_INT(rig_inum(got, "modifier"), rig_inum(want, "modifier"));
}

/* Whether the unit name rolls in vector combat cv. */
static bool fights_in(const json_t *cv, const char *name)
{
    int s;

    for (s = 0; s < 2; s++) {
        json_t *d;
        size_t i;
        json_array_foreach(
            get(get(cv, "dice"), str(cv, s ? "second" : "first")), i,
            d) if (strcmp(json_string_value(at(d, 0)), name) == 0) return true;
    }
    return false;
}

/* ---- 1. Tannenberg, three days in a row in one campaign ---- */

#define T_DAYS 3

/* Units of the campaign after a day: survivors as the vector lists them,
 * the others eliminated (gone: name -> {reason, by}). */
static void check_persisted(const test_campaign *c, const json_t *vunits,
                            const json_t *ids, const json_t *after,
                            const json_t *gone, size_t day)
{
    json_t *list = rig_cget(c, "units"), *items = get(list, "items"), *vu;
    const char *name;

    RIG_EQ_INT(json_array_size(items), json_object_size(vunits));
    json_object_foreach((json_t *)vunits, name, vu)
    {
        json_t *u = rig_find_by(items, "name", name), *g = get(gone, name);
        snprintf(rig_ctx, sizeof rig_ctx, "tannenberg day %zu, unit %s", day,
                 name);
        RIG_IS_TRUE(u != NULL);
        RIG_EQ_STR(str(u, "id"), str(ids, name));
        if (get(after, name)) {
            RIG_IS_TRUE(g == NULL);
            RIG_IS_TRUE(json_is_false(get(u, "eliminated")));
            RIG_IS_TRUE(json_is_null(get(u, "eliminated_reason")));
            check_state(get(u, "scrud"), get(after, name));
        } else {
            RIG_IS_TRUE(g != NULL);
            RIG_IS_TRUE(json_is_true(get(u, "eliminated")));
            RIG_EQ_STR(str(u, "eliminated_reason"), str(g, "reason"));
            RIG_EQ_STR(str(u, "eliminated_by"), str(g, "by"));
        }
    }
    json_decref(list);
}

/* History: created, then one combat event per day fought, in order, each
 * with the state the vector expects after that day. */
static void check_history(const test_campaign *c, const json_t *combats,
                          const char *name, const char *id, char cids[][64],
                          const json_t *gone)
{
    json_t *h = rig_cget(c, "units/%s/history", id), *items = get(h, "items");
    size_t d, k = 1;

    snprintf(rig_ctx, sizeof rig_ctx, "history of %s", name);
    RIG_EQ_STR(str(h, "unit_id"), id);
    RIG_EQ_STR(str(at(items, 0), "kind"), "created");
    for (d = 0; d < T_DAYS; d++) {
        json_t *cv = at(combats, d), *ev, *want, *after;
        if (!fights_in(cv, name))
            continue;
        snprintf(rig_ctx, sizeof rig_ctx, "history of %s, day %zu", name,
                 d + 1);
        ev = at(items, k++);
        RIG_EQ_STR(str(ev, "kind"), "combat");
        RIG_EQ_STR(str(ev, "combat_id"), cids[d]);
        RIG_IS_TRUE(rig_inum(ev, "seq") > rig_inum(at(items, k - 2), "seq"));
        want = get(get(get(cv, "expect"), "units_after"), name);
        after = get(ev, "after");
        if (want) {
            RIG_IS_TRUE(json_is_false(get(after, "eliminated")));
            check_state(get(after, "scrud"), want);
        } else {
            RIG_IS_TRUE(json_is_true(get(after, "eliminated")));
            RIG_EQ_STR(str(after, "eliminated_reason"),
                       str(get(gone, name), "reason"));
        }
    }
    snprintf(rig_ctx, sizeof rig_ctx, "history of %s", name);
    RIG_EQ_INT(json_array_size(items), k);
    json_decref(h);
}

START_TEST(test_tannenberg_campaign)
{
    json_t *vec = ts_load_vector("scrud-tannenberg.json");
    json_t *vunits = get(vec, "units"), *combats = get(vec, "combats");
    json_t *ids = json_object(), *gone = json_object(), *reports[T_DAYS];
    json_t *vu, *list, *v;
    const char *sides[3], *name;
    char cids[T_DAYS][64], *body;
    test_campaign c;
    size_t d, i;

    ck_assert_int_eq(json_array_size(combats), T_DAYS);
    sides[0] = str(at(combats, 0), "first");
    sides[1] = str(at(combats, 0), "second");
    sides[2] = NULL;
    ts_campaign(rig_ts, &c, NULL, sides);
    json_object_foreach(vunits, name, vu)
    {
        char id[64];
        ts_unit(rig_ts, &c, name, str(vu, "side"), (int)rig_inum(vu, "quality"),
                6, id);
        json_object_set_new(ids, name, json_string(id));
    }
    for (d = 0; d < T_DAYS; d++) {
        json_t *cv = at(combats, d), *ex = get(cv, "expect"), *rep;
        snprintf(rig_ctx, sizeof rig_ctx, "tannenberg day %zu", d + 1);
        body = vector_body(vunits, cv, get(vec, "options"), true);
        rep = reports[d] = rig_campaign_combat(&c, 201, body);
        free(body);
        snprintf(cids[d], sizeof cids[d], "%s", str(rep, "id"));
        RIG_EQ_STR(str(rep, "campaign_id"), c.id);
        RIG_EQ_STR(str(get(rep, "dice"), "source"), "entered");
        check_outcome(rep, vunits, cv);
        for (i = 0; i < 2; i++)
            RIG_EQ_STR(str(at(get(rep, "sides"), i), "side_id"), c.side_id[i]);
        json_object_foreach(get(ex, "eliminated"), name, v)
            json_object_set_new(gone, name,
                                json_pack("{s:s, s:s}", "reason",
                                          json_string_value(v), "by", cids[d]));
        json_object_foreach(get(ex, "units_after"), name,
                            v) if (fights_in(cv, name))
            check_state(get(rig_report_unit(rep, name), "after"), v);
        check_persisted(&c, vunits, ids, get(ex, "units_after"), gone, d + 1);
    }
    /* Every combat reads back as it was answered, and replays */
    list = rig_cget(&c, "combats");
    snprintf(rig_ctx, sizeof rig_ctx, "tannenberg combat list");
    RIG_EQ_INT(json_array_size(get(list, "items")), T_DAYS);
    for (d = 0; d < T_DAYS; d++) {
        char path[160];
        json_t *back;
        snprintf(rig_ctx, sizeof rig_ctx, "tannenberg day %zu read back",
                 d + 1);
        RIG_EQ_STR(str(at(get(list, "items"), d), "id"), cids[d]);
        snprintf(path, sizeof path, "/v1/campaigns/%s/combats/%s", c.id,
                 cids[d]);
        back = rig_call(200, "GET", c.player[0], NULL, "%s", path);
        RIG_IS_TRUE(json_equal(back, reports[d]));
        json_decref(back);
        json_decref(reports[d]);
        rig_check_replay(path, c.umpire);
    }
    json_decref(list);
    json_object_foreach(vunits, name, vu)
        check_history(&c, combats, name, str(ids, name), cids, gone);
    json_decref(ids);
    json_decref(gone);
    json_decref(vec);
}
END_TEST

/* ---- 2. The blog examples as one-off combats ---- */

START_TEST(test_blog_examples_oneoff)
{
    json_t *vec = ts_load_vector("scrud-blog-examples.json"), *cv;
    size_t k, i;

    ck_assert_int_gt(json_array_size(get(vec, "cases")), 0);
    json_array_foreach(get(vec, "cases"), k, cv)
    {
        json_t *opts = get(cv, "options"), *rep, *back, *v;
        char *body = vector_body(get(cv, "units"), cv, opts, false), path[96];
        const char *key, *name;
        snprintf(rig_ctx, sizeof rig_ctx, "blog case %s", str(cv, "name"));
        rep = rig_call(201, "POST", NULL, body, "/v1/combats/scrud");
        free(body);
        RIG_IS_TRUE(json_is_null(get(rep, "campaign_id")));
        RIG_IS_TRUE(json_is_null(get(at(get(rep, "sides"), 0), "side_id")));
        check_outcome(rep, get(cv, "units"), cv);
        /* Entered dice are recorded, not verifiable */
        RIG_IS_TRUE(json_is_false(get(get(rep, "dice"), "verifiable")));
        RIG_IS_TRUE(json_is_null(get(get(rep, "dice"), "commitment")));
        RIG_IS_TRUE(json_is_null(get(get(rep, "dice"), "server_seed")));
        json_array_foreach(get(rep, "rolls"), i, v)
        {
            RIG_EQ_STR(str(v, "source"), "entered");
            RIG_IS_TRUE(json_is_null(get(v, "rng")));
        }
        json_object_foreach(opts, key, v)
            ck_assert_msg(json_equal(get(get(rep, "options"), key), v),
                          "%s: option %s not applied", rig_ctx, key);
        json_object_foreach(get(get(cv, "expect"), "units_after"), name, v)
            check_state(get(rig_report_unit(rep, name), "after"), v);
        snprintf(path, sizeof path, "/v1/combats/%s", str(rep, "id"));
        back = rig_call(200, "GET", NULL, NULL, "%s", path);
        RIG_IS_TRUE(json_equal(back, rep));
        json_decref(back);
        rig_check_replay(path, NULL);
        json_decref(rep);
    }
    json_decref(vec);
}
END_TEST

Suite *suite_scrud_vectors(void)
{
    Suite *s = suite_create("scrud_vectors");
    TCase *tc = tcase_create("scrud_vectors");

    tcase_add_checked_fixture(tc, rig_setup, rig_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_tannenberg_campaign);
    tcase_add_test(tc, test_blog_examples_oneoff);
    suite_add_tcase(s, tc);
    return s;
}
