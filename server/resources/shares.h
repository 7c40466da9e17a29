/*
 * shares.h: the routes of share links (shares.c, docs/sharing.md): a
 * campaign's combat, battle or whole report opened to whoever holds a
 * link, without a token.
 */
#ifndef UMPIRE_SHARES_H
#define UMPIRE_SHARES_H

#include <stdbool.h>

#include "http.h"

/* POST /v1/campaigns/{campaign_id}/shares (umpire): a new link; 201 with
 * its url, which holds the secret, shown only there. */
void shares_create(http_request *r);

/* GET /v1/campaigns/{campaign_id}/shares (umpire): the campaign's links,
 * a page at a time, revoked ones included, never a secret. */
void shares_list(http_request *r);

/* DELETE /v1/campaigns/{campaign_id}/shares/{share_id} (umpire): the
 * link revoked (204, again too); its secret answers 404 from then on. */
void shares_delete(http_request *r);

/* Whether s has the shape of a link's secret: 32 bytes in unpadded
 * base64url, 43 characters (whether a link has it is another matter). */
bool shares_is_secret(const char *s);

/* GET /v1/shared/{secret} (public): the shared report, as its own route
 * serves it to a viewer holding no side, with the campaign's ledger
 * entries its dice reach; renders as Markdown or HTML (the report). */
void shares_shared(http_request *r);

#endif
