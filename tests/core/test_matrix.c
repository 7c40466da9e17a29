/*
 * test_matrix.c: core/matrix.c against the Matrix battle rules
 * (docs/rules/matrix.md, from ../shared/rules/matrix.md).
 *
 * The vectors (tests/vectors/matrix-examples.json, from
 * $UMPIRE_TEST_VECTORS) are loaded as data: every ratio case, and the
 * battles played action by action on entered dice and again as plans
 * through matrix_resolve; no expected number is copied into C.  Then the
 * rules one at a time on hand-worked dice (modifiers, scores below 1, the
 * army state's rows and the exhaustion they leave, skirmishes), every
 * refusal with its field and code (each leaving the battle as it was, no
 * die drawn), and properties over random battles on seeded dice, checked
 * against the reference model of matrix_fixture.c.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <jansson.h>

#include "dice.h"
#include "matrix.h"
#include "matrix_fixture.h"
#include "suites.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* matrix.md's words, casualty points (none 0, repulsed 1, beaten 2,
 * routed 3) and army state rows (most severe first), word for word. */
START_TEST(test_names)
{
    static const char *const fates[] = {"none", "repulsed", "beaten", "routed"};
    static const char *const states[] = {
        "half or more of the units routed",
        "some units routed, or half or more beaten", "none routed, some beaten",
        "none routed or beaten"};
    int i;

    for (i = 0; i < 4; i++) {
        ck_assert_str_eq(matrix_fate_name((matrix_fate)i), fates[i]);
        ck_assert_int_eq(matrix_fate_points((matrix_fate)i), i);
        ck_assert_str_eq(matrix_state_name((matrix_state)i), states[i]);
    }
}
END_TEST

/* ---- the vectors ---- */

/* matrix_compare on (s0, s1) and mirrored: fate f, loser the lower score's
 * side (-1 when even). */
static void check_compare(int s0, int s1, matrix_fate f, int loser)
{
    int got;

    ck_assert_msg(matrix_compare(s0, s1, &got) == f, "%d vs %d: %s", s0, s1,
                  matrix_fate_name(matrix_compare(s0, s1, &got)));
    ck_assert_msg(got == loser, "%d vs %d: loser %d", s0, s1, got);
    ck_assert_int_eq(matrix_compare(s1, s0, &got), f);
    ck_assert_int_eq(got, loser < 0 ? -1 : 1 - loser);
}

START_TEST(test_vector_ratios)
{
    json_t *root = mfix_load_vectors("matrix-examples.json");
    const json_t *ratios = json_object_get(root, "ratios"), *t, *sc;
    size_t i;

    ck_assert(json_is_array(ratios) && json_array_size(ratios) > 0);
    json_array_foreach(ratios, i, t)
    {
        matrix_fate f;
        int s0, s1;

        mfix_known_keys(t, " scores expect ", "ratios[]");
        sc = json_object_get(t, "scores");
        ck_assert(json_is_array(sc) && json_array_size(sc) == 2);
        s0 = mfix_jint(json_array_get(sc, 0), "scores[0]");
        s1 = mfix_jint(json_array_get(sc, 1), "scores[1]");
        f = mfix_fate_parse(mfix_jstr(json_object_get(t, "expect"), "expect"));
        check_compare(s0, s1, f, f == MATRIX_NONE ? -1 : s0 < s1 ? 0 : 1);
    }
    json_decref(root);
}
END_TEST

/* The battles of the vectors: "two_against_one" is one combat, whose
 * "expect" holds the combat's keys and the battle's together. */
static const char *const vector_battles[][2] = {
    {"battle", " casualty_points winner loser army_state "
               "winner_can_pursue exhausted unit_results "},
    {"two_against_one", " casualty_points winner loser army_state result "
                        "winner_can_pursue exhausted unit_results "},
};

START_TEST(test_vector_battle)
{
    json_t *root = mfix_load_vectors("matrix-examples.json");
    const json_t *j = json_object_get(root, vector_battles[_i][0]);
    const json_t *want = json_object_get(j, "expect");
    mfix_vbattle *v = mfix_vbattle_play(j);

    mfix_expect_keys(v, want, vector_battles[_i][1], vector_battles[_i][0]);
    if (_i == 1)
        ck_assert_int_eq(v->plan.setup.line[0].n_units[MATRIX_ATTACKER], 2);
    mfix_vbattle_expect(v, want);
    mfix_vbattle_resolve(v);
    free(v);
    json_decref(root);
}
END_TEST

/* ---- the rules on hand-worked dice ---- */

/* A battle on entered dice, on the heap. */
typedef struct bfix {
    matrix_setup s;
    matrix_battle b, before;
    matrix_result r;
    dice_source d;
    err_info e;
} bfix;

static bfix *bfix_new(void)
{
    bfix *f = calloc(1, sizeof *f);

    ck_assert_ptr_nonnull(f);
    return f;
}

static void bfix_start(bfix *f, const int *values, size_t n)
{
    dice_init_values(&f->d, DICE_ENTERED, values, n);
    MFIX_OK(matrix_battle_init(&f->b, &f->s, &f->e), &f->e);
}

