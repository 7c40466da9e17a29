/*
 * civ_json.h: Civilization advanced combat in JSON (docs/rules/civ.md):
 * armies and their pieces, a phase's orders (the larger army's wave, the
 * aircraft's class, casualty orders), the phases' reports with every term
 * of each total, and the battle's end.  Battles are run with it one-off
 * to the end and replayed (civ_stages.c), or fought phase by phase in a
 * campaign (civ_campaign.c, behind the battle routes of
 * resources/battles.c).
 */
#ifndef UMPIRE_CIV_JSON_H
#define UMPIRE_CIV_JSON_H

#include <stdbool.h>

#include <jansson.h>

#include "civ.h"
#include "combat.h"
#include "db.h"

#define CIV_JSON_MAX_PHASES 200 /* phases of an interactive battle */

extern const char *const civ_json_army_key[2]; /* "attacker", "defender" */

typedef struct civ_job {
    combat_record rec; /* first: combat_finish finds it as the state */
    civ_setup setup;
    civ_battle battle;
    civ_orders plan[2];      /* one-off: the armies' standing orders */
    int max_phases;          /* one-off */
    civ_phase *phases;       /* owned */
    civ_orders (*orders)[2]; /* owned: each phase's orders, as given */
    int n_phases;
    bool is_unresolved;
    char army_name[2][DB_NAME_MAX];
    char army_ref[2][DB_NAME_MAX]; /* campaign: the side as asked */
    char side_id[2][DB_ID_MAX];
    char unit_ref[2][CIV_MAX_UNITS][DB_NAME_MAX];
    char unit_name[2][CIV_MAX_UNITS][DB_NAME_MAX];
    char unit_id[2][CIV_MAX_UNITS][DB_ID_MAX];
    int *entered; /* owned: entered dice, in draw order */
    int n_entered;
    int turn;
    db_battle row;
    json_t *request; /* a reference, or NULL */
    json_t *reply;   /* campaign action: the battle as it now stands, made
                      * in the writer job when it is kept under an
                      * Idempotency-Key (is_reply_in_job) */
    bool is_reply_in_job;
} civ_job;

/* A new job with room for max phases (NULL when out of memory). */
civ_job *civ_job_new(int max_phases);
void civ_job_free(void *p);

/*
 * Reads a setup: "current_era", "settlement", "great_wall", and the two
 * armies: in a campaign {"side", "technologies", "units": [refs]}; inline
 * {"name", "technologies", "units": [{"name", "class", "era", "bonus",
 * "dice_multiplier"}], and for one-off plans "wave_preference",
 * "aircraft_support", "casualty_order"}.  is_stored reads a stored setup
 * (inline, with "side_id" and units' "unit_id").
 */
err_code civ_json_parse_setup(const json_t *body, bool is_campaign,
                              bool is_stored, civ_job *j, err_info *e);
/* The one-off plan's orders (names to indices), once units are known. */
err_code civ_json_parse_plan(const json_t *body, civ_job *j, err_info *e);

/* A piece: {"class", "era", "bonus", "dice_multiplier"} at path. */
err_code civ_json_parse_unit(const json_t *obj, const char *path, bool is_patch,
                             civ_unit *u, err_info *e);
json_t *civ_json_unit_json(const civ_unit *u);

/* The setup as stored and as a report's input (new reference). */
json_t *civ_json_setup_json(const civ_job *j);

/* A phase's orders: {"attacker": {"wave", "aircraft_support",
 * "casualties"}, "defender": {...}} at path; the stored form is the same. */
err_code civ_json_parse_orders(const json_t *obj, const char *path,
                               const civ_job *j, civ_orders out[2],
                               err_info *e);
json_t *civ_json_orders_json(const civ_job *j, const civ_orders o[2]);

/* Fights the next phase with orders, drawing from src. */
err_code civ_json_fight(civ_job *j, const civ_orders orders[2],
                        dice_source *src, err_info *e);

/* The phases, the end and the survivors (members into o); naturals
 * come from the source's log (src). */
void civ_json_outcome_json(const civ_job *j, const dice_source *src, json_t *o);
/* Markdown summary (new). */
char *civ_json_markdown(const civ_job *j);

/* Rebuilds j's battle from its phases' orders (n of them) and the dice in
 * src. */
err_code civ_json_rebuild(civ_job *j, const civ_orders (*orders)[2], int n,
                          dice_source *src, err_info *e);
/* A one-off's battle: phases with its standing orders to the end or its
 * phase limit (j->is_unresolved then). */
err_code civ_json_fight_plan(civ_job *j, dice_source *src, err_info *e);
/* Fills j->rec's row, rolls, summary and report (input taken) from src's
 * log; battle_id NULL for a one-off. */
err_code civ_json_record(civ_job *j, const dice_source *src,
                         const char *battle_id, json_t *input, err_info *e);

void civ_json_roll_names(const void *plan, const dice_roll *d,
                         const char **side, const char **unit_name,
                         const char **unit_id);

#endif
