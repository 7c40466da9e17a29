/*
 * test_scs_examples.c: core/scs.c on worked combats.  First the source's
 * own (docs/rules/scs.md "Test vectors"), loaded as data from
 * $UMPIRE_TEST_VECTORS/scs-examples.json with its table
 * scs-example-crt.json: every odds case and every combat, every key of
 * "expect" checked, no expected number copied into C.  Then hand-worked
 * combats on entered dice, one step of the procedure at a time (column
 * shifts, off the table, d66, retreats, capacity, the default allocation,
 * the advance, supply, the roll log).  Every combat is also checked
 * against the invariants of scs_fixture_check.  The pieces (fractions,
 * grammar, refusals) and the seeded properties are in test_scs.c.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <jansson.h>

#include "dice.h"
#include "registry.h"
#include "scs.h"
#include "scs_fixture.h"
#include "suites.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the source's examples, from tests/vectors ---- */

/* The parsed file; new, the caller decrefs. */
static json_t *load_vectors(const char *file)
{
    const char *dir = getenv("UMPIRE_TEST_VECTORS");
    char path[1024];
    json_error_t jerr;
    json_t *root;

    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "tests/vectors",
             file);
    root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    ck_assert_msg(root != NULL, "%s:%d: %s", path, jerr.line, jerr.text);
    return root;
}

static int jint(const json_t *j, const char *what)
{
    ck_assert_msg(json_is_integer(j), "%s: not an integer", what);
    return (int)json_integer_value(j);
}

static const char *jstr(const json_t *j, const char *what)
{
    ck_assert_msg(json_is_string(j), "%s: not a string", what);
    return json_string_value(j);
}

/* Fails on a key of j that is not among keys (each between spaces): a
 * key the loader does not know would otherwise go unchecked. */
static void known_keys(const json_t *j, const char *keys, const char *what)
{
    char word[64];
    const char *key;
    json_t *v;

    ck_assert_msg(json_is_object(j), "%s: not an object", what);
    json_object_foreach((json_t *)j, key, v)
    {
        snprintf(word, sizeof word, " %s ", key);
        ck_assert_msg(strstr(keys, word) != NULL, "%s: unknown key %s", what,
                      key);
    }
}

/* An optional integer: *out unchanged when key is absent. */
static void opt_int(const json_t *j, const char *key, int *out)
{
    const json_t *x = json_object_get(j, key);

    if (x != NULL)
        *out = jint(x, key);
}

/* A table: crt names a file beside the vectors or is the table itself;
 * columns through scs_odds_parse, cells through scs_result_parse, every
 * roll of the kind present. */
static void load_table(const json_t *crt, scs_table *t)
{
    json_t *root = NULL, *cols, *rows, *row, *v;
    const char *why = "";
    char label[4];
    size_t c;
    int r, bad;

    if (json_is_string(crt))
        crt = root = load_vectors(json_string_value(crt));
    known_keys(crt, " name note roll columns rows ", "crt");
    memset(t, 0, sizeof *t);
    ck_assert(scs_roll_kind_parse(jstr(json_object_get(crt, "roll"), "roll"),
                                  &t->roll));
    cols = json_object_get(crt, "columns");
    ck_assert(json_is_array(cols));
    ck_assert_uint_le(json_array_size(cols), SCS_MAX_COLUMNS);
    t->n_columns = (int)json_array_size(cols);
    json_array_foreach(cols, c, v)
    {
        ck_assert_msg(scs_odds_parse(jstr(v, "column"), &t->columns[c]),
                      "column %s", json_string_value(v));
    }
    ck_assert_msg(scs_table_check_columns(t, &bad, &why), "column %d: %s", bad,
                  why);
    rows = json_object_get(crt, "rows");
    ck_assert(json_is_object(rows));
    ck_assert_int_eq((int)json_object_size(rows), scs_roll_rows(t->roll));
    for (r = 0; r < scs_roll_rows(t->roll); r++) {
        scs_roll_label(t->roll, r, label);
        row = json_object_get(rows, label);
        ck_assert_msg(json_is_array(row) &&
                          json_array_size(row) == (size_t)t->n_columns,
                      "row %s", label);
        json_array_foreach(row, c, v)
        {
            const char *text = jstr(v, label);
            ck_assert_msg(scs_result_parse(text, &t->results[r][c], &why),
                          "row %s column %zu: %s", label, c, why);
            strcpy(t->text[r][c], text); /* parse checked its length */
        }
    }
    json_decref(root);
}

/* One combat of the vectors: units keep their string ids, in the order
 * listed, so ids map to indices on their side. */
typedef struct vcase {
    const char *name;
    scs_fixture *f;
    const char *ids[2][SCS_MAX_UNITS];
} vcase;

/* The side and index of unit id (unique across both sides). */
static int find_id(const vcase *v, const char *id, int *side)
{
    int s, found = -1;
    size_t i;

    for (s = 0; s < 2; s++)
        for (i = 0; i < v->f->in.n_units[s]; i++)
            if (strcmp(v->ids[s][i], id) == 0) {
                ck_assert_msg(found < 0, "%s: unit %s twice", v->name, id);
                found = (int)i;
                *side = s;
            }
    ck_assert_msg(found >= 0, "%s: no unit %s", v->name, id);
    return found;
}

