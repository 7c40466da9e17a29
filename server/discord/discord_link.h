/*
 * discord_link.h: channels linked to campaigns, and who is who there
 * (docs/discord.md, "Linking a channel").  No token is ever shown in a
 * public message: /link and /claim take theirs as an option and answer
 * privately (ephemeral).
 *
 *   /link token:<umpire token>   links this channel (guild and channel)
 *                                to the token's campaign, replacing any
 *                                link it had, and records the user as
 *                                one of the campaign's Discord umpires;
 *   /unlink                      an umpire unlinks the channel;
 *   /claim token:<player token>  records the side the user holds in the
 *                                channel's campaign (a new claim
 *                                replaces the old one).
 * Only a linked umpire rolls or changes anything; players read.
 */
#ifndef UMPIRE_DISCORD_LINK_H
#define UMPIRE_DISCORD_LINK_H

#include "db.h"
#include "discord_interaction.h"
#include "err.h"
#include "http.h"

/* Fills in's campaign (the channel's link), the user's role there and,
 * for an umpire, the umpire token's id (through d's pool). */
err_code discord_link_lookup(db *d, discord_interaction *in, err_info *e);

/* The commands' handlers (discord_commands.c). */
void discord_link_link(http_request *r, discord_interaction *in);
void discord_link_unlink(http_request *r, discord_interaction *in);
void discord_link_claim(http_request *r, discord_interaction *in);

#endif
