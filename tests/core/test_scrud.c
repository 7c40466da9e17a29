/*
 * test_scrud.c: core/scrud.c against docs/rules/scrud.md.
 *
 * Four parts: the worked examples of the originals, loaded as data from
 * $UMPIRE_TEST_VECTORS/scrud-*.json (no expected number is copied into C);
 * one test per option and rule with entered dice and outcomes worked out by
 * hand in the comments; refusals; and invariants checked over hundreds of
 * seeded combats, including a reference model of steps 2, 7 and 9.  Every
 * entered-dice run also checks the roll log row by row (fx_run).
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
#include "suites.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* ---- fixture: a combat built in place, resolved with entered dice ---- */

typedef struct fixture {
    scrud_unit units[2][SCRUD_MAX_UNITS_PER_SIDE + 1];
    scrud_input in;
    dice_source dice;
    scrud_result out;
    err_info e;
} fixture;

static void fx_init(fixture *f)
{
    memset(f, 0, sizeof *f);
    f->in.sides[0].units = f->units[0];
    f->in.sides[1].units = f->units[1];
    scrud_options_default(&f->in.options);
}

/* Appends n fresh d6 units of the given quality to side s; returns the
 * first (borrowed). */
static scrud_unit *fx_add(fixture *f, int s, int n, int quality)
{
    scrud_unit *first = &f->units[s][f->in.sides[s].n_units];

    while (n-- > 0) {
        scrud_unit *u = &f->units[s][f->in.sides[s].n_units++];
        scrud_unit_default(u);
        u->quality = quality;
    }
    return first;
}

static void fx_cleanup(fixture *f)
{
    scrud_result_cleanup(&f->out);
    dice_cleanup(&f->dice);
}

/* The roll log (README "Roll log"): one row per unit in draw order, side 0
 * then side 1, reason by role, modified = the score (reserves: natural). */
static void check_log(const scrud_input *in, const dice_source *d,
                      const scrud_result *out)
{
    size_t s, i, row = 0;

    for (s = 0; s < 2; s++) {
        for (i = 0; i < in->sides[s].n_units; i++, row++) {
            const scrud_unit *u = &in->sides[s].units[i];
            const scrud_unit_result *r = &out->units[s][i];
            const dice_roll *l = &d->log[row];

            ck_assert_uint_lt(row, d->n_log);
            ck_assert(r->roll == row && l->side == (int)s && l->unit == (int)i);
            ck_assert(l->faces == u->faces && l->natural == r->natural);
            ck_assert_int_eq(l->modified,
                             u->is_reserve ? l->natural : r->score);
            ck_assert_str_eq(l->reason,
                             u->is_reserve ? "scrud.reserve" : "scrud.front");
        }
    }
    ck_assert_uint_eq(d->n_log, row);
}

/* Resolves with entered dice (borrowed), which must be used exactly. */
static void fx_run(fixture *f, const int *dice, size_t n)
{
    err_code rc;

    dice_init_values(&f->dice, DICE_ENTERED, dice, n);
    rc = scrud_resolve(&f->in, &f->dice, &f->out, &f->e);
    ck_assert_msg(rc == ERR_OK, "scrud_resolve: %s at %s: %s",
                  err_code_name(rc), f->e.field, f->e.message);
    ck_assert_int_eq(dice_check_all_used(&f->dice, &f->e), ERR_OK);
    check_log(&f->in, &f->dice, &f->out);
}

#define FX_RUN(f, dice) fx_run(f, dice, N_ELEMS(dice))
#define R(f, s, i) (&(f)->out.units[s][i])

