/*
 * store.c: SQL for campaigns, sides, tokens, units, history, combats and
 * rolls; declared in db.h.  Prepared statements only; every statement is
 * released (db_done) at the function's single exit.
 */

#include "db.h"

#include <stdlib.h>
#include <string.h>

#define TEXT(st, i, s) sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC)

/* Steps a statement expected to finish without rows. */
static err_code step_done(sqlite3 *c, sqlite3_stmt *st, err_info *e,
                          const char *what)
{
    if (sqlite3_step(st) != SQLITE_DONE)
        return db_fail(c, e, what);
    return ERR_OK;
}

/* Grows a malloc'd array of size elements by doubling. */
static void *grow(void *p, size_t *cap, size_t size)
{
    size_t n = *cap ? *cap * 2 : 16;
    void *q = realloc(p, n * size);

    if (q != NULL)
        *cap = n;
    return q;
}

/* Reads a row into the element at elem (zeroed beforehand). */
typedef void (*row_reader)(sqlite3_stmt *st, void *elem);

/*
 * Steps st (prepared and bound) to the end, reading each row with read into
 * a growing array of size-byte elements: *out (new) and *n.  On failure the
 * array is released, with release (may be NULL) first, and *out is NULL.
 * st is released in any case.
 */
static err_code read_rows(sqlite3 *c, sqlite3_stmt *st, size_t size,
                          row_reader read, void (*release)(void *, size_t),
                          void **out, size_t *n, const char *what, err_info *e)
{
    char *v = NULL;
    size_t cap = 0;
    err_code rc = ERR_OK;
    int step;

    *out = NULL;
    *n = 0;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            char *g = grow(v, &cap, size);
            if (g == NULL) {
                rc = err_set(e, ERR_NOMEM, NULL, "out of memory");
                break;
            }
            v = g;
        }
        memset(v + *n * size, 0, size);
        read(st, v + *n * size);
        (*n)++;
    }
    if (rc == ERR_OK && step != SQLITE_DONE)
        rc = db_fail(c, e, what);
    db_done(st);
    if (rc != ERR_OK) {
        if (release)
            release(v, *n);
        else
            free(v);
        v = NULL;
        *n = 0;
    }
    *out = v;
    return rc;
}

err_code db_campaign_insert(sqlite3 *c, const db_campaign *cmp, err_info *e)
{
    const scrud_options *o = &cmp->scrud;
    sqlite3_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c,
                         "INSERT INTO campaigns (id, name, created_at, "
                         "scrud_cap_kind, scrud_cap, scrud_has_floor, "
                         "scrud_floor, scrud_extra_dice, scrud_attrition, "
                         "scrud_max_penalty, scrud_eliminate_below, "
                         "scrud_defeats_per_elimination) "
                         "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                         &st, e)))
        goto out;
    TEXT(st, 1, cmp->id);
    TEXT(st, 2, cmp->name);
    TEXT(st, 3, cmp->created_at);
    sqlite3_bind_int(st, 4, (int)o->cap_kind);
    sqlite3_bind_int(st, 5, o->cap);
    sqlite3_bind_int(st, 6, o->has_floor);
    sqlite3_bind_int(st, 7, o->floor);
    sqlite3_bind_int(st, 8, (int)o->extra_dice);
    sqlite3_bind_int(st, 9, o->attrition);
    sqlite3_bind_int(st, 10, o->max_penalty_per_combat);
    sqlite3_bind_int(st, 11, o->eliminate_below);
    sqlite3_bind_int(st, 12, o->defeats_per_elimination);
    rc = step_done(c, st, e, "insert campaign");
out:
    db_done(st);
    return rc;
}

