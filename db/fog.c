/*
 * fog.c: SQL for fog of war (migration 9), declared in db.h: a campaign's
 * setting saved, and where its units stand (id, name, side), all the
 * server needs to know of a unit to decide what a player may see of it
 * (server/systems/fog.h).  The setting is read with the rest of the
 * campaign (db_campaign_get, store.c).
 *
 * Prepared statements only; every statement is released (db_done) at its
 * function's single exit.
 */
#include "db_sql.h"

#include <string.h>

/* Whether s is one of the levels the schema's CHECK allows. */
static bool is_level(const char *s)
{
    static const char *const levels[] = {"full", "status", "name", "hidden"};
    size_t i;

    for (i = 0; i < sizeof levels / sizeof *levels; i++)
        if (strcmp(s, levels[i]) == 0)
            return true;
    return false;
}

err_code db_campaign_fog_save(db_conn *c, const char *id, const db_fog *f,
                              err_info *e)
{
    const char *others = f->others[0] ? f->others : "status";
    db_stmt *st = NULL;
    err_code rc;

    if (!is_level(others)) {
        rc = err_set(e, ERR_INTERNAL, NULL, "campaign %s: no fog level \"%s\"",
                     id, others);
        goto out;
    }
    if ((rc = db_prepare(c,
                         "UPDATE campaigns SET fog_enabled = ?2, "
                         "fog_others = ?3 WHERE id = ?1",
                         &st, e)))
        goto out;
    db_bind_text(st, 1, id);
    db_bind_int(st, 2, f->is_enabled);
    db_bind_text(st, 3, others);
    if ((rc = db_step_done(c, st, e, "save fog of war")))
        goto out;
    if (db_changes(c) == 0)
        rc = err_set(e, ERR_NOT_FOUND, NULL, "no campaign %s", id);
out:
    db_done(st);
    return rc;
}

static void read_ref_row(db_stmt *st, void *elem)
{
    db_unit_ref *u = elem;

    db_column_copy(st, 0, u->id, sizeof u->id);
    db_column_copy(st, 1, u->name, sizeof u->name);
    db_column_copy(st, 2, u->side_id, sizeof u->side_id);
}

err_code db_unit_refs(db_conn *c, const char *campaign_id, db_unit_ref **out,
                      size_t *n, err_info *e)
{
    db_stmt *st = NULL;
    void *rows = NULL;
    err_code rc;

    *out = NULL;
    *n = 0;
    /* The campaign's unique (campaign_id, name) index finds them; rowid
     * is creation order. */
    if ((rc = db_prepare(c,
                         "SELECT id, name, side_id FROM units "
                         "WHERE campaign_id = ? ORDER BY rowid",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    rc = db_read_rows(c, st, sizeof **out, read_ref_row, NULL, &rows, n,
                      "list units' sides", e);
    *out = rows;
    return rc;
}
