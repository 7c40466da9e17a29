/*
 * test_edna.c: tests core/edna.c against the EDNA rules (docs/rules/edna.md,
 * transcribed from ../shared/rules/edna.md).
 *
 * The worked example is loaded as data from
 * $UMPIRE_TEST_VECTORS/edna-example.json (no expected number is copied into
 * C); the procedure's steps and the refusals are checked one at a time on
 * entered dice, roll log included; and thousands of seeded tests are
 * compared with a reference model of steps 1 to 5 and with the registry's
 * descriptor.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <jansson.h>

#include "dice.h"
#include "edna.h"
#include "registry.h"
#include "suites.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* ---- a test run on entered dice ---- */

typedef struct efix {
    edna_input in;
    dice_source d;
    edna_result out;
    err_info e;
} efix;

/* Tests units (borrowed) with options (NULL: the defaults) on the entered
 * values (borrowed); f must be released with efix_cleanup whatever the
 * result. */
static err_code efix_run(efix *f, const edna_unit *units, size_t n_units,
                         const edna_options *o, const int *values,
                         size_t n_values)
{
    memset(f, 0, sizeof *f);
    f->in.units = units;
    f->in.n_units = n_units;
    if (o != NULL)
        f->in.options = *o;
    else
        edna_options_default(&f->in.options);
    dice_init_values(&f->d, DICE_ENTERED, values, n_values);
    return edna_resolve(&f->in, &f->d, &f->out, &f->e);
}

static void efix_cleanup(efix *f)
{
    edna_result_cleanup(&f->out);
    dice_cleanup(&f->d);
}

/* Row i of the roll log is a die of unit, drawn for an EDNA test. */
static void check_row(const dice_source *d, size_t i, int faces, int natural,
                      int unit)
{
    const dice_roll *row;

    ck_assert_uint_lt(i, d->n_log);
    row = &d->log[i];
    ck_assert_int_eq(row->faces, faces);
    ck_assert_int_eq(row->natural, natural);
    ck_assert_int_eq(row->modified, natural);
    ck_assert_int_eq(row->side, 0);
    ck_assert_int_eq(row->unit, unit);
    ck_assert_str_eq(row->reason, "edna.test");
}

/* Steps 1 to 5 restated for unit i, from its dice in the log, which
 * must start at row first. */
static void check_unit(const edna_input *in, const dice_source *d,
                       const edna_result_unit *r, size_t i, size_t first)
{
    const edna_unit *u = &in->units[i];
    int sum = 0, k, before = u->edna, excess;

    ck_assert_uint_eq(r->first_roll, first);
    for (k = 0; k < in->options.dice; k++) {
        const dice_roll *row = &d->log[r->first_roll + (size_t)k];
        ck_assert(row->natural >= 1 && row->natural <= in->options.faces);
        check_row(d, r->first_roll + (size_t)k, in->options.faces, row->natural,
                  (int)i);
        sum += row->natural;
    }
    ck_assert_int_eq(r->total, sum + u->modifier);
    ck_assert_int_eq(r->edna_before, before);
    ck_assert_int_le(r->edna_after, r->edna_before); /* never rises */
    ck_assert_int_ge(r->edna_after, 0);
    excess = r->total > before ? r->total - before : 0;
    ck_assert_int_eq(r->edna_after, before - excess > 0 ? before - excess : 0);
    ck_assert_int_eq(r->is_passed, r->total <= before);
    ck_assert_int_eq(r->is_ineffective, r->edna_after == 0);
}

/* ---- the worked example, from tests/vectors ---- */

#define VEC_MAX_DICE 16

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

static bool jbool(const json_t *j, const char *what)
{
    ck_assert_msg(json_is_boolean(j), "%s: not a boolean", what);
    return json_is_true(j);
}

/* The vector's options over the defaults (a missing field keeps its
 * default, as the rules' "Inputs" section has it). */
