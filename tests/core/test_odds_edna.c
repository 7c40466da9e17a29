/*
 * test_odds_edna.c: tests core/odds_edna.c.  With 2d6 a test's odds have
 * a closed form (the throws of a sum s are 6 - |s - 7| of 36): every
 * EDNA and modifier agrees with it exactly, the EDNA after included.  A
 * brute force written here follows every throw of a unit's next tests
 * through edna_resolve and agrees with the chain exactly; sampling agrees
 * within its standard errors; dice too many to chain exactly are chained
 * by sampling, and said so.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "odds_edna.h"
#include "suites.h"

/* Throws of 2d6 summing to s. */
static int ways(int s)
{
    return s < 2 || s > 12 ? 0 : 6 - abs(s - 7);
}

static void is_frac(odds_value v, long num, long den, const char *what)
{
    ck_assert_msg(
        v.is_exact && v.num * (odds_count)den == (odds_count)num * v.den,
        "%s: %.9f, the closed form %ld/%ld", what, v.decimal, num, den);
}

/* Steps 2 to 5 on 2d6: passes when sum + modifier <= edna; the excess
 * comes off, never below 0. */
START_TEST(test_2d6_closed_form)
{
    edna_unit u[1];
    edna_input in = {u, 1, {2, 6}};
    odds_limits l;
    int edna, mod, s, v;

    odds_limits_default(&l);
    l.method = ODDS_EXACT;
    for (edna = 1; edna <= 14; edna++)
        for (mod = -3; mod <= 3; mod++) {
            odds_edna o;
            long pass = 0, after[15];
            memset(after, 0, sizeof after);
            u[0].edna = edna;
            u[0].modifier = mod;
            for (s = 2; s <= 12; s++) {
                int t = s + mod, a = t <= edna ? edna : 2 * edna - t;
                pass += t <= edna ? ways(s) : 0;
                after[a < 0 ? 0 : a] += ways(s);
            }
            ck_assert_int_eq(odds_edna_compute(&in, NULL, 0, &l, &o, NULL),
                             ERR_OK);
            is_frac(o.units[0].passed, pass, 36, "passed");
            is_frac(o.units[0].failed, 36 - pass, 36, "failed");
            for (v = 0; v <= edna; v++)
                is_frac(o.units[0].after[v], after[v], 36, "EDNA after");
            is_frac(o.units[0].within[0], after[0], 36, "ineffective now");
            odds_edna_cleanup(&o);
        }
}
END_TEST

/* ---- the chain, brute force ---- */

/* A unit at edna, the first test at mod and the next ones at later, on
 * 2d3, for three tests after it: 3^8 throws, each followed through
 * edna_resolve; ineffective[k] counts those ineffective after k more. */
static void brute_chain(int edna, int mod, int later, long ineffective[4])
{
    int v[8], k, j;

    memset(ineffective, 0, 4 * sizeof *ineffective);
    for (k = 0; k < 8; k++)
        v[k] = 1;
    for (;;) {
        int e = edna;
        for (j = 0; j < 4; j++) {
            if (e > 0) {
                edna_unit u = {e, j ? later : mod};
                edna_input in = {&u, 1, {2, 3}};
                edna_result r;
                dice_source d;
                dice_init_values(&d, DICE_ENTERED, v + 2 * j, 2);
                ck_assert_int_eq(edna_resolve(&in, &d, &r, NULL), ERR_OK);
                e = r.units[0].edna_after;
                edna_result_cleanup(&r);
                dice_cleanup(&d);
            }
            ineffective[j] += e == 0;
        }
        for (k = 7; k >= 0 && v[k] == 3; k--)
            v[k] = 1;
        if (k < 0)
            break;
        v[k]++;
    }
}

START_TEST(test_chain_agrees_with_brute_force)
{
    static const int cases[][3] = {
        {5, 1, 0}, {4, 0, 1}, {6, -1, 2}, {3, 2, -1}};
    const int *c = cases[_i];
    edna_unit u[2] = {{c[0], c[1]}, {c[0], c[1]}};
    edna_input in = {u, 2, {2, 3}};
    int later[2] = {c[2], c[2]};
    long brute[4];
    odds_limits l;
    odds_edna o;
    int k;

    brute_chain(c[0], c[1], c[2], brute);
    odds_limits_default(&l);
    ck_assert_int_eq(odds_edna_compute(&in, later, 3, &l, &o, NULL), ERR_OK);
    ck_assert(o.stats.is_exact);
    ck_assert_str_eq(o.stats.method, "convolution");
    for (k = 0; k <= 3; k++) {
        long den = 1;
        int j;
        for (j = 0; j < 4; j++)
            den *= 9;
        is_frac(o.units[0].within[k], brute[k], den, "ineffective within");
        is_frac(o.units[1].within[k], brute[k], den, "a unit alike");
    }
    ck_assert(o.units[0].is_chain_exact);
    odds_edna_cleanup(&o);
}
END_TEST

