/*
 * odds_scs.h: the odds of an SCS combat (docs/rules/scs.md; docs/odds.md,
 * "SCS") through scs_resolve itself: the odds and the column (which no
 * die changes), the chance of each row of the table's column and of each
 * of its results, and, with the owners' orders given (allocations,
 * retreats converted), each unit's steps lost and its chance of being
 * eliminated.
 *
 * One throw of two dice, 36 throws at most: always exact (or sampled when
 * asked).  On a 2d6 table the two dice are exchangeable (their sum is
 * read); on a d66 table they are not.
 */
#ifndef UMPIRE_ODDS_SCS_H
#define UMPIRE_ODDS_SCS_H

#include "odds.h"
#include "scs.h"

typedef struct odds_scs_unit {
    odds_acc lost[SCS_MAX_STEPS + 1]; /* [k]: k steps lost in the combat */
    odds_acc mean_lost;
    odds_acc eliminated; /* no step left after it */
} odds_scs_unit;

typedef struct odds_scs {
    /* What no die changes, from the first throw's outcome. */
    scs_frac totals[2];
    scs_odds odds;
    int column_found, column;    /* -1: left of the table */
    bool is_off_table;           /* no roll at all */
    odds_acc rows[SCS_MAX_ROWS]; /* [row]: the roll reads that row */
    int n_rows;                  /* scs_roll_rows of the table */
    /* The column's distinct results, in the order of their first row. */
    char results_text[SCS_MAX_ROWS][SCS_RESULT_TEXT];
    odds_acc results[SCS_MAX_ROWS];
    int n_results;
    odds_scs_unit units[2][SCS_MAX_UNITS];
    odds_acc side_lost[2];       /* steps lost, for the mean */
    odds_acc side_eliminated[2]; /* every unit of the side */
    odds_acc retreat_hexes[2];   /* still to move, for the mean */
    odds_acc vacated;            /* the defender's hex is left empty */
    odds_acc advance;            /* the attackers may advance */
    odds_count total;            /* throws (exact) or samples */
    odds_stats stats;
} odds_scs;

/* The odds of in (checked as scs_resolve checks it) into out (caller
 * storage, nothing to release). */
err_code odds_scs_compute(const scs_input *in, const odds_limits *l,
                          odds_scs *out, err_info *e);

#endif
