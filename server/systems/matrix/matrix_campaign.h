/*
 * matrix_campaign.h: what matrix_campaign.c lends the rest of the
 * server besides its battle routes: a stored battle loaded with its
 * state, and a campaign setup's armies bound (the odds of a campaign
 * battle, matrix_odds.c, read both from a read snapshot).
 */
#ifndef UMPIRE_MATRIX_CAMPAIGN_H
#define UMPIRE_MATRIX_CAMPAIGN_H

#include "db.h"
#include "matrix_json.h"

/* j's battle battle_id of the campaign from its stored row: setup,
 * actions, state rebuilt (and result once over); the setup document
 * stays in j->request.  ERR_NOT_FOUND for no such battle. */
err_code matrix_campaign_load(db_conn *c, const char *campaign_id,
                              const char *battle_id, matrix_job *j,
                              err_info *e);

/* A campaign setup's sides and units (j's references, read by
 * matrix_json_parse_setup) found and checked, their qualities read, and
 * exhaustion due in j->turn applied (noted in j, written by no one here).
 * Whether a unit stands in another open battle is not checked. */
err_code matrix_campaign_bind(db_conn *c, matrix_job *j, err_info *e);

#endif
