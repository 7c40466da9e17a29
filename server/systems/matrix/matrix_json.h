/*
 * matrix_json.h: Matrix game battles in JSON (docs/rules/matrix.md): the
 * setup (armies, line, reserves, modifiers), the actions (roll, commit,
 * accept), the battle's state and result, and the whole-battle plan of a
 * one-off request.  Battles are run through these one-off and replayed
 * (matrix_stages.c), or fought action by action in a campaign
 * (matrix_campaign.c, behind the battle routes of resources/battles.c).
 * The setup and the actions are in matrix_json.c, the state, result and
 * record in matrix_json_state.c.
 *
 * A battle is its setup and its actions, each with the dice it drew; the
 * state is rebuilt by running the actions through core/matrix.c again,
 * so what is served is always what the rules make of the record.
 */
#ifndef UMPIRE_MATRIX_JSON_H
#define UMPIRE_MATRIX_JSON_H

#include <stdbool.h>

#include <jansson.h>

#include "combat.h"
#include "db.h"
#include "matrix.h"

#define MATRIX_JSON_MAX_ACTIONS 1000 /* actions on one battle */

/* JSON names of the armies, by MATRIX_ATTACKER / MATRIX_DEFENDER. */
extern const char *const matrix_json_army_key[2]; /* "attacker", "defender" */

/* One action on a battle. */
typedef struct matrix_action {
    int kind; /* MATRIX_ACT_* */
    int combat;
    int army;        /* commit */
    int unit;        /* commit */
    int naturals[4]; /* the dice it drew (a pair's two and the enemy's) */
    int n_naturals;
    bool has_dice; /* entered: the request gave them */
    int origin;    /* one-off plans: commits[origin], or line[-1 - origin] */
} matrix_action;

/* An abandon ends an open battle with no result (matrix_campaign.c); its row
 * reads back as an action that changes nothing. */
enum {
    MATRIX_ACT_ROLL,
    MATRIX_ACT_COMMIT,
    MATRIX_ACT_ACCEPT,
    MATRIX_ACT_ABANDON
};

/* "roll", "commit", "accept". */
const char *matrix_json_action_name(int kind);

/* A Matrix battle in the server: the setup, who its units are, and the
 * state rebuilt from the actions. */
typedef struct matrix_job {
    combat_record rec; /* first: combat_finish finds it as the state */
    matrix_setup setup;
    matrix_battle battle;
    matrix_result result;
    int ambush;                     /* the ambushing army, or -1 */
    char army_name[2][DB_NAME_MAX]; /* the side's name (campaign) */
    char army_ref[2][DB_NAME_MAX];  /* campaign: the side as asked */
    char side_id[2][DB_ID_MAX];     /* campaign */
    char unit_ref[2][MATRIX_MAX_UNITS][DB_NAME_MAX]; /* campaign: as asked */
    char unit_name[2][MATRIX_MAX_UNITS][DB_NAME_MAX];
    char unit_id[2][MATRIX_MAX_UNITS][DB_ID_MAX]; /* "" one-off */
    matrix_action actions[MATRIX_JSON_MAX_ACTIONS];
    int n_actions;
    int turn;        /* campaign battles */
    db_battle row;   /* campaign battles: the stored battle */
    json_t *request; /* the request body (a reference) or NULL */
    char escalated_from[DB_ID_MAX];
    /* Creation: the sides whose exhaustion this battle uses up, written
     * once every check has passed. */
    db_side exhausted_side[2];
    bool is_exhaustion_used[2];
} matrix_job;

/* A new job as r's state (freed with the request), or NULL with e set. */
matrix_job *matrix_job_new(http_request *r, err_info *e);
/* Frees j (NULL allowed): the state_free of a request. */
void matrix_job_free(void *p);

/*
 * Reads a setup: "kind" (open, skirmish), "ambush" (null, "attacker",
 * "defender"), "basis", the two armies and the "line".  An army is, in a
 * campaign request, {"side", "argument", "units": [unit refs], "reserve"}
 * (units bound later, in the writer job), or inline {"name", "argument",
 * "exhausted", "units": [{"name", "quality"}], "reserve"}; is_stored reads
 * a stored setup (inline with "side_id" and units' "unit_id").
 */
err_code matrix_json_parse_setup(const json_t *body, bool is_campaign,
                                 bool is_stored, matrix_job *j, err_info *e);

/* Once units are bound: the line's and reserves' names to indices and the
 * setup checked by the rules. */
err_code matrix_json_prepare(matrix_job *j, err_info *e);

/* The setup as stored and as a report's "input" (new reference). */
json_t *matrix_json_setup_json(const matrix_job *j);

/* The names of army a's units listed in units (n of them), as a JSON
 * array (new reference). */
json_t *matrix_json_names(const matrix_job *j, int a, const int *units, int n);

/*
 * Reads one action of a request at path: {"action", "combat", "army",
 * "unit", "dice" (roll, entered: {"unit name": natural}), "die" (commit,
 * entered)}.  is_entered: the battle's dice are entered, so the dice are
 * required; otherwise refused.
 */
err_code matrix_json_parse_action(const json_t *obj, const char *path,
                                  const matrix_job *j, bool is_entered,
                                  matrix_action *a, err_info *e);

/* An action's members as stored (db_battle_action) and back. */
void matrix_json_action_row(const matrix_action *a, db_battle_action *row,
                            char naturals[64]);
err_code matrix_json_action_from_row(const db_battle_action *row,
                                     matrix_action *a, err_info *e);

/*
 * Runs action a on j's battle, drawing from src; the dice it drew are
 * written into a's naturals.  Refused with the rule, leaving the battle
 * unchanged, when the state does not allow it.
 */
err_code matrix_json_apply(matrix_job *j, matrix_action *a, dice_source *src,
                           err_info *e);

/* Rebuilds j's battle from its setup and its actions' logged dice, with
 * src (a replay source over every action's naturals, in order). */
err_code matrix_json_rebuild(matrix_job *j, dice_source *src, err_info *e);

/* The battle's state: armies, combats, status and, once over, the result
 * (new reference). */
json_t *matrix_json_state_json(const matrix_job *j);

/* The result's part of the report (members into o); the battle is over. */
void matrix_json_result_json(const matrix_job *j, json_t *o);

/* Markdown summary of a finished battle (new). */
char *matrix_json_markdown(const matrix_job *j);

/* Fills j->rec's combat row, rolls, summary and report for the battle as
 * it stands (finished or escalated; battle_id NULL for a one-off),
 * rebuilding it once more over all its actions' dice for the roll log. */
err_code matrix_json_record(matrix_job *j, const char *battle_id, err_info *e);

/* The roll log's side and unit of a logged die (combat_roll_names). */
void matrix_json_roll_names(const void *plan, const dice_roll *d,
                            const char **side, const char **unit_name,
                            const char **unit_id);

#endif
