/*
 * scrud_json.h: SCRUD between JSON and core: options, combat requests
 * (campaign and one-off), the report and its Markdown summary.
 * scrud_stages.c runs it through the table of systems.
 */
#ifndef UMPIRE_SCRUD_JSON_H
#define UMPIRE_SCRUD_JSON_H

#include <stdbool.h>

#include <jansson.h>

#include "combat.h"
#include "db.h"
#include "dice.h"
#include "jsonw.h"
#include "err.h"
#include "scrud.h"

/* Applies the fields present in obj (at path) onto o. */
err_code scrud_json_options(const json_t *obj, const char *path,
                            scrud_options *o, err_info *e);
/* Every option, as a JSON object written to w, or as a new json_t. */
void scrud_json_options_write(jw *w, const scrud_options *o);
json_t *scrud_json_options_json(const scrud_options *o);

/* Everything a SCRUD combat needs besides its dice. */
typedef struct scrud_plan {
    scrud_input in;
    char side_name[2][DB_NAME_MAX];
    char side_id[2][DB_ID_MAX]; /* "" one-off */
    json_t *options; /* the request's options object (a reference) or NULL */
    /* Per unit, last: only the rows below each side's n_units are read,
     * and each is cleared as its unit is read (parse_unit), so a new job
     * need not zero the 40 KB of rows it does not use (scrud_stages.c,
     * job_new). */
    scrud_unit units[2][SCRUD_MAX_UNITS_PER_SIDE];
    char unit_ref[2][SCRUD_MAX_UNITS_PER_SIDE][DB_NAME_MAX]; /* as asked */
    char unit_name[2][SCRUD_MAX_UNITS_PER_SIDE][DB_NAME_MAX];
    char unit_id[2][SCRUD_MAX_UNITS_PER_SIDE][DB_ID_MAX]; /* "" one-off */
    bool has_die[2][SCRUD_MAX_UNITS_PER_SIDE];
    int die[2][SCRUD_MAX_UNITS_PER_SIDE];
} scrud_plan;

/* Where each unit's entry of "sides"[s]."units" lies in the text
 * of the report written (scrud_json_outcome_write):
 * from its "{" to its last member's end (its "}" not included). */
typedef struct scrud_spans {
    size_t at[2][SCRUD_MAX_UNITS_PER_SIDE], end[2][SCRUD_MAX_UNITS_PER_SIDE];
} scrud_spans;

/* A SCRUD combat request in the server (scrud_stages.c, scrud_odds.c). */
typedef struct scrud_job {
    combat_record rec; /* first: combat_finish finds it as the state */
    scrud_result res;  /* once run */
    json_t *options;   /* the request's options (a reference) or NULL */
    scrud_plan plan;   /* its rows of units (above) last but spans */
    /* Once run: the units' entries in rec.cb.report.  After the plan's
     * rows, so that a new job need not zero it either. */
    scrud_spans spans;
} scrud_job;

/*
 * Parses a combat request body into plan.  is_campaign: sides name campaign
 * sides and units by reference ("side", "unit"); otherwise units are
 * inline.  is_entered says whether every unit must carry "die".  Unit
 * state of campaign units is filled later by scrud_json_bind_units.
 */
err_code scrud_json_parse_sides(const json_t *body, bool is_campaign,
                                bool is_entered, scrud_plan *plan, err_info *e);

/* Campaign combats: looks up sides and units (in c, inside the write
 * transaction) and fills their current state into plan; each unit read is
 * kept in keep (combat_bind_keep) unless it is NULL. */
err_code scrud_json_bind_units(db_conn *c, const char *campaign_id,
                               scrud_plan *plan, combat_record *keep,
                               err_info *e);

/* The entered dice in draw order into values (2 * max); *n their count. */
void scrud_json_entered_values(const scrud_plan *plan, int *values, size_t *n);

/* The combat's input read back from its stored report (every unit's
 * quality, faces, penalties before, reserve flag and modifiers, and the
 * options), for replay. */
err_code scrud_json_parse_input(const json_t *report, scrud_plan *plan,
                                err_info *e);

/* The combat's facts (db.h, scrud_facts.c): plan's options, sides and
 * units, and the naturals of its n_rolls dice, written into cb
 * (cb->facts; false when out of memory); read back from a combat stored
 * so into plan, and the naturals into dice (room for
 * SCRUD_FACTS_DICE_MAX), *n_dice of them (ERR_INTERNAL when they do not
 * read, or do not describe a combat the rules take). */
enum { SCRUD_FACTS_DICE_MAX = 2 * SCRUD_MAX_UNITS_PER_SIDE };
bool scrud_facts_write(const scrud_plan *plan, const db_roll *rolls,
                       size_t n_rolls, db_combat *cb);
err_code scrud_facts_read(const db_combat *cb, scrud_plan *plan, int *dice,
                          size_t *n_dice, err_info *e);
/* The outcome part of the report: the members "sides", "pairs" and
 * "extra", written into the object open in w (each unit's entry's span
 * into spans, unless NULL); or as a new json_t object. */
void scrud_json_outcome_write(jw *w, const scrud_plan *plan,
                              const scrud_result *res, scrud_spans *spans);
json_t *scrud_json_outcome_json(const scrud_plan *plan,
                                const scrud_result *res);

/* One unit's result (the members of its report entry) into the object
 * open in w. */
void scrud_json_unit_write(jw *w, const scrud_plan *plan,
                           const scrud_result *res, int s, int i);
/* A unit's result for its history: its entry of the report (report, where
 * spans say), then "system" and "side"; the same text as the entry
 * written again with those members after it (scrud_json_unit_result_text,
 * which writes it without a report).  New (free()), or NULL when out of
 * memory. */
char *scrud_json_unit_result(const char *report, const scrud_spans *spans,
                             const scrud_plan *plan, int s, int i);
char *scrud_json_unit_result_text(const scrud_plan *plan,
                                  const scrud_result *res, int s, int i);

/* The Markdown summary (new string, free()). dice_note says how the dice
 * were produced, e.g. "entered at the table". */
char *scrud_json_markdown(const scrud_plan *plan, const scrud_result *res,
                          const char *dice_note);

/* A one-line summary for combat lists (new string, free()). */
char *scrud_json_summary(const scrud_plan *plan, const scrud_result *res);

#endif