err_code db_campaign_get(sqlite3 *c, const char *id, db_campaign *out,
                         err_info *e)
{
    sqlite3_stmt *st = NULL;
    err_code rc;
    int step;

    memset(out, 0, sizeof *out);
    if ((rc = db_prepare(c,
                         "SELECT id, name, created_at, scrud_cap_kind, "
                         "scrud_cap, scrud_has_floor, scrud_floor, "
                         "scrud_extra_dice, scrud_attrition, "
                         "scrud_max_penalty, scrud_eliminate_below, "
                         "scrud_defeats_per_elimination "
                         "FROM campaigns WHERE id = ?",
                         &st, e)))
        goto out;
    TEXT(st, 1, id);
    step = sqlite3_step(st);
    if (step == SQLITE_DONE) {
        rc = err_set(e, ERR_NOT_FOUND, NULL, "no campaign %s", id);
        goto out;
    }
    if (step != SQLITE_ROW) {
        rc = db_fail(c, e, "read campaign");
        goto out;
    }
    db_column_copy(st, 0, out->id, sizeof out->id);
    db_column_copy(st, 1, out->name, sizeof out->name);
    db_column_copy(st, 2, out->created_at, sizeof out->created_at);
    if (sqlite3_column_int(st, 3) < SCRUD_CAP_FACES ||
        sqlite3_column_int(st, 3) > SCRUD_CAP_NONE ||
        sqlite3_column_int(st, 7) < SCRUD_EXTRA_BEAT_LOWEST ||
        sqlite3_column_int(st, 7) > SCRUD_EXTRA_HALF) {
        rc = err_set(e, ERR_DB, NULL, "campaign %s has unknown options", id);
        goto out;
    }
    out->scrud.cap_kind = (scrud_cap_kind)sqlite3_column_int(st, 3);
    out->scrud.cap = sqlite3_column_int(st, 4);
    out->scrud.has_floor = sqlite3_column_int(st, 5) != 0;
    out->scrud.floor = sqlite3_column_int(st, 6);
    out->scrud.extra_dice = (scrud_extra_rule)sqlite3_column_int(st, 7);
    out->scrud.attrition = sqlite3_column_int(st, 8) != 0;
    out->scrud.max_penalty_per_combat = sqlite3_column_int(st, 9);
    out->scrud.eliminate_below = sqlite3_column_int(st, 10);
    out->scrud.defeats_per_elimination = sqlite3_column_int(st, 11);
out:
    db_done(st);
    return rc;
}

err_code db_side_insert(sqlite3 *c, const db_side *s, err_info *e)
{
    sqlite3_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c,
                         "INSERT INTO sides (id, campaign_id, name, "
                         "created_at) VALUES (?,?,?,?)",
                         &st, e)))
        goto out;
    TEXT(st, 1, s->id);
    TEXT(st, 2, s->campaign_id);
    TEXT(st, 3, s->name);
    TEXT(st, 4, s->created_at);
    rc = step_done(c, st, e, "insert side");
out:
    db_done(st);
    return rc;
}

static void read_side(sqlite3_stmt *st, db_side *s)
{
    db_column_copy(st, 0, s->id, sizeof s->id);
    db_column_copy(st, 1, s->campaign_id, sizeof s->campaign_id);
    db_column_copy(st, 2, s->name, sizeof s->name);
    db_column_copy(st, 3, s->created_at, sizeof s->created_at);
}

static void read_side_row(sqlite3_stmt *st, void *elem)
{
    read_side(st, elem);
}

err_code db_sides_list(sqlite3 *c, const char *campaign_id, db_side **out,
                       size_t *n, err_info *e)
{
    sqlite3_stmt *st = NULL;
    void *rows;
    err_code rc;

    *out = NULL;
    *n = 0;
    if ((rc = db_prepare(c,
                         "SELECT id, campaign_id, name, created_at FROM sides "
                         "WHERE campaign_id = ? ORDER BY rowid",
                         &st, e)))
        return rc;
    TEXT(st, 1, campaign_id);
    rc = read_rows(c, st, sizeof **out, read_side_row, NULL, &rows, n,
                   "list sides", e);
    *out = rows;
    return rc;
}