static void vector_options(const json_t *root, edna_options *o)
{
    const json_t *opts = json_object_get(root, "options");

    edna_options_default(o);
    if (opts == NULL)
        return;
    ck_assert(json_is_object(opts));
    if (json_object_get(opts, "dice"))
        o->dice = jint(json_object_get(opts, "dice"), "options.dice");
    if (json_object_get(opts, "faces"))
        o->faces = jint(json_object_get(opts, "faces"), "options.faces");
}

/* One unit tested again and again: each test's EDNA is the one the
 * previous test left, and every expected field is the vector's. */
START_TEST(test_vector_example)
{
    json_t *root = load_vectors("edna-example.json");
    const json_t *tests = json_object_get(root, "tests");
    const json_t *t;
    edna_options o;
    edna_unit unit = {0, 0};
    size_t i, k;

    vector_options(root, &o);
    unit.edna =
        jint(json_object_get(json_object_get(root, "unit"), "edna_start"),
             "unit.edna_start");
    ck_assert(json_is_array(tests) && json_array_size(tests) > 0);
    json_array_foreach(tests, i, t)
    {
        const json_t *dice = json_object_get(t, "dice");
        const json_t *want = json_object_get(t, "expect");
        const json_t *mod = json_object_get(t, "modifier");
        const edna_result_unit *r;
        int values[VEC_MAX_DICE];
        efix f;

        ck_assert(json_is_array(dice) && json_is_object(want));
        ck_assert_uint_le(json_array_size(dice), VEC_MAX_DICE);
        for (k = 0; k < json_array_size(dice); k++)
            values[k] = jint(json_array_get(dice, k), "tests[].dice[]");
        unit.modifier = mod ? jint(mod, "tests[].modifier") : 0;

        ck_assert_msg(efix_run(&f, &unit, 1, &o, values, k) == ERR_OK,
                      "test %zu: %s: %s", i, f.e.field, f.e.message);
        ck_assert_int_eq(dice_check_all_used(&f.d, NULL), ERR_OK);
        ck_assert_uint_eq(f.out.n_units, 1);
        r = &f.out.units[0];
        ck_assert_int_eq(r->total,
                         jint(json_object_get(want, "total"), "total"));
        ck_assert_int_eq(
            r->edna_before,
            jint(json_object_get(want, "edna_before"), "edna_before"));
        ck_assert_int_eq(r->is_passed,
                         jbool(json_object_get(want, "passed"), "passed"));
        ck_assert_int_eq(
            r->edna_after,
            jint(json_object_get(want, "edna_after"), "edna_after"));
        ck_assert_int_eq(
            r->is_ineffective,
            jbool(json_object_get(want, "ineffective"), "ineffective"));
        for (k = 0; k < f.d.n_log; k++)
            check_row(&f.d, k, o.faces, values[k], 0);
        unit.edna = r->edna_after; /* carried to the next test */
        efix_cleanup(&f);
    }
    json_decref(root);
}
END_TEST

/* ---- the procedure, one step at a time (entered 2d6) ---- */

/* Hand-worked single tests; "step" names the rules' procedure step. */
static const struct {
    int edna, modifier, d1, d2;
    int total, edna_after;
    bool is_passed, is_ineffective;
} steps[] = {
    {8, 0, 2, 1, 3, 8, true, false},   /* step 2: under passes, unchanged */
    {8, 0, 4, 4, 8, 8, true, false},   /* step 3: equal passes, unchanged */
    {8, 0, 5, 4, 9, 7, false, false},  /* step 4: one over takes 1 */
    {8, 0, 6, 6, 12, 4, false, false}, /* step 4: four over takes 4 */
    {5, 0, 5, 5, 10, 0, false, true},  /* step 5: exactly to 0 */
    {3, 0, 6, 6, 12, 0, false, true},  /* step 5: 3 - 9 stops at 0 */
    {1, 0, 1, 1, 2, 0, false, true},   /* EDNA 1 fails even the lowest */
    {8, 2, 3, 3, 8, 8, true, false},   /* step 1: +2 makes 6 an 8 */
    {8, 3, 3, 3, 9, 7, false, false},  /* step 1: +3 makes 6 a 9 */
    {8, -2, 6, 4, 8, 8, true, false},  /* step 1: -2 makes 10 an 8 */
    {8, -1, 6, 4, 9, 7, false, false}, /* step 1: -1 makes 10 a 9 */
    {1, -5, 1, 1, -3, 1, true, false}, /* a negative total passes */
    {100, 100, 6, 6, 112, 88, false, false}, /* the largest values */
    {2, 100, 1, 1, 102, 0, false, true},     /* far over, still 0 */
};

