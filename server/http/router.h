/*
 * router.h: the static route table (mirroring api-spec/openapi.yaml) and
 * dispatch: method and path, then the token, then the handler.  HEAD is
 * answered wherever GET is (libmicrohttpd leaves the body out); OPTIONS
 * is answered for every path that has a route, and is a CORS preflight
 * (cors.h) on the API's paths when it carries Origin and
 * Access-Control-Request-Method.
 */
#ifndef UMPIRE_ROUTER_H
#define UMPIRE_ROUTER_H

#include <stddef.h>

#include "http.h"

typedef enum router_auth {
    ROUTER_PUBLIC, /* no token needed */
    ROUTER_READ,   /* a token of the campaign in the path: umpire or player */
    ROUTER_UMPIRE, /* the umpire token of the campaign in the path */
    ROUTER_TOKEN   /* any valid token (no campaign in the path) */
} router_auth;

/* What else a route does (flags). */
enum {
    ROUTER_ROLLS = 1,   /* it rolls dice: Idempotency-Key applies (idem.h) */
    ROUTER_RENDERS = 2, /* its answer renders as Markdown or HTML (report.h) */
    ROUTER_TAIL = 4     /* its last {param} takes the rest of the path,
                           slashes included (/console/js/app.js) */
};

typedef void (*router_handler)(http_request *r);

typedef struct router_route {
    const char *method;
    const char *path; /* OpenAPI template, e.g. /v1/campaigns/{campaign_id} */
    router_handler handler;
    router_auth auth;
    unsigned flags;  /* ROUTER_ROLLS, ROUTER_RENDERS, ROUTER_TAIL */
    const void *arg; /* the handler's, as r->route_arg: the combat routes'
                        entry in the table of systems (systems.h) */
} router_route;

extern const router_route router_routes[];
extern const size_t router_n_routes;

/* Routes r and runs its handler, or replies 404/405/401/403; answers
 * OPTIONS and CORS preflights itself. */
void router_dispatch(http_request *r);

#endif
