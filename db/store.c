/*
 * store.c: SQL for campaigns, sides and tokens; declared in db.h.
 * Prepared statements only; every statement is released (db_done) at the
 * function's single exit.  (Units: units.c; history: unit_events.c;
 * combats and rolls: log.c; combat results tables: tables.c.)
 *
 * SCS multipliers are stored as text written by scs_frac_text and read
 * back with scs_frac_parse, so they stay exact.
 */
#include "db_sql.h"
#include "token_cache.h"
#include "unit_cache.h"

#include <stdio.h>
#include <string.h>

/* A multiplier the store can write and read back: positive, den > 0. */
static bool frac_is_positive(scs_frac f)
{
    return f.num > 0 && f.den > 0;
}

err_code db_campaign_insert(db_conn *c, const db_campaign *cmp, err_info *e)
{
    const scrud_options *o = &cmp->scrud;
    char oos_attack[SCS_FRAC_TEXT], oos_defense[SCS_FRAC_TEXT];
    db_stmt *st = NULL;
    err_code rc;

    if (!frac_is_positive(cmp->scs.out_of_supply_attack) ||
        !frac_is_positive(cmp->scs.out_of_supply_defense)) {
        rc = err_set(e, ERR_INTERNAL, NULL,
                     "campaign %s: SCS multipliers must be positive "
                     "fractions (see scs_options_default)",
                     cmp->id);
        goto out;
    }
    scs_frac_text(cmp->scs.out_of_supply_attack, oos_attack);
    scs_frac_text(cmp->scs.out_of_supply_defense, oos_defense);
    if ((rc = db_prepare(c,
                         "INSERT INTO campaigns (id, name, created_at, "
                         "scrud_cap_kind, scrud_cap, scrud_has_floor, "
                         "scrud_floor, scrud_extra_dice, scrud_attrition, "
                         "scrud_max_penalty, scrud_eliminate_below, "
                         "scrud_defeats_per_elimination, edna_start, "
                         "edna_dice, edna_faces, scs_oos_attack, "
                         "scs_oos_defense, fog_enabled, fog_others) "
                         "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                         &st, e)))
        goto out;
    db_bind_text(st, 1, cmp->id);
    db_bind_text(st, 2, cmp->name);
    db_bind_text(st, 3, cmp->created_at);
    db_bind_int(st, 4, (int)o->cap_kind);
    db_bind_int(st, 5, o->cap);
    db_bind_int(st, 6, o->has_floor);
    db_bind_int(st, 7, o->floor);
    db_bind_int(st, 8, (int)o->extra_dice);
    db_bind_int(st, 9, o->attrition);
    db_bind_int(st, 10, o->max_penalty_per_combat);
    db_bind_int(st, 11, o->eliminate_below);
    db_bind_int(st, 12, o->defeats_per_elimination);
    db_bind_int(st, 13, cmp->edna_start);
    db_bind_int(st, 14, cmp->edna.dice);
    db_bind_int(st, 15, cmp->edna.faces);
    db_bind_text(st, 16, oos_attack);
    db_bind_text(st, 17, oos_defense);
    db_bind_int(st, 18, cmp->fog.is_enabled);
    db_bind_text(st, 19, cmp->fog.others[0] ? cmp->fog.others : "status");
    rc = db_step_done(c, st, e, "insert campaign");
out:
    db_done(st);
    return rc;
}

/* Column col as a multiplier written by db_campaign_insert. */
static bool parse_frac_column(db_stmt *st, int col, scs_frac *out)
{
    const unsigned char *t = db_column_text(st, col);

    return t != NULL && scs_frac_parse((const char *)t, out);
}

err_code db_campaign_version(db_conn *c, const char *id, long long *out,
                             err_info *e)
{
    return db_campaign_version_next(c, id, out, NULL, NULL, NULL, e);
}

err_code db_campaign_version_next(db_conn *c, const char *id, long long *out,
                                  db_commitment *next, bool *has_next,
                                  db_ledger_head *ledger, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;
    int step;

    if (has_next != NULL)
        *has_next = false;
    if ((rc = db_prepare(c,
                         next == NULL
                             ? "SELECT version FROM campaigns WHERE id = ?"
                             : "SELECT version, next_commitment, next_seed, "
                               "next_created_at, ledger_length, ledger_head "
                               "FROM campaigns WHERE id = ?",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, id);
    step = db_step(st);
    if (step == DB_ROW) {
        *out = db_column_int64(st, 0);
        if (next != NULL && db_column_type(st, 1) != DB_NULL) {
            memset(next, 0, sizeof *next);
            db_column_copy(st, 1, next->commitment, sizeof next->commitment);
            db_column_copy(st, 2, next->seed, sizeof next->seed);
            db_column_copy(st, 3, next->created_at, sizeof next->created_at);
            snprintf(next->campaign_id, sizeof next->campaign_id, "%s", id);
            *has_next = true;
        }
        if (next != NULL && ledger != NULL) {
            snprintf(ledger->campaign_id, sizeof ledger->campaign_id, "%s", id);
            ledger->length = db_column_int64(st, 4);
            db_column_copy(st, 5, ledger->head, sizeof ledger->head);
        }
    } else if (step == DB_DONE) {
        rc = err_set(e, ERR_NOT_FOUND, NULL, "no campaign %s", id);
    } else {
        rc = db_fail(c, e, "read the campaign's version");
    }
    db_done(st);
    return rc;
}

err_code db_campaign_landed_at(db_conn *c, const char *campaign_id,
                               long long version, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    if (db_conn_sqlite(c) != NULL)
        return ERR_OK;
    if ((rc = db_prepare(c,
                         "UPDATE campaigns SET version = ?2 WHERE id = ?1 AND "
                         "version <> ?2",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    db_bind_int64(st, 2, version + 1);
    rc = db_step_done(c, st, e, "count the campaign's version");
    db_done(st);
    return rc;
}

err_code db_campaign_get(db_conn *c, const char *id, db_campaign *out,
                         err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;
    int step;

    if (db_campaign_kept(c, id, out)) {
        db_campaign_ahead(c, out);
        return ERR_OK;
    }
    memset(out, 0, sizeof *out);
    if ((rc = db_prepare(c,
                         "SELECT id, name, created_at, scrud_cap_kind, "
                         "scrud_cap, scrud_has_floor, scrud_floor, "
                         "scrud_extra_dice, scrud_attrition, "
                         "scrud_max_penalty, scrud_eliminate_below, "
                         "scrud_defeats_per_elimination, edna_start, "
                         "edna_dice, edna_faces, scs_oos_attack, "
                         "scs_oos_defense, fog_enabled, fog_others, "
                         "version FROM campaigns WHERE id = ?",
                         &st, e)))
        goto out;
    db_bind_text(st, 1, id);
    step = db_step(st);
    if (step == DB_DONE) {
        rc = err_set(e, ERR_NOT_FOUND, NULL, "no campaign %s", id);
        goto out;
    }
    if (step != DB_ROW) {
        rc = db_fail(c, e, "read campaign");
        goto out;
    }
    db_column_copy(st, 0, out->id, sizeof out->id);
    db_column_copy(st, 1, out->name, sizeof out->name);
    db_column_copy(st, 2, out->created_at, sizeof out->created_at);
    if (db_column_int(st, 3) < SCRUD_CAP_FACES ||
        db_column_int(st, 3) > SCRUD_CAP_NONE ||
        db_column_int(st, 7) < SCRUD_EXTRA_BEAT_LOWEST ||
        db_column_int(st, 7) > SCRUD_EXTRA_HALF ||
        !parse_frac_column(st, 15, &out->scs.out_of_supply_attack) ||
        !parse_frac_column(st, 16, &out->scs.out_of_supply_defense)) {
        rc = err_set(e, ERR_DB, NULL, "campaign %s has unknown options", id);
        goto out;
    }
    out->version = db_column_int64(st, 19);
    db_snapshot_saw(c, out->id, out->version);
    out->scrud.cap_kind = (scrud_cap_kind)db_column_int(st, 3);
    out->scrud.cap = db_column_int(st, 4);
    out->scrud.has_floor = db_column_int(st, 5) != 0;
    out->scrud.floor = db_column_int(st, 6);
    out->scrud.extra_dice = (scrud_extra_rule)db_column_int(st, 7);
    out->scrud.attrition = db_column_int(st, 8) != 0;
    out->scrud.max_penalty_per_combat = db_column_int(st, 9);
    out->scrud.eliminate_below = db_column_int(st, 10);
    out->scrud.defeats_per_elimination = db_column_int(st, 11);
    out->edna_start = db_column_int(st, 12);
    out->edna.dice = db_column_int(st, 13);
    out->edna.faces = db_column_int(st, 14);
    /* The schema's CHECK keeps fog_others one of the four levels. */
    out->fog.is_enabled = db_column_int(st, 17) != 0;
    db_column_copy(st, 18, out->fog.others, sizeof out->fog.others);
    db_campaign_keep(c, out);
    db_campaign_ahead(c, out); /* kept as read, then as it is ahead */
out:
    db_done(st);
    return rc;
}

err_code db_side_insert(db_conn *c, const db_side *s, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c,
                         "INSERT INTO sides (id, campaign_id, name, "
                         "created_at, exhausted_turn) VALUES (?,?,?,?,?)",
                         &st, e)))
        goto out;
    db_bind_text(st, 1, s->id);
    db_bind_text(st, 2, s->campaign_id);
    db_bind_text(st, 3, s->name);
    db_bind_text(st, 4, s->created_at);
    db_bind_int(st, 5, s->exhausted_turn);
    rc = db_step_done(c, st, e, "insert side");
out:
    db_done(st);
    return rc;
}

err_code db_side_update(db_conn *c, const db_side *s, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c,
                         "UPDATE sides SET exhausted_turn = ?3 "
                         "WHERE id = ?1 AND campaign_id = ?2",
                         &st, e)))
        goto out;
    db_bind_text(st, 1, s->id);
    db_bind_text(st, 2, s->campaign_id);
    db_bind_int(st, 3, s->exhausted_turn);
    if ((rc = db_step_done(c, st, e, "update side")) == ERR_OK &&
        db_changes(c) != 1)
        rc = err_set(e, ERR_NOT_FOUND, NULL, "the campaign has no side %s",
                     s->id);
out:
    db_done(st);
    return rc;
}

static void read_side(db_stmt *st, db_side *s)
{
    db_column_copy(st, 0, s->id, sizeof s->id);
    db_column_copy(st, 1, s->campaign_id, sizeof s->campaign_id);
    db_column_copy(st, 2, s->name, sizeof s->name);
    db_column_copy(st, 3, s->created_at, sizeof s->created_at);
    s->exhausted_turn = db_column_int(st, 4);
}

static void read_side_row(db_stmt *st, void *elem)
{
    read_side(st, elem);
}

err_code db_sides_list(db_conn *c, const char *campaign_id, db_side **out,
                       size_t *n, err_info *e)
{
    db_stmt *st = NULL;
    void *rows;
    err_code rc;

    *out = NULL;
    *n = 0;
    if ((rc = db_prepare(c,
                         "SELECT id, campaign_id, name, created_at, "
                         "exhausted_turn FROM sides "
                         "WHERE campaign_id = ? ORDER BY rowid",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    rc = db_read_rows(c, st, sizeof **out, read_side_row, NULL, &rows, n,
                      "list sides", e);
    *out = rows;
    return rc;
}

err_code db_sides_page(db_conn *c, const char *campaign_id, const db_page *pg,
                       db_side **out, size_t *n, err_info *e)
{
    /* [after][newest first]: one statement per shape (PERF.md); a
     * campaign has a few sides, so its unique index and a sort serve. */
    static const db_page_sql sql = {
        {{"SELECT id, campaign_id, name, created_at, exhausted_turn "
          "FROM sides WHERE campaign_id = ?1 ORDER BY rowid LIMIT ?3",
          "SELECT id, campaign_id, name, created_at, exhausted_turn "
          "FROM sides WHERE campaign_id = ?1 ORDER BY rowid DESC LIMIT ?3"},
         {"SELECT id, campaign_id, name, created_at, exhausted_turn "
          "FROM sides WHERE campaign_id = ?1 AND rowid > ?2 "
          "ORDER BY rowid LIMIT ?3",
          "SELECT id, campaign_id, name, created_at, exhausted_turn "
          "FROM sides WHERE campaign_id = ?1 AND rowid < ?2 "
          "ORDER BY rowid DESC LIMIT ?3"}},
        "SELECT rowid FROM sides WHERE id = ?1 AND campaign_id = ?2",
        false};
    void *rows;
    err_code rc = db_read_page(c, &sql, campaign_id, pg, sizeof **out,
                               read_side_row, NULL, &rows, n, "list sides", e);

    *out = rows;
    return rc;
}

/* A side read (any is possible). */
static bool read_found_side(db_stmt *st, void *out)
{
    read_side(st, out);
    return true;
}

err_code db_side_find(db_conn *c, const char *campaign_id,
                      const char *id_or_name, db_side *out, err_info *e)
{
    err_code rc;

    if (db_side_kept(c, campaign_id, id_or_name, out))
        return ERR_OK;
    memset(out, 0, sizeof *out);
    /* By id, then by name, as db_unit_find: two unique probes, no sort. */
    rc = db_find_one(c,
                     "SELECT id, campaign_id, name, created_at, "
                     "exhausted_turn FROM sides WHERE rowid = coalesce("
                     "(SELECT rowid FROM sides "
                     "WHERE id = ?2 AND campaign_id = ?1), "
                     "(SELECT rowid FROM sides "
                     "WHERE campaign_id = ?1 AND name = ?2))",
                     campaign_id, id_or_name, read_found_side, out, "side", e);
    if (rc == ERR_OK)
        db_side_keep(c, out);
    return rc;
}

err_code db_token_insert(db_conn *c, const db_token *t, const char *hash_hex,
                         const char *created_at, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c,
                         "INSERT INTO tokens (id, campaign_id, side_id, role, "
                         "hash, created_at) VALUES (?,?,?,?,?,?)",
                         &st, e)))
        goto out;
    db_bind_text(st, 1, t->id);
    db_bind_text(st, 2, t->campaign_id);
    db_bind_text_or_null(st, 3, t->side_id);
    db_bind_text(st, 4, t->is_umpire ? "umpire" : "player");
    db_bind_text(st, 5, hash_hex);
    db_bind_text(st, 6, created_at);
    rc = db_step_done(c, st, e, "insert token");
out:
    db_done(st);
    return rc;
}

err_code db_token_find(db_conn *c, const char *hash_hex, db_token *out,
                       err_info *e)
{
    unsigned long long generation; /* the cache's, before the row */
    db_stmt *st = NULL;
    err_code rc;
    int step;

    memset(out, 0, sizeof *out);
    if (db_token_kept(c, hash_hex, out, &generation))
        return ERR_OK;
    if ((rc = db_prepare(c,
                         "SELECT id, campaign_id, side_id, role FROM tokens "
                         "WHERE hash = ? AND revoked_at IS NULL",
                         &st, e)))
        goto out;
    db_bind_text(st, 1, hash_hex);
    step = db_step(st);
    if (step == DB_ROW) {
        const unsigned char *role = db_column_text(st, 3);
        db_column_copy(st, 0, out->id, sizeof out->id);
        db_column_copy(st, 1, out->campaign_id, sizeof out->campaign_id);
        db_column_copy(st, 2, out->side_id, sizeof out->side_id);
        out->is_umpire = role && strcmp((const char *)role, "umpire") == 0;
    } else if (step == DB_DONE) {
        rc = err_set(e, ERR_NOT_FOUND, NULL, "unknown token");
    } else {
        rc = db_fail(c, e, "find token");
    }
out:
    db_done(st);
    if (rc == ERR_OK)
        db_token_keep(c, hash_hex, generation, out);
    return rc;
}