err_code db_side_find(sqlite3 *c, const char *campaign_id,
                      const char *id_or_name, db_side *out, err_info *e)
{
    sqlite3_stmt *st = NULL;
    err_code rc;
    int step;

    memset(out, 0, sizeof *out);
    if ((rc = db_prepare(c,
                         "SELECT id, campaign_id, name, created_at FROM sides "
                         "WHERE campaign_id = ?1 AND (id = ?2 OR name = ?2) "
                         "ORDER BY id = ?2 DESC LIMIT 1",
                         &st, e)))
        goto out;
    TEXT(st, 1, campaign_id);
    TEXT(st, 2, id_or_name);
    step = sqlite3_step(st);
    if (step == SQLITE_ROW)
        read_side(st, out);
    else if (step == SQLITE_DONE)
        rc = err_set(e, ERR_NOT_FOUND, NULL, "the campaign has no side \"%s\"",
                     id_or_name);
    else
        rc = db_fail(c, e, "find side");
out:
    db_done(st);
    return rc;
}

err_code db_token_insert(sqlite3 *c, const db_token *t, const char *hash_hex,
                         const char *created_at, err_info *e)
{
    sqlite3_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c,
                         "INSERT INTO tokens (id, campaign_id, side_id, role, "
                         "hash, created_at) VALUES (?,?,?,?,?,?)",
                         &st, e)))
        goto out;
    TEXT(st, 1, t->id);
    TEXT(st, 2, t->campaign_id);
    db_bind_text_or_null(st, 3, t->side_id);
    TEXT(st, 4, t->is_umpire ? "umpire" : "player");
    TEXT(st, 5, hash_hex);
    TEXT(st, 6, created_at);
    rc = step_done(c, st, e, "insert token");
out:
    db_done(st);
    return rc;
}

err_code db_token_find(sqlite3 *c, const char *hash_hex, db_token *out,
                       err_info *e)
{
    sqlite3_stmt *st = NULL;
    err_code rc;
    int step;

    memset(out, 0, sizeof *out);
    if ((rc = db_prepare(c,
                         "SELECT id, campaign_id, side_id, role FROM tokens "
                         "WHERE hash = ?",
                         &st, e)))
        goto out;
    TEXT(st, 1, hash_hex);
    step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        const unsigned char *role = sqlite3_column_text(st, 3);
        db_column_copy(st, 0, out->id, sizeof out->id);
        db_column_copy(st, 1, out->campaign_id, sizeof out->campaign_id);
        db_column_copy(st, 2, out->side_id, sizeof out->side_id);
        out->is_umpire = role && strcmp((const char *)role, "umpire") == 0;
    } else if (step == SQLITE_DONE) {
        rc = err_set(e, ERR_NOT_FOUND, NULL, "unknown token");
    } else {
        rc = db_fail(c, e, "find token");
    }
out:
    db_done(st);
    return rc;
}

static void bind_unit_state(sqlite3_stmt *st, const db_unit *u)
{
    sqlite3_bind_int(st, 4, u->is_eliminated);
    db_bind_text_or_null(st, 5, u->eliminated_reason);
    db_bind_text_or_null(st, 6, u->eliminated_by);
    sqlite3_bind_int(st, 7, u->scrud.quality);
    sqlite3_bind_int(st, 8, u->scrud.faces);
    sqlite3_bind_int(st, 9, u->scrud.defeat_penalty);
    sqlite3_bind_int(st, 10, u->scrud.fatigue_penalty);
}

err_code db_unit_insert(sqlite3 *c, const db_unit *u, err_info *e)
{
    sqlite3_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c,
                         "INSERT INTO units (id, side_id, name, eliminated, "
                         "eliminated_reason, eliminated_by, scrud_quality, "
                         "scrud_faces, scrud_defeat_penalty, "
                         "scrud_fatigue_penalty, campaign_id, created_at) "
                         "VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12)",
                         &st, e)))
        goto out;
    TEXT(st, 1, u->id);
    TEXT(st, 2, u->side_id);
    TEXT(st, 3, u->name);
    bind_unit_state(st, u);
    TEXT(st, 11, u->campaign_id);
    TEXT(st, 12, u->created_at);
    rc = step_done(c, st, e, "insert unit");