/* A list of ids that must all be units of side, as indices. */
static void load_ids(const vcase *v, const json_t *j, int side, int *out,
                     int *n)
{
    size_t i;
    json_t *x;
    int s;

    ck_assert(json_is_array(j));
    *n = (int)json_array_size(j);
    json_array_foreach(j, i, x)
    {
        out[i] = find_id(v, jstr(x, "unit id"), &s);
        ck_assert_msg(s == side, "%s: %s on the wrong side", v->name,
                      json_string_value(x));
    }
}

/* A unit: "attack": null is no printed attack. */
static void load_units(vcase *v, const json_t *j, int side)
{
    size_t i, k;
    json_t *ju, *m, *attack;

    ck_assert(json_is_array(j));
    json_array_foreach(j, i, ju)
    {
        scs_unit *u = scs_fixture_unit(v->f, side, 0, 0, 1);
        known_keys(ju,
                   " id attack defense steps steps_lost multipliers "
                   "exploit_capable out_of_supply ",
                   v->name);
        v->ids[side][i] = jstr(json_object_get(ju, "id"), "id");
        attack = json_object_get(ju, "attack");
        u->has_attack = !json_is_null(attack);
        u->attack = u->has_attack ? jint(attack, "attack") : 0;
        u->defense = jint(json_object_get(ju, "defense"), "defense");
        u->steps = jint(json_object_get(ju, "steps"), "steps");
        opt_int(ju, "steps_lost", &u->steps_lost);
        u->is_exploit = json_is_true(json_object_get(ju, "exploit_capable"));
        u->is_out_of_supply =
            json_is_true(json_object_get(ju, "out_of_supply"));
        json_array_foreach(json_object_get(ju, "multipliers"), k, m)
        {
            ck_assert_uint_lt(k, SCS_MAX_MULTIPLIERS);
            ck_assert_msg(
                scs_frac_parse(jstr(m, "multiplier"), &u->multipliers[k]),
                "%s: multiplier %s", v->name, json_string_value(m));
            u->n_multipliers = (int)k + 1;
        }
    }
}

/* The combat of case j, built in a new fixture, not yet resolved:
 * allocations and the step 7 choices (attacker_retreat,
 * defender_retreat) are the owners' orders. */
static void load_case(vcase *v, const json_t *j)
{
    static const char *const names[2][2] = {
        {"attacker_allocation", "attacker_retreat"},
        {"defender_allocation", "defender_retreat"},
    };
    json_t *x, *r;
    size_t i;
    int s;

    memset(v, 0, sizeof *v);
    v->name = jstr(json_object_get(j, "name"), "name");
    known_keys(j,
               " name crt attackers defenders dice column_shift overrun "
               "attacker_allocation defender_allocation attacker_retreat "
               "defender_retreat expect also_expect note ",
               v->name);
    v->f = scs_fixture_new("-");
    load_table(json_object_get(j, "crt"), &v->f->table);
    load_units(v, json_object_get(j, "attackers"), SCS_ATTACKER);
    load_units(v, json_object_get(j, "defenders"), SCS_DEFENDER);
    for (s = 0; s < 2; s++) {
        scs_orders *o = &v->f->in.orders[s];
        if ((x = json_object_get(j, names[s][0])))
            load_ids(v, x, s, o->allocation, &o->n_allocation);
        if (!(r = json_object_get(j, names[s][1])))
            continue;
        known_keys(r,
                   " convert_to_steps ezoc_hexes blocked_hexes "
                   "extra_step_units ",
                   v->name);
        opt_int(r, "convert_to_steps", &o->convert);
        opt_int(r, "ezoc_hexes", &o->ezoc_hexes);
        opt_int(r, "blocked_hexes", &o->blocked_hexes);
        if ((x = json_object_get(r, "extra_step_units")))
            load_ids(v, x, s, o->extra_units, &o->n_extra_units);
    }
    opt_int(j, "column_shift", &v->f->in.column_shift);
    v->f->in.is_overrun = json_is_true(json_object_get(j, "overrun"));
    x = json_object_get(j, "dice");
    ck_assert(json_is_array(x));
    ck_assert_uint_le(json_array_size(x), SCS_FIXTURE_MAX_DICE);
    for (i = 0; i < json_array_size(x); i++)
        v->f->dice[i] = jint(json_array_get(x, i), "dice");
    dice_init_values(&v->f->d, DICE_ENTERED, v->f->dice, json_array_size(x));
}

/* Expected text want (a JSON string) against got. */
static void text_eq(const vcase *v, const char *key, const char *got,
                    const json_t *want)
{
    ck_assert_msg(strcmp(got, jstr(want, key)) == 0, "%s: %s is %s, not %s",
                  v->name, key, got, json_string_value(want));
}

static void int_eq(const vcase *v, const char *key, long long got,
                   long long want)
{
    ck_assert_msg(got == want, "%s: %s is %lld, not %lld", v->name, key, got,
                  want);
}

