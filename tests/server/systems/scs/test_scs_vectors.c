/*
 * test_scs_vectors.c: the worked examples of the SCS rules (docs/rules/
 * scs.md, "Test vectors") end to end over HTTP, from tests/vectors/
 * scs-examples.json: every combat case as a one-off combat with its dice
 * entered, then through a campaign whose stored units and histories must
 * show the steps lost; every odds case as a one-off combat whose totals
 * are the case's; the built-in example table against its file, and that
 * file's table spoiled cell by cell, each upload refused naming the cell.
 *
 * Inputs and expectations are read from the files: each case's members
 * and each "expect" key has its entry in a table below, and a member or
 * key without one fails the test, so nothing in a vector goes unchecked.
 * Hand-written: the bridge-and-woods "also_expect" sentence, and the
 * spoiled cells with the errors they must give.  Other SCS tests over HTTP are
 * in test_scs_http.c; both use scs_rig.h.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <jansson.h>

#include "harness.h"
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

static const char *const sides_key[2] = {"attackers", "defenders"};

/* ---- requests from a case ---- */

/* The request members a case may carry, copied as they are. */
static const char *const order_keys[] = {
    "column_shift",        "overrun",          "attacker_allocation",
    "defender_allocation", "attacker_retreat", "defender_retreat"};
/* The members of a case that are not the request's, or handled apart. */
static const char *const case_keys[] = {"name",        "crt",  "attackers",
                                        "defenders",   "dice", "expect",
                                        "also_expect", "note"};
/* A case's unit: its members the request takes as they are. */
static const char *const unit_keys[] = {
    "attack",     "defense",         "movement",     "steps",
    "steps_lost", "exploit_capable", "out_of_supply"};

static bool is_in(const char *const *list, size_t n, const char *key)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (strcmp(list[i], key) == 0)
            return true;
    return false;
}

#define IS_IN(list, key) is_in(list, sizeof list / sizeof list[0], key)

/* The crt file of a case named by string, loaded (kept). */
static json_t *crt_file(const json_t *cv)
{
    return scs_rig_keep(ts_load_vector(str(cv, "crt")));
}

/*
 * The request body of case cv: inline units (c NULL) or the campaign's by
 * name, the table by the name of the built-in its file is (table_name
 * NULL) or the one given, the case's dice entered.
 */
static json_t *case_body(const json_t *cv, const test_campaign *c,
                         const char *table_name)
{
    json_t *body = scs_rig_keep(json_object()), *u, *v;
    const char *key;
    size_t i;
    int s;

    json_object_foreach((json_t *)cv, key, v)
    {
        ck_assert_msg(IS_IN(case_keys, key) || IS_IN(order_keys, key),
                      "%s: the case's member %s has no use here", rig_ctx, key);
        if (IS_IN(order_keys, key))
            json_object_set(body, key, v);
    }
    if (table_name)
        json_object_set_new(body, "table", json_string(table_name));
    else if (json_is_string(get(cv, "crt")))
        json_object_set(body, "table", get(crt_file(cv), "name"));
    else
        json_object_set(body, "table", get(cv, "crt"));
    for (s = 0; s < 2; s++) {
        json_t *units = json_array();
        json_array_foreach(get(cv, sides_key[s]), i, u)
        {
            json_t *x = json_object();
            json_object_set(x, c ? "unit" : "name", get(u, "id"));
            json_object_set(x, "multipliers", get(u, "multipliers"));
            json_object_foreach(u, key, v)
            {
                ck_assert_msg(IS_IN(unit_keys, key) || !strcmp(key, "id") ||
                                  !strcmp(key, "multipliers"),
                              "%s: the unit member %s has no use here", rig_ctx,
                              key);
                if (c == NULL && IS_IN(unit_keys, key))
                    json_object_set(x, key, v);
            }
            json_array_append_new(units, x);
        }
        json_object_set_new(body, sides_key[s], units);
    }
    json_object_set_new(body, "dice", json_pack("{s:s}", "source", "entered"));
    if (json_array_size(get(cv, "dice")) > 0)
        json_object_set(body, "roll", get(cv, "dice"));
    return body;
}