out:
    db_done(st);
    return rc;
}

err_code db_unit_update(sqlite3 *c, const db_unit *u, err_info *e)
{
    sqlite3_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c,
                         "UPDATE units SET side_id = ?2, name = ?3, "
                         "eliminated = ?4, eliminated_reason = ?5, "
                         "eliminated_by = ?6, scrud_quality = ?7, "
                         "scrud_faces = ?8, scrud_defeat_penalty = ?9, "
                         "scrud_fatigue_penalty = ?10 WHERE id = ?1",
                         &st, e)))
        goto out;
    TEXT(st, 1, u->id);
    TEXT(st, 2, u->side_id);
    TEXT(st, 3, u->name);
    bind_unit_state(st, u);
    if ((rc = step_done(c, st, e, "update unit")) == ERR_OK &&
        sqlite3_changes(c) != 1)
        rc = err_set(e, ERR_NOT_FOUND, NULL, "no unit %s", u->id);
out:
    db_done(st);
    return rc;
}

#define UNIT_COLUMNS                                                           \
    "u.id, u.campaign_id, u.side_id, s.name, u.name, u.created_at, "           \
    "u.eliminated, u.eliminated_reason, u.eliminated_by, u.scrud_quality, "    \
    "u.scrud_faces, u.scrud_defeat_penalty, u.scrud_fatigue_penalty "          \
    "FROM units u JOIN sides s ON s.id = u.side_id "

static void read_unit(sqlite3_stmt *st, db_unit *u)
{
    memset(u, 0, sizeof *u);
    db_column_copy(st, 0, u->id, sizeof u->id);
    db_column_copy(st, 1, u->campaign_id, sizeof u->campaign_id);
    db_column_copy(st, 2, u->side_id, sizeof u->side_id);
    db_column_copy(st, 3, u->side_name, sizeof u->side_name);
    db_column_copy(st, 4, u->name, sizeof u->name);
    db_column_copy(st, 5, u->created_at, sizeof u->created_at);
    u->is_eliminated = sqlite3_column_int(st, 6) != 0;
    db_column_copy(st, 7, u->eliminated_reason, sizeof u->eliminated_reason);
    db_column_copy(st, 8, u->eliminated_by, sizeof u->eliminated_by);
    scrud_unit_default(&u->scrud);
    u->scrud.quality = sqlite3_column_int(st, 9);
    u->scrud.faces = sqlite3_column_int(st, 10);
    u->scrud.defeat_penalty = sqlite3_column_int(st, 11);
    u->scrud.fatigue_penalty = sqlite3_column_int(st, 12);
    u->scrud.is_eliminated = u->is_eliminated;
}

err_code db_unit_find(sqlite3 *c, const char *campaign_id,
                      const char *id_or_name, db_unit *out, err_info *e)
{
    sqlite3_stmt *st = NULL;
    err_code rc;
    int step;

    memset(out, 0, sizeof *out);
    if ((rc = db_prepare(c,
                         "SELECT " UNIT_COLUMNS
                         "WHERE u.campaign_id = ?1 AND (u.id = ?2 OR "
                         "u.name = ?2) ORDER BY u.id = ?2 DESC LIMIT 1",
                         &st, e)))
        goto out;
    TEXT(st, 1, campaign_id);
    TEXT(st, 2, id_or_name);
    step = sqlite3_step(st);
    if (step == SQLITE_ROW)
        read_unit(st, out);
    else if (step == SQLITE_DONE)
        rc = err_set(e, ERR_NOT_FOUND, NULL, "the campaign has no unit \"%s\"",
                     id_or_name);
    else
        rc = db_fail(c, e, "find unit");
out:
    db_done(st);
    return rc;
}

static void read_unit_row(sqlite3_stmt *st, void *elem)
{
    read_unit(st, elem);
}

