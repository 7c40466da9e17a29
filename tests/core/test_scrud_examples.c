/*
 * test_scrud_examples.c: core/scrud.c against docs/rules/scrud.md, as a
 * whole: the worked examples of the originals, loaded as data from
 * $UMPIRE_TEST_VECTORS/scrud-*.json (no expected number is copied into C),
 * and invariants checked over hundreds of seeded combats, including a
 * reference model of steps 1 and 3 (the score), 7 and 9.  Every run also
 * checks the roll log row by row (scrud_fixture_check_log).  The options
 * and rules one at a time are in test_scrud.c.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <jansson.h>

#include "dice.h"
#include "registry.h"
#include "scrud.h"
#include "scrud_fixture.h"
#include "suites.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the worked examples, from tests/vectors ---- */

#define VEC_MAX_UNITS 32

typedef struct vunit {
    const char *name; /* borrowed from the JSON */
    const char *side; /* borrowed from the JSON */
    scrud_unit unit;  /* its state now, carried from combat to combat */
    bool is_alive;
} vunit;

typedef struct vcampaign {
    vunit units[VEC_MAX_UNITS];
    size_t n_units;
    scrud_options options;
} vcampaign;

/* One combat of a vector; idx maps combat units to campaign units. */
typedef struct vcombat {
    const char *label;
    const char *side_name[2];
    size_t idx[2][VEC_MAX_UNITS];
    scrud_unit units[2][VEC_MAX_UNITS];
    int dice[2 * VEC_MAX_UNITS];
    size_t n_dice;
    scrud_input in;
    dice_source d;
    scrud_result out;
} vcombat;

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

/* Vector options -> scrud_options; "cap": null is no cap, a number fixed;
 * "floor": null is no floor.  An unknown option fails the test. */
static void parse_options(json_t *j, scrud_options *o)
{
    const char *key;
    json_t *v;
    int k;

    scrud_options_default(o);
    ck_assert(json_is_object(j));
    json_object_foreach(j, key, v)
    {
        if (strcmp(key, "cap") == 0) {
            o->cap_kind = json_is_null(v) ? SCRUD_CAP_NONE : SCRUD_CAP_FIXED;
            if (json_is_string(v) && strcmp(json_string_value(v), "faces") == 0)
                o->cap_kind = SCRUD_CAP_FACES;
            else if (!json_is_null(v))
                o->cap = jint(v, key);
        } else if (strcmp(key, "floor") == 0) {
            o->has_floor = !json_is_null(v);
            o->floor = o->has_floor ? jint(v, key) : 0;
        } else if (strcmp(key, "extra_dice") == 0) {
            for (k = 0; k <= SCRUD_EXTRA_HALF; k++)
                if (!strcmp(jstr(v, key),
                            scrud_extra_rule_name((scrud_extra_rule)k)))
                    break;
            ck_assert_msg(k <= SCRUD_EXTRA_HALF, "extra_dice %s", jstr(v, key));
            o->extra_dice = (scrud_extra_rule)k;
        } else if (strcmp(key, "attrition") == 0) {
            ck_assert(json_is_boolean(v));
            o->attrition = json_is_true(v);
        } else if (strcmp(key, "max_penalty_per_combat") == 0) {
            o->max_penalty_per_combat = jint(v, key);
        } else if (strcmp(key, "eliminate_below") == 0) {
            o->eliminate_below = jint(v, key);
        } else if (strcmp(key, "defeats_per_elimination") == 0) {
            o->defeats_per_elimination = jint(v, key);
        } else {
            ck_abort_msg("unknown vector option %s", key);
        }
    }
}

static void parse_units(json_t *j, vcampaign *c)
{
    const char *name, *key;
    json_t *ju, *v;

    ck_assert(json_is_object(j));
    json_object_foreach(j, name, ju)
    {
        vunit *vu = &c->units[c->n_units++];

        ck_assert_uint_le(c->n_units, VEC_MAX_UNITS);
        vu->name = name;
        vu->is_alive = true;
        scrud_unit_default(&vu->unit);
        json_object_foreach(ju, key, v)
        {
            if (strcmp(key, "side") == 0)
                vu->side = jstr(v, key);
            else if (strcmp(key, "quality") == 0)
                vu->unit.quality = jint(v, key);
            else if (strcmp(key, "faces") == 0)
                vu->unit.faces = jint(v, key);
            else if (strcmp(key, "reserve") == 0)
                vu->unit.is_reserve = json_is_true(v);
            else
                ck_abort_msg("unit %s: unknown field %s", name, key);
        }
        ck_assert_msg(vu->side != NULL, "unit %s has no side", name);
    }
}