/* Posts body (one-off when c is NULL); the report (kept). */
static json_t *post(const test_campaign *c, const json_t *body, int status)
{
    char *text = scs_text(body);
    json_t *rep = scs_rig_combat(c, status, text);

    free(text);
    return rep;
}

/* ---- expectations ---- */

/* The steps the case expects unit name to lose (0 when not listed). */
static long long want_lost(const json_t *cv, const char *name)
{
    json_t *v = get(get(get(cv, "expect"), "steps_lost"), name);

    return v ? json_integer_value(v) : 0;
}

/* Whether the case expects unit name eliminated. */
static bool want_eliminated(const json_t *cv, const char *name)
{
    json_t *v;
    size_t i;

    json_array_foreach(get(get(cv, "expect"), "eliminated"), i, v)
    {
        if (strcmp(json_string_value(v), name) == 0)
            return true;
    }
    return false;
}

/* An "expect" key of case cv, its value want, against the report rep. */
typedef struct expect_args {
    const json_t *rep, *want, *cv;
    const char *key;
} expect_args;

/* "attack_total", "defense_total": the exact fraction. */
static void ex_fraction(const expect_args *a)
{
    RIG_EQ_STR(str(get(a->rep, a->key), "fraction"),
               json_string_value(a->want));
}

/* "odds", "result": the report's member as it is. */
static void ex_same(const expect_args *a)
{
    RIG_IS_TRUE(json_is_string(a->want));
    RIG_EQ_STR(str(a->rep, a->key), json_string_value(a->want));
}

/* "column": after shifts; null is off the table, with no die rolled and
 * the attacker's step (procedure 4). */
static void ex_column(const expect_args *a)
{
    if (json_is_null(a->want)) {
        scs_rig_assert_has(a->rep,
                           "{\"column\":null,\"off_table\":true,\"roll\":"
                           "null,\"result\":null,\"rolls\":[],\"attacker\":{"
                           "\"steps\":1},\"defender\":{\"steps\":0}}");
        RIG_EQ_STR(str(at(get(a->rep, "losses"), 0), "cause"), "off_table");
        return;
    }
    RIG_EQ_STR(str(a->rep, "column"), json_string_value(a->want));
    RIG_IS_TRUE(json_is_false(get(a->rep, "off_table")));
}

/* "roll": its value, from the dice logged in order; null: none. */
static void ex_roll(const expect_args *a)
{
    const json_t *roll = get(a->rep, a->key), *dice = get(a->cv, "dice");
    const json_t *rolls = get(a->rep, "rolls");
    size_t k;

    if (json_is_null(a->want)) {
        RIG_IS_TRUE(json_is_null(roll));
        RIG_EQ_INT(json_array_size(rolls), 0);
        return;
    }
    RIG_EQ_INT(rig_inum(roll, "value"), json_integer_value(a->want));
    RIG_EQ_STR(str(roll, "kind"), str(get(a->rep, "table"), "roll"));
    RIG_IS_TRUE(json_equal(get(roll, "dice"), dice));
    RIG_EQ_INT(json_array_size(rolls), json_array_size(dice));
    for (k = 0; k < json_array_size(dice); k++) {
        scs_rig_assert_has(at(rolls, k),
                           "{\"seq\":%zu,\"natural\":%lld,\"faces\":6,"
                           "\"source\":\"entered\",\"reason\":\"scs.crt\"}",
                           k + 1, (long long)json_integer_value(at(dice, k)));
    }
}

/* "steps_lost": per unit, this combat's ("lost"), its total, and one line
 * of the losses log a step. */
static void ex_steps_lost(const expect_args *a)
{
    const char *name;
    json_t *v, *l;
    size_t i, k;
    int s;

    json_object_foreach((json_t *)a->want, name, v)
    {
        (void)scs_rig_report_unit(a->rep, name); /* every one is in it */
    }
    for (s = 0; s < 2; s++) {
        json_array_foreach(get(a->rep, sides_key[s]), i, v)
        {
            const char *unit = str(v, "unit");
            long long n = 0, want = want_lost(a->cv, unit);
            RIG_EQ_INT(rig_inum(v, "lost"), want);
            RIG_EQ_INT(rig_inum(v, "steps_lost"),
                       rig_inum(v, "steps_lost_before") + want);
            json_array_foreach(get(a->rep, "losses"), k, l)
            {
                n += strcmp(str(l, "unit"), unit) == 0 &&
                     strcmp(str(l, "side"), s ? "defender" : "attacker") == 0;
            }
            RIG_EQ_INT(n, want);
        }
    }
}

