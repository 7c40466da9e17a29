/*
 * history.h: the routes of units' histories and cards and the
 * campaign's feed (history.c).
 */
#ifndef UMPIRE_HISTORY_H
#define UMPIRE_HISTORY_H

#include "combat.h"
#include "http.h"

/* GET .../units/{uid}/history, a page at a time. */
void history_unit(http_request *r);
/* GET .../units/{uid}/card: its state and latest event. */
void history_card(http_request *r);
/* GET .../history: every unit's history merged. */
void history_campaign(http_request *r);

/* One history event as the campaign's feed serves it, with the dice its
 * unit rolled in it (read in c), before any fog of war: new, NULL on
 * failure (e says why).  For the events stream (events_hub.c); results
 * keeps the last combat's results given again from its facts, and its
 * rolls, for the events after it (combat_results_cleanup it once done). */
json_t *history_feed_event(db_conn *c, const db_event *ev,
                           combat_results *results, err_info *e);

#endif