/* "steps_lost" (id: steps lost, 0 for units not named) or "eliminated"
 * (the ids of exactly the units eliminated), over both sides; each id
 * named must be a unit. */
static void check_units(const vcase *v, const char *key, json_t *want)
{
    bool is_elim = !strcmp(key, "eliminated");
    int expect[2][SCS_MAX_UNITS] = {{0}}, s, u, got;
    const char *id;
    json_t *x;
    size_t i;

    if (is_elim) {
        ck_assert(json_is_array(want));
        json_array_foreach(want, i, x)
        {
            u = find_id(v, jstr(x, key), &s);
            expect[s][u] = 1;
        }
    } else {
        ck_assert(json_is_object(want));
        json_object_foreach(want, id, x)
        {
            u = find_id(v, id, &s);
            expect[s][u] = jint(x, id);
        }
    }
    for (s = 0; s < 2; s++)
        for (u = 0; u < (int)v->f->in.n_units[s]; u++) {
            const scs_unit_result *r = &v->f->out.units[s][u];
            got = is_elim ? r->is_eliminated : r->steps_lost;
            ck_assert_msg(got == expect[s][u],
                          "%s: %s of unit %s is %d, not %d", v->name, key,
                          v->ids[s][u], got, expect[s][u]);
        }
}

/* The hexes of the advance after combat, attackers only (step 8). */
static void check_advance(const vcase *v, const json_t *want)
{
    const scs_outcome *o = &v->f->out;

    known_keys(want, " non_exploit_hexes exploit_hexes ", v->name);
    ck_assert_msg(o->is_advance_allowed, "%s: no advance", v->name);
    int_eq(v, "non_exploit_hexes", o->advance_hexes,
           jint(json_object_get(want, "non_exploit_hexes"), "advance"));
    int_eq(v, "exploit_hexes", o->exploit_hexes,
           jint(json_object_get(want, "exploit_hexes"), "advance"));
}

/* Every key of expect against the resolved combat; an unknown key fails. */
static void check_expect(const vcase *v, const json_t *expect)
{
    const scs_fixture *f = v->f;
    const scs_outcome *o = &f->out;
    int s, u;
    char buf[SCS_FRAC_TEXT];
    scs_result r;
    const char *key;
    json_t *w;

    ck_assert(json_is_object(expect));
    json_object_foreach((json_t *)expect, key, w)
    {
        if (!strcmp(key, "attack_total") || !strcmp(key, "defense_total")) {
            scs_frac_text(o->sides[key[0] == 'a' ? 0 : 1].total, buf);
            text_eq(v, key, buf, w);
        } else if (!strcmp(key, "odds")) {
            scs_odds_text(o->odds, buf);
            text_eq(v, key, buf, w);
        } else if (!strcmp(key, "column") && json_is_null(w)) {
            ck_assert(o->column == -1 && o->is_off_table);
        } else if (!strcmp(key, "column")) {
            ck_assert_int_ge(o->column, 0);
            scs_odds_text(f->table.columns[o->column], buf);
            text_eq(v, key, buf, w);
        } else if (!strcmp(key, "roll") && json_is_null(w)) {
            ck_assert(o->roll == 0 && f->d.n_log == 0); /* no die drawn */
        } else if (!strcmp(key, "roll")) {
            int_eq(v, key, o->roll, jint(w, key));
        } else if (!strcmp(key, "result")) {
            ck_assert_int_ge(o->column, 0);
            text_eq(
                v, key,
                f->table.text[scs_roll_row(f->table.roll, o->roll)][o->column],
                w);
            ck_assert(scs_result_parse(json_string_value(w), &r, NULL));
            ck_assert_mem_eq(&o->result, &r, sizeof r);
        } else if (!strcmp(key, "steps_lost") || !strcmp(key, "eliminated")) {
            check_units(v, key, w);
        } else if (!strcmp(key, "first_attacker_step_from")) {
            u = find_id(v, jstr(w, key), &s);
            ck_assert_int_eq(s, SCS_ATTACKER);
            int_eq(v, key, scs_fixture_loss_unit(o, SCS_ATTACKER, -1, 0), u);
        } else if (!strcmp(key, "attacker_retreat_hexes") ||
                   !strcmp(key, "defender_retreat_hexes")) {
            int_eq(v, key, o->sides[key[0] == 'a' ? 0 : 1].retreat_hexes,
                   jint(w, key));
        } else if (!strcmp(key, "defender_hex_vacated")) {
            ck_assert(json_is_boolean(w));
            ck_assert(o->is_vacated == json_is_true(w));
        } else if (!strcmp(key, "advance")) {
            check_advance(v, w);
        } else if (!strcmp(key, "dice_rolled")) {
            int_eq(v, key, (long long)f->d.n_log, jint(w, key));
        } else if (!strcmp(key, "defender_advance")) {
            /* 10.0c: the defender never advances; only attackers have an
             * advance in the outcome. */
            ck_assert(json_is_false(w));
            for (u = 0; u < (int)f->in.n_units[SCS_DEFENDER]; u++)
                ck_assert_int_eq(o->units[SCS_DEFENDER][u].advance, 0);
        } else {
            ck_abort_msg("%s: unknown expectation %s", v->name, key);
        }
    }
}

