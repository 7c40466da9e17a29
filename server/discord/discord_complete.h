/*
 * discord_complete.h: autocomplete of the commands' options from the
 * campaign: units (one, or the last item of a list), the combat results
 * tables, the campaign's combats.  Each answers at most 25 choices whose
 * values are whole: a value that would not fit Discord's 100 characters
 * is not offered.
 */
#ifndef UMPIRE_DISCORD_COMPLETE_H
#define UMPIRE_DISCORD_COMPLETE_H

#include "discord_interaction.h"
#include "http.h"

/* The last item of a list of units (items after ','), from the units
 * carrying the command's system; units already listed are left out. */
void discord_complete_units(http_request *r, discord_interaction *in,
                            const char *typed);
/* The same for a Matrix line (items after ';', '+' or " v "). */
void discord_complete_line(http_request *r, discord_interaction *in,
                           const char *typed);
/* One unit, any system. */
void discord_complete_unit(http_request *r, discord_interaction *in,
                           const char *typed);
/* The campaign's combat results tables and the built-in ones. */
void discord_complete_table(http_request *r, discord_interaction *in,
                            const char *typed);
/* The campaign's combats, newest first. */
void discord_complete_combat(http_request *r, discord_interaction *in,
                             const char *typed);

#endif
