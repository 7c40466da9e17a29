/*
 * test_scrud.c: core/scrud.c against docs/rules/scrud.md, one option and
 * rule at a time: one test per option and rule with entered dice and
 * outcomes worked out by hand in the comments, then refusals.  Every
 * entered-dice run also checks the roll log row by row
 * (scrud_fixture_run).  The worked examples of the originals and the
 * properties over seeded combats are in test_scrud_examples.c.
 */
#include <stdbool.h>
#include <stddef.h>

#include <check.h>

#include "dice.h"
#include "scrud.h"
#include "scrud_fixture.h"
#include "suites.h"

#define N_ELEMS(a)      (sizeof(a) / sizeof((a)[0]))
#define FX_RUN(f, dice) scrud_fixture_run(f, dice, N_ELEMS(dice))
#define R(f, s, i)      (&(f)->out.units[s][i])

/* ---- each option and rule, with hand-worked dice ---- */

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

/* Step 1's clamp.  A +3 unit rolling 6 scores 9: capped at the d6's 6, at
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
    scrud_fixture f;

    scrud_fixture_init(&f);
    f.in.options.cap_kind = clamp_cases[_i].cap_kind;
    f.in.options.cap = clamp_cases[_i].cap;
    f.in.options.has_floor = clamp_cases[_i].has_floor;
    f.in.options.floor = clamp_cases[_i].floor;
    f.in.sides[0].modifier = clamp_cases[_i].side_modifier;
    scrud_fixture_add(&f, 0, 1, clamp_cases[_i].quality);
    scrud_fixture_add(&f, 1, 1, 0);
    FX_RUN(&f, dice);
    ck_assert_int_eq(R(&f, 0, 0)->score, clamp_cases[_i].score);
    scrud_fixture_cleanup(&f);
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
    scrud_fixture f;

    scrud_fixture_init(&f);
    f.in.options.extra_dice =
        beat ? SCRUD_EXTRA_BEAT_LOWEST : SCRUD_EXTRA_IGNORE;
    scrud_fixture_add(&f, 0, 2, 0);
    scrud_fixture_add(&f, 1, 4, 0);
    FX_RUN(&f, dice);
    ck_assert(f.out.n_pairs == 2 && f.out.pairs[0].winner == SCRUD_FIRST &&
              f.out.pairs[1].winner == SCRUD_SECOND);
    ck_assert(f.out.n_extra == 2 && f.out.extra[0].side == 1 &&
              f.out.extra[0].unit == 2 && f.out.extra[1].unit == 3);
    ck_assert_int_eq(f.out.extra[0].target, beat ? 0 : -1);
    ck_assert_int_eq(f.out.extra[1].target, -1);
    ck_assert(R(&f, 0, 0)->defeats == 1 + beat && R(&f, 0, 1)->defeats == 0);
    ck_assert(f.out.defeats[0] == 1 + beat && f.out.defeats[1] == 1);
    scrud_fixture_cleanup(&f);
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
    scrud_fixture f;
    scrud_unit *z;

    scrud_fixture_init(&f);
    f.in.options.extra_dice = SCRUD_EXTRA_HALF;
    scrud_fixture_add(&f, 0, 1, 0);
    z = scrud_fixture_add(&f, 1, 2, 0) + 1;
    z->faces = half_cases[_i].faces;
    z->modifier = half_cases[_i].modifier;
    FX_RUN(&f, dice);
    ck_assert(f.out.pairs[0].unit[1] == 0 &&
              f.out.pairs[0].winner == SCRUD_TIE);
    ck_assert(f.out.n_extra == 1 && f.out.extra[0].unit == 1);
    ck_assert_int_eq(f.out.extra[0].target, half_cases[_i].is_defeat ? 0 : -1);
    ck_assert_int_eq(f.out.defeats[0], half_cases[_i].is_defeat);
    scrud_fixture_cleanup(&f);
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
    scrud_fixture f;
    const scrud_unit_result *a, *b;

    scrud_fixture_init(&f);
    f.in.options.attrition = penalty_cases[_i].attrition;
    f.in.options.max_penalty_per_combat = penalty_cases[_i].max;
    scrud_fixture_add(&f, 0, 1, -1);
    scrud_fixture_add(&f, 1, 1, 1);
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
    scrud_fixture_cleanup(&f);
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
    scrud_fixture f;

    scrud_fixture_init(&f);
    f.in.options.cap_kind = heavy_cases[_i].cap_kind;
    f.in.options.cap = heavy_cases[_i].cap;
    scrud_fixture_add(&f, 0, 1, heavy_cases[_i].quality)->faces =
        heavy_cases[_i].faces;
    scrud_fixture_add(&f, 1, 1, 0);
    FX_RUN(&f, dice);
    ck_assert_int_eq(f.out.pairs[0].winner, SCRUD_FIRST);
    ck_assert_int_eq(R(&f, 0, 0)->is_heavy_fighting, heavy_cases[_i].is_heavy);
    ck_assert_int_eq(R(&f, 0, 0)->fatigue_penalty_added,
                     heavy_cases[_i].is_heavy);
    ck_assert(R(&f, 0, 0)->defeat_penalty_added == 0 &&
              R(&f, 1, 0)->defeat_penalty_added == 1);
    scrud_fixture_cleanup(&f);
}
END_TEST

/* Step 8 with eliminate_below -1.  Side 0: A and B at -1 (a defeat
 * penalty each) roll 1 and 5: scores 1 (from 0) and 4.  Side 1: C 3, D 2.
 * B4-C3: C falls to -1, not below -1: stays.  A1-D2: A falls to -2: out. */