START_TEST(test_vector_odds)
{
    json_t *root = load_vectors("scs-examples.json");
    json_t *cases = json_object_get(root, "odds"), *j;
    scs_frac a, d;
    scs_odds o;
    char buf[24];
    size_t i;

    known_keys(root, " name source note odds combats ", "scs-examples.json");
    ck_assert_uint_gt(json_array_size(cases), 0);
    json_array_foreach(cases, i, j)
    {
        const char *as = jstr(json_object_get(j, "attack"), "attack");
        const char *ds = jstr(json_object_get(j, "defense"), "defense");
        known_keys(j, " attack defense expect ", "odds");
        ck_assert_msg(scs_frac_parse(as, &a) && scs_frac_parse(ds, &d),
                      "%s to %s", as, ds);
        ck_assert(scs_odds_of(a, d, &o));
        scs_odds_text(o, buf);
        ck_assert_msg(
            strcmp(buf, jstr(json_object_get(j, "expect"), "expect")) == 0,
            "%s to %s: %s, not %s", as, ds, buf,
            json_string_value(json_object_get(j, "expect")));
    }
    json_decref(root);
}
END_TEST

/* Every combat: resolved on its entered dice (all used), the invariants
 * of scs_fixture_check, then every key of "expect". */
START_TEST(test_vector_combats)
{
    json_t *root = load_vectors("scs-examples.json");
    json_t *cases = json_object_get(root, "combats"), *j;
    vcase v;
    size_t i;

    ck_assert_uint_gt(json_array_size(cases), 0);
    json_array_foreach(cases, i, j)
    {
        load_case(&v, j);
        ck_assert_msg(scs_resolve(&v.f->in, &v.f->d, &v.f->out, &v.f->e) ==
                          ERR_OK,
                      "%s: %s: %s", v.name, v.f->e.field, v.f->e.message);
        ck_assert_int_eq(dice_check_all_used(&v.f->d, NULL), ERR_OK);
        scs_fixture_check(&v.f->in, &v.f->d, &v.f->out);
        check_expect(&v, json_object_get(j, "expect"));
        scs_fixture_free(v.f);
    }
    json_decref(root);
}
END_TEST

/* bridge-and-woods, "also_expect": "An attacker allocation of ["4", "8"]
 * is refused: the first step must come from unit 6, the highest printed
 * attack." (rule 8.0a), before any die is drawn. */
START_TEST(test_vector_also_expect)
{
    json_t *root = load_vectors("scs-examples.json");
    json_t *cases = json_object_get(root, "combats"), *j, *found = NULL;
    scs_orders *o;
    int s;
    vcase v;
    size_t i;

    json_array_foreach(cases, i, j)
    {
        if (!strcmp(jstr(json_object_get(j, "name"), "name"),
                    "bridge-and-woods"))
            found = j;
    }
    ck_assert_ptr_nonnull(found);
    ck_assert_ptr_nonnull(
        strstr(jstr(json_object_get(found, "also_expect"), "also_expect"),
               "[\"4\", \"8\"] is refused"));
    load_case(&v, found);
    o = &v.f->in.orders[SCS_ATTACKER];
    o->allocation[0] = find_id(&v, "4", &s);
    o->allocation[1] = find_id(&v, "8", &s);
    o->n_allocation = 2;
    ck_assert_int_eq(scs_validate(&v.f->in, &v.f->e), ERR_RULE);
    ck_assert_str_eq(v.f->e.field, "attacker_allocation[0]");
    ck_assert_int_eq(scs_resolve(&v.f->in, &v.f->d, &v.f->out, NULL), ERR_RULE);
    ck_assert_uint_eq(v.f->d.n_log, 0);
    scs_fixture_free(v.f);
    json_decref(root);
}
END_TEST

/* ---- the procedure, step by step, on entered dice ---- */

/* Steps 3-4: the column found, then shifts that stop at the right edge;
 * left of the table (found or shifted) the attacker loses a step and no
 * die is drawn.  The table names its cells: row 0 (a roll of 2) of column
 * c is "A0 D0r<c+1>". */
/* attack, defense, shift; the column found, after the shift.  The last:
 * odds left of the table stay off it whatever the shift (step 4: "odds
 * (or shifts) left of the leftmost column"). */
static const int shifts[][5] = {
    {4, 2, 2, 2, 4},   {6, 2, -2, 3, 1},  {10, 2, 3, 5, 6},   {24, 2, 1, 6, 6},
    {24, 2, -1, 6, 5}, {2, 2, -2, 1, -1}, {2, 4, -1, 0, -1},  {2, 4, 0, 0, 0},
    {3, 4, 1, 1, 2},   {2, 2, 20, 1, 6},  {2, 2, -20, 1, -1}, {2, 6, 1, -1, -1},
};