/* Builds the combat from its dice lists: each side's units in listed
 * order, one die each; every living unit of the side, no dead one. */
static void vbuild(const vcampaign *c, json_t *combat, vcombat *v)
{
    json_t *jdice = json_object_get(combat, "dice"), *list, *entry;
    size_t s, i, k, j, n;

    v->side_name[0] = jstr(json_object_get(combat, "first"), "first");
    v->side_name[1] = jstr(json_object_get(combat, "second"), "second");
    ck_assert(json_is_object(jdice) && json_object_size(jdice) == 2);
    v->in.options = c->options;
    for (s = 0; s < 2; s++) {
        list = json_object_get(jdice, v->side_name[s]);
        ck_assert_msg(json_is_array(list), "%s: no dice for %s", v->label,
                      v->side_name[s]);
        n = 0;
        json_array_foreach(list, i, entry)
        {
            const char *name = jstr(json_array_get(entry, 0), "die's unit");
            for (k = 0; k < c->n_units && strcmp(c->units[k].name, name); k++)
                ;
            ck_assert_msg(k < c->n_units && c->units[k].is_alive &&
                              !strcmp(c->units[k].side, v->side_name[s]),
                          "%s: %s cannot fight", v->label, name);
            v->idx[s][n] = k;
            v->units[s][n++] = c->units[k].unit;
            v->dice[v->n_dice++] = jint(json_array_get(entry, 1), name);
        }
        for (k = 0; k < c->n_units; k++) {
            if (!c->units[k].is_alive ||
                strcmp(c->units[k].side, v->side_name[s]))
                continue;
            for (j = 0; j < n && v->idx[s][j] != k; j++)
                ;
            ck_assert_msg(j < n, "%s: %s rolls no die", v->label,
                          c->units[k].name);
        }
        v->in.sides[s].units = v->units[s];
        v->in.sides[s].n_units = n;
    }
}

/*
 * The outcome in the shape of a vector's "expect" (new reference), so one
 * json_equal compares everything.  units_after holds every survivor, or,
 * if only is not NULL, those of the survivors that only names.
 */
static json_t *vector_outcome(const vcampaign *c, const vcombat *v,
                              json_t *only)
{
    const scrud_result *out = &v->out;
    json_t *lined = json_object(), *pairs = json_array();
    json_t *extra = json_array(), *defeats = json_object();
    json_t *elim = json_object(), *after = json_object();
    size_t s, i, k;

#define NAME(s, i) (c->units[v->idx[s][i]].name)
    for (s = 0; s < 2; s++) {
        json_t *a = json_array();
        for (k = 0; k < out->n_line_up[s]; k++)
            json_array_append_new(
                a, json_integer(out->units[s][out->line_up[s][k]].score));
        json_object_set_new(lined, v->side_name[s], a);
        json_object_set_new(defeats, v->side_name[s],
                            json_integer(out->defeats[s]));
        for (i = 0; i < v->in.sides[s].n_units; i++) {
            const scrud_unit_result *r = &out->units[s][i];
            if (r->eliminated != SCRUD_ELIM_NONE)
                json_object_set_new(
                    elim, NAME(s, i),
                    json_string(scrud_elimination_name(r->eliminated)));
            else if (!only || json_object_get(only, NAME(s, i)))
                json_object_set_new(after, NAME(s, i),
                                    json_pack("{s:i,s:i,s:i}", "defeat_penalty",
                                              r->defeat_penalty,
                                              "fatigue_penalty",
                                              r->fatigue_penalty, "modifier",
                                              r->modifier_after));
        }
    }
    for (k = 0; k < out->n_pairs; k++)
        json_array_append_new(
            pairs, json_pack("[s,s,s]", NAME(0, out->pairs[k].unit[0]),
                             NAME(1, out->pairs[k].unit[1]),
                             scrud_winner_name(out->pairs[k].winner)));
    for (k = 0; k < out->n_extra; k++) {
        const scrud_extra_die *x = &out->extra[k];
        json_array_append_new(
            extra,
            json_pack("[s,o,s]", NAME(x->side, x->unit),
                      x->target < 0 ? json_null()
                                    : json_string(NAME(1 - x->side, x->target)),
                      x->target < 0 ? "ignored" : "defeat"));
    }
#undef NAME
    return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o}", "lined_up", lined, "pairs",
                     pairs, "extra", extra, "defeats_suffered", defeats,
                     "eliminated", elim, "units_after", after);
}

