/*
 * webhooks.c: SQL for channel posts (docs/discord.md, "Channel posts"),
 * declared in db.h: a campaign's Discord webhook with what became of its
 * posts, and the posts waiting.
 *
 * Invariants: a campaign has one webhook at most (the primary key); a post
 * exists only while its campaign has a webhook (made with its combat:
 * db_webhook_enqueue on SQLite, migration 7's trigger on PostgreSQL;
 * removed with the webhook) and until it is settled;
 * a post is counted once, delivered or failed, by the statement that
 * removes it.  Prepared statements only; every statement is released
 * (db_done) at its function's single exit.
 */
#include "db_sql.h"
#include "writer_kept.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether campaign_id has a webhook (*has). */
static err_code has_webhook(db_conn *c, const char *campaign_id, bool *has,
                            err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    *has = false;
    if ((rc = db_prepare(c, "SELECT 1 FROM webhooks WHERE campaign_id = ?", &st,
                         e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    switch (db_step(st)) {
    case DB_ROW: *has = true; break;
    case DB_DONE: break;
    default: rc = db_fail(c, e, "find a campaign's webhook");
    }
    db_done(st);
    return rc;
}

err_code db_webhook_put(db_conn *c, const db_webhook *w, bool *is_new,
                        err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;
    bool had;

    *is_new = false;
    if ((rc = has_webhook(c, w->campaign_id, &had, e)))
        return rc;
    *is_new = !had;
    /* An upsert, not a REPLACE: the posts waiting keep their webhook. */
    if ((rc = db_prepare(c,
                         "INSERT INTO webhooks (campaign_id, url, hook_id, "
                         "token, set_at) VALUES (?1,?2,?3,?4,?5) "
                         "ON CONFLICT (campaign_id) DO UPDATE SET url = ?2, "
                         "hook_id = ?3, token = ?4, set_at = ?5, "
                         "n_delivered = 0, last_delivery_at = NULL, "
                         "last_delivery_combat = NULL, n_failures = 0, "
                         "last_failure_at = NULL, last_failure_combat = NULL, "
                         "last_error = NULL",
                         &st, e)))
        goto out;
    db_bind_text(st, 1, w->campaign_id);
    db_bind_text(st, 2, w->url);
    db_bind_text(st, 3, w->hook_id);
    db_bind_text(st, 4, w->token);
    db_bind_text(st, 5, w->set_at);
    rc = db_step_done(c, st, e, "put a webhook");
out:
    db_done(st);
    db_keys_hooks_forget(c);
    return rc;
}

err_code db_webhook_enqueue(db_conn *c, const char *campaign_id,
                            const char *combat_id, const char *created_at,
                            err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;
    bool has;

    /* PostgreSQL's trigger posts (several writers: nothing kept). */
    if (db_conn_sqlite(c) == NULL || campaign_id == NULL ||
        campaign_id[0] == '\0')
        return ERR_OK;
    if (!db_keys_hooks_kept(c, campaign_id, &has)) {
        if ((rc = has_webhook(c, campaign_id, &has, e)))
            return rc;
        db_keys_hooks_keep(c, campaign_id, has);
    }
    if (!has)
        return ERR_OK;
    if ((rc = db_prepare(c,
                         "INSERT INTO webhook_posts (campaign_id, combat_id, "
                         "created_at) VALUES (?1, ?2, ?3)",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    db_bind_text(st, 2, combat_id);
    db_bind_text(st, 3, created_at);
    rc = db_step_done(c, st, e, "queue a channel post");
    db_done(st);
    return rc;
}

err_code db_webhook_get(db_conn *c, const char *campaign_id, db_webhook *out,
                        err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;
    int step;

    memset(out, 0, sizeof *out);
    if ((rc = db_prepare(c,
                         "SELECT url, hook_id, token, set_at, n_delivered, "
                         "last_delivery_at, last_delivery_combat, n_failures, "
                         "last_failure_at, last_failure_combat, last_error, "
                         "(SELECT count(*) FROM webhook_posts p "
                         "WHERE p.campaign_id = w.campaign_id) "
                         "FROM webhooks w WHERE campaign_id = ?",
                         &st, e)))
        goto out;
    db_bind_text(st, 1, campaign_id);
    step = db_step(st);
    if (step == DB_ROW) {
        snprintf(out->campaign_id, sizeof out->campaign_id, "%s", campaign_id);
        db_column_copy(st, 0, out->url, sizeof out->url);
        db_column_copy(st, 1, out->hook_id, sizeof out->hook_id);
        db_column_copy(st, 2, out->token, sizeof out->token);
        db_column_copy(st, 3, out->set_at, sizeof out->set_at);
        out->n_delivered = db_column_int64(st, 4);
        db_column_copy(st, 5, out->last_delivery_at,
                       sizeof out->last_delivery_at);
        db_column_copy(st, 6, out->last_delivery_combat,
                       sizeof out->last_delivery_combat);
        out->n_failures = db_column_int64(st, 7);
        db_column_copy(st, 8, out->last_failure_at,
                       sizeof out->last_failure_at);
        db_column_copy(st, 9, out->last_failure_combat,
                       sizeof out->last_failure_combat);
        db_column_copy(st, 10, out->last_error, sizeof out->last_error);
        out->n_pending = db_column_int64(st, 11);
    } else if (step == DB_DONE) {
        rc = err_set(e, ERR_NOT_FOUND, NULL, "the campaign has no webhook");
    } else {
        rc = db_fail(c, e, "read a webhook");
    }
out:
    db_done(st);
    return rc;
}

/* Runs one statement of the campaign (bound as ?1) that returns no rows;
 * *n_changed (NULL ok) is how many rows it changed. */
static err_code exec_campaign(db_conn *c, const char *sql,
                              const char *campaign_id, int *n_changed,
                              const char *what, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c, sql, &st, e)))
        goto out;
    db_bind_text(st, 1, campaign_id);
    if ((rc = db_step_done(c, st, e, what)) == ERR_OK && n_changed)
        *n_changed = db_changes(c);
out:
    db_done(st);
    return rc;
}

err_code db_webhook_delete(db_conn *c, const char *campaign_id, err_info *e)
{
    int n = 0;
    err_code rc;

    db_keys_hooks_forget(c);
    if ((rc = exec_campaign(c,
                            "DELETE FROM webhook_posts WHERE campaign_id = ?1",
                            campaign_id, NULL, "remove posts", e)) ||
        (rc = exec_campaign(c, "DELETE FROM webhooks WHERE campaign_id = ?1",
                            campaign_id, &n, "remove a webhook", e)))
        return rc;
    if (n == 0)
        return err_set(e, ERR_NOT_FOUND, NULL, "the campaign has no webhook");
    return ERR_OK;
}

static void read_head(db_stmt *st, void *elem)
{
    db_webhook_post *p = elem;

    p->seq = db_column_int64(st, 0);
    db_column_copy(st, 1, p->campaign_id, sizeof p->campaign_id);
    db_column_copy(st, 2, p->combat_id, sizeof p->combat_id);
    db_column_copy(st, 3, p->created_at, sizeof p->created_at);
    p->n_waiting = db_column_int64(st, 4);
}

err_code db_webhook_heads(db_conn *c, db_webhook_post **out, size_t *n,
                          err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;
    int step;

    *out = NULL;
    *n = 0;
    /* The poster asks after every commit, and most find none waiting:
     * whether any is, first, costs a fraction of the grouping below
     * (about 25k instructions on an empty table, under callgrind). */
    if ((rc = db_prepare(c, "SELECT 1 FROM webhook_posts LIMIT 1", &st, e)))
        return rc;
    if ((step = db_step(st)) != DB_ROW) {
        rc = step == DB_DONE ? ERR_OK
                             : db_fail(c, e, "read whether posts are waiting");
        db_done(st);
        return rc;
    }
    db_done(st);
    st = NULL;
    /* One row per campaign waiting (webhook_posts_by_campaign gives each
     * campaign's first seq and count), then that post's row. */
    if ((rc = db_prepare(c,
                         "SELECT p.seq, p.campaign_id, p.combat_id, "
                         "p.created_at, h.n FROM (SELECT min(seq) AS seq, "
                         "count(*) AS n FROM webhook_posts "
                         "GROUP BY campaign_id) h "
                         "JOIN webhook_posts p ON p.seq = h.seq "
                         "ORDER BY p.seq",
                         &st, e)))
        return rc;
    return db_read_rows(c, st, sizeof **out, read_head, NULL, (void **)out, n,
                        "read the posts waiting", e);
}

/* Counts one settled post, or n_failed dropped ones, on the campaign's
 * webhook: delivered when error is NULL. */
static err_code count_outcome(db_conn *c, const char *campaign_id,
                              const char *combat_id, long long n,
                              const char *error, const char *at, err_info *e)
{
    char cut[DB_WEBHOOK_ERROR_MAX];
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c,
                         error == NULL
                             ? "UPDATE webhooks SET n_delivered = n_delivered "
                               "+ ?3, last_delivery_at = ?4, "
                               "last_delivery_combat = ?2 "
                               "WHERE campaign_id = ?1"
                             : "UPDATE webhooks SET n_failures = n_failures "
                               "+ ?3, last_failure_at = ?4, "
                               "last_failure_combat = ?2, last_error = ?5 "
                               "WHERE campaign_id = ?1",
                         &st, e)))
        goto out;
    db_bind_text(st, 1, campaign_id);
    db_bind_text(st, 2, combat_id);
    db_bind_int64(st, 3, n);
    db_bind_text(st, 4, at);
    if (error != NULL) {
        snprintf(cut, sizeof cut, "%s", error);
        db_bind_text_copy(st, 5, cut);
    }
    rc = db_step_done(c, st, e, "count a post");
out:
    db_done(st);
    return rc;
}

