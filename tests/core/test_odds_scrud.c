/*
 * test_odds_scrud.c: tests core/odds_scrud.c.  A brute force written
 * here resolves every throw of small combats through scrud_resolve and
 * counts what the odds count; the odds (blocks of identical units taken
 * as multisets) must agree exactly, fraction for fraction, on cases that
 * stress the rules' ties: blocks split by another unit, reserves, mixed
 * dice, eliminations by the threshold and for defeats.  Then the odds'
 * own sampling agrees with the exact odds within its standard errors,
 * and a million seeded combats through scrud_resolve agree with the
 * exact odds of an 8 v 4 combat within 5 standard errors.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <check.h>

#include "odds_scrud.h"
#include "suites.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define MAXU       8

/* ---- the cases ---- */

typedef struct scase {
    const char *name;
    int n[2];
    /* quality, defeat penalty, fatigue penalty, faces, reserve, modifier */
    int u[2][MAXU][6];
    int max_penalty, eliminate_below, per_elimination;
    scrud_extra_rule extra;
    bool has_fixed_cap;
} scase;

static const scase cases[] = {
    {"identical blocks",
     {3, 2},
     {{{0, 0, 0, 6, 0, 0}, {0, 0, 0, 6, 0, 0}, {0, 0, 0, 6, 0, 0}},
      {{1, 0, 0, 6, 0, 0}, {1, 0, 0, 6, 0, 0}}},
     1,
     -2,
     3,
     SCRUD_EXTRA_BEAT_LOWEST,
     false},
    {"a block split by another unit",
     {3, 2},
     {{{0, 0, 0, 6, 0, 0}, {1, 0, 0, 6, 0, 0}, {0, 0, 0, 6, 0, 0}},
      {{0, 0, 0, 6, 0, 0}, {0, 0, 0, 6, 0, 0}}},
     1,
     -2,
     1,
     SCRUD_EXTRA_BEAT_LOWEST,
     false},
    {"reserves and penalties",
     {3, 3},
     {{{1, 0, 0, 6, 0, 0}, {0, 0, 0, 6, 1, 0}, {0, 0, 0, 6, 1, 0}},
      {{0, 0, 0, 6, 0, 0}, {0, 0, 0, 6, 0, 0}, {-1, 1, 0, 6, 0, 1}}},
     1,
     -2,
     3,
     SCRUD_EXTRA_BEAT_LOWEST,
     false},
    {"harsh options, mixed dice",
     {3, 2},
     {{{0, 0, 0, 4, 0, 0}, {0, 0, 0, 4, 0, 0}, {0, 0, 0, 4, 0, 0}},
      {{0, 0, 0, 8, 0, 0}, {1, 1, 0, 8, 0, 0}}},
     2,
     0,
     1,
     SCRUD_EXTRA_HALF,
     false},
    {"a fixed cap and no floor",
     {2, 2},
     {{{-2, 1, 0, 6, 0, 0}, {-2, 1, 0, 6, 0, 0}},
      {{2, 0, 0, 6, 0, 0}, {0, 0, 1, 6, 0, -1}}},
     1,
     -4,
     3,
     SCRUD_EXTRA_IGNORE,
     true},
    {"losses for defeats in blocks",
     {4, 3},
     {{{0, 0, 0, 4, 0, 0},
       {0, 0, 0, 4, 0, 0},
       {0, 0, 0, 4, 0, 0},
       {0, 0, 0, 4, 0, 0}},
      {{1, 0, 0, 4, 0, 0}, {1, 0, 0, 4, 0, 0}, {1, 0, 0, 4, 0, 0}}},
     1,
     -1,
     2,
     SCRUD_EXTRA_BEAT_LOWEST,
     false},
};

typedef struct built {
    scrud_unit units[2][MAXU];
    scrud_input in;
} built;

