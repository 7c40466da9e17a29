/*
 * test_odds.c: tests core/odds.c, the engine of the odds, against brute
 * force written here: an enumeration with exchangeable dice taken as
 * multisets weighs every function of the throw that the groups cannot
 * tell apart exactly as visiting every throw does; the space it counts;
 * sums of dice against every throw; armies keyed by a total and paired;
 * exact fractions and their sums; the fallback to seeded sampling, the
 * refusal of exact odds over the budget, and the time bound.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <check.h>

#include "odds.h"
#include "suites.h"

/* ---- a function of a throw, and its brute force ---- */

/* A function that groups of slots {0,1,2} and {4,5} cannot tell apart:
 * sums and maxima of the groups, and slot 3 alone. */
static uint64_t f_sym(const int *t)
{
    int m = t[0] > t[1] ? t[0] : t[1];

    m = m > t[2] ? m : t[2];
    return (uint64_t)(m * 1000 + (t[0] + t[1] + t[2]) * 100 + t[3] * 10 +
                      (t[4] > t[5] ? t[4] : t[5]) + t[4] + t[5]);
}

typedef struct sym_ctx {
    odds_acc acc;
    odds_count total;
    uint64_t visits;
} sym_ctx;

static err_code sym_visit(void *p, const int *throw, odds_count w, err_info *e)
{
    sym_ctx *c = p;

    (void)e;
    odds_acc_add(&c->acc, w, f_sym(throw));
    c->total += w;
    c->visits++;
    return ERR_OK;
}

/* d4 d4 d4 (a group), d3, d5 d5 (a group), slots as listed. */
static const odds_die dice6[] = {{4, 0, 0}, {4, 1, 0}, {4, 2, 0},
                                 {3, 3, 1}, {5, 4, 2}, {5, 5, 2}};

START_TEST(test_enumeration_weighs_like_brute_force)
{
    odds_limits l;
    odds_stats st;
    sym_ctx c;
    odds_count sum = 0, total = 0;
    int t[6];

    memset(&c, 0, sizeof c);
    odds_limits_default(&l);
    odds_stats_init(&st);
    ck_assert_int_eq(odds_enumerate(dice6, 6, 6, &l, sym_visit, &c, &st, NULL),
                     ERR_OK);
    /* multisets: C(6,3) * 3 * C(6,2) */
    ck_assert_uint_eq(c.visits, 20 * 3 * 15);
    for (t[0] = 1; t[0] <= 4; t[0]++)
        for (t[1] = 1; t[1] <= 4; t[1]++)
            for (t[2] = 1; t[2] <= 4; t[2]++)
                for (t[3] = 1; t[3] <= 3; t[3]++)
                    for (t[4] = 1; t[4] <= 5; t[4]++)
                        for (t[5] = 1; t[5] <= 5; t[5]++) {
                            sum += f_sym(t);
                            total++;
                        }
    ck_assert(c.total == total);
    ck_assert(c.acc.sum == sum);
    ck_assert(st.throws == total);
    ck_assert_uint_eq(st.calls, c.visits);
}
END_TEST

START_TEST(test_space)
{
    odds_die d[64];
    uint64_t v;
    odds_count t;
    int i;

    ck_assert(odds_space(dice6, 6, &v, &t));
    ck_assert_uint_eq(v, 900);
    ck_assert(t == (odds_count)64 * 3 * 25);
    for (i = 0; i < 64; i++) {
        d[i].faces = 6;
        d[i].slot = i;
        d[i].group = i;
    }
    /* 6^46 < 2^120 <= 6^47 */
    ck_assert(odds_space(d, 46, &v, &t));
    ck_assert_uint_eq(v, UINT64_MAX);
    ck_assert(!odds_space(d, 47, &v, &t));
    /* one group of 46: C(51, 46) multisets */
    for (i = 0; i < 46; i++)
        d[i].group = 0;
    ck_assert(odds_space(d, 46, &v, &t));
    ck_assert_uint_eq(v, 2349060);
}
END_TEST

