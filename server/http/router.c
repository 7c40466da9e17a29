/*
 * router.c: the route table and dispatch; see router.h.  Every route here
 * is in api-spec/openapi.yaml and the other way round
 * (tests/server/http/test_spec.c checks both directions).  A route that
 * creates a combat has its system's entry in the table of systems as its
 * arg (systems.h).
 */
#include "router.h"
#include "console.h"
#include "idem.h"
#include "report.h"
#include "battles.h"
#include "campaigns.h"
#include "commitments.h"
#include "events.h"
#include "history.h"
#include "ledgers.h"
#include "reports.h"
#include "service.h"
#include "shares.h"
#include "tables.h"
#include "tokens.h"
#include "units.h"
#include "webhooks.h"
#include "combats.h"
#include "odds_http.h"
#include "discord_http.h"
#include "systems.h"
#include "problem.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <microhttpd.h>
#include <sodium.h>

/* The query parameters of a route (router.h): a read of the API takes
 * format; a list is paged (paging.h); a route that renders takes format. */
#define Q_NONE  ""
#define Q_READ  "format"
#define Q_PAGED "format order limit cursor"

const router_route router_routes[] = {
    {"GET", "/", console_index, ROUTER_PUBLIC, 0, Q_NONE, NULL},
    {"GET", "/console/{asset_path}", console_asset_get, ROUTER_PUBLIC,
     ROUTER_TAIL, Q_NONE, NULL},
    /* The console's share page, the same for every secret (shares.h). */
    {"GET", "/share/{secret}", console_share, ROUTER_PUBLIC, 0, Q_NONE, NULL},
    {"GET", "/health", service_health, ROUTER_PUBLIC, 0, Q_READ, NULL},
    {"GET", "/v1/systems", service_systems, ROUTER_PUBLIC, 0, Q_READ, NULL},
    {"POST", "/v1/campaigns", campaigns_create, ROUTER_PUBLIC, ROUTER_WRITES,
     Q_NONE, NULL},
    {"GET", "/v1/token", tokens_get, ROUTER_TOKEN, 0, Q_READ, NULL},
    {"GET", "/v1/campaigns/{campaign_id}", campaigns_get, ROUTER_READ, 0,
     Q_READ, NULL},
    {"PATCH", "/v1/campaigns/{campaign_id}", campaigns_patch, ROUTER_UMPIRE,
     ROUTER_WRITES, Q_NONE, NULL},
    {"GET", "/v1/campaigns/{campaign_id}/tokens", tokens_list, ROUTER_UMPIRE, 0,
     Q_PAGED, NULL},
    {"POST", "/v1/campaigns/{campaign_id}/tokens", tokens_reissue,
     ROUTER_UMPIRE, ROUTER_WRITES, Q_NONE, NULL},
    {"GET", "/v1/campaigns/{campaign_id}/shares", shares_list, ROUTER_UMPIRE, 0,
     Q_PAGED, NULL},
    {"POST", "/v1/campaigns/{campaign_id}/shares", shares_create, ROUTER_UMPIRE,
     ROUTER_WRITES, Q_NONE, NULL},
    {"DELETE", "/v1/campaigns/{campaign_id}/shares/{share_id}", shares_delete,
     ROUTER_UMPIRE, ROUTER_WRITES, Q_NONE, NULL},
    /* A share link's secret instead of a token (shares.h). */
    {"GET", "/v1/shared/{secret}", shares_shared, ROUTER_PUBLIC,
     ROUTER_RENDERS | ROUTER_HEAVY, Q_READ " ledger", NULL},
    {"GET", "/v1/campaigns/{campaign_id}/sides", campaigns_sides_list,
     ROUTER_READ, 0, Q_PAGED, NULL},
    {"POST", "/v1/campaigns/{campaign_id}/sides", campaigns_side_create,
     ROUTER_UMPIRE, ROUTER_WRITES, Q_NONE, NULL},
    {"GET", "/v1/campaigns/{campaign_id}/units", units_list, ROUTER_READ, 0,
     Q_PAGED " side eliminated system ineffective", NULL},
    {"POST", "/v1/campaigns/{campaign_id}/units", units_create, ROUTER_UMPIRE,
     ROUTER_WRITES, Q_NONE, NULL},
    {"GET", "/v1/campaigns/{campaign_id}/units/{unit_id}", units_get,
     ROUTER_READ, 0, Q_READ, NULL},
    {"PATCH", "/v1/campaigns/{campaign_id}/units/{unit_id}", units_patch,
     ROUTER_UMPIRE, ROUTER_WRITES, Q_NONE, NULL},
    {"POST", "/v1/campaigns/{campaign_id}/units/{unit_id}/resupply",
     units_resupply, ROUTER_UMPIRE, ROUTER_WRITES, Q_NONE, NULL},
    {"GET", "/v1/campaigns/{campaign_id}/units/{unit_id}/history", history_unit,
     ROUTER_READ, 0, Q_PAGED, NULL},
    {"GET", "/v1/campaigns/{campaign_id}/units/{unit_id}/card", history_card,
     ROUTER_READ, 0, Q_READ, NULL},
    {"GET", "/v1/campaigns/{campaign_id}/history", history_campaign,
     ROUTER_READ, 0, Q_PAGED, NULL},
    /* text/event-stream, open until the client leaves (events.h). */
    {"GET", "/v1/campaigns/{campaign_id}/events", events_stream, ROUTER_READ, 0,
     Q_READ " last_event_id", NULL},
    {"POST", "/v1/campaigns/{campaign_id}/combats/scrud",
     combats_create_campaign, ROUTER_UMPIRE,
     ROUTER_ROLLS | ROUTER_RENDERS | ROUTER_WRITES, Q_READ, &scrud_stages},
    {"POST", "/v1/campaigns/{campaign_id}/combats/edna",
     combats_create_campaign, ROUTER_UMPIRE,
     ROUTER_ROLLS | ROUTER_RENDERS | ROUTER_WRITES, Q_READ, &edna_stages},
    {"POST", "/v1/campaigns/{campaign_id}/combats/scs", combats_create_campaign,
     ROUTER_UMPIRE, ROUTER_ROLLS | ROUTER_RENDERS | ROUTER_WRITES, Q_READ,
     &scs_stages},
    /* The odds: nothing rolled, claimed or written (docs/odds.md). */
    {"POST", "/v1/campaigns/{campaign_id}/odds/scrud", odds_http_campaign,
     ROUTER_READ, ROUTER_ODDS, Q_NONE, &scrud_stages},
    {"POST", "/v1/campaigns/{campaign_id}/odds/edna", odds_http_campaign,
     ROUTER_READ, ROUTER_ODDS, Q_NONE, &edna_stages},
    {"POST", "/v1/campaigns/{campaign_id}/odds/scs", odds_http_campaign,
     ROUTER_READ, ROUTER_ODDS, Q_NONE, &scs_stages},
    {"POST", "/v1/campaigns/{campaign_id}/odds/matrix", odds_http_campaign,
     ROUTER_READ, ROUTER_ODDS, Q_NONE, &matrix_stages},
    {"POST", "/v1/campaigns/{campaign_id}/odds/civ", odds_http_campaign,
     ROUTER_READ, ROUTER_ODDS, Q_NONE, &civ_stages},
    /* By name: no order. */
    {"GET", "/v1/campaigns/{campaign_id}/tables", tables_list, ROUTER_READ, 0,
     "format limit cursor", NULL},
    {"GET", "/v1/campaigns/{campaign_id}/tables/{table_name}", tables_get,
     ROUTER_READ, 0, Q_READ, NULL},
    {"PUT", "/v1/campaigns/{campaign_id}/tables/{table_name}", tables_put,
     ROUTER_UMPIRE, ROUTER_WRITES, Q_NONE, NULL},
    {"DELETE", "/v1/campaigns/{campaign_id}/tables/{table_name}", tables_delete,
     ROUTER_UMPIRE, ROUTER_WRITES, Q_NONE, NULL},
    {"PUT", "/v1/campaigns/{campaign_id}/webhook", webhooks_put, ROUTER_UMPIRE,
     ROUTER_WRITES, Q_NONE, NULL},
    {"DELETE", "/v1/campaigns/{campaign_id}/webhook", webhooks_delete,
     ROUTER_UMPIRE, ROUTER_WRITES, Q_NONE, NULL},
    {"POST", "/v1/campaigns/{campaign_id}/battles", battles_create,
     ROUTER_UMPIRE, ROUTER_ROLLS | ROUTER_RENDERS | ROUTER_WRITES, Q_READ,
     NULL},
    {"GET", "/v1/campaigns/{campaign_id}/battles", battles_list, ROUTER_READ, 0,
     Q_PAGED, NULL},
    {"GET", "/v1/campaigns/{campaign_id}/battles/{battle_id}", battles_get,
     ROUTER_READ, ROUTER_RENDERS, Q_READ, NULL},
    {"POST", "/v1/campaigns/{campaign_id}/battles/{battle_id}/actions",
     battles_action, ROUTER_UMPIRE,
     ROUTER_ROLLS | ROUTER_RENDERS | ROUTER_WRITES, Q_READ, NULL},
    {"GET", "/v1/campaigns/{campaign_id}/combats", combats_list, ROUTER_READ, 0,
     Q_PAGED, NULL},
    {"GET", "/v1/campaigns/{campaign_id}/combats/{combat_id}",
     combats_get_campaign, ROUTER_READ, ROUTER_RENDERS, Q_READ, NULL},
    {"POST", "/v1/campaigns/{campaign_id}/combats/{combat_id}/replay",
     combats_replay_campaign, ROUTER_READ, 0, Q_NONE, NULL},
    {"GET", "/v1/campaigns/{campaign_id}/report", reports_campaign, ROUTER_READ,
     ROUTER_RENDERS | ROUTER_HEAVY, Q_READ, NULL},
    {"GET", "/v1/campaigns/{campaign_id}/ledger", ledgers_export, ROUTER_READ,
     0, Q_READ " after seeds", NULL},
    {"GET", "/v1/campaigns/{campaign_id}/ledger/verify", ledgers_verify,
     ROUTER_READ, ROUTER_HEAVY, Q_READ " pos hash", NULL},
    {"POST", "/v1/commitments", commitments_create, ROUTER_PUBLIC,
     ROUTER_ROLLS | ROUTER_WRITES, Q_NONE, NULL},
    {"GET", "/v1/commitments/{commitment}", commitments_get, ROUTER_PUBLIC, 0,
     Q_READ, NULL},
    {"POST", "/v1/combats/scrud", combats_create_oneoff, ROUTER_PUBLIC,
     ROUTER_ROLLS | ROUTER_RENDERS | ROUTER_WRITES, Q_READ, &scrud_stages},
    {"POST", "/v1/combats/edna", combats_create_oneoff, ROUTER_PUBLIC,
     ROUTER_ROLLS | ROUTER_RENDERS | ROUTER_WRITES, Q_READ, &edna_stages},
    {"POST", "/v1/combats/scs", combats_create_oneoff, ROUTER_PUBLIC,
     ROUTER_ROLLS | ROUTER_RENDERS | ROUTER_WRITES, Q_READ, &scs_stages},
    {"POST", "/v1/combats/matrix", combats_create_oneoff, ROUTER_PUBLIC,
     ROUTER_ROLLS | ROUTER_RENDERS | ROUTER_WRITES, Q_READ, &matrix_stages},
    {"POST", "/v1/combats/civ", combats_create_oneoff, ROUTER_PUBLIC,
     ROUTER_ROLLS | ROUTER_RENDERS | ROUTER_WRITES, Q_READ, &civ_stages},
    {"POST", "/v1/odds/scrud", odds_http_oneoff, ROUTER_PUBLIC, ROUTER_ODDS,
     Q_NONE, &scrud_stages},
    {"POST", "/v1/odds/edna", odds_http_oneoff, ROUTER_PUBLIC, ROUTER_ODDS,
     Q_NONE, &edna_stages},
    {"POST", "/v1/odds/scs", odds_http_oneoff, ROUTER_PUBLIC, ROUTER_ODDS,
     Q_NONE, &scs_stages},
    {"POST", "/v1/odds/matrix", odds_http_oneoff, ROUTER_PUBLIC, ROUTER_ODDS,
     Q_NONE, &matrix_stages},
    {"POST", "/v1/odds/civ", odds_http_oneoff, ROUTER_PUBLIC, ROUTER_ODDS,
     Q_NONE, &civ_stages},
    /* Signed by Discord, not by a token (discord_http.h). */
    {"POST", "/v1/discord/interactions", discord_http_interactions,
     ROUTER_PUBLIC, ROUTER_WRITES, Q_NONE, NULL},
    {"GET", "/v1/tables", tables_builtin_list, ROUTER_PUBLIC, 0, Q_READ, NULL},
    {"GET", "/v1/tables/{table_name}", tables_builtin_get, ROUTER_PUBLIC, 0,
     Q_READ, NULL},
    {"GET", "/v1/combats/{combat_id}", combats_get_oneoff, ROUTER_PUBLIC,
     ROUTER_RENDERS, Q_READ, NULL},
    {"POST", "/v1/combats/{combat_id}/replay", combats_replay_oneoff,
     ROUTER_PUBLIC, 0, Q_NONE, NULL},
};
const size_t router_n_routes = sizeof router_routes / sizeof router_routes[0];