/* "first_attacker_step_from": the attacker's first loss. */
static void ex_first_attacker_step(const expect_args *a)
{
    const json_t *first = NULL, *l;
    size_t k;

    json_array_foreach(get(a->rep, "losses"), k, l)
    {
        if (first == NULL && strcmp(str(l, "side"), "attacker") == 0)
            first = l;
    }
    RIG_IS_TRUE(first != NULL);
    RIG_EQ_STR(str(first, "unit"), json_string_value(a->want));
}

/* "attacker_retreat_hexes", "defender_retreat_hexes": still to move. */
static void ex_retreat(const expect_args *a)
{
    RIG_EQ_INT(rig_inum(get(a->rep, a->key[0] == 'a' ? "attacker" : "defender"),
                        "retreat_hexes"),
               json_integer_value(a->want));
}

/* "defender_advance": false, and no defending unit has hexes to go. */
static void ex_defender_advance(const expect_args *a)
{
    json_t *u;
    size_t i;

    RIG_IS_TRUE(json_is_false(a->want));
    json_array_foreach(get(a->rep, "defenders"), i, u)
    {
        RIG_EQ_INT(rig_inum(u, "advance_hexes"), 0);
    }
}

/* "eliminated": the units, and each unit's flag. */
static void ex_eliminated(const expect_args *a)
{
    json_t *u;
    size_t i;
    int s;

    RIG_EQ_INT(json_array_size(get(a->rep, a->key)), json_array_size(a->want));
    json_array_foreach(get(a->rep, a->key), i, u)
    {
        RIG_IS_TRUE(want_eliminated(a->cv, json_string_value(u)));
    }
    for (s = 0; s < 2; s++) {
        json_array_foreach(get(a->rep, sides_key[s]), i, u)
        {
            RIG_IS_TRUE(json_is_true(get(u, "eliminated")) ==
                        want_eliminated(a->cv, str(u, "unit")));
        }
    }
}

/* "defender_hex_vacated". */
static void ex_vacated(const expect_args *a)
{
    RIG_IS_TRUE(json_is_boolean(a->want));
    RIG_IS_TRUE(json_equal(get(a->rep, "hex_vacated"), a->want));
}

/* "advance": hexes for every attacker, more for the exploit-capable. */
static void ex_advance(const expect_args *a)
{
    long long plain = rig_inum(a->want, "non_exploit_hexes");
    long long exploit = rig_inum(a->want, "exploit_hexes");
    json_t *u, *vu;
    size_t i;

    RIG_EQ_INT(json_object_size(a->want), 2);
    scs_rig_assert_has(a->rep,
                       "{\"advance\":{\"allowed\":true,\"hexes\":%lld,"
                       "\"exploit_hexes\":%lld}}",
                       plain, exploit);
    json_array_foreach(get(a->cv, "attackers"), i, vu)
    {
        u = scs_rig_report_unit(a->rep, str(vu, "id"));
        RIG_EQ_INT(rig_inum(u, "advance_hexes"),
                   json_is_true(get(u, "eliminated"))         ? 0
                   : json_is_true(get(vu, "exploit_capable")) ? exploit
                                                              : plain);
    }
}

/* "dice_rolled": the roll log's length. */
static void ex_dice_rolled(const expect_args *a)
{
    RIG_EQ_INT(json_array_size(get(a->rep, "rolls")),
               json_integer_value(a->want));
}

static const struct {
    const char *key;
    void (*check)(const expect_args *a);
} expects[] = {
    {"attack_total", ex_fraction},
    {"defense_total", ex_fraction},
    {"odds", ex_same},
    {"column", ex_column},
    {"roll", ex_roll},
    {"result", ex_same},
    {"steps_lost", ex_steps_lost},
    {"first_attacker_step_from", ex_first_attacker_step},
    {"attacker_retreat_hexes", ex_retreat},
    {"defender_retreat_hexes", ex_retreat},
    {"defender_advance", ex_defender_advance},
    {"eliminated", ex_eliminated},
    {"defender_hex_vacated", ex_vacated},
    {"advance", ex_advance},
    {"dice_rolled", ex_dice_rolled},
};

