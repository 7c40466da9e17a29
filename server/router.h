/*
 * router.h: the static route table (mirroring api-spec/openapi.yaml) and
 * dispatch: method and path, then the token, then the handler.
 */
#ifndef UMPIRE_ROUTER_H
#define UMPIRE_ROUTER_H

#include <stddef.h>

#include "http.h"

typedef enum route_auth {
    AUTH_PUBLIC, /* no token needed */
    AUTH_READ,   /* a token of the campaign in the path: umpire or player */
    AUTH_UMPIRE  /* the umpire token of the campaign in the path */
} route_auth;

typedef void (*route_handler)(request *r);

typedef struct route {
    const char *method;
    const char *path; /* OpenAPI template, e.g. /v1/campaigns/{campaign_id} */
    route_handler handler;
    route_auth auth;
} route;

extern const route router_routes[];
extern const size_t router_n_routes;

/* Routes r and runs its handler, or replies 404/405/401/403. */
void router_dispatch(request *r);

#endif