START_TEST(test_eliminate_below)
{
    static const int dice[] = {1, 5, 3, 2};
    scrud_fixture f;

    scrud_fixture_init(&f);
    f.in.options.eliminate_below = -1;
    scrud_fixture_add(&f, 0, 2, 0);
    f.units[0][0].defeat_penalty = f.units[0][1].defeat_penalty = 1;
    scrud_fixture_add(&f, 1, 2, 0);
    FX_RUN(&f, dice);
    ck_assert(R(&f, 0, 0)->score == 1 && R(&f, 0, 1)->score == 4);
    ck_assert(R(&f, 0, 0)->modifier_after == -2 &&
              R(&f, 0, 0)->eliminated == SCRUD_ELIM_THRESHOLD);
    ck_assert_int_eq(R(&f, 0, 1)->eliminated, SCRUD_ELIM_NONE);
    ck_assert(R(&f, 1, 0)->modifier_after == -1 &&
              R(&f, 1, 0)->eliminated == SCRUD_ELIM_NONE);
    ck_assert(f.out.n_eliminated[0] == 1 && f.out.eliminated[0][0] == 0 &&
              f.out.n_eliminated[1] == 0);
    scrud_fixture_cleanup(&f);
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
} per_cases[] = {{3, 2, {3, 1}},
                 {2, 3, {3, 1, 4}},
                 {1, 6, {3, 1, 4, 2, 5, 0}},
                 {7, 0, {0}},
                 {0, 0, {0}}};

START_TEST(test_defeats_per_elimination)
{
    static const int dice[] = {5, 1, 3, 1, 2, 4, 6, 6, 6, 6, 6, 6};
    scrud_fixture f;
    size_t k;

    scrud_fixture_init(&f);
    f.in.options.defeats_per_elimination = per_cases[_i].per;
    scrud_fixture_add(&f, 0, 6, 0);
    scrud_fixture_add(&f, 1, 6, 0);
    FX_RUN(&f, dice);
    ck_assert_int_eq(f.out.defeats[0], 6);
    ck_assert_uint_eq(f.out.n_eliminated[0], per_cases[_i].n);
    for (k = 0; k < per_cases[_i].n; k++) {
        ck_assert_int_eq(f.out.eliminated[0][k], per_cases[_i].order[k]);
        ck_assert_int_eq(R(&f, 0, per_cases[_i].order[k])->eliminated,
                         SCRUD_ELIM_THREE_DEFEATS);
    }
    ck_assert_uint_eq(f.out.n_eliminated[1], 0);
    scrud_fixture_cleanup(&f);
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
} tie_cases[] = {{-1, 0, 5, 1, 1, 0},
                 {0, 0, 2, 0, 4, 0},
                 {0, 1, 1, 0, 2, 0},
                 {0, 0, 2, 0, 2, 1}};

