/*
 * test_scs.c: core/scs.c against docs/rules/scs.md, piece by piece: exact
 * fractions, odds by the standard rounding rule, the result grammar, roll
 * kinds and table columns, counters, and the refusals of scs_validate, each
 * naming its field.  Then properties: hundreds of random combats on seeded
 * dice checked against the invariants of scs_fixture_check and for
 * determinism, and every short allocation on small stacks compared with a
 * reference model of rules 8.0a-8.0c.  Worked combats, the source's and
 * hand-worked ones step by step, are in test_scs_examples.c.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "dice.h"
#include "scs.h"
#include "scs_fixture.h"
#include "suites.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static scs_frac frac(int64_t num, int64_t den)
{
    scs_frac f = {num, den};
    return f;
}

/* ---- fractions ---- */

static const struct {
    const char *text;
    int64_t num, den;
} parses[] = {
    {"3", 3, 1},
    {"3/4", 3, 4},
    {"6/8", 3, 4},
    {"0.5", 1, 2},
    {"9.875", 79, 8},
    {"2.125", 17, 8},
    {"12/4", 3, 1},
    {"1.234567", 1234567, 1000000},
    {"999999999", 999999999, 1},
};

/* 0 or negative, malformed, more than 6 decimals, too large to fit. */
static const char *const refused_fracs[] = {
    "0",          "0/3",          "0.0", "-1",  "1/0",  "abc",   "1.2345678",
    "9999999999", "1/9999999999", "",    "1.",  ".5",   "1/2/3", "1 ",
    " 1",         "+1",           "1e3", "1,5", "1/-2",
};

START_TEST(test_frac_parse)
{
    scs_frac f = {-7, 7};
    size_t i;

    for (i = 0; i < N_ELEMS(parses); i++) {
        ck_assert_msg(scs_frac_parse(parses[i].text, &f), "\"%s\"",
                      parses[i].text);
        ck_assert(f.num == parses[i].num && f.den == parses[i].den);
    }
    for (i = 0; i < N_ELEMS(refused_fracs); i++)
        ck_assert_msg(!scs_frac_parse(refused_fracs[i], &f), "\"%s\"",
                      refused_fracs[i]);
    ck_assert(!scs_frac_parse(NULL, &f));
}
END_TEST

START_TEST(test_frac_arith)
{
    const int64_t M = INT64_MAX;
    scs_frac f;

    ck_assert(scs_frac_mul(frac(1, 2), frac(2, 3), &f));
    ck_assert(f.num == 1 && f.den == 3);
    ck_assert(scs_frac_mul(frac(7, 1), frac(1, 4), &f));
    ck_assert(f.num == 7 && f.den == 4);
    ck_assert(scs_frac_mul(frac(M, 1), frac(1, M), &f)); /* cancels first */
    ck_assert(f.num == 1 && f.den == 1);
    ck_assert(!scs_frac_mul(frac(M, 1), frac(2, 1), &f));
    ck_assert(!scs_frac_mul(frac(1, 1LL << 40), frac(1, 1LL << 40), &f));
    ck_assert(scs_frac_add(frac(3, 4), frac(5, 4), &f));
    ck_assert(f.num == 2 && f.den == 1);
    ck_assert(scs_frac_add(frac(1, 6), frac(1, 10), &f));
    ck_assert(f.num == 4 && f.den == 15);
    ck_assert(scs_frac_add(frac(7, 4), frac(3, 4), &f) &&
              scs_frac_add(f, frac(3, 1), &f));
    ck_assert(f.num == 11 && f.den == 2);
    ck_assert(scs_frac_add(scs_frac_int(0), frac(5, 1), &f));
    ck_assert(f.num == 5 && f.den == 1);
    ck_assert(!scs_frac_add(frac(M, 1), frac(1, 1), &f));
    ck_assert(!scs_frac_add(frac(1, 1LL << 62), frac(1, 4052555153018976267),
                            &f)); /* 3^39: the common denominator overflows */
    ck_assert_int_eq(scs_frac_cmp(frac(1, 3), frac(2, 6)), 0);
    ck_assert_int_eq(scs_frac_cmp(frac(1, 3), frac(1, 2)), -1);
    ck_assert_int_eq(scs_frac_cmp(frac(5, 2), frac(2, 1)), 1);
    ck_assert_int_eq(scs_frac_cmp(frac(M - 1, M), frac(M - 2, M - 1)), 1);
    ck_assert_int_eq(scs_frac_cmp(frac(M - 2, M - 1), frac(M - 1, M)), -1);
    ck_assert(scs_frac_int(6).num == 6 && scs_frac_int(6).den == 1);
}
END_TEST