START_TEST(test_shift)
{
    scs_fixture *f = scs_fixture_new(NULL);
    bool is_off = shifts[_i][4] < 0;

    scs_fixture_unit(f, SCS_ATTACKER, shifts[_i][0], 1, 2);
    scs_fixture_unit(f, SCS_DEFENDER, 1, shifts[_i][1], 2);
    f->in.column_shift = shifts[_i][2];
    ck_assert_int_eq(
        is_off ? scs_fixture_run(f, 0) : scs_fixture_run(f, 2, 1, 1), ERR_OK);
    ck_assert_int_eq(f->out.column_found, shifts[_i][3]);
    ck_assert_int_eq(f->out.column, shifts[_i][4]);
    ck_assert(f->out.is_off_table == is_off);
    ck_assert_uint_eq(f->d.n_log, is_off ? 0 : 2);
    if (is_off) {
        ck_assert_int_eq(f->out.roll, 0);
        ck_assert_int_eq(f->out.units[SCS_ATTACKER][0].lost, 1);
        ck_assert_int_eq(f->out.n_losses, 1);
        ck_assert_int_eq(f->out.losses[0].cause, SCS_LOSS_OFF_TABLE);
        ck_assert_int_eq(f->out.units[SCS_DEFENDER][0].lost, 0);
    } else {
        ck_assert_int_eq(f->out.roll, 2);
        ck_assert_int_eq(f->out.result.defender.retreat, shifts[_i][4] + 1);
    }
    scs_fixture_check(&f->in, &f->d, &f->out);
    scs_fixture_free(f);
}
END_TEST

/* Step 4 on a one-step attacker: eliminated, the defender untouched; the
 * owner's allocation picks the unit; a defense of 0: the rightmost. */
START_TEST(test_off_table_and_defense_zero)
{
    scs_fixture *f = scs_fixture_new("D1r1");

    scs_fixture_unit(f, SCS_ATTACKER, 1, 1, 1);
    scs_fixture_unit(f, SCS_ATTACKER, 1, 1, 2);
    scs_fixture_unit(f, SCS_DEFENDER, 1, 9, 2);
    f->in.orders[SCS_ATTACKER].allocation[0] = 1;
    f->in.orders[SCS_ATTACKER].n_allocation = 1;
    ck_assert_int_eq(scs_fixture_run(f, 0), ERR_OK);
    ck_assert(f->out.is_off_table && f->out.column == -1);
    ck_assert_int_eq(f->out.losses[0].unit, 1);
    ck_assert(f->out.losses[0].is_ordered);
    f->in.orders[SCS_ATTACKER].n_allocation = 0;
    ck_assert_int_eq(scs_fixture_run(f, 0), ERR_OK);
    ck_assert(f->out.units[SCS_ATTACKER][0].is_eliminated);
    ck_assert(!f->out.sides[SCS_ATTACKER].is_eliminated);
    ck_assert(!f->out.is_vacated && !f->out.is_advance_allowed);
    scs_fixture_check(&f->in, &f->d, &f->out);
    f->units[SCS_DEFENDER][0].defense = 0;
    f->in.column_shift = -2;
    ck_assert_int_eq(scs_fixture_run(f, 2, 5, 5), ERR_OK);
    ck_assert(f->out.odds.attack == 1 && f->out.odds.defense == 0);
    ck_assert_int_eq(f->out.column_found, 6);
    ck_assert_int_eq(f->out.column, 4);
    scs_fixture_check(&f->in, &f->d, &f->out);
    scs_fixture_free(f);
}
END_TEST

/* A d66 table: the first die is the tens.  Row (t-1)*6+(u-1) of the
 * table reads "A<t-1> D<u-1>r<column+1>". */
START_TEST(test_d66)
{
    static const int dice[][2] = {
        {1, 6}, {6, 1}, {3, 5}, {6, 6}, {1, 1},
    };
    scs_fixture *f = scs_fixture_new(NULL);
    size_t i;
    int row;

    scs_fixture_table(&f->table, SCS_ROLL_D66, scs_fixture_cols7, 7, NULL);
    scs_fixture_unit(f, SCS_ATTACKER, 4, 1, 20);
    scs_fixture_unit(f, SCS_DEFENDER, 1, 2, 20);
    for (i = 0; i < N_ELEMS(dice); i++) {
        ck_assert_int_eq(scs_fixture_run(f, 2, dice[i][0], dice[i][1]), ERR_OK);
        ck_assert_int_eq(f->out.roll, 10 * dice[i][0] + dice[i][1]);
        ck_assert_int_eq(f->out.column, 2);
        ck_assert_int_eq(f->out.result.attacker.steps, dice[i][0] - 1);
        ck_assert_int_eq(f->out.result.defender.steps, dice[i][1] - 1);
        ck_assert_int_eq(f->out.result.defender.retreat, 3);
        row = scs_roll_row(SCS_ROLL_D66, f->out.roll);
        ck_assert_int_eq(row, (dice[i][0] - 1) * 6 + dice[i][1] - 1);
        scs_fixture_check(&f->in, &f->d, &f->out);
    }
    scs_fixture_free(f);
}
END_TEST

