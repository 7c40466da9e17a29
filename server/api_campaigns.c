/*
 * api_campaigns.c: the service routes (health, systems) and campaigns,
 * sides, units, corrections, resupply and unit history.
 *
 * Writes go through http_defer_write: the handler validates the body on
 * the HTTP thread, the job writes in the writer's transaction, the finish
 * callback answers once the commit is durable.
 */
#include "api.h"
#include "jsonv.h"
#include "registry.h"
#include "scrud_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#define UMPIRE_VERSION         "0.1.0"
#define MAX_SIDES              16
#define MAX_UNITS_PER_CAMPAIGN 10000
#define NOTE_MAX               500
#define TOKEN_MAX              64

/* ---- helpers ---- */

/* A new token "<prefix>_<48 hex>" and the hex SHA-256 of it. */
static void new_token(const char *prefix, char token[TOKEN_MAX],
                      char hash_hex[65])
{
    uint8_t raw[24], h[crypto_hash_sha256_BYTES];
    size_t i, n;

    randombytes_buf(raw, sizeof raw);
    n = (size_t)snprintf(token, TOKEN_MAX, "%s_", prefix);
    for (i = 0; i < sizeof raw; i++)
        snprintf(token + n + 2 * i, 3, "%02x", raw[i]);
    crypto_hash_sha256(h, (const uint8_t *)token, strlen(token));
    for (i = 0; i < sizeof h; i++)
        snprintf(hash_hex + 2 * i, 3, "%02x", h[i]);
}

static json_t *side_json(const db_side *s)
{
    return json_pack("{s:s, s:s, s:s}", "id", s->id, "name", s->name,
                     "created_at", s->created_at);
}

static json_t *scrud_state_json(const scrud_unit *u)
{
    return json_pack("{s:i, s:i, s:i, s:i, s:i}", "quality", u->quality,
                     "faces", u->faces, "defeat_penalty", u->defeat_penalty,
                     "fatigue_penalty", u->fatigue_penalty, "modifier",
                     scrud_unit_modifier(u));
}

static json_t *str_or_null(const char *s)
{
    return s && s[0] ? json_string(s) : json_null();
}

json_t *api_unit_state_json(const db_unit *u)
{
    return json_pack("{s:s, s:s, s:b, s:o, s:o}", "name", u->name, "side_id",
                     u->side_id, "eliminated", u->is_eliminated,
                     "eliminated_reason", str_or_null(u->eliminated_reason),
                     "scrud", scrud_state_json(&u->scrud));
}

json_t *api_unit_json(const db_unit *u)
{
    return json_pack(
        "{s:s, s:s, s:{s:s, s:s}, s:s, s:b, s:o, s:o, s:o}", "id", u->id,
        "name", u->name, "side", "id", u->side_id, "name", u->side_name,
        "created_at", u->created_at, "eliminated", u->is_eliminated,
        "eliminated_reason", str_or_null(u->eliminated_reason), "eliminated_by",
        str_or_null(u->eliminated_by), "scrud", scrud_state_json(&u->scrud));
}