static void build(const scase *c, built *b)
{
    int s, i;

    memset(b, 0, sizeof *b);
    scrud_options_default(&b->in.options);
    b->in.options.max_penalty_per_combat = c->max_penalty;
    b->in.options.eliminate_below = c->eliminate_below;
    b->in.options.defeats_per_elimination = c->per_elimination;
    b->in.options.extra_dice = c->extra;
    if (c->has_fixed_cap) {
        b->in.options.cap_kind = SCRUD_CAP_FIXED;
        b->in.options.cap = 5;
        b->in.options.has_floor = false;
    }
    for (s = 0; s < 2; s++) {
        for (i = 0; i < c->n[s]; i++) {
            scrud_unit *u = &b->units[s][i];
            scrud_unit_default(u);
            u->quality = c->u[s][i][0];
            u->defeat_penalty = c->u[s][i][1];
            u->fatigue_penalty = c->u[s][i][2];
            u->faces = c->u[s][i][3];
            u->is_reserve = c->u[s][i][4];
            u->modifier = c->u[s][i][5];
        }
        b->in.sides[s].units = b->units[s];
        b->in.sides[s].n_units = (size_t)c->n[s];
    }
}

/* ---- the brute force ---- */

typedef struct brute {
    odds_count total;
    odds_count defeats[2][MAXU + 1], more[3], mean_defeats[2];
    odds_count defeated[2][MAXU], n_defeats[2][MAXU], elim[2][MAXU];
    odds_count thr[2][MAXU], by_def[2][MAXU], dpen[2][MAXU], fpen[2][MAXU];
} brute;

/* Every throw, dice in draw order, through scrud_resolve. */
static void brute_force(const scrud_input *in, brute *b)
{
    int faces[2 * MAXU], v[2 * MAXU], n = 0, s, i, k;

    memset(b, 0, sizeof *b);
    for (s = 0; s < 2; s++)
        for (i = 0; i < (int)in->sides[s].n_units; i++)
            faces[n++] = in->sides[s].units[i].faces;
    for (k = 0; k < n; k++)
        v[k] = 1;
    for (;;) {
        dice_source d;
        scrud_result r;
        dice_init_values(&d, DICE_ENTERED, v, (size_t)n);
        ck_assert_int_eq(scrud_resolve(in, &d, &r, NULL), ERR_OK);
        b->total++;
        b->more[r.defeats[0] > r.defeats[1]   ? 0
                : r.defeats[1] > r.defeats[0] ? 1
                                              : 2]++;
        for (s = 0; s < 2; s++) {
            b->defeats[s][r.defeats[s]]++;
            b->mean_defeats[s] += (odds_count)r.defeats[s];
            for (i = 0; i < (int)in->sides[s].n_units; i++) {
                const scrud_unit_result *u = &r.units[s][i];
                b->defeated[s][i] += u->defeats > 0;
                b->n_defeats[s][i] += (odds_count)u->defeats;
                b->elim[s][i] += u->eliminated != SCRUD_ELIM_NONE;
                b->thr[s][i] += u->eliminated == SCRUD_ELIM_THRESHOLD;
                b->by_def[s][i] += u->eliminated == SCRUD_ELIM_THREE_DEFEATS;
                b->dpen[s][i] += (odds_count)u->defeat_penalty;
                b->fpen[s][i] += (odds_count)u->fatigue_penalty;
            }
        }
        scrud_result_cleanup(&r);
        dice_cleanup(&d);
        for (k = n - 1; k >= 0 && v[k] == faces[k]; k--)
            v[k] = 1;
        if (k < 0)
            break;
        v[k]++;
    }
}

/* The odds' value of a (over the throws) is exactly count / total. */
static void same(const char *what, const odds_acc *a, unsigned share,
                 odds_count total, odds_count count)
{
    odds_value v = odds_value_of(a, total, share, true);

    ck_assert_msg(v.num * total == count * v.den,
                  "%s: the odds say %.9f, the brute force %.9f", what,
                  v.decimal, (double)count / (double)total);
}