/* Step 7 on one defender of ten steps: conversion capped at the retreat
 * result, blocked hexes at what remains, EZOC hexes at the hexes actually
 * retreated; one step each. */
static const struct {
    const char *cell;
    int convert, blocked, ezoc;             /* orders */
    int w_conv, w_blocked, w_ezoc, w_hexes; /* applied; hexes to move */
} retreats[] = {
    {"Dr3", 0, 0, 2, 0, 0, 2, 3},  {"Dr3", 0, 5, 0, 0, 3, 0, 0},
    {"Dr3", 0, 1, 5, 0, 1, 2, 2},  {"Dr3", 1, 1, 5, 1, 1, 1, 1},
    {"Dr3", 2, 2, 2, 2, 1, 0, 0},  {"Dr3", 0, 0, 5, 0, 0, 3, 3},
    {"Dr3", 3, 1, 1, 3, 0, 0, 0},  {"D1r2", 5, 0, 0, 2, 0, 0, 0},
    {"D1r2", 1, 0, 0, 1, 0, 0, 1}, {"D1", 2, 2, 2, 0, 0, 0, 0},
    {"D1r2", 0, 0, 0, 0, 0, 0, 2}, {"D2r4", 1, 1, 1, 1, 1, 1, 2},
};

START_TEST(test_retreat)
{
    scs_fixture *f = scs_fixture_new(retreats[_i].cell);
    scs_orders *o = &f->in.orders[SCS_DEFENDER];
    const scs_side_result *r = &f->out.sides[SCS_DEFENDER];
    int table_steps = f->table.results[0][0].defender.steps;
    int retreat = f->table.results[0][0].defender.retreat;

    scs_fixture_unit(f, SCS_ATTACKER, 9, 1, 2)->is_exploit = true;
    scs_fixture_unit(f, SCS_DEFENDER, 1, 2, 10);
    o->convert = retreats[_i].convert;
    o->blocked_hexes = retreats[_i].blocked;
    o->ezoc_hexes = retreats[_i].ezoc;
    ck_assert_int_eq(scs_fixture_run(f, 2, 4, 4), ERR_OK);
    ck_assert_int_eq(r->converted, retreats[_i].w_conv);
    ck_assert_int_eq(r->blocked_hexes, retreats[_i].w_blocked);
    ck_assert_int_eq(r->ezoc_hexes, retreats[_i].w_ezoc);
    ck_assert_int_eq(r->retreat_hexes, retreats[_i].w_hexes);
    ck_assert_int_eq(scs_fixture_losses(&f->out, 1, SCS_LOSS_TABLE),
                     table_steps);
    ck_assert_int_eq(scs_fixture_losses(&f->out, 1, SCS_LOSS_CONVERSION),
                     retreats[_i].w_conv);
    ck_assert_int_eq(scs_fixture_losses(&f->out, 1, SCS_LOSS_BLOCKED),
                     retreats[_i].w_blocked);
    ck_assert_int_eq(scs_fixture_losses(&f->out, 1, SCS_LOSS_EZOC),
                     retreats[_i].w_ezoc);
    ck_assert(f->out.is_vacated == (retreats[_i].w_hexes > 0));
    /* Exploit: the original retreat result, even where part of it was
     * converted (step 8). */
    if (f->out.is_vacated)
        ck_assert_int_eq(f->out.units[SCS_ATTACKER][0].advance, retreat);
    scs_fixture_check(&f->in, &f->d, &f->out);
    scs_fixture_free(f);
}
END_TEST

/* Losses beyond what a side can absorb are ignored and counted (8.0c);
 * extra_units naming a unit with no step left fall to the default. */
START_TEST(test_capacity_and_extra_units)
{
    scs_fixture *f = scs_fixture_new("A3 D4r2");
    scs_orders *o = &f->in.orders[SCS_DEFENDER];

    scs_fixture_unit(f, SCS_ATTACKER, 9, 1, 2);
    scs_fixture_unit(f, SCS_DEFENDER, 1, 2, 2);
    o->ezoc_hexes = 1;
    ck_assert_int_eq(scs_fixture_run(f, 2, 1, 2), ERR_OK);
    ck_assert_int_eq(f->out.sides[SCS_DEFENDER].steps_ignored, 2);
    ck_assert_int_eq(f->out.sides[SCS_DEFENDER].ezoc_hexes, 0);
    ck_assert_int_eq(f->out.sides[SCS_ATTACKER].steps_ignored, 1);
    ck_assert(f->out.sides[SCS_DEFENDER].is_eliminated);
    ck_assert(f->out.sides[SCS_ATTACKER].is_eliminated);
    ck_assert(f->out.is_vacated && !f->out.is_advance_allowed);
    scs_fixture_check(&f->in, &f->d, &f->out);

    scs_fixture_table(&f->table, SCS_ROLL_2D6, scs_fixture_cols7, 7, "D1r2");
    f->in.n_units[SCS_DEFENDER] = 0;
    scs_fixture_unit(f, SCS_DEFENDER, 1, 3, 2)->steps_lost = 1; /* [0] */
    scs_fixture_unit(f, SCS_DEFENDER, 1, 1, 2);                 /* [1] */
    o->extra_units[0] = 0;
    o->n_extra_units = 1;
    ck_assert_int_eq(scs_fixture_run(f, 2, 1, 2), ERR_OK);
    ck_assert_int_eq(scs_fixture_loss_unit(&f->out, 1, SCS_LOSS_TABLE, 0), 0);
    ck_assert_int_eq(scs_fixture_loss_unit(&f->out, 1, SCS_LOSS_EZOC, 0), 1);
    ck_assert(!f->out.losses[1].is_ordered);
    scs_fixture_check(&f->in, &f->d, &f->out);
    o->extra_units[0] = 1;
    ck_assert_int_eq(scs_fixture_run(f, 2, 1, 2), ERR_OK);
    ck_assert(f->out.losses[1].unit == 1 && f->out.losses[1].is_ordered);
    scs_fixture_free(f);
}
END_TEST