/* A document as text for the history, or NULL (json is stolen). */
static char *doc(json_t *json)
{
    char *s = json ? json_dumps(json, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

    json_decref(json);
    return s;
}

static void reply_err(request *r, err_code rc, const err_info *e)
{
    err_info fallback;

    if (e != NULL && e->code != ERR_OK) {
        reply_problem(r, e);
        return;
    }
    err_clear(&fallback);
    err_set(&fallback, rc, NULL, "the request failed");
    reply_problem(r, &fallback);
}

/* ---- service ---- */

void api_health(request *r)
{
    sqlite3 *c = db_read_acquire(server_db(r->srv));
    int ok = sqlite3_exec(c, "SELECT 1 FROM campaigns LIMIT 1", NULL, NULL,
                          NULL) == SQLITE_OK;

    db_read_release(server_db(r->srv), c);
    if (!ok) {
        reply_problem_raw(r, 503, "database_error", "Service unavailable",
                          "the database cannot be read");
        return;
    }
    reply_json(r, 200,
               json_pack("{s:s, s:s, s:s, s:i}", "status", "ok", "database",
                         "ok", "version", UMPIRE_VERSION, "schema_version",
                         db_schema_version(server_db(r->srv))));
}

void api_systems(request *r)
{
    json_t *items = json_array();
    size_t i;

    for (i = 0; i < registry_n_systems; i++) {
        const combat_system *cs = registry_systems[i];
        json_array_append_new(items, json_pack("{s:s, s:s, s:s}", "name",
                                               cs->name, "title", cs->title,
                                               "rules", cs->rules));
    }
    reply_json(r, 200, json_pack("{s:o}", "items", items));
}

/* ---- campaigns ---- */

typedef struct campaign_new {
    db_campaign cmp;
    db_side sides[MAX_SIDES];
    size_t n_sides;
    char umpire_token[TOKEN_MAX];
    char umpire_hash[65];
    char player_token[MAX_SIDES][TOKEN_MAX];
    char player_hash[MAX_SIDES][65];
} campaign_new;

static err_code campaign_create_job(sqlite3 *c, void *arg, err_info *e)
{
    campaign_new *cn = arg;
    db_token t;
    size_t i;
    err_code rc;

    if ((rc = db_campaign_insert(c, &cn->cmp, e)))
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

static void campaign_create_finish(request *r, err_code rc, const err_info *e)
{
    campaign_new *cn = r->state;
    json_t *sides;
    size_t i;

    if (rc != ERR_OK) {
        reply_err(r, rc, e);
        return;
    }
    sides = json_array();
    for (i = 0; i < cn->n_sides; i++)
        json_array_append_new(
            sides,
            json_pack("{s:s, s:s, s:s}", "id", cn->sides[i].id, "name",
                      cn->sides[i].name, "player_token", cn->player_token[i]));
    snprintf(r->location, sizeof r->location, "/v1/campaigns/%s", cn->cmp.id);
    reply_json(r, 201,
               json_pack("{s:s, s:s, s:s, s:{s:o}, s:s, s:o}", "id", cn->cmp.id,
                         "name", cn->cmp.name, "created_at", cn->cmp.created_at,
                         "options", "scrud",
                         scrud_api_options_json(&cn->cmp.scrud), "umpire_token",
                         cn->umpire_token, "sides", sides));
}

void api_campaign_create(request *r)
{
    static const char *const fields[] = {"name", "sides", "options", NULL};
    static const char *const side_fields[] = {"name", NULL};
    static const char *const option_fields[] = {"scrud", NULL};
    json_t *body = http_body_object(r), *sides = NULL, *opts = NULL,
           *scrud = NULL;
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
    scrud_options_default(&cn->cmp.scrud);
    if (jv_object_only(body, "", fields, &e) ||
        jv_string(body, "", "name", true, 64, &name, &e) ||
        jv_array(body, "", "sides", true, 1, MAX_SIDES, &sides, &e) ||
        jv_object(body, "", "options", false, &opts, &e))
        goto fail;
    if (opts && (jv_object_only(opts, "options", option_fields, &e) ||
                 jv_object(opts, "options", "scrud", false, &scrud, &e) ||
                 (scrud && scrud_api_options(scrud, "options.scrud",
                                             &cn->cmp.scrud, &e))))
        goto fail;
    db_new_id("cmp", cn->cmp.id);
    snprintf(cn->cmp.name, sizeof cn->cmp.name, "%s", name);
    db_now(cn->cmp.created_at);
    new_token("ump", cn->umpire_token, cn->umpire_hash);
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
        new_token("ply", cn->player_token[i], cn->player_hash[i]);
    }
    json_decref(body);
    http_defer_write(r, campaign_create_job, campaign_create_finish);
    return;
fail:
    json_decref(body);
    reply_problem(r, &e);
}

void api_campaign_get(request *r)
{
    db *d = server_db(r->srv);
    sqlite3 *c = db_read_acquire(d);
    db_campaign cmp;
    db_side *sides = NULL;
    size_t n = 0, i;
    json_t *js;
    err_info e;

    err_clear(&e);
    if (db_campaign_get(c, r->params[0], &cmp, &e) ||
        db_sides_list(c, r->params[0], &sides, &n, &e)) {
        db_read_release(d, c);
        reply_problem(r, &e);
        return;
    }
    db_read_release(d, c);
    js = json_array();
    for (i = 0; i < n; i++)
        json_array_append_new(js, json_pack("{s:s, s:s}", "id", sides[i].id,
                                            "name", sides[i].name));
    free(sides);
    reply_json(r, 200,
               json_pack("{s:s, s:s, s:s, s:{s:o}, s:o, s:{s:s, s:o}}", "id",
                         cmp.id, "name", cmp.name, "created_at", cmp.created_at,
                         "options", "scrud", scrud_api_options_json(&cmp.scrud),
                         "sides", js, "you", "role",
                         r->token.is_umpire ? "umpire" : "player", "side_id",
                         str_or_null(r->token.side_id)));
}

void api_sides_list(request *r)
{
    db *d = server_db(r->srv);
    sqlite3 *c = db_read_acquire(d);
    db_side *sides = NULL;
    size_t n = 0, i;
    json_t *items;
    err_info e;

    err_clear(&e);
    if (db_sides_list(c, r->params[0], &sides, &n, &e)) {
        db_read_release(d, c);
        reply_problem(r, &e);
        return;
    }
    db_read_release(d, c);
    items = json_array();
    for (i = 0; i < n; i++)
        json_array_append_new(items, side_json(&sides[i]));
    free(sides);
    reply_json(r, 200, json_pack("{s:o}", "items", items));
}

typedef struct side_new {
    db_side side;
    char token[TOKEN_MAX];
    char hash[65];
} side_new;

static err_code side_create_job(sqlite3 *c, void *arg, err_info *e)
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

static void side_create_finish(request *r, err_code rc, const err_info *e)
{
    side_new *sn = r->state;
    json_t *j;

    if (rc != ERR_OK) {
        reply_err(r, rc, e);
        return;
    }
    j = side_json(&sn->side);
    json_object_set_new(j, "player_token", json_string(sn->token));
    snprintf(r->location, sizeof r->location, "/v1/campaigns/%s/sides",
             sn->side.campaign_id);
    reply_json(r, 201, j);
}

void api_side_create(request *r)
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
        reply_problem(r, &e);
        return;
    }
    sn = calloc(1, sizeof *sn);
    r->state = sn;
    r->state_free = free;
    if (sn == NULL) {
        json_decref(body);
        reply_problem_raw(r, 500, "internal_error", "Internal error",
                          "out of memory");
        return;
    }
    db_new_id("sd", sn->side.id);
    snprintf(sn->side.campaign_id, DB_ID_MAX, "%s", r->params[0]);
    snprintf(sn->side.name, DB_NAME_MAX, "%s", name);
    db_now(sn->side.created_at);
    new_token("ply", sn->token, sn->hash);
    json_decref(body);
    http_defer_write(r, side_create_job, side_create_finish);
}

