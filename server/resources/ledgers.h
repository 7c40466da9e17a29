/*
 * ledgers.h: the routes of a campaign's ledger (ledgers.c).
 */
#ifndef UMPIRE_LEDGERS_H
#define UMPIRE_LEDGERS_H

#include "http.h"

/* GET .../ledger: every entry and every record's dice. */
void ledgers_get(http_request *r);
/* GET .../ledger/verify: the chain and every revealed seed's dice checked. */
void ledgers_verify(http_request *r);

#endif