/* Step 6's default: strongest first, then the strongest among those with
 * the fewest losses this combat, ties by the order listed. */
START_TEST(test_default_order)
{
    static const int def[] = {1, 2, 3, 0, 1, 2, 3}, att[] = {1, 2, 0, 1};
    static const int def2[] = {0, 1, 1}, strength[] = {2, 5, 5, 3};
    scs_fixture *f = scs_fixture_new("A4 D7");
    size_t i;

    scs_fixture_unit(f, SCS_ATTACKER, 1, 9, 2);
    scs_fixture_unit(f, SCS_ATTACKER, 4, 9, 2);
    scs_fixture_unit(f, SCS_ATTACKER, 4, 9, 2);
    for (i = 0; i < 4; i++)
        scs_fixture_unit(f, SCS_DEFENDER, 9, strength[i], 2);
    ck_assert_int_eq(scs_fixture_run(f, 2, 6, 6), ERR_OK);
    for (i = 0; i < N_ELEMS(def); i++)
        ck_assert_int_eq(scs_fixture_loss_unit(&f->out, 1, -1, (int)i), def[i]);
    for (i = 0; i < N_ELEMS(att); i++)
        ck_assert_int_eq(scs_fixture_loss_unit(&f->out, 0, -1, (int)i), att[i]);
    scs_fixture_check(&f->in, &f->d, &f->out);
    /* Earlier losses do not count; a unit with no step left is skipped. */
    scs_fixture_table(&f->table, SCS_ROLL_2D6, scs_fixture_cols7, 7, "D3");
    f->in.n_units[SCS_DEFENDER] = 0;
    scs_fixture_unit(f, SCS_DEFENDER, 1, 5, 2)->steps_lost = 1;
    scs_fixture_unit(f, SCS_DEFENDER, 1, 4, 3);
    ck_assert_int_eq(scs_fixture_run(f, 2, 6, 6), ERR_OK);
    for (i = 0; i < N_ELEMS(def2); i++)
        ck_assert_int_eq(scs_fixture_loss_unit(&f->out, 1, -1, (int)i),
                         def2[i]);
    scs_fixture_check(&f->in, &f->d, &f->out);
    scs_fixture_free(f);
}
END_TEST

/* Step 8 (and 6.0/10.0d for overruns).  Attackers: [0] exploit capable,
 * attack 5, two steps; [1] attack 4, one step.  One defender of two
 * steps; the odds 9:2, 5:1. */
static const struct {
    const char *cell;
    bool is_overrun;
    int convert; /* the defender's */
    bool allowed, required;
    int advance[2]; /* per attacker */
} advances[] = {
    {"D1r2", false, 0, true, false, {2, 1}},
    {"D1r1", false, 0, true, false, {1, 1}},
    {"D2", false, 0, true, false, {1, 1}},
    {"D2r3", false, 0, true, false, {3, 1}}, /* 10.0a */
    {"D1", false, 0, false, false, {0, 0}},
    {"A1r1 D1r2", false, 0, false, false, {0, 0}},
    {"D1r2", true, 0, true, true, {2, 1}},
    {"D1", true, 0, false, false, {0, 0}},
    {"A2 D1r2", false, 0, true, false, {2, 0}},
    {"Dr1", false, 1, false, false, {0, 0}},
    {"Dr3", false, 1, true, false, {3, 1}},
};

START_TEST(test_advance)
{
    scs_fixture *f = scs_fixture_new(advances[_i].cell);
    int u;

    scs_fixture_unit(f, SCS_ATTACKER, 5, 1, 2)->is_exploit = true;
    scs_fixture_unit(f, SCS_ATTACKER, 4, 1, 1);
    scs_fixture_unit(f, SCS_DEFENDER, 1, 2, 2);
    f->in.is_overrun = advances[_i].is_overrun;
    f->in.orders[SCS_DEFENDER].convert = advances[_i].convert;
    ck_assert_int_eq(scs_fixture_run(f, 2, 3, 3), ERR_OK);
    ck_assert(f->out.is_advance_allowed == advances[_i].allowed);
    ck_assert(f->out.is_advance_required == advances[_i].required);
    for (u = 0; u < 2; u++)
        ck_assert_int_eq(f->out.units[SCS_ATTACKER][u].advance,
                         advances[_i].advance[u]);
    ck_assert_int_eq(f->out.units[SCS_DEFENDER][0].advance, 0);
    scs_fixture_check(&f->in, &f->d, &f->out);
    scs_fixture_free(f);
}
END_TEST