/* Every "expect" key of cv against rep, and what holds in every combat. */
static void check_expect(const json_t *rep, const json_t *cv)
{
    const char *key;
    json_t *want, *u;
    char base[sizeof rig_ctx];
    size_t k;

    snprintf(base, sizeof base, "%s", rig_ctx);
    json_object_foreach(get(cv, "expect"), key, want)
    {
        expect_args args = {rep, want, cv, key};
        for (k = 0; k < sizeof expects / sizeof expects[0]; k++)
            if (strcmp(expects[k].key, key) == 0)
                break;
        ck_assert_msg(k < sizeof expects / sizeof expects[0],
                      "%s: no check for the expect key %s", base, key);
        snprintf(rig_ctx, sizeof rig_ctx, "%.150s, expect %s", base, key);
        expects[k].check(&args);
    }
    snprintf(rig_ctx, sizeof rig_ctx, "%s", base);
    /* Defenders never advance (procedure 8) */
    json_array_foreach(get(rep, "defenders"), k, u)
    {
        RIG_EQ_INT(rig_inum(u, "advance_hexes"), 0);
    }
    RIG_EQ_STR(str(rep, "system"), "scs");
}

/* ---- 1. Every combat case, one-off with its dice entered ---- */

START_TEST(test_combats_oneoff)
{
    json_t *vec = scs_rig_keep(ts_load_vector("scs-examples.json")), *cv;
    size_t n;

    RIG_IS_TRUE(json_array_size(get(vec, "combats")) > 0);
    json_array_foreach(get(vec, "combats"), n, cv)
    {
        json_t *body, *rep, *back;
        char path[128];
        snprintf(rig_ctx, sizeof rig_ctx, "one-off %s", str(cv, "name"));
        body = case_body(cv, NULL, NULL);
        rep = post(NULL, body, 201);
        RIG_IS_TRUE(json_is_null(get(rep, "campaign_id")));
        RIG_EQ_STR(str(get(rep, "table"), "source"),
                   json_is_string(get(cv, "crt")) ? "builtin" : "inline");
        RIG_IS_TRUE(json_is_false(get(get(rep, "dice"), "verifiable")));
        check_expect(rep, cv);
        scs_rig_combat_path(rep, path, sizeof path);
        back = scs_call(200, "GET", NULL, NULL, "%s", path);
        RIG_IS_TRUE(json_equal(back, rep));
        scs_rig_replay(rep, NULL, true);
    }
}
END_TEST

/*
 * The case's sentence: "An attacker allocation of ["4", "8"] is refused:
 * the first step must come from unit 6, the highest printed attack."
 * (docs/rules/scs.md, procedure 6; rule 8.0a of the source.)
 */
START_TEST(test_bridge_and_woods_allocation_refused)
{
    json_t *vec = scs_rig_keep(ts_load_vector("scs-examples.json"));
    json_t *cv = rig_find_by(get(vec, "combats"), "name", "bridge-and-woods");
    json_t *body, *p, *before;

    snprintf(rig_ctx, sizeof rig_ctx, "bridge-and-woods also_expect");
    RIG_IS_TRUE(cv != NULL);
    RIG_IS_TRUE(strstr(str(cv, "also_expect"), "[\"4\", \"8\"] is refused") !=
                NULL);
    RIG_IS_TRUE(strstr(str(cv, "also_expect"), "unit 6") != NULL);
    body = json_deep_copy(case_body(cv, NULL, NULL));
    json_object_set_new(body, "attacker_allocation",
                        json_pack("[s, s]", "4", "8"));
    scs_rig_keep(body);
    before = scs_rig_world(NULL);
    p = post(NULL, body, 422);
    scs_rig_problem(p, 422, "rule_violation", "attacker_allocation[0]");
    RIG_IS_TRUE(strstr(str(p, "detail"), "8.0a") != NULL);
    RIG_IS_TRUE(strstr(str(p, "detail"), "7") != NULL); /* 6's attack */
    scs_rig_assert_unchanged(before, NULL);
}
END_TEST

/* ---- 2. Every combat case through a campaign ---- */

