/*
 * tokens.c: SQL for the issues of a campaign's tokens (migration 8,
 * docs/sharing.md), declared in db.h: a token reissued, and the list of
 * every issue.  Creating tokens with a campaign or a side, and finding
 * the live token of a bearer, are in store.c.
 *
 * Invariants: a campaign has at most one live token (revoked_at NULL) per
 * role and side (migration 8's partial unique index); a reissue revokes
 * the live one and inserts its successor in the caller's writer job, so
 * the old token stops working in the very commit that makes the new one.
 * Revoked rows are kept: they are the list of issues, and the actors
 * history names.  Prepared statements only, each released at its
 * function's single exit.
 */
#include "db_sql.h"
#include "token_cache.h"

#include <stdio.h>
#include <string.h>

err_code db_token_reissue(db_conn *c, const db_token *t, const char *hash_hex,
                          const char *at, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    /* IS NOT DISTINCT FROM: NULL matches the umpire's NULL side. */
    if ((rc = db_prepare(
             c,
             "UPDATE tokens SET revoked_at = ?4 "
             "WHERE campaign_id = ?1 AND role = ?2 "
             "AND side_id IS NOT DISTINCT FROM ?3 AND revoked_at IS NULL",
             &st, e)))
        goto out;
    db_bind_text(st, 1, t->campaign_id);
    db_bind_text(st, 2, t->is_umpire ? "umpire" : "player");
    db_bind_text_or_null(st, 3, t->is_umpire ? NULL : t->side_id);
    db_bind_text(st, 4, at);
    if ((rc = db_step_done(c, st, e, "revoke a token")))
        goto out;
    /* The tokens readers kept are forgotten once the batch has ended
     * (db.c, token_cache.h). */
    db_token_reissued(c);
    db_done(st);
    if ((rc = db_prepare(c,
                         "INSERT INTO tokens (id, campaign_id, side_id, role, "
                         "hash, created_at, issued_by) "
                         "VALUES (?,?,?,?,?,?,'umpire')",
                         &st, e)))
        goto out;
    db_bind_text(st, 1, t->id);
    db_bind_text(st, 2, t->campaign_id);
    db_bind_text_or_null(st, 3, t->is_umpire ? NULL : t->side_id);
    db_bind_text(st, 4, t->is_umpire ? "umpire" : "player");
    db_bind_text(st, 5, hash_hex);
    db_bind_text(st, 6, at);
    rc = db_step_done(c, st, e, "reissue a token");
out:
    db_done(st);
    return rc;
}

#define ISSUE_COLUMNS                                                          \
    "SELECT t.id, t.side_id, s.name, t.role, t.created_at, t.issued_by, "      \
    "t.revoked_at FROM tokens t LEFT JOIN sides s ON s.id = t.side_id "        \
    "WHERE t.campaign_id = ?1 "

static void read_issue(db_stmt *st, void *elem)
{
    db_token_issue *t = elem;
    const unsigned char *role = db_column_text(st, 3);
    const unsigned char *by = db_column_text(st, 5);

    db_column_copy(st, 0, t->id, sizeof t->id);
    db_column_copy(st, 1, t->side_id, sizeof t->side_id);
    db_column_copy(st, 2, t->side_name, sizeof t->side_name);
    t->is_umpire = role && strcmp((const char *)role, "umpire") == 0;
    db_column_copy(st, 4, t->issued_at, sizeof t->issued_at);
    t->is_by_umpire = by && strcmp((const char *)by, "umpire") == 0;
    db_column_copy(st, 6, t->revoked_at, sizeof t->revoked_at);
}

err_code db_token_issues_page(db_conn *c, const char *campaign_id,
                              const db_page *pg, db_token_issue **out,
                              size_t *n, err_info *e)
{
    /* [after][newest first]: one statement per shape (PERF.md), in the
     * order the tokens were issued (rowid), through tokens_by_campaign. */
    static const db_page_sql sql = {
        {{ISSUE_COLUMNS "ORDER BY t.rowid LIMIT ?3",
          ISSUE_COLUMNS "ORDER BY t.rowid DESC LIMIT ?3"},
         {ISSUE_COLUMNS "AND t.rowid > ?2 ORDER BY t.rowid LIMIT ?3",
          ISSUE_COLUMNS "AND t.rowid < ?2 ORDER BY t.rowid DESC LIMIT ?3"}},
        "SELECT rowid FROM tokens WHERE id = ?1 AND campaign_id = ?2",
        false};
    void *rows;
    err_code rc =
        db_read_page(c, &sql, campaign_id, pg, sizeof **out, read_issue, NULL,
                     &rows, n, "list token issues", e);

    *out = rows;
    return rc;
}
