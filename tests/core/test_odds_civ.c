/*
 * test_odds_civ.c: tests core/odds_civ.c.  A brute force written here
 * fights one phase on every throw through civ_fight_phase and the odds
 * (each army's throws counted by its total, then every pair of totals)
 * agree with it exactly: both totals, which is higher, each piece
 * destroyed, the battle's end.  A battle decided within two phases is
 * exact and agrees with every throw of civ_resolve; sampling agrees
 * within its standard errors; 200,000 seeded phases of 6 v 6 pieces with
 * aircraft through civ_fight_phase agree with the exact odds within 5
 * standard errors.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "odds_civ.h"
#include "suites.h"

static void piece(civ_army *a, civ_class cls, int era, int bonus, int mult)
{
    civ_unit *u = &a->units[a->n_units++];

    u->cls = cls;
    u->era = era;
    u->bonus = bonus;
    u->dice_multiplier = mult;
}

/* Default orders, as a one-off plan's standing ones. */
static void orders_default(civ_orders o[2])
{
    memset(o, 0, 2 * sizeof *o);
    o[0].support = o[1].support = -1;
    o[0].is_casualty_preference = o[1].is_casualty_preference = true;
}

/* Attacker: infantry (era 2, +1), cavalry (era 1), a biplane (x2); the
 * defender, in a settlement: artillery (era 1, +1), infantry (era 2). */
static void small_setup(civ_setup *s)
{
    memset(s, 0, sizeof *s);
    s->current_era = 2;
    s->is_settlement = true;
    piece(&s->armies[0], CIV_INFANTRY, 2, 1, 0);
    piece(&s->armies[0], CIV_CAVALRY, 1, 0, 0);
    piece(&s->armies[0], CIV_AIRCRAFT, 2, 0, 2);
    s->armies[0].technologies = 4;
    piece(&s->armies[1], CIV_ARTILLERY, 1, 1, 0);
    piece(&s->armies[1], CIV_INFANTRY, 2, 0, 0);
    s->armies[1].technologies = 1;
}

typedef struct ptally {
    long total, totals[2][64], higher[3], after[4], destroyed[2][4];
} ptally;

static void brute_phase(const civ_battle *b, const civ_orders o[2], int n,
                        ptally *t)
{
    int v[8], k, a;

    memset(t, 0, sizeof *t);
    for (k = 0; k < n; k++)
        v[k] = 1;
    for (;;) {
        civ_battle x = *b;
        civ_phase ph;
        dice_source d;
        int t0, t1;
        dice_init_values(&d, DICE_ENTERED, v, (size_t)n);
        ck_assert_int_eq(civ_fight_phase(&x, o, &d, &ph, NULL), ERR_OK);
        ck_assert_int_eq(dice_check_all_used(&d, NULL), ERR_OK);
        t->total++;
        t0 = ph.armies[0].total;
        t1 = ph.armies[1].total;
        t->totals[0][t0]++;
        t->totals[1][t1]++;
        t->higher[t0 > t1 ? 0 : t1 > t0 ? 1 : 2]++;
        t->after[!civ_is_over(&x) ? 3 : x.winner < 0 ? 2 : x.winner]++;
        for (a = 0; a < 2; a++)
            for (k = 0; k < ph.armies[a].n_destroyed; k++)
                t->destroyed[a][ph.armies[a].destroyed[k]]++;
        dice_cleanup(&d);
        for (k = n - 1; k >= 0 && v[k] == 6; k--)
            v[k] = 1;
        if (k < 0)
            break;
        v[k]++;
    }
}

static void same(const odds_acc *a, odds_count total, long count, long n,
                 const char *what)
{
    odds_value v = odds_value_of(a, total, 1, true);

    ck_assert_msg(v.is_exact &&
                      v.num * (odds_count)n == (odds_count)count * v.den,
                  "%s: the odds say %.9f, the brute force %.9f", what,
                  v.decimal, (double)count / (double)n);
}