/* ---- units ---- */

void api_units_list(request *r)
{
    db *d = server_db(r->srv);
    const char *side_q = http_query(r, "side");
    const char *elim_q = http_query(r, "eliminated");
    sqlite3 *c;
    db_side side;
    db_unit *units = NULL;
    size_t n = 0, i;
    int elim = -1;
    json_t *items;
    err_info e;

    err_clear(&e);
    if (elim_q != NULL) {
        if (strcmp(elim_q, "true") == 0)
            elim = 1;
        else if (strcmp(elim_q, "false") == 0)
            elim = 0;
        else {
            err_set(&e, ERR_INVALID, "eliminated",
                    "the eliminated filter is true or false");
            reply_problem(r, &e);
            return;
        }
    }
    c = db_read_acquire(d);
    if (side_q != NULL && db_side_find(c, r->params[0], side_q, &side, &e)) {
        db_read_release(d, c);
        reply_problem(r, &e);
        return;
    }
    if (db_units_list(c, r->params[0], side_q ? side.id : NULL, elim, &units,
                      &n, &e)) {
        db_read_release(d, c);
        reply_problem(r, &e);
        return;
    }
    db_read_release(d, c);
    items = json_array();
    for (i = 0; i < n; i++)
        json_array_append_new(items, api_unit_json(&units[i]));
    free(units);
    reply_json(r, 200, json_pack("{s:o}", "items", items));
}

/* A unit write: create, correct or resupply, with its history event. */
typedef struct unit_write {
    db_unit unit; /* the unit as it is to be */
    char side_ref[DB_NAME_MAX];
    char note[NOTE_MAX + 1];
    bool has_note;
    const char *kind; /* history event kind */
    /* correction: which fields the body set */
    json_t *changes;          /* the PATCH body (a reference) */
    char token_id[DB_ID_MAX]; /* who made the change */
} unit_write;

static void unit_write_free(void *p)
{
    unit_write *uw = p;

    if (uw)
        json_decref(uw->changes);
    free(uw);
}

