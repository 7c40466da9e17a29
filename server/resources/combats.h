/*
 * combats.h: the routes of combats (combats.c): POST /v1/combats/{system}
 * and /v1/campaigns/{cid}/combats/{system} (the route's arg is the
 * system's entry, systems.h), a combat's report, a campaign's list, and
 * replay.
 */
#ifndef UMPIRE_COMBATS_H
#define UMPIRE_COMBATS_H

#include "http.h"

/* A combat of the route's system: one-off, or in the campaign of the
 * path (201 with the report, after the commit). */
void combats_create_oneoff(http_request *r);
void combats_create_campaign(http_request *r);
/* A combat's report with its roll log. */
void combats_get_oneoff(http_request *r);
void combats_get_campaign(http_request *r);
/* A campaign's combats, oldest first, with their summaries. */
void combats_list(http_request *r);
/* A stored combat run again through its system's rules. */
void combats_replay_oneoff(http_request *r);
void combats_replay_campaign(http_request *r);

#endif