static const struct {
    int64_t num, den;
    const char *text, *decimal;
} texts[] = {
    {11, 2, "11/2", "5.5"},
    {11, 12, "11/12", "0.917"},
    {6, 1, "6", "6"},
    {1, 8, "1/8", "0.125"},
    {1, 16, "1/16", "0.063"},
    {1, 2000, "1/2000", "0.001"},
    {1, 2001, "1/2001", "0"},
    {2, 3, "2/3", "0.667"},
    {1, 3, "1/3", "0.333"},
    {79, 8, "79/8", "9.875"},
    {1999, 2000, "1999/2000", "1"},
    {21, 20, "21/20", "1.05"},
    {0, 1, "0", "0"},
    {-11, 2, "-11/2", "-5.5"},
};

START_TEST(test_frac_text)
{
    char buf[SCS_FRAC_TEXT];
    scs_frac f = frac(texts[_i].num, texts[_i].den);

    scs_frac_text(f, buf);
    ck_assert_str_eq(buf, texts[_i].text);
    scs_frac_decimal(f, buf);
    ck_assert_str_eq(buf, texts[_i].decimal);
}
END_TEST

/* The standard rounding rule: .01 to .49 down, .50 to .99 up. */
START_TEST(test_frac_round)
{
    static const int64_t cases[][3] = {
        {0, 1, 0},    {1, 3, 0},     {49, 100, 0}, {1, 2, 1},  {2, 3, 1},
        {99, 100, 1}, {149, 100, 1}, {3, 2, 2},    {5, 2, 3},  {7, 3, 2},
        {8, 3, 3},    {7, 1, 7},     {79, 8, 10},  {17, 8, 2}, {29, 2, 15},
    };
    size_t i;

    for (i = 0; i < N_ELEMS(cases); i++)
        ck_assert_msg(
            scs_frac_round(frac(cases[i][0], cases[i][1])) == cases[i][2],
            "%lld/%lld", (long long)cases[i][0], (long long)cases[i][1]);
}
END_TEST

/* ---- odds ---- */

START_TEST(test_odds_of)
{
    static const struct {
        int64_t an, ad, dn, dd;
        int attack, defense;
    } cases[] = {
        {2, 1, 3, 1, 1, 2},  {3, 1, 2, 1, 2, 1},     {7, 1, 5, 1, 1, 1},
        {5, 1, 5, 1, 1, 1},  {1, 1, 100, 1, 1, 100}, {1, 4, 1, 8, 2, 1},
        {7, 4, 1, 1, 2, 1},  {5, 4, 1, 1, 1, 1},     {29, 1, 2, 1, 15, 1},
        {10, 1, 4, 1, 3, 1}, {4, 1, 10, 1, 1, 3},    {1, 1, 0, 1, 1, 0},
        {99, 2, 0, 1, 1, 0}, {11, 2, 6, 1, 1, 1},
    };
    char buf[24];
    scs_odds o;
    size_t i;

    for (i = 0; i < N_ELEMS(cases); i++) {
        ck_assert(scs_odds_of(frac(cases[i].an, cases[i].ad),
                              frac(cases[i].dn, cases[i].dd), &o));
        ck_assert_msg(o.attack == cases[i].attack &&
                          o.defense == cases[i].defense,
                      "case %zu: %d:%d", i, o.attack, o.defense);
    }
    scs_odds_text(o, buf);
    ck_assert_str_eq(buf, "1:1");
    scs_odds_text((scs_odds){1, 0}, buf);
    ck_assert_str_eq(buf, "1:0");
    scs_odds_text((scs_odds){12, 1}, buf);
    ck_assert_str_eq(buf, "12:1");
    /* A quotient that does not fit an int, or a fraction that overflows. */
    ck_assert(!scs_odds_of(scs_frac_int(3000000000LL), scs_frac_int(1), &o));
    ck_assert(!scs_odds_of(scs_frac_int(1), frac(1, 3000000000LL), &o));
    ck_assert(!scs_odds_of(scs_frac_int(1LL << 40), frac(1, 1LL << 40), &o));
}
END_TEST

START_TEST(test_odds_parse)
{
    static const struct {
        const char *text;
        int attack, defense; /* 0: refused */
    } cases[] = {
        {"1:2", 1, 2},   {"6:1", 6, 1}, {"10:1", 10, 1}, {"999:1", 999, 1},
        {"3:2", 3, 2},   {"0:1", 0, 0}, {"1:0", 0, 0},   {"1000:1", 0, 0},
        {"1:", 0, 0},    {":1", 0, 0},  {"", 0, 0},      {"1:1 ", 0, 0},
        {"a:b", 0, 0},   {"1/2", 0, 0}, {"1::2", 0, 0},  {"-1:2", 0, 0},
        {"1:2:3", 0, 0}, {"2", 0, 0},   {"01:1", 0, 0},  {"1:02", 0, 0},
    };
    scs_odds o;
    size_t i;

    for (i = 0; i < N_ELEMS(cases); i++) {
        bool is_ok = scs_odds_parse(cases[i].text, &o);
        ck_assert_msg(is_ok == (cases[i].attack != 0), "\"%s\"", cases[i].text);
        if (is_ok)
            ck_assert(o.attack == cases[i].attack &&
                      o.defense == cases[i].defense);
    }
    ck_assert(!scs_odds_parse(NULL, &o));
}
END_TEST