/* The standard deviation of 20,000 samples of a chance p. */
static double sd(double p)
{
    return sqrt(p * (1 - p) / 20000);
}

START_TEST(test_sampling_agrees)
{
    edna_unit u[1] = {{8, 0}};
    edna_input in = {u, 1, {2, 6}};
    odds_limits l;
    odds_edna x, m;
    int k;

    odds_limits_default(&l);
    ck_assert_int_eq(odds_edna_compute(&in, NULL, 5, &l, &x, NULL), ERR_OK);
    l.method = ODDS_SAMPLE;
    l.samples = 20000;
    ck_assert_int_eq(odds_edna_compute(&in, NULL, 5, &l, &m, NULL), ERR_OK);
    ck_assert(!m.stats.is_exact);
    ck_assert_uint_eq(m.stats.samples, 20000);
    ck_assert(fabs(m.units[0].passed.decimal - x.units[0].passed.decimal) <=
              5 * sd(x.units[0].passed.decimal));
    for (k = 1; k <= 5; k++)
        ck_assert_msg(
            fabs(m.units[0].within[k].decimal - x.units[0].within[k].decimal) <=
                5 * sd(x.units[0].within[k].decimal) + 1e-12,
            "within %d: %.5f vs %.5f", k, m.units[0].within[k].decimal,
            x.units[0].within[k].decimal);
    odds_edna_cleanup(&x);
    odds_edna_cleanup(&m);
}
END_TEST

/* 10d1000: one test is exact (9,991 sums), the chain's throws are not
 * countable exactly: it is sampled, and the answer says why. */
START_TEST(test_large_dice_chain_sampled)
{
    edna_unit u[1] = {{100, 0}};
    edna_input in = {u, 1, {10, 1000}};
    odds_limits l;
    odds_edna o;
    err_info e;

    odds_limits_default(&l);
    l.samples = 1000;
    ck_assert_int_eq(odds_edna_compute(&in, NULL, 2, &l, &o, NULL), ERR_OK);
    ck_assert(o.units[0].passed.is_exact);
    ck_assert(!o.units[0].is_chain_exact);
    ck_assert(!o.units[0].within[1].is_exact);
    ck_assert(!o.stats.is_exact);
    ck_assert(strstr(o.stats.why, "2^120") != NULL);
    odds_edna_cleanup(&o);
    l.method = ODDS_EXACT;
    err_clear(&e);
    ck_assert_int_eq(odds_edna_compute(&in, NULL, 2, &l, &o, &e), ERR_LIMIT);
    ck_assert_str_eq(e.field, "odds.method");
    odds_edna_cleanup(&o);
}
END_TEST

START_TEST(test_refusals)
{
    edna_unit u[1] = {{0, 0}};
    edna_input in = {u, 1, {2, 6}};
    odds_limits l;
    odds_edna o;
    err_info e;

    odds_limits_default(&l);
    err_clear(&e);
    ck_assert_int_eq(odds_edna_compute(&in, NULL, 0, &l, &o, &e), ERR_RULE);
    ck_assert_str_eq(e.field, "units[0]");
    odds_edna_cleanup(&o);
    u[0].edna = 5;
    err_clear(&e);
    ck_assert_int_eq(odds_edna_compute(&in, NULL, 21, &l, &o, &e), ERR_RANGE);
    ck_assert_str_eq(e.field, "odds.tests_ahead");
    odds_edna_cleanup(&o);
}
END_TEST

Suite *suite_odds_edna(void)
{
    Suite *s = suite_create("odds_edna");
    TCase *tc = tcase_create("exact");

    tcase_add_test(tc, test_2d6_closed_form);
    tcase_add_loop_test(tc, test_chain_agrees_with_brute_force, 0, 4);
    tcase_add_test(tc, test_sampling_agrees);
    tcase_add_test(tc, test_large_dice_chain_sampled);
    tcase_add_test(tc, test_refusals);
    suite_add_tcase(s, tc);
    return s;
}