/* The slashes of each route's path, counted once: a path with another
 * count (fewer, for a route whose last parameter takes the rest) cannot
 * match it (match: each slash of the one is met by a slash of the other,
 * and no other parameter holds one), so most routes are passed over
 * without comparing their text. */
static unsigned char
    route_slashes[sizeof router_routes / sizeof router_routes[0]];
static pthread_once_t route_slashes_once = PTHREAD_ONCE_INIT;

static size_t slashes(const char *s)
{
    size_t n = 0;

    for (; *s; s++)
        n += *s == '/';
    return n;
}

static void route_slashes_count(void)
{
    size_t i;

    for (i = 0; i < router_n_routes; i++)
        route_slashes[i] = (unsigned char)slashes(router_routes[i].path);
}

/* Whether route i may match a path of n slashes. */
static bool may_match(size_t i, size_t n)
{
    return (router_routes[i].flags & ROUTER_TAIL) ? n >= route_slashes[i]
                                                  : n == route_slashes[i];
}

/* Matches path against rt's template; fills r's params on success. */
static bool match(const router_route *rt, const char *path, http_request *r,
                  bool is_filling)
{
    const char *t = rt->path, *p = path;
    int n = 0;

    while (*t && *p) {
        if (*t != '/' || *p != '/')
            return false;
        t++;
        p++;
        if (*t == '{') {
            const char *end = strchr(p, '/');
            size_t len = end ? (size_t)(end - p) : strlen(p);
            t = strchr(t, '}') + 1;
            if (*t == '\0' && (rt->flags & ROUTER_TAIL))
                len = strlen(p);
            if (len == 0 || n >= HTTP_MAX_PARAMS)
                return false;
            if (is_filling)
                r->params[n] = (char *)p;
            n++;
            p += len;
        } else {
            size_t len = strcspn(t, "/");
            if (strncmp(t, p, len) != 0 || (p[len] != '/' && p[len] != '\0'))
                return false;
            t += len;
            p += len;
        }
    }
    if (*t || *p)
        return false;
    if (is_filling)
        r->n_params = n;
    return true;
}

