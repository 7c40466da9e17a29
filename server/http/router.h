/*
 * router.h: the static route table (mirroring api-spec/openapi.yaml) and
 * dispatch: method and path, then the query, then the token, then the
 * handler.  HEAD is answered wherever GET is (libmicrohttpd leaves the
 * body out); OPTIONS is answered for every path that has a route, and is
 * a CORS preflight (cors.h) on the API's paths when it carries Origin and
 * Access-Control-Request-Method.  The Allow header (of a 405, of an
 * OPTIONS) lists the path's methods with HEAD after GET, and OPTIONS.
 *
 * Each route names the query parameters it takes; any other is refused
 * (400 unknown_parameter, field the parameter's name) before the token is
 * looked at.  OPTIONS takes any query (a preflight must not fail on one).
 * `format` (report.h) is taken by every GET of the API and every route
 * that renders: a GET that does not render answers 406 for Markdown or
 * HTML.  The console's routes take no query parameter.
 */
#ifndef UMPIRE_ROUTER_H
#define UMPIRE_ROUTER_H

#include <stdbool.h>
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
    ROUTER_TAIL = 4,    /* its last {param} takes the rest of the path,
                           slashes included (/console/js/app.js) */
    ROUTER_WRITES = 8,  /* it writes to the database (through its writer):
                           507 database_full when the disk is full */
    ROUTER_HEAVY = 16,  /* its work grows with the campaign or takes up to
                           seconds: it runs on the threads of long reads,
                           never on a request worker (http_heavy.h) */
    ROUTER_ODDS = 32    /* odds: run as a long read is, on threads of
                           their own (http_defer_odds) */
};

typedef void (*router_handler)(http_request *r);

typedef struct router_route {
    const char *method;
    const char *path; /* OpenAPI template, e.g. /v1/campaigns/{campaign_id} */
    router_handler handler;
    router_auth auth;
    unsigned flags;    /* ROUTER_ROLLS, ROUTER_RENDERS, ROUTER_TAIL,
                          ROUTER_WRITES, ROUTER_HEAVY, ROUTER_ODDS */
    const char *query; /* the query parameters it takes, space-separated,
                          as the spec's operation lists them ("" none) */
    const void *arg;   /* the handler's, as r->route_arg: the combat routes'
                          entry in the table of systems (systems.h) */
} router_route;

extern const router_route router_routes[];
extern const size_t router_n_routes;

/* Whether rt takes the query parameter name. */
bool router_takes(const router_route *rt, const char *name);

/* Routes r and runs its handler, or replies 404/405/400/406/401/403;
 * answers OPTIONS and CORS preflights itself. */
void router_dispatch(http_request *r);

#endif