START_TEST(test_step)
{
    const int values[] = {steps[_i].d1, steps[_i].d2};
    edna_unit u = {steps[_i].edna, steps[_i].modifier};
    const edna_result_unit *r;
    efix f;

    ck_assert_int_eq(efix_run(&f, &u, 1, NULL, values, 2), ERR_OK);
    ck_assert_int_eq(dice_check_all_used(&f.d, NULL), ERR_OK);
    ck_assert_uint_eq(f.out.n_units, 1);
    r = &f.out.units[0];
    ck_assert_uint_eq(r->first_roll, 0);
    ck_assert_int_eq(r->total, steps[_i].total);
    ck_assert_int_eq(r->edna_before, steps[_i].edna);
    ck_assert_int_eq(r->edna_after, steps[_i].edna_after);
    ck_assert_int_eq(r->is_passed, steps[_i].is_passed);
    ck_assert_int_eq(r->is_ineffective, steps[_i].is_ineffective);
    ck_assert_uint_eq(f.d.n_log, 2);
    check_row(&f.d, 0, 6, values[0], 0);
    check_row(&f.d, 1, 6, values[1], 0);
    ck_assert_int_eq(u.edna, steps[_i].edna); /* the input is not touched */
    efix_cleanup(&f);
}
END_TEST

/* FULL METAL EDNA's defaults ("Campaign settings and the 2d8 variant"):
 * every unit starts at 8 and tests with 2d6. */
START_TEST(test_defaults)
{
    edna_options o;

    edna_options_default(&o);
    ck_assert_int_eq(o.dice, 2);
    ck_assert_int_eq(o.faces, 6);
    ck_assert_int_eq(EDNA_START_DEFAULT, 8);
    ck_assert_int_le(EDNA_START_DEFAULT, EDNA_MAX);
}
END_TEST

/* The 2d8 variant rolls two d8: an 8 fits, exactly two dice are drawn. */
START_TEST(test_2d8)
{
    const edna_options o = {2, 8};
    const int values[] = {8, 7, 1};
    edna_unit u = {10, 0};
    efix f;

    ck_assert_int_eq(efix_run(&f, &u, 1, &o, values, 3), ERR_OK);
    ck_assert_int_eq(f.out.units[0].total, 15);
    ck_assert_int_eq(f.out.units[0].edna_after, 5);
    ck_assert(!f.out.units[0].is_passed);
    ck_assert_uint_eq(f.d.n_log, 2);
    check_row(&f.d, 0, 8, 8, 0);
    check_row(&f.d, 1, 8, 7, 0);
    ck_assert_int_eq(dice_check_all_used(&f.d, NULL), ERR_DICE);
    efix_cleanup(&f);

    /* The same 8 on the default d6 is refused: the faces did matter. */
    ck_assert_int_eq(efix_run(&f, &u, 1, NULL, values, 3), ERR_DICE);
    ck_assert_str_eq(f.e.field, "dice");
    efix_cleanup(&f);
}
END_TEST

START_TEST(test_3_dice)
{
    const edna_options o = {3, 6};
    const int values[] = {6, 5, 4};
    edna_unit u = {12, 0};
    efix f;
    size_t k;

    ck_assert_int_eq(efix_run(&f, &u, 1, &o, values, 3), ERR_OK);
    ck_assert_int_eq(dice_check_all_used(&f.d, NULL), ERR_OK);
    ck_assert_int_eq(f.out.units[0].total, 15);
    ck_assert_int_eq(f.out.units[0].edna_after, 9);
    ck_assert_uint_eq(f.d.n_log, 3);
    for (k = 0; k < 3; k++)
        check_row(&f.d, k, 6, values[k], 0);
    efix_cleanup(&f);
}
END_TEST

