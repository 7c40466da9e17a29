/*
 * matrix.h: Matrix game battles (docs/rules/matrix.md).
 *
 * Two armies face each other in a line of combats, one unit against one or
 * (for the larger army only) two against one.  The attacker picks which
 * combat to roll; the army allowed reserves may feed them into a rolled
 * combat one at a time, after seeing the dice, until its result is
 * accepted.  When every combat is accepted, casualty points decide the
 * battle and the army state gives its effects.
 *
 * A battle is a state that changes by three actions (roll, commit,
 * accept).  Each action is checked against the state first and refused
 * with the rule it breaks; nothing changes on a refusal.  Given the setup
 * and the same actions with the same dice, the state is the same: the
 * server keeps the actions and rebuilds the state from them.
 */
#ifndef UMPIRE_MATRIX_H
#define UMPIRE_MATRIX_H

#include <stdbool.h>
#include <stddef.h>

#include "dice.h"
#include "err.h"
#include "registry.h"

#define MATRIX_MAX_UNITS        50 /* units of one army */
#define MATRIX_MAX_COMBATS      50 /* combats in the line */
#define MATRIX_QUALITY_MAX      3  /* quality modifiers are -3..3 */
#define MATRIX_SKIRMISH_RESERVE 2  /* reserve units of an army in a skirmish */

enum { MATRIX_ATTACKER = 0, MATRIX_DEFENDER = 1 };

/* What happens to the losing units of a combat. */
typedef enum matrix_fate {
    MATRIX_NONE = 0, /* not beaten (or even) */
    MATRIX_REPULSED, /* ratio below 2:1: falls back, facing the enemy */
    MATRIX_BEATEN,   /* 2:1 to below 3:1: to the rear, backs to the enemy */
    MATRIX_ROUTED    /* 3:1 or more: removed */
} matrix_fate;

/* "none", "repulsed", "beaten", "routed". */
const char *matrix_fate_name(matrix_fate f);
/* Casualty points: routed 3, beaten 2, repulsed 1, none 0. */
int matrix_fate_points(matrix_fate f);

/*
 * Step 3 of a combat: scores below 1 count as 1; equal scores are even
 * (MATRIX_NONE, *loser -1); otherwise the lower side (*loser 0 or 1) takes
 * the fate of the ratio higher:lower, computed exactly.
 */
matrix_fate matrix_compare(int score0, int score1, int *loser);

typedef enum matrix_kind { MATRIX_OPEN, MATRIX_SKIRMISH } matrix_kind;

/* Whose units the army state counts (matrix.md names the reading). */
typedef enum matrix_basis {
    MATRIX_BASIS_BATTLE, /* every unit that fought, both armies */
    MATRIX_BASIS_WINNER,
    MATRIX_BASIS_LOSER
} matrix_basis;

typedef struct matrix_army {
    int n_units;                   /* 1..MATRIX_MAX_UNITS */
    int quality[MATRIX_MAX_UNITS]; /* each unit's quality modifier */
    int argument;                  /* matrix arguments: -1, 0 or +1 */
    bool is_ambushing;             /* +1 to every die */
    bool is_exhausted;             /* -1 to every die */
    /* Skirmish only: the units in reserve (at most two); in an open
     * battle the reserve is the larger army's units not in the line. */
    int reserve[MATRIX_SKIRMISH_RESERVE];
    int n_reserve;
} matrix_army;

/* One combat of the line: each army's units in it (one, or two for the
 * larger army), as indices into the armies. */
typedef struct matrix_pairing {
    int units[2][2];
    int n_units[2];
} matrix_pairing;

typedef struct matrix_setup {
    matrix_kind kind;
    matrix_basis basis;
    matrix_army armies[2]; /* [MATRIX_ATTACKER], [MATRIX_DEFENDER] */
    matrix_pairing line[MATRIX_MAX_COMBATS];
    int n_line;
} matrix_setup;

/* The army's modifier on each of its dice: argument, ambush, exhaustion. */
int matrix_army_modifier(const matrix_army *a);

/*
 * Checks a setup: counts and ranges, the line (every unit at most once;
 * two against one only for the larger army; every unit of the smaller army
 * in the line, or of both when they are the same size), a skirmish's one
 * combat and reserves of at most two, an argument that is -1, 0 or +1, and
 * an ambush by one army at most.  Fields as the API names them ("line[2]",
 * "attacker.units[1].quality").
 */
err_code matrix_check_setup(const matrix_setup *s, err_info *e);

/* The army that may commit reserves to combats: in an open battle the
 * larger one (-1 when they are the same size); in a skirmish both (2). */
int matrix_reserve_army(const matrix_setup *s);

/* One reserve unit fed into a combat. */
typedef struct matrix_reserve {
    int army;
    int unit;
    int natural;
    size_t roll; /* its die in the dice source's log */
} matrix_reserve;

typedef struct matrix_combat {
    bool is_rolled;
    bool is_accepted;
    int natural[2][2]; /* the line units' dice */
    size_t first_roll; /* the line dice in the dice source's log */
    int n_reserves;
    int score[2];     /* each army's score so far */
    matrix_fate fate; /* of the loser, so far */
    int loser;        /* 0, 1, or -1 (even or not rolled) */
    /* Last, as most of the size: only the first n_reserves are set, and
     * read (matrix_combat_copy). */
    matrix_reserve reserves[2 * MATRIX_MAX_UNITS];
} matrix_combat;