START_TEST(test_three_defeats_tie_breaks)
{
    int dice[] = {tie_cases[_i].a_natural, tie_cases[_i].b_natural, 6, 6, 6};
    scrud_fixture f;

    scrud_fixture_init(&f);
    scrud_fixture_add(&f, 0, 1, tie_cases[_i].a_quality)->modifier =
        tie_cases[_i].a_modifier;
    scrud_fixture_add(&f, 0, 1, tie_cases[_i].b_quality);
    scrud_fixture_add(&f, 1, 3, 0);
    FX_RUN(&f, dice);
    ck_assert(f.out.defeats[0] == 3 && f.out.n_eliminated[0] == 1);
    ck_assert_int_eq(f.out.eliminated[0][0], tie_cases[_i].pick);
    ck_assert_int_eq(R(&f, 0, tie_cases[_i].pick)->eliminated,
                     SCRUD_ELIM_THREE_DEFEATS);
    scrud_fixture_cleanup(&f);
}
END_TEST

/* Step 9 eliminates at most the survivors: two 1s against six 6s take two
 * pair defeats and four extra ones (all on U1, placed last); at one per
 * defeat six eliminations are due, but only two units fought. */
START_TEST(test_three_defeats_capped)
{
    static const int dice[] = {1, 1, 6, 6, 6, 6, 6, 6};
    scrud_fixture f;

    scrud_fixture_init(&f);
    f.in.options.defeats_per_elimination = 1;
    scrud_fixture_add(&f, 0, 2, 0);
    scrud_fixture_add(&f, 1, 6, 0);
    FX_RUN(&f, dice);
    ck_assert(f.out.defeats[0] == 6 && R(&f, 0, 1)->defeats == 5);
    ck_assert_uint_eq(f.out.n_eliminated[0], 2);
    scrud_fixture_cleanup(&f);
}
END_TEST

/* Step 2: U0 (+1) 3 -> 4, U1 4, U2 4, U3 5.  Score first (U3), then
 * natural (U1 and U2 before U0), then listed order (U1 before U2). */
START_TEST(test_line_up_ties)
{
    static const int dice[] = {3, 4, 4, 5, 1};
    static const int want[] = {3, 1, 2, 0};
    scrud_fixture f;
    int k;

    scrud_fixture_init(&f);
    scrud_fixture_add(&f, 0, 1, 1);
    scrud_fixture_add(&f, 0, 3, 0);
    scrud_fixture_add(&f, 1, 1, 0);
    FX_RUN(&f, dice);
    ck_assert_uint_eq(f.out.n_line_up[0], 4);
    for (k = 0; k < 4; k++)
        ck_assert(f.out.line_up[0][k] == want[k] &&
                  R(&f, 0, want[k])->rank == k);
    scrud_fixture_cleanup(&f);
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
    scrud_fixture f;
    int k;

    scrud_fixture_init(&f);
    scrud_fixture_add(&f, 0, 1, 2);
    scrud_fixture_add(&f, 0, 4, 0);
    f.units[0][3].is_reserve = f.units[0][4].is_reserve = true;
    scrud_fixture_add(&f, 1, 5, 0);
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
    scrud_fixture_cleanup(&f);
}
END_TEST

/* Reserves are never eliminated.  A 1 (+1 from reserve R's 3: score 2)
 * against four 6s: one pair defeat, three extra ones; at one elimination
 * per defeat A goes and nobody else can: R, at -2 already, is unchanged. */
START_TEST(test_reserve_never_eliminated)
{
    static const int dice[] = {1, 3, 6, 6, 6, 6};
    scrud_fixture f;
    scrud_unit *r;

    scrud_fixture_init(&f);
    f.in.options.defeats_per_elimination = 1;
    scrud_fixture_add(&f, 0, 1, 0);
    r = scrud_fixture_add(&f, 0, 1, -1);
    r->is_reserve = true;
    r->defeat_penalty = 1;
    scrud_fixture_add(&f, 1, 4, 0);
    FX_RUN(&f, dice);
    ck_assert(R(&f, 0, 0)->reserve_bonus == 1 && R(&f, 0, 0)->score == 2);
    ck_assert(f.out.defeats[0] == 4 && f.out.n_eliminated[0] == 1 &&
              f.out.eliminated[0][0] == 0);
    ck_assert(R(&f, 0, 1)->eliminated == SCRUD_ELIM_NONE &&
              R(&f, 0, 1)->defeat_penalty == 1 &&
              R(&f, 0, 1)->modifier_after == -2);
    scrud_fixture_cleanup(&f);
}
END_TEST

/* Step 1's modifiers.  Side 0 +1: A (+1, a defeat penalty, -2 this
 * combat) 4 -> 4 + 0 + 1 - 2 = 3; B (fatigue 1, +1 this combat) 2 ->
 * 2 - 1 + 1 + 1 = 3.  Side 1 -1: C 6 -> 5.  A (natural 4) lines up first
 * and loses to C; B's extra 3 does not beat 5.  After: A 1 - 2 = -1; the
 * side and combat modifiers are gone. */