static void bfix_free(bfix *f)
{
    dice_cleanup(&f->d);
    free(f);
}

/* Each row: army a's one die in a 1:1 combat (the other army rolls 6 with
 * no modifier) and the score the modifiers make of it, kept as rolled
 * even below 1 (the fate is the reference model's, from 1). */
static const struct {
    int army, quality, argument;
    bool is_ambushing, is_exhausted;
    int natural, score;
} modifier_rows[] = {
    {0, 0, 0, false, false, 3, 3},  {0, 0, 0, true, false, 3, 4},
    {1, 0, 0, true, false, 3, 4},   {0, 0, 0, false, true, 3, 2},
    {1, 0, 0, false, true, 3, 2},   {0, 0, 0, true, true, 3, 3},
    {0, 2, 1, true, false, 3, 7},   {1, -3, -1, false, true, 1, -4},
    {0, 3, 1, true, false, 6, 11},  {1, 1, -1, false, false, 5, 5},
    {0, -1, 0, false, false, 1, 0}, /* 0 counts as 1: routed by 6 */
};

START_TEST(test_modifier_row)
{
    const int a = modifier_rows[_i].army;
    int values[2] = {6, 6};
    bfix *f = bfix_new();
    matrix_army *m = &f->s.armies[a];

    mfix_setup_line(&f->s, MATRIX_OPEN, 1, 1, 1);
    m->quality[0] = modifier_rows[_i].quality;
    m->argument = modifier_rows[_i].argument;
    m->is_ambushing = modifier_rows[_i].is_ambushing;
    m->is_exhausted = modifier_rows[_i].is_exhausted;
    values[a] = modifier_rows[_i].natural;
    bfix_start(f, values, 2);
    MFIX_OK(matrix_roll(&f->b, 0, &f->d, &f->e), &f->e);
    ck_assert_int_eq(f->b.combats[0].score[a], modifier_rows[_i].score);
    ck_assert_int_eq(f->b.combats[0].score[1 - a], 6);
    ck_assert_int_eq(f->d.log[a].modified, modifier_rows[_i].score);
    mfix_check_battle(&f->b, &f->d);
    bfix_free(f);
}
END_TEST

/* Ambush +1 and exhaustion -1 on the line dice and on a reserve's (which
 * also takes its own -1). */
START_TEST(test_modifiers_reserve)
{
    static const int values[] = {2, 6, 4};
    bfix *f = bfix_new();

    mfix_setup_line(&f->s, MATRIX_OPEN, 2, 1, 1);
    f->s.armies[0].is_ambushing = true;
    f->s.armies[0].argument = 1;
    f->s.armies[0].quality[0] = 1;
    f->s.armies[1].is_exhausted = true;
    f->s.armies[1].argument = -1;
    ck_assert_int_eq(matrix_army_modifier(&f->s.armies[0]), 2);
    ck_assert_int_eq(matrix_army_modifier(&f->s.armies[1]), -2);
    bfix_start(f, values, 3);
    MFIX_OK(matrix_roll(&f->b, 0, &f->d, &f->e), &f->e);
    ck_assert_int_eq(f->b.combats[0].score[0], 5); /* 2 + 1 + 1 + 1 */
    ck_assert_int_eq(f->b.combats[0].score[1], 4); /* 6 - 1 - 1 */
    ck_assert_int_eq(f->b.combats[0].fate, MATRIX_REPULSED);
    MFIX_OK(matrix_commit(&f->b, 0, 0, 1, &f->d, &f->e), &f->e);
    ck_assert_int_eq(f->d.log[2].modified, 5); /* 4 - 1 + 1 + 1 */
    ck_assert_int_eq(f->b.combats[0].score[0], 10);
    ck_assert_int_eq(f->b.combats[0].fate, MATRIX_BEATEN); /* 10:4 */
    ck_assert_int_eq(f->b.combats[0].loser, 1);
    mfix_check_battle(&f->b, &f->d);
    bfix_free(f);
}
END_TEST

/* Scores below 1 count as 1; the ratio is exact at its boundaries. */
static const struct {
    int s0, s1;
    matrix_fate f;
    int loser;
} compares[] = {
    {0, 3, MATRIX_ROUTED, 0},     {-4, 1, MATRIX_NONE, -1},
    {-4, 2, MATRIX_BEATEN, 0},    {1, -2, MATRIX_NONE, -1},
    {0, 0, MATRIX_NONE, -1},      {-1, 3, MATRIX_ROUTED, 0},
    {0, 2, MATRIX_BEATEN, 0},     {3, 2, MATRIX_REPULSED, 1},
    {4, 2, MATRIX_BEATEN, 1},     {5, 2, MATRIX_BEATEN, 1},
    {6, 2, MATRIX_ROUTED, 1},     {199, 100, MATRIX_REPULSED, 1},
    {200, 100, MATRIX_BEATEN, 1}, {299, 100, MATRIX_BEATEN, 1},
    {300, 100, MATRIX_ROUTED, 1}, {101, 100, MATRIX_REPULSED, 1},
    {7, 7, MATRIX_NONE, -1},      {1, 2, MATRIX_BEATEN, 0},
    {1, 1000, MATRIX_ROUTED, 0},  {6, 5, MATRIX_REPULSED, 1},
};

