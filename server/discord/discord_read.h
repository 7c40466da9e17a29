/*
 * discord_read.h: what the campaign's umpires and players read from
 * Discord (docs/discord.md): a unit's card and recent history (/unit),
 * the ledger's head and its verification (/ledger), the next commitment
 * to post before the dice (/commitment), and a combat replayed with its
 * dice checked (/check).  Reads answer at once, in public messages.
 *
 * /ledger and /check call the HTTP front door's handlers (ledgers.c,
 * combats.c) for the interaction and reshape their JSON.  Verifying a
 * ledger is bounded: one of more than DISCORD_READ_VERIFY_MAX entries is
 * not walked inside Discord's 3 seconds (this service makes no outbound
 * call to answer later); its head is shown with the ways to verify it
 * off Discord.
 */
#ifndef UMPIRE_DISCORD_READ_H
#define UMPIRE_DISCORD_READ_H

#include <jansson.h>

#include "discord_interaction.h"
#include "http.h"

#define DISCORD_READ_VERIFY_MAX 20000 /* ledger entries verified in Discord */
#define DISCORD_READ_EVENTS     5     /* history events on a unit's card */

/* The commands' handlers (discord_commands.c). */
void discord_read_unit(http_request *r, discord_interaction *in);
void discord_read_ledger(http_request *r, discord_interaction *in);
void discord_read_commitment(http_request *r, discord_interaction *in);
void discord_read_check(http_request *r, discord_interaction *in);

/* The answers of GET .../ledger/verify and POST .../replay as messages
 * (new). */
json_t *discord_read_ledger_reshape(const discord_interaction *in,
                                    const json_t *answer, int status);
json_t *discord_read_check_reshape(const discord_interaction *in,
                                   const json_t *answer, int status);

#endif