typedef struct matrix_battle {
    const matrix_setup *setup;              /* borrowed */
    bool is_committed[2][MATRIX_MAX_UNITS]; /* reserves fed in so far */
    int n_rolled;
    int n_accepted;
    bool is_escalated; /* a skirmish whose armies both used all reserves */
    /* Last, as most of the size (123 KB): matrix_battle_init sets every
     * combat but the reserves it has not had yet. */
    matrix_combat combats[MATRIX_MAX_COMBATS];
} matrix_battle;

/* dst = src, copying only the reserves src has (a whole combat is
 * 2.4 KB, nearly all of it room for reserves). */
void matrix_combat_copy(matrix_combat *dst, const matrix_combat *src);

/* A battle about to start on s (checked with matrix_check_setup). */
err_code matrix_battle_init(matrix_battle *b, const matrix_setup *s,
                            err_info *e);

/*
 * Rolls combat c (in any order: the attacker chooses, but one at a time):
 * one die per line unit, the attacker's first, natural + quality + army
 * modifier each, a pair's summed.  Refused (ERR_CONFLICT, field "combat")
 * if it is already rolled, another combat is rolled and not yet accepted,
 * or the battle is over.
 */
err_code matrix_roll(matrix_battle *b, int c, dice_source *dice, err_info *e);

/*
 * Feeds the reserve unit of army into combat c: one die at -1 plus its
 * quality and army modifier, added to the army's score.  Refused with the
 * rule: the combat not rolled or already accepted (ERR_CONFLICT), an army
 * that has no reserves in this battle, a unit that is not in its reserve
 * or was already committed (ERR_RULE).
 */
err_code matrix_commit(matrix_battle *b, int c, int army, int unit,
                       dice_source *dice, err_info *e);

/* Accepts combat c's result: no reserves may join it after. */
err_code matrix_accept(matrix_battle *b, int c, err_info *e);

/* Every combat rolled and accepted (or a skirmish escalated). */
bool matrix_is_over(const matrix_battle *b);

/* The army state's rows, most severe first. */
typedef enum matrix_state {
    MATRIX_STATE_HALF_ROUTED, /* half or more routed */
    MATRIX_STATE_ROUTED,      /* some routed, or half or more beaten */
    MATRIX_STATE_BEATEN,      /* none routed, some beaten */
    MATRIX_STATE_HOLDING      /* none routed or beaten */
} matrix_state;

/* The row's wording as in docs/rules/matrix.md. */
const char *matrix_state_name(matrix_state s);

typedef struct matrix_result {
    matrix_fate fates[2][MATRIX_MAX_UNITS]; /* each unit's, none if unhurt */
    bool has_fought[2][MATRIX_MAX_UNITS];   /* in the line or committed */
    int points[2];                          /* casualty points of each army */
    int winner;                             /* 0, 1, or -1 for a draw */
    matrix_state state;
    bool is_winner_pursuing;    /* the winner can pursue */
    bool is_winner_withdrawing; /* the winner must withdraw */
    bool is_exhausted[2];       /* -1 if it fights again next turn */
} matrix_result;

/* The battle's result, once it is over (ERR_CONFLICT before). */
err_code matrix_battle_result(const matrix_battle *b, matrix_result *out,
                              err_info *e);

/*
 * Exhaustion after a campaign battle fought in turn (>= 1), for army
 * (MATRIX_ATTACKER or MATRIX_DEFENDER) (docs/rules/matrix.md,
 * "Exhaustion"): the turn its side is marked with, the battle's turn plus
 * one, when r exhausts it (a result in one of the two bloodiest rows of
 * the army state, "The battle's result"); 0 when it does not.
 */
int matrix_exhausted_turn(const matrix_result *r, int army, int turn);

/*
 * Whether a side marked with exhausted_turn (0: no mark) fights a battle
 * created for turn exhausted (docs/rules/matrix.md, "Exhaustion"): only in
 * the very turn of the mark, never a later one.  The mark applies to one
 * battle: the caller clears it once it is used.
 */
bool matrix_is_exhausted_in(int exhausted_turn, int turn);

/* A whole battle at once (one-off, for bots): combats in line order, each
 * rolled, then fed the reserves planned for it, then accepted. */
typedef struct matrix_plan {
    matrix_setup setup;
    /* reserves[c]: the units (army * MATRIX_MAX_UNITS + unit) fed into
     * combat c, in order */
    int reserves[MATRIX_MAX_COMBATS][2 * MATRIX_MAX_UNITS];
    int n_reserves[MATRIX_MAX_COMBATS];
    int order[MATRIX_MAX_COMBATS]; /* the attacker's order of combats */
} matrix_plan;

typedef struct matrix_outcome {
    matrix_battle battle;
    matrix_result result;
} matrix_outcome;

/* Resolves a plan (the registry's entry point). */
err_code matrix_resolve(const matrix_plan *p, dice_source *dice,
                        matrix_outcome *out, err_info *e);

extern const registry_system matrix_system;

#endif