START_TEST(test_compare_row)
{
    check_compare(compares[_i].s0, compares[_i].s1, compares[_i].f,
                  compares[_i].loser);
}
END_TEST

/* The army state: n against n in 1:1 combats, quality 0; dice: each
 * combat's naturals, attacker's first ("13 62": 1 against 3, 6 against 2);
 * basis b(attle), w(inner) or l(oser); state: the row of matrix.md's
 * table, 0 the most severe.  pursue -1: unchecked (a drawn battle has no
 * winner to pursue, and matrix.md does not say). */
static const struct {
    const char *name, *dice;
    char basis;
    int p0, p1, winner, state, pursue, withdraw, exhausted;
} state_rows[] = {
    {"half routed", "13 62 61", 'b', 3, 6, 0, 0, 0, 1, 1},
    {"winner basis", "13 62 61", 'w', 3, 6, 0, 1, 0, 0, 1},
    {"loser basis", "13 62 61", 'l', 3, 6, 0, 0, 0, 1, 1},
    {"some routed", "66 61", 'b', 0, 3, 0, 1, 0, 0, 1},
    {"winner unhurt", "66 61", 'w', 0, 3, 0, 3, 1, 0, 0},
    {"loser half routed", "66 61", 'l', 0, 3, 0, 0, 0, 1, 1},
    {"some beaten", "42 33 55", 'b', 0, 2, 0, 2, 0, 0, 0},
    {"half beaten, drawn", "42 24", 'b', 2, 2, -1, 1, 0, 0, 1},
    {"repulsed, drawn", "32 23", 'b', 1, 1, -1, 3, -1, 0, 0},
    {"even", "66", 'b', 0, 0, -1, 3, -1, 0, 0},
    {"repulsed only", "32 44", 'b', 0, 1, 0, 3, 1, 0, 0},
    {"D wins", "13 13 66 66", 'b', 6, 0, 1, 1, 0, 0, 1},
    {"D wins, loser", "13 13 66 66", 'l', 6, 0, 1, 0, 0, 1, 1},
    {"D wins, winner", "13 13 66 66", 'w', 6, 0, 1, 3, 1, 0, 0},
};

/* Fights state row i into a new fixture, its result in f->r. */
static bfix *play_state_row(int i)
{
    const char *dice = state_rows[i].dice;
    int values[8], c, n = (int)(strlen(dice) + 1) / 3;
    bfix *f = bfix_new();

    mfix_setup_line(&f->s, MATRIX_OPEN, n, n, n);
    f->s.basis = state_rows[i].basis == 'w'   ? MATRIX_BASIS_WINNER
                 : state_rows[i].basis == 'l' ? MATRIX_BASIS_LOSER
                                              : MATRIX_BASIS_BATTLE;
    for (c = 0; c < n; c++) {
        values[2 * c] = dice[3 * c] - '0';
        values[2 * c + 1] = dice[3 * c + 1] - '0';
    }
    bfix_start(f, values, (size_t)(2 * n));
    for (c = 0; c < n; c++) {
        MFIX_OK(matrix_roll(&f->b, c, &f->d, &f->e), &f->e);
        MFIX_OK(matrix_accept(&f->b, c, &f->e), &f->e);
    }
    MFIX_OK(matrix_battle_result(&f->b, &f->r, &f->e), &f->e);
    mfix_check_result(&f->b, &f->r);
    return f;
}

START_TEST(test_state_row)
{
    bfix *f = play_state_row(_i);

    ck_assert_int_eq(f->r.points[0], state_rows[_i].p0);
    ck_assert_int_eq(f->r.points[1], state_rows[_i].p1);
    ck_assert_int_eq(f->r.winner, state_rows[_i].winner);
    ck_assert_msg((int)f->r.state == state_rows[_i].state, "%s: %s",
                  state_rows[_i].name, matrix_state_name(f->r.state));
    if (state_rows[_i].pursue >= 0)
        ck_assert_int_eq(f->r.is_winner_pursuing, state_rows[_i].pursue);
    ck_assert_int_eq(f->r.is_winner_withdrawing, state_rows[_i].withdraw);
    ck_assert_int_eq(f->r.is_exhausted[0], state_rows[_i].exhausted);
    ck_assert_int_eq(f->r.is_exhausted[1], state_rows[_i].exhausted);
    bfix_free(f);
}
END_TEST

/* "Exhaustion": a battle of turn 3 whose row exhausts both armies marks
 * both sides with turn 4, and the mark makes them fight exhausted in a
 * battle of turn 4 only: not in another of turn 3, nor in turn 5.  Any
 * other row marks no one. */