/* Runs one combat, compares the whole outcome, carries unit state on.  In
 * a campaign, units_after must list exactly the survivors. */
static void run_vector_combat(vcampaign *c, json_t *combat, const char *label,
                              bool is_campaign)
{
    json_t *expect = json_object_get(combat, "expect"), *got;
    vcombat v;
    err_info e;
    err_code rc;
    size_t s, i;

    memset(&v, 0, sizeof v);
    err_clear(&e);
    v.label = label;
    vbuild(c, combat, &v);
    dice_init_values(&v.d, DICE_ENTERED, v.dice, v.n_dice);
    rc = scrud_resolve(&v.in, &v.d, &v.out, &e);
    ck_assert_msg(rc == ERR_OK, "%s: %s at %s: %s", label, err_code_name(rc),
                  e.field, e.message);
    ck_assert_int_eq(dice_check_all_used(&v.d, &e), ERR_OK);
    scrud_fixture_check_log(&v.in, &v.d, &v.out);
    ck_assert_msg(json_is_object(expect), "%s: no expect", label);
    got = vector_outcome(
        c, &v, is_campaign ? NULL : json_object_get(expect, "units_after"));
    ck_assert_ptr_nonnull(got);
    if (!json_equal(got, expect)) /* leaks on failure only */
        ck_abort_msg("%s:\n got %s\nwant %s", label,
                     json_dumps(got, JSON_SORT_KEYS | JSON_COMPACT),
                     json_dumps(expect, JSON_SORT_KEYS | JSON_COMPACT));
    json_decref(got);
    for (s = 0; s < 2; s++) {
        for (i = 0; i < v.in.sides[s].n_units; i++) {
            vunit *vu = &c->units[v.idx[s][i]];
            vu->unit.defeat_penalty = v.out.units[s][i].defeat_penalty;
            vu->unit.fatigue_penalty = v.out.units[s][i].fatigue_penalty;
            vu->is_alive = v.out.units[s][i].eliminated == SCRUD_ELIM_NONE;
        }
    }
    scrud_result_cleanup(&v.out);
    dice_cleanup(&v.d);
}

/* Tannenberg: three days in a row, each from the day before's outcome. */
START_TEST(test_vector_tannenberg)
{
    json_t *root = load_vectors("scrud-tannenberg.json"), *combat;
    vcampaign c;
    char label[64];
    size_t k;

    memset(&c, 0, sizeof c);
    parse_options(json_object_get(root, "options"), &c.options);
    parse_units(json_object_get(root, "units"), &c);
    ck_assert(json_array_size(json_object_get(root, "combats")) > 0);
    json_array_foreach(json_object_get(root, "combats"), k, combat)
    {
        snprintf(label, sizeof label, "tannenberg day %zu", k + 1);
        run_vector_combat(&c, combat, label, true);
    }
    json_decref(root);
}
END_TEST

START_TEST(test_vector_blog)
{
    json_t *root = load_vectors("scrud-blog-examples.json"), *cs;
    vcampaign c;
    size_t k;

    ck_assert(json_array_size(json_object_get(root, "cases")) > 0);
    json_array_foreach(json_object_get(root, "cases"), k, cs)
    {
        memset(&c, 0, sizeof c);
        parse_options(json_object_get(cs, "options"), &c.options);
        parse_units(json_object_get(cs, "units"), &c);
        run_vector_combat(&c, cs, jstr(json_object_get(cs, "name"), "name"),
                          false);
    }
    json_decref(root);
}
END_TEST

