/*
 * ledgers.h: the routes of a campaign's ledger (ledgers.c).
 */
#ifndef UMPIRE_LEDGERS_H
#define UMPIRE_LEDGERS_H

#include "http.h"
#include "http_stream.h"

/* GET .../ledger: every entry and every record's dice, built whole in
 * memory (a shared link's cut of the ledger: shares.c). */
void ledgers_get(http_request *r);
/* GET .../ledger as served: the same document, streamed from one snapshot
 * by the export pump (started with ledgers_export_start) as the client
 * takes it. */
void ledgers_export(http_request *r);
err_code ledgers_export_start(http_streams **out, err_info *e);
/* GET .../ledger/verify: the chain and every revealed seed's dice checked. */
void ledgers_verify(http_request *r);
/* The same checks of campaign_id's ledger on c (one snapshot: db_read_begin),
 * for a caller outside HTTP (umpire copy-sqlite): *problems new, each
 * {pos, problem} as the route lists them; empty when it verifies. */
err_code ledgers_problems(db_conn *c, const char *campaign_id,
                          json_t **problems, err_info *e);

#endif