/* ---- the result grammar, roll kinds, columns ---- */

START_TEST(test_result_parse)
{
    static const struct {
        const char *text;
        int as, ar, ds, dr;
    } ok[] = {
        {"-", 0, 0, 0, 0},        {"A1r1", 1, 1, 0, 0},
        {"D2r2", 0, 0, 2, 2},     {"A1 D1r2", 1, 0, 1, 2},
        {"Dr2", 0, 0, 0, 2},      {"A1/D1", 1, 0, 1, 0},
        {"A2r1", 2, 1, 0, 0},     {"D1r1 A2", 2, 0, 1, 1},
        {"D20r20", 0, 0, 20, 20}, {"A1 D1", 1, 0, 1, 0},
        {"Ar1", 0, 1, 0, 0},      {"D4r5", 0, 0, 4, 5},
    };
    static const struct {
        const char *text, *why; /* a word of the reason */
    } bad[] = {
        {"X1", "starts with A"},
        {"A1 A2", "same side twice"},
        {"Dr", "r is followed"},
        {"Dr0", "r is followed"},
        {"Dr21", "r is followed"},
        {"A1 ", "separated by one space"},
        {"A1  D1", "separated by one space"},
        {"A1//D1", "separated by one space"},
        {"A1/", "separated by one space"},
        {"", "a result is"},
        {"A1r1/D1r1/A1r1/D1r1/A1r1", "at most 23"},
        {"D21", "steps are"},
        {"A100", "steps are"},
        {"A1x", "then steps"},
        {"a1", "starts with"},
        {"- A1", "starts with"},
        {"A1 -", "starts with"},
    };
    scs_result r;
    const char *why;
    size_t i;

    for (i = 0; i < N_ELEMS(ok); i++) {
        why = NULL;
        ck_assert_msg(scs_result_parse(ok[i].text, &r, &why), "%s: %s",
                      ok[i].text, why);
        ck_assert_msg(
            r.attacker.steps == ok[i].as && r.attacker.retreat == ok[i].ar &&
                r.defender.steps == ok[i].ds && r.defender.retreat == ok[i].dr,
            "%s", ok[i].text);
    }
    for (i = 0; i < N_ELEMS(bad); i++) {
        why = NULL;
        ck_assert_msg(!scs_result_parse(bad[i].text, &r, &why), "\"%s\"",
                      bad[i].text);
        ck_assert_ptr_nonnull(why);
        ck_assert_msg(strstr(why, bad[i].why) != NULL, "\"%s\": %s",
                      bad[i].text, why);
    }
    ck_assert(!scs_result_parse("X", &r, NULL));
    ck_assert(!scs_result_parse(NULL, &r, &why));
}
END_TEST

START_TEST(test_roll_kinds)
{
    static const int d66[][2] = {
        {11, 0},  {16, 5},  {21, 6},  {35, 16}, {66, 35}, {17, -1},
        {70, -1}, {10, -1}, {67, -1}, {0, -1},  {7, -1},
    };
    scs_roll_kind k;
    char buf[4];
    int row;
    size_t i;

    ck_assert(scs_roll_kind_parse("2d6", &k) && k == SCS_ROLL_2D6);
    ck_assert(scs_roll_kind_parse("d66", &k) && k == SCS_ROLL_D66);
    ck_assert(!scs_roll_kind_parse("D66", &k));
    ck_assert(!scs_roll_kind_parse("3d6", &k));
    ck_assert_str_eq(scs_roll_kind_name(SCS_ROLL_2D6), "2d6");
    ck_assert_str_eq(scs_roll_kind_name(SCS_ROLL_D66), "d66");
    ck_assert_int_eq(scs_roll_rows(SCS_ROLL_2D6), 11);
    ck_assert_int_eq(scs_roll_rows(SCS_ROLL_D66), 36);
    for (row = 0; row < 11; row++) {
        scs_roll_label(SCS_ROLL_2D6, row, buf);
        ck_assert_int_eq(atoi(buf), row + 2);
        ck_assert_int_eq(scs_roll_row(SCS_ROLL_2D6, row + 2), row);
    }
    ck_assert_int_eq(scs_roll_row(SCS_ROLL_2D6, 1), -1);
    ck_assert_int_eq(scs_roll_row(SCS_ROLL_2D6, 13), -1);
    for (i = 0; i < N_ELEMS(d66); i++)
        ck_assert_msg(scs_roll_row(SCS_ROLL_D66, d66[i][0]) == d66[i][1],
                      "d66 %d", d66[i][0]);
    for (row = 0; row < 36; row++) {
        scs_roll_label(SCS_ROLL_D66, row, buf);
        ck_assert_int_eq(scs_roll_row(SCS_ROLL_D66, atoi(buf)), row);
    }
    scs_roll_label(SCS_ROLL_D66, 0, buf);
    ck_assert_str_eq(buf, "11");
    scs_roll_label(SCS_ROLL_D66, 35, buf);
    ck_assert_str_eq(buf, "66");
    scs_roll_label(SCS_ROLL_2D6, 11, buf);
    ck_assert_str_eq(buf, "?");
    scs_roll_label(SCS_ROLL_D66, -1, buf);
    ck_assert_str_eq(buf, "?");
}
END_TEST

