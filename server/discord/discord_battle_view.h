/*
 * discord_battle_view.h: a battle's message in Discord, from the battle
 * as the service serves it (GET .../battles/{battle}): an embed with
 * its armies, combats or phases and result, and while it is open the
 * components of what can be done next, each naming the battle and the
 * number of its actions (discord_battle.h), and for Civilization the
 * aircraft orders chosen for the next phase.
 */
#ifndef UMPIRE_DISCORD_BATTLE_VIEW_H
#define UMPIRE_DISCORD_BATTLE_VIEW_H

#include <stdbool.h>

#include <jansson.h>

/*
 * A Civilization battle's message carries the aircraft orders chosen for
 * its next phase in the custom_ids of its components: the class each
 * army's aircraft support (aircraft_support, docs/rules/civ.md, "2.
 * Aircraft"), one letter per army, the attacker's first: i, c, a, o for
 * infantry, cavalry, artillery, other, and '-' for the service's default
 * (the class with most pieces in the wave).  "--" is both defaults.
 */
#define DISCORD_BATTLE_VIEW_AIR_DEFAULT "--"
#define DISCORD_BATTLE_VIEW_AIR_LEN     2

/* The class a letter names ("infantry", ...), or NULL for '-' and for a
 * letter that names none. */
const char *discord_battle_view_air_class(char letter);
/* The letter of a class name, '-' for "default"; '\0' for anything
 * else (aircraft included: they support a class of regular pieces). */
char discord_battle_view_air_letter(const char *cls);
/* Whether air is DISCORD_BATTLE_VIEW_AIR_LEN letters of the above. */
bool discord_battle_view_air_is_valid(const char *air);

/* The response of type (DISCORD_REPLY_MESSAGE for a new message,
 * DISCORD_REPLY_UPDATE for a press) showing battle (borrowed), a
 * Civilization battle's components carrying the aircraft orders air
 * (NULL: the defaults; an army with no aircraft left has the default);
 * new. */
json_t *discord_battle_view_message(const json_t *battle, int type,
                                    const char *air);

#endif
