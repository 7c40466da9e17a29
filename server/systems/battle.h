/*
 * battle.h: what interactive battles of every system share in the server
 * (the battles fought in a campaign behind resources/battles.c:
 * matrix/matrix_campaign.c, civ/civ_campaign.c): the stored row of a new
 * battle and the dice its record inherits, the battle's dice as served
 * (the seed hidden while it is open), and the checks on a campaign unit
 * joining a battle.
 */
#ifndef UMPIRE_BATTLE_H
#define UMPIRE_BATTLE_H

#include <jansson.h>

#include "combat.h"
#include "db.h"

/* A new open battle of system in rec's campaign, for turn: id, times,
 * dice (seeded dice take the campaign's next commitment, in the writer
 * job c; the seed is kept for the end), who and the note.  setup is set
 * by the caller. */
err_code battle_row_new(db_conn *c, db_battle *b, combat_record *rec,
                        const char *system, int turn, err_info *e);

/* The dice, note and campaign of b's record, from b: its combat draws
 * from the battle's seed. */
void battle_record_dice(combat_record *rec, const db_battle *b);

/* The battle's "dice" as served: the server seed only once it is over
 * (new reference). */
json_t *battle_dice_json(const db_battle *b);

/*
 * The campaign side ref for an army: found, and not the other army's
 * (other_side_id, "" for the first army), into side; errors name field.
 */
err_code battle_find_side(db_conn *c, const char *campaign_id, const char *ref,
                          const char *other_side_id, const char *field,
                          db_side *side, err_info *e);

/*
 * The campaign unit ref for an army of side (id and name) in a battle:
 * found, in play and of that side, into u; errors name field.  Whether
 * the unit plays the system is the caller's check.
 */
err_code battle_find_unit(db_conn *c, const char *campaign_id, const char *ref,
                          const db_side *side, const char *army,
                          const char *field, db_unit *u, err_info *e);

/* The open battle of the campaign that unit_id stands in, into battle_id
 * ("" for none): a unit fights one battle at a time.  Every system's
 * stored setup has "attacker" and "defender" armies whose "units" carry
 * their "unit_id". */
err_code battle_engaged(db_conn *c, const char *campaign_id,
                        const char *unit_id, char battle_id[DB_ID_MAX],
                        err_info *e);

/* The battle id of the campaign is one of system's ("matrix", "civ"):
 * ERR_NOT_FOUND when the campaign has no such battle, ERR_INVALID (field
 * "battle") when it is another system's. */
err_code battle_check_system(db_conn *c, const char *campaign_id,
                             const char *id, const char *system, err_info *e);

#endif