err_code api_unit_event(sqlite3 *c, const db_unit *before, const db_unit *after,
                        const char *kind, const char *combat_id,
                        const char *token_id, const char *note,
                        const char *result, err_info *e)
{
    db_event ev;
    err_code rc;

    memset(&ev, 0, sizeof ev);
    snprintf(ev.unit_id, DB_ID_MAX, "%s", after->id);
    snprintf(ev.campaign_id, DB_ID_MAX, "%s", after->campaign_id);
    db_now(ev.at);
    snprintf(ev.kind, sizeof ev.kind, "%s", kind);
    snprintf(ev.combat_id, DB_ID_MAX, "%s", combat_id ? combat_id : "");
    snprintf(ev.actor_token_id, DB_ID_MAX, "%s", token_id ? token_id : "");
    ev.note = (char *)note;
    ev.before = before ? doc(api_unit_state_json(before)) : NULL;
    ev.after = doc(api_unit_state_json(after));
    ev.result = (char *)result;
    if ((before && !ev.before) || !ev.after)
        rc = err_set(e, ERR_NOMEM, NULL, "out of memory");
    else
        rc = db_event_insert(c, &ev, e);
    free(ev.before);
    free(ev.after);
    return rc;
}

static err_code unit_create_job(sqlite3 *c, void *arg, err_info *e)
{
    unit_write *uw = arg;
    db_side side;
    db_unit existing;
    int n;
    err_code rc;

    rc = db_side_find(c, uw->unit.campaign_id, uw->side_ref, &side, NULL);
    if (rc == ERR_NOT_FOUND)
        return err_set(e, ERR_INVALID, "side",
                       "the campaign has no side \"%s\"", uw->side_ref);
    if (rc != ERR_OK)
        return err_set(e, rc, NULL, "cannot read sides");
    snprintf(uw->unit.side_id, DB_ID_MAX, "%s", side.id);
    snprintf(uw->unit.side_name, DB_NAME_MAX, "%s", side.name);
    if ((rc = db_units_count(c, uw->unit.campaign_id, &n, e)))
        return rc;
    if (n >= MAX_UNITS_PER_CAMPAIGN)
        return err_set(e, ERR_LIMIT, NULL, "a campaign has at most %d units",
                       MAX_UNITS_PER_CAMPAIGN);
    if (db_unit_find(c, uw->unit.campaign_id, uw->unit.name, &existing, NULL) ==
        ERR_OK)
        return err_set(e, ERR_CONFLICT, "name",
                       "the campaign already has a unit \"%s\"", uw->unit.name);
    if ((rc = db_unit_insert(c, &uw->unit, e)))
        return rc;
    return api_unit_event(c, NULL, &uw->unit, "created", NULL, uw->token_id,
                          uw->has_note ? uw->note : NULL, NULL, e);
}

static void unit_finish(request *r, err_code rc, const err_info *e)
{
    unit_write *uw = r->state;

    if (rc != ERR_OK) {
        reply_err(r, rc, e);
        return;
    }
    if (strcmp(uw->kind, "created") == 0) {
        snprintf(r->location, sizeof r->location, "/v1/campaigns/%s/units/%s",
                 uw->unit.campaign_id, uw->unit.id);
        reply_json(r, 201, api_unit_json(&uw->unit));
    } else {
        reply_json(r, 200, api_unit_json(&uw->unit));
    }
}

static unit_write *unit_write_new(request *r, const char *kind)
{
    unit_write *uw = calloc(1, sizeof *uw);

    r->state = uw;
    r->state_free = unit_write_free;
    if (uw == NULL)
        reply_problem_raw(r, 500, "internal_error", "Internal error",
                          "out of memory");
    else {
        uw->kind = kind;
        snprintf(uw->token_id, DB_ID_MAX, "%s", r->token.id);
    }
    return uw;
}

static err_code parse_scrud_state(const json_t *obj, const char *path,
                                  scrud_unit *u, err_info *e)
{
    static const char *const fields[] = {"quality", "faces", "defeat_penalty",
                                         "fatigue_penalty", NULL};
    const int lim = SCRUD_MODIFIER_LIMIT;
    err_code rc;

    if ((rc = jv_object_only(obj, path, fields, e)) ||
        (rc = jv_int(obj, path, "quality", false, -lim, lim, &u->quality, e)) ||
        (rc = jv_int(obj, path, "faces", false, RNG_FACES_MIN, RNG_FACES_MAX,
                     &u->faces, e)) ||
        (rc = jv_int(obj, path, "defeat_penalty", false, 0, lim,
                     &u->defeat_penalty, e)) ||
        (rc = jv_int(obj, path, "fatigue_penalty", false, 0, lim,
                     &u->fatigue_penalty, e)))
        return rc;
    return ERR_OK;
}

