/*
 * campaigns.c: campaigns and their sides: a campaign created with its
 * sides, their tokens, its first commitment and its options of every
 * system that has some (the table of systems, systems.h) and its fog of
 * war (fog.h), read, its fog changed; a campaign's sides listed and
 * added, each with its player token.
 *
 * Writes go through http_defer_write: the handler validates the body on
 * the HTTP thread, the job writes in the writer's transaction, the finish
 * callback answers once the commit is durable.
 */
#include "campaigns.h"
#include "fog.h"
#include "jsonb.h"
#include "http.h"
#include "jsonv.h"
#include "paging.h"
#include "systems.h"
#include "tokens.h"
#include "webhooks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIDES 16

/* ---- helpers ---- */

/* A side; "exhausted_turn": the turn whose next Matrix battle its army
 * fights exhausted, or null. */
static json_t *side_json(const db_side *s)
{
    return json_pack("{s:s, s:s, s:s, s:o}", "id", s->id, "name", s->name,
                     "created_at", s->created_at, "exhausted_turn",
                     s->exhausted_turn > 0 ? json_integer(s->exhausted_turn)
                                           : json_null());
}

/* A campaign's ledger as its resources show it (new reference). */
static json_t *ledger_json(const char *campaign_id, long long length,
                           const char *head)
{
    char url[160];

    snprintf(url, sizeof url, "/v1/campaigns/%s/ledger", campaign_id);
    return json_pack("{s:I, s:s, s:s}", "length", (json_int_t)length, "head",
                     head, "url", url);
}

/* A campaign's options of every system that has some, and its fog of
 * war (new reference). */
static json_t *options_json(const db_campaign *cmp)
{
    json_t *o = json_object();
    size_t i;

    for (i = 0; i < systems_n; i++)
        if (systems_table[i]->options_json)
            json_object_set_new(o, systems_name(systems_table[i]),
                                systems_table[i]->options_json(cmp));
    json_object_set_new(o, "fog", fog_options_json(&cmp->fog));
    return o;
}

/* The options of a new campaign (obj: the body's "options", or NULL)
 * over every system's defaults, and its fog of war over its default. */
static err_code options_read(const json_t *obj, db_campaign *cmp, err_info *e)
{
    const char *names[16];
    json_t *fog = NULL;
    size_t i, n = 0;
    err_code rc;

    for (i = 0; i < systems_n; i++)
        if (systems_table[i]->options_read) {
            systems_table[i]->options_default(cmp);
            names[n++] = systems_name(systems_table[i]);
        }
    names[n++] = "fog";
    names[n] = NULL;
    fog_options_default(&cmp->fog);
    if (obj == NULL)
        return ERR_OK;
    if ((rc = jv_object_only(obj, "options", names, e)) ||
        (rc = jv_object(obj, "options", "fog", false, &fog, e)) ||
        (fog && (rc = fog_options_read(fog, "options.fog", &cmp->fog, e))))
        return rc;
    for (i = 0; i < systems_n; i++) {
        const systems_entry *s = systems_table[i];
        json_t *o = NULL;
        char path[JV_PATH_MAX];
        if (s->options_read == NULL)
            continue;
        jv_path(path, "options", systems_name(s));
        if ((rc = jv_object(obj, "options", systems_name(s), false, &o, e)) ||
            (o && (rc = s->options_read(o, path, cmp, e))))
            return rc;
    }
    return ERR_OK;
}

/* ---- campaigns ---- */

typedef struct campaign_new {
    db_campaign cmp;
    db_side sides[MAX_SIDES];
    size_t n_sides;
    char umpire_token[TOKENS_MAX];
    char umpire_hash[65];
    char player_token[MAX_SIDES][TOKENS_MAX];
    char player_hash[MAX_SIDES][65];
    db_commitment next; /* the seed of its first seeded combat */
} campaign_new;