START_TEST(test_sums_of_dice)
{
    odds_count counts[13], brute[16];
    int a, b, c, s, throw[3];

    memset(brute, 0, sizeof brute);
    for (a = 1; a <= 5; a++)
        for (b = 1; b <= 5; b++)
            for (c = 1; c <= 5; c++)
                brute[a + b + c]++;
    ck_assert(odds_sum_counts(3, 5, counts));
    for (s = 3; s <= 15; s++) {
        ck_assert(counts[s - 3] == brute[s]);
        odds_sum_throw(3, 5, s, throw);
        ck_assert_int_eq(throw[0] + throw[1] + throw[2], s);
        for (a = 0; a < 3; a++)
            ck_assert(throw[a] >= 1 && throw[a] <= 5);
    }
    /* 10d1000 fits; 13d1000 (10^39) does not */
    {
        static odds_count big[10 * 999 + 1];
        ck_assert(odds_sum_counts(10, 1000, big));
        ck_assert(big[0] == 1);
        ck_assert(!odds_sum_counts(13, 1000, big));
    }
}
END_TEST

START_TEST(test_values)
{
    odds_acc a = {0, 0};
    odds_value v;
    odds_fsum f;
    char buf[ODDS_COUNT_TEXT];
    int i;

    odds_acc_add(&a, 6, 1);
    odds_acc_add(&a, 3, 2);
    v = odds_value_of(&a, 36, 1, true); /* 12/36 */
    ck_assert(v.is_exact && v.num == 1 && v.den == 3);
    v = odds_value_of(&a, 36, 4, true); /* 12/144 */
    ck_assert(v.num == 1 && v.den == 12);
    v = odds_value_frac(0, 7);
    ck_assert(v.num == 0 && v.den == 1 && v.decimal == 0.0);
    /* sampled: 30 hits in 100 */
    memset(&a, 0, sizeof a);
    for (i = 0; i < 100; i++)
        odds_acc_add(&a, 1, i < 30);
    v = odds_value_of(&a, 100, 1, false);
    ck_assert(!v.is_exact);
    ck_assert_double_eq_tol(v.decimal, 0.3, 1e-12);
    ck_assert_double_eq_tol(v.se, 0.0458257569, 1e-9); /* sqrt(.21/100) */
    odds_fsum_init(&f);
    ck_assert(odds_fsum_add(&f, 1, 6));
    ck_assert(odds_fsum_add(&f, 1, 36));
    ck_assert(f.num == 7 && f.den == 36);
    ck_assert(!odds_fsum_add(&f, 1, (odds_count)1 << 119));
    odds_count_text((odds_count)1 << 100, buf);
    ck_assert_str_eq(buf, "1267650600228229401496703205376");
    odds_count_text(0, buf);
    ck_assert_str_eq(buf, "0");
}
END_TEST

/* ---- the budget, sampling and the time bound ---- */

START_TEST(test_over_the_budget)
{
    odds_limits l;
    odds_stats st;
    sym_ctx c;
    err_info e;

    odds_limits_default(&l);
    l.max_calls = 100; /* the enumeration takes 900 */
    l.samples = 5000;
    /* auto: sampled, saying why */
    memset(&c, 0, sizeof c);
    odds_stats_init(&st);
    ck_assert_int_eq(odds_run(dice6, 6, 6, 0, &l, sym_visit, &c, &st, NULL),
                     ERR_OK);
    ck_assert(!st.is_exact);
    ck_assert_str_eq(st.method, "monte_carlo");
    ck_assert_uint_eq(st.samples, 5000);
    ck_assert_uint_eq(c.visits, 5000);
    ck_assert(strstr(st.why, "900 resolve calls") != NULL);
    /* exact: refused, naming the limit */
    l.method = ODDS_EXACT;
    err_clear(&e);
    odds_stats_init(&st);
    ck_assert_int_eq(odds_run(dice6, 6, 6, 0, &l, sym_visit, &c, &st, &e),
                     ERR_LIMIT);
    ck_assert_str_eq(e.field, "odds.method");
    ck_assert(strstr(e.message, "budget of 100") != NULL);
    /* within it: exact */
    l.method = ODDS_AUTO;
    l.max_calls = 900;
    odds_stats_init(&st);
    ck_assert_int_eq(odds_run(dice6, 6, 6, 0, &l, sym_visit, &c, &st, NULL),
                     ERR_OK);
    ck_assert(st.is_exact);
}
END_TEST