/* ---- properties over seeded combats ---- */

#define N_PROPERTY_COMBATS 600

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static int pick(uint64_t *x, int lo, int hi)
{
    return lo + (int)(splitmix64(x) % (uint64_t)(hi - lo + 1));
}

/* Combat number n: random options, 1..12 units a side of quality -1..1,
 * some in reserve, some carrying penalties; the dice seeded from n. */
static void random_combat(scrud_fixture *f, uint64_t n)
{
    static const int faces[] = {4, 6, 6, 6, 8, 10};
    static const uint8_t client[] = "test_scrud";
    uint8_t seed[RNG_SEED_LEN] = {0};
    scrud_options *o = &f->in.options;
    uint64_t x = n;
    int s, i, n_units;

    scrud_fixture_init(f);
    o->cap_kind = (scrud_cap_kind)pick(&x, 0, 2);
    o->cap = pick(&x, 3, 8);
    o->has_floor = pick(&x, 0, 3) != 0;
    o->floor = pick(&x, -1, 2);
    o->extra_dice = (scrud_extra_rule)pick(&x, 0, 2);
    o->attrition = pick(&x, 0, 4) != 0;
    o->max_penalty_per_combat = pick(&x, 0, 2);
    o->eliminate_below = pick(&x, -3, -1);
    o->defeats_per_elimination = pick(&x, 0, 4);
    for (s = 0; s < 2; s++) {
        f->in.sides[s].modifier = pick(&x, -1, 1);
        n_units = pick(&x, 1, 12);
        for (i = 0; i < n_units; i++) {
            scrud_unit *u = scrud_fixture_add(f, s, 1, pick(&x, -1, 1));
            u->faces = faces[pick(&x, 0, (int)N_ELEMS(faces) - 1)];
            u->defeat_penalty = pick(&x, 0, 1);
            u->fatigue_penalty = pick(&x, 0, 1);
            while (scrud_unit_modifier(u) < o->eliminate_below)
                *(u->defeat_penalty ? &u->defeat_penalty
                                    : &u->fatigue_penalty) -= 1;
            u->modifier = pick(&x, -1, 1);
            u->is_reserve = pick(&x, 0, 5) == 0;
        }
        f->units[s][0].is_reserve = false;
    }
    for (i = 0; i < 8; i++)
        seed[i] = (uint8_t)(n >> (8 * i));
    seed[31] = 0x5c;
    dice_init_seeded(&f->dice, seed, client, sizeof client - 1);
}

/* Steps 1 and 3 restated: the score a front-line unit must have. */
static int model_score(const scrud_options *o, const scrud_unit *u,
                       const scrud_unit_result *r, int side_modifier)
{
    int v = r->natural + r->modifier_before + side_modifier + u->modifier +
            r->reserve_bonus;

    if (o->cap_kind == SCRUD_CAP_FACES && v > u->faces)
        v = u->faces;
    if (o->cap_kind == SCRUD_CAP_FIXED && v > o->cap)
        v = o->cap;
    return o->has_floor && v < o->floor ? o->floor : v;
}

/* One side's invariants: defeats recounted from pairs and extra dice;
 * scores within cap and floor; attrition by the rule and within its
 * budget; eliminations by steps 8 and 9; reserves untouched. */