/* A volley: each unit's dice together, in listed order, its own modifier
 * and its own EDNA. */
START_TEST(test_volley)
{
    const edna_unit units[] = {{8, 0}, {5, 1}, {3, -1}, {6, 0}};
    const int values[] = {1, 2, 3, 4, 6, 6, 5, 1};
    static const struct {
        int total, edna_after;
        bool is_passed, is_ineffective;
    } want[] = {
        {3, 8, true, false},  /* 1 + 2 under 8 */
        {8, 2, false, false}, /* 3 + 4 + 1 is 3 over 5 */
        {11, 0, false, true}, /* 6 + 6 - 1 is 8 over 3 */
        {6, 6, true, false},  /* 5 + 1 equals 6 */
    };
    efix f;
    size_t i;

    ck_assert_int_eq(efix_run(&f, units, 4, NULL, values, 8), ERR_OK);
    ck_assert_int_eq(dice_check_all_used(&f.d, NULL), ERR_OK);
    ck_assert_uint_eq(f.out.n_units, 4);
    ck_assert_uint_eq(f.d.n_log, 8);
    for (i = 0; i < 4; i++) {
        const edna_result_unit *r = &f.out.units[i];
        ck_assert_uint_eq(r->first_roll, 2 * i);
        ck_assert_int_eq(r->edna_before, units[i].edna);
        ck_assert_int_eq(r->total, want[i].total);
        ck_assert_int_eq(r->edna_after, want[i].edna_after);
        ck_assert_int_eq(r->is_passed, want[i].is_passed);
        ck_assert_int_eq(r->is_ineffective, want[i].is_ineffective);
        check_row(&f.d, 2 * i, 6, values[2 * i], (int)i);
        check_row(&f.d, 2 * i + 1, 6, values[2 * i + 1], (int)i);
    }
    efix_cleanup(&f);
}
END_TEST

/* ---- refusals ---- */

static edna_unit many[EDNA_MAX_UNITS + 1];

/* Each case spoils one thing of a valid volley of three units (EDNA 8,
 * 2d6). */
static const struct {
    int dice, faces;
    size_t n_units;
    size_t unit;        /* the unit spoiled, if any */
    int edna, modifier; /* its values */
    err_code code;
    const char *field;
} refusals[] = {
    {2, 6, 3, 0, 0, 0, ERR_RULE, "units[0]"},
    {2, 6, 3, 2, 0, 0, ERR_RULE, "units[2]"},
    {2, 6, 3, 1, -1, 0, ERR_RANGE, "units[1].edna"},
    {2, 6, 3, 2, 101, 0, ERR_RANGE, "units[2].edna"},
    {2, 6, 3, 0, 8, 101, ERR_RANGE, "units[0].modifier"},
    {2, 6, 3, 1, 8, -101, ERR_RANGE, "units[1].modifier"},
    {0, 6, 3, 0, 8, 0, ERR_RANGE, "options.dice"},
    {11, 6, 3, 0, 8, 0, ERR_RANGE, "options.dice"},
    {-1, 6, 3, 0, 8, 0, ERR_RANGE, "options.dice"},
    {2, 1, 3, 0, 8, 0, ERR_RANGE, "options.faces"},
    {2, 1001, 3, 0, 8, 0, ERR_RANGE, "options.faces"},
    {2, 6, 0, 0, 8, 0, ERR_RANGE, "units"},
    {2, 6, EDNA_MAX_UNITS + 1, 0, 8, 0, ERR_LIMIT, "units"},
};

/* Refused by edna_validate and edna_resolve alike, with the exact field,
 * before any die is drawn and with nothing to release. */
