/*
 * commitments.c: seeds drawn ahead of the combats that use them, in SQL
 * (docs/dice.md, "Commitments ahead of the combat"); declared in db.h.
 */
#include "db_sql.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "rng.h"

#define COMMITMENT_COLUMNS                                                     \
    "commitment, seed, campaign_id, created_at, used_at, used_by "

static void read_commitment(db_stmt *st, void *elem)
{
    db_commitment *k = elem;

    db_column_copy(st, 0, k->commitment, sizeof k->commitment);
    db_column_copy(st, 1, k->seed, sizeof k->seed);
    db_column_copy(st, 2, k->campaign_id, sizeof k->campaign_id);
    db_column_copy(st, 3, k->created_at, sizeof k->created_at);
    db_column_copy(st, 4, k->used_at, sizeof k->used_at);
    db_column_copy(st, 5, k->used_by, sizeof k->used_by);
}

err_code db_commitment_new(db_conn *c, const char *campaign_id,
                           db_commitment *out, err_info *e)
{
    uint8_t seed[RNG_SEED_LEN];
    db_stmt *st = NULL;
    err_code rc;

    memset(out, 0, sizeof *out);
    randombytes_buf(seed, sizeof seed);
    rng_hex(seed, sizeof seed, out->seed);
    rng_commitment(seed, out->commitment);
    sodium_memzero(seed, sizeof seed);
    snprintf(out->campaign_id, sizeof out->campaign_id, "%s",
             campaign_id ? campaign_id : "");
    db_now(out->created_at);
    if ((rc = db_prepare(c,
                         "INSERT INTO commitments (commitment, seed, "
                         "campaign_id, created_at) VALUES (?,?,?,?)",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, out->commitment);
    db_bind_text(st, 2, out->seed);
    db_bind_text_or_null(st, 3, out->campaign_id);
    db_bind_text(st, 4, out->created_at);
    rc = db_step_done(c, st, e, "insert commitment");
    db_done(st);
    return rc;
}

/* The one row st (bound) gives, into out; ERR_NOT_FOUND for none. */
static err_code read_one(db_conn *c, db_stmt *st, db_commitment *out,
                         err_info *e)
{
    err_code rc = ERR_OK;
    int step = db_step(st);

    memset(out, 0, sizeof *out);
    if (step == DB_ROW)
        read_commitment(st, out);
    else if (step == DB_DONE)
        rc = err_set(e, ERR_NOT_FOUND, NULL, "no such commitment");
    else
        rc = db_fail(c, e, "read commitment");
    db_done(st);
    return rc;
}

err_code db_commitment_get(db_conn *c, const char *commitment,
                           db_commitment *out, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c,
                         "SELECT " COMMITMENT_COLUMNS
                         "FROM commitments WHERE commitment = ?",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, commitment);
    return read_one(c, st, out, e);
}

err_code db_commitment_next(db_conn *c, const char *campaign_id,
                            db_commitment *out, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c,
                         "SELECT " COMMITMENT_COLUMNS
                         "FROM commitments WHERE campaign_id = ? AND "
                         "used_at IS NULL",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    return read_one(c, st, out, e);
}

err_code db_commitment_use(db_conn *c, const char *commitment,
                           const char *used_by, const char *at, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c,
                         "UPDATE commitments SET used_at = ?, used_by = ? "
                         "WHERE commitment = ? AND used_at IS NULL",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, at);
    db_bind_text(st, 2, used_by);
    db_bind_text(st, 3, commitment);
    if ((rc = db_step_done(c, st, e, "use commitment")) == ERR_OK &&
        db_changes(c) != 1)
        rc = err_set(e, ERR_CONFLICT, "dice.commitment",
                     "the commitment %s was used by another combat first, "
                     "or has expired",
                     commitment);
    db_done(st);
    return rc;
}

err_code db_commitment_spend(db_conn *c, const char *commitment, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c,
                         "DELETE FROM commitments WHERE commitment = ? AND "
                         "campaign_id IS NOT NULL AND used_at IS NULL",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, commitment);
    if ((rc = db_step_done(c, st, e, "spend commitment")) == ERR_OK &&
        db_changes(c) != 1)
        rc = err_set(e, ERR_CONFLICT, "dice.commitment",
                     "the commitment %s was used by another combat first",
                     commitment);
    db_done(st);
    return rc;
}

err_code db_commitments_purge(db_conn *c, const char *before, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c,
                         "DELETE FROM commitments WHERE campaign_id IS NULL "
                         "AND used_at IS NULL AND created_at < ?",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, before);
    rc = db_step_done(c, st, e, "purge commitments");
    db_done(st);
    return rc;
}