START_TEST(test_table_columns)
{
    static const struct {
        const char *cols[6];
        int n, bad; /* bad -1: accepted */
        const char *why;
    } cases[] = {
        {{"1:2", "1:1", "2:1"}, 3, -1, NULL},
        {{"1:3", "1:2", "1:1", "2:1", "3:1"}, 5, -1, NULL},
        {{"1:2", "1:1", "3:2"}, 3, 2, "can never be read"},
        {{"1:3", "2:3", "1:1"}, 3, 1, "can never be read"},
        {{"1:1", "2:2"}, 2, 1, "repeats"},
        {{"1:2", "1:1", "3:1", "2:1"}, 4, 3, "lowest odds to the highest"},
        {{"2:1", "1:1"}, 2, 1, "lowest odds to the highest"},
        {{"1:2"}, 0, 0, "1 to 20 columns"},
    };
    scs_table *t = calloc(1, sizeof *t);
    const char *why;
    int bad, i;
    size_t c;

    for (c = 0; c < N_ELEMS(cases); c++) {
        for (i = 0; i < cases[c].n; i++)
            ck_assert(scs_odds_parse(cases[c].cols[i], &t->columns[i]));
        t->n_columns = cases[c].n;
        why = NULL;
        bad = -7;
        ck_assert_msg(scs_table_check_columns(t, &bad, &why) ==
                          (cases[c].bad < 0),
                      "case %zu", c);
        if (cases[c].bad >= 0) {
            ck_assert_int_eq(bad, cases[c].bad);
            ck_assert_msg(strstr(why, cases[c].why) != NULL, "%s", why);
        }
    }
    /* A zero in a column, and too many columns. */
    t->n_columns = 3;
    t->columns[1] = (scs_odds){0, 1};
    ck_assert(!scs_table_check_columns(t, &bad, &why));
    ck_assert_int_eq(bad, 1);
    t->columns[1] = (scs_odds){1, 0};
    ck_assert(!scs_table_check_columns(t, &bad, &why));
    ck_assert_int_eq(bad, 1);
    for (i = 0; i < SCS_MAX_COLUMNS; i++)
        t->columns[i] = (scs_odds){i + 1, 1};
    t->n_columns = SCS_MAX_COLUMNS;
    ck_assert(scs_table_check_columns(t, &bad, &why));
    t->n_columns = SCS_MAX_COLUMNS + 1;
    ck_assert(!scs_table_check_columns(t, &bad, &why));
    free(t);
}
END_TEST

START_TEST(test_table_column)
{
    static const int cases[][3] = {
        {1, 1, 1}, {1, 2, 0}, {1, 3, -1}, {1, 9, -1}, {2, 1, 2},
        {3, 1, 3}, {6, 1, 6}, {7, 1, 6},  {12, 1, 6}, {1, 0, 6},
    };
    static const char *const odd[] = {"1:1", "3:2", "2:1"};
    scs_table *t = calloc(1, sizeof *t);
    size_t i;

    scs_fixture_table(t, SCS_ROLL_2D6, scs_fixture_cols7, 7, "-");
    for (i = 0; i < N_ELEMS(cases); i++)
        ck_assert_msg(
            scs_table_column(t, (scs_odds){cases[i][0], cases[i][1]}) ==
                cases[i][2],
            "%d:%d", cases[i][0], cases[i][1]);
    scs_fixture_table(t, SCS_ROLL_2D6, odd, 3, "-");
    ck_assert_int_eq(scs_table_column(t, (scs_odds){1, 1}), 0);
    ck_assert_int_eq(scs_table_column(t, (scs_odds){2, 1}), 2);
    ck_assert_int_eq(scs_table_column(t, (scs_odds){1, 2}), -1);
    free(t);
}
END_TEST

/* ---- counters ---- */