START_TEST(test_phase_agrees_with_brute_force)
{
    static civ_setup s;
    static civ_battle b;
    odds_civ *o = calloc(1, sizeof *o);
    odds_civ_input in;
    odds_limits l;
    ptally t;
    size_t k;
    int a, u;

    small_setup(&s);
    ck_assert_int_eq(civ_battle_init(&b, &s, NULL), ERR_OK);
    memset(&in, 0, sizeof in);
    in.battle = &b;
    orders_default(in.orders);
    brute_phase(&b, in.orders, 5, &t);
    odds_limits_default(&l);
    l.method = ODDS_EXACT;
    ck_assert_int_eq(odds_civ_compute(&in, &l, o, NULL), ERR_OK);
    ck_assert(o->phase_stats.is_exact);
    ck_assert_str_eq(o->phase_stats.method, "convolution");
    for (a = 0; a < 2; a++) {
        long seen = 0;
        for (k = 0; k < o->armies[a].totals.n; k++) {
            int key = o->armies[a].totals.keys[k];
            same(&o->armies[a].totals.accs[k], o->total, t.totals[a][key],
                 t.total, "a total");
            seen += t.totals[a][key];
        }
        ck_assert_int_eq(seen, t.total); /* no total left out */
        for (u = 0; u < s.armies[a].n_units; u++)
            same(&o->armies[a].destroyed[u], o->total, t.destroyed[a][u],
                 t.total, "destroyed");
    }
    for (k = 0; k < 3; k++)
        same(&o->higher[k], o->total, t.higher[k], t.total, "higher");
    for (k = 0; k < 4; k++)
        same(&o->after[k], o->total, t.after[k], t.total, "after");
    odds_civ_cleanup(o);
    free(o);
}
END_TEST

/* Two era 1 pieces (+3) against one (+20): each phase the defender
 * destroys the attacker's piece, and is destroyed on a 2 or more.  The
 * battle ends within two phases: exact, against every throw of
 * civ_resolve. */
START_TEST(test_decisive_battle_exact)
{
    static civ_setup s;
    static civ_battle b;
    static civ_plan p;
    odds_civ *o = calloc(1, sizeof *o);
    odds_civ_input in;
    odds_limits l;
    long win[4] = {0, 0, 0, 0};
    int v[4], k;

    memset(&s, 0, sizeof s);
    s.current_era = 1;
    piece(&s.armies[0], CIV_INFANTRY, 1, 3, 0);
    piece(&s.armies[0], CIV_INFANTRY, 1, 3, 0);
    piece(&s.armies[1], CIV_CAVALRY, 1, 20, 0);
    memset(&p, 0, sizeof p);
    p.setup = s;
    orders_default(p.orders);
    p.max_phases = 10;
    for (k = 0; k < 1296; k++) {
        civ_outcome out;
        dice_source d;
        int j;
        for (j = 0; j < 4; j++)
            v[j] = k / (j == 0 ? 1 : j == 1 ? 6 : j == 2 ? 36 : 216) % 6 + 1;
        dice_init_values(&d, DICE_ENTERED, v, 4);
        ck_assert_int_eq(civ_resolve(&p, &d, &out, NULL), ERR_OK);
        win[out.is_unresolved       ? 3
            : out.battle.winner < 0 ? 2
                                    : out.battle.winner]++;
        civ_outcome_cleanup(&out);
        dice_cleanup(&d);
    }
    ck_assert_int_eq(civ_battle_init(&b, &s, NULL), ERR_OK);
    memset(&in, 0, sizeof in);
    in.battle = &b;
    orders_default(in.orders);
    orders_default(in.standing);
    in.has_battle = true;
    in.max_phases = 10;
    odds_limits_default(&l);
    l.method = ODDS_EXACT;
    ck_assert_int_eq(odds_civ_compute(&in, &l, o, NULL), ERR_OK);
    ck_assert(o->battle_stats.is_exact);
    for (k = 0; k < 4; k++) {
        odds_value w = o->winner[k];
        ck_assert_msg(w.num * 1296 == (odds_count)win[k] * w.den,
                      "winner %d: %.6f, brute force %ld/1296", k, w.decimal,
                      win[k]);
    }
    ck_assert(o->winner[0].num == 5 && o->winner[0].den == 6);
    odds_civ_cleanup(o);
    free(o);
}
END_TEST

/* 6 v 6 with two aircraft each, modern and medieval pieces mixed. */
static void big_setup(civ_setup *s)
{
    int a, u;

    memset(s, 0, sizeof *s);
    s->current_era = 3;
    for (a = 0; a < 2; a++) {
        for (u = 0; u < 6; u++)
            piece(&s->armies[a], (civ_class)(u % 3), 2 + u % 2, u % 2, 0);
        piece(&s->armies[a], CIV_AIRCRAFT, 3, 0, 2);
        piece(&s->armies[a], CIV_AIRCRAFT, 3, 0, 2);
        s->armies[a].technologies = 3 * a;
    }
}

#define N_PHASES 200000