START_TEST(test_exhaustion_row)
{
    bfix *f = play_state_row(_i);
    bool is_exhausted = state_rows[_i].exhausted != 0;
    int a, mark;

    for (a = 0; a < 2; a++) {
        mark = matrix_exhausted_turn(&f->r, a, 3);
        ck_assert_int_eq(mark, is_exhausted ? 4 : 0);
        ck_assert(matrix_is_exhausted_in(mark, 4) == is_exhausted);
        ck_assert(!matrix_is_exhausted_in(mark, 3));
        ck_assert(!matrix_is_exhausted_in(mark, 5));
    }
    bfix_free(f);
}
END_TEST

/* A side without a mark (0) is never exhausted, whatever the turn. */
START_TEST(test_exhaustion_no_mark)
{
    ck_assert(!matrix_is_exhausted_in(0, 1));
    ck_assert(!matrix_is_exhausted_in(0, 1000000));
    ck_assert(matrix_is_exhausted_in(1, 1));
    ck_assert(matrix_is_exhausted_in(1000001, 1000001));
}
END_TEST

/* A skirmish of same-size armies: both commit reserves; the defender's
 * unit 2 stays back, so no escalation. */
START_TEST(test_skirmish_both_reserves)
{
    static const int values[] = {3, 3, 4, 5, 6};
    bfix *f = bfix_new();

    mfix_setup_skirmish(&f->s);
    ck_assert_int_eq(matrix_reserve_army(&f->s), 2);
    bfix_start(f, values, N_ELEMS(values));
    MFIX_OK(matrix_roll(&f->b, 0, &f->d, &f->e), &f->e);
    MFIX_OK(matrix_commit(&f->b, 0, 0, 1, &f->d, &f->e), &f->e); /* A 6 */
    MFIX_OK(matrix_commit(&f->b, 0, 1, 1, &f->d, &f->e), &f->e); /* D 7 */
    ck_assert_int_eq(f->b.combats[0].loser, 0);
    MFIX_OK(matrix_commit(&f->b, 0, 0, 2, &f->d, &f->e), &f->e); /* A 11 */
    ck_assert(!f->b.is_escalated);
    ck_assert_int_eq(f->b.combats[0].loser, 1);
    ck_assert_int_eq(f->b.combats[0].fate, MATRIX_REPULSED);
    MFIX_OK(matrix_accept(&f->b, 0, &f->e), &f->e);
    ck_assert(matrix_is_over(&f->b));
    MFIX_OK(matrix_battle_result(&f->b, &f->r, &f->e), &f->e);
    mfix_check_battle(&f->b, &f->d);
    mfix_check_result(&f->b, &f->r);
    ck_assert_int_eq(f->r.fates[1][1], MATRIX_REPULSED); /* the reserve too */
    ck_assert(!f->r.has_fought[1][2]);
    ck_assert_int_eq(f->r.points[1], 2);
    bfix_free(f);
}
END_TEST

/* Both armies commit all their reserves: the skirmish escalates at once
 * (on the last), is over, and has no result.  (Acting after it: the
 * refusals; an escalated plan: the properties.) */
START_TEST(test_skirmish_escalation)
{
    static const int values[] = {3, 3, 1, 1, 1, 1};
    const int who[4][2] = {{0, 1}, {1, 1}, {0, 2}, {1, 2}};
    bfix *f = bfix_new();
    int k;

    mfix_setup_skirmish(&f->s);
    bfix_start(f, values, N_ELEMS(values));
    MFIX_OK(matrix_roll(&f->b, 0, &f->d, &f->e), &f->e);
    for (k = 0; k < 4; k++) {
        ck_assert(!f->b.is_escalated && !matrix_is_over(&f->b));
        MFIX_OK(matrix_commit(&f->b, 0, who[k][0], who[k][1], &f->d, &f->e),
                &f->e);
    }
    ck_assert(f->b.is_escalated && matrix_is_over(&f->b));
    err_clear(&f->e);
    ck_assert_int_eq(matrix_battle_result(&f->b, &f->r, &f->e), ERR_CONFLICT);
    mfix_check_battle(&f->b, &f->d);
    bfix_free(f);
}
END_TEST

/* ---- refusals ---- */

/* The setups: 3 v 2 in two 1:1 combats (the attacker's unit 2 in
 * reserve), 2 v 2 in two, and setup_skirmish. */
enum { S_OPEN, S_SAME, S_SKIRMISH };

/*
 * Each row: a script of actions that succeed, then the action refused,
 * its code and field.  Actions, space separated: "r0" rolls combat 0,
 * "a0" accepts it, "c0A2" commits the attacker's unit 2 to it (D the
 * defender's, X an army 2 that does not exist), "x" asks for the result.
 */