START_TEST(test_counter_shown)
{
    scs_counter c = {
        {true, 5, 6, 4}, {true, 2, 3, 4}, true, 2, 0, false, false};

    ck_assert_ptr_eq(scs_counter_shown(&c), &c.full);
    c.steps_lost = 1;
    ck_assert_ptr_eq(scs_counter_shown(&c), &c.reduced);
    c.steps = 4; /* step-loss markers under the reduced side */
    c.steps_lost = 3;
    ck_assert_ptr_eq(scs_counter_shown(&c), &c.reduced);
    c.has_reduced = false; /* a one-step counter */
    c.steps = 1;
    c.steps_lost = 0;
    ck_assert_ptr_eq(scs_counter_shown(&c), &c.full);
}
END_TEST

/* Resupply ("Counters"): in supply again; steps lost stay lost, and the
 * rest of the counter with them. */
START_TEST(test_counter_resupply)
{
    scs_counter c = {{true, 5, 6, 4}, {false, 0, 3, 2}, true, 3, 2, true, true};

    scs_counter_resupply(&c);
    ck_assert(!c.is_out_of_supply);
    ck_assert(c.steps == 3 && c.steps_lost == 2 && c.is_exploit);
    ck_assert(c.has_reduced && !c.reduced.has_attack && c.reduced.defense == 3);
    ck_assert(c.full.attack == 5 && c.full.defense == 6 &&
              c.full.movement == 4);
    ck_assert_ptr_eq(scs_counter_shown(&c), &c.reduced);
    scs_counter_resupply(&c); /* in supply already: nothing changes */
    ck_assert(!c.is_out_of_supply && c.steps_lost == 2);
}
END_TEST

static const struct {
    int id;
    const char *path;
    err_code code;
    const char *field;
} counter_cases[] = {
    {0, "scs", ERR_OK, ""},
    {1, "scs", ERR_RANGE, "scs.attack"},
    {2, "scs", ERR_RANGE, "scs.defense"},
    {3, "scs", ERR_RANGE, "scs.movement"},
    {4, "scs", ERR_RANGE, "scs.reduced.attack"},
    {5, "scs", ERR_OK, ""},
    {6, "scs", ERR_INVALID, "scs.reduced"},
    {7, "scs", ERR_MISSING, "scs.reduced"},
    {8, "scs", ERR_RANGE, "scs.steps"},
    {9, "scs", ERR_RANGE, "scs.steps"},
    {10, "scs", ERR_RANGE, "scs.steps_lost"},
    {11, "scs", ERR_RANGE, "scs.steps_lost"},
    {1, "", ERR_RANGE, "attack"},
    {4, "", ERR_RANGE, "reduced.attack"},
    {12, "units[2]", ERR_OK, ""},
};

START_TEST(test_counter_check)
{
    scs_counter c = {{true, 5, 6, 4}, {true, 2, 3, 4}, true, 2, 0, true, false};
    err_info e;

    switch (counter_cases[_i].id) {
    case 1: c.full.attack = SCS_MAX_PRINTED + 1; break;
    case 2: c.full.defense = -1; break;
    case 3: c.full.movement = 100; break;
    case 4: c.reduced.attack = 100; break;
    case 5: c.full.has_attack = false, c.full.attack = 100; break;
    case 6: c.steps = 1; break;
    case 7: c.has_reduced = false, c.steps_lost = 1; break;
    case 8: c.steps = 0; break;
    case 9: c.steps = SCS_MAX_STEPS + 1; break;
    case 10: c.steps_lost = 3; break;
    case 11: c.steps_lost = -1; break;
    case 12: c.steps = SCS_MAX_STEPS, c.steps_lost = SCS_MAX_STEPS; break;
    }
    err_clear(&e);
    ck_assert_int_eq(scs_counter_check(&c, counter_cases[_i].path, &e),
                     counter_cases[_i].code);
    ck_assert_int_eq(e.code, counter_cases[_i].code);
    ck_assert_str_eq(e.field, counter_cases[_i].field);
}
END_TEST

/* ---- refusals, each naming its field ---- */

static const struct {
    const char *name;
    err_code code;
    const char *field;
} refusals[] = {
    {"attacker without printed attack", ERR_RULE, "attackers[1]"},
    {"eliminated defender", ERR_RULE, "defenders[0].steps_lost"},
    {"eliminated attacker", ERR_RULE, "attackers[0].steps_lost"},
    {"shift 21", ERR_RANGE, "column_shift"},
    {"shift -21", ERR_RANGE, "column_shift"},
    {"8.0a attacker", ERR_RULE, "attacker_allocation[0]"},
    {"8.0b attacker", ERR_RULE, "attacker_allocation[1]"},
    {"8.0c attacker", ERR_RULE, "attacker_allocation[3]"},
    {"8.0a defender", ERR_RULE, "defender_allocation[0]"},
    {"8.0b defender", ERR_RULE, "defender_allocation[1]"},
    {"8.0c defender", ERR_RULE, "defender_allocation[1]"},
    {"allocation not a unit", ERR_INVALID, "attacker_allocation[0]"},
    {"extra unit not a unit", ERR_INVALID,
     "defender_retreat.extra_step_units[0]"},
    {"convert -1", ERR_RANGE, "defender_retreat.convert_to_steps"},
    {"ezoc 21", ERR_RANGE, "attacker_retreat.ezoc_hexes"},
    {"9 multipliers", ERR_LIMIT, "attackers[0].multipliers"},
    {"multiplier 0", ERR_RANGE, "defenders[1].multipliers[1]"},
    {"no defender", ERR_RANGE, "defenders"},
    {"no table", ERR_MISSING, "table"},
    {"repeated column", ERR_INVALID, "table.columns"},
    {"attack 100", ERR_RANGE, "attackers[0].attack"},
    {"steps 21", ERR_RANGE, "defenders[1].steps"},
    {"supply multiplier 0", ERR_RANGE, "options.out_of_supply"},
};