START_TEST(test_refusal)
{
    const edna_options o = {refusals[_i].dice, refusals[_i].faces};
    static int values[2 * (EDNA_MAX_UNITS + 1)];
    edna_input in;
    err_info e;
    efix f;
    size_t i;

    for (i = 0; i < N_ELEMS(many); i++)
        many[i] = (edna_unit){8, 0};
    for (i = 0; i < N_ELEMS(values); i++)
        values[i] = 1;
    many[refusals[_i].unit].edna = refusals[_i].edna;
    many[refusals[_i].unit].modifier = refusals[_i].modifier;

    in = (edna_input){many, refusals[_i].n_units, o};
    err_clear(&e);
    ck_assert_int_eq(edna_validate(&in, &e), refusals[_i].code);
    ck_assert_int_eq(e.code, refusals[_i].code);
    ck_assert_str_eq(e.field, refusals[_i].field);
    ck_assert_int_eq(edna_validate(&in, NULL), refusals[_i].code);

    ck_assert_int_eq(
        efix_run(&f, many, refusals[_i].n_units, &o, values, N_ELEMS(values)),
        refusals[_i].code);
    ck_assert_str_eq(f.e.field, refusals[_i].field);
    ck_assert_uint_eq(f.d.n_log, 0);
    ck_assert_uint_eq(f.d.next_value, 0);
    ck_assert_ptr_null(f.out.units);
    ck_assert_uint_eq(f.out.n_units, 0);
    efix_cleanup(&f);
}
END_TEST

/* The edges of every range are accepted. */
START_TEST(test_edges_accepted)
{
    static const uint8_t seed[RNG_SEED_LEN] = {1, 2, 3};
    edna_options o = {2, 6};
    edna_input in;
    edna_result out;
    dice_source d;
    size_t i;

    for (i = 0; i < EDNA_MAX_UNITS; i++)
        many[i] = (edna_unit){(int)(i % EDNA_MAX) + 1, (int)i % 3 - 1};
    many[0] = (edna_unit){EDNA_MAX, EDNA_MODIFIER_LIMIT};
    many[1] = (edna_unit){1, -EDNA_MODIFIER_LIMIT};
    in = (edna_input){many, EDNA_MAX_UNITS, o};
    ck_assert_int_eq(edna_validate(&in, NULL), ERR_OK);
    in.options = (edna_options){1, 2};
    ck_assert_int_eq(edna_validate(&in, NULL), ERR_OK);
    in.options = (edna_options){EDNA_MAX_DICE, RNG_FACES_MAX};
    ck_assert_int_eq(edna_validate(&in, NULL), ERR_OK);
    /* And resolved: every unit rolls its ten d1000. */
    dice_init_seeded(&d, seed, NULL, 0);
    ck_assert_int_eq(edna_resolve(&in, &d, &out, NULL), ERR_OK);
    ck_assert_uint_eq(out.n_units, EDNA_MAX_UNITS);
    ck_assert_uint_eq(d.n_log, EDNA_MAX_UNITS * EDNA_MAX_DICE);
    for (i = 0; i < EDNA_MAX_UNITS; i++)
        check_unit(&in, &d, &out.units[i], i, i * EDNA_MAX_DICE);
    edna_result_cleanup(&out);
    dice_cleanup(&d);
}
END_TEST

/* Too few entered dice: ERR_DICE on the die that is missing, after the
 * dice that were there; the partial result is still released. */
START_TEST(test_too_few_dice)
{
    const edna_unit units[] = {{8, 0}, {8, 0}};
    const int values[] = {2, 3, 4};
    efix f;

    ck_assert_int_eq(efix_run(&f, units, 1, NULL, values, 1), ERR_DICE);
    ck_assert_int_eq(f.e.code, ERR_DICE);
    ck_assert_str_eq(f.e.field, "dice");
    ck_assert_uint_eq(f.d.n_log, 1);
    efix_cleanup(&f);

    ck_assert_int_eq(efix_run(&f, units, 2, NULL, values, 3), ERR_DICE);
    ck_assert_str_eq(f.e.field, "dice");
    ck_assert_uint_eq(f.d.n_log, 3);
    check_row(&f.d, 2, 6, 4, 1);
    efix_cleanup(&f);

    ck_assert_int_eq(efix_run(&f, units, 1, NULL, NULL, 0), ERR_DICE);
    ck_assert_uint_eq(f.d.n_log, 0);
    efix_cleanup(&f);
}
END_TEST