static const struct {
    int setup;
    const char *prep, *refused;
    err_code code;
    const char *field;
} act_refusals[] = {
    /* the order of actions */
    {S_OPEN, "r0", "r0", ERR_CONFLICT, "combat"},
    {S_OPEN, "", "c0A2", ERR_CONFLICT, "combat"},
    {S_OPEN, "r0 a0", "c0A2", ERR_CONFLICT, "combat"},
    {S_OPEN, "", "a0", ERR_CONFLICT, "combat"},
    {S_OPEN, "r0 a0", "a0", ERR_CONFLICT, "combat"},
    {S_OPEN, "r0 a0", "x", ERR_CONFLICT, ""},
    /* who commits what */
    {S_OPEN, "r0 c0A2 a0 r1", "c1A2", ERR_RULE, "unit"},
    {S_OPEN, "r0", "r1", ERR_CONFLICT, "combat"}, /* one combat at a time */
    {S_OPEN, "r0 c0A2", "c0A2", ERR_RULE, "unit"},
    {S_OPEN, "r0", "c0A1", ERR_RULE, "unit"},
    {S_OPEN, "r0", "c0D1", ERR_RULE, "army"},
    {S_SAME, "r0", "c0A1", ERR_RULE, "army"},
    {S_SKIRMISH, "r0", "c0D0", ERR_RULE, "unit"},
    /* no such thing */
    {S_OPEN, "r0", "c0A3", ERR_INVALID, "unit"},
    {S_OPEN, "r0", "c0X2", ERR_INVALID, "army"},
    {S_OPEN, "", "r2", ERR_INVALID, "combat"},
    /* after the battle is over, or the skirmish escalated */
    {S_SAME, "r0 a0 r1 a1", "r0", ERR_CONFLICT, "combat"},
    {S_OPEN, "r0 a0 r1 a1", "c1A2", ERR_CONFLICT, "combat"},
    {S_OPEN, "r0 a0 r1 a1", "a1", ERR_CONFLICT, "combat"},
    {S_SKIRMISH, "r0 c0A1 c0A2 c0D1 c0D2", "c0D1", ERR_CONFLICT, "combat"},
    {S_SKIRMISH, "r0 c0A1 c0A2 c0D1 c0D2", "a0", ERR_CONFLICT, "combat"},
};

/* One action of a script (see act_refusals). */
static err_code do_act(bfix *f, const char *a)
{
    int c = a[0] == 'x' ? 0 : a[1] - '0';

    switch (a[0]) {
    case 'r': return matrix_roll(&f->b, c, &f->d, &f->e);
    case 'c':
        return matrix_commit(&f->b, c,
                             a[2] == 'A'   ? 0
                             : a[2] == 'D' ? 1
                                           : 2,
                             a[3] - '0', &f->d, &f->e);
    case 'a': return matrix_accept(&f->b, c, &f->e);
    default: return matrix_battle_result(&f->b, &f->r, &f->e);
    }
}

START_TEST(test_action_refusal)
{
    static const int values[16] = {3, 4, 5, 2, 6, 1, 3, 4,
                                   5, 2, 6, 1, 3, 4, 5, 2};
    const char *p = act_refusals[_i].prep;
    bfix *f = bfix_new();
    size_t n_log, next;
    err_code rc;

    if (act_refusals[_i].setup == S_SKIRMISH)
        mfix_setup_skirmish(&f->s);
    else
        mfix_setup_line(&f->s, MATRIX_OPEN,
                        act_refusals[_i].setup == S_OPEN ? 3 : 2, 2, 2);
    bfix_start(f, values, N_ELEMS(values));
    for (; *p != '\0'; p += strcspn(p, " ")) {
        p += strspn(p, " ");
        MFIX_OK(do_act(f, p), &f->e);
    }
    memcpy(&f->before, &f->b, sizeof f->b);
    n_log = f->d.n_log;
    next = f->d.next_value;
    err_clear(&f->e);
    rc = do_act(f, act_refusals[_i].refused);
    ck_assert_msg(rc == act_refusals[_i].code, "%s then %s: %s (%s)",
                  act_refusals[_i].prep, act_refusals[_i].refused,
                  err_code_name(rc), f->e.message);
    ck_assert_int_eq(f->e.code, act_refusals[_i].code);
    ck_assert_str_eq(f->e.field, act_refusals[_i].field);
    ck_assert_msg(memcmp(&f->b, &f->before, sizeof f->b) == 0,
                  "%s: the battle changed", act_refusals[_i].refused);
    ck_assert_uint_eq(f->d.n_log, n_log);
    ck_assert_uint_eq(f->d.next_value, next);
    mfix_check_battle(&f->b, &f->d);
    bfix_free(f);
}
END_TEST

/* Setups spoiled one way each, from 3 v 2 in two 1:1 combats (attacker's
 * unit 2 in reserve) or, for "skirmish", setup_skirmish. */
