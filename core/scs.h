/*
 * scs.h: Standard Combat Series odds combat (docs/rules/scs.md).
 *
 * An attacking stack against a defending one: strengths multiplied out as
 * exact fractions, odds by the standard rounding rule, a column of the
 * game's combat results table (data, checked on load), one roll, then step
 * losses, retreats and the advance after combat.  The map stays with the
 * players: what it produces (multipliers, column shifts, EZOC and blocked
 * retreat hexes) comes in as input, and the owners' choices (which unit
 * loses a step, how much retreat to convert) come in as orders given with
 * the combat, checked against the rules before any die is rolled.
 *
 * scs_table.c holds the fractions, odds and tables; scs.c the counters
 * and the combat.
 *
 * Invariants: no floating point decides anything (scs_frac is exact, and
 * every operation that would overflow fails instead); every tie is broken
 * by the order units are listed in.
 */
#ifndef UMPIRE_SCS_H
#define UMPIRE_SCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dice.h"
#include "err.h"
#include "registry.h"

#define SCS_MAX_UNITS       32  /* units on one side of a combat */
#define SCS_MAX_STEPS       20  /* steps of one unit */
#define SCS_MAX_PRINTED     99  /* highest printed attack, defense, movement */
#define SCS_MAX_MULTIPLIERS 8   /* multipliers of one unit in one combat */
#define SCS_MULTIPLIER_MAX  100 /* numerator and denominator of one */
#define SCS_MAX_COLUMNS     20
#define SCS_MAX_SHIFT       20 /* column shifts either way */
#define SCS_MAX_EFFECT      20 /* steps or retreat hexes of one effect */
#define SCS_MAX_ROWS        36 /* d66 */
#define SCS_FRAC_TEXT       48 /* "num/den" or a decimal, with its NUL */

/* ---- exact fractions ---- */

typedef struct scs_frac {
    int64_t num; /* any sign */
    int64_t den; /* > 0; num/den is always in lowest terms */
} scs_frac;

/* n/1. */
scs_frac scs_frac_int(int64_t n);
/*
 * Parses "p", "p/q" or a decimal "d.ddd" (at most 6 decimals) into a
 * positive fraction.  False when s is not one of those forms, is 0 or
 * negative, or does not fit.
 */
bool scs_frac_parse(const char *s, scs_frac *out);
/* a*b and a+b in lowest terms; false instead of overflowing. */
bool scs_frac_mul(scs_frac a, scs_frac b, scs_frac *out);
bool scs_frac_add(scs_frac a, scs_frac b, scs_frac *out);
/* -1, 0 or 1 as a < b, a == b, a > b (exact for any two fractions). */
int scs_frac_cmp(scs_frac a, scs_frac b);
/* "11/2", or "6" for a whole number (buf of SCS_FRAC_TEXT bytes). */
void scs_frac_text(scs_frac f, char buf[SCS_FRAC_TEXT]);
/* The value to three decimals, rounded half up, trailing zeros dropped:
 * "5.5", "0.917", "6".  For reading only: nothing is decided on it. */
void scs_frac_decimal(scs_frac f, char buf[SCS_FRAC_TEXT]);
/* The standard rounding rule: fractions below one half down, one half and
 * above up (f >= 0). */
int64_t scs_frac_round(scs_frac f);

/* ---- odds ---- */

typedef struct scs_odds {
    int attack;  /* one of the two is 1 */
    int defense; /* 0: the defense was 0 (rightmost column) */
} scs_odds;

/*
 * Step 2: both totals divided by the smaller and rounded.  attack must be
 * positive; a defense of 0 gives {1, 0}.  False when a quotient does not
 * fit an int.
 */
bool scs_odds_of(scs_frac attack, scs_frac defense, scs_odds *out);
/* "5:1", "1:2"; "1:0" for a defense of 0 (buf of 24 bytes). */
void scs_odds_text(scs_odds o, char buf[24]);
/* Parses a column heading "a:b" (1..999 each, no leading zeros). */
bool scs_odds_parse(const char *s, scs_odds *out);

/* ---- the combat results table ---- */

typedef enum scs_roll_kind {
    SCS_ROLL_2D6, /* the sum of two dice, 2-12 */
    SCS_ROLL_D66  /* first die tens, second units, 11-66 */
} scs_roll_kind;

/* What a result does to one side. */
typedef struct scs_effect {
    int steps;   /* steps to lose */
    int retreat; /* hexes to retreat; 0 none */
} scs_effect;

/* A parsed result: "-" has neither side. */
typedef struct scs_result {
    scs_effect attacker;
    scs_effect defender;
} scs_result;

#define SCS_RESULT_TEXT 24 /* longest result string, with its NUL */

