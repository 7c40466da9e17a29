/*
 * scrud.h: SCRUD, Simple Combat Resolution Using Dice (docs/rules/scrud.md).
 *
 * One die is one unit.  Both sides roll, line their dice up highest against
 * highest, and the higher die of each pair defeats the lower.  This module
 * is pure: a scrud_input and a dice source in, a scrud_result out.  Lasting
 * unit state (penalties, elimination) is reported as "after" values for the
 * caller to store.
 *
 * Dice are drawn in a fixed order: every unit of side 0 in listed order
 * (front line and reserves alike), then every unit of side 1.  Entered dice
 * are given in that order.
 */
#ifndef UMPIRE_SCRUD_H
#define UMPIRE_SCRUD_H

#include <stdbool.h>
#include <stddef.h>

#include "dice.h"
#include "err.h"
#include "registry.h"

#define SCRUD_MAX_UNITS_PER_SIDE 100 /* documented request limit */
#define SCRUD_MODIFIER_LIMIT     100 /* |any modifier or penalty| <= this */

typedef enum scrud_cap_kind {
    SCRUD_CAP_FACES, /* cap = the unit's die faces (default) */
    SCRUD_CAP_FIXED, /* cap = scrud_options.cap */
    SCRUD_CAP_NONE   /* no cap */
} scrud_cap_kind;

typedef enum scrud_extra_rule {
    SCRUD_EXTRA_BEAT_LOWEST, /* extra die beats the smaller side's lowest */
    SCRUD_EXTRA_IGNORE,      /* extra dice never count */
    SCRUD_EXTRA_HALF         /* natural over half its faces defeats */
} scrud_extra_rule;

typedef struct scrud_options {
    scrud_cap_kind cap_kind;
    int cap;        /* SCRUD_CAP_FIXED only */
    bool has_floor; /* false: no floor */
    int floor;      /* lowest modified score, default 1 */
    scrud_extra_rule extra_dice;
    bool attrition;              /* lasting penalties, default on */
    int max_penalty_per_combat;  /* default 1 */
    int eliminate_below;         /* default -2 */
    int defeats_per_elimination; /* default 3; 0 turns the rule off */
} scrud_options;

/* A unit as it enters the combat. */
typedef struct scrud_unit {
    int quality;         /* fixed for the campaign */
    int defeat_penalty;  /* >= 0, carried from earlier combats */
    int fatigue_penalty; /* >= 0, carried until resupplied or rested */
    int faces;           /* die faces, 2..1000, default 6 */
    bool is_reserve;     /* held in reserve this combat */
    bool is_eliminated;  /* already out of play: refused */
    int modifier;        /* this combat's modifier for this unit */
} scrud_unit;

typedef struct scrud_side {
    const scrud_unit *units; /* borrowed */
    size_t n_units;
    int modifier; /* this combat's modifier for the whole side */
} scrud_side;

typedef struct scrud_input {
    scrud_side sides[2];
    scrud_options options;
} scrud_input;

typedef enum scrud_elimination {
    SCRUD_ELIM_NONE,
    SCRUD_ELIM_THRESHOLD,    /* modifier fell below eliminate_below */
    SCRUD_ELIM_THREE_DEFEATS /* chosen for the side's defeats */
} scrud_elimination;

typedef enum scrud_winner { SCRUD_FIRST, SCRUD_SECOND, SCRUD_TIE } scrud_winner;

/* What happened to one unit. */
typedef struct scrud_unit_result {
    size_t roll; /* its row in the dice source's log */
    int natural;
    int modifier_before; /* quality - defeat - fatigue penalties */
    int reserve_bonus;   /* pips added by its side's reserves */
    int score;           /* final modified score (reserves: the natural) */
    int rank;            /* 0-based place in the line-up; -1 for reserves */
    int defeats;         /* defeats it suffered */
    bool is_heavy_fighting;
    int defeat_penalty_added;
    int fatigue_penalty_added;
    int defeat_penalty;  /* after the combat */
    int fatigue_penalty; /* after the combat */
    int modifier_after;
    scrud_elimination eliminated;
} scrud_unit_result;

typedef struct scrud_pair {
    int unit[2]; /* unit index on side 0 and on side 1 */
    int score[2];
    scrud_winner winner;
} scrud_pair;

/* An unpaired die of the larger side. */
typedef struct scrud_extra_die {
    int side;   /* the larger side */
    int unit;   /* unit index within it */
    int target; /* unit of the smaller side defeated, or -1 (ignored) */
} scrud_extra_die;

typedef struct scrud_result {
    /* The arrays share one block, which units[0] owns. */
    scrud_unit_result *units[2]; /* per side, in listed order */
    int *line_up[2];             /* unit indices, lined-up order */
    size_t n_line_up[2];
    scrud_pair *pairs;
    size_t n_pairs;
    scrud_extra_die *extra; /* in lined-up order */
    size_t n_extra;
    int defeats[2];     /* defeats each side suffered */
    int *eliminated[2]; /* units eliminated, in order */
    size_t n_eliminated[2];
} scrud_result;

/* The defaults of docs/rules/scrud.md. */
void scrud_options_default(scrud_options *o);

/* A fresh d6 unit of quality 0. */
void scrud_unit_default(scrud_unit *u);

/* quality - defeat_penalty - fatigue_penalty. */
int scrud_unit_modifier(const scrud_unit *u);

/*
 * Resupplies or rests u (docs/rules/scrud.md, "Resupply and rest"): its
 * fatigue penalty goes to 0.  Its defeat penalty stays (only an umpire's
 * correction changes it), and so do its quality and faces.  Whether the
 * unit may be resupplied at all (in play, carrying SCRUD) is the caller's
 * to check.
 */
void scrud_unit_resupply(scrud_unit *u);

/*
 * Checks in against the rules' limits without rolling: ERR_RANGE/ERR_LIMIT
 * with a field such as "sides[1].units[3].faces", ERR_RULE for a unit that
 * cannot fight (eliminated, or its modifier already below eliminate_below).
 */
err_code scrud_validate(const scrud_input *in, err_info *e);

/*
 * Resolves one combat.  Validates in, draws every die from dice, fills out
 * (which the caller must release with scrud_result_cleanup, also on
 * failure).  The modified value of each logged die is set.
 */
err_code scrud_resolve(const scrud_input *in, dice_source *dice,
                       scrud_result *out, err_info *e);

/* Frees what out owns; NULL allowed. */
void scrud_result_cleanup(scrud_result *out);

/* SCRUD's entry in the registry of combat systems. */
extern const registry_system scrud_system;

const char *scrud_extra_rule_name(scrud_extra_rule r);
const char *scrud_elimination_name(scrud_elimination el);
const char *scrud_winner_name(scrud_winner w);

#endif
