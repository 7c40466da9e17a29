/*
 * odds_matrix.h: the odds of a Matrix game battle (docs/rules/matrix.md;
 * docs/odds.md, "Matrix") through core/matrix.c itself: each combat's
 * result as it stands and if a named reserve joins it, and the battle's
 * casualty points, winner, army state and exhaustion, from a battle not
 * yet begun (a one-off plan) or one half fought (a campaign battle).
 *
 * A combat hangs only on its own dice: each combat's throws are counted
 * apart (the dice of one army's units of the same quality, line or
 * reserve, are exchangeable: a side's score is their sum), by class of
 * result (even, or which army is repulsed, beaten or routed), keeping one
 * throw of each class.  The battle hangs on the combats only through
 * those classes: every combination of them is fought through the rules
 * with its throws, weighted by the product of their counts (exact while
 * the combinations fit the budget), else the rest of the battle is
 * sampled, every combat with it.
 */
#ifndef UMPIRE_ODDS_MATRIX_H
#define UMPIRE_ODDS_MATRIX_H

#include "matrix.h"
#include "odds.h"

/* A combat's classes: 0 even; 1 + 3 * loser + (fate - 1) otherwise, the
 * loser MATRIX_ATTACKER or MATRIX_DEFENDER, the fate repulsed, beaten,
 * routed. */
#define ODDS_MATRIX_CLASSES 7
#define ODDS_MATRIX_POINTS  (3 * MATRIX_MAX_UNITS) /* most points an army */

/* The battle and what is asked of it. */
typedef struct odds_matrix_input {
    const matrix_battle *battle; /* as it stands (borrowed): a fresh one
                                  * for a one-off plan */
    /* The rest: plan->order[0..n_order) the combats still to roll, in
     * the attacker's order; plan->reserves[c] those planned for combat c
     * (army * MATRIX_MAX_UNITS + unit).  A combat rolled and not yet
     * accepted is accepted as it stands before the rest. */
    const matrix_plan *plan;
    int n_order;
    /* A reserve considered: unit of army joining combat with_combat (-1:
     * none), after the reserves planned for it. */
    int with_combat, with_army, with_unit;
} odds_matrix_input;

typedef struct odds_matrix_combat {
    bool is_rolled, is_accepted; /* as it stands */
    odds_acc now[ODDS_MATRIX_CLASSES];
    odds_count now_total; /* throws or samples (1: settled, no die) */
    bool is_now_exact;
    bool has_with; /* the reserve considered joins this combat */
    odds_acc with[ODDS_MATRIX_CLASSES];
    odds_count with_total;
    bool is_with_exact;
} odds_matrix_combat;

typedef struct odds_matrix_battle {
    odds_acc winner[3]; /* the attacker wins, the defender wins, a draw */
    odds_acc state[4];  /* the army state, by matrix_state */
    odds_acc exhausted; /* both armies exhausted */
    odds_acc escalated; /* a skirmish escalated: no result */
    odds_acc points[2][ODDS_MATRIX_POINTS + 1];
    odds_acc mean_points[2];
    /* [fate]: each unit's fate (MATRIX_NONE for one that did not fight
     * or was not beaten) */
    odds_acc fates[2][MATRIX_MAX_UNITS][4];
    odds_acc fought[2][MATRIX_MAX_UNITS];
    odds_count total;
    odds_stats stats;
} odds_matrix_battle;

typedef struct odds_matrix {
    odds_matrix_combat combats[MATRIX_MAX_COMBATS];
    int n_combats;
    odds_matrix_battle battle;      /* the rest as planned */
    odds_matrix_battle battle_with; /* ... with the reserve considered */
    bool has_with;
    odds_stats stats; /* every part */
} odds_matrix;

/*
 * The odds of in into out (caller storage; large: allocate it).  Refused
 * as the rules refuse the plan's actions (a reserve that is not in its
 * army's reserve, or already committed: ERR_RULE; a battle over:
 * ERR_CONFLICT), and ERR_LIMIT as odds.h says.
 */
err_code odds_matrix_compute(const odds_matrix_input *in, const odds_limits *l,
                             odds_matrix *out, err_info *e);

#endif