static err_code campaign_create_job(db_conn *c, void *arg, err_info *e)
{
    campaign_new *cn = arg;
    db_token t;
    size_t i;
    err_code rc;

    if ((rc = db_campaign_insert(c, &cn->cmp, e)) ||
        (rc = db_commitment_new(c, cn->cmp.id, &cn->next, e)))
        return rc;
    memset(&t, 0, sizeof t);
    snprintf(t.campaign_id, DB_ID_MAX, "%s", cn->cmp.id);
    db_new_id("tok", t.id);
    t.is_umpire = true;
    if ((rc = db_token_insert(c, &t, cn->umpire_hash, cn->cmp.created_at, e)))
        return rc;
    for (i = 0; i < cn->n_sides; i++) {
        if ((rc = db_side_insert(c, &cn->sides[i], e)))
            return rc;
        db_new_id("tok", t.id);
        t.is_umpire = false;
        snprintf(t.side_id, DB_ID_MAX, "%s", cn->sides[i].id);
        if ((rc = db_token_insert(c, &t, cn->player_hash[i], cn->cmp.created_at,
                                  e)))
            return rc;
    }
    return ERR_OK;
}

static void campaign_create_finish(http_request *r, err_code rc,
                                   const err_info *e)
{
    campaign_new *cn = r->state;
    json_t *sides;
    size_t i;

    if (rc != ERR_OK) {
        http_reply_err(r, rc, e);
        return;
    }
    sides = json_array();
    for (i = 0; i < cn->n_sides; i++)
        json_array_append_new(
            sides,
            json_pack("{s:s, s:s, s:s}", "id", cn->sides[i].id, "name",
                      cn->sides[i].name, "player_token", cn->player_token[i]));
    snprintf(r->location, sizeof r->location, "/v1/campaigns/%s", cn->cmp.id);
    http_reply_json(r, 201,
                    json_pack("{s:s, s:s, s:s, s:o, s:s, s:o, s:s, s:o}", "id",
                              cn->cmp.id, "name", cn->cmp.name, "created_at",
                              cn->cmp.created_at, "options",
                              options_json(&cn->cmp), "umpire_token",
                              cn->umpire_token, "sides", sides,
                              "next_commitment", cn->next.commitment, "ledger",
                              ledger_json(cn->cmp.id, 0, ledger_genesis)));
}

void campaigns_create(http_request *r)
{
    static const char *const fields[] = {"name", "sides", "options", NULL};
    static const char *const side_fields[] = {"name", NULL};
    json_t *body = http_body_object(r), *sides = NULL, *opts = NULL;
    campaign_new *cn;
    const char *name = NULL;
    err_info e;
    size_t i, j;

    if (body == NULL)
        return;
    err_clear(&e);
    cn = calloc(1, sizeof *cn);
    r->state = cn;
    r->state_free = free;
    if (cn == NULL) {
        err_set(&e, ERR_NOMEM, NULL, "out of memory");
        goto fail;
    }
    if (jv_object_only(body, "", fields, &e) ||
        jv_string(body, "", "name", true, 64, &name, &e) ||
        jv_array(body, "", "sides", true, 1, MAX_SIDES, &sides, &e) ||
        jv_object(body, "", "options", false, &opts, &e) ||
        options_read(opts, &cn->cmp, &e))
        goto fail;
    db_new_id("cmp", cn->cmp.id);
    snprintf(cn->cmp.name, sizeof cn->cmp.name, "%s", name);
    db_now(cn->cmp.created_at);
    tokens_new("ump", cn->umpire_token, cn->umpire_hash);
    cn->n_sides = json_array_size(sides);
    for (i = 0; i < cn->n_sides; i++) {
        char p[JV_PATH_MAX];
        const char *sn = NULL;
        json_t *s = json_array_get(sides, i);
        jv_index(p, "sides", i);
        if (jv_object_only(s, p, side_fields, &e) ||
            jv_string(s, p, "name", true, 64, &sn, &e))
            goto fail;
        for (j = 0; j < i; j++)
            if (strcmp(cn->sides[j].name, sn) == 0) {
                char f[JV_PATH_MAX];
                jv_path(f, p, "name");
                err_set(&e, ERR_INVALID, f, "the side \"%s\" is named twice",
                        sn);
                goto fail;
            }
        db_new_id("sd", cn->sides[i].id);
        snprintf(cn->sides[i].campaign_id, DB_ID_MAX, "%s", cn->cmp.id);
        snprintf(cn->sides[i].name, DB_NAME_MAX, "%s", sn);
        snprintf(cn->sides[i].created_at, DB_TIME_MAX, "%s",
                 cn->cmp.created_at);
        tokens_new("ply", cn->player_token[i], cn->player_hash[i]);
    }
    json_decref(body);
    http_defer_write(r, campaign_create_job, campaign_create_finish);
    return;
fail:
    json_decref(body);
    http_reply_problem(r, &e);
}

