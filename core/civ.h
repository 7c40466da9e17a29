/*
 * civ.h: Civilization advanced combat, wave by wave (docs/rules/civ.md).
 *
 * Two armies fight in phases.  In each phase the army with fewer regular
 * units puts them all forward and the other picks a wave of that many;
 * aircraft fight beside their wave, supporting one class.  Both totals
 * (dice times era, aircraft, bonuses, scientific superiority, the CIA
 * bonus, the settlement penalty) are damage to the other wave, which loses
 * whole units, oldest era first, while the damage pays for them.  The
 * battle goes on until an army has no unit left.
 *
 * A battle is its setup and the phases fought so far; each phase takes the
 * owners' choices (the larger army's wave, the aircraft's class, the
 * casualty orders), checked before any die is rolled.
 */
#ifndef UMPIRE_CIV_H
#define UMPIRE_CIV_H

#include <stdbool.h>
#include <stddef.h>

#include "dice.h"
#include "err.h"
#include "registry.h"

#define CIV_MAX_UNITS      100 /* units of one army */
#define CIV_MAX_ERA        4  /* 1 ancient, 2 medieval, 3 gunpowder, 4 modern */
#define CIV_BONUS_MAX      20 /* a unit's bonus, -20..20 */
#define CIV_MULTIPLIER_MAX 10 /* an aircraft's dice multiplier */
#define CIV_TECH_MAX       100 /* technologies an army controls */
#define CIV_MAX_PHASES     200 /* phases of a one-off battle */

enum { CIV_ATTACKER = 0, CIV_DEFENDER = 1 };

typedef enum civ_class {
    CIV_INFANTRY,
    CIV_CAVALRY,
    CIV_ARTILLERY,
    CIV_AIRCRAFT,
    CIV_OTHER /* ships and the like */
} civ_class;

/* "infantry", "cavalry", "artillery", "aircraft", "other". */
const char *civ_class_name(civ_class c);
bool civ_class_parse(const char *s, civ_class *out);

typedef struct civ_unit {
    civ_class cls;
    int era;             /* 1..CIV_MAX_ERA */
    int bonus;           /* from the strength table: base plus enhancements */
    int dice_multiplier; /* aircraft only, 1..CIV_MULTIPLIER_MAX */
} civ_unit;

typedef struct civ_army {
    civ_unit units[CIV_MAX_UNITS];
    int n_units;
    int technologies;
} civ_army;

typedef struct civ_setup {
    civ_army armies[2]; /* [CIV_ATTACKER], [CIV_DEFENDER] */
    bool is_settlement; /* the defender is in a settlement */
    int current_era;    /* the game's era, 1..4 */
    bool has_great_wall;
} civ_setup;

/* Checks a setup; fields named as the API names them
 * ("attacker.units[2].era"). */
err_code civ_check_setup(const civ_setup *s, err_info *e);

/* One army's choices for a phase, given before the roll. */
typedef struct civ_orders {
    /* The wave: units by index, picked by the larger army (the smaller
     * may name its own only as all of its units, in the order its dice
     * are thrown); n_wave 0: the preference order, then the order
     * listed, picks it. */
    int wave[CIV_MAX_UNITS];
    int n_wave;
    int preference[CIV_MAX_UNITS]; /* 0..n: the order waves are picked in */
    int n_preference;
    int support; /* the aircraft's class, or -1 for the default */
    /* Casualty order: units of the wave to lose first, oldest era first
     * (an order listing a newer era before an older one is refused); within
     * each era the listed units go first, the rest follow by default
     * (lowest bonus, then the wave's order). */
    int casualties[CIV_MAX_UNITS];
    int n_casualties;
    /* Standing orders of a one-off plan, for the whole battle: casualty
     * entries not in this phase's wave are passed over instead of refused,
     * and a class for aircraft outlives the aircraft. */
    bool is_casualty_preference;
} civ_orders;

/* One army's part in a phase. */
typedef struct civ_army_phase {
    int wave[CIV_MAX_UNITS]; /* regular units forward */
    int n_wave;
    int aircraft[CIV_MAX_UNITS]; /* aircraft fighting, in listed order */
    int n_aircraft;
    int idle_aircraft; /* aircraft sitting this phase out */
    int support;       /* the class supported, or -1 */
    size_t first_roll; /* its dice in the source's log */
    int base, air, bonus, science, cia, settlement; /* the terms */
    int cia_matches[3];           /* cav>inf, inf>art, art>cav: pieces */
    int total;                    /* never below 0: the damage dealt */
    int destroyed[CIV_MAX_UNITS]; /* its units lost, in order (aircraft
                                   * taken down included) */
    int n_destroyed;
    int damage_taken; /* the other army's total */
    int damage_lost;  /* of it, what paid for nothing */
} civ_army_phase;

typedef struct civ_phase {
    civ_army_phase armies[2];
} civ_phase;

/* A battle in progress: which units are still alive. */
typedef struct civ_battle {
    const civ_setup *setup; /* borrowed */
    bool is_alive[2][CIV_MAX_UNITS];
    int n_phases;
    int winner; /* once over: 0, 1, or -1 for both gone at once */
} civ_battle;

err_code civ_battle_init(civ_battle *b, const civ_setup *s, err_info *e);

/* Alive regular (non-aircraft) units of army a. */
int civ_regulars(const civ_battle *b, int a);
/* No army can fight on: one (or both) has no unit left. */
bool civ_is_over(const civ_battle *b);

/*
 * Fights one phase with the armies' orders: checks them (a wave of the
 * wrong size or with a unit that is not alive, a wave given by the smaller
 * army, a class for aircraft that is not a regular class, a casualty order
 * that is not oldest era first or names a unit not in the wave), rolls
 * (the attacker's dice first: wave units in wave order, then aircraft),
 * and applies the damage.  Refused with the rule, changing nothing.
 */
err_code civ_fight_phase(civ_battle *b, const civ_orders orders[2],
                         dice_source *dice, civ_phase *out, err_info *e);

/* A whole battle (one-off, for bots): phases with the same orders (the
 * larger army's waves from its preference order) until it is over or the
 * phase limit is reached. */
typedef struct civ_plan {
    civ_setup setup;
    civ_orders orders[2];
    int max_phases; /* 1..CIV_MAX_PHASES, default 50 */
} civ_plan;

typedef struct civ_outcome {
    civ_battle battle;
    civ_phase *phases; /* owned: release with civ_outcome_cleanup */
    int n_phases;
    bool is_unresolved; /* stopped at the phase limit */
} civ_outcome;

err_code civ_resolve(const civ_plan *p, dice_source *dice, civ_outcome *out,
                     err_info *e);
void civ_outcome_cleanup(civ_outcome *out);

extern const registry_system civ_system;

#endif