/* ---- part 1: the worked examples, from tests/vectors ---- */

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
    json_object_foreach(j, key, v) {
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
    json_object_foreach(j, name, ju) {
        vunit *vu = &c->units[c->n_units++];

        ck_assert_uint_le(c->n_units, VEC_MAX_UNITS);
        vu->name = name;
        vu->is_alive = true;
        scrud_unit_default(&vu->unit);
        json_object_foreach(ju, key, v) {
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
        json_array_foreach(list, i, entry) {
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
                json_object_set_new(elim, NAME(s, i),
                    json_string(scrud_elimination_name(r->eliminated)));
            else if (!only || json_object_get(only, NAME(s, i)))
                json_object_set_new(after, NAME(s, i),
                    json_pack("{s:i,s:i,s:i}", "defeat_penalty",
                              r->defeat_penalty, "fatigue_penalty",
                              r->fatigue_penalty, "modifier",
                              r->modifier_after));
        }
    }
    for (k = 0; k < out->n_pairs; k++)
        json_array_append_new(pairs, json_pack("[s,s,s]",
            NAME(0, out->pairs[k].unit[0]), NAME(1, out->pairs[k].unit[1]),
            scrud_winner_name(out->pairs[k].winner)));
    for (k = 0; k < out->n_extra; k++) {
        const scrud_extra_die *x = &out->extra[k];
        json_array_append_new(extra, json_pack("[s,o,s]",
            NAME(x->side, x->unit), x->target < 0 ? json_null()
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
    check_log(&v.in, &v.d, &v.out);
    ck_assert_msg(json_is_object(expect), "%s: no expect", label);
    got = vector_outcome(c, &v,
        is_campaign ? NULL : json_object_get(expect, "units_after"));
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
    json_array_foreach(json_object_get(root, "combats"), k, combat) {
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
    json_array_foreach(json_object_get(root, "cases"), k, cs) {
        memset(&c, 0, sizeof c);
        parse_options(json_object_get(cs, "options"), &c.options);
        parse_units(json_object_get(cs, "units"), &c);
        run_vector_combat(&c, cs, jstr(json_object_get(cs, "name"), "name"),
                          false);
    }
    json_decref(root);
}
END_TEST

/* ---- part 2: each option and rule, with hand-worked dice ---- */

START_TEST(test_defaults)
{
    scrud_options o;
    scrud_unit u;

    scrud_options_default(&o);
    ck_assert(o.cap_kind == SCRUD_CAP_FACES && o.has_floor && o.floor == 1);
    ck_assert(o.extra_dice == SCRUD_EXTRA_BEAT_LOWEST && o.attrition);
    ck_assert(o.max_penalty_per_combat == 1 && o.eliminate_below == -2 &&
              o.defeats_per_elimination == 3);
    scrud_unit_default(&u);
    ck_assert(u.faces == 6 && u.quality == 0 && !u.is_reserve);
    u.quality = 1;
    u.defeat_penalty = 2;
    u.fatigue_penalty = 1;
    ck_assert_int_eq(scrud_unit_modifier(&u), -2); /* step 1: 1 - 2 - 1 */
}
END_TEST

/* Step 2's clamp.  A +3 unit rolling 6 scores 9: capped at the d6's 6, at
 * a fixed 5, or 9 uncapped.  A plain 1 with a side modifier of -3 scores
 * -2: raised to the default floor 1, or to a floor of 0; a floor of 3
 * lifts a plain 1 (+0) to 3; without a floor 1 - 1 = 0 and -2 stand. */
static const struct {
    scrud_cap_kind cap_kind;
    int cap;
    bool has_floor;
    int floor, quality, side_modifier, natural, score;
} clamp_cases[] = {
    {SCRUD_CAP_FACES, 0, true, 1, 3, 0, 6, 6},
    {SCRUD_CAP_FIXED, 5, true, 1, 3, 0, 6, 5},
    {SCRUD_CAP_NONE, 0, true, 1, 3, 0, 6, 9},
    {SCRUD_CAP_FACES, 0, true, 1, 0, -3, 1, 1},
    {SCRUD_CAP_FACES, 0, true, 0, 0, -3, 1, 0},
    {SCRUD_CAP_FACES, 0, true, 3, 0, 0, 1, 3},
    {SCRUD_CAP_FACES, 0, false, 0, 0, -1, 1, 0},
    {SCRUD_CAP_FACES, 0, false, 0, 0, -3, 1, -2},
};

START_TEST(test_cap_and_floor)
{
    int dice[2] = {clamp_cases[_i].natural, 3};
    fixture f;

    fx_init(&f);
    f.in.options.cap_kind = clamp_cases[_i].cap_kind;
    f.in.options.cap = clamp_cases[_i].cap;
    f.in.options.has_floor = clamp_cases[_i].has_floor;
    f.in.options.floor = clamp_cases[_i].floor;
    f.in.sides[0].modifier = clamp_cases[_i].side_modifier;
    fx_add(&f, 0, 1, clamp_cases[_i].quality);
    fx_add(&f, 1, 1, 0);
    FX_RUN(&f, dice);
    ck_assert_int_eq(R(&f, 0, 0)->score, clamp_cases[_i].score);
    fx_cleanup(&f);
}
END_TEST

/* Step 5, beat_lowest (_i 0) and ignore (_i 1).  Side 0: A 2, B 6, so B
 * lines up first and A, listed first, is the lowest-placed.  Side 1: C 5,
 * D 4, E 3, F 2.  B6-C5: C defeated; A2-D4: A defeated.  Extra E 3 > A's
 * 2 defeats A under beat_lowest; F 2 = 2 is ignored.  ignore: neither. */
START_TEST(test_extra_dice)
{
    static const int dice[] = {2, 6, 5, 4, 3, 2};
    int beat = _i == 0;
    fixture f;

    fx_init(&f);
    f.in.options.extra_dice =
        beat ? SCRUD_EXTRA_BEAT_LOWEST : SCRUD_EXTRA_IGNORE;
    fx_add(&f, 0, 2, 0);
    fx_add(&f, 1, 4, 0);
    FX_RUN(&f, dice);
    ck_assert(f.out.n_pairs == 2 && f.out.pairs[0].winner == SCRUD_FIRST &&
              f.out.pairs[1].winner == SCRUD_SECOND);
    ck_assert(f.out.n_extra == 2 && f.out.extra[0].side == 1 &&
              f.out.extra[0].unit == 2 && f.out.extra[1].unit == 3);
    ck_assert_int_eq(f.out.extra[0].target, beat ? 0 : -1);
    ck_assert_int_eq(f.out.extra[1].target, -1);
    ck_assert(R(&f, 0, 0)->defeats == 1 + beat && R(&f, 0, 1)->defeats == 0);
    ck_assert(f.out.defeats[0] == 1 + beat && f.out.defeats[1] == 1);
    fx_cleanup(&f);
}
END_TEST

/* Step 5, half: X 6 ties Y 6 (same score and natural: Y, listed first,
 * is placed first); the extra Z defeats X when 2 * natural > faces.  d6:
 * 4 defeats even at -4 (score 1), 3 does not even at +3 (score 6); d10: 6
 * defeats, 5 does not.  The score plays no part. */
static const struct {
    int faces, natural, modifier, is_defeat;
} half_cases[] = {{6, 4, -4, 1}, {6, 3, 3, 0}, {10, 6, 0, 1}, {10, 5, 0, 0}};

START_TEST(test_extra_half)
{
    int dice[3] = {6, 6, half_cases[_i].natural};
    fixture f;
    scrud_unit *z;

    fx_init(&f);
    f.in.options.extra_dice = SCRUD_EXTRA_HALF;
    fx_add(&f, 0, 1, 0);
    z = fx_add(&f, 1, 2, 0) + 1;
    z->faces = half_cases[_i].faces;
    z->modifier = half_cases[_i].modifier;
    FX_RUN(&f, dice);
    ck_assert(f.out.pairs[0].unit[1] == 0 &&
              f.out.pairs[0].winner == SCRUD_TIE);
    ck_assert(f.out.n_extra == 1 && f.out.extra[0].unit == 1);
    ck_assert_int_eq(f.out.extra[0].target, half_cases[_i].is_defeat ? 0 : -1);
    ck_assert_int_eq(f.out.defeats[0], half_cases[_i].is_defeat);
    fx_cleanup(&f);
}
END_TEST

/* Step 7.  A (-1) rolls 6: score 5, heavy by natural, and is defeated by
 * B (+1), who rolls 5: score 6, heavy by score.  max 0: nothing; max 1: A
 * takes the defeat penalty only (-2), B fatigue (0); max 2: A takes both,
 * -3 < -2: eliminated by threshold.  Attrition off: nothing, even at 2. */
static const struct {
    bool attrition;
    int max, a_defeat, a_fatigue;
    scrud_elimination a_elim;
    int b_fatigue;
} penalty_cases[] = {{true, 0, 0, 0, SCRUD_ELIM_NONE, 0},
                     {true, 1, 1, 0, SCRUD_ELIM_NONE, 1},
                     {true, 2, 1, 1, SCRUD_ELIM_THRESHOLD, 1},
                     {false, 2, 0, 0, SCRUD_ELIM_NONE, 0}};

START_TEST(test_attrition)
{
    static const int dice[] = {6, 5};
    fixture f;
    const scrud_unit_result *a, *b;

    fx_init(&f);
    f.in.options.attrition = penalty_cases[_i].attrition;
    f.in.options.max_penalty_per_combat = penalty_cases[_i].max;
    fx_add(&f, 0, 1, -1);
    fx_add(&f, 1, 1, 1);
    FX_RUN(&f, dice);
    a = R(&f, 0, 0);
    b = R(&f, 1, 0);
    ck_assert(a->score == 5 && b->score == 6 && a->defeats == 1);
    ck_assert(a->is_heavy_fighting && b->is_heavy_fighting);
    ck_assert_int_eq(a->defeat_penalty_added, penalty_cases[_i].a_defeat);
    ck_assert_int_eq(a->fatigue_penalty_added, penalty_cases[_i].a_fatigue);
    ck_assert(a->defeat_penalty == a->defeat_penalty_added &&
              a->fatigue_penalty == a->fatigue_penalty_added);
    ck_assert_int_eq(a->modifier_after, -1 - penalty_cases[_i].a_defeat -
                                            penalty_cases[_i].a_fatigue);
    ck_assert_int_eq(a->eliminated, penalty_cases[_i].a_elim);
    ck_assert_int_eq(b->defeat_penalty_added, 0);
    ck_assert_int_eq(b->fatigue_penalty_added, penalty_cases[_i].b_fatigue);
    ck_assert_int_eq(b->modifier_after, 1 - penalty_cases[_i].b_fatigue);
    fx_cleanup(&f);
}
END_TEST

/* Step 7, heavy fighting: natural == faces, or score >= faces.  Each unit
 * beats a plain 1, so it takes fatigue exactly when heavy. */
static const struct {
    int faces, quality, natural;
    scrud_cap_kind cap_kind;
    int cap, is_heavy;
} heavy_cases[] = {
    {6, -1, 6, SCRUD_CAP_FACES, 0, 1},  /* natural 6, score 5 */
    {6, 1, 5, SCRUD_CAP_FACES, 0, 1},   /* natural 5, score 6 */
    {6, 2, 5, SCRUD_CAP_NONE, 0, 1},    /* score 7, above faces */
    {6, 0, 5, SCRUD_CAP_FACES, 0, 0},   /* 5 */
    {6, 1, 5, SCRUD_CAP_FIXED, 5, 0},   /* 6 capped to 5 */
    {10, 0, 6, SCRUD_CAP_FACES, 0, 0},  /* a 6 on a d10 */
    {10, 0, 10, SCRUD_CAP_FACES, 0, 1}, /* a 10 on a d10 */
};

START_TEST(test_heavy_fighting)
{
    int dice[2] = {heavy_cases[_i].natural, 1};
    fixture f;

    fx_init(&f);
    f.in.options.cap_kind = heavy_cases[_i].cap_kind;
    f.in.options.cap = heavy_cases[_i].cap;
    fx_add(&f, 0, 1, heavy_cases[_i].quality)->faces = heavy_cases[_i].faces;
    fx_add(&f, 1, 1, 0);
    FX_RUN(&f, dice);
    ck_assert_int_eq(f.out.pairs[0].winner, SCRUD_FIRST);
    ck_assert_int_eq(R(&f, 0, 0)->is_heavy_fighting, heavy_cases[_i].is_heavy);
    ck_assert_int_eq(R(&f, 0, 0)->fatigue_penalty_added,
                     heavy_cases[_i].is_heavy);
    ck_assert(R(&f, 0, 0)->defeat_penalty_added == 0 &&
              R(&f, 1, 0)->defeat_penalty_added == 1);
    fx_cleanup(&f);
}
END_TEST

/* Step 8 with eliminate_below -1.  Side 0: A and B at -1 (a defeat
 * penalty each) roll 1 and 5: scores 1 (from 0) and 4.  Side 1: C 3, D 2.
 * B4-C3: C falls to -1, not below -1: stays.  A1-D2: A falls to -2: out. */
START_TEST(test_eliminate_below)
{
    static const int dice[] = {1, 5, 3, 2};
    fixture f;

    fx_init(&f);
    f.in.options.eliminate_below = -1;
    fx_add(&f, 0, 2, 0);
    f.units[0][0].defeat_penalty = f.units[0][1].defeat_penalty = 1;
    fx_add(&f, 1, 2, 0);
    FX_RUN(&f, dice);
    ck_assert(R(&f, 0, 0)->score == 1 && R(&f, 0, 1)->score == 4);
    ck_assert(R(&f, 0, 0)->modifier_after == -2 &&
              R(&f, 0, 0)->eliminated == SCRUD_ELIM_THRESHOLD);
    ck_assert_int_eq(R(&f, 0, 1)->eliminated, SCRUD_ELIM_NONE);
    ck_assert(R(&f, 1, 0)->modifier_after == -1 &&
              R(&f, 1, 0)->eliminated == SCRUD_ELIM_NONE);
    ck_assert(f.out.n_eliminated[0] == 1 && f.out.eliminated[0][0] == 0 &&
              f.out.n_eliminated[1] == 0);
    fx_cleanup(&f);
}
END_TEST

/* Step 9.  Side 0 rolls 5 1 3 1 2 4 against six 6s: six defeats, all at
 * -1 after.  Order of choice: score 1 twice (equal naturals: U3, listed
 * last, then U1), then U4 (2), U2 (3), U5 (4), U0 (5).  Per 3 (default):
 * two; per 2: three; per 1: all six; per 7 or 0 (off): none. */
static const struct {
    int per;
    size_t n;
    int order[6];
} per_cases[] = {{3, 2, {3, 1}}, {2, 3, {3, 1, 4}}, {1, 6, {3, 1, 4, 2, 5, 0}},
                 {7, 0, {0}}, {0, 0, {0}}};

START_TEST(test_defeats_per_elimination)
{
    static const int dice[] = {5, 1, 3, 1, 2, 4, 6, 6, 6, 6, 6, 6};
    fixture f;
    size_t k;

    fx_init(&f);
    f.in.options.defeats_per_elimination = per_cases[_i].per;
    fx_add(&f, 0, 6, 0);
    fx_add(&f, 1, 6, 0);
    FX_RUN(&f, dice);
    ck_assert_int_eq(f.out.defeats[0], 6);
    ck_assert_uint_eq(f.out.n_eliminated[0], per_cases[_i].n);
    for (k = 0; k < per_cases[_i].n; k++) {
        ck_assert_int_eq(f.out.eliminated[0][k], per_cases[_i].order[k]);
        ck_assert_int_eq(R(&f, 0, per_cases[_i].order[k])->eliminated,
                         SCRUD_ELIM_THREE_DEFEATS);
    }
    ck_assert_uint_eq(f.out.n_eliminated[1], 0);
    fx_cleanup(&f);
}
END_TEST

/* Step 9's tie-breaks: A and B against three 6s take three defeats (two
 * pairs, the extra 6 on the lowest-placed): one elimination.
 * modifier: A (-1) 5 -> 4, after -2; B (+1) 1 -> 2, after 0: A, though B
 *   scored less.  score: A 2, B 4, both -1 after: A.
 * natural: A 1 + 1 (combat modifier) = 2, B 2: A.
 * all equal: B, listed last. */
static const struct {
    int a_quality, a_modifier, a_natural, b_quality, b_natural, pick;
} tie_cases[] = {{-1, 0, 5, 1, 1, 0}, {0, 0, 2, 0, 4, 0}, {0, 1, 1, 0, 2, 0},
                 {0, 0, 2, 0, 2, 1}};

START_TEST(test_three_defeats_tie_breaks)
{
    int dice[] = {tie_cases[_i].a_natural, tie_cases[_i].b_natural, 6, 6, 6};
    fixture f;

    fx_init(&f);
    fx_add(&f, 0, 1, tie_cases[_i].a_quality)->modifier =
        tie_cases[_i].a_modifier;
    fx_add(&f, 0, 1, tie_cases[_i].b_quality);
    fx_add(&f, 1, 3, 0);
    FX_RUN(&f, dice);
    ck_assert(f.out.defeats[0] == 3 && f.out.n_eliminated[0] == 1);
    ck_assert_int_eq(f.out.eliminated[0][0], tie_cases[_i].pick);
    ck_assert_int_eq(R(&f, 0, tie_cases[_i].pick)->eliminated,
                     SCRUD_ELIM_THREE_DEFEATS);
    fx_cleanup(&f);
}
END_TEST

/* Step 9 eliminates at most the survivors: two 1s against six 6s take two
 * pair defeats and four extra ones (all on U1, placed last); at one per
 * defeat six eliminations are due, but only two units fought. */
START_TEST(test_three_defeats_capped)
{
    static const int dice[] = {1, 1, 6, 6, 6, 6, 6, 6};
    fixture f;

    fx_init(&f);
    f.in.options.defeats_per_elimination = 1;
    fx_add(&f, 0, 2, 0);
    fx_add(&f, 1, 6, 0);
    FX_RUN(&f, dice);
    ck_assert(f.out.defeats[0] == 6 && R(&f, 0, 1)->defeats == 5);
    ck_assert_uint_eq(f.out.n_eliminated[0], 2);
    fx_cleanup(&f);
}
END_TEST

/* Step 3: U0 (+1) 3 -> 4, U1 4, U2 4, U3 5.  Score first (U3), then
 * natural (U1 and U2 before U0), then listed order (U1 before U2). */
START_TEST(test_line_up_ties)
{
    static const int dice[] = {3, 4, 4, 5, 1};
    static const int want[] = {3, 1, 2, 0};
    fixture f;
    int k;

    fx_init(&f);
    fx_add(&f, 0, 1, 1);
    fx_add(&f, 0, 3, 0);
    fx_add(&f, 1, 1, 0);
    FX_RUN(&f, dice);
    ck_assert_uint_eq(f.out.n_line_up[0], 4);
    for (k = 0; k < 4; k++)
        ck_assert(f.out.line_up[0][k] == want[k] &&
                  R(&f, 0, want[k])->rank == k);
    fx_cleanup(&f);
}
END_TEST

/* Reserves.  Side 0: A (+2) 4 -> 6, B 5, C 1, reserves R1 2 and R2 6.
 * First line-up A, B, C; R1 adds +1 to A, B; R2 to all three (there are
 * only three): A 8 capped 6, B 7 capped 6, C 2.  Re-lined up: B (6,
 * natural 5), A (6, natural 4), C.  Side 1: D 6, E 1, F 3, G 5, H 4 line
 * up D G H F E.  B-D tie, A-G first, C-H second; extra F 3 > C's 2
 * defeats C, E is ignored.  A and B score 6: fatigue; C a defeat penalty.
 * R2's 6 costs nothing: reserves neither fight nor tire. */
START_TEST(test_reserves)
{
    static const int dice[] = {4, 5, 1, 2, 6, 6, 1, 3, 5, 4};
    fixture f;
    int k;

    fx_init(&f);
    fx_add(&f, 0, 1, 2);
    fx_add(&f, 0, 4, 0);
    f.units[0][3].is_reserve = f.units[0][4].is_reserve = true;
    fx_add(&f, 1, 5, 0);
    FX_RUN(&f, dice);
    ck_assert(R(&f, 0, 0)->reserve_bonus == 2 &&
              R(&f, 0, 1)->reserve_bonus == 2 &&
              R(&f, 0, 2)->reserve_bonus == 1);
    ck_assert(R(&f, 0, 0)->score == 6 && R(&f, 0, 1)->score == 6 &&
              R(&f, 0, 2)->score == 2);
    ck_assert(f.out.n_line_up[0] == 3 && f.out.line_up[0][0] == 1 &&
              f.out.line_up[0][1] == 0 && f.out.line_up[0][2] == 2);
    ck_assert(f.out.pairs[0].winner == SCRUD_TIE &&
              f.out.pairs[1].winner == SCRUD_FIRST &&
              f.out.pairs[2].winner == SCRUD_SECOND);
    ck_assert(f.out.n_extra == 2 && f.out.extra[0].unit == 2 &&
              f.out.extra[0].target == 2 && f.out.extra[1].target == -1);
    ck_assert(f.out.defeats[0] == 2 && f.out.defeats[1] == 1);
    ck_assert(R(&f, 0, 0)->fatigue_penalty_added == 1 &&
              R(&f, 0, 1)->fatigue_penalty_added == 1 &&
              R(&f, 0, 2)->defeat_penalty_added == 1);
    for (k = 3; k < 5; k++) {
        const scrud_unit_result *r = R(&f, 0, k);
        ck_assert(r->rank == -1 && r->defeats == 0 && r->score == r->natural);
        ck_assert(!r->is_heavy_fighting && r->defeat_penalty_added == 0 &&
                  r->fatigue_penalty_added == 0 && r->modifier_after == 0);
        ck_assert_int_eq(r->eliminated, SCRUD_ELIM_NONE);
    }
    fx_cleanup(&f);
}
END_TEST

/* Reserves are never eliminated.  A 1 (+1 from reserve R's 3: score 2)
 * against four 6s: one pair defeat, three extra ones; at one elimination
 * per defeat A goes and nobody else can: R, at -2 already, is unchanged. */
START_TEST(test_reserve_never_eliminated)
{
    static const int dice[] = {1, 3, 6, 6, 6, 6};
    fixture f;
    scrud_unit *r;

    fx_init(&f);
    f.in.options.defeats_per_elimination = 1;
    fx_add(&f, 0, 1, 0);
    r = fx_add(&f, 0, 1, -1);
    r->is_reserve = true;
    r->defeat_penalty = 1;
    fx_add(&f, 1, 4, 0);
    FX_RUN(&f, dice);
    ck_assert(R(&f, 0, 0)->reserve_bonus == 1 && R(&f, 0, 0)->score == 2);
    ck_assert(f.out.defeats[0] == 4 && f.out.n_eliminated[0] == 1 &&
              f.out.eliminated[0][0] == 0);
    ck_assert(R(&f, 0, 1)->eliminated == SCRUD_ELIM_NONE &&
              R(&f, 0, 1)->defeat_penalty == 1 &&
              R(&f, 0, 1)->modifier_after == -2);
    fx_cleanup(&f);
}
END_TEST

/* Step 2's modifiers.  Side 0 +1: A (+1, a defeat penalty, -2 this
 * combat) 4 -> 4 + 0 + 1 - 2 = 3; B (fatigue 1, +1 this combat) 2 ->
 * 2 - 1 + 1 + 1 = 3.  Side 1 -1: C 6 -> 5.  A (natural 4) lines up first
 * and loses to C; B's extra 3 does not beat 5.  After: A 1 - 2 = -1; the
 * side and combat modifiers are gone. */
START_TEST(test_modifiers)
{
    static const int dice[] = {4, 2, 6};
    fixture f;
    scrud_unit *a;

    fx_init(&f);
    f.in.sides[0].modifier = 1;
    f.in.sides[1].modifier = -1;
    a = fx_add(&f, 0, 1, 1);
    a->defeat_penalty = 1;
    a->modifier = -2;
    fx_add(&f, 0, 1, 0)->fatigue_penalty = 1;
    f.units[0][1].modifier = 1;
    fx_add(&f, 1, 1, 0);
    FX_RUN(&f, dice);
    ck_assert(R(&f, 0, 0)->modifier_before == 0 && R(&f, 0, 0)->score == 3);
    ck_assert(R(&f, 0, 1)->modifier_before == -1 && R(&f, 0, 1)->score == 3);
    ck_assert_int_eq(R(&f, 1, 0)->score, 5);
    ck_assert(f.out.pairs[0].unit[0] == 0 &&
              f.out.pairs[0].winner == SCRUD_SECOND);
    ck_assert_int_eq(f.out.extra[0].target, -1);
    ck_assert_int_eq(R(&f, 0, 0)->modifier_after, -1);
    fx_cleanup(&f);
}
END_TEST

/* Die faces per unit, cap = faces.  X d10 (+1) 10 -> 10 (11 capped), Y d6
 * (+1) 6 -> 6 (7 capped); Z d10 7, W d6 6.  X beats Z 10-7, Y ties W.
 * Z's 7 is above 6 but not a d10's faces: no heavy fighting. */
START_TEST(test_faces_per_unit)
{
    static const int dice[] = {10, 6, 7, 6};
    fixture f;

    fx_init(&f);
    fx_add(&f, 0, 2, 1)->faces = 10;
    fx_add(&f, 1, 2, 0)->faces = 10;
    FX_RUN(&f, dice);
    ck_assert(R(&f, 0, 0)->score == 10 && R(&f, 0, 1)->score == 6);
    ck_assert(R(&f, 1, 0)->score == 7 && R(&f, 1, 1)->score == 6);
    ck_assert(f.out.pairs[0].winner == SCRUD_FIRST &&
              f.out.pairs[1].winner == SCRUD_TIE);
    ck_assert(R(&f, 0, 0)->is_heavy_fighting && R(&f, 1, 1)->is_heavy_fighting);
    ck_assert(!R(&f, 1, 0)->is_heavy_fighting);
    ck_assert(f.dice.log[0].faces == 10 && f.dice.log[3].faces == 6);
    fx_cleanup(&f);
}
END_TEST

/* ---- part 3: refusals ---- */

/* Three fresh units a side, then the one thing wrong of refusal_cases[i]. */
static void refusal_setup(fixture *f, int i)
{
    scrud_unit *a = f->units[0], *b = f->units[1];

    switch (i) {
    case 0: b[2].is_eliminated = true; break;
    case 1: a[1].quality = -1; a[1].defeat_penalty = 1;
        a[1].fatigue_penalty = 1; break;
    case 2: f->in.options.eliminate_below = 0; b[0].quality = -1; break;
    case 3: a[2].is_reserve = true; a[2].quality = -3; break;
    case 4: f->in.sides[1].n_units = 0; break;
    case 5: a[0].is_reserve = a[1].is_reserve = a[2].is_reserve = true; break;
    case 6: fx_add(f, 0, SCRUD_MAX_UNITS_PER_SIDE - 2, 0); break;
    case 7: a[1].faces = 1; break;
    case 8: b[2].faces = 1001; break;
    case 9: a[0].defeat_penalty = -1; break;
    case 10: b[1].fatigue_penalty = -1; break;
    case 11: f->in.options.defeats_per_elimination = -1; break;
    }
}

static const struct {
    err_code code;
    const char *field;
} refusal_cases[] = {
    {ERR_RULE, "sides[1].units[2]"},  /* eliminated */
    {ERR_RULE, "sides[0].units[1]"},  /* -1 - 1 - 1 = -3 < -2 */
    {ERR_RULE, "sides[1].units[0]"},  /* -1 < a custom 0 */
    {ERR_RULE, "sides[0].units[2]"},  /* a reserve at -3 */
    {ERR_INVALID, "sides[1].units"},  /* no units */
    {ERR_RULE, "sides[0].units"},     /* only reserves */
    {ERR_LIMIT, "sides[0].units"},    /* 101 units */
    {ERR_RANGE, "sides[0].units[1].faces"},
    {ERR_RANGE, "sides[1].units[2].faces"},
    {ERR_RANGE, "sides[0].units[0].defeat_penalty"},
    {ERR_RANGE, "sides[1].units[1].fatigue_penalty"},
    {ERR_RANGE, "options.defeats_per_elimination"},
};

/* Refused by validate and resolve alike, with the exact field, before any
 * die is drawn. */
START_TEST(test_refusals)
{
    static int dice[2 * (SCRUD_MAX_UNITS_PER_SIDE + 1)];
    fixture f;
    err_code rc;
    size_t k;

    for (k = 0; k < N_ELEMS(dice); k++)
        dice[k] = 1;
    fx_init(&f);
    fx_add(&f, 0, 3, 0);
    fx_add(&f, 1, 3, 0);
    refusal_setup(&f, _i);
    rc = scrud_validate(&f.in, &f.e);
    ck_assert_msg(rc == refusal_cases[_i].code, "validate: %s (%s)",
                  err_code_name(rc), f.e.message);
    ck_assert_str_eq(f.e.field, refusal_cases[_i].field);
    err_clear(&f.e);
    dice_init_values(&f.dice, DICE_ENTERED, dice, N_ELEMS(dice));
    ck_assert_int_eq(scrud_resolve(&f.in, &f.dice, &f.out, &f.e),
                     refusal_cases[_i].code);
    ck_assert_str_eq(f.e.field, refusal_cases[_i].field);
    ck_assert_uint_eq(f.dice.n_log, 0);
    fx_cleanup(&f);
}
END_TEST

/* The limits themselves are accepted: 100 units, a d2 and a d1000. */
START_TEST(test_limits_accepted)
{
    static int dice[SCRUD_MAX_UNITS_PER_SIDE + 1];
    fixture f;
    size_t k;

    for (k = 0; k < N_ELEMS(dice); k++)
        dice[k] = 2;
    fx_init(&f);
    fx_add(&f, 0, SCRUD_MAX_UNITS_PER_SIDE, 0)->faces = 2;
    f.units[0][1].faces = 1000;
    fx_add(&f, 1, 1, 0);
    FX_RUN(&f, dice);
    ck_assert_uint_eq(f.out.n_extra, SCRUD_MAX_UNITS_PER_SIDE - 1);
    fx_cleanup(&f);
}
END_TEST

/* Entered dice: 1v1 takes exactly two.  One is too few (ERR_DICE from
 * resolve), three too many (ERR_DICE from dice_check_all_used), and a 7
 * does not fit a d6. */
START_TEST(test_entered_dice_count)
{
    static const int dice[] = {3, 4, 5}, seven[] = {7, 4};
    fixture f;

    fx_init(&f);
    fx_add(&f, 0, 1, 0);
    fx_add(&f, 1, 1, 0);
    dice_init_values(&f.dice, DICE_ENTERED, dice, 1);
    ck_assert_int_eq(scrud_resolve(&f.in, &f.dice, &f.out, &f.e), ERR_DICE);
    ck_assert_str_eq(f.e.field, "dice");
    fx_cleanup(&f);
    err_clear(&f.e);
    dice_init_values(&f.dice, DICE_ENTERED, dice, 3);
    ck_assert_int_eq(scrud_resolve(&f.in, &f.dice, &f.out, &f.e), ERR_OK);
    ck_assert_int_eq(dice_check_all_used(&f.dice, &f.e), ERR_DICE);
    ck_assert_str_eq(f.e.field, "dice");
    fx_cleanup(&f);
    err_clear(&f.e);
    dice_init_values(&f.dice, DICE_ENTERED, seven, 2);
    ck_assert_int_eq(scrud_resolve(&f.in, &f.dice, &f.out, &f.e), ERR_DICE);
    fx_cleanup(&f);
}
END_TEST

/* ---- part 4: properties over seeded combats ---- */

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
static void random_combat(fixture *f, uint64_t n)
{
    static const int faces[] = {4, 6, 6, 6, 8, 10};
    static const uint8_t client[] = "test_scrud";
    uint8_t seed[RNG_SEED_LEN] = {0};
    scrud_options *o = &f->in.options;
    uint64_t x = n;
    int s, i, n_units;

    fx_init(f);
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
            scrud_unit *u = fx_add(f, s, 1, pick(&x, -1, 1));
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

/* Step 2 restated: the score a front-line unit must have. */
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
static void check_side(const fixture *f, int s)
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
    fixture f;
    uint64_t n;
    size_t n0, n1;

    for (n = 0; n < N_PROPERTY_COMBATS; n++) {
        random_combat(&f, n);
        ck_assert_int_eq(scrud_resolve(&f.in, &f.dice, &f.out, &f.e), ERR_OK);
        ck_assert_int_eq(dice_check_all_used(&f.dice, &f.e), ERR_OK);
        check_log(&f.in, &f.dice, &f.out);
        n0 = f.out.n_line_up[0];
        n1 = f.out.n_line_up[1];
        ck_assert_uint_eq(f.out.n_pairs, n0 < n1 ? n0 : n1);
        ck_assert_uint_eq(f.out.n_extra, n0 > n1 ? n0 - n1 : n1 - n0);
        check_side(&f, 0);
        check_side(&f, 1);
        fx_cleanup(&f);
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
static size_t flatten(const fixture *f, int *v)
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
    const combat_system *sys = registry_find("scrud");
    fixture f, g;
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
        fx_cleanup(&f);
    }
}
END_TEST

#define LOOP(tc, fn, cases) tcase_add_loop_test(tc, fn, 0, (int)N_ELEMS(cases))

Suite *suite_scrud(void)
{
    Suite *s = suite_create("scrud");
    TCase *vec = tcase_create("vectors"), *rules = tcase_create("rules");
    TCase *refuse = tcase_create("refusals");
    TCase *prop = tcase_create("properties");

    tcase_add_test(vec, test_vector_tannenberg);
    tcase_add_test(vec, test_vector_blog);
    tcase_add_test(rules, test_defaults);
    LOOP(rules, test_cap_and_floor, clamp_cases);
    tcase_add_loop_test(rules, test_extra_dice, 0, 2);
    LOOP(rules, test_extra_half, half_cases);
    LOOP(rules, test_attrition, penalty_cases);
    LOOP(rules, test_heavy_fighting, heavy_cases);
    tcase_add_test(rules, test_eliminate_below);
    LOOP(rules, test_defeats_per_elimination, per_cases);
    LOOP(rules, test_three_defeats_tie_breaks, tie_cases);
    tcase_add_test(rules, test_three_defeats_capped);
    tcase_add_test(rules, test_line_up_ties);
    tcase_add_test(rules, test_reserves);
    tcase_add_test(rules, test_reserve_never_eliminated);
    tcase_add_test(rules, test_modifiers);
    tcase_add_test(rules, test_faces_per_unit);
    LOOP(refuse, test_refusals, refusal_cases);
    tcase_add_test(refuse, test_limits_accepted);
    tcase_add_test(refuse, test_entered_dice_count);
    tcase_set_timeout(prop, 60);
    tcase_add_test(prop, test_property_invariants);
    tcase_add_test(prop, test_property_registry_determinism);
    suite_add_tcase(s, vec);
    suite_add_tcase(s, rules);
    suite_add_tcase(s, refuse);
    suite_add_tcase(s, prop);
    return s;
}