/* Step 1: the options' out-of-supply multipliers apply only to units
 * marked out of supply, the attack one to attackers, the defense one to
 * defenders; cumulative with the others. */
START_TEST(test_out_of_supply)
{
    static const int want[] = {1, 4, 1, 2}; /* 4 x 1/2 x 1/2, 4; 4 x 1/4, 2 */
    scs_fixture *f = scs_fixture_new("-");
    scs_unit *u;
    int i;

    u = scs_fixture_unit(f, SCS_ATTACKER, 4, 8, 2);
    u->is_out_of_supply = true;
    u->n_multipliers = 1;
    u->multipliers[0] = (scs_frac){1, 2};
    scs_fixture_unit(f, SCS_ATTACKER, 4, 8, 2);
    scs_fixture_unit(f, SCS_DEFENDER, 8, 4, 2)->is_out_of_supply = true;
    scs_fixture_unit(f, SCS_DEFENDER, 8, 2, 2);
    ck_assert_int_eq(scs_fixture_run(f, 2, 3, 4), ERR_OK); /* defaults: 1 */
    ck_assert(scs_frac_cmp(f->out.sides[0].total, scs_frac_int(6)) == 0 &&
              scs_frac_cmp(f->out.sides[1].total, scs_frac_int(6)) == 0);
    f->in.options.out_of_supply_attack = (scs_frac){1, 2};
    f->in.options.out_of_supply_defense = (scs_frac){1, 4};
    ck_assert_int_eq(scs_fixture_run(f, 2, 3, 4), ERR_OK);
    for (i = 0; i < 4; i++)
        ck_assert_int_eq(scs_frac_cmp(f->out.units[i / 2][i % 2].value,
                                      scs_frac_int(want[i])),
                         0);
    ck_assert(f->out.odds.attack == 2 && f->out.odds.defense == 1); /* 5:3 */
    scs_fixture_check(&f->in, &f->d, &f->out);
    scs_fixture_free(f);
}
END_TEST

/* Step 5's roll log: two dice of six faces, reason "scs.crt", side 0,
 * unit -1 (row by row in scs_fixture_check); every die entered is used;
 * too few dice fail.  The registry's entry gives the same outcome. */
START_TEST(test_roll_log)
{
    scs_fixture *f = scs_fixture_new(NULL);
    const registry_system *sys = registry_find("scs");
    scs_outcome *o2 = malloc(sizeof *o2);
    dice_source d;

    scs_fixture_unit(f, SCS_ATTACKER, 4, 1, 2);
    scs_fixture_unit(f, SCS_DEFENDER, 1, 4, 2);
    ck_assert_int_eq(scs_fixture_run(f, 2, 2, 5), ERR_OK);
    ck_assert_int_eq(f->out.roll, 7);
    ck_assert(f->d.log[0].natural == 2 && f->d.log[1].natural == 5);
    ck_assert_int_eq(dice_check_all_used(&f->d, NULL), ERR_OK);
    scs_fixture_check(&f->in, &f->d, &f->out);
    ck_assert_ptr_eq(sys, &scs_system);
    ck_assert_uint_eq(sys->input_size, sizeof(scs_input));
    ck_assert_uint_eq(sys->result_size, sizeof(scs_outcome));
    dice_init_values(&d, DICE_ENTERED, f->dice, 2);
    ck_assert_int_eq(sys->resolve(&f->in, &d, o2, NULL), ERR_OK);
    ck_assert_mem_eq(o2, &f->out, sizeof *o2);
    sys->result_cleanup(o2);
    dice_cleanup(&d);
    free(o2);
    ck_assert_int_eq(scs_fixture_run(f, 1, 6), ERR_DICE);
    ck_assert_str_eq(f->e.field, "dice");
    scs_fixture_free(f);
}
END_TEST

#define LOOP(tc, fn, cases) tcase_add_loop_test(tc, fn, 0, (int)N_ELEMS(cases))

Suite *suite_scs_examples(void)
{
    Suite *s = suite_create("scs_examples");
    TCase *vec = tcase_create("vectors");
    TCase *steps = tcase_create("procedure");

    tcase_add_test(vec, test_vector_odds);
    tcase_add_test(vec, test_vector_combats);
    tcase_add_test(vec, test_vector_also_expect);
    suite_add_tcase(s, vec);
    LOOP(steps, test_shift, shifts);
    tcase_add_test(steps, test_off_table_and_defense_zero);
    tcase_add_test(steps, test_d66);
    LOOP(steps, test_retreat, retreats);
    tcase_add_test(steps, test_capacity_and_extra_units);
    tcase_add_test(steps, test_default_order);
    LOOP(steps, test_advance, advances);
    tcase_add_test(steps, test_out_of_supply);
    tcase_add_test(steps, test_roll_log);
    suite_add_tcase(s, steps);
    return s;
}
