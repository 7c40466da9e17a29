/*
 * test_odds_matrix.c: tests core/odds_matrix.c.  A brute force written
 * here fights a one-off plan on every throw through matrix_resolve, and
 * the odds (each combat's classes, then their combinations) agree with it
 * exactly: each combat's result, the battle's winner, army state,
 * exhaustion, casualty points and every unit's fate, with and without a
 * reserve considered.  A battle half fought (a combat rolled, not yet
 * accepted) agrees with the brute force of what is left; sampling agrees
 * within its standard errors; a skirmish whose plan commits every
 * reserve escalates; refusals are the rules'.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "odds_matrix.h"
#include "suites.h"

/* Attacker A0..A3 (qualities 0, 1, 0, -1), defender D0, D1 (1, 0); the
 * line A0+A1 v D0, A2 v D1; A3 the attacker's reserve.  The plan: combat
 * 1 first, then combat 0 with A3 committed to it when is_committing. */
static void plan_init(matrix_plan *p, bool is_committing, int with_combat)
{
    memset(p, 0, sizeof *p);
    p->setup.armies[0].n_units = 4;
    p->setup.armies[0].quality[1] = 1;
    p->setup.armies[0].quality[3] = -1;
    p->setup.armies[0].argument = 1;
    p->setup.armies[1].n_units = 2;
    p->setup.armies[1].quality[0] = 1;
    p->setup.n_line = 2;
    p->setup.line[0].n_units[0] = 2;
    p->setup.line[0].units[0][0] = 0;
    p->setup.line[0].units[0][1] = 1;
    p->setup.line[0].n_units[1] = 1;
    p->setup.line[0].units[1][0] = 0;
    p->setup.line[1].n_units[0] = 1;
    p->setup.line[1].units[0][0] = 2;
    p->setup.line[1].n_units[1] = 1;
    p->setup.line[1].units[1][0] = 1;
    p->order[0] = 1;
    p->order[1] = 0;
    if (is_committing)
        p->reserves[0][p->n_reserves[0]++] = 3;
    if (with_combat >= 0)
        p->reserves[with_combat][p->n_reserves[with_combat]++] = 3;
}

/* What the brute force counts of each throw's battle. */
typedef struct tally {
    long total, winner[3], state[4], exhausted, points[2][16];
    long fates[2][4][4], classes[2][7];
} tally;

static int class_of(const matrix_combat *cb)
{
    return cb->loser < 0 ? 0 : 1 + 3 * cb->loser + ((int)cb->fate - 1);
}

static void tally_battle(tally *t, const matrix_battle *b,
                         const matrix_result *r)
{
    int a, u, c;

    t->total++;
    t->winner[r->winner < 0 ? 2 : r->winner]++;
    t->state[r->state]++;
    t->exhausted += r->is_exhausted[0];
    for (a = 0; a < 2; a++) {
        t->points[a][r->points[a]]++;
        for (u = 0; u < b->setup->armies[a].n_units; u++)
            t->fates[a][u][r->fates[a][u]]++;
    }
    for (c = 0; c < b->setup->n_line; c++)
        t->classes[c][class_of(&b->combats[c])]++;
}

