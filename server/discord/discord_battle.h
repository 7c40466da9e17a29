/*
 * discord_battle.h: Matrix and Civilization battles fought in Discord
 * with message components (docs/discord.md).  /matrix and /civ open a
 * battle through its system's battle handlers (systems.h), as POST
 * .../battles does; its message carries the buttons and selects of what
 * can be done next: roll a combat, commit a reserve, accept its result
 * (Matrix); fight a phase, with the wave picked in a select and the
 * class each army's aircraft support picked in another (Civilization);
 * abandon.  Each press is one action through the system's handler, and
 * the answer updates the battle's message in place.  Picking the
 * aircraft's class is no action: it updates the message, whose phase
 * button and wave select then carry it into the phase's orders.
 *
 * A component's custom_id names the battle and the number of actions the
 * message showed, and what the component does:
 * "b:<battle>:<n>:<action>[:<combat>[:<army>[:<aircraft>]]]", -1 for no
 * combat and - for no army; <aircraft> is the Civilization aircraft
 * orders of both armies (discord_battle_view.h).  <n> is sent as
 * expect_actions (and checked before an aircraft choice is shown): a
 * second press of the same button (or a press on an old message) cannot
 * act twice; it is told that another action landed first.  The
 * interaction's id is the action's Idempotency-Key.
 */
#ifndef UMPIRE_DISCORD_BATTLE_H
#define UMPIRE_DISCORD_BATTLE_H

#include <jansson.h>

#include "discord_interaction.h"
#include "http.h"

/* The commands' handlers (discord_commands.c). */
void discord_battle_matrix(http_request *r, discord_interaction *in);
void discord_battle_civ(http_request *r, discord_interaction *in);
/* A new battle's answer as a new message with its components (new). */
json_t *discord_battle_created(const discord_interaction *in,
                               const json_t *answer, int status);

/* A button or select pressed on a battle's message (r answered). */
void discord_battle_press(http_request *r, discord_interaction *in);
/* An action's answer (the battle) as the message updated (new). */
json_t *discord_battle_reshape(const discord_interaction *in,
                               const json_t *answer, int status);

#endif
