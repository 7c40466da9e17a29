/*
 * odds_http.h: the routes of the odds (odds_http.c, docs/odds.md):
 * POST /v1/odds/{system} and /v1/campaigns/{cid}/odds/{system} (the
 * route's arg is the system's entry, systems.h).  The odds roll nothing,
 * claim no commitment and write nothing: 200 with the answer.
 */
#ifndef UMPIRE_ODDS_HTTP_H
#define UMPIRE_ODDS_HTTP_H

#include "http.h"

/* The odds of a combat of the route's system: one-off (units inline), or
 * with the campaign's units as they stand (umpire or player token). */
void odds_http_oneoff(http_request *r);
void odds_http_campaign(http_request *r);

#endif
