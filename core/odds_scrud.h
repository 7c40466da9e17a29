/*
 * odds_scrud.h: the odds of a SCRUD combat (docs/rules/scrud.md;
 * docs/odds.md, "SCRUD") through scrud_resolve itself: each side's
 * defeats, each unit's chances of a defeat and of elimination (by the
 * threshold or for its side's defeats), which side suffers more, and the
 * penalties units carry out of the combat.
 *
 * Identical units listed next to each other on a side (same quality,
 * penalties, faces, reserve or not, and modifier) form a block whose dice
 * are enumerated as multisets.  Adjacency matters: the rules break ties
 * by the order units are listed in (the line-up, the loss for defeats),
 * and only a block that no other unit stands between keeps every tie with
 * the rest the same whichever member holds which die.  Within a block the
 * order still decides between equal dice (the first listed lines up
 * first), so each member is counted in every role the orderings give it
 * (odds_roles): each unit's chances are its own, exactly.
 */
#ifndef UMPIRE_ODDS_SCRUD_H
#define UMPIRE_ODDS_SCRUD_H

#include "odds.h"
#include "scrud.h"

typedef struct odds_scrud_unit {
    unsigned block;           /* members of its block (1: alone) */
    odds_acc defeated;        /* suffered a defeat */
    odds_acc defeats;         /* defeats suffered, for the mean */
    odds_acc eliminated;      /* eliminated, by either rule */
    odds_acc by_threshold;    /* ... by the threshold (step 8) */
    odds_acc by_defeats;      /* ... for the side's defeats (step 9) */
    odds_acc defeat_penalty;  /* after the combat, for the mean */
    odds_acc fatigue_penalty; /* after the combat, for the mean */
} odds_scrud_unit;

typedef struct odds_scrud {
    odds_scrud_unit *units[2]; /* owned, in listed order */
    size_t n_units[2];
    odds_acc *defeats[2]; /* owned: [d], the side suffered exactly d */
    int max_defeats[2];   /* the last entry of defeats[s] */
    odds_acc mean_defeats[2];
    /* [0] the first side suffers more defeats, [1] the second, [2] as
     * many */
    odds_acc more[3];
    odds_count total; /* the throws (exact) or the samples */
    odds_stats stats;
} odds_scrud;

/*
 * The odds of in (checked as scrud_resolve checks it: its errors) within
 * l, into out (caller storage; odds_scrud_cleanup after, also on
 * failure).  ERR_LIMIT when l demands exact odds over its budget, or the
 * time bound passes.
 */
err_code odds_scrud_compute(const scrud_input *in, const odds_limits *l,
                            odds_scrud *out, err_info *e);

void odds_scrud_cleanup(odds_scrud *o);

#endif