static const struct {
    const char *name;
    err_code code;
    const char *field;
} setup_refusals[] = {
    {"same-size armies with reserves", ERR_RULE, "attacker.units[2]"},
    {"two against one by the smaller army", ERR_RULE, "line[0]"},
    {"a unit twice in the line", ERR_RULE, "line[1]"},
    {"a smaller-army unit left out", ERR_RULE, "defender.units[1]"},
    {"argument 2", ERR_RANGE, "attacker.argument"},
    {"argument -2", ERR_RANGE, "defender.argument"},
    {"both armies ambushing", ERR_RULE, "ambush"},
    {"skirmish: two combats", ERR_RULE, "line"},
    {"skirmish: three reserves", ERR_RULE, "attacker.reserve"},
    {"reserve in an open battle", ERR_RULE, "attacker.reserve"},
    {"skirmish: two against one", ERR_RULE, "line[0]"},
    {"quality 4", ERR_RANGE, "attacker.units[1].quality"},
    {"no units", ERR_RANGE, "defender.units"},
    {"skirmish: a reserve in the line", ERR_RULE, "attacker.reserve[0]"},
    {"skirmish: a reserve twice", ERR_RULE, "defender.reserve[1]"},
    {"no such unit in the line", ERR_INVALID, "line[1]"},
    {"no line", ERR_RANGE, "line"},
    {"same-size armies, two against one", ERR_RULE, "line[0]"},
};

static void spoil_setup(int i, matrix_setup *s)
{
    if (strncmp(setup_refusals[i].name, "skirmish", 8) == 0)
        mfix_setup_skirmish(s);
    else
        mfix_setup_line(s, MATRIX_OPEN, 3, 2, 2);
    switch (i) {
    case 0: mfix_setup_line(s, MATRIX_OPEN, 3, 3, 2); break;
    case 1:
        s->line[0].units[1][1] = 1;
        s->line[0].n_units[1] = 2;
        s->n_line = 1;
        break;
    case 2: s->line[1].units[0][0] = 0; break;
    case 3: s->n_line = 1; break;
    case 4: s->armies[0].argument = 2; break;
    case 5: s->armies[1].argument = -2; break;
    case 6: s->armies[0].is_ambushing = s->armies[1].is_ambushing = true; break;
    case 7:
        s->n_line = 2;
        s->line[1] = s->line[0];
        break;
    case 8: s->armies[0].n_reserve = 3; break;
    case 9:
        s->armies[0].reserve[0] = 2;
        s->armies[0].n_reserve = 1;
        break;
    case 10:
        s->line[0].units[0][1] = 1;
        s->line[0].n_units[0] = 2;
        break;
    case 11: s->armies[0].quality[1] = MATRIX_QUALITY_MAX + 1; break;
    case 12: s->armies[1].n_units = 0; break;
    case 13: s->armies[0].reserve[0] = 0; break;
    case 14: s->armies[1].reserve[1] = 1; break;
    case 15: s->line[1].units[1][0] = 5; break;
    case 16: s->n_line = 0; break;
    case 17:
        mfix_setup_line(s, MATRIX_OPEN, 3, 3, 2);
        s->line[0].units[0][1] = 2;
        s->line[0].n_units[0] = 2;
        break;
    }
}

/* Refused by the check, by init and by matrix_resolve with the same code
 * and field; the setup untouched and no die drawn. */
START_TEST(test_setup_refusal)
{
    matrix_outcome *out = calloc(1, sizeof *out);
    matrix_plan *p = calloc(1, sizeof *p);
    matrix_setup copy;
    uint8_t seed[RNG_SEED_LEN];
    bfix *f = bfix_new();
    err_info e;

    ck_assert(out && p);
    spoil_setup(_i, &f->s);
    copy = f->s;
    err_clear(&e);
    ck_assert_msg(matrix_check_setup(&f->s, &e) == setup_refusals[_i].code,
                  "%s: %s %s", setup_refusals[_i].name, err_code_name(e.code),
                  e.field);
    ck_assert_str_eq(e.field, setup_refusals[_i].field);
    ck_assert(memcmp(&copy, &f->s, sizeof copy) == 0);
    err_clear(&e);
    ck_assert_int_eq(matrix_battle_init(&f->b, &f->s, &e),
                     setup_refusals[_i].code);
    ck_assert_str_eq(e.field, setup_refusals[_i].field);
    p->setup = f->s;
    mfix_seed((uint64_t)_i, seed);
    dice_init_seeded(&f->d, seed, NULL, 0);
    err_clear(&e);
    ck_assert_int_eq(matrix_resolve(p, &f->d, out, &e),
                     setup_refusals[_i].code);
    ck_assert_str_eq(e.field, setup_refusals[_i].field);
    ck_assert_uint_eq(f->d.n_log, 0);
    ck_assert(memcmp(&copy, &p->setup, sizeof copy) == 0);
    bfix_free(f);
    free(p);
    free(out);
}
END_TEST

/* A plan's refusal reaches matrix_resolve's caller: a die short, a line
 * unit fed as a reserve, a combat ordered twice (3 v 2, unit 2 fed). */