err_code db_units_list(sqlite3 *c, const char *campaign_id, const char *side_id,
                       int eliminated, db_unit **out, size_t *n, err_info *e)
{
    sqlite3_stmt *st = NULL;
    void *rows;
    err_code rc;

    *out = NULL;
    *n = 0;
    if ((rc = db_prepare(c,
                         "SELECT " UNIT_COLUMNS
                         "WHERE u.campaign_id = ?1 AND (?2 IS NULL OR "
                         "u.side_id = ?2) AND (?3 < 0 OR u.eliminated = ?3) "
                         "ORDER BY u.rowid",
                         &st, e)))
        return rc;
    TEXT(st, 1, campaign_id);
    db_bind_text_or_null(st, 2, side_id);
    sqlite3_bind_int(st, 3, eliminated);
    rc = read_rows(c, st, sizeof **out, read_unit_row, NULL, &rows, n,
                   "list units", e);
    *out = rows;
    return rc;
}

err_code db_units_count(sqlite3 *c, const char *campaign_id, int *n,
                        err_info *e)
{
    sqlite3_stmt *st = NULL;
    err_code rc;

    *n = 0;
    if ((rc = db_prepare(c, "SELECT count(*) FROM units WHERE campaign_id = ?",
                         &st, e)))
        goto out;
    TEXT(st, 1, campaign_id);
    if (sqlite3_step(st) == SQLITE_ROW)
        *n = sqlite3_column_int(st, 0);
    else
        rc = db_fail(c, e, "count units");
out:
    db_done(st);
    return rc;
}

err_code db_event_insert(sqlite3 *c, const db_event *ev, err_info *e)
{
    sqlite3_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c,
                         "INSERT INTO unit_events (unit_id, campaign_id, at, "
                         "kind, combat_id, actor_token_id, note, before, "
                         "after, result) VALUES (?,?,?,?,?,?,?,?,?,?)",
                         &st, e)))
        goto out;
    TEXT(st, 1, ev->unit_id);
    TEXT(st, 2, ev->campaign_id);
    TEXT(st, 3, ev->at);
    TEXT(st, 4, ev->kind);
    db_bind_text_or_null(st, 5, ev->combat_id);
    db_bind_text_or_null(st, 6, ev->actor_token_id);
    db_bind_text_or_null(st, 7, ev->note);
    db_bind_text_or_null(st, 8, ev->before);
    TEXT(st, 9, ev->after);
    db_bind_text_or_null(st, 10, ev->result);
    rc = step_done(c, st, e, "insert history event");
out:
    db_done(st);
    return rc;
}

static void read_event_row(sqlite3_stmt *st, void *elem)
{
    db_event *ev = elem;

    ev->seq = sqlite3_column_int64(st, 0);
    db_column_copy(st, 1, ev->unit_id, sizeof ev->unit_id);
    db_column_copy(st, 2, ev->campaign_id, sizeof ev->campaign_id);
    db_column_copy(st, 3, ev->at, sizeof ev->at);
    db_column_copy(st, 4, ev->kind, sizeof ev->kind);
    db_column_copy(st, 5, ev->combat_id, sizeof ev->combat_id);
    db_column_copy(st, 6, ev->actor_token_id, sizeof ev->actor_token_id);
    ev->note = db_column_dup(st, 7);
    ev->before = db_column_dup(st, 8);
    ev->after = db_column_dup(st, 9);
    ev->result = db_column_dup(st, 10);
}

static void release_events(void *v, size_t n)
{
    db_events_free(v, n);
}

err_code db_events_list(sqlite3 *c, const char *unit_id, db_event **out,
                        size_t *n, err_info *e)
{
    sqlite3_stmt *st = NULL;
    void *rows;
    err_code rc;

    *out = NULL;
    *n = 0;
    if ((rc = db_prepare(c,
                         "SELECT seq, unit_id, campaign_id, at, kind, "
                         "combat_id, actor_token_id, note, before, after, "
                         "result FROM unit_events WHERE unit_id = ? "
                         "ORDER BY seq",
                         &st, e)))
        return rc;
    TEXT(st, 1, unit_id);
    rc = read_rows(c, st, sizeof **out, read_event_row, release_events, &rows,
                   n, "list history", e);
    *out = rows;
    return rc;
}