START_TEST(test_refusal)
{
    scs_fixture *f = scs_fixture_new("D1r1");
    scs_orders *oa = &f->in.orders[SCS_ATTACKER];
    scs_orders *od = &f->in.orders[SCS_DEFENDER];
    err_info e;
    int i;

    scs_fixture_unit(f, SCS_ATTACKER, 5, 4, 2);
    scs_fixture_unit(f, SCS_ATTACKER, 3, 3, 2);
    scs_fixture_unit(f, SCS_DEFENDER, 2, 4, 2);
    scs_fixture_unit(f, SCS_DEFENDER, 1, 2, 2);
    switch (_i) {
    case 0: f->units[0][1].has_attack = false; break;
    case 1: f->units[1][0].steps_lost = 2; break;
    case 2: f->units[0][0].steps_lost = 2; break;
    case 3: f->in.column_shift = SCS_MAX_SHIFT + 1; break;
    case 4: f->in.column_shift = -SCS_MAX_SHIFT - 1; break;
    case 5: oa->allocation[0] = 1, oa->n_allocation = 1; break;
    case 6: oa->n_allocation = 2; break; /* [0, 0] */
    case 7:
        oa->allocation[1] = 1, oa->n_allocation = 4; /* [0, 1, 0, 0] */
        break;
    case 8: od->allocation[0] = 1, od->n_allocation = 1; break;
    case 9: od->n_allocation = 2; break;
    case 10:
        f->in.n_units[1] = 1, f->units[1][0].steps_lost = 1;
        od->n_allocation = 2;
        break;
    case 11: oa->allocation[0] = 2, oa->n_allocation = 1; break;
    case 12: od->extra_units[0] = -1, od->n_extra_units = 1; break;
    case 13: od->convert = -1; break;
    case 14: oa->ezoc_hexes = SCS_MAX_EFFECT + 1; break;
    case 15: f->units[0][0].n_multipliers = SCS_MAX_MULTIPLIERS + 1; break;
    case 16:
        f->units[1][1].n_multipliers = 2;
        f->units[1][1].multipliers[0] = frac(1, 2);
        f->units[1][1].multipliers[1] = frac(0, 1);
        break;
    case 17: f->in.n_units[1] = 0; break;
    case 18: f->in.table = NULL; break;
    case 19: f->table.columns[2] = f->table.columns[1]; break;
    case 20: f->units[0][0].attack = SCS_MAX_PRINTED + 1; break;
    case 21: f->units[1][1].steps = SCS_MAX_STEPS + 1; break;
    case 22: f->in.options.out_of_supply_attack = frac(0, 1); break;
    }
    for (i = 0; i < 2; i++) { /* validate, then resolve: no die drawn */
        err_clear(&e);
        ck_assert_int_eq(i == 0 ? scs_validate(&f->in, &e)
                                : scs_fixture_run(f, 2, 3, 4),
                         refusals[_i].code);
        if (i == 1)
            e = f->e;
        ck_assert_int_eq(e.code, refusals[_i].code);
        ck_assert_msg(strcmp(e.field, refusals[_i].field) == 0,
                      "%s: field %s (%s)", refusals[_i].name, e.field,
                      e.message);
    }
    ck_assert_uint_eq(f->d.n_log, 0);
    scs_fixture_free(f);
}
END_TEST

/* An attack with a total of 0 is refused (step 1, rule 7.2e), before any
 * die; a 0 attack joining others is accepted. */
START_TEST(test_attack_zero)
{
    scs_fixture *f = scs_fixture_new("-");

    scs_fixture_unit(f, SCS_ATTACKER, 0, 3, 2);
    scs_fixture_unit(f, SCS_DEFENDER, 1, 2, 2);
    ck_assert_int_eq(scs_fixture_run(f, 2, 3, 4), ERR_RULE);
    ck_assert_str_eq(f->e.field, "attackers");
    ck_assert_uint_eq(f->d.n_log, 0);
    scs_fixture_unit(f, SCS_ATTACKER, 2, 3, 2);
    ck_assert_int_eq(scs_fixture_run(f, 2, 3, 4), ERR_OK);
    scs_fixture_check(&f->in, &f->d, &f->out);
    scs_fixture_free(f);
}
END_TEST