/* The campaign's unit u of the case, created from its printed values; a
 * unit of two steps or more gets a reduced side (any values do). */
static void create_unit(const test_campaign *c, const json_t *u,
                        const char *side, char *id_out)
{
    json_t *scs = json_object(), *v;
    const char *key;
    char *text;

    json_object_foreach((json_t *)u, key, v)
    {
        if (IS_IN(unit_keys, key))
            json_object_set(scs, key, v);
    }
    if (json_integer_value(get(u, "steps")) > 1)
        json_object_set_new(
            scs, "reduced",
            json_pack("{s:I, s:I}", "attack",
                      json_integer_value(get(u, "attack")) / 2, "defense",
                      json_integer_value(get(u, "defense")) / 2));
    text = scs_text(scs);
    json_decref(scs);
    scs_rig_unit(c, str(u, "id"), side, text, id_out);
    free(text);
}

/*
 * The stored unit, and its history's last event, after combat rep: the
 * steps its entry in the report (checked against the case) says.
 */
static void check_stored(const test_campaign *c, const json_t *rep,
                         const json_t *vu, const char *id)
{
    const json_t *ru = scs_rig_report_unit(rep, str(vu, "id"));
    json_t *u = scs_rig_keep(rig_cget(c, "units/%s", id)), *h, *ev;
    bool is_elim = json_is_true(get(ru, "eliminated"));

    char elim[160], by[64] = "null";

    snprintf(elim, sizeof elim, "\"eliminated\":%s,\"eliminated_reason\":%s",
             is_elim ? "true" : "false", is_elim ? "\"steps\"" : "null");
    if (is_elim)
        snprintf(by, sizeof by, "\"%s\"", str(rep, "id"));
    scs_rig_assert_has(u,
                       "{%s,\"eliminated_by\":%s,\"scs\":{\"steps_lost\":%lld,"
                       "\"steps_left\":%lld}}",
                       elim, by, rig_inum(ru, "steps_lost"),
                       rig_inum(vu, "steps") - rig_inum(ru, "steps_lost"));
    /* created, then the combat, its result the unit's entry */
    h = get(scs_rig_keep(rig_cget(c, "units/%s/history", id)), "items");
    RIG_EQ_INT(json_array_size(h), 2);
    ev = at(h, 1);
    scs_rig_assert_has(
        ev,
        "{\"kind\":\"combat\",\"combat_id\":\"%s\",\"result\":{"
        "\"system\":\"scs\",\"unit_id\":\"%s\",\"lost\":%lld},"
        "\"before\":{\"scs\":{\"steps_lost\":0}},\"after\":{%s}}",
        str(rep, "id"), id, rig_inum(ru, "lost"), elim);
    RIG_IS_TRUE(json_equal(get(get(ev, "after"), "scs"), get(u, "scs")));
}

START_TEST(test_combats_campaign)
{
    static const char *const sides[] = {"Attacker", "Defender", NULL};
    json_t *vec = scs_rig_keep(ts_load_vector("scs-examples.json")), *cv;
    size_t n;

    json_array_foreach(get(vec, "combats"), n, cv)
    {
        char ids[2][8][64], tname[64];
        json_t *body, *rep, *u, *crt = get(cv, "crt");
        test_campaign c;
        size_t i;
        int s;
        snprintf(rig_ctx, sizeof rig_ctx, "campaign %s", str(cv, "name"));
        scs_rig_campaign(&c, NULL, sides);
        if (json_is_string(crt)) { /* the built-in its file is */
            snprintf(tname, sizeof tname, "%s", str(crt_file(cv), "name"));
        } else { /* put into the campaign */
            char *doc = scs_text(crt);
            snprintf(tname, sizeof tname, "%s", str(crt, "name"));
            scs_rig_put_table(&c, tname, 201, doc);
            free(doc);
        }
        for (s = 0; s < 2; s++)
            json_array_foreach(get(cv, sides_key[s]), i, u)
            {
                ck_assert_uint_lt(i, 8);
                create_unit(&c, u, sides[s], ids[s][i]);
            }
        body = case_body(cv, &c, tname);
        rep = post(&c, body, 201);
        RIG_EQ_STR(str(rep, "campaign_id"), c.id);
        RIG_EQ_STR(str(get(rep, "table"), "name"), tname);
        RIG_EQ_STR(str(get(rep, "table"), "source"),
                   json_is_string(crt) ? "builtin" : "campaign");
        check_expect(rep, cv);
        for (s = 0; s < 2; s++)
            json_array_foreach(get(cv, sides_key[s]), i, u)
            {
                json_t *ru = scs_rig_report_unit(rep, str(u, "id"));
                RIG_EQ_STR(str(ru, "unit_id"), ids[s][i]);
                RIG_EQ_STR(str(ru, "side"), sides[s]);
                check_stored(&c, rep, u, ids[s][i]);
            }
        scs_rig_replay(rep, c.player[1], true);
    }
}
END_TEST