void db_events_free(db_event *evs, size_t n)
{
    size_t i;

    for (i = 0; evs && i < n; i++) {
        free(evs[i].note);
        free(evs[i].before);
        free(evs[i].after);
        free(evs[i].result);
    }
    free(evs);
}

err_code db_combat_insert(sqlite3 *c, const db_combat *cb, const db_roll *rolls,
                          size_t n_rolls, err_info *e)
{
    sqlite3_stmt *st = NULL;
    err_code rc;
    size_t i;

    if ((rc = db_prepare(c,
                         "INSERT INTO combats (id, campaign_id, system, "
                         "created_at, note, dice_source, rng, commitment, "
                         "server_seed, client_seed, actor_token_id, summary, "
                         "report) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                         &st, e)))
        goto out;
    TEXT(st, 1, cb->id);
    db_bind_text_or_null(st, 2, cb->campaign_id);
    TEXT(st, 3, cb->system);
    TEXT(st, 4, cb->created_at);
    db_bind_text_or_null(st, 5, cb->note);
    TEXT(st, 6, cb->dice_source);
    db_bind_text_or_null(st, 7, cb->rng);
    db_bind_text_or_null(st, 8, cb->commitment);
    db_bind_text_or_null(st, 9, cb->server_seed);
    if (cb->client_seed)
        TEXT(st, 10, cb->client_seed);
    db_bind_text_or_null(st, 11, cb->actor_token_id);
    TEXT(st, 12, cb->summary);
    TEXT(st, 13, cb->report);
    if ((rc = step_done(c, st, e, "insert combat")))
        goto out;
    db_done(st);
    st = NULL;
    if ((rc = db_prepare(c,
                         "INSERT INTO rolls (combat_id, seq, side_name, "
                         "unit_id, unit_name, reason, faces, natural, "
                         "modified, source, rng) "
                         "VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                         &st, e)))
        goto out;
    for (i = 0; i < n_rolls; i++) {
        const db_roll *r = &rolls[i];
        sqlite3_reset(st);
        TEXT(st, 1, cb->id);
        sqlite3_bind_int(st, 2, r->seq);
        db_bind_text_or_null(st, 3, r->side_name);
        db_bind_text_or_null(st, 4, r->unit_id);
        db_bind_text_or_null(st, 5, r->unit_name);
        TEXT(st, 6, r->reason);
        sqlite3_bind_int(st, 7, r->faces);
        sqlite3_bind_int(st, 8, r->natural);
        sqlite3_bind_int(st, 9, r->modified);
        TEXT(st, 10, r->source);
        db_bind_text_or_null(st, 11, r->rng);
        if ((rc = step_done(c, st, e, "insert roll")))
            goto out;
    }
out:
    db_done(st);
    return rc;
}

static void read_combat(sqlite3_stmt *st, db_combat *cb, bool has_docs)
{
    memset(cb, 0, sizeof *cb);
    db_column_copy(st, 0, cb->id, sizeof cb->id);
    db_column_copy(st, 1, cb->campaign_id, sizeof cb->campaign_id);
    db_column_copy(st, 2, cb->system, sizeof cb->system);
    db_column_copy(st, 3, cb->created_at, sizeof cb->created_at);
    cb->note = db_column_dup(st, 4);
    db_column_copy(st, 5, cb->dice_source, sizeof cb->dice_source);
    db_column_copy(st, 6, cb->rng, sizeof cb->rng);
    db_column_copy(st, 7, cb->commitment, sizeof cb->commitment);
    db_column_copy(st, 8, cb->server_seed, sizeof cb->server_seed);
    cb->client_seed = db_column_dup(st, 9);
    db_column_copy(st, 10, cb->actor_token_id, sizeof cb->actor_token_id);
    cb->summary = db_column_dup(st, 11);
    if (has_docs)
        cb->report = db_column_dup(st, 12);
}

#define COMBAT_COLUMNS                                                         \
    "id, campaign_id, system, created_at, note, dice_source, rng, "            \
    "commitment, server_seed, client_seed, actor_token_id, summary "

err_code db_combat_get(sqlite3 *c, const char *id, db_combat *out, err_info *e)
{
    sqlite3_stmt *st = NULL;
    err_code rc;
    int step;

    memset(out, 0, sizeof *out);
    if ((rc = db_prepare(
             c, "SELECT " COMBAT_COLUMNS ", report FROM combats WHERE id = ?",
             &st, e)))
        goto out;
    TEXT(st, 1, id);
    step = sqlite3_step(st);
    if (step == SQLITE_ROW)
        read_combat(st, out, true);
    else if (step == SQLITE_DONE)
        rc = err_set(e, ERR_NOT_FOUND, NULL, "no combat %s", id);
    else
        rc = db_fail(c, e, "read combat");
out:
    db_done(st);
    return rc;
}

void db_combat_cleanup(db_combat *cb)
{
    if (cb == NULL)
        return;
    free(cb->note);
    free(cb->client_seed);
    free(cb->summary);
    free(cb->report);
    memset(cb, 0, sizeof *cb);
}

static void read_combat_row(sqlite3_stmt *st, void *elem)
{
    read_combat(st, elem, false);
}

static void release_combats(void *v, size_t n)
{
    db_combats_free(v, n);
}

err_code db_combats_list(sqlite3 *c, const char *campaign_id, db_combat **out,
                         size_t *n, err_info *e)
{
    sqlite3_stmt *st = NULL;
    void *rows;
    err_code rc;

    *out = NULL;
    *n = 0;
    if ((rc = db_prepare(c,
                         "SELECT " COMBAT_COLUMNS
                         "FROM combats WHERE campaign_id = ? ORDER BY rowid",
                         &st, e)))
        return rc;
    TEXT(st, 1, campaign_id);
    rc = read_rows(c, st, sizeof **out, read_combat_row, release_combats, &rows,
                   n, "list combats", e);
    *out = rows;
    return rc;
}

void db_combats_free(db_combat *cbs, size_t n)
{
    size_t i;

    for (i = 0; cbs && i < n; i++)
        db_combat_cleanup(&cbs[i]);
    free(cbs);
}

static void read_roll_row(sqlite3_stmt *st, void *elem)
{
    db_roll *r = elem;

    r->seq = sqlite3_column_int(st, 0);
    db_column_copy(st, 1, r->side_name, sizeof r->side_name);
    db_column_copy(st, 2, r->unit_id, sizeof r->unit_id);
    db_column_copy(st, 3, r->unit_name, sizeof r->unit_name);
    db_column_copy(st, 4, r->reason, sizeof r->reason);
    r->faces = sqlite3_column_int(st, 5);
    r->natural = sqlite3_column_int(st, 6);
    r->modified = sqlite3_column_int(st, 7);
    db_column_copy(st, 8, r->source, sizeof r->source);
    db_column_copy(st, 9, r->rng, sizeof r->rng);
}

err_code db_rolls_list(sqlite3 *c, const char *combat_id, db_roll **out,
                       size_t *n, err_info *e)
{
    sqlite3_stmt *st = NULL;
    void *rows;
    err_code rc;

    *out = NULL;
    *n = 0;
    if ((rc = db_prepare(c,
                         "SELECT seq, side_name, unit_id, unit_name, reason, "
                         "faces, natural, modified, source, rng FROM rolls "
                         "WHERE combat_id = ? ORDER BY seq",
                         &st, e)))
        return rc;
    TEXT(st, 1, combat_id);
    rc = read_rows(c, st, sizeof **out, read_roll_row, NULL, &rows, n,
                   "list rolls", e);
    *out = rows;
    return rc;
}
