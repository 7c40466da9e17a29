/*
 * reports.c: a campaign's report: its sides and units as they stand,
 * every combat it fought with its summary, its battles, and its ledger's
 * head and next commitment, from one snapshot.  Served as JSON, or as
 * Markdown or HTML (report.h) by Accept or ?format=.  A player reads it
 * through fog of war (fog.h): other sides' units, and the combats'
 * summaries, as it may see them.
 */
#include "reports.h"
#include "fog.h"
#include "jsonb.h"
#include "units_doc.h"
#include "combat.h"
#include "http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Everything the report reads, from one snapshot. */
typedef struct campaign_view {
    db_campaign cmp;
    db_side *sides;
    size_t n_sides;
    db_unit *units;
    size_t n_units;
    db_combat *combats;
    size_t n_combats;
    db_battle *battles;
    size_t n_battles;
    db_chain ch;
    db_commitment next;
} campaign_view;

static void view_free(campaign_view *v)
{
    free(v->sides);
    free(v->units);
    db_combats_free(v->combats, v->n_combats);
    db_battles_free(v->battles, v->n_battles);
}

static err_code view_load(db_conn *c, const char *id, campaign_view *v,
                          err_info *e)
{
    memset(v, 0, sizeof *v);
    if (db_campaign_get(c, id, &v->cmp, e) ||
        db_sides_list(c, id, &v->sides, &v->n_sides, e) ||
        db_units_list(c, id, NULL, &v->units, &v->n_units, e) ||
        db_combats_list(c, id, &v->combats, &v->n_combats, e) ||
        db_battles_list(c, id, &v->battles, &v->n_battles, e) ||
        db_chain_open(c, id, &v->ch, e) ||
        db_commitment_next(c, id, &v->next, e))
        return e->code;
    return ERR_OK;
}

static json_t *combats_json(const campaign_view *v)
{
    json_t *items = json_array();
    char url[160];
    size_t i;

    for (i = 0; i < v->n_combats; i++) {
        const db_combat *cb = &v->combats[i];
        snprintf(url, sizeof url, "/v1/campaigns/%s/combats/%s", v->cmp.id,
                 cb->id);
        json_array_append_new(
            items,
            json_pack("{s:s, s:s, s:s, s:o, s:s, s:s, s:s}", "id", cb->id,
                      "system", cb->system, "created_at", cb->created_at,
                      "note", jsonb_str_or_null(cb->note), "dice_source",
                      cb->dice_source, "summary",
                      cb->summary ? cb->summary : "", "url", url));
    }
    return items;
}

static json_t *battles_json(const campaign_view *v)
{
    json_t *items = json_array();
    char url[160];
    size_t i;

    for (i = 0; i < v->n_battles; i++) {
        const db_battle *b = &v->battles[i];
        snprintf(url, sizeof url, "/v1/campaigns/%s/battles/%s", v->cmp.id,
                 b->id);
        json_array_append_new(
            items, json_pack("{s:s, s:s, s:s, s:i, s:s, s:o, s:s}", "id", b->id,
                             "system", b->system, "status", b->status, "turn",
                             b->turn, "created_at", b->created_at, "combat_id",
                             jsonb_str_or_null(b->combat_id), "url", url));
    }
    return items;
}

static json_t *report_json(const campaign_view *v)
{
    json_t *sides = json_array(), *units = json_array();
    char url[160];
    size_t i;

    for (i = 0; i < v->n_sides; i++)
        json_array_append_new(
            sides, json_pack("{s:s, s:s, s:o}", "id", v->sides[i].id, "name",
                             v->sides[i].name, "exhausted_turn",
                             v->sides[i].exhausted_turn
                                 ? json_integer(v->sides[i].exhausted_turn)
                                 : json_null()));
    for (i = 0; i < v->n_units; i++)
        json_array_append_new(units, units_doc_json(&v->units[i]));
    snprintf(url, sizeof url, "/v1/campaigns/%s/ledger", v->cmp.id);
    return json_pack(
        "{s:{s:s, s:s, s:s, s:s, s:{s:I, s:s, s:s}}, s:o, s:o, s:o, s:o}",
        "campaign", "id", v->cmp.id, "name", v->cmp.name, "created_at",
        v->cmp.created_at, "next_commitment", v->next.commitment, "ledger",
        "length", (json_int_t)v->ch.length, "head", v->ch.head, "url", url,
        "sides", sides, "units", units, "combats", combats_json(v), "battles",
        battles_json(v));
}

void reports_campaign(http_request *r)
{
    db *d = http_db(r->srv);
    db_conn *c;
    campaign_view v;
    fog_view fog;
    err_info e;
    err_code rc, end_rc;

    err_clear(&e);
    memset(&fog, 0, sizeof fog);
    if ((rc = db_read_begin(d, &c, &e)) != ERR_OK) {
        http_reply_err(r, rc, &e);
        return;
    }
    rc = view_load(c, r->params[0], &v, &e);
    if (rc == ERR_OK)
        rc = fog_view_load(c, &v.cmp, r->has_token && r->token.is_umpire,
                           r->has_token ? r->token.side_id : NULL, &fog, &e);
    /* Ended in every case; the first error stays in e. */
    end_rc = db_read_end(d, c, &e);
    if (rc == ERR_OK)
        rc = end_rc;
    if (rc != ERR_OK)
        http_reply_err(r, rc, &e);
    else {
        http_reply_json(r, 200, fog_campaign_report(&fog, report_json(&v)));
        r->render = HTTP_RENDER_CAMPAIGN;
    }
    fog_view_cleanup(&fog);
    view_free(&v);
}