static bool parse_note(const json_t *body, unit_write *uw, err_info *e)
{
    const char *note = NULL;

    if (jv_string(body, "", "note", false, NOTE_MAX, &note, e))
        return false;
    if (note) {
        snprintf(uw->note, sizeof uw->note, "%s", note);
        uw->has_note = true;
    }
    return true;
}

void api_unit_create(request *r)
{
    static const char *const fields[] = {"name", "side", "scrud", "note", NULL};
    json_t *body = http_body_object(r), *scrud = NULL;
    const char *name = NULL, *side = NULL;
    unit_write *uw;
    err_info e;

    if (body == NULL)
        return;
    err_clear(&e);
    if ((uw = unit_write_new(r, "created")) == NULL) {
        json_decref(body);
        return;
    }
    scrud_unit_default(&uw->unit.scrud);
    if (jv_object_only(body, "", fields, &e) ||
        jv_string(body, "", "name", true, 64, &name, &e) ||
        jv_string(body, "", "side", true, 64, &side, &e) ||
        jv_object(body, "", "scrud", false, &scrud, &e) ||
        (scrud && parse_scrud_state(scrud, "scrud", &uw->unit.scrud, &e)) ||
        !parse_note(body, uw, &e)) {
        json_decref(body);
        reply_problem(r, &e);
        return;
    }
    db_new_id("unit", uw->unit.id);
    snprintf(uw->unit.campaign_id, DB_ID_MAX, "%s", r->params[0]);
    snprintf(uw->unit.name, DB_NAME_MAX, "%s", name);
    snprintf(uw->side_ref, DB_NAME_MAX, "%s", side);
    db_now(uw->unit.created_at);
    json_decref(body);
    http_defer_write(r, unit_create_job, unit_finish);
}

void api_unit_get(request *r)
{
    db *d = server_db(r->srv);
    sqlite3 *c = db_read_acquire(d);
    db_unit u;
    err_info e;
    err_code rc;

    err_clear(&e);
    rc = db_unit_find(c, r->params[0], r->params[1], &u, &e);
    db_read_release(d, c);
    if (rc != ERR_OK)
        reply_problem(r, &e);
    else
        reply_json(r, 200, api_unit_json(&u));
}

/* Loads the unit named in the path into uw->unit; keeps a copy before. */
static err_code load_unit(sqlite3 *c, unit_write *uw, db_unit *before,
                          err_info *e)
{
    err_code rc = db_unit_find(c, uw->unit.campaign_id, uw->unit.id, before, e);

    if (rc == ERR_OK)
        uw->unit = *before;
    return rc;
}

static err_code unit_patch_job(sqlite3 *c, void *arg, err_info *e)
{
    unit_write *uw = arg;
    db_unit before, other;
    json_t *scrud = json_object_get(uw->changes, "scrud");
    const char *name = json_string_value(json_object_get(uw->changes, "name"));
    json_t *elim = json_object_get(uw->changes, "eliminated");
    err_code rc;

    if ((rc = load_unit(c, uw, &before, e)))
        return rc;
    if (name && strcmp(name, before.name) != 0) {
        if (db_unit_find(c, before.campaign_id, name, &other, NULL) == ERR_OK)
            return err_set(e, ERR_CONFLICT, "name",
                           "the campaign already has a unit \"%s\"", name);
        snprintf(uw->unit.name, DB_NAME_MAX, "%s", name);
    }
    if (scrud && (rc = parse_scrud_state(scrud, "scrud", &uw->unit.scrud, e)))
        return rc;
    if (elim) {
        uw->unit.is_eliminated = json_is_true(elim);
        snprintf(uw->unit.eliminated_reason, DB_REASON_MAX, "%s",
                 uw->unit.is_eliminated ? "correction" : "");
        uw->unit.eliminated_by[0] = '\0';
    }
    uw->unit.scrud.is_eliminated = uw->unit.is_eliminated;
    if ((rc = db_unit_update(c, &uw->unit, e)))
        return rc;
    return api_unit_event(c, &before, &uw->unit, "correction", NULL,
                          uw->token_id, uw->has_note ? uw->note : NULL, NULL,
                          e);
}

