/*
 * reports.h: the routes of a campaign's report (reports.c).
 */
#ifndef UMPIRE_REPORTS_H
#define UMPIRE_REPORTS_H

#include "http.h"

/* GET .../report: sides, units, combats, battles and the ledger's head,
 * from one snapshot. */
void reports_campaign(http_request *r);

#endif
