/*
 * matrix_fixture.h: helpers of the Matrix suite (tests/core/test_matrix.c):
 * the vectors' battles read into a matrix_plan (army names and unit ids
 * kept, so expectations can name them) and played, random plans from a small
 * PRNG of our own, and a reference model of matrix.md written apart from
 * core/matrix.c, checked against a battle and its result.  Helpers abort
 * the test (Check) on failure.
 */
#ifndef UMPIRE_TESTS_MATRIX_FIXTURE_H
#define UMPIRE_TESTS_MATRIX_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include <check.h>
#include <jansson.h>

#include "dice.h"
#include "matrix.h"

/* call returns ERR_OK, else the test fails with e's field and message. */
#define MFIX_OK(call, e)                                                       \
    do {                                                                       \
        err_clear(e);                                                          \
        ck_assert_msg((call) == ERR_OK, "%s: %s: %s", #call, (e)->field,       \
                      (e)->message);                                           \
    } while (0)

/* Dice of one battle: every line unit and every reserve rolls one. */
#define MFIX_MAX_DICE (4 * MATRIX_MAX_UNITS)

/* The parsed file $UMPIRE_TEST_VECTORS/file (default tests/vectors); new,
 * the caller decrefs. */
json_t *mfix_load_vectors(const char *file);
int mfix_jint(const json_t *j, const char *what);
const char *mfix_jstr(const json_t *j, const char *what);
/* Fails on a key of j not among keys (each between spaces). */
void mfix_known_keys(const json_t *j, const char *keys, const char *what);

/* A battle of the vectors, played (large: on the heap).  Strings are
 * borrowed from the JSON. */
typedef struct mfix_vbattle {
    matrix_plan plan; /* order and reserves from "combats", if any */
    const char *names[2];
    const char *ids[2][MATRIX_MAX_UNITS];
    int values[MFIX_MAX_DICE]; /* the entered dice, in the plan's order */
    size_t n_values;
    matrix_battle b; /* as the actions left it */
    matrix_result r;
    matrix_outcome out; /* scratch for mfix_vbattle_resolve */
} mfix_vbattle;

/*
 * Reads j (kind, attacker, defender, line, reserve, combats, dice) and
 * plays it on entered dice: the combats in the file's order (or the
 * line's, without "combats"), each rolled, checked against
 * "expect_before_reserves" if present, fed its reserves, checked against
 * "expect" (army names for scores, "loser", "result"), accepted; then the
 * result, and both against the reference model.  New: the caller frees.
 */
mfix_vbattle *mfix_vbattle_play(const json_t *j);
/* The result against a battle's expect: casualty_points, winner, loser,
 * army_state, winner_can_pursue, exhausted, unit_results (each optional;
 * null is no fate). */
void mfix_vbattle_expect(const mfix_vbattle *v, const json_t *want);
/* The plan through matrix_resolve and the registry entry: the same battle
 * and result, byte for byte, as the actions gave. */
void mfix_vbattle_resolve(mfix_vbattle *v);
/* Fails on a key of want other than the army names and keys. */
void mfix_expect_keys(const mfix_vbattle *v, const json_t *want,
                      const char *keys, const char *what);
/* A fate as the vectors name it: "even" or matrix_fate_name's word. */
matrix_fate mfix_fate_parse(const char *name);

/* n0 against n1 units of quality 0, the first n_line of each paired in
 * unit order; the rest of the fields zero. */
void mfix_setup_line(matrix_setup *s, matrix_kind kind, int n0, int n1,
                     int n_line);
/* A skirmish of three units each, unit 0 in the line, units 1 and 2 of
 * each army in reserve. */
void mfix_setup_skirmish(matrix_setup *s);

/* v[0..n) shuffled (Fisher-Yates on x). */
void mfix_shuffle(int *v, int n, uint64_t *x);
/* A 32-byte seed from n. */
void mfix_seed(uint64_t n, uint8_t seed[RNG_SEED_LEN]);

/*
 * Plan number n: a valid setup (one in five a skirmish; open battles of 1
 * to 6 units against as many or up to 4 more, two against one for some of
 * the larger army's units; qualities, arguments, one ambush at most,
 * exhaustion, a basis), the combats in a random order, and some of the
 * reserves fed into random combats (in a skirmish sometimes all of them).
 */
void mfix_random_plan(matrix_plan *p, uint64_t n);

/*
 * Entered dice that replay battle b's naturals: the line dice of the
 * combats in roll_order, then (if reserve_order is not NULL) the reserves
 * of the combats in reserve_order; with reserve_order NULL each combat's
 * reserves follow its line dice.  Returns the count written to values.
 */
size_t mfix_replay_dice(const matrix_battle *b, const int *roll_order,
                        const int *reserve_order, int *values);

/*
 * Reference model, step by step from matrix.md: each rolled combat's
 * scores from its naturals, quality and army modifiers (-1 for a
 * reserve), its fate and loser; d's roll log row by row (d holds
 * exactly b's dice).
 */
void mfix_check_battle(const matrix_battle *b, const dice_source *d);

/* a and b are the same battle: every byte the rules set, which is all but
 * the room for reserves a combat has not had (matrix.h). */
bool mfix_battle_equal(const matrix_battle *a, const matrix_battle *b);

/* The battle's result by the reference model: fates, who fought, casualty
 * points, winner, army state and its effects, all compared with r. */
void mfix_check_result(const matrix_battle *b, const matrix_result *r);

#endif
