/*
 * edna.h: EDNA, Ever Decreasing Number Allocation (docs/rules/edna.md).
 *
 * A unit's EDNA is its will to combat, a number that only goes down.  A
 * test rolls a few dice; a total above the unit's EDNA takes the difference
 * off it, and at 0 the unit is ineffective.  Several units can be tested at
 * once (a volley at a brigade): dice are drawn unit by unit, in listed
 * order, each unit's dice together.
 */
#ifndef UMPIRE_EDNA_H
#define UMPIRE_EDNA_H

#include <stdbool.h>
#include <stddef.h>

#include "dice.h"
#include "err.h"
#include "registry.h"

#define EDNA_MAX_UNITS      100 /* units tested in one request */
#define EDNA_MAX            100 /* highest EDNA */
#define EDNA_MAX_DICE       10  /* dice in one test */
#define EDNA_MODIFIER_LIMIT 100

/* A new unit's EDNA when neither it nor its campaign gives a start: FULL
 * METAL EDNA's 8 (docs/rules/edna.md, "Campaign settings and the 2d8
 * variant", and "Units"). */
#define EDNA_START_DEFAULT 8

typedef struct edna_options {
    int dice;  /* dice per test, default 2 */
    int faces; /* faces of each die, default 6 (variant: 2d8) */
} edna_options;

typedef struct edna_unit {
    int edna;     /* current EDNA, 0..EDNA_MAX; 0 means ineffective */
    int modifier; /* added to the dice total for this test */
} edna_unit;

typedef struct edna_input {
    const edna_unit *units; /* borrowed */
    size_t n_units;
    edna_options options;
} edna_input;

typedef struct edna_result_unit {
    size_t first_roll; /* its first die in the dice source's log */
    int total;         /* sum of naturals + modifier */
    int edna_before;
    int edna_after;
    bool is_passed;
    bool is_ineffective; /* after the test */
} edna_result_unit;

typedef struct edna_result {
    edna_result_unit *units; /* owned, in listed order */
    size_t n_units;
} edna_result;

void edna_options_default(edna_options *o);

/* ERR_RANGE/ERR_LIMIT with a field such as "units[2].edna"; ERR_RULE for
 * an ineffective unit (EDNA 0): it cannot be tested. */
err_code edna_validate(const edna_input *in, err_info *e);

/* Tests every unit; out must be released with edna_result_cleanup, also on
 * failure.  The modified value of each logged die is its natural. */
err_code edna_resolve(const edna_input *in, dice_source *dice, edna_result *out,
                      err_info *e);

void edna_result_cleanup(edna_result *out);

/* EDNA's entry in the registry of combat systems. */
extern const registry_system edna_system;

#endif