/* ---- 3. The odds cases, one-off ---- */

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* A decimal string ("9.875", "18") as p/q in lowest terms. */
static void decimal_frac(const char *s, int64_t *p, int64_t *q)
{
    const char *dot = strchr(s, '.');
    int64_t g;

    *p = 0;
    *q = 1;
    for (; *s; s++) {
        if (*s == '.')
            continue;
        ck_assert_msg(*s >= '0' && *s <= '9', "not a decimal: %s", s);
        *p = *p * 10 + (*s - '0');
        if (dot && s > dot)
            *q *= 10;
    }
    g = gcd64(*p, *q);
    *p /= g;
    *q /= g;
}

static void frac_text(int64_t p, int64_t q, char *out, size_t n)
{
    int64_t g = gcd64(p, q);

    if (q / g == 1)
        snprintf(out, n, "%" PRId64, p / g);
    else
        snprintf(out, n, "%" PRId64 "/%" PRId64, p / g, q / g);
}

/*
 * A 2d6 table of no effects with the columns 1:9 ... 1:2, 1:1, 2:1 ... 9:1
 * (kept), which hold every odds case: a case beyond them would find its
 * column wrong, and fail.
 */
static json_t *odds_table(void)
{
    json_t *t =
        scs_rig_keep(json_pack("{s:s, s:s, s:[], s:{}}", "name", "every-odds",
                               "roll", "2d6", "columns", "rows"));
    json_t *row = json_array();
    char label[32];
    int k;

    for (k = -9; k <= 9; k++) {
        if (k == -1 || k == 0)
            continue;
        snprintf(label, sizeof label, "%d:%d", k < 0 ? 1 : k, k < 0 ? -k : 1);
        json_array_append_new(get(t, "columns"), json_string(label));
        json_array_append_new(row, json_string("-"));
    }
    for (k = 2; k <= 12; k++) {
        snprintf(label, sizeof label, "%d", k);
        json_object_set(get(t, "rows"), label, row);
    }
    json_decref(row);
    return t;
}

/* An inline unit of printed value p and a multiplier 1/q (when q > 1). */
static json_t *odds_unit(const char *name, const char *key, int64_t p,
                         int64_t q)
{
    json_t *u = json_pack("{s:s, s:I, s:I, s:[]}", "name", name, "attack",
                          (json_int_t)(key[0] == 'a' ? p : 1), "defense",
                          (json_int_t)(key[0] == 'd' ? p : 1), "multipliers");
    char m[48];

    ck_assert_msg(p <= 99, "%s: printed %" PRId64 " is above 99", rig_ctx, p);
    if (q > 1) {
        snprintf(m, sizeof m, "1/%" PRId64, q);
        json_array_append_new(get(u, "multipliers"), json_string(m));
    }
    return u;
}