void api_unit_patch(request *r)
{
    static const char *const fields[] = {"name", "eliminated", "scrud", "note",
                                         NULL};
    json_t *body = http_body_object(r), *scrud = NULL;
    const char *name = NULL;
    bool elim = false;
    scrud_unit probe;
    unit_write *uw;
    err_info e;

    if (body == NULL)
        return;
    err_clear(&e);
    if ((uw = unit_write_new(r, "correction")) == NULL) {
        json_decref(body);
        return;
    }
    scrud_unit_default(&probe);
    /* Validate everything here; the job applies it to the stored unit. */
    if (jv_object_only(body, "", fields, &e) ||
        jv_string(body, "", "name", false, 64, &name, &e) ||
        jv_bool(body, "", "eliminated", false, &elim, &e) ||
        jv_object(body, "", "scrud", false, &scrud, &e) ||
        (scrud && parse_scrud_state(scrud, "scrud", &probe, &e)) ||
        !parse_note(body, uw, &e)) {
        json_decref(body);
        reply_problem(r, &e);
        return;
    }
    if (!name && !json_object_get(body, "eliminated") &&
        (!scrud || json_object_size(scrud) == 0)) {
        json_decref(body);
        err_set(&e, ERR_MISSING, NULL,
                "a correction changes at least one of name, eliminated, "
                "scrud");
        reply_problem(r, &e);
        return;
    }
    uw->changes = body;
    snprintf(uw->unit.campaign_id, DB_ID_MAX, "%s", r->params[0]);
    snprintf(uw->unit.id, DB_ID_MAX, "%s", r->params[1]);
    http_defer_write(r, unit_patch_job, unit_finish);
}

static err_code unit_resupply_job(sqlite3 *c, void *arg, err_info *e)
{
    unit_write *uw = arg;
    db_unit before;
    err_code rc;

    if ((rc = load_unit(c, uw, &before, e)))
        return rc;
    if (before.is_eliminated)
        return err_set(e, ERR_RULE, NULL,
                       "the unit %s is eliminated and cannot be resupplied",
                       before.name);
    uw->unit.scrud.fatigue_penalty = 0;
    if ((rc = db_unit_update(c, &uw->unit, e)))
        return rc;
    return api_unit_event(c, &before, &uw->unit, "resupply", NULL, uw->token_id,
                          uw->has_note ? uw->note : NULL, NULL, e);
}

void api_unit_resupply(request *r)
{
    static const char *const fields[] = {"note", NULL};
    json_t *body = NULL;
    unit_write *uw;
    err_info e;

    err_clear(&e);
    if ((uw = unit_write_new(r, "resupply")) == NULL)
        return;
    if (r->body_len > 0) {
        if ((body = http_body_object(r)) == NULL)
            return;
        if (jv_object_only(body, "", fields, &e) || !parse_note(body, uw, &e)) {
            json_decref(body);
            reply_problem(r, &e);
            return;
        }
        json_decref(body);
    }
    snprintf(uw->unit.campaign_id, DB_ID_MAX, "%s", r->params[0]);
    snprintf(uw->unit.id, DB_ID_MAX, "%s", r->params[1]);
    http_defer_write(r, unit_resupply_job, unit_finish);
}

static json_t *parse_doc(const char *s)
{
    json_t *j = s ? json_loads(s, 0, NULL) : NULL;

    return j ? j : json_null();
}

void api_unit_history(request *r)
{
    db *d = server_db(r->srv);
    sqlite3 *c = db_read_acquire(d);
    db_event *evs = NULL;
    size_t n = 0, i;
    db_unit u;
    json_t *items;
    err_info e;

    err_clear(&e);
    if (db_unit_find(c, r->params[0], r->params[1], &u, &e) ||
        db_events_list(c, u.id, &evs, &n, &e)) {
        db_read_release(d, c);
        reply_problem(r, &e);
        return;
    }
    db_read_release(d, c);
    items = json_array();
    for (i = 0; i < n; i++) {
        const db_event *ev = &evs[i];
        json_t *actor = ev->actor_token_id[0]
                            ? json_pack("{s:s, s:s}", "role", "umpire",
                                        "token_id", ev->actor_token_id)
                            : json_null();
        json_array_append_new(
            items,
            json_pack("{s:I, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o}", "seq",
                      (json_int_t)(i + 1), "at", ev->at, "kind", ev->kind,
                      "combat_id", str_or_null(ev->combat_id), "actor", actor,
                      "note", str_or_null(ev->note), "before",
                      parse_doc(ev->before), "after", parse_doc(ev->after),
                      "result", parse_doc(ev->result)));
    }
    db_events_free(evs, n);
    reply_json(r, 200,
               json_pack("{s:s, s:o}", "unit_id", u.id, "items", items));
}