/* Parameters point into r->param_buf; cut them apart after matching (a
 * tail parameter keeps its slashes). */
static void terminate_params(http_request *r, const router_route *rt)
{
    int i, n = r->n_params - ((rt->flags & ROUTER_TAIL) ? 1 : 0);

    for (i = 0; i < n; i++) {
        char *slash = strchr(r->params[i], '/');
        if (slash)
            *slash = '\0';
    }
}

static void authenticate(http_request *r, router_auth need)
{
    const char *h = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
                                                MHD_HTTP_HEADER_AUTHORIZATION);
    char hex[65];
    err_info e;
    db_conn *c;
    err_code rc;

    err_clear(&e);
    if (h == NULL || strncasecmp(h, "Bearer ", 7) != 0 || h[7] == '\0') {
        err_set(&e, ERR_UNAUTHORIZED, NULL,
                "this route needs an Authorization: Bearer token");
        http_reply_problem(r, &e);
        return;
    }
    tokens_hash_hex(h + 7, hex);
    c = db_read_acquire(http_db(r->srv));
    rc = db_token_find(c, hex, &r->token, &e);
    db_read_release(http_db(r->srv), c);
    if (rc == ERR_NOT_FOUND) {
        err_clear(&e);
        err_set(&e, ERR_UNAUTHORIZED, NULL, "the token is not valid");
        http_reply_problem(r, &e);
        return;
    }
    if (rc != ERR_OK) {
        http_reply_problem(r, &e);
        return;
    }
    r->has_token = true;
    if (need == ROUTER_TOKEN)
        return;
    /* The campaign is always the route's first parameter. */
    if (strcmp(r->token.campaign_id, r->params[0]) != 0) {
        err_set(&e, ERR_FORBIDDEN, NULL,
                "the token does not give access to this campaign");
        http_reply_problem(r, &e);
        return;
    }
    if (need == ROUTER_UMPIRE && !r->token.is_umpire) {
        err_set(&e, ERR_FORBIDDEN, NULL,
                "a player token can read its campaign but not change it");
        http_reply_problem(r, &e);
        return;
    }
}

