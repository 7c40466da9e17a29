/*
 * odds_http.c: the odds as a resource, the HTTP front door of
 * pipeline_odds (systems/pipeline.h): the body of the system's combat,
 * with an optional "odds" object, answered at once from the request's
 * thread (the odds read the campaign from a snapshot of the read pool and
 * never queue a write).  Their own limits bound the work: over them,
 * 422 with the limit.
 */
#include "odds_http.h"

#include "pipeline.h"
#include "systems.h"

/* campaign_id NULL: one-off. */
static void answer(http_request *r, const char *campaign_id)
{
    const systems_entry *s = r->route_arg;
    json_t *body = http_body_object(r), *a;
    err_info e;

    if (body == NULL)
        return;
    err_clear(&e);
    a = pipeline_odds(s, body, campaign_id, r->has_token ? r->token.id : "",
                      http_db(r->srv), &e);
    json_decref(body);
    if (a == NULL)
        http_reply_err(r, e.code ? e.code : ERR_NOMEM, &e);
    else
        http_reply_json(r, 200, a);
}

void odds_http_oneoff(http_request *r)
{
    answer(r, NULL);
}

void odds_http_campaign(http_request *r)
{
    answer(r, r->params[0]);
}
