/*
 * shares.c: SQL for share links (migration 8, docs/sharing.md), declared
 * in db.h: a campaign's combat, battle or whole report opened to whoever
 * holds a link's secret.
 *
 * Invariants: a secret is stored only as its SHA-256 hash (unique); a
 * campaign link names no target and a combat or battle link names one
 * (the table's CHECK); revoking keeps the row and its first revoked_at,
 * and a revoked link is never found by its hash again.  Whether the
 * target exists is the caller's to check (combats and battles are never
 * removed, so a link's target stays).  Prepared statements only, each
 * released at its function's single exit.
 */
#include "db_sql.h"

#include <stdio.h>
#include <string.h>

err_code db_share_insert(db_conn *c, const db_share *s, const char *hash_hex,
                         err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c,
                         "INSERT INTO shares (id, campaign_id, kind, "
                         "target_id, note, hash, created_at, actor_token_id) "
                         "VALUES (?,?,?,?,?,?,?,?)",
                         &st, e)))
        goto out;
    db_bind_text(st, 1, s->id);
    db_bind_text(st, 2, s->campaign_id);
    db_bind_text(st, 3, s->kind);
    db_bind_text_or_null(st, 4, s->target_id);
    db_bind_text_or_null(st, 5, s->note);
    db_bind_text(st, 6, hash_hex);
    db_bind_text(st, 7, s->created_at);
    db_bind_text_or_null(st, 8, s->actor_token_id);
    rc = db_step_done(c, st, e, "insert a share link");
out:
    db_done(st);
    return rc;
}

#define SHARE_COLUMNS                                                          \
    "SELECT id, campaign_id, kind, target_id, note, created_at, "              \
    "actor_token_id, revoked_at FROM shares "

static void read_share(db_stmt *st, void *elem)
{
    db_share *s = elem;

    db_column_copy(st, 0, s->id, sizeof s->id);
    db_column_copy(st, 1, s->campaign_id, sizeof s->campaign_id);
    db_column_copy(st, 2, s->kind, sizeof s->kind);
    db_column_copy(st, 3, s->target_id, sizeof s->target_id);
    db_column_copy(st, 4, s->note, sizeof s->note);
    db_column_copy(st, 5, s->created_at, sizeof s->created_at);
    db_column_copy(st, 6, s->actor_token_id, sizeof s->actor_token_id);
    db_column_copy(st, 7, s->revoked_at, sizeof s->revoked_at);
}

err_code db_share_find(db_conn *c, const char *hash_hex, db_share *out,
                       err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;
    int step;

    memset(out, 0, sizeof *out);
    if ((rc = db_prepare(
             c, SHARE_COLUMNS "WHERE hash = ? AND revoked_at IS NULL", &st, e)))
        goto out;
    db_bind_text(st, 1, hash_hex);
    step = db_step(st);
    if (step == DB_ROW)
        read_share(st, out);
    else if (step == DB_DONE)
        rc = err_set(e, ERR_NOT_FOUND, NULL,
                     "no share link has this secret (or it was revoked)");
    else
        rc = db_fail(c, e, "find a share link");
out:
    db_done(st);
    return rc;
}

err_code db_share_revoke(db_conn *c, const char *campaign_id, const char *id,
                         const char *at, db_share *out, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;
    int step;

    memset(out, 0, sizeof *out);
    /* The first revocation's time stays: revoking twice changes nothing. */
    if ((rc = db_prepare(c,
                         "UPDATE shares SET revoked_at = "
                         "coalesce(revoked_at, ?3) "
                         "WHERE id = ?1 AND campaign_id = ?2",
                         &st, e)))
        goto out;
    db_bind_text(st, 1, id);
    db_bind_text(st, 2, campaign_id);
    db_bind_text(st, 3, at);
    if ((rc = db_step_done(c, st, e, "revoke a share link")))
        goto out;
    db_done(st);
    if ((rc = db_prepare(c, SHARE_COLUMNS "WHERE id = ?1 AND campaign_id = ?2",
                         &st, e)))
        goto out;
    db_bind_text(st, 1, id);
    db_bind_text(st, 2, campaign_id);
    step = db_step(st);
    if (step == DB_ROW)
        read_share(st, out);
    else if (step == DB_DONE)
        rc = err_set(e, ERR_NOT_FOUND, NULL,
                     "the campaign has no share link %s", id);
    else
        rc = db_fail(c, e, "read a share link");
out:
    db_done(st);
    return rc;
}

err_code db_shares_page(db_conn *c, const char *campaign_id, const db_page *pg,
                        db_share **out, size_t *n, err_info *e)
{
    /* [after][newest first]: one statement per shape (PERF.md), in the
     * order the links were made (rowid), through shares_by_campaign. */
    static const db_page_sql sql = {
        {{SHARE_COLUMNS "WHERE campaign_id = ?1 ORDER BY rowid LIMIT ?3",
          SHARE_COLUMNS "WHERE campaign_id = ?1 ORDER BY rowid DESC LIMIT ?3"},
         {SHARE_COLUMNS "WHERE campaign_id = ?1 AND rowid > ?2 "
                        "ORDER BY rowid LIMIT ?3",
          SHARE_COLUMNS "WHERE campaign_id = ?1 AND rowid < ?2 "
                        "ORDER BY rowid DESC LIMIT ?3"}},
        "SELECT rowid FROM shares WHERE id = ?1 AND campaign_id = ?2",
        false};
    void *rows;
    err_code rc =
        db_read_page(c, &sql, campaign_id, pg, sizeof **out, read_share, NULL,
                     &rows, n, "list share links", e);

    *out = rows;
    return rc;
}