START_TEST(test_plan_refusal)
{
    static const int values[] = {3, 4, 5, 2, 6};
    static const err_code codes[] = {ERR_DICE, ERR_RULE, ERR_CONFLICT};
    static const char *const fields[] = {"dice", "unit", "combat"};
    matrix_outcome *out = calloc(1, sizeof *out);
    matrix_plan *p = calloc(1, sizeof *p);
    dice_source d;
    err_info e;
    int i;

    ck_assert(out && p);
    for (i = 0; i < 3; i++) {
        mfix_setup_line(&p->setup, MATRIX_OPEN, 3, 2, 2);
        p->order[1] = i == 2 ? 0 : 1;
        p->reserves[0][0] = i == 1 ? 1 : 2;
        p->n_reserves[0] = 1;
        dice_init_values(&d, DICE_ENTERED, values, i == 0 ? 4 : 5);
        err_clear(&e);
        ck_assert_int_eq(matrix_resolve(p, &d, out, &e), codes[i]);
        ck_assert_str_eq(e.field, fields[i]);
        dice_cleanup(&d);
    }
    free(p);
    free(out);
}
END_TEST

/* ---- properties over random battles ---- */

#define N_BATTLES 400
#define LOG_INTS  (offsetof(dice_roll, unit) + sizeof(int))

typedef struct pfix {
    matrix_plan p, p2;
    matrix_outcome o1, o2, o3;
    matrix_battle b;
    matrix_result r;
    int values[MFIX_MAX_DICE];
} pfix;

/* Counts of what the random battles reached, so each check was run. */
typedef struct seen {
    int skirmish, escalated, pairs, reserves, draws, states[4], bases[3];
} seen;

static void resolve_seeded(const matrix_plan *p, uint64_t n, matrix_outcome *o,
                           dice_source *d)
{
    static const uint8_t client[] = "test_matrix";
    uint8_t seed[RNG_SEED_LEN];
    err_info e;

    mfix_seed(n, seed);
    dice_init_seeded(d, seed, client, sizeof client - 1);
    memset(o, 0, sizeof *o);
    MFIX_OK(matrix_resolve(p, d, o, &e), &e);
}

/* The plan's reserves were committed as planned, in order. */
static void check_planned(const matrix_plan *p, const matrix_battle *b)
{
    int c, k;

    for (c = 0; c < p->setup.n_line; c++) {
        const matrix_combat *cb = &b->combats[c];
        ck_assert_int_eq(cb->n_reserves, p->n_reserves[c]);
        for (k = 0; k < cb->n_reserves; k++)
            ck_assert_int_eq(cb->reserves[k].army * MATRIX_MAX_UNITS +
                                 cb->reserves[k].unit,
                             p->reserves[c][k]);
    }
}

/* The same dice per combat, rolled in another order, as a plan and by
 * actions (one combat at a time): the combats and the result are the
 * same. */
static void check_orders(pfix *f, uint64_t n)
{
    uint64_t x = n * 7 + 1;
    int rolls[MATRIX_MAX_COMBATS], i, k, c, ref;
    int n_line = f->p.setup.n_line;
    dice_source d;
    err_info e;
    size_t nv;

    f->p2 = f->p;
    mfix_shuffle(f->p2.order, n_line, &x);
    nv = mfix_replay_dice(&f->o1.battle, f->p2.order, NULL, f->values);
    dice_init_values(&d, DICE_ENTERED, f->values, nv);
    MFIX_OK(matrix_resolve(&f->p2, &d, &f->o3, &e), &e);
    MFIX_OK(dice_check_all_used(&d, &e), &e);
    dice_cleanup(&d);
    ck_assert(memcmp(&f->o3.result, &f->o1.result, sizeof f->r) == 0);

    /* By actions, in another order: while a combat is open, no other
     * combat can be rolled (and the refusal draws nothing). */
    memcpy(rolls, f->p.order, sizeof rolls);
    mfix_shuffle(rolls, n_line, &x);
    nv = mfix_replay_dice(&f->o1.battle, rolls, NULL, f->values);
    dice_init_values(&d, DICE_ENTERED, f->values, nv);
    MFIX_OK(matrix_battle_init(&f->b, &f->p.setup, &e), &e);
    for (i = 0; i < n_line; i++) {
        c = rolls[i];
        MFIX_OK(matrix_roll(&f->b, c, &d, &e), &e);
        if (i + 1 < n_line) {
            size_t n_log = d.n_log;
            err_clear(&e);
            ck_assert_int_eq(matrix_roll(&f->b, rolls[i + 1], &d, &e),
                             ERR_CONFLICT);
            ck_assert_uint_eq(d.n_log, n_log);
        }
        for (k = 0; k < f->p.n_reserves[c]; k++) {
            ref = f->p.reserves[c][k];
            MFIX_OK(matrix_commit(&f->b, c, ref / MATRIX_MAX_UNITS,
                                  ref % MATRIX_MAX_UNITS, &d, &e),
                    &e);
        }
        MFIX_OK(matrix_accept(&f->b, c, &e), &e);
    }
    MFIX_OK(dice_check_all_used(&d, &e), &e);
    mfix_check_battle(&f->b, &d);
    MFIX_OK(matrix_battle_result(&f->b, &f->r, &e), &e);
    ck_assert(memcmp(&f->r, &f->o1.result, sizeof f->r) == 0);
    for (c = 0; c < n_line; c++) {
        const matrix_combat *x1 = &f->o1.battle.combats[c];
        const matrix_combat *x2 = &f->o3.battle.combats[c];
        const matrix_combat *x3 = &f->b.combats[c];
        ck_assert(x1->score[0] == x2->score[0] && x1->score[0] == x3->score[0]);
        ck_assert(x1->score[1] == x2->score[1] && x1->score[1] == x3->score[1]);
        ck_assert(x1->fate == x2->fate && x1->fate == x3->fate);
        ck_assert(x1->loser == x2->loser && x1->loser == x3->loser);
    }
    dice_cleanup(&d);
}