START_TEST(test_many_phases_agree)
{
    static const uint8_t seed[RNG_SEED_LEN] = {7};
    static civ_setup s;
    static civ_battle b;
    odds_civ *o = calloc(1, sizeof *o);
    odds_civ_input in;
    odds_limits l;
    long higher[3] = {0, 0, 0};
    dice_source d;
    long n;
    int k;

    big_setup(&s);
    ck_assert_int_eq(civ_battle_init(&b, &s, NULL), ERR_OK);
    memset(&in, 0, sizeof in);
    in.battle = &b;
    orders_default(in.orders);
    odds_limits_default(&l);
    ck_assert_int_eq(odds_civ_compute(&in, &l, o, NULL), ERR_OK);
    ck_assert(o->phase_stats.is_exact);
    dice_init_seeded(&d, seed, NULL, 0);
    for (n = 0; n < N_PHASES; n++) {
        civ_battle x = b;
        civ_phase ph;
        ck_assert_int_eq(civ_fight_phase(&x, in.orders, &d, &ph, NULL), ERR_OK);
        higher[ph.armies[0].total > ph.armies[1].total   ? 0
               : ph.armies[1].total > ph.armies[0].total ? 1
                                                         : 2]++;
        dice_forget_log(&d);
    }
    dice_cleanup(&d);
    for (k = 0; k < 3; k++) {
        odds_value e = odds_value_of(&o->higher[k], o->total, 1, true);
        double p = (double)higher[k] / N_PHASES;
        double se = sqrt(e.decimal * (1 - e.decimal) / N_PHASES);
        ck_assert_msg(fabs(p - e.decimal) <= 5 * se + 1e-12,
                      "higher %d: %ld phases say %.5f, exact %.5f", k,
                      (long)N_PHASES, p, e.decimal);
    }
    odds_civ_cleanup(o);
    free(o);
}
END_TEST

START_TEST(test_sampling_agrees)
{
    static civ_setup s;
    static civ_battle b;
    odds_civ *x = calloc(1, sizeof *x), *m = calloc(1, sizeof *m);
    odds_civ_input in;
    odds_limits l;
    int k;

    small_setup(&s);
    ck_assert_int_eq(civ_battle_init(&b, &s, NULL), ERR_OK);
    memset(&in, 0, sizeof in);
    in.battle = &b;
    orders_default(in.orders);
    odds_limits_default(&l);
    ck_assert_int_eq(odds_civ_compute(&in, &l, x, NULL), ERR_OK);
    l.method = ODDS_SAMPLE;
    l.samples = 20000;
    ck_assert_int_eq(odds_civ_compute(&in, &l, m, NULL), ERR_OK);
    ck_assert(!m->phase_stats.is_exact);
    for (k = 0; k < 4; k++) {
        odds_value e = odds_value_of(&x->after[k], x->total, 1, true),
                   v = odds_value_of(&m->after[k], m->total, 1, false);
        ck_assert_msg(fabs(e.decimal - v.decimal) <=
                          5 * sqrt(e.decimal * (1 - e.decimal) / 20000) + 1e-12,
                      "after %d: sampled %.5f, exact %.5f", k, v.decimal,
                      e.decimal);
    }
    odds_civ_cleanup(x);
    odds_civ_cleanup(m);
    free(x);
    free(m);
}
END_TEST

START_TEST(test_refusals)
{
    static civ_setup s;
    static civ_battle b;
    odds_civ *o = calloc(1, sizeof *o);
    odds_civ_input in;
    odds_limits l;
    err_info e;

    small_setup(&s);
    ck_assert_int_eq(civ_battle_init(&b, &s, NULL), ERR_OK);
    memset(&in, 0, sizeof in);
    in.battle = &b;
    orders_default(in.orders);
    in.orders[0].is_casualty_preference = false;
    in.orders[0].wave[0] = 0; /* a wave of one, of two needed */
    in.orders[0].n_wave = 1;
    odds_limits_default(&l);
    err_clear(&e);
    ck_assert_int_eq(odds_civ_compute(&in, &l, o, &e), ERR_RULE);
    ck_assert_str_eq(e.field, "attacker.wave");
    odds_civ_cleanup(o);
    free(o);
}
END_TEST

Suite *suite_odds_civ(void)
{
    Suite *s = suite_create("odds_civ");
    TCase *tc = tcase_create("brute force");
    TCase *st = tcase_create("statistics");

    tcase_add_test(tc, test_phase_agrees_with_brute_force);
    tcase_add_test(tc, test_decisive_battle_exact);
    tcase_add_test(tc, test_refusals);
    suite_add_tcase(s, tc);
    tcase_set_timeout(st, 120);
    tcase_add_test(st, test_sampling_agrees);
    tcase_add_test(st, test_many_phases_agree);
    suite_add_tcase(s, st);
    return s;
}
