/*
 * idempotency.c: the first response to each request that rolled dice,
 * by its Idempotency-Key, in SQL; declared in db.h.
 */
#include "db_sql.h"

#include <stdlib.h>
#include <string.h>

err_code db_idem_get(db_conn *c, const char *scope, const char *key,
                     const char *since, db_idem *out, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;
    int step;

    memset(out, 0, sizeof *out);
    if ((rc = db_prepare(c,
                         "SELECT fingerprint, created_at, status, location, "
                         "render, body FROM idempotency_keys "
                         "WHERE scope = ? AND key = ? AND created_at >= ?",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, scope);
    db_bind_text(st, 2, key);
    db_bind_text(st, 3, since);
    step = db_step(st);
    if (step == DB_ROW) {
        db_column_copy(st, 0, out->fingerprint, sizeof out->fingerprint);
        db_column_copy(st, 1, out->created_at, sizeof out->created_at);
        out->status = db_column_int(st, 2);
        db_column_copy(st, 3, out->location, sizeof out->location);
        db_column_copy(st, 4, out->render, sizeof out->render);
        out->body = db_column_dup(st, 5);
        if (out->body == NULL)
            rc = err_set(e, ERR_NOMEM, NULL, "out of memory");
    } else if (step == DB_DONE) {
        rc = err_set(e, ERR_NOT_FOUND, NULL, "no such idempotency key");
    } else {
        rc = db_fail(c, e, "read idempotency key");
    }
    db_done(st);
    return rc;
}

err_code db_idem_insert(db_conn *c, const db_idem *k, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c,
                         "INSERT INTO idempotency_keys (scope, key, "
                         "fingerprint, created_at, status, location, render, "
                         "body) VALUES (?,?,?,?,?,?,?,?)",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, k->scope);
    db_bind_text(st, 2, k->key);
    db_bind_text(st, 3, k->fingerprint);
    db_bind_text(st, 4, k->created_at);
    db_bind_int(st, 5, k->status);
    db_bind_text_or_null(st, 6, k->location);
    db_bind_text_or_null(st, 7, k->render);
    db_bind_text(st, 8, k->body ? k->body : "");
    rc = db_step_done(c, st, e, "insert idempotency key");
    db_done(st);
    return rc;
}

err_code db_idem_purge(db_conn *c, const char *before, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c, "DELETE FROM idempotency_keys WHERE created_at < ?",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, before);
    rc = db_step_done(c, st, e, "purge idempotency keys");
    db_done(st);
    return rc;
}

void db_idem_cleanup(db_idem *k)
{
    if (k == NULL)
        return;
    free(k->body);
    k->body = NULL;
}