void campaigns_get(http_request *r)
{
    db *d = http_db(r->srv);
    db_conn *c;
    db_campaign cmp;
    db_side *sides = NULL;
    size_t n = 0, i;
    json_t *js;
    db_chain ch;
    db_commitment next;
    db_webhook w;
    err_info e, we;
    err_code wrc = ERR_NOT_FOUND;
    bool is_ok;

    err_clear(&e);
    err_clear(&we);
    /* One snapshot: the ledger's head and the next commitment move
     * together with every seeded combat. */
    if (db_read_begin(d, &c, &e) != ERR_OK) {
        http_reply_problem(r, &e);
        return;
    }
    is_ok = !(db_campaign_get(c, r->params[0], &cmp, &e) ||
              db_sides_list(c, r->params[0], &sides, &n, &e) ||
              db_chain_open(c, r->params[0], &ch, &e) ||
              db_commitment_next(c, r->params[0], &next, &e));
    /* The webhook's deliveries (docs/discord.md, "Channel posts"); none
     * is no error. */
    if (is_ok && (wrc = db_webhook_get(c, r->params[0], &w, &we)) != ERR_OK &&
        wrc != ERR_NOT_FOUND) {
        err_set(&e, wrc, NULL, "%s", we.message);
        is_ok = false;
    }
    /* Ended (and c returned) in every case; the first error stays in e. */
    if (db_read_end(d, c, &e) != ERR_OK || !is_ok) {
        free(sides);
        http_reply_problem(r, &e);
        return;
    }
    js = json_array();
    for (i = 0; i < n; i++)
        json_array_append_new(js, json_pack("{s:s, s:s}", "id", sides[i].id,
                                            "name", sides[i].name));
    free(sides);
    http_reply_json(
        r, 200,
        json_pack("{s:s, s:s, s:s, s:o, s:o, s:{s:s, s:o}, s:s, s:o, s:o}",
                  "id", cmp.id, "name", cmp.name, "created_at", cmp.created_at,
                  "options", options_json(&cmp), "sides", js, "you", "role",
                  r->token.is_umpire ? "umpire" : "player", "side_id",
                  jsonb_str_or_null(r->token.side_id), "next_commitment",
                  next.commitment, "ledger",
                  ledger_json(cmp.id, ch.length, ch.head), "webhook",
                  wrc == ERR_OK ? webhooks_json(&w) : json_null()));
}

/* ---- the options that may change ---- */

typedef struct campaign_patch {
    char id[DB_ID_MAX];
    json_t *fog; /* the body's options.fog, checked (a reference) */
} campaign_patch;

static void campaign_patch_free(void *p)
{
    campaign_patch *cp = p;

    if (cp)
        json_decref(cp->fog);
    free(cp);
}

/* The campaign's fog as it stands, with what the body gives over it. */
static err_code campaign_patch_job(db_conn *c, void *arg, err_info *e)
{
    campaign_patch *cp = arg;
    db_campaign cmp;
    err_code rc;

    if ((rc = db_campaign_get(c, cp->id, &cmp, e)) ||
        (rc = fog_options_read(cp->fog, "options.fog", &cmp.fog, e)))
        return rc;
    return db_campaign_fog_save(c, cp->id, &cmp.fog, e);
}

static void campaign_patch_finish(http_request *r, err_code rc,
                                  const err_info *e)
{
    if (rc != ERR_OK) {
        http_reply_err(r, rc, e);
        return;
    }
    /* The campaign as GET serves it, read after the commit. */
    campaigns_get(r);
}

void campaigns_patch(http_request *r)
{
    static const char *const fields[] = {"options", NULL};
    static const char *const option_fields[] = {"fog", NULL};
    json_t *body = http_body_object(r), *opts = NULL, *fog = NULL;
    campaign_patch *cp;
    db_fog check;
    err_info e;

    if (body == NULL)
        return;
    err_clear(&e);
    fog_options_default(&check);
    if (jv_object_only(body, "", fields, &e) ||
        jv_object(body, "", "options", true, &opts, &e) ||
        jv_object_only(opts, "options", option_fields, &e) ||
        jv_object(opts, "options", "fog", true, &fog, &e) ||
        fog_options_read(fog, "options.fog", &check, &e))
        goto fail;
    if (json_object_size(fog) == 0) {
        err_set(&e, ERR_MISSING, "options.fog",
                "options.fog changes nothing: give enabled, others or both");
        goto fail;
    }
    if ((cp = calloc(1, sizeof *cp)) == NULL) {
        err_set(&e, ERR_NOMEM, NULL, "out of memory");
        goto fail;
    }
    r->state = cp;
    r->state_free = campaign_patch_free;
    snprintf(cp->id, sizeof cp->id, "%s", r->params[0]);
    cp->fog = json_incref(fog);
    json_decref(body);
    http_defer_write(r, campaign_patch_job, campaign_patch_finish);
    return;
fail:
    json_decref(body);
    http_reply_problem(r, &e);
}

