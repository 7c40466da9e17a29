/*
 * civ_fixture.h: helpers of the Civilization suite (tests/core/test_civ.c):
 * setups built unit by unit, the vectors' battles read from JSON (army
 * names and unit ids kept, so expectations can name them) and played phase
 * by phase, random setups and orders from a small PRNG of our own, and a
 * reference model of civ.md written apart from core/civ.c, checked against
 * every phase fought.  Helpers abort the test (Check) on failure.
 */
#ifndef UMPIRE_TESTS_CIV_FIXTURE_H
#define UMPIRE_TESTS_CIV_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include <check.h>
#include <jansson.h>

#include "civ.h"
#include "dice.h"

/* call returns ERR_OK, else the test fails with e's field and message. */
#define CFIX_OK(call, e)                                                       \
    do {                                                                       \
        err_clear(e);                                                          \
        ck_assert_msg((call) == ERR_OK, "%s: %s: %s", #call, (e)->field,       \
                      (e)->message);                                           \
    } while (0)

/* Dice of one phase: every unit of both armies at most. */
#define CFIX_MAX_DICE (2 * CIV_MAX_UNITS)

/* ---- setups and orders ---- */

/* Zero setup in the ancient era, no settlement. */
void cfix_setup_init(civ_setup *s);
/* No wave, no preference, default support (-1), no casualty order. */
void cfix_orders_init(civ_orders o[2]);

/* Army units from spec: per army (attacker first, "|" between) a unit a
 * word: a class letter (i, c, a, o), its era and an optional bonus
 * ("c2+1", "o1-5"), or "p" and a dice multiplier for an aircraft ("p2"). */
void cfix_build(civ_setup *s, const char *spec);
/* The integers of "0 1 -1" into out; returns the count. */
int cfix_list(const char *text, int *out);

/* ---- a hand-worked battle ---- */

typedef struct cfix_hand {
    civ_setup s;
    civ_battle b, before;
    civ_orders o[2];
    civ_phase ph;
    dice_source d;
    err_info e;
} cfix_hand;

/* A battle of cfix_build(spec) in the ancient era, begun, with cleared
 * orders (the setup's other fields may change until the first phase).
 * New: cfix_hand_free. */
cfix_hand *cfix_hand_new(const char *spec);
void cfix_hand_free(cfix_hand *h);
/* One phase on exactly n entered values (borrowed, static), checked by the
 * reference model; then the orders are cleared for the next phase. */
void cfix_fight(cfix_hand *h, const int *values, size_t n);
/* The next phase is refused with code and field: the battle unchanged,
 * no die drawn. */
void cfix_refused(cfix_hand *h, err_code code, const char *field);
/* CFIX_MAX_DICE values of v (static storage, overwritten by the next
 * call with another v). */
const int *cfix_same(int v);
/* p destroyed exactly want[0..n), in order. */
void cfix_destroyed(const civ_army_phase *p, const int *want, int n);

#define CFIX_N(a) (sizeof(a) / sizeof((a)[0]))
#define CFIX_FIGHT(h, ...)                                                     \
    do {                                                                       \
        static const int v_[] = {__VA_ARGS__};                                 \
        cfix_fight(h, v_, CFIX_N(v_));                                         \
    } while (0)
#define CFIX_DESTROYED(p, ...)                                                 \
    do {                                                                       \
        static const int d_[] = {-1, __VA_ARGS__};                             \
        cfix_destroyed(p, d_ + 1, (int)CFIX_N(d_) - 1);                        \
    } while (0)

/* ---- the vectors ---- */

/* The parsed file $UMPIRE_TEST_VECTORS/file (default tests/vectors); new,
 * the caller decrefs. */
json_t *cfix_load_vectors(const char *file);
int cfix_jint(const json_t *j, const char *what);
const char *cfix_jstr(const json_t *j, const char *what);
/* Fails on a key of j not among keys (each between spaces). */
void cfix_known_keys(const json_t *j, const char *keys, const char *what);

/* A battle of the vectors (large: on the heap).  Strings are borrowed from
 * the JSON. */
typedef struct cfix_vbattle {
    const char *name;
    civ_setup setup;
    const char *names[2];              /* the armies' "name" */
    const char *ids[2][CIV_MAX_UNITS]; /* unit ids */
    civ_battle b;                      /* as the phases left it */
    civ_phase phases[8];               /* the phases fought */
    int n_phases;
    int values[CFIX_MAX_DICE]; /* the last phase's entered dice */
    size_t n_values;
} cfix_vbattle;

/*
 * Reads battle j (its setup), then plays every phase of "phases" on its
 * entered dice (the attacker's then the defender's, each in wave order
 * then aircraft), checking each against its "expect" (totals, terms,
 * destroyed) and the reference model, then the battle's "expect" (winner,
 * survivors).  Every key of the file is known or the test fails.  New:
 * the caller frees.
 */
cfix_vbattle *cfix_vbattle_play(const json_t *j);
/* ---- random battles ---- */

/* splitmix64 on *x; a value in lo..hi. */
int cfix_pick(uint64_t *x, int lo, int hi);
/* A 32-byte seed from n. */
void cfix_seed(uint64_t n, uint8_t seed[RNG_SEED_LEN]);
/* Setup number n: 1 to 10 units an army, some aircraft and "other",
 * eras 1..4, bonuses -2..3, technologies 0..8, sometimes a settlement and
 * the Great Wall. */
void cfix_random_setup(civ_setup *s, uint64_t n);
/* Valid orders for b's next phase, at random: each army's wave named (the
 * smaller army's as all its units, shuffled) or left to a preference
 * order, a support class or the default, a casualty order (oldest era
 * first) for some of each wave. */
void cfix_random_orders(const civ_battle *b, civ_orders o[2], uint64_t *x);

/* ---- the reference model ---- */

/*
 * Phase ph, fought on battle before (a copy taken before the call) with
 * orders o and dice d (its roll log holds the phase's dice from
 * ph->armies[0].first_roll on), against civ.md step by step: the waves and
 * their sizes, the aircraft and the class they support, every die and
 * term, the totals, the losses in order with the aircraft going down and
 * the damage lost, the units left alive in after and the winner.
 */
void cfix_check_phase(const civ_battle *before, const civ_battle *after,
                      const civ_orders o[2], const civ_phase *ph,
                      const dice_source *d);

#endif
