/*
 * campaigns.h: the routes of campaigns and their sides (campaigns.c).
 */
#ifndef UMPIRE_CAMPAIGNS_H
#define UMPIRE_CAMPAIGNS_H

#include "http.h"

/* POST /v1/campaigns: a campaign, its sides and their tokens. */
void campaigns_create(http_request *r);
/* GET /v1/campaigns/{cid}. */
void campaigns_get(http_request *r);
/* PATCH /v1/campaigns/{cid}: the campaign's options that may change
 * (for now its fog of war), answered as GET serves the campaign. */
void campaigns_patch(http_request *r);
/* GET .../sides. */
void campaigns_sides_list(http_request *r);
/* POST .../sides: a side and its player token. */
void campaigns_side_create(http_request *r);

#endif
