/*
 * combats.c: combats as a resource, the HTTP front door of the pipeline
 * (systems/pipeline.h): resolving one of any system, one-off or in a
 * campaign (the route names the system: its entry in the table of
 * systems is the route's arg), reading its report with the roll log,
 * listing a campaign's, and replaying one through its system's rules.
 * A player reads a campaign's combats through fog of war (fog.h): their
 * reports, and their summaries in lists, reduced to what it may see.
 *
 * A campaign combat lands whole or not at all: it is worked out on a
 * snapshot of its campaign on this thread (pipeline_stage), and its
 * writer job writes the combat row (its rolls and its units' history
 * documents packed in it) and every unit change with its history event
 * in one transaction, or, if the campaign changed meanwhile, works it out
 * again first; the response goes out after that job's commit.
 */
#include "combats.h"

#include "fog.h"
#include "jsonb.h"
#include "http.h"
#include "paging.h"
#include "combat.h"
#include "pipeline.h"
#include "systems.h"

#include <stdlib.h>
#include <string.h>

/* Reads the request of the route's system and, one-off, runs it; then
 * hands the record to the writer.  campaign_id NULL: one-off. */
static void create(http_request *r, const char *campaign_id)
{
    const systems_entry *s = r->route_arg;
    json_t *body = http_body_object(r);
    void *job = NULL;
    err_info e;
    err_code rc;

    if (body == NULL)
        return;
    err_clear(&e);
    rc = pipeline_read(s, body, campaign_id, r->token.id, &job, &e);
    if (job != NULL) {
        r->state = job;
        r->state_free = s->job_free;
    }
    if (rc == ERR_OK && campaign_id == NULL)
        rc = pipeline_oneoff(http_db(r->srv), job, &e);
    else if (rc == ERR_OK)
        pipeline_stage(http_db(r->srv), job); /* the writer only writes */
    json_decref(body);
    if (rc != ERR_OK) {
        http_reply_err(r, rc, &e);
        return;
    }
    /* Its campaign's count of combats in flight left once its batch is
     * committed, on the writer. */
    if (campaign_id != NULL)
        r->committed = combat_committed;
    http_defer_write(r, campaign_id ? pipeline_campaign_job : combat_insert_job,
                     combat_finish);
    /* Handed to the writer: the next of its campaign may be worked out
     * (ahead of it: pipeline.h). */
    if (campaign_id != NULL)
        pipeline_staged_handed(job);
}

void combats_create_oneoff(http_request *r)
{
    create(r, NULL);
}

void combats_create_campaign(http_request *r)
{
    create(r, r->params[0]);
}

/* Loads a combat and its rolls, its report rendered where it is stored as
 * its facts; one-off only when campaign_id is NULL.
 * v (NULL: not wanted) receives the caller's view of the campaign
 * (fog_view_cleanup it; it sees everything for a one-off). */
static err_code load_combat(http_request *r, const char *campaign_id,
                            const char *combat_id, db_combat *cb,
                            db_roll **rolls, size_t *n, fog_view *v,
                            err_info *e)
{
    db *d = http_db(r->srv);
    db_conn *c = db_read_acquire(d);
    err_code rc = ERR_OK;

    *rolls = NULL;
    *n = 0;
    if (v != NULL) {
        memset(v, 0, sizeof *v);
        if (campaign_id)
            rc = fog_view_of(c, r, campaign_id, v, e);
    }
    if (rc == ERR_OK)
        rc = db_combat_get(c, combat_id, cb, e);
    if (rc == ERR_OK &&
        strcmp(cb->campaign_id, campaign_id ? campaign_id : "")) {
        db_combat_cleanup(cb);
        err_clear(e);
        rc = err_set(e, ERR_NOT_FOUND, NULL, "no combat %s here", combat_id);
    }
    if (rc == ERR_OK && (rc = db_combat_rolls(c, cb, rolls, n, e)))
        db_combat_cleanup(cb);
    db_read_release(d, c);
    /* A combat stored as its facts: its report rendered from them. */
    if (rc == ERR_OK && cb->facts != NULL &&
        (rc = combat_render_facts(cb, e))) {
        free(*rolls);
        *rolls = NULL;
        *n = 0;
        db_combat_cleanup(cb);
    }
    return rc;
}

/* The report of a campaign's combat as v may read it: text (new) parsed,
 * reduced and written again, or report itself when v sees everything. */
static char *fogged_text(const fog_view *v, char *report)
{
    json_t *doc;
    char *text;

    if (report == NULL || !v->is_on)
        return report;
    doc = fog_report(v, json_loads(report, 0, NULL));
    free(report);
    text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    return text;
}

