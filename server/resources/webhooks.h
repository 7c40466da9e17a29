/*
 * webhooks.h: the routes of a campaign's Discord webhook (webhooks.c),
 * where its combats and battles are posted (docs/discord.md, "Channel
 * posts"), and the webhook as the campaign shows it.
 */
#ifndef UMPIRE_WEBHOOKS_H
#define UMPIRE_WEBHOOKS_H

#include <jansson.h>

#include "db.h"
#include "http.h"

/* PUT .../webhook: {"url": ...}, set or replaced. */
void webhooks_put(http_request *r);
/* DELETE .../webhook. */
void webhooks_delete(http_request *r);

/* The webhook as served (new reference): its URL with the token masked,
 * what became of its posts. */
json_t *webhooks_json(const db_webhook *w);

#endif
