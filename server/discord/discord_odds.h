/*
 * discord_odds.h: /odds, the Discord front door of pipeline_odds
 * (docs/odds.md): its subcommands scrud, edna and scs take the options of
 * /scrud, /edna and /scs (their lists read by discord_combat.c) and answer
 * the chances as an embed, ephemeral unless "public" is set; and the odds
 * of a battle's next step (the "Odds" button of a Matrix battle before a
 * roll, of a Civilization battle before a phase).  Nothing is
 * rolled, claimed or written: a player may ask as an umpire may.
 */
#ifndef UMPIRE_DISCORD_ODDS_H
#define UMPIRE_DISCORD_ODDS_H

#include <jansson.h>

#include "discord_interaction.h"
#include "http.h"
#include "systems.h"

/* The /odds command's handler (discord_commands.c). */
void discord_odds_run(http_request *r, discord_interaction *in);

/* The odds of a battle's next step, body (stolen) the odds route's of
 * system s ({"battle", "expect_actions"}, a Civilization phase's orders),
 * answered ephemeral (r answered); combat: the Matrix combat shown. */
void discord_odds_battle(http_request *r, discord_interaction *in,
                         const systems_entry *s, json_t *body, int combat);

/* The longest an interaction's odds wait for the odds' threads and are
 * still worked out; beyond it they are answered busy (Discord waits 3 s
 * for an answer).  discord_odds_set_wait_max changes it (tests). */
#define DISCORD_ODDS_WAIT_MAX_MS 1500
void discord_odds_set_wait_max(int ms);

/* An odds answer (docs/odds.md) of system as an embed (new); combat: a
 * Matrix answer's combat shown, else -1. */
json_t *discord_odds_embed(const json_t *answer, const char *campaign_id,
                           int combat);

#endif
