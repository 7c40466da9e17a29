/*
 * test_odds_scs.c: tests core/odds_scs.c.  The rows of a 2d6 table have
 * a closed form (the throws of a sum s are 6 - |s - 7| of 36) and a d66
 * table's rows are 1/36 each; a brute force written here resolves all 36
 * throws through scs_resolve, the owners' orders given (allocation,
 * retreat converted, EZOC and blocked hexes), and the odds agree with it
 * exactly; off the table no die is rolled and the attacker's step is
 * certain.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "odds_scs.h"
#include "scs_fixture.h"
#include "suites.h"

static void is_frac(const odds_acc *a, odds_count total, long num, long den,
                    const char *what)
{
    odds_value v = odds_value_of(a, total, 1, true);

    ck_assert_msg(v.num * (odds_count)den == (odds_count)num * v.den,
                  "%s: %.9f, expected %ld/%ld", what, v.decimal, num, den);
}

START_TEST(test_2d6_rows_closed_form)
{
    scs_fixture *f = scs_fixture_new(NULL); /* every cell its own */
    odds_scs *o = calloc(1, sizeof *o);
    odds_limits l;
    int r, k;

    scs_fixture_unit(f, SCS_ATTACKER, 6, 1, 2);
    scs_fixture_unit(f, SCS_DEFENDER, 1, 3, 2);
    odds_limits_default(&l);
    ck_assert_int_eq(odds_scs_compute(&f->in, &l, o, NULL), ERR_OK);
    ck_assert(o->stats.is_exact);
    ck_assert_uint_eq(o->stats.calls, 21); /* the two dice: a multiset */
    ck_assert_int_eq(o->n_rows, 11);
    ck_assert_int_eq(o->odds.attack, 2);
    ck_assert_int_eq(o->odds.defense, 1);
    for (r = 0; r < 11; r++)
        is_frac(&o->rows[r], o->total, 6 - abs(r + 2 - 7), 36, "a 2d6 row");
    /* each result is its rows together */
    for (k = 0; k < o->n_results; k++) {
        long n = 0;
        for (r = 0; r < 11; r++)
            if (strcmp(f->table.text[r][o->column], o->results_text[k]) == 0)
                n += 6 - abs(r + 2 - 7);
        is_frac(&o->results[k], o->total, n, 36, o->results_text[k]);
    }
    free(o);
    scs_fixture_free(f);
}
END_TEST

START_TEST(test_d66_rows)
{
    scs_fixture *f = scs_fixture_new("D1");
    odds_scs *o = calloc(1, sizeof *o);
    odds_limits l;
    int r;

    scs_fixture_table(&f->table, SCS_ROLL_D66, scs_fixture_cols7, 7, "D1");
    scs_fixture_unit(f, SCS_ATTACKER, 6, 1, 2);
    scs_fixture_unit(f, SCS_DEFENDER, 1, 3, 2);
    odds_limits_default(&l);
    ck_assert_int_eq(odds_scs_compute(&f->in, &l, o, NULL), ERR_OK);
    ck_assert_uint_eq(o->stats.calls, 36); /* tens and units differ */
    ck_assert_int_eq(o->n_rows, 36);
    for (r = 0; r < 36; r++)
        is_frac(&o->rows[r], o->total, 1, 36, "a d66 row");
    ck_assert_int_eq(o->n_results, 1);
    is_frac(&o->results[0], o->total, 1, 1, "D1");
    free(o);
    scs_fixture_free(f);
}
END_TEST

/* Every throw through scs_resolve, the orders given, against the odds. */
START_TEST(test_losses_agree_with_brute_force)
{
    scs_fixture *f = scs_fixture_new(NULL);
    odds_scs *o = calloc(1, sizeof *o);
    long lost[2][3][4], elim[2][3], side_lost[2], vacated = 0, adv = 0;
    odds_limits l;
    int a, b, s, i, k;

    memset(lost, 0, sizeof lost);
    memset(elim, 0, sizeof elim);
    memset(side_lost, 0, sizeof side_lost);
    scs_fixture_unit(f, SCS_ATTACKER, 7, 2, 2);
    scs_fixture_unit(f, SCS_ATTACKER, 3, 2, 3);
    scs_fixture_unit(f, SCS_DEFENDER, 1, 4, 2);
    scs_fixture_unit(f, SCS_DEFENDER, 1, 2, 1);
    f->in.orders[SCS_DEFENDER].convert = 1;
    f->in.orders[SCS_DEFENDER].ezoc_hexes = 1;
    f->in.orders[SCS_DEFENDER].extra_units[0] = 1;
    f->in.orders[SCS_DEFENDER].n_extra_units = 1;
    f->in.orders[SCS_ATTACKER].blocked_hexes = 1;
    for (a = 1; a <= 6; a++)
        for (b = 1; b <= 6; b++) {
            ck_assert_int_eq(scs_fixture_run(f, 2, a, b), ERR_OK);
            for (s = 0; s < 2; s++)
                for (i = 0; i < (int)f->in.n_units[s]; i++) {
                    lost[s][i][f->out.units[s][i].lost]++;
                    elim[s][i] += f->out.units[s][i].is_eliminated;
                    side_lost[s] += f->out.units[s][i].lost;
                }
            vacated += f->out.is_vacated;
            adv += f->out.is_advance_allowed;
        }
    odds_limits_default(&l);
    ck_assert_int_eq(odds_scs_compute(&f->in, &l, o, NULL), ERR_OK);
    for (s = 0; s < 2; s++) {
        for (i = 0; i < (int)f->in.n_units[s]; i++) {
            for (k = 0; k < 4; k++)
                is_frac(&o->units[s][i].lost[k], o->total, lost[s][i][k], 36,
                        "steps lost");
            is_frac(&o->units[s][i].eliminated, o->total, elim[s][i], 36,
                    "eliminated");
        }
        is_frac(&o->side_lost[s], o->total, side_lost[s], 36, "side lost");
    }
    is_frac(&o->vacated, o->total, vacated, 36, "vacated");
    is_frac(&o->advance, o->total, adv, 36, "advance");
    free(o);
    scs_fixture_free(f);
}
END_TEST

START_TEST(test_off_the_table)
{
    scs_fixture *f = scs_fixture_new(NULL);
    odds_scs *o = calloc(1, sizeof *o);
    odds_limits l;

    scs_fixture_unit(f, SCS_ATTACKER, 1, 1, 2);
    scs_fixture_unit(f, SCS_DEFENDER, 1, 4, 2); /* 1:4, left of 1:2 */
    odds_limits_default(&l);
    ck_assert_int_eq(odds_scs_compute(&f->in, &l, o, NULL), ERR_OK);
    ck_assert(o->is_off_table);
    ck_assert_int_eq(o->column, -1);
    ck_assert_int_eq(o->n_results, 0);
    ck_assert_uint_eq(o->stats.calls, 1);
    is_frac(&o->units[SCS_ATTACKER][0].lost[1], o->total, 1, 1, "its step");
    is_frac(&o->units[SCS_DEFENDER][0].lost[0], o->total, 1, 1, "none");
    free(o);
    scs_fixture_free(f);
}
END_TEST

Suite *suite_odds_scs(void)
{
    Suite *s = suite_create("odds_scs");
    TCase *tc = tcase_create("exact");

    tcase_add_test(tc, test_2d6_rows_closed_form);
    tcase_add_test(tc, test_d66_rows);
    tcase_add_test(tc, test_losses_agree_with_brute_force);
    tcase_add_test(tc, test_off_the_table);
    suite_add_tcase(s, tc);
    return s;
}
