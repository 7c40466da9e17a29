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

void battles_list(http_request *r)
{
    db *d = http_db(r->srv);
    db_conn *c;
    db_battle *bs = NULL;
    size_t n = 0, i;
    paging p;
    json_t *items;
    err_info e;
    err_code rc;

    err_clear(&e);
    if (!paging_read(r, true, &p, &e)) {
        http_reply_problem(r, &e);
        return;
    }
    c = db_read_acquire(d);
    {
        db_page pg = {p.cursor, p.is_newest_first, p.limit + 1};
        rc = paging_db_result(
            db_battles_page(c, r->params[0], &pg, &bs, &n, &e), &e);
    }
    db_read_release(d, c);
    if (rc != ERR_OK) {
        http_reply_problem(r, &e);
        return;
    }
    /* One row more than the page tells whether another page follows. */
    items = json_array();
    for (i = 0; i < n && i < (size_t)p.limit; i++)
        json_array_append_new(
            items, json_pack("{s:s, s:s, s:s, s:i, s:s, s:s, s:i, s:o, s:o}",
                             "id", bs[i].id, "system", bs[i].system, "status",
                             bs[i].status, "turn", bs[i].turn, "created_at",
                             bs[i].created_at, "updated_at", bs[i].updated_at,
                             "n_actions", bs[i].n_actions, "combat_id",
                             jsonb_str_or_null(bs[i].combat_id), "note",
                             jsonb_str_or_null(bs[i].note)));
    paging_reply(r, &p, NULL, items,
                 n > (size_t)p.limit ? bs[p.limit - 1].id : NULL);
    db_battles_free(bs, n);
}