err_code db_webhook_settle(db_conn *c, const db_webhook_post *p,
                           const char *error, const char *at, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;
    int n = 0;

    if ((rc = db_prepare(c, "DELETE FROM webhook_posts WHERE seq = ?", &st, e)))
        goto out;
    db_bind_int64(st, 1, p->seq);
    if ((rc = db_step_done(c, st, e, "settle a post")) == ERR_OK)
        n = db_changes(c);
    db_done(st);
    st = NULL;
    /* Gone already: its webhook was removed, and nothing is left to
     * count it on. */
    if (rc == ERR_OK && n > 0)
        rc = count_outcome(c, p->campaign_id, p->combat_id, 1, error, at, e);
out:
    db_done(st);
    return rc;
}

err_code db_webhook_drop(db_conn *c, const char *campaign_id, long long keep,
                         const char *error, const char *at,
                         long long *n_dropped, err_info *e)
{
    char last[DB_ID_MAX] = "";
    db_stmt *st = NULL;
    err_code rc;

    *n_dropped = 0;
    /* The newest post dropped names the failure. */
    if ((rc = db_prepare(c,
                         "SELECT combat_id FROM webhook_posts "
                         "WHERE campaign_id = ?1 ORDER BY seq DESC "
                         "LIMIT 1 OFFSET ?2",
                         &st, e)))
        goto out;
    db_bind_text(st, 1, campaign_id);
    db_bind_int64(st, 2, keep < 0 ? 0 : keep);
    if (db_step(st) == DB_ROW)
        db_column_copy(st, 0, last, sizeof last);
    db_done(st);
    st = NULL;
    if (last[0] == '\0')
        goto out;
    if ((rc = db_prepare(c,
                         "DELETE FROM webhook_posts WHERE campaign_id = ?1 "
                         "AND seq NOT IN (SELECT seq FROM webhook_posts "
                         "WHERE campaign_id = ?1 ORDER BY seq DESC LIMIT ?2)",
                         &st, e)))
        goto out;
    db_bind_text(st, 1, campaign_id);
    db_bind_int64(st, 2, keep < 0 ? 0 : keep);
    if ((rc = db_step_done(c, st, e, "drop posts")))
        goto out;
    *n_dropped = db_changes(c);
    if (*n_dropped > 0)
        rc = count_outcome(c, campaign_id, last, *n_dropped, error, at, e);
out:
    db_done(st);
    return rc;
}
