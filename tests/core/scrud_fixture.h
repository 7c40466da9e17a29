/*
 * scrud_fixture.h: what the SCRUD rule suites (tests/core/test_scrud.c and
 * tests/core/test_scrud_examples.c) share: a combat built in place in
 * caller storage, resolved with entered dice, and the check of a roll log
 * against its result.  Helpers abort the test (Check) on failure.
 */
#ifndef UMPIRE_TESTS_SCRUD_FIXTURE_H
#define UMPIRE_TESTS_SCRUD_FIXTURE_H

#include <stddef.h>

#include "dice.h"
#include "err.h"
#include "scrud.h"

/* A combat: two sides of units stored in place, the dice, the result. */
typedef struct scrud_fixture {
    scrud_unit units[2][SCRUD_MAX_UNITS_PER_SIDE + 1];
    scrud_input in;
    dice_source dice;
    scrud_result out;
    err_info e;
} scrud_fixture;

/* Empty sides, default options. */
void scrud_fixture_init(scrud_fixture *f);

/* Appends n fresh d6 units of the given quality to side s; returns the
 * first (borrowed). */
scrud_unit *scrud_fixture_add(scrud_fixture *f, int s, int n, int quality);

/* Frees the result and the dice; f can be resolved again after that. */
void scrud_fixture_cleanup(scrud_fixture *f);

/* The roll log (README "Roll log"): one row per unit in draw order, side 0
 * then side 1, reason by role, modified = the score (reserves: natural). */
void scrud_fixture_check_log(const scrud_input *in, const dice_source *d,
                             const scrud_result *out);

/* Resolves with the n entered dice (borrowed), which must all be used, and
 * checks the roll log. */
void scrud_fixture_run(scrud_fixture *f, const int *dice, size_t n);

#endif
