/*
 * events.h: the route of a campaign's live events (events.c;
 * docs/events.md): GET /v1/campaigns/{campaign_id}/events, a
 * text/event-stream that the hub (events_hub.h) writes into.
 */
#ifndef UMPIRE_EVENTS_H
#define UMPIRE_EVENTS_H

#include "http.h"

/* Streams open at once with one token at most: the next gets 429. */
#define EVENTS_PER_TOKEN 4

/* GET .../events (and HEAD: the headers a stream would have). */
void events_stream(http_request *r);

#endif