START_TEST(test_modifiers)
{
    static const int dice[] = {4, 2, 6};
    scrud_fixture f;
    scrud_unit *a;

    scrud_fixture_init(&f);
    f.in.sides[0].modifier = 1;
    f.in.sides[1].modifier = -1;
    a = scrud_fixture_add(&f, 0, 1, 1);
    a->defeat_penalty = 1;
    a->modifier = -2;
    scrud_fixture_add(&f, 0, 1, 0)->fatigue_penalty = 1;
    f.units[0][1].modifier = 1;
    scrud_fixture_add(&f, 1, 1, 0);
    FX_RUN(&f, dice);
    ck_assert(R(&f, 0, 0)->modifier_before == 0 && R(&f, 0, 0)->score == 3);
    ck_assert(R(&f, 0, 1)->modifier_before == -1 && R(&f, 0, 1)->score == 3);
    ck_assert_int_eq(R(&f, 1, 0)->score, 5);
    ck_assert(f.out.pairs[0].unit[0] == 0 &&
              f.out.pairs[0].winner == SCRUD_SECOND);
    ck_assert_int_eq(f.out.extra[0].target, -1);
    ck_assert_int_eq(R(&f, 0, 0)->modifier_after, -1);
    scrud_fixture_cleanup(&f);
}
END_TEST

/* Die faces per unit, cap = faces.  X d10 (+1) 10 -> 10 (11 capped), Y d6
 * (+1) 6 -> 6 (7 capped); Z d10 7, W d6 6.  X beats Z 10-7, Y ties W.
 * Z's 7 is above 6 but not a d10's faces: no heavy fighting. */
START_TEST(test_faces_per_unit)
{
    static const int dice[] = {10, 6, 7, 6};
    scrud_fixture f;

    scrud_fixture_init(&f);
    scrud_fixture_add(&f, 0, 2, 1)->faces = 10;
    scrud_fixture_add(&f, 1, 2, 0)->faces = 10;
    FX_RUN(&f, dice);
    ck_assert(R(&f, 0, 0)->score == 10 && R(&f, 0, 1)->score == 6);
    ck_assert(R(&f, 1, 0)->score == 7 && R(&f, 1, 1)->score == 6);
    ck_assert(f.out.pairs[0].winner == SCRUD_FIRST &&
              f.out.pairs[1].winner == SCRUD_TIE);
    ck_assert(R(&f, 0, 0)->is_heavy_fighting && R(&f, 1, 1)->is_heavy_fighting);
    ck_assert(!R(&f, 1, 0)->is_heavy_fighting);
    ck_assert(f.dice.log[0].faces == 10 && f.dice.log[3].faces == 6);
    scrud_fixture_cleanup(&f);
}
END_TEST

/* ---- refusals ---- */