/* The report format asked for: ?format= (which only routes that render
 * take) or Accept.  False when r was answered with a problem. */
static bool choose_format(http_request *r, const router_route *rt)
{
    const char *q = http_query(r, "format"), *accept;
    report_format f = REPORT_JSON;
    err_info e;

    r->format = REPORT_JSON;
    if (q == NULL && !(rt->flags & ROUTER_RENDERS))
        return true; /* JSON only, whatever Accept says: nothing to parse */
    accept = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
                                         MHD_HTTP_HEADER_ACCEPT);
    err_clear(&e);
    if (report_format_choose(q, accept, &f) != 0) {
        err_set(&e, ERR_INVALID, "format",
                "format is json, md (or markdown) or html");
        http_reply_problem(r, &e);
        return false;
    }
    if (q && f != REPORT_JSON && !(rt->flags & ROUTER_RENDERS)) {
        http_reply_problem_raw(r, 406, "not_acceptable", "Not acceptable",
                               "this resource is served as JSON only; "
                               "combats, battles and campaign reports render "
                               "as Markdown or HTML");
        return false;
    }
    r->format = (rt->flags & ROUTER_RENDERS) ? (int)f : REPORT_JSON;
    return true;
}

/*
 * OPTIONS.  On the API's paths (everything but the console's), with Origin
 * and Access-Control-Request-Method, it is a CORS preflight: 204 with the
 * preflight's headers (http.c) for an allowed origin, whatever the path,
 * so that the request itself gets its own answer (404, 405) readable;
 * 403 origin_not_allowed otherwise, which the access log shows.  Any
 * other OPTIONS is 204 with Allow for a path that has routes, else 404.
 */
