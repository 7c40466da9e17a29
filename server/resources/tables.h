/*
 * tables.h: the routes of combat results tables (tables.c): built in,
 * and a campaign's own.
 */
#ifndef UMPIRE_TABLES_H
#define UMPIRE_TABLES_H

#include "http.h"

/* GET /v1/tables. */
void tables_builtin_list(http_request *r);
/* GET /v1/tables/{name}. */
void tables_builtin_get(http_request *r);
/* GET .../tables. */
void tables_list(http_request *r);
/* GET .../tables/{name}. */
void tables_get(http_request *r);
/* PUT .../tables/{name}: created or replaced whole. */
void tables_put(http_request *r);
/* DELETE .../tables/{name}. */
void tables_delete(http_request *r);

#endif