/* A unit tested until it is ineffective is then refused. */
START_TEST(test_ineffective_then_refused)
{
    const int values[] = {6, 6, 1, 1};
    edna_unit u = {4, 0};
    efix f;

    ck_assert_int_eq(efix_run(&f, &u, 1, NULL, values, 2), ERR_OK);
    ck_assert(f.out.units[0].is_ineffective);
    u.edna = f.out.units[0].edna_after;
    efix_cleanup(&f);
    ck_assert_int_eq(u.edna, 0);
    ck_assert_int_eq(efix_run(&f, &u, 1, NULL, values + 2, 2), ERR_RULE);
    ck_assert_str_eq(f.e.field, "units[0]");
    ck_assert_uint_eq(f.d.next_value, 0);
    efix_cleanup(&f);
}
END_TEST

/* ---- properties over seeded tests ---- */

#define N_PROPERTY_TESTS 2000
#define PROP_MAX_UNITS   4

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

static void seed_from(uint64_t n, uint8_t seed[RNG_SEED_LEN])
{
    int i;

    memset(seed, 0, RNG_SEED_LEN);
    for (i = 0; i < 8; i++)
        seed[i] = (uint8_t)(n >> (8 * i));
    seed[31] = 0xed;
}

/* Test number n: 1..4 units of EDNA 1..12 and modifier -2..2, 2d6 or
 * 2d8; both sources seeded from n. */
static void random_test(uint64_t n, edna_unit units[PROP_MAX_UNITS],
                        edna_input *in, dice_source *a, dice_source *b)
{
    static const uint8_t client[] = "test_edna";
    uint8_t seed[RNG_SEED_LEN];
    uint64_t x = n;
    size_t i;

    in->units = units;
    in->n_units = (size_t)pick(&x, 1, PROP_MAX_UNITS);
    in->options.dice = 2;
    in->options.faces = pick(&x, 0, 1) ? 8 : 6;
    for (i = 0; i < in->n_units; i++) {
        units[i].edna = pick(&x, 1, 12);
        units[i].modifier = pick(&x, -2, 2);
    }
    seed_from(n, seed);
    dice_init_seeded(a, seed, client, sizeof client - 1);
    dice_init_seeded(b, seed, client, sizeof client - 1);
}

/* Every seeded test keeps the rules, and the registry's descriptor gives
 * the same results and roll log as edna_resolve on the same seed. */
START_TEST(test_property_seeded)
{
    const registry_system *sys = registry_find("edna");
    edna_unit units[PROP_MAX_UNITS];
    int seen_pass = 0, seen_fail = 0, seen_out = 0, seen_d8 = 0;
    uint64_t n;
    size_t i;

    ck_assert_ptr_eq(sys, &edna_system);
    ck_assert_uint_eq(sys->input_size, sizeof(edna_input));
    ck_assert_uint_eq(sys->result_size, sizeof(edna_result));
    for (n = 0; n < N_PROPERTY_TESTS; n++) {
        edna_input in;
        dice_source a, b;
        edna_result ra, rb;
        err_info ea, eb;

        random_test(n, units, &in, &a, &b);
        err_clear(&ea);
        err_clear(&eb);
        ck_assert_int_eq(edna_resolve(&in, &a, &ra, &ea), ERR_OK);
        ck_assert_int_eq(sys->resolve(&in, &b, &rb, &eb), ERR_OK);
        ck_assert_uint_eq(ra.n_units, in.n_units);
        ck_assert_uint_eq(a.n_log, in.n_units * (size_t)in.options.dice);
        for (i = 0; i < in.n_units; i++) {
            const edna_result_unit *r = &ra.units[i];
            check_unit(&in, &a, r, i, i * (size_t)in.options.dice);
            seen_pass += r->is_passed;
            seen_fail += !r->is_passed;
            seen_out += r->is_ineffective;
        }
        seen_d8 += in.options.faces == 8;
        ck_assert_uint_eq(rb.n_units, ra.n_units);
        ck_assert_msg(
            memcmp(ra.units, rb.units, ra.n_units * sizeof *ra.units) == 0,
            "test %d: the registry's result differs", (int)n);
        ck_assert_uint_eq(b.n_log, a.n_log);
        for (i = 0; i < a.n_log; i++)
            check_row(&b, i, a.log[i].faces, a.log[i].natural, a.log[i].unit);
        sys->result_cleanup(&rb);
        edna_result_cleanup(&ra);
        dice_cleanup(&a);
        dice_cleanup(&b);
    }
    /* The draw reached every outcome, so the checks above were exercised. */
    ck_assert_int_gt(seen_pass, 0);
    ck_assert_int_gt(seen_fail, 0);
    ck_assert_int_gt(seen_out, 0);
    ck_assert_int_gt(seen_d8, 0);
}
END_TEST