START_TEST(test_agrees_with_brute_force)
{
    const scase *c = &cases[_i];
    built b;
    brute f;
    odds_scrud o;
    odds_limits l;
    char w[160];
    int s, i, d;

    build(c, &b);
    brute_force(&b.in, &f);
    odds_limits_default(&l);
    l.method = ODDS_EXACT;
    ck_assert_int_eq(odds_scrud_compute(&b.in, &l, &o, NULL), ERR_OK);
    ck_assert(o.stats.is_exact);
    ck_assert(o.total == f.total);
    for (s = 0; s < 2; s++) {
        for (d = 0; d <= o.max_defeats[s]; d++) {
            snprintf(w, sizeof w, "%s: side %d, %d defeats", c->name, s, d);
            same(w, &o.defeats[s][d], 1, f.total, f.defeats[s][d]);
        }
        same(c->name, &o.mean_defeats[s], 1, f.total, f.mean_defeats[s]);
        for (i = 0; i < c->n[s]; i++) {
            const odds_scrud_unit *u = &o.units[s][i];
            snprintf(w, sizeof w, "%s: unit %d of side %d", c->name, i, s);
            same(w, &u->defeated, 1, f.total, f.defeated[s][i]);
            same(w, &u->defeats, 1, f.total, f.n_defeats[s][i]);
            same(w, &u->eliminated, 1, f.total, f.elim[s][i]);
            same(w, &u->by_threshold, 1, f.total, f.thr[s][i]);
            same(w, &u->by_defeats, 1, f.total, f.by_def[s][i]);
            same(w, &u->defeat_penalty, 1, f.total, f.dpen[s][i]);
            same(w, &u->fatigue_penalty, 1, f.total, f.fpen[s][i]);
        }
    }
    for (d = 0; d < 3; d++)
        same(c->name, &o.more[d], 1, f.total, f.more[d]);
    odds_scrud_cleanup(&o);
}
END_TEST

/* Blocks are what make the odds cheap: identical adjacent units share
 * one, a unit between them splits it. */
START_TEST(test_blocks)
{
    built b;
    odds_scrud o;
    odds_limits l;

    odds_limits_default(&l);
    build(&cases[0], &b);
    ck_assert_int_eq(odds_scrud_compute(&b.in, &l, &o, NULL), ERR_OK);
    ck_assert_uint_eq(o.units[0][0].block, 3);
    ck_assert_uint_eq(o.units[1][1].block, 2);
    ck_assert_uint_eq(o.stats.calls, 56 * 21); /* C(8,3) * C(7,2) */
    odds_scrud_cleanup(&o);
    build(&cases[1], &b);
    ck_assert_int_eq(odds_scrud_compute(&b.in, &l, &o, NULL), ERR_OK);
    ck_assert_uint_eq(o.units[0][0].block, 1);
    ck_assert_uint_eq(o.units[0][2].block, 1);
    ck_assert_uint_eq(o.stats.calls, 216 * 21);
    odds_scrud_cleanup(&o);
}
END_TEST

/* An estimate from n samples and the exact value agree within tol
 * standard errors of n samples of the exact value. */
static void near(const char *what, odds_value est, odds_value exact, double n,
                 double tol)
{
    double sd = sqrt(exact.decimal * (1 - exact.decimal) / n);

    ck_assert_msg(fabs(est.decimal - exact.decimal) <= tol * sd + 1e-12,
                  "%s: sampled %.6f (se %.6f), exact %.6f", what, est.decimal,
                  sd, exact.decimal);
}

START_TEST(test_sampling_agrees)
{
    built b;
    odds_scrud x, m;
    odds_limits l;
    int s, i, d;

    build(&cases[5], &b);
    odds_limits_default(&l);
    ck_assert_int_eq(odds_scrud_compute(&b.in, &l, &x, NULL), ERR_OK);
    l.method = ODDS_SAMPLE;
    l.samples = 20000;
    ck_assert_int_eq(odds_scrud_compute(&b.in, &l, &m, NULL), ERR_OK);
    ck_assert(!m.stats.is_exact);
    ck_assert(m.total == 20000);
    for (s = 0; s < 2; s++) {
        for (d = 0; d <= x.max_defeats[s]; d++)
            near("defeats", odds_value_of(&m.defeats[s][d], m.total, 1, false),
                 odds_value_of(&x.defeats[s][d], x.total, 1, true), 20000, 5);
        for (i = 0; i < (int)b.in.sides[s].n_units; i++)
            near("eliminated",
                 odds_value_of(&m.units[s][i].eliminated, m.total, 1, false),
                 odds_value_of(&x.units[s][i].eliminated, x.total, 1, true),
                 20000, 5);
    }
    odds_scrud_cleanup(&x);
    odds_scrud_cleanup(&m);
}
END_TEST

