/*
 * service.h: the service's own routes (service.c): its health and the
 * combat systems it serves.
 */
#ifndef UMPIRE_SERVICE_H
#define UMPIRE_SERVICE_H

#include "http.h"

/* GET /health: the service and its database. */
void service_health(http_request *r);
/* GET /v1/systems: the combat systems served. */
void service_systems(http_request *r);

#endif