START_TEST(test_sampling_is_seeded)
{
    odds_limits l;
    odds_stats st;
    sym_ctx a, b, c;

    odds_limits_default(&l);
    l.method = ODDS_SAMPLE;
    l.samples = 2000;
    l.seed = (const uint8_t *)"one";
    l.seed_len = 3;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    memset(&c, 0, sizeof c);
    odds_stats_init(&st);
    ck_assert_int_eq(odds_run(dice6, 6, 6, 0, &l, sym_visit, &a, &st, NULL),
                     ERR_OK);
    ck_assert_str_eq(st.why, ""); /* asked for */
    odds_stats_init(&st);
    ck_assert_int_eq(odds_run(dice6, 6, 6, 0, &l, sym_visit, &b, &st, NULL),
                     ERR_OK);
    l.seed = (const uint8_t *)"two";
    odds_stats_init(&st);
    ck_assert_int_eq(odds_run(dice6, 6, 6, 0, &l, sym_visit, &c, &st, NULL),
                     ERR_OK);
    ck_assert(a.acc.sum == b.acc.sum);
    ck_assert(a.acc.sum != c.acc.sum);
}
END_TEST

static bool always_late(void *arg)
{
    (void)arg;
    return true;
}

START_TEST(test_time_bound)
{
    odds_limits l;
    odds_stats st;
    sym_ctx c;
    err_info e;

    odds_limits_default(&l);
    l.is_late = always_late;
    l.time_limit_ms = 1234;
    memset(&c, 0, sizeof c);
    odds_stats_init(&st);
    err_clear(&e);
    /* 900 visits: polled at the 1024th call, never reached */
    ck_assert_int_eq(odds_run(dice6, 6, 6, 0, &l, sym_visit, &c, &st, &e),
                     ERR_OK);
    l.method = ODDS_SAMPLE;
    odds_stats_init(&st);
    ck_assert_int_eq(odds_run(dice6, 6, 6, 0, &l, sym_visit, &c, &st, &e),
                     ERR_LIMIT);
    ck_assert_str_eq(e.field, "odds");
    ck_assert(strstr(e.message, "1234 ms") != NULL);
}
END_TEST

/* ---- keyed armies ---- */

/* Army 0: slots 0, 1 (d6, exchangeable); army 1: slot 2 (d4). */
static const odds_die army0[] = {{6, 0, 0}, {6, 1, 0}};
static const odds_die army1[] = {{4, 2, 0}};

static err_code key_sum(void *p, const int *throw, int *key, err_info *e)
{
    const int *army = p;

    (void)e;
    *key = *army == 0 ? throw[0] + throw[1] : 3 * throw[2];
    return ERR_OK;
}

typedef struct pair_ctx {
    odds_count win, total;
} pair_ctx;

static err_code pair_visit(void *p, const int *throw, odds_count w, err_info *e)
{
    pair_ctx *c = p;

    (void)e;
    if (throw[0] + throw[1] > 3 * throw[2])
        c->win += w;
    c->total += w;
    return ERR_OK;
}

START_TEST(test_keyed_pairs)
{
    odds_limits l;
    odds_stats st;
    odds_keyed k0, k1;
    pair_ctx c = {0, 0};
    odds_count win = 0;
    int a, b, d, army;

    odds_limits_default(&l);
    odds_stats_init(&st);
    army = 0;
    ck_assert_int_eq(
        odds_keyed_build(army0, 2, 3, &l, key_sum, &army, &k0, &st, NULL),
        ERR_OK);
    army = 1;
    ck_assert_int_eq(
        odds_keyed_build(army1, 1, 3, &l, key_sum, &army, &k1, &st, NULL),
        ERR_OK);
    ck_assert_uint_eq(k0.n_keys, 11);
    ck_assert_uint_eq(k1.n_keys, 4);
    ck_assert_int_eq(
        odds_keyed_pairs(&k0, &k1, army1, 1, &l, pair_visit, &c, &st, NULL),
        ERR_OK);
    for (a = 1; a <= 6; a++)
        for (b = 1; b <= 6; b++)
            for (d = 1; d <= 4; d++)
                win += a + b > 3 * d;
    ck_assert(c.total == 144);
    ck_assert(c.win == win);
    odds_keyed_cleanup(&k0);
    odds_keyed_cleanup(&k1);
}
END_TEST

Suite *suite_odds(void)
{
    Suite *s = suite_create("odds");
    TCase *tc = tcase_create("engine");

    tcase_add_test(tc, test_enumeration_weighs_like_brute_force);
    tcase_add_test(tc, test_space);
    tcase_add_test(tc, test_sums_of_dice);
    tcase_add_test(tc, test_values);
    tcase_add_test(tc, test_over_the_budget);
    tcase_add_test(tc, test_sampling_is_seeded);
    tcase_add_test(tc, test_time_bound);
    tcase_add_test(tc, test_keyed_pairs);
    suite_add_tcase(s, tc);
    return s;
}