static void options(http_request *r, const char *allow)
{
    const char *origin = http_header(r, "Origin");

    if (!console_is_path(r->path) && origin != NULL &&
        http_header(r, "Access-Control-Request-Method") != NULL) {
        if (cors_allow(http_cors(r->srv), origin) == NULL) {
            http_reply_problem_raw(r, 403, "origin_not_allowed",
                                   "Origin not allowed",
                                   "this origin may not call the API from a "
                                   "browser (see --cors-origin)");
            return;
        }
        r->is_preflight = true;
        http_reply_no_content(r);
        return;
    }
    if (allow[0] == '\0') {
        http_reply_problem_raw(r, 404, "no_such_route", "Not found",
                               "no route matches this path");
        return;
    }
    snprintf(r->allow, sizeof r->allow, "%s", allow);
    http_reply_no_content(r);
}

bool router_takes(const router_route *rt, const char *name)
{
    size_t len = strlen(name);
    const char *q = rt->query;

    if (strchr(name, ' ') != NULL)
        return false; /* the list's separator */
    while (len > 0 && (q = strstr(q, name)) != NULL) {
        if ((q == rt->query || q[-1] == ' ') &&
            (q[len] == ' ' || q[len] == '\0'))
            return true;
        q += len;
    }
    return false;
}

/* The first query parameter of a request that its route does not take. */
typedef struct unknown_param {
    const router_route *rt;
    char name[65]; /* "" while none; cut, with what is not printable
                      ASCII as '?', to go into a message */
} unknown_param;

static enum MHD_Result find_unknown(void *cls, enum MHD_ValueKind kind,
                                    const char *key, const char *value)
{
    unknown_param *u = cls;
    size_t i;

    (void)kind;
    (void)value;
    if (key == NULL || key[0] == '\0' || router_takes(u->rt, key))
        return MHD_YES;
    for (i = 0; key[i] && i + 1 < sizeof u->name; i++)
        u->name[i] = key[i] > ' ' && key[i] < 0x7f ? key[i] : '?';
    u->name[i] = '\0';
    return MHD_NO; /* the first is enough */
}