/* Every throw of n dice through matrix_resolve. */
static void brute_plan(const matrix_plan *p, int n, tally *t)
{
    static matrix_outcome mo;
    int v[8], k;

    memset(t, 0, sizeof *t);
    for (k = 0; k < n; k++)
        v[k] = 1;
    for (;;) {
        dice_source d;
        dice_init_values(&d, DICE_ENTERED, v, (size_t)n);
        ck_assert_int_eq(matrix_resolve(p, &d, &mo, NULL), ERR_OK);
        ck_assert_int_eq(dice_check_all_used(&d, NULL), ERR_OK);
        tally_battle(t, &mo.battle, &mo.result);
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

static void same_battle(const odds_matrix_battle *b, const tally *t)
{
    int k, a, u;

    ck_assert(b->stats.is_exact);
    for (k = 0; k < 3; k++)
        same(&b->winner[k], b->total, t->winner[k], t->total, "winner");
    for (k = 0; k < 4; k++)
        same(&b->state[k], b->total, t->state[k], t->total, "army state");
    same(&b->exhausted, b->total, t->exhausted, t->total, "exhausted");
    for (a = 0; a < 2; a++) {
        for (k = 0; k < 16; k++)
            same(&b->points[a][k], b->total, t->points[a][k], t->total,
                 "casualty points");
        for (u = 0; u < 4; u++)
            for (k = 0; k < 4; k++)
                same(&b->fates[a][u][k], b->total, t->fates[a][u][k], t->total,
                     "a unit's fate");
    }
}

START_TEST(test_plan_agrees_with_brute_force)
{
    static matrix_plan p, pw;
    static matrix_battle b;
    odds_matrix *o = calloc(1, sizeof *o);
    odds_matrix_input in;
    odds_limits l;
    tally t, tw;
    int c, k;

    plan_init(&p, true, -1);
    brute_plan(&p, 6, &t);
    plan_init(&pw, false, 1); /* A3 into combat 1 instead */
    brute_plan(&pw, 6, &tw);
    plan_init(&p, false, -1);
    ck_assert_int_eq(matrix_battle_init(&b, &p.setup, NULL), ERR_OK);
    plan_init(&p, true, -1);
    memset(&in, 0, sizeof in);
    in.battle = &b;
    in.plan = &p;
    in.n_order = 2;
    in.with_combat = -1;
    odds_limits_default(&l);
    l.method = ODDS_EXACT;
    ck_assert_int_eq(odds_matrix_compute(&in, &l, o, NULL), ERR_OK);
    same_battle(&o->battle, &t);
    for (c = 0; c < 2; c++)
        for (k = 0; k < ODDS_MATRIX_CLASSES; k++)
            same(&o->combats[c].now[k], o->combats[c].now_total,
                 t.classes[c][k], t.total, "a combat's result");
    /* the reserve considered: A3 into combat 1, none planned */
    plan_init(&p, false, -1);
    in.with_combat = 1;
    in.with_army = 0;
    in.with_unit = 3;
    ck_assert_int_eq(odds_matrix_compute(&in, &l, o, NULL), ERR_OK);
    ck_assert(o->has_with && o->combats[1].has_with);
    same_battle(&o->battle_with, &tw);
    for (k = 0; k < ODDS_MATRIX_CLASSES; k++)
        same(&o->combats[1].with[k], o->combats[1].with_total, tw.classes[1][k],
             tw.total, "the combat with the reserve");
    free(o);
}
END_TEST

/* Combat 0 rolled (6 and 2 for A0 and A1, 5 for D0), not accepted; A3
 * considered for it.  Left: A3's die, then combat 1's two dice. */
START_TEST(test_half_fought_agrees_with_brute_force)
{
    static matrix_plan p;
    static matrix_battle b, x;
    odds_matrix *o = calloc(1, sizeof *o);
    static const int rolled[] = {6, 2, 5};
    odds_matrix_input in;
    odds_limits l;
    dice_source d;
    tally t;
    int v[3], k;

    plan_init(&p, false, -1);
    ck_assert_int_eq(matrix_battle_init(&b, &p.setup, NULL), ERR_OK);
    dice_init_values(&d, DICE_ENTERED, rolled, 3);
    ck_assert_int_eq(matrix_roll(&b, 0, &d, NULL), ERR_OK);
    dice_cleanup(&d);
    memset(&t, 0, sizeof t);
    for (k = 0; k < 216; k++) {
        matrix_result r;
        v[0] = k % 6 + 1;
        v[1] = k / 6 % 6 + 1;
        v[2] = k / 36 + 1;
        x = b;
        dice_init_values(&d, DICE_ENTERED, v, 3);
        ck_assert_int_eq(matrix_commit(&x, 0, 0, 3, &d, NULL), ERR_OK);
        ck_assert_int_eq(matrix_accept(&x, 0, NULL), ERR_OK);
        ck_assert_int_eq(matrix_roll(&x, 1, &d, NULL), ERR_OK);
        ck_assert_int_eq(matrix_accept(&x, 1, NULL), ERR_OK);
        ck_assert_int_eq(matrix_battle_result(&x, &r, NULL), ERR_OK);
        tally_battle(&t, &x, &r);
        dice_cleanup(&d);
    }
    memset(&in, 0, sizeof in);
    p.order[0] = 1;
    in.battle = &b;
    in.plan = &p;
    in.n_order = 1;
    in.with_combat = 0;
    in.with_army = 0;
    in.with_unit = 3;
    odds_limits_default(&l);
    ck_assert_int_eq(odds_matrix_compute(&in, &l, o, NULL), ERR_OK);
    ck_assert(o->combats[0].is_rolled && !o->combats[0].is_accepted);
    ck_assert(o->combats[0].now_total == 1); /* as it stands: certain */
    same_battle(&o->battle_with, &t);
    free(o);
}
END_TEST

START_TEST(test_sampling_agrees)
{
    static matrix_plan p;
    static matrix_battle b;
    odds_matrix *x = calloc(1, sizeof *x), *m = calloc(1, sizeof *m);
    odds_matrix_input in;
    odds_limits l;
    int k;

    plan_init(&p, true, -1);
    ck_assert_int_eq(matrix_battle_init(&b, &p.setup, NULL), ERR_OK);
    memset(&in, 0, sizeof in);
    in.battle = &b;
    in.plan = &p;
    in.n_order = 2;
    in.with_combat = -1;
    odds_limits_default(&l);
    ck_assert_int_eq(odds_matrix_compute(&in, &l, x, NULL), ERR_OK);
    l.method = ODDS_SAMPLE;
    l.samples = 20000;
    ck_assert_int_eq(odds_matrix_compute(&in, &l, m, NULL), ERR_OK);
    ck_assert(!m->battle.stats.is_exact);
    for (k = 0; k < 3; k++) {
        odds_value e = odds_value_of(&x->battle.winner[k], x->battle.total, 1,
                                     true),
                   s = odds_value_of(&m->battle.winner[k], m->battle.total, 1,
                                     false);
        ck_assert_msg(fabs(e.decimal - s.decimal) <=
                          5 * sqrt(e.decimal * (1 - e.decimal) / 20000) + 1e-12,
                      "winner %d: sampled %.5f, exact %.5f", k, s.decimal,
                      e.decimal);
    }
    free(x);
    free(m);
}
END_TEST

START_TEST(test_skirmish_escalates)
{
    static matrix_plan p;
    static matrix_battle b;
    odds_matrix *o = calloc(1, sizeof *o);
    odds_matrix_input in;
    odds_limits l;

    memset(&p, 0, sizeof p);
    p.setup.kind = MATRIX_SKIRMISH;
    p.setup.armies[0].n_units = 2;
    p.setup.armies[0].reserve[0] = 1;
    p.setup.armies[0].n_reserve = 1;
    p.setup.armies[1].n_units = 2;
    p.setup.armies[1].reserve[0] = 1;
    p.setup.armies[1].n_reserve = 1;
    p.setup.n_line = 1;
    p.setup.line[0].n_units[0] = p.setup.line[0].n_units[1] = 1;
    p.reserves[0][0] = 1;
    p.reserves[0][1] = MATRIX_MAX_UNITS + 1;
    p.n_reserves[0] = 2;
    ck_assert_int_eq(matrix_battle_init(&b, &p.setup, NULL), ERR_OK);
    memset(&in, 0, sizeof in);
    in.battle = &b;
    in.plan = &p;
    in.n_order = 1;
    in.with_combat = -1;
    odds_limits_default(&l);
    ck_assert_int_eq(odds_matrix_compute(&in, &l, o, NULL), ERR_OK);
    same(&o->battle.escalated, o->battle.total, 1, 1, "escalated");
    free(o);
}
END_TEST

START_TEST(test_refusals)
{
    static matrix_plan p;
    static matrix_battle b;
    odds_matrix *o = calloc(1, sizeof *o);
    odds_matrix_input in;
    odds_limits l;
    err_info e;

    plan_init(&p, false, -1);
    ck_assert_int_eq(matrix_battle_init(&b, &p.setup, NULL), ERR_OK);
    memset(&in, 0, sizeof in);
    in.battle = &b;
    in.plan = &p;
    in.n_order = 2;
    in.with_combat = 0;
    in.with_army = 0;
    in.with_unit = 2; /* in the line */
    odds_limits_default(&l);
    err_clear(&e);
    ck_assert_int_eq(odds_matrix_compute(&in, &l, o, &e), ERR_RULE);
    ck_assert_str_eq(e.field, "unit");
    in.with_army = 1; /* the smaller army has no reserves */
    in.with_unit = 0;
    err_clear(&e);
    ck_assert_int_eq(odds_matrix_compute(&in, &l, o, &e), ERR_RULE);
    ck_assert_str_eq(e.field, "army");
    in.with_combat = 5;
    err_clear(&e);
    ck_assert_int_eq(odds_matrix_compute(&in, &l, o, &e), ERR_INVALID);
    ck_assert_str_eq(e.field, "odds.reserve.combat");
    free(o);
}
END_TEST

Suite *suite_odds_matrix(void)
{
    Suite *s = suite_create("odds_matrix");
    TCase *tc = tcase_create("brute force");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_plan_agrees_with_brute_force);
    tcase_add_test(tc, test_half_fought_agrees_with_brute_force);
    tcase_add_test(tc, test_sampling_agrees);
    tcase_add_test(tc, test_skirmish_escalates);
    tcase_add_test(tc, test_refusals);
    suite_add_tcase(s, tc);
    return s;
}
