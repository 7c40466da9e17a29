/*
 * units.h: the routes of a campaign's units (units.c): created, read,
 * listed, corrected and resupplied.
 */
#ifndef UMPIRE_UNITS_H
#define UMPIRE_UNITS_H

#include "http.h"

/* GET .../units, with filters. */
void units_list(http_request *r);
/* POST .../units. */
void units_create(http_request *r);
/* GET .../units/{uid}. */
void units_get(http_request *r);
/* PATCH .../units/{uid}: a correction. */
void units_patch(http_request *r);
/* POST .../units/{uid}/resupply. */
void units_resupply(http_request *r);

#endif
