/*
 * webhooks.c: a campaign's Discord webhook (docs/discord.md, "Channel
 * posts"): set or replaced with its URL, checked to be Discord's
 * (notify_discord_parse_url), and removed.  The token in the URL is a
 * secret: it is stored, sent to Discord by the poster (server/notify/),
 * and never served back, masked everywhere (webhooks_json).
 *
 * Writes go through http_defer_write: the handler checks the body on the
 * HTTP thread, the job writes in the writer's transaction, the finish
 * callback answers once the commit is durable.
 */
#include "webhooks.h"

#include "jsonb.h"
#include "jsonv.h"
#include "notify_discord.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *webhooks_json(const db_webhook *w)
{
    char url[DB_WEBHOOK_URL_MAX];
    json_t *delivery = json_null(), *failure = json_null();

    notify_discord_mask(w->url, url, sizeof url);
    if (w->last_delivery_at[0])
        delivery =
            json_pack("{s:s, s:o}", "at", w->last_delivery_at, "combat_id",
                      jsonb_str_or_null(w->last_delivery_combat));
    if (w->last_failure_at[0])
        failure = json_pack(
            "{s:s, s:o, s:s}", "at", w->last_failure_at, "combat_id",
            jsonb_str_or_null(w->last_failure_combat), "error", w->last_error);
    return json_pack("{s:s, s:s, s:I, s:o, s:I, s:o, s:I}", "url", url,
                     "set_at", w->set_at, "delivered",
                     (json_int_t)w->n_delivered, "last_delivery", delivery,
                     "failures", (json_int_t)w->n_failures, "last_failure",
                     failure, "pending", (json_int_t)w->n_pending);
}

/* A put: the webhook to store, then as stored. */
typedef struct webhook_put {
    db_webhook w;
    bool is_new;
} webhook_put;

static err_code put_job(db_conn *c, void *arg, err_info *e)
{
    webhook_put *wp = arg;
    char campaign_id[DB_ID_MAX];
    err_code rc;

    if ((rc = db_webhook_put(c, &wp->w, &wp->is_new, e)))
        return rc;
    /* Read back into wp->w, which the read clears first. */
    text_copy(campaign_id, sizeof campaign_id, wp->w.campaign_id);
    return db_webhook_get(c, campaign_id, &wp->w, e);
}

static void put_finish(http_request *r, err_code rc, const err_info *e)
{
    webhook_put *wp = r->state;

    if (rc != ERR_OK) {
        http_reply_err(r, rc, e);
        return;
    }
    if (wp->is_new)
        snprintf(r->location, sizeof r->location, "/v1/campaigns/%s/webhook",
                 wp->w.campaign_id);
    http_reply_json(r, wp->is_new ? 201 : 200, webhooks_json(&wp->w));
}

void webhooks_put(http_request *r)
{
    static const char *const fields[] = {"url", NULL};
    json_t *body = http_body_object(r);
    const char *url = NULL;
    webhook_put *wp;
    err_info e;

    if (body == NULL)
        return;
    err_clear(&e);
    wp = calloc(1, sizeof *wp);
    r->state = wp;
    r->state_free = free;
    if (wp == NULL) {
        err_set(&e, ERR_NOMEM, NULL, "out of memory");
        goto fail;
    }
    if (jv_object_only(body, "", fields, &e) ||
        jv_string(body, "", "url", true, DB_WEBHOOK_URL_MAX - 1, &url, &e) ||
        notify_discord_parse_url(url, "url", wp->w.hook_id, wp->w.token, &e))
        goto fail;
    text_copy(wp->w.campaign_id, DB_ID_MAX, r->params[0]);
    text_copy(wp->w.url, DB_WEBHOOK_URL_MAX, url);
    db_now(wp->w.set_at);
    json_decref(body);
    http_defer_write(r, put_job, put_finish);
    return;
fail:
    json_decref(body);
    http_reply_problem(r, &e);
}

static err_code delete_job(db_conn *c, void *arg, err_info *e)
{
    return db_webhook_delete(c, arg, e);
}

static void delete_finish(http_request *r, err_code rc, const err_info *e)
{
    if (rc != ERR_OK)
        http_reply_err(r, rc, e);
    else
        http_reply_no_content(r);
}

void webhooks_delete(http_request *r)
{
    char *campaign_id = strdup(r->params[0]);

    r->state = campaign_id;
    r->state_free = free;
    if (campaign_id == NULL) {
        http_reply_problem_raw(r, 500, "internal_error", "Internal error",
                               "out of memory");
        return;
    }
    http_defer_write(r, delete_job, delete_finish);
}