static err_code campaigns_sides_list_fetch(db_conn *c, const char *campaign_id,
                                           const db_page *pg, void **rows,
                                           size_t *n, err_info *e)
{
    db_side *sides = NULL;
    err_code rc = db_sides_page(c, campaign_id, pg, &sides, n, e);

    *rows = sides;
    return rc;
}

static json_t *campaigns_sides_list_item(const void *row)
{
    return side_json((const db_side *)row);
}

static const char *campaigns_sides_list_cursor(const void *row)
{
    return ((const db_side *)row)->id;
}

void campaigns_sides_list(http_request *r)
{
    static const paging_list list = {campaigns_sides_list_fetch,
                                     sizeof(db_side), campaigns_sides_list_item,
                                     campaigns_sides_list_cursor, NULL};

    paging_serve(r, &list);
}

typedef struct side_new {
    db_side side;
    char token[TOKENS_MAX];
    char hash[65];
} side_new;

static err_code side_create_job(db_conn *c, void *arg, err_info *e)
{
    side_new *sn = arg;
    db_side *sides = NULL, existing;
    db_token t;
    size_t n = 0;
    err_code rc;

    if ((rc = db_sides_list(c, sn->side.campaign_id, &sides, &n, e)))
        return rc;
    free(sides);
    if (n >= MAX_SIDES)
        return err_set(e, ERR_LIMIT, NULL, "a campaign has at most %d sides",
                       MAX_SIDES);
    if (db_side_find(c, sn->side.campaign_id, sn->side.name, &existing, NULL) ==
        ERR_OK)
        return err_set(e, ERR_CONFLICT, "name",
                       "the campaign already has a side \"%s\"", sn->side.name);
    if ((rc = db_side_insert(c, &sn->side, e)))
        return rc;
    memset(&t, 0, sizeof t);
    db_new_id("tok", t.id);
    snprintf(t.campaign_id, DB_ID_MAX, "%s", sn->side.campaign_id);
    snprintf(t.side_id, DB_ID_MAX, "%s", sn->side.id);
    return db_token_insert(c, &t, sn->hash, sn->side.created_at, e);
}

static void side_create_finish(http_request *r, err_code rc, const err_info *e)
{
    side_new *sn = r->state;
    json_t *j;

    if (rc != ERR_OK) {
        http_reply_err(r, rc, e);
        return;
    }
    j = side_json(&sn->side);
    json_object_set_new(j, "player_token", json_string(sn->token));
    snprintf(r->location, sizeof r->location, "/v1/campaigns/%s/sides",
             sn->side.campaign_id);
    http_reply_json(r, 201, j);
}

void campaigns_side_create(http_request *r)
{
    static const char *const fields[] = {"name", NULL};
    json_t *body = http_body_object(r);
    side_new *sn;
    const char *name = NULL;
    err_info e;

    if (body == NULL)
        return;
    err_clear(&e);
    if (jv_object_only(body, "", fields, &e) ||
        jv_string(body, "", "name", true, 64, &name, &e)) {
        json_decref(body);
        http_reply_problem(r, &e);
        return;
    }
    sn = calloc(1, sizeof *sn);
    r->state = sn;
    r->state_free = free;
    if (sn == NULL) {
        json_decref(body);
        http_reply_problem_raw(r, 500, "internal_error", "Internal error",
                               "out of memory");
        return;
    }
    db_new_id("sd", sn->side.id);
    snprintf(sn->side.campaign_id, DB_ID_MAX, "%s", r->params[0]);
    snprintf(sn->side.name, DB_NAME_MAX, "%s", name);
    db_now(sn->side.created_at);
    tokens_new("ply", sn->token, sn->hash);
    json_decref(body);
    http_defer_write(r, side_create_job, side_create_finish);
}
