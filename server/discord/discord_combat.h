/*
 * discord_combat.h: /scrud, /edna and /scs, the Discord front door of the
 * campaign pipeline (pipeline.h), as resources/combats.c is the HTTP one:
 * the command's options become the request the API takes, which goes
 * through pipeline_read and then pipeline_campaign_job on the database
 * writer; once it has committed, the combat's report is answered as an
 * embed (discord_report.h).  The interaction's id is the request's
 * Idempotency-Key and, as "discord:<id>", its client seed, so the dice
 * also depend on a value Discord chose.
 *
 * Units are given as lists of text, items after commas, each a unit's
 * name (or id) with what its system takes after it:
 *   SCRUD  "R2 +1" (a modifier for this combat), "R3 reserve";
 *   EDNA   "R2 +1" (harder by one);
 *   SCS    "XV Corps x1/2 x2" (multipliers);
 * a name that is itself a unit's is taken whole.
 */
#ifndef UMPIRE_DISCORD_COMBAT_H
#define UMPIRE_DISCORD_COMBAT_H

#include <jansson.h>

#include "db.h"
#include "discord_interaction.h"
#include "err.h"
#include "http.h"
#include "systems.h"

/* What an item of a list may carry after the unit's name. */
typedef enum discord_combat_kind {
    DISCORD_COMBAT_NAMES,    /* nothing: names only (battles) */
    DISCORD_COMBAT_MODIFIER, /* "+n"/"-n" (EDNA) */
    DISCORD_COMBAT_SCRUD,    /* "+n"/"-n" and "reserve" */
    DISCORD_COMBAT_SCS       /* "xA/B" multipliers */
} discord_combat_kind;

/*
 * The units of list (through c, in campaign_id) as a new JSON array into
 * *out: {"unit": <id>} with "modifier", "reserve" or "multipliers" as
 * kind takes them.  side (DB_NAME_MAX bytes) receives their side's name,
 * the same for all (ERR_INVALID otherwise); NULL: units of any sides.
 * An unknown unit is
 * ERR_NOT_FOUND, naming it.
 */
err_code discord_combat_units(db_conn *c, const char *campaign_id,
                              const char *list, discord_combat_kind kind,
                              json_t **out, char *side, err_info *e);

/* The commands' handlers (discord_commands.c). */
void discord_combat_scrud(http_request *r, discord_interaction *in);
void discord_combat_edna(http_request *r, discord_interaction *in);
void discord_combat_scs(http_request *r, discord_interaction *in);

/* The request of a combat of system ("scrud", "edna" or "scs") from in's
 * options, as its command makes it (new), its system into *s; NULL when
 * r was answered (an unknown unit, a list of two sides: ephemeral). */
json_t *discord_combat_body(http_request *r, discord_interaction *in,
                            const char *system, const systems_entry **s);

/* in's client seed, "discord:<interaction id>", into out (48 bytes). */
void discord_combat_seed(const discord_interaction *in, char out[48]);

#endif