/* ---- a million combats ---- */

#define N_COMBATS 1000000

START_TEST(test_a_million_combats)
{
    static const uint8_t seed[RNG_SEED_LEN] = {42};
    scrud_unit red[8], blue[4];
    scrud_input in;
    odds_scrud x;
    odds_limits l;
    odds_count defeats[2][9], elim[2][8];
    dice_source d;
    long n;
    int s, i;

    memset(&in, 0, sizeof in);
    memset(defeats, 0, sizeof defeats);
    memset(elim, 0, sizeof elim);
    scrud_options_default(&in.options);
    for (i = 0; i < 8; i++)
        scrud_unit_default(&red[i]);
    for (i = 0; i < 4; i++) {
        scrud_unit_default(&blue[i]);
        blue[i].quality = 1;
    }
    in.sides[0].units = red;
    in.sides[0].n_units = 8;
    in.sides[1].units = blue;
    in.sides[1].n_units = 4;
    odds_limits_default(&l);
    ck_assert_int_eq(odds_scrud_compute(&in, &l, &x, NULL), ERR_OK);
    ck_assert(x.stats.is_exact);
    dice_init_seeded(&d, seed, (const uint8_t *)"million", 7);
    for (n = 0; n < N_COMBATS; n++) {
        scrud_result r;
        ck_assert_int_eq(scrud_resolve(&in, &d, &r, NULL), ERR_OK);
        for (s = 0; s < 2; s++) {
            defeats[s][r.defeats[s]]++;
            for (i = 0; i < (int)in.sides[s].n_units; i++)
                elim[s][i] += r.units[s][i].eliminated != SCRUD_ELIM_NONE;
        }
        scrud_result_cleanup(&r);
        dice_forget_log(&d);
    }
    dice_cleanup(&d);
    for (s = 0; s < 2; s++) {
        for (i = 0; i <= x.max_defeats[s]; i++) {
            odds_acc a = {defeats[s][i], defeats[s][i]};
            near("defeats, a million combats",
                 odds_value_of(&a, N_COMBATS, 1, false),
                 odds_value_of(&x.defeats[s][i], x.total, 1, true), N_COMBATS,
                 5);
        }
        for (i = 0; i < (int)in.sides[s].n_units; i++) {
            odds_acc a = {elim[s][i], elim[s][i]};
            near("eliminated, a million combats",
                 odds_value_of(&a, N_COMBATS, 1, false),
                 odds_value_of(&x.units[s][i].eliminated, x.total, 1, true),
                 N_COMBATS, 5);
        }
    }
    odds_scrud_cleanup(&x);
}
END_TEST

START_TEST(test_refusals)
{
    scrud_unit u[1];
    scrud_input in;
    odds_scrud o;
    err_info e;

    memset(&in, 0, sizeof in);
    scrud_options_default(&in.options);
    scrud_unit_default(&u[0]);
    u[0].is_eliminated = true;
    in.sides[0].units = u;
    in.sides[0].n_units = 1;
    in.sides[1].units = u;
    in.sides[1].n_units = 1;
    err_clear(&e);
    {
        odds_limits l;
        odds_limits_default(&l);
        ck_assert_int_eq(odds_scrud_compute(&in, &l, &o, &e), ERR_RULE);
    }
    ck_assert_str_eq(e.field, "sides[0].units[0]");
    odds_scrud_cleanup(&o);
}
END_TEST

Suite *suite_odds_scrud(void)
{
    Suite *s = suite_create("odds_scrud");
    TCase *tc = tcase_create("brute force");
    TCase *st = tcase_create("statistics");

    tcase_add_loop_test(tc, test_agrees_with_brute_force, 0,
                        (int)N_ELEMS(cases));
    tcase_add_test(tc, test_blocks);
    tcase_add_test(tc, test_refusals);
    suite_add_tcase(s, tc);
    tcase_set_timeout(st, 120);
    tcase_add_test(st, test_sampling_agrees);
    tcase_add_test(st, test_a_million_combats);
    suite_add_tcase(s, st);
    return s;
}
