/*
 * battles.c: interactive battles as a resource: the routes under
 * /v1/campaigns/{cid}/battles.  A battle is of a system fought action by
 * action in a campaign (Matrix, Civilization): its entry in the table of
 * systems (systems.h) names the battle's handlers, which these routes
 * dispatch to: by the body's "system" when one is created (Matrix unless
 * it says), by the stored battle's afterwards.  A player reads a battle
 * through fog of war (fog.h): the state its system's handler answers,
 * reduced by the system's fog stage.
 */
#include "battles.h"

#include "fog.h"
#include "jsonb.h"
#include "combat.h"
#include "http.h"
#include "jsonv.h"
#include "paging.h"
#include "systems.h"
#include "text.h"

#include <string.h>

/* The systems that fight battles, as jv_enum's choices (Matrix first: the
 * default); returns how many. */
static int battle_systems(const systems_entry *out[], const char *names[])
{
    size_t i;
    int n = 0;

    if (matrix_stages.battle != NULL) {
        out[n] = &matrix_stages;
        names[n++] = systems_name(&matrix_stages);
    }
    for (i = 0; i < systems_n; i++)
        if (systems_table[i]->battle != NULL &&
            systems_table[i] != &matrix_stages) {
            out[n] = systems_table[i];
            names[n++] = systems_name(systems_table[i]);
        }
    names[n] = NULL;
    return n;
}

void battles_create(http_request *r)
{
    const systems_entry *sys[8];
    const char *names[8];
    json_t *body = http_body_object(r);
    err_info e;
    int which = 0;

    if (body == NULL)
        return;
    err_clear(&e);
    battle_systems(sys, names);
    if (jv_enum(body, "", "system", false, names, &which, &e)) {
        json_decref(body);
        http_reply_problem(r, &e);
        return;
    }
    sys[which]->battle->create(r, body);
}

/* The battles of the campaign's battle in the path: its system's, or
 * Matrix's when there is none (which then says so). */
static const systems_battle *battle_of(http_request *r)
{
    db *d = http_db(r->srv);
    db_conn *c = db_read_acquire(d);
    const systems_entry *s = NULL;
    db_battle b;

    memset(&b, 0, sizeof b);
    if (db_battle_get(c, r->params[0], r->params[1], &b, NULL) == ERR_OK)
        s = systems_find(b.system);
    db_battle_cleanup(&b);
    db_read_release(d, c);
    return s && s->battle ? s->battle : matrix_stages.battle;
}

/* The battle r's handler answered (its JSON body), reduced for the
 * caller: a player of a campaign with fog on. */
static void fog_answer(http_request *r)
{
    db *d = http_db(r->srv);
    db_conn *c;
    fog_view v;
    json_t *doc;
    http_render render = r->render;
    err_info e;
    err_code rc;

    err_clear(&e);
    if (r->status != 200 || r->resp_body == NULL ||
        (r->has_token && r->token.is_umpire))
        return;
    c = db_read_acquire(d);
    rc = fog_view_of(c, r, r->params[0], &v, &e);
    db_read_release(d, c);
    if (rc != ERR_OK) {
        r->render = HTTP_RENDER_NONE;
        http_reply_problem(r, &e);
    } else if (v.is_on) {
        doc = fog_report(&v, json_loads(r->resp_body, 0, NULL));
        /* NULL answers 500, which renders as no battle. */
        if (doc == NULL)
            render = HTTP_RENDER_NONE;
        http_reply_json(r, 200, doc);
        r->render = render;
    }
    fog_view_cleanup(&v);
}

void battles_get(http_request *r)
{
    battle_of(r)->get(r);
    fog_answer(r);
}

void battles_action(http_request *r)
{
    json_t *body = http_body_object(r);

    if (body == NULL)
        return;
    battle_of(r)->action(r, body);
}

static err_code battles_list_fetch(db_conn *c, const char *campaign_id,
                                   const db_page *pg, void **rows, size_t *n,
                                   err_info *e)
{
    db_battle *bs = NULL;
    err_code rc = db_battles_page(c, campaign_id, pg, &bs, n, e);

    *rows = bs;
    return rc;
}

/* A battle's line in the list: no setup, combats or phases. */
static json_t *battles_list_item(const void *row)
{
    const db_battle *b = row;

    return json_pack("{s:s, s:s, s:s, s:i, s:s, s:s, s:i, s:o, s:o}", "id",
                     b->id, "system", b->system, "status", b->status, "turn",
                     b->turn, "created_at", b->created_at, "updated_at",
                     b->updated_at, "n_actions", b->n_actions, "combat_id",
                     jsonb_str_or_null(b->combat_id), "note",
                     jsonb_str_or_null(b->note));
}

static const char *battles_list_cursor(const void *row)
{
    return ((const db_battle *)row)->id;
}

static void battles_list_release(void *rows, size_t n)
{
    db_battles_free(rows, n);
}

void battles_list(http_request *r)
{
    static const paging_list list = {battles_list_fetch, sizeof(db_battle),
                                     battles_list_item, battles_list_cursor,
                                     battles_list_release};

    paging_serve(r, &list);
}
