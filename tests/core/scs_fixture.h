/*
 * scs_fixture.h: what the SCS rule suites (tests/core/test_scs.c and
 * tests/core/test_scs_examples.c) share: a combat results table filled in
 * from text, a combat built in place on the heap and resolved with entered
 * dice, a reference model of the step-loss rules 8.0a-8.0c, and the check
 * of an outcome against the invariants of docs/rules/scs.md that hold for
 * every combat.  Helpers abort the test (Check) on failure.
 */
#ifndef UMPIRE_TESTS_SCS_FIXTURE_H
#define UMPIRE_TESTS_SCS_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "dice.h"
#include "err.h"
#include "scs.h"

#define SCS_FIXTURE_MAX_DICE 8

/* A combat: the table, both sides' units stored in place, the dice, the
 * outcome.  Large (tens of kB): made by scs_fixture_new. */
typedef struct scs_fixture {
    scs_table table;
    scs_unit units[2][SCS_MAX_UNITS];
    scs_input in;
    int dice[SCS_FIXTURE_MAX_DICE];
    dice_source d;
    scs_outcome out;
    err_info e;
} scs_fixture;

/* The example table's columns, "1:2" to "6:1" (seven). */
extern const char *const scs_fixture_cols7[7];

/*
 * Fills t: roll kind k, the n_cols column headings cols (parsed with
 * scs_odds_parse), and every cell cell, or with cell NULL a text that
 * names its cell: "A<row/6> D<row%6>r<column+1>".
 */
void scs_fixture_table(scs_table *t, scs_roll_kind k, const char *const *cols,
                       int n_cols, const char *cell);

/* New (scs_fixture_free): no units, default options, no shift, and a 2d6
 * table of scs_fixture_cols7 filled with cell (see scs_fixture_table). */
scs_fixture *scs_fixture_new(const char *cell);
void scs_fixture_free(scs_fixture *f); /* NULL allowed */

/* Appends a unit with a printed attack to side; returns it (borrowed). */
scs_unit *scs_fixture_unit(scs_fixture *f, int side, int attack, int defense,
                           int steps);

/* Resolves on n entered dice (given after n) and returns scs_resolve's
 * code; f->d keeps the roll log until the next run or scs_fixture_free. */
err_code scs_fixture_run(scs_fixture *f, int n, ...);

/* Steps of side lost for cause (-1: any cause) in out. */
int scs_fixture_losses(const scs_outcome *out, int side, int cause);

/* Unit of the k-th step of side lost for cause (-1: any), or -1. */
int scs_fixture_loss_unit(const scs_outcome *out, int side, int cause, int k);

/*
 * Combat number n, built in f from a small PRNG of its own (splitmix64
 * seeded with n): a 2d6 or d66 table of random columns and cells, one to
 * four units a side (printed 0-9, one to four steps, some lost, random
 * multipliers, exploit and supply flags), out-of-supply options, a shift
 * of -3 to 3, sometimes an overrun, and orders: EZOC, blocked and
 * converted hexes, extra_units (some naming units that will have no step
 * left), and sometimes an allocation that keeps 8.0a-8.0c.
 */
void scs_fixture_random(scs_fixture *f, uint64_t n);

/*
 * Rules 8.0a-8.0c as docs/rules/scs.md words them, written apart from
 * core/scs.c: the index of the first entry of seq (units of side, in the
 * order they lose the table's steps) that breaks them, or -1 if none does.
 * 8.0a: the first step from a unit of the highest printed attack (attacker)
 * or defense (defender); 8.0b: no unit loses a second step while a unit of
 * the combat has lost none; 8.0c: no unit loses a step it does not have,
 * and beyond 8.0a and 8.0b the owner chooses freely.
 */
int scs_fixture_ref_first_bad(const scs_unit *units, size_t n_units, int side,
                              const int *seq, int n_seq);

/*
 * The invariants of every resolved combat: totals and values restated
 * from printed values, odds and column by an independent computation,
 * the roll and its log, the cell read, losses counted per unit and per
 * side (lost + ignored = what was called for, never beyond capacity),
 * step 7's caps, the table's losses under 8.0a-8.0c and the orders, and
 * the advance after combat.
 */
void scs_fixture_check(const scs_input *in, const dice_source *d,
                       const scs_outcome *out);

#endif