START_TEST(test_odds_cases)
{
    json_t *vec = scs_rig_keep(ts_load_vector("scs-examples.json"));
    json_t *cases = get(vec, "odds"), *table = odds_table(), *cv;
    size_t i;

    RIG_IS_TRUE(json_array_size(cases) > 0);
    json_array_foreach(cases, i, cv)
    {
        int64_t ap, aq, dp, dq;
        char want[48];
        json_t *body, *rep;
        snprintf(rig_ctx, sizeof rig_ctx, "odds case %zu: %s to %s", i + 1,
                 str(cv, "attack"), str(cv, "defense"));
        decimal_frac(str(cv, "attack"), &ap, &aq);
        decimal_frac(str(cv, "defense"), &dp, &dq);
        body = scs_rig_keep(
            json_pack("{s:O, s:[o], s:[o], s:{s:s}, s:[i, i]}", "table", table,
                      "attackers", odds_unit("A", "attack", ap, aq),
                      "defenders", odds_unit("D", "defense", dp, dq), "dice",
                      "source", "entered", "roll", 1, 1));
        rep = post(NULL, body, 201);
        frac_text(ap, aq, want, sizeof want);
        RIG_EQ_STR(str(get(rep, "attack_total"), "fraction"), want);
        frac_text(dp, dq, want, sizeof want);
        RIG_EQ_STR(str(get(rep, "defense_total"), "fraction"), want);
        frac_text(ap * dq, aq * dp, want, sizeof want);
        RIG_EQ_STR(str(get(rep, "ratio"), "fraction"), want);
        RIG_EQ_STR(str(rep, "odds"), str(cv, "expect"));
        RIG_EQ_STR(str(rep, "column_before_shifts"), str(cv, "expect"));
        RIG_EQ_STR(str(rep, "column"), str(cv, "expect"));
    }
}
END_TEST

/* ---- 4. The built-in example table is the vector's file ---- */

START_TEST(test_builtin_is_vector_table)
{
    json_t *file = scs_rig_keep(ts_load_vector("scs-example-crt.json"));
    json_t *b =
        scs_call(200, "GET", NULL, NULL, "/v1/tables/%s", str(file, "name"));
    static const char *const keys[] = {"name", "roll", "columns", "rows"};
    size_t k;

    snprintf(rig_ctx, sizeof rig_ctx, "built-in %s", str(file, "name"));
    for (k = 0; k < sizeof keys / sizeof keys[0]; k++)
        ck_assert_msg(json_equal(get(b, keys[k]), get(file, keys[k])),
                      "%s: %s differs from the file", rig_ctx, keys[k]);
    RIG_IS_TRUE(json_is_true(get(b, "builtin")));
    RIG_IS_TRUE(json_is_true(get(b, "example")));
}
END_TEST

/* ---- 5. The example table spoiled: each error names its cell ---- */

#define SEVEN "[\"-\",\"-\",\"-\",\"-\",\"-\",\"-\",\"-\"]"
#define COLS21                                                                 \
    "[\"1:1\",\"2:1\",\"3:1\",\"4:1\",\"5:1\",\"6:1\",\"7:1\",\"8:1\","        \
    "\"9:1\",\"10:1\",\"11:1\",\"12:1\",\"13:1\",\"14:1\",\"15:1\",\"16:1\","  \
    "\"17:1\",\"18:1\",\"19:1\",\"20:1\",\"21:1\"]"

static const struct {
    bool is_d66;
    const char *path, *value;          /* value NULL: removed */
    const char *code, *field, *detail; /* detail: a part of it, or NULL */
} uploads[] = {
    {false, "rows.7[3]", "\"X9\"", "invalid_value", "rows.7[3]", "3:1"},
    {false, "rows.7[3]", "\"A1r\"", "invalid_value", "rows.7[3]", "3:1"},
    {false, "rows.7[3]", "\"A1 A2\"", "invalid_value", "rows.7[3]", "3:1"},
    {false, "rows.2[0]", "7", "invalid_value", "rows.2[0]", "1:2"},
    {false, "rows.12[6]", "\"D4r99\"", "invalid_value", "rows.12[6]", "6:1"},
    {false, "rows.11", NULL, "missing_field", "rows.11", "11"},
    {false, "rows.13", SEVEN, "unknown_field", "rows.13", "13"},
    {false, "rows.5[6]", NULL, "invalid_value", "rows.5", NULL},
    {false, "columns[2]", "\"1:1\"", "invalid_value", "columns[2]", "1:1"},
    {false, "columns[2]", "\"1:3\"", "invalid_value", "columns[2]", "1:3"},
    {false, "columns[2]", "\"2-1\"", "invalid_value", "columns[2]", NULL},
    {false, "columns", "[]", "out_of_range", "columns", NULL},
    {false, "columns", COLS21, "limit_exceeded", "columns", NULL},
    {false, "roll", "\"3d6\"", "invalid_value", "roll", "3d6"},
    {false, "roll", NULL, "missing_field", "roll", NULL},
    {false, "rows", NULL, "missing_field", "rows", NULL},
    {false, "colour", "\"red\"", "unknown_field", "colour", NULL},
    {false, "note", "\"\"", "out_of_range", "note", NULL},
    {false, "name", "\"other\"", "invalid_value", "name", "other"},
    {true, "rows.7", "[\"-\",\"-\"]", "unknown_field", "rows.7", "7"},
    {true, "rows.60", "[\"-\",\"-\"]", "unknown_field", "rows.60", "60"},
    {true, "rows.26", NULL, "missing_field", "rows.26", "26"},
    {true, "rows.35[1]", "\"Q\"", "invalid_value", "rows.35[1]", "3:1"},
};