/* Three fresh units a side, then the one thing wrong of refusal_cases[i]. */
static void refusal_setup(scrud_fixture *f, int i)
{
    scrud_unit *a = f->units[0], *b = f->units[1];

    switch (i) {
    case 0: b[2].is_eliminated = true; break;
    case 1:
        a[1].quality = -1;
        a[1].defeat_penalty = 1;
        a[1].fatigue_penalty = 1;
        break;
    case 2:
        f->in.options.eliminate_below = 0;
        b[0].quality = -1;
        break;
    case 3:
        a[2].is_reserve = true;
        a[2].quality = -3;
        break;
    case 4: f->in.sides[1].n_units = 0; break;
    case 5: a[0].is_reserve = a[1].is_reserve = a[2].is_reserve = true; break;
    case 6: scrud_fixture_add(f, 0, SCRUD_MAX_UNITS_PER_SIDE - 2, 0); break;
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
    {ERR_RULE, "sides[1].units[2]"}, /* eliminated */
    {ERR_RULE, "sides[0].units[1]"}, /* -1 - 1 - 1 = -3 < -2 */
    {ERR_RULE, "sides[1].units[0]"}, /* -1 < a custom 0 */
    {ERR_RULE, "sides[0].units[2]"}, /* a reserve at -3 */
    {ERR_INVALID, "sides[1].units"}, /* no units */
    {ERR_RULE, "sides[0].units"},    /* only reserves */
    {ERR_LIMIT, "sides[0].units"},   /* 101 units */
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
    scrud_fixture f;
    err_code rc;
    size_t k;

    for (k = 0; k < N_ELEMS(dice); k++)
        dice[k] = 1;
    scrud_fixture_init(&f);
    scrud_fixture_add(&f, 0, 3, 0);
    scrud_fixture_add(&f, 1, 3, 0);
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
    scrud_fixture_cleanup(&f);
}
END_TEST

/* The limits themselves are accepted: 100 units, a d2 and a d1000. */
START_TEST(test_limits_accepted)
{
    static int dice[SCRUD_MAX_UNITS_PER_SIDE + 1];
    scrud_fixture f;
    size_t k;

    for (k = 0; k < N_ELEMS(dice); k++)
        dice[k] = 2;
    scrud_fixture_init(&f);
    scrud_fixture_add(&f, 0, SCRUD_MAX_UNITS_PER_SIDE, 0)->faces = 2;
    f.units[0][1].faces = 1000;
    scrud_fixture_add(&f, 1, 1, 0);
    FX_RUN(&f, dice);
    ck_assert_uint_eq(f.out.n_extra, SCRUD_MAX_UNITS_PER_SIDE - 1);
    scrud_fixture_cleanup(&f);
}
END_TEST

/* Entered dice: 1v1 takes exactly two.  One is too few (ERR_DICE from
 * resolve), three too many (ERR_DICE from dice_check_all_used), and a 7
 * does not fit a d6. */
START_TEST(test_entered_dice_count)
{
    static const int dice[] = {3, 4, 5}, seven[] = {7, 4};
    scrud_fixture f;

    scrud_fixture_init(&f);
    scrud_fixture_add(&f, 0, 1, 0);
    scrud_fixture_add(&f, 1, 1, 0);
    dice_init_values(&f.dice, DICE_ENTERED, dice, 1);
    ck_assert_int_eq(scrud_resolve(&f.in, &f.dice, &f.out, &f.e), ERR_DICE);
    ck_assert_str_eq(f.e.field, "dice");
    scrud_fixture_cleanup(&f);
    err_clear(&f.e);
    dice_init_values(&f.dice, DICE_ENTERED, dice, 3);
    ck_assert_int_eq(scrud_resolve(&f.in, &f.dice, &f.out, &f.e), ERR_OK);
    ck_assert_int_eq(dice_check_all_used(&f.dice, &f.e), ERR_DICE);
    ck_assert_str_eq(f.e.field, "dice");
    scrud_fixture_cleanup(&f);
    err_clear(&f.e);
    dice_init_values(&f.dice, DICE_ENTERED, seven, 2);
    ck_assert_int_eq(scrud_resolve(&f.in, &f.dice, &f.out, &f.e), ERR_DICE);
    scrud_fixture_cleanup(&f);
}
END_TEST

/* "Resupply and rest": the fatigue penalty goes to 0; the defeat penalty
 * (only a correction changes it), quality and faces stay.  1 - 2 - 3 = -4
 * becomes 1 - 2 = -1. */
START_TEST(test_resupply)
{
    scrud_unit u;

    scrud_unit_default(&u);
    u.quality = 1;
    u.defeat_penalty = 2;
    u.fatigue_penalty = 3;
    u.faces = 10;
    ck_assert_int_eq(scrud_unit_modifier(&u), -4);
    scrud_unit_resupply(&u);
    ck_assert_int_eq(u.fatigue_penalty, 0);
    ck_assert(u.quality == 1 && u.defeat_penalty == 2 && u.faces == 10);
    ck_assert(!u.is_reserve && !u.is_eliminated && u.modifier == 0);
    ck_assert_int_eq(scrud_unit_modifier(&u), -1);
    scrud_unit_resupply(&u); /* rested already: nothing more to clear */
    ck_assert(u.fatigue_penalty == 0 && u.defeat_penalty == 2);
}
END_TEST

#define LOOP(tc, fn, cases) tcase_add_loop_test(tc, fn, 0, (int)N_ELEMS(cases))

Suite *suite_scrud(void)
{
    Suite *s = suite_create("scrud");
    TCase *rules = tcase_create("rules");
    TCase *refuse = tcase_create("refusals");

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
    tcase_add_test(rules, test_resupply);
    LOOP(refuse, test_refusals, refusal_cases);
    tcase_add_test(refuse, test_limits_accepted);
    tcase_add_test(refuse, test_entered_dice_count);
    suite_add_tcase(s, rules);
    suite_add_tcase(s, refuse);
    return s;
}
