/*
 * odds_civ.h: the odds of a Civilization phase and battle
 * (docs/rules/civ.md; docs/odds.md, "Civilization") through
 * civ_fight_phase itself: each army's phase total, which army's total is
 * higher, each piece's chance of being destroyed, and the battle fought
 * on to its end on standing orders.
 *
 * A phase hangs on the dice only through the two totals (step 4 destroys
 * pieces in an order fixed before the dice, as far as the other army's
 * total pays), and an army's total only on its own dice: each army's
 * throws are counted by its total (a wave's pieces of one era, and
 * aircraft of one dice multiplier, are exchangeable: their dice are
 * summed), keeping one throw of each total, and every pair of totals is
 * fought once, weighted by the product of their counts (a convolution).
 * The battle is exact while its paths fit a tenth of the budget of
 * resolve calls and their fractions fit ODDS_THROWS_BITS (a battle of few,
 * decisive phases); else it is sampled, phase after phase through the
 * rules.
 */
#ifndef UMPIRE_ODDS_CIV_H
#define UMPIRE_ODDS_CIV_H

#include "civ.h"
#include "odds.h"

#define ODDS_CIV_BATTLE_SHARE 10 /* the battle's exact paths: budget / this */

typedef struct odds_civ_input {
    const civ_battle *battle; /* as it stands (borrowed) */
    civ_orders orders[2];     /* this phase's */
    /* The battle on from here: the phase above, then phases on standing
     * orders (their casualty orders as preferences, civ.h), max_phases
     * in all; has_battle false: the phase alone. */
    bool has_battle;
    civ_orders standing[2];
    int max_phases;
} odds_civ_input;

/* A distribution over totals: keys ascending, each with its sum. */
typedef struct odds_civ_totals {
    int *keys;
    odds_acc *accs;
    size_t n, cap;
} odds_civ_totals;

typedef struct odds_civ_army {
    odds_civ_totals totals; /* its phase total */
    odds_acc mean_total;
    odds_acc destroyed[CIV_MAX_UNITS]; /* in the phase */
    odds_acc mean_destroyed;           /* its pieces lost, aircraft too */
} odds_civ_army;

typedef struct odds_civ {
    odds_civ_army armies[2];
    /* [0] the attacker's total is higher, [1] the defender's, [2] equal */
    odds_acc higher[3];
    /* after the phase: [0] the attacker has won, [1] the defender, [2]
     * both gone, [3] the battle goes on */
    odds_acc after[4];
    odds_count total; /* the phase's throws or samples */
    odds_stats phase_stats;
    bool has_battle;
    /* the battle: [0] the attacker wins, [1] the defender, [2] both gone,
     * [3] unresolved at the phase limit */
    odds_value winner[4];
    odds_value lost[2][CIV_MAX_UNITS]; /* destroyed by the battle's end */
    odds_value mean_phases;
    odds_stats battle_stats;
    odds_stats stats; /* both */
} odds_civ;

/* The odds of in into out (caller storage; large: allocate it;
 * odds_civ_cleanup after, also on failure).  Refused as civ_fight_phase
 * refuses the orders, and ERR_LIMIT as odds.h says. */
err_code odds_civ_compute(const odds_civ_input *in, const odds_limits *l,
                          odds_civ *out, err_info *e);

void odds_civ_cleanup(odds_civ *o);

#endif