/* 8.0b-8.0c: once every unit has lost one step, the owner is free: a
 * unit may take its third before another its second (docs/rules/scs.md
 * step 6, "beyond that the owner chooses"). */
START_TEST(test_allocation_free_after_one_each)
{
    static const int ok[][4] = {
        {0, 1, 0, 0},
        {0, 1, 1, 1},
        {1, 0, 0, 0},
    };
    scs_fixture *f = scs_fixture_new("D4");
    scs_orders *o = &f->in.orders[SCS_DEFENDER];
    int n_refused = 0;
    err_info e;
    size_t i;

    scs_fixture_unit(f, SCS_ATTACKER, 9, 1, 2);
    scs_fixture_unit(f, SCS_DEFENDER, 1, 5, 3);
    scs_fixture_unit(f, SCS_DEFENDER, 1, 5, 3); /* tied: either first */
    for (i = 0; i < N_ELEMS(ok) && n_refused == 0; i++) {
        memcpy(o->allocation, ok[i], sizeof ok[i]);
        o->n_allocation = 4;
        err_clear(&f->e);
        n_refused += scs_validate(&f->in, &f->e) != ERR_OK;
    }
    if (n_refused == 0) { /* the last one, applied as given */
        ck_assert_int_eq(scs_fixture_run(f, 2, 3, 4), ERR_OK);
        for (i = 0; i < 4; i++)
            ck_assert_int_eq(f->out.losses[i].unit, ok[N_ELEMS(ok) - 1][i]);
    }
    e = f->e;
    scs_fixture_free(f); /* before failing: no leak under ASan */
    ck_assert_msg(n_refused == 0, "allocation %zu refused: %s: %s", i - 1,
                  e.field, e.message);
}
END_TEST

/* ---- properties ---- */

#define N_PROPERTY_COMBATS 600

static void seeded(dice_source *d, uint64_t n)
{
    static const uint8_t client[] = "test_scs";
    uint8_t seed[RNG_SEED_LEN] = {0};
    int i;

    for (i = 0; i < 8; i++)
        seed[i] = (uint8_t)(n >> (8 * i));
    seed[31] = 0x5c;
    dice_init_seeded(d, seed, client, sizeof client - 1);
}

/* Random combats on seeded dice keep every invariant of
 * scs_fixture_check (losses within capacity, ignored steps counting the
 * rest, odds never favouring the smaller total, the table's losses under
 * 8.0a-8.0c, the default picks...), and the same input on the same dice
 * gives the same outcome, byte for byte. */
START_TEST(test_property_combats)
{
    scs_fixture *f = malloc(sizeof *f);
    scs_outcome *again = malloc(sizeof *again);
    int seen[6] = {0};
    dice_source d2;
    uint64_t n;
    size_t k;

    ck_assert(f != NULL && again != NULL);
    for (n = 0; n < N_PROPERTY_COMBATS; n++) {
        scs_fixture_random(f, n);
        seeded(&f->d, n);
        ck_assert_msg(scs_resolve(&f->in, &f->d, &f->out, &f->e) == ERR_OK,
                      "combat %d: %s: %s", (int)n, f->e.field, f->e.message);
        scs_fixture_check(&f->in, &f->d, &f->out);
        seeded(&d2, n);
        ck_assert_int_eq(scs_resolve(&f->in, &d2, again, NULL), ERR_OK);
        ck_assert_mem_eq(again, &f->out, sizeof *again);
        ck_assert_uint_eq(d2.n_log, f->d.n_log);
        for (k = 0; k < d2.n_log; k++)
            ck_assert_int_eq(d2.log[k].natural, f->d.log[k].natural);
        seen[0] += f->out.is_off_table;
        seen[1] +=
            f->out.sides[0].steps_ignored + f->out.sides[1].steps_ignored > 0;
        seen[2] += f->out.is_advance_allowed;
        seen[3] += f->table.roll == SCS_ROLL_D66;
        seen[4] +=
            f->out.sides[1].ezoc_hexes + f->out.sides[1].blocked_hexes > 0;
        seen[5] +=
            f->in.orders[0].n_allocation + f->in.orders[1].n_allocation > 0;
        dice_cleanup(&d2);
        dice_cleanup(&f->d);
    }
    for (k = 0; k < N_ELEMS(seen); k++) /* the cases were exercised */
        ck_assert_msg(seen[k] > 10, "seen[%zu] = %d", k, seen[k]);
    free(again);
    free(f);
}
END_TEST