/* Units tested again and again on one seeded source, EDNA carried: it
 * never rises, and once at 0 the unit is refused without a die drawn. */
START_TEST(test_property_carried)
{
    static const uint8_t client[] = "test_edna.carried";
    uint8_t seed[RNG_SEED_LEN];
    uint64_t n, x;
    int step, n_out = 0;

    for (n = 0; n < N_PROPERTY_TESTS / 10; n++) {
        edna_unit u;
        edna_input in;
        dice_source d;

        x = n ^ 0x5a5a;
        u.edna = pick(&x, 1, 12);
        in = (edna_input){&u, 1, {2, pick(&x, 0, 1) ? 8 : 6}};
        seed_from(n, seed);
        dice_init_seeded(&d, seed, client, sizeof client - 1);
        for (step = 0; step < 50 && u.edna > 0; step++) {
            edna_result r;
            size_t before = d.n_log;

            u.modifier = pick(&x, -2, 2);
            ck_assert_int_eq(edna_resolve(&in, &d, &r, NULL), ERR_OK);
            ck_assert_uint_eq(d.n_log, before + 2);
            check_unit(&in, &d, &r.units[0], 0, before);
            ck_assert_int_le(r.units[0].edna_after, u.edna);
            u.edna = r.units[0].edna_after;
            edna_result_cleanup(&r);
        }
        if (u.edna == 0) {
            edna_result r;
            size_t before = d.n_log;
            n_out++;
            ck_assert_int_eq(edna_resolve(&in, &d, &r, NULL), ERR_RULE);
            ck_assert_uint_eq(d.n_log, before);
            edna_result_cleanup(&r);
        }
        dice_cleanup(&d);
    }
    ck_assert_int_gt(n_out, 0);
}
END_TEST

Suite *suite_edna(void)
{
    Suite *s = suite_create("edna");
    TCase *vec = tcase_create("vectors");
    TCase *rules = tcase_create("rules");
    TCase *refuse = tcase_create("refusals");
    TCase *prop = tcase_create("properties");

    tcase_add_test(vec, test_vector_example);
    suite_add_tcase(s, vec);

    tcase_add_test(rules, test_defaults);
    tcase_add_loop_test(rules, test_step, 0, (int)N_ELEMS(steps));
    tcase_add_test(rules, test_2d8);
    tcase_add_test(rules, test_3_dice);
    tcase_add_test(rules, test_volley);
    suite_add_tcase(s, rules);

    tcase_add_loop_test(refuse, test_refusal, 0, (int)N_ELEMS(refusals));
    tcase_add_test(refuse, test_edges_accepted);
    tcase_add_test(refuse, test_too_few_dice);
    tcase_add_test(refuse, test_ineffective_then_refused);
    suite_add_tcase(s, refuse);

    tcase_set_timeout(prop, 60);
    tcase_add_test(prop, test_property_seeded);
    tcase_add_test(prop, test_property_carried);
    suite_add_tcase(s, prop);
    return s;
}
