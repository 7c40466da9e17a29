/*
 * discord_report.h: a combat's report as a Discord embed, made for chat
 * from the report's JSON (the one the service stores and serves): side
 * names, the result first, eliminations and routs, the dice with their
 * modifiers, and the combat's id with a way to check it.  One renderer
 * per system (SCRUD, EDNA, SCS; a battle's record, Matrix or
 * Civilization, by its summary), all within Discord's limits
 * (discord_reply.h): a long one is shortened and points to the full
 * report.
 */
#ifndef UMPIRE_DISCORD_REPORT_H
#define UMPIRE_DISCORD_REPORT_H

#include <jansson.h>

#include "discord_reply.h"

/* The embed of report (a combat's report, borrowed) in campaign_id (new).
 * client_seed, when not NULL, is shown as the dice's client seed. */
json_t *discord_report_combat(const json_t *report, const char *campaign_id);

/* The full report's pointer for combat_id of campaign_id, into out (n
 * bytes): its route, and the /check command. */
void discord_report_where(char *out, size_t n, const char *campaign_id,
                          const char *combat_id);

/* Adds text (lines) to em as fields named name, split at line ends into
 * values of at most 1,024 characters ("name (2)" for the next). */
void discord_report_fields(discord_embed *em, const char *name,
                           const char *text);

/* "+n" or "-n" into out (24 bytes). */
const char *discord_report_signed(char out[24], long long n);

#endif