/* Every allocation of up to five steps on stacks of one to three units
 * (one to three steps left, printed strength 2 or 5, some with earlier
 * losses): scs_validate accepts exactly what the reference model of
 * 8.0a-8.0c allows, and refuses the rest with ERR_RULE naming the first
 * entry that breaks them.  Counts every disagreement before failing. */
START_TEST(test_property_allocations)
{
    static const char *const names[2] = {"attacker_allocation",
                                         "defender_allocation"};
    scs_fixture *f = scs_fixture_new("-");
    scs_orders *o;
    char field[64], first[ERR_MESSAGE_MAX + 200] = "";
    int side, n, cfg, n_cfg, len, code, n_codes, k, u, c, bad;
    int n_cases = 0, n_wrong = 0, n_kind[3] = {0};
    err_code rc;

    for (side = 0; side < 2; side++)
        for (n = 1, n_cfg = 6; n <= 3; n++, n_cfg *= 6)
            for (cfg = 0; cfg < n_cfg; cfg++) {
                f->in.n_units[0] = f->in.n_units[1] = 0;
                memset(f->in.orders, 0, sizeof f->in.orders);
                scs_fixture_unit(f, !side, 1, 1, 1);
                for (u = 0, c = cfg; u < n; u++, c /= 6) {
                    int str = c % 2 ? 5 : 2, left = c / 2 % 3 + 1;
                    scs_fixture_unit(f, side, side ? 1 : str, side ? str : 1,
                                     left + u % 2)
                        ->steps_lost = u % 2;
                }
                o = &f->in.orders[side];
                for (len = 1, n_codes = n; len <= 5; len++, n_codes *= n)
                    for (code = 0; code < n_codes; code++) {
                        for (k = 0, c = code; k < len; k++, c /= n)
                            o->allocation[k] = c % n;
                        o->n_allocation = len;
                        err_clear(&f->e);
                        rc = scs_validate(&f->in, &f->e);
                        bad =
                            scs_fixture_ref_first_bad(f->units[side], (size_t)n,
                                                      side, o->allocation, len);
                        snprintf(field, sizeof field, "%s[%d]", names[side],
                                 bad);
                        n_cases++;
                        if (bad < 0 ? rc == ERR_OK
                                    : rc == ERR_RULE &&
                                          strcmp(f->e.field, field) == 0)
                            continue;
                        n_kind[bad < 0 ? 0 : rc == ERR_OK ? 1 : 2]++;
                        if (n_wrong++ == 0)
                            snprintf(first, sizeof first,
                                     "%s, %d units, config %d, allocation "
                                     "%d long, code %d: model says %s, got "
                                     "%s (%s)",
                                     names[side], n, cfg, len, code,
                                     bad < 0 ? "allowed" : field,
                                     err_code_name(rc), f->e.message);
                    }
            }
    scs_fixture_free(f); /* before failing: no leak under ASan */
    ck_assert_int_gt(n_cases, 100000);
    ck_assert_msg(n_wrong == 0,
                  "%d of %d allocations judged unlike rules 8.0a-8.0c (%d "
                  "allowed but refused, %d forbidden but accepted, %d "
                  "refused otherwise); the first: %s",
                  n_wrong, n_cases, n_kind[0], n_kind[1], n_kind[2], first);
}
END_TEST

#define LOOP(tc, fn, cases) tcase_add_loop_test(tc, fn, 0, (int)N_ELEMS(cases))

Suite *suite_scs(void)
{
    Suite *s = suite_create("scs");
    TCase *values = tcase_create("values");
    TCase *table = tcase_create("table");
    TCase *refuse = tcase_create("refusals");
    TCase *prop = tcase_create("properties");

    tcase_add_test(values, test_frac_parse);
    tcase_add_test(values, test_frac_arith);
    LOOP(values, test_frac_text, texts);
    tcase_add_test(values, test_frac_round);
    tcase_add_test(values, test_odds_of);
    tcase_add_test(values, test_odds_parse);
    tcase_add_test(values, test_counter_shown);
    tcase_add_test(values, test_counter_resupply);
    LOOP(values, test_counter_check, counter_cases);
    suite_add_tcase(s, values);
    tcase_add_test(table, test_result_parse);
    tcase_add_test(table, test_roll_kinds);
    tcase_add_test(table, test_table_columns);
    tcase_add_test(table, test_table_column);
    suite_add_tcase(s, table);
    LOOP(refuse, test_refusal, refusals);
    tcase_add_test(refuse, test_attack_zero);
    tcase_add_test(refuse, test_allocation_free_after_one_each);
    suite_add_tcase(s, refuse);
    tcase_set_timeout(prop, 60);
    tcase_add_test(prop, test_property_combats);
    tcase_add_test(prop, test_property_allocations);
    suite_add_tcase(s, prop);
    return s;
}
