/*
 * odds_edna.h: the odds of an EDNA test (docs/rules/edna.md; docs/odds.md,
 * "EDNA") through edna_resolve itself: each unit's chance to pass or fail,
 * its EDNA after the test, and its chance of being ineffective now and
 * within k more tests.
 *
 * A test's outcome hangs on the sum of its dice (step 1): the throws of
 * each sum are counted by convolution, and each sum is resolved once, on
 * one throw that makes it.  The tests after this one are a chain over
 * the EDNA a unit is left with, each state's tests resolved the same way.
 * Units alike (the same EDNA and modifiers) are worked out once.  The
 * chain is exact while its throws stay below 2^ODDS_THROWS_BITS and its
 * calls within the budget; otherwise it is sampled.
 */
#ifndef UMPIRE_ODDS_EDNA_H
#define UMPIRE_ODDS_EDNA_H

#include "edna.h"
#include "odds.h"

#define ODDS_EDNA_MAX_AHEAD 20 /* tests after this one, at most */

typedef struct odds_edna_unit {
    odds_value passed, failed;
    odds_value after[EDNA_MAX + 1]; /* [v]: EDNA v after the test */
    odds_value mean_after;          /* EDNA after the test, on average */
    /* [k]: ineffective after this test and k more; [0] is now */
    odds_value within[ODDS_EDNA_MAX_AHEAD + 1];
    bool is_chain_exact;
} odds_edna_unit;

typedef struct odds_edna {
    odds_edna_unit *units; /* owned, in listed order */
    size_t n_units;
    int ahead; /* the tests after this one the chain looks at */
    odds_stats stats;
} odds_edna;

/*
 * The odds of in (checked as edna_resolve checks it) into out (caller
 * storage; odds_edna_cleanup after, also on failure).  ahead (0..
 * ODDS_EDNA_MAX_AHEAD): the tests after this one; later_modifier (NULL:
 * each unit's own for every later test too) the modifier of each unit's
 * later tests.  ERR_LIMIT over l's limits when exact odds are demanded,
 * or past the time bound.
 */
err_code odds_edna_compute(const edna_input *in, const int *later_modifier,
                           int ahead, const odds_limits *l, odds_edna *out,
                           err_info *e);

void odds_edna_cleanup(odds_edna *o);

#endif
