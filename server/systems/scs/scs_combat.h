/*
 * scs_combat.h: an SCS combat in the server, from request to report
 * (docs/rules/scs.md): the combat's state from JSON (a request, or the
 * "input" of a stored report), and its report and Markdown summary.
 * scs_stages.c runs it through the table of systems: one-off or in a
 * campaign, and replay.
 *
 * The report opens with "input": the combat as a one-off request would
 * give it (the table whole, every unit inline as it stood, the orders as
 * resolved), so a reader can resubmit it, and replay reads the combat back
 * from it.
 */
#ifndef UMPIRE_SCS_COMBAT_H
#define UMPIRE_SCS_COMBAT_H

#include <stdbool.h>

#include <jansson.h>

#include "combat.h"
#include "scs.h"

/* JSON names of each side's parts, by SCS_ATTACKER / SCS_DEFENDER. */
extern const char *const scs_combat_side_key[2];    /* "attackers" */
extern const char *const scs_combat_side_label[2];  /* "attacker" */
extern const char *const scs_combat_alloc_key[2];   /* "..._allocation" */
extern const char *const scs_combat_retreat_key[2]; /* "..._retreat" */

typedef struct scs_combat {
    combat_record rec; /* first: combat_finish finds it as the state */
    scs_input in;
    scs_table table;
    scs_outcome out;
    json_t *table_doc;           /* the table resolved on (a reference) */
    const char *table_source;    /* "builtin", "campaign" or "inline" */
    char table_ref[DB_NAME_MAX]; /* campaign: looked up in the job */
    scs_unit units[2][SCS_MAX_UNITS];
    scs_counter counters[2][SCS_MAX_UNITS];
    char unit_ref[2][SCS_MAX_UNITS][DB_NAME_MAX]; /* campaign: as asked */
    char unit_name[2][SCS_MAX_UNITS][DB_NAME_MAX];
    char unit_id[2][SCS_MAX_UNITS][DB_ID_MAX]; /* "" one-off */
    char side_name[2][DB_NAME_MAX];            /* "" one-off */
    json_t *alloc[2]; /* the orders' unit names, resolved once units are */
    json_t *extra[2]; /* known (references) */
    json_t *options;  /* the request's (a reference) or NULL */
    int roll[2];      /* entered dice */
    bool has_roll;
} scs_combat;

/* Frees j (NULL allowed): the state_free of a request. */
void scs_combat_free(void *p);

/*
 * Reads the combat's members of body into j (its own top-level fields are
 * checked by the caller): the table (a built-in's name, or inline; in a
 * campaign a name is looked up later), the units (campaign references or
 * inline counters), shift, overrun, orders and options (a campaign's are
 * applied later, over the campaign's).
 */
err_code scs_combat_parse(const json_t *body, bool is_campaign, scs_combat *j,
                          err_info *e);

/* Once the units are known: orders to unit indices, and each unit's values
 * for the combat from its counter (j->in ready to resolve). */
err_code scs_combat_prepare(scs_combat *j, err_info *e);

/* A built-in table as a report's input keeps it (new), or NULL. */
json_t *scs_combat_builtin_table(const char *name);

/* The report's "input" (new reference). */
json_t *scs_combat_input_json(const scs_combat *j);
/* Unit i of side s's part in the resolved combat (new reference): the
 * report's entry, and the unit's history result. */
json_t *scs_combat_unit_json(const scs_combat *j, int s, size_t i);
/* Everything a replay must reproduce, as members of o. */
void scs_combat_outcome_json(const scs_combat *j, json_t *o);
/* The Markdown summary of the resolved combat, o its outcome (new). */
char *scs_combat_markdown(const scs_combat *j, const json_t *o);

#endif