/* Refuses a query parameter rt does not take (router.h): 400
 * unknown_parameter, field the parameter's name.  False when r was
 * answered. */
static bool check_query(http_request *r, const router_route *rt)
{
    unknown_param u = {rt, ""};
    char detail[256], takes[128] = "none";
    size_t i, o = 0;
    json_t *p;

    MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, find_unknown, &u);
    if (u.name[0] == '\0')
        return true;
    for (i = 0; rt->query[i] && o + 3 < sizeof takes; i++) {
        if (rt->query[i] == ' ')
            takes[o++] = ',';
        takes[o++] = rt->query[i];
    }
    if (o > 0)
        takes[o] = '\0';
    snprintf(detail, sizeof detail,
             "this operation takes no query parameter \"%s\"; it takes %s",
             u.name, takes);
    p = problem_make(400, "unknown_parameter", "Unknown query parameter",
                     detail, u.name);
    /* A problem with a field, whose status no err_code has: made here,
     * sent as any problem is (application/problem+json). */
    http_reply_json(r, 400, p);
    if (r->status == 400)
        r->content_type = "application/problem+json";
    return false;
}

/* The route of r's method (HEAD: GET's) for its path, or NULL; and, when
 * allow is not NULL, the methods of the path for Allow (router.h): each
 * route's, HEAD after GET, then OPTIONS; "" when no route has the path.
 * A request that finds its route needs no Allow: it is written only for
 * OPTIONS and for 405. */
static const router_route *find(http_request *r, char *allow, size_t size)
{
    bool is_head = strcmp(r->method, "HEAD") == 0;
    size_t i, len = 0, n = slashes(r->path);
    const router_route *found = NULL;

    (void)pthread_once(&route_slashes_once, route_slashes_count);
    if (allow != NULL)
        allow[0] = '\0';
    for (i = 0; i < router_n_routes && len < size; i++) {
        const router_route *rt = &router_routes[i];
        bool is_get;
        if (!may_match(i, n) || !match(rt, r->path, r, false))
            continue;
        is_get = strcmp(rt->method, "GET") == 0;
        if (allow != NULL)
            len += (size_t)snprintf(allow + len, size - len, "%s%s%s",
                                    len ? ", " : "", rt->method,
                                    is_get ? ", HEAD" : "");
        if (strcmp(rt->method, r->method) == 0 || (is_head && is_get))
            found = rt;
    }
    if (allow != NULL && len > 0 && len < size)
        snprintf(allow + len, size - len, ", OPTIONS");
    return found;
}

void router_dispatch(http_request *r)
{
    char allow[sizeof r->allow];
    bool is_options = strcmp(r->method, "OPTIONS") == 0;
    const router_route *found =
        find(r, is_options ? allow : NULL, sizeof allow);

    /* No route of its method: the path's methods decide 405 or 404. */
    if (found == NULL && !is_options)
        find(r, allow, sizeof allow);
    if (is_options) {
        options(r, allow);
        return;
    }
    if (found == NULL && allow[0]) {
        char detail[128];
        snprintf(r->allow, sizeof r->allow, "%s", allow);
        snprintf(detail, sizeof detail, "%s is not allowed here; allowed: %s",
                 r->method, allow);
        http_reply_problem_raw(r, 405, "method_not_allowed",
                               "Method not allowed", detail);
        return;
    }
    if (found == NULL) {
        http_reply_problem_raw(r, 404, "no_such_route", "Not found",
                               "no route matches this path");
        return;
    }
    r->param_buf = strdup(r->path);
    if (r->param_buf == NULL) {
        http_reply_problem_raw(r, 500, "internal_error", "Internal error",
                               "out of memory");
        return;
    }
    match(found, r->param_buf, r, true);
    terminate_params(r, found);
    if (!check_query(r, found) || !choose_format(r, found))
        return;
    if (found->auth != ROUTER_PUBLIC) {
        authenticate(r, found->auth);
        if (r->is_ready)
            return;
    }
    if ((found->flags & ROUTER_ROLLS) && !idem_begin(r))
        return;
    r->route_arg = found->arg;
    if (found->flags & ROUTER_ODDS)
        http_defer_odds(r, found->handler);
    else if (found->flags & ROUTER_HEAVY)
        http_defer_read(r, found->handler);
    else
        found->handler(r);
}