static void reply_combat(http_request *r, const char *campaign_id)
{
    const char *id = r->params[campaign_id ? 1 : 0];
    db_combat cb;
    db_roll *rolls;
    size_t n;
    fog_view v;
    char *report;
    err_info e;

    err_clear(&e);
    memset(&cb, 0, sizeof cb);
    if (load_combat(r, campaign_id, id, &cb, &rolls, &n, &v, &e)) {
        fog_view_cleanup(&v);
        http_reply_problem(r, &e);
        return;
    }
    report = fogged_text(&v, combat_report_with_rolls(cb.report, rolls, n));
    fog_view_cleanup(&v);
    if (report == NULL) {
        err_set(&e, ERR_INTERNAL, NULL, "the stored report of %s is malformed",
                id);
        http_reply_problem(r, &e);
    } else {
        http_reply_json_text(r, 200, report);
        r->render = HTTP_RENDER_COMBAT;
    }
    free(rolls);
    db_combat_cleanup(&cb);
}

void combats_get_oneoff(http_request *r)
{
    reply_combat(r, NULL);
}

void combats_get_campaign(http_request *r)
{
    reply_combat(r, r->params[0]);
}

/* A combat as a campaign's list shows it, its summary as v may read it. */
static json_t *combat_item(const fog_view *v, const db_combat *cb)
{
    char *summary = fog_summary(v, cb->system, cb->summary);
    json_t *j = json_pack("{s:s, s:s, s:s, s:o, s:s, s:s}", "id", cb->id,
                          "system", cb->system, "created_at", cb->created_at,
                          "note", jsonb_str_or_null(cb->note), "dice_source",
                          cb->dice_source, "summary", summary ? summary : "");

    free(summary);
    return j;
}

void combats_list(http_request *r)
{
    db *d = http_db(r->srv);
    db_conn *c;
    db_combat *cbs = NULL;
    size_t n = 0, i;
    paging p;
    fog_view v;
    json_t *items;
    err_info e;
    err_code rc;

    err_clear(&e);
    if (!paging_read(r, true, &p, &e)) {
        http_reply_problem(r, &e);
        return;
    }
    c = db_read_acquire(d);
    if ((rc = fog_view_of(c, r, r->params[0], &v, &e)) == ERR_OK) {
        db_page pg = {p.cursor, p.is_newest_first, p.limit + 1};
        rc = paging_db_result(
            db_combats_page(c, r->params[0], &pg, &cbs, &n, &e), &e);
    }
    db_read_release(d, c);
    if (rc != ERR_OK) {
        fog_view_cleanup(&v);
        http_reply_problem(r, &e);
        return;
    }
    /* One row more than the page tells whether another page follows. */
    items = json_array();
    for (i = 0; i < n && i < (size_t)p.limit; i++)
        json_array_append_new(items, combat_item(&v, &cbs[i]));
    paging_reply(r, &p, NULL, items,
                 n > (size_t)p.limit ? cbs[p.limit - 1].id : NULL);
    db_combats_free(cbs, n);
    fog_view_cleanup(&v);
}

static void replay(http_request *r, const char *campaign_id)
{
    const char *id = r->params[campaign_id ? 1 : 0];
    db_combat cb;
    db_roll *rolls;
    size_t n;
    const systems_entry *sys;
    json_t *diffs;
    err_info e;
    err_code rc = ERR_INTERNAL;
    bool is_seeded, is_seed_ok;

    err_clear(&e);
    memset(&cb, 0, sizeof cb);
    if (load_combat(r, campaign_id, id, &cb, &rolls, &n, NULL, &e)) {
        http_reply_problem(r, &e);
        return;
    }
    if ((sys = systems_find(cb.system)) == NULL) {
        err_set(&e, ERR_INTERNAL, NULL, "combat %s has an unknown system %s",
                cb.id, cb.system);
        http_reply_problem(r, &e);
        free(rolls);
        db_combat_cleanup(&cb);
        return;
    }
    diffs = json_array();
    is_seeded = strcmp(cb.dice_source, "seeded") == 0;
    is_seed_ok = is_seeded && combat_check_seeded_dice(&cb, rolls, n, diffs);
    /* A combat stored as its facts: the dice they recorded against the
     * log (its report, rendered from them, is replayed below as a stored
     * one is; its dice are its row's, written from it). */
    if (cb.facts != NULL)
        combat_check_facts(&cb, rolls, n, diffs);
    else
        combat_check_report_dice(&cb, diffs);
    rc = combat_replay(&cb, rolls, n, sys->replay, diffs, &e);
    if (rc != ERR_OK) {
        if (e.code == ERR_OK)
            err_set(&e, ERR_INTERNAL, NULL, "no replay for the system %s",
                    cb.system);
        http_reply_problem(r, &e);
        json_decref(diffs);
    } else {
        http_reply_json(
            r, 200,
            json_pack("{s:s, s:s, s:i, s:b, s:o, s:o}", "combat_id", cb.id,
                      "system", cb.system, "n_rolls", (int)n, "reproduced",
                      json_array_size(diffs) == 0, "seeded_dice_verified",
                      is_seeded ? json_boolean(is_seed_ok) : json_null(),
                      "differences", diffs));
    }
    free(rolls);
    db_combat_cleanup(&cb);
}

void combats_replay_oneoff(http_request *r)
{
    replay(r, NULL);
}

void combats_replay_campaign(http_request *r)
{
    replay(r, r->params[0]);
}