START_TEST(test_table_upload_errors)
{
    static const char *const sides[] = {"Red", "Blue", NULL};
    test_campaign c;
    json_t *before, *p, *doc;
    char *text, field[64];
    size_t i;

    scs_rig_campaign(&c, NULL, sides);
    scs_rig_put_doc(&c, "kept", 201, scs_rig_example_doc());
    before = scs_rig_world(&c);
    for (i = 0; i < sizeof uploads / sizeof uploads[0]; i++) {
        snprintf(rig_ctx, sizeof rig_ctx, "upload %s %s = %.40s",
                 uploads[i].is_d66 ? "d66" : "2d6", uploads[i].path,
                 uploads[i].value ? uploads[i].value : "(removed)");
        doc = uploads[i].is_d66 ? scs_rig_d66_doc() : scs_rig_example_doc();
        scs_rig_set_at(doc, uploads[i].path, uploads[i].value);
        p = scs_rig_put_doc(&c, "kept", 422, scs_rig_keep(json_incref(doc)));
        scs_rig_problem(p, 422, uploads[i].code, uploads[i].field);
        if (uploads[i].detail)
            scs_rig_assert_contains(str(p, "detail"), uploads[i].detail);
        /* a combat's inline table: the same, under "table" (where its
         * name is free) */
        if (strcmp(uploads[i].path, "name") != 0) {
            p = scs_rig_keep(json_pack(
                "{s:O, s:[{s:s, s:i, s:i}], s:[{s:s, s:i, s:i}]}", "table", doc,
                "attackers", "name", "a", "attack", 3, "defense", 3,
                "defenders", "name", "d", "attack", 3, "defense", 3));
            text = scs_text(p);
            snprintf(field, sizeof field, "table.%s", uploads[i].field);
            scs_rig_problem(scs_rig_combat(NULL, 422, text), 422,
                            uploads[i].code, field);
            free(text);
        }
        scs_rig_assert_unchanged(before, &c);
    }
}
END_TEST

/* Regression: descending columns gave the detail "the column 1:3 columns
 * go from the lowest odds to the highest", two sentences run together. */
START_TEST(test_regression_descending_column_detail)
{
    static const char *const sides[] = {"Red", "Blue", NULL};
    test_campaign c;
    json_t *doc = scs_rig_example_doc(), *p;

    snprintf(rig_ctx, sizeof rig_ctx, "descending column detail");
    scs_rig_campaign(&c, NULL, sides);
    scs_rig_set_at(doc, "columns[2]", "\"1:3\"");
    p = scs_rig_put_doc(&c, "t", 422, doc);
    scs_rig_problem(p, 422, "invalid_value", "columns[2]");
    ck_assert_msg(strstr(str(p, "detail"), "1:3 columns") == NULL,
                  "%s: garbled detail: %s", rig_ctx, str(p, "detail"));
}
END_TEST

Suite *suite_scs_vectors(void)
{
    Suite *s = suite_create("scs_vectors");
    TCase *tc = tcase_create("scs_vectors");

    tcase_add_checked_fixture(tc, scs_rig_setup, scs_rig_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_combats_oneoff);
    tcase_add_test(tc, test_bridge_and_woods_allocation_refused);
    tcase_add_test(tc, test_combats_campaign);
    tcase_add_test(tc, test_odds_cases);
    tcase_add_test(tc, test_builtin_is_vector_table);
    tcase_add_test(tc, test_table_upload_errors);
    tcase_add_test(tc, test_regression_descending_column_detail);
    suite_add_tcase(s, tc);
    return s;
}