static void note(seen *s, const pfix *f)
{
    const matrix_setup *m = &f->p.setup;
    int c;

    s->skirmish += m->kind == MATRIX_SKIRMISH;
    s->escalated += f->o1.battle.is_escalated;
    s->bases[m->basis]++;
    for (c = 0; c < m->n_line; c++) {
        s->pairs += m->line[c].n_units[0] + m->line[c].n_units[1] == 3;
        s->reserves += f->o1.battle.combats[c].n_reserves;
    }
    if (!f->o1.battle.is_escalated) {
        s->draws += f->o1.result.winner < 0;
        s->states[f->o1.result.state]++;
    }
}

START_TEST(test_property_battles)
{
    pfix *f = calloc(1, sizeof *f);
    seen s;
    uint64_t n;
    int i;

    ck_assert_ptr_nonnull(f);
    memset(&s, 0, sizeof s);
    for (n = 0; n < N_BATTLES; n++) {
        dice_source d1, d2;
        err_info e;

        mfix_random_plan(&f->p, n);
        MFIX_OK(matrix_check_setup(&f->p.setup, &e), &e);
        resolve_seeded(&f->p, n, &f->o1, &d1);
        ck_assert(matrix_is_over(&f->o1.battle));
        mfix_check_battle(&f->o1.battle, &d1);
        check_planned(&f->p, &f->o1.battle);
        note(&s, f);
        if (f->o1.battle.is_escalated) {
            ck_assert_int_eq(f->p.setup.kind, MATRIX_SKIRMISH);
            err_clear(&e);
            ck_assert_int_eq(matrix_battle_result(&f->o1.battle, &f->r, &e),
                             ERR_CONFLICT);
        } else {
            mfix_check_result(&f->o1.battle, &f->o1.result);
            check_orders(f, n);
        }
        /* Determinism: the same plan and seed, the same bytes. */
        resolve_seeded(&f->p, n, &f->o2, &d2);
        ck_assert(memcmp(&f->o1, &f->o2, sizeof f->o1) == 0);
        ck_assert_uint_eq(d1.n_log, d2.n_log);
        for (i = 0; i < (int)d1.n_log; i++) /* the ints, not the padding */
            ck_assert(memcmp(&d1.log[i], &d2.log[i], LOG_INTS) == 0 &&
                      d1.log[i].reason == d2.log[i].reason);
        dice_cleanup(&d1);
        dice_cleanup(&d2);
    }
    ck_assert(s.skirmish > 0 && s.escalated > 0 && s.pairs > 0);
    ck_assert(s.reserves > 0 && s.draws > 0);
    for (i = 0; i < 4; i++)
        ck_assert_msg(s.states[i] > 0, "state %d never reached", i);
    for (i = 0; i < 3; i++)
        ck_assert_int_gt(s.bases[i], 0);
    free(f);
}
END_TEST

Suite *suite_matrix(void)
{
    Suite *s = suite_create("matrix");
    TCase *vec = tcase_create("vectors");
    TCase *rules = tcase_create("rules");
    TCase *refuse = tcase_create("refusals");
    TCase *prop = tcase_create("properties");

    tcase_add_test(vec, test_vector_ratios);
    tcase_add_loop_test(vec, test_vector_battle, 0,
                        (int)N_ELEMS(vector_battles));
    suite_add_tcase(s, vec);

    tcase_add_test(rules, test_names);
    tcase_add_loop_test(rules, test_modifier_row, 0,
                        (int)N_ELEMS(modifier_rows));
    tcase_add_test(rules, test_modifiers_reserve);
    tcase_add_loop_test(rules, test_compare_row, 0, (int)N_ELEMS(compares));
    tcase_add_loop_test(rules, test_state_row, 0, (int)N_ELEMS(state_rows));
    tcase_add_loop_test(rules, test_exhaustion_row, 0,
                        (int)N_ELEMS(state_rows));
    tcase_add_test(rules, test_exhaustion_no_mark);
    tcase_add_test(rules, test_skirmish_both_reserves);
    tcase_add_test(rules, test_skirmish_escalation);
    suite_add_tcase(s, rules);

    tcase_add_loop_test(refuse, test_action_refusal, 0,
                        (int)N_ELEMS(act_refusals));
    tcase_add_loop_test(refuse, test_setup_refusal, 0,
                        (int)N_ELEMS(setup_refusals));
    tcase_add_test(refuse, test_plan_refusal);
    suite_add_tcase(s, refuse);

    tcase_set_timeout(prop, 60);
    tcase_add_test(prop, test_property_battles);
    suite_add_tcase(s, prop);
    return s;
}