typedef struct scs_table {
    scs_roll_kind roll;
    int n_columns;
    scs_odds columns[SCS_MAX_COLUMNS]; /* strictly increasing, left first */
    /* results[row][column]; row is scs_roll_row() of the roll */
    scs_result results[SCS_MAX_ROWS][SCS_MAX_COLUMNS];
    char text[SCS_MAX_ROWS][SCS_MAX_COLUMNS][SCS_RESULT_TEXT]; /* as given */
} scs_table;

/* "2d6" or "d66"; parse returns false for anything else. */
const char *scs_roll_kind_name(scs_roll_kind k);
bool scs_roll_kind_parse(const char *s, scs_roll_kind *out);
/* Rows of the kind (11 or 36), the label of row i ("2".."12",
 * "11".."66"; buf of 4 bytes) and the row of a roll value, -1 if none. */
int scs_roll_rows(scs_roll_kind k);
void scs_roll_label(scs_roll_kind k, int row, char buf[4]);
int scs_roll_row(scs_roll_kind k, int value);

/*
 * Parses a result string: "-", or effects separated by spaces or "/", each
 * "A" or "D", an optional number of steps and an optional "r" with a
 * number of hexes ("A1r1", "D2r2", "A1 D1r2", "Dr2").  Each side at most
 * once.  On failure, why (may be NULL) gets a short reason.
 */
bool scs_result_parse(const char *s, scs_result *out, const char **why);

/*
 * Checks the columns of t (count, ascending without repeats); on failure
 * *bad_column is the first offending column and why a reason.  Rows and
 * cells are checked as they are read in (scs_result_parse).
 */
bool scs_table_check_columns(const scs_table *t, int *bad_column,
                             const char **why);

/*
 * Step 3: the column of odds o: the rightmost whose ratio does not exceed
 * them (the rightmost for a defense of 0), or -1 left of the table.
 */
int scs_table_column(const scs_table *t, scs_odds o);

/* ---- counters, units and orders ---- */

/* The values printed on one side of a counter. */
typedef struct scs_printed {
    bool has_attack; /* false: no printed attack (barrage, defense only) */
    int attack;      /* 0..SCS_MAX_PRINTED */
    int defense;
    int movement;
} scs_printed;

/* A counter as it persists in a campaign. */
typedef struct scs_counter {
    scs_printed full;
    scs_printed reduced; /* when has_reduced */
    bool has_reduced;    /* a two-sided counter */
    int steps;           /* 1..SCS_MAX_STEPS; extra steps keep reduced */
    int steps_lost;      /* 0..steps; steps_lost == steps: eliminated */
    bool is_exploit;     /* exploit capable (yellow box) */
    bool is_out_of_supply;
} scs_counter;

/* The side shown: the full side while no step is lost, else the reduced
 * side (the full one on a counter without a reduced side). */
const scs_printed *scs_counter_shown(const scs_counter *c);

/* Checks a counter's values and their fit (a unit of one step has no
 * reduced side; a unit that lost steps shows its reduced side, so needs
 * one); fields named under path, e.g. "scs.reduced.attack". */
err_code scs_counter_check(const scs_counter *c, const char *path, err_info *e);

/*
 * Resupplies c (docs/rules/scs.md, "Counters"): it is in supply again.
 * Steps lost stay lost; nothing else on the counter changes.  Whether the
 * unit may be resupplied at all (in play, carrying SCS) is the caller's to
 * check.
 */
void scs_counter_resupply(scs_counter *c);

/* Multipliers applied to every unit marked out of supply; the game's rules
 * say what they are (1 and 1, no effect, by default). */
typedef struct scs_options {
    scs_frac out_of_supply_attack;
    scs_frac out_of_supply_defense;
} scs_options;

void scs_options_default(scs_options *o);

typedef struct scs_unit {
    bool has_attack;       /* false: no printed attack; it cannot attack */
    int attack;            /* printed, on the side shown (0..99) */
    int defense;           /* printed, on the side shown */
    int steps;             /* 1..SCS_MAX_STEPS */
    int steps_lost;        /* before the combat, < steps */
    bool is_exploit;       /* exploit capable (yellow box) */
    bool is_out_of_supply; /* the options' multiplier applies */
    int n_multipliers;     /* 0..SCS_MAX_MULTIPLIERS */
    scs_frac multipliers[SCS_MAX_MULTIPLIERS]; /* terrain, supply, ... */
} scs_unit;

enum { SCS_ATTACKER = 0, SCS_DEFENDER = 1 };