static void check_side(const scrud_fixture *f, int s)
{
    const scrud_options *o = &f->in.options;
    const scrud_result *out = &f->out;
    const scrud_side *side = &f->in.sides[s];
    int lost = 0, by_extra = 0, sum = 0, n_front = 0, n_threshold = 0;
    int n_three = 0, bonus = 0, bonus_want = 0, due;
    size_t k, i;

    for (k = 0; k < out->n_pairs; k++)
        lost += out->pairs[k].winner == (s == 0 ? SCRUD_SECOND : SCRUD_FIRST);
    for (k = 0; k < out->n_extra; k++)
        by_extra += out->extra[k].side != s && out->extra[k].target >= 0;
    ck_assert_int_eq(out->defeats[s], lost + by_extra);
    for (i = 0; i < side->n_units; i++)
        n_front += !side->units[i].is_reserve;
    for (i = 0; i < side->n_units; i++) {
        const scrud_unit *u = &side->units[i];
        const scrud_unit_result *r = &out->units[s][i];
        int heavy = r->natural == u->faces || r->score >= u->faces, dp, fp;

        sum += r->defeats;
        if (u->is_reserve) {
            ck_assert(r->rank == -1 && r->defeats == 0);
            ck_assert_int_eq(r->score, r->natural);
            ck_assert(r->defeat_penalty_added == 0 &&
                      r->fatigue_penalty_added == 0);
            ck_assert(r->defeat_penalty == u->defeat_penalty &&
                      r->fatigue_penalty == u->fatigue_penalty);
            ck_assert(r->eliminated == SCRUD_ELIM_NONE &&
                      r->reserve_bonus == 0);
            bonus_want += r->natural < n_front ? r->natural : n_front;
            continue;
        }
        bonus += r->reserve_bonus;
        ck_assert_int_eq(r->score, model_score(o, u, r, side->modifier));
        if (o->cap_kind == SCRUD_CAP_FACES)
            ck_assert_int_le(r->score, u->faces);
        if (o->cap_kind == SCRUD_CAP_FIXED)
            ck_assert_int_le(r->score, o->cap);
        if (o->has_floor)
            ck_assert_int_ge(r->score, o->floor);
        ck_assert_int_le(r->defeat_penalty_added + r->fatigue_penalty_added,
                         o->attrition ? o->max_penalty_per_combat : 0);
        dp = o->attrition && r->defeats > 0 && o->max_penalty_per_combat > 0;
        fp = o->attrition && heavy && o->max_penalty_per_combat > dp;
        ck_assert_int_eq(r->is_heavy_fighting, heavy);
        ck_assert_int_eq(r->defeat_penalty_added, dp);
        ck_assert_int_eq(r->fatigue_penalty_added, fp);
        ck_assert(r->defeat_penalty == u->defeat_penalty + dp &&
                  r->fatigue_penalty == u->fatigue_penalty + fp);
        ck_assert_int_eq(r->modifier_after,
                         u->quality - r->defeat_penalty - r->fatigue_penalty);
        ck_assert_int_eq(r->eliminated == SCRUD_ELIM_THRESHOLD,
                         r->modifier_after < o->eliminate_below);
        n_threshold += r->eliminated == SCRUD_ELIM_THRESHOLD;
        n_three += r->eliminated == SCRUD_ELIM_THREE_DEFEATS;
    }
    ck_assert_int_eq(sum, out->defeats[s]);
    ck_assert_int_eq(bonus, bonus_want);
    due = o->defeats_per_elimination
              ? out->defeats[s] / o->defeats_per_elimination
              : 0;
    if (due > n_front - n_threshold)
        due = n_front - n_threshold;
    ck_assert_int_eq(n_three, due);
    ck_assert_uint_eq(out->n_eliminated[s], (size_t)(n_threshold + n_three));
}

START_TEST(test_property_invariants)
{
    scrud_fixture f;
    uint64_t n;
    size_t n0, n1;

    for (n = 0; n < N_PROPERTY_COMBATS; n++) {
        random_combat(&f, n);
        ck_assert_int_eq(scrud_resolve(&f.in, &f.dice, &f.out, &f.e), ERR_OK);
        ck_assert_int_eq(dice_check_all_used(&f.dice, &f.e), ERR_OK);
        scrud_fixture_check_log(&f.in, &f.dice, &f.out);
        n0 = f.out.n_line_up[0];
        n1 = f.out.n_line_up[1];
        ck_assert_uint_eq(f.out.n_pairs, n0 < n1 ? n0 : n1);
        ck_assert_uint_eq(f.out.n_extra, n0 > n1 ? n0 - n1 : n1 - n0);
        check_side(&f, 0);
        check_side(&f, 1);
        scrud_fixture_cleanup(&f);
    }
}
END_TEST

#define FLAT_MAX 2048

