/*
 * civ_campaign.h: what civ_campaign.c lends the rest of the server
 * besides its battle routes: a stored battle loaded with its state (the
 * odds of a campaign battle's next phase, civ_odds.c, read it from a read
 * snapshot).
 */
#ifndef UMPIRE_CIV_CAMPAIGN_H
#define UMPIRE_CIV_CAMPAIGN_H

#include "civ_json.h"
#include "db.h"
#include "dice.h"

/* The battle id of the campaign into j: setup, phases rebuilt from their
 * orders and logged dice; src (caller's: dice_cleanup after) is left
 * holding that log.  ERR_NOT_FOUND for no such battle. */
err_code civ_campaign_load(db_conn *c, const char *campaign_id, const char *id,
                           civ_job *j, dice_source *src, err_info *e);

#endif