/* One owner's choices for the combat, given before the roll. */
typedef struct scs_orders {
    /* Units (indices on the side) to take the table's steps, in order; the
     * steps past the list follow the default (step 6). */
    int allocation[SCS_MAX_UNITS * SCS_MAX_STEPS];
    int n_allocation;
    int convert;       /* retreat hexes to convert into steps, at most */
    int ezoc_hexes;    /* EZOC hexes entered while retreating */
    int blocked_hexes; /* retreat hexes that could not be taken */
    /* Units to take the conversion, EZOC and blocked steps, in order; past
     * the list, or on a unit with no step left, the default picks. */
    int extra_units[SCS_MAX_UNITS * SCS_MAX_STEPS];
    int n_extra_units;
} scs_orders;

typedef struct scs_input {
    const scs_table *table;   /* borrowed */
    const scs_unit *units[2]; /* [SCS_ATTACKER], [SCS_DEFENDER] */
    size_t n_units[2];
    scs_orders orders[2];
    scs_options options;
    int column_shift; /* positive favours the attacker */
    bool is_overrun;
} scs_input;

/* ---- the outcome ---- */

typedef enum scs_loss_cause {
    SCS_LOSS_TABLE,      /* the result's steps */
    SCS_LOSS_OFF_TABLE,  /* odds left of the table: the attacker's step */
    SCS_LOSS_CONVERSION, /* a retreat hex converted (no-retreat option) */
    SCS_LOSS_EZOC,       /* an EZOC hex entered while retreating */
    SCS_LOSS_BLOCKED     /* a retreat hex that could not be taken */
} scs_loss_cause;

/* "table", "off_table", "conversion", "ezoc", "blocked". */
const char *scs_loss_cause_name(scs_loss_cause c);

/* One step lost, in the order they were taken (the defender's first). */
typedef struct scs_loss {
    int side; /* SCS_ATTACKER or SCS_DEFENDER */
    int unit; /* index on the side */
    scs_loss_cause cause;
    bool is_ordered; /* the owner's orders chose the unit, not the default */
} scs_loss;

typedef struct scs_unit_result {
    scs_frac value;     /* printed value times its multipliers and, out of
                         * supply, the options' multiplier */
    int lost;           /* steps lost in this combat */
    int steps_lost;     /* after the combat */
    bool is_eliminated; /* no step left */
    int advance;        /* hexes it may advance; 0 none */
} scs_unit_result;

typedef struct scs_side_result {
    scs_frac total;     /* step 1 */
    scs_effect effect;  /* what the result (or off the table) called for */
    int converted;      /* retreat hexes converted into steps */
    int ezoc_hexes;     /* applied: at most the hexes retreated */
    int blocked_hexes;  /* applied: at most the hexes to retreat */
    int retreat_hexes;  /* still to move on the map */
    int steps_ignored;  /* beyond what the side could absorb */
    bool is_eliminated; /* every unit of the side */
} scs_side_result;

typedef struct scs_outcome {
    scs_side_result sides[2];
    scs_unit_result units[2][SCS_MAX_UNITS];
    scs_odds odds;
    int column_found;  /* before shifts; -1 left of the table */
    int column;        /* after shifts; -1 left of the table */
    bool is_off_table; /* no roll: the attacker loses a step */
    int roll;          /* the roll's value (2-12, 11-66); 0 none */
    size_t first_roll; /* its first die in the dice source's log */
    scs_result result; /* the cell read, zero when off the table */
    scs_loss losses[2 * SCS_MAX_UNITS * SCS_MAX_STEPS];
    size_t n_losses;
    bool is_vacated;          /* the defender's hex is left empty */
    bool is_advance_allowed;  /* attackers may advance */
    bool is_advance_required; /* an overrun: they must enter the hex */
    int advance_hexes;        /* for units that are not exploit capable */
    int exploit_hexes;        /* for exploit-capable units */
} scs_outcome;

/*
 * Checks in against the rules before any die: units (ranges, none
 * eliminated, attackers with a printed attack, some attack), the table,
 * the shift, and both sides' orders (a unit with no step left to lose, the
 * first step not from the strongest unit (8.0a), a second step on a unit
 * while another that can still lose one has lost none (8.0b); past that
 * the owner chooses (8.0c)).  Fields are named as the API names them,
 * e.g. "attackers[1].multipliers", "attacker_allocation[0]".
 */
err_code scs_validate(const scs_input *in, err_info *e);

/*
 * Resolves the combat, procedure steps 1 to 9, into out (caller storage;
 * nothing to release).  Validates first.  The dice are logged with reason
 * "scs.crt", side SCS_ATTACKER and unit -1.
 */
err_code scs_resolve(const scs_input *in, dice_source *dice, scs_outcome *out,
                     err_info *e);

/* SCS's entry in the registry of combat systems. */
extern const registry_system scs_system;

#endif