static void put(int *v, size_t *n, long x)
{
    ck_assert_uint_lt(*n, FLAT_MAX);
    v[(*n)++] = (int)x;
}

/* Every number of a result and its roll log, in one fixed order. */
static size_t flatten(const scrud_fixture *f, int *v)
{
    const scrud_result *o = &f->out;
    size_t n = 0, s, i;

#define PUT(x) put(v, &n, (long)(x))
    for (s = 0; s < 2; s++) {
        PUT(o->defeats[s]);
        PUT(o->n_line_up[s]);
        for (i = 0; i < o->n_line_up[s]; i++)
            PUT(o->line_up[s][i]);
        PUT(o->n_eliminated[s]);
        for (i = 0; i < o->n_eliminated[s]; i++)
            PUT(o->eliminated[s][i]);
        for (i = 0; i < f->in.sides[s].n_units; i++) {
            const scrud_unit_result *r = &o->units[s][i];
            PUT(r->roll), PUT(r->natural), PUT(r->modifier_before);
            PUT(r->reserve_bonus), PUT(r->score), PUT(r->rank), PUT(r->defeats);
            PUT(r->is_heavy_fighting), PUT(r->defeat_penalty_added);
            PUT(r->fatigue_penalty_added), PUT(r->defeat_penalty);
            PUT(r->fatigue_penalty), PUT(r->modifier_after), PUT(r->eliminated);
        }
    }
    PUT(o->n_pairs);
    for (i = 0; i < o->n_pairs; i++)
        PUT(o->pairs[i].unit[0]), PUT(o->pairs[i].unit[1]),
            PUT(o->pairs[i].score[0]), PUT(o->pairs[i].score[1]),
            PUT(o->pairs[i].winner);
    PUT(o->n_extra);
    for (i = 0; i < o->n_extra; i++)
        PUT(o->extra[i].side), PUT(o->extra[i].unit), PUT(o->extra[i].target);
    PUT(f->dice.n_log);
    for (i = 0; i < f->dice.n_log; i++) {
        const dice_roll *l = &f->dice.log[i];
        PUT(l->faces), PUT(l->natural), PUT(l->modified), PUT(l->side);
        PUT(l->unit), PUT(strcmp(l->reason, "scrud.front") != 0);
    }
#undef PUT
    return n;
}

/* The registry's descriptor resolves the same seed to the same result and
 * roll log as scrud_resolve, combat after combat. */
START_TEST(test_property_registry_determinism)
{
    static int a[FLAT_MAX], b[FLAT_MAX];
    const registry_system *sys = registry_find("scrud");
    scrud_fixture f, g;
    uint64_t n;
    size_t na;

    ck_assert_ptr_eq(sys, &scrud_system);
    ck_assert(sys->input_size == sizeof(scrud_input) &&
              sys->result_size == sizeof(scrud_result));
    for (n = 0; n < N_PROPERTY_COMBATS / 2; n++) {
        random_combat(&f, n);
        random_combat(&g, n);
        ck_assert_int_eq(scrud_resolve(&f.in, &f.dice, &f.out, &f.e), ERR_OK);
        ck_assert_int_eq(sys->resolve(&g.in, &g.dice, &g.out, &g.e), ERR_OK);
        na = flatten(&f, a);
        ck_assert_uint_eq(na, flatten(&g, b));
        ck_assert_msg(memcmp(a, b, na * sizeof *a) == 0, "combat %d differs",
                      (int)n);
        sys->result_cleanup(&g.out);
        dice_cleanup(&g.dice);
        scrud_fixture_cleanup(&f);
    }
}
END_TEST

Suite *suite_scrud_examples(void)
{
    Suite *s = suite_create("scrud_examples");
    TCase *vec = tcase_create("vectors");
    TCase *prop = tcase_create("properties");

    tcase_add_test(vec, test_vector_tannenberg);
    tcase_add_test(vec, test_vector_blog);
    tcase_set_timeout(prop, 60);
    tcase_add_test(prop, test_property_invariants);
    tcase_add_test(prop, test_property_registry_determinism);
    suite_add_tcase(s, vec);
    suite_add_tcase(s, prop);
    return s;
}
