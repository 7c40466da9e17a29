/*
 * commitments.c: seeds drawn ahead of the combats that use them, in SQL
 * (docs/dice.md, "Commitments ahead of the combat"); declared in db.h.
 */
#include "db_sql.h"
#include "unit_cache.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "rng.h"
#include "unit_cache.h"
#include "writer_kept.h"

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

void db_commitment_draw(const char *campaign_id, db_commitment *out)
{
    uint8_t seed[RNG_SEED_LEN];

    memset(out, 0, sizeof *out);
    randombytes_buf(seed, sizeof seed);
    rng_hex(seed, sizeof seed, out->seed);
    rng_commitment(seed, out->commitment);
    sodium_memzero(seed, sizeof seed);
    snprintf(out->campaign_id, sizeof out->campaign_id, "%s",
             campaign_id ? campaign_id : "");
    db_now(out->created_at);
}

err_code db_commitment_new_row(db_conn *c, const char *campaign_id,
                               db_commitment *out, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    db_commitment_draw(campaign_id, out);
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

/* The campaign's next commitment set to out, drawn, where it is spent
 * (NULL: where it has none); the campaign's version counted in the same
 * write.  ERR_CONFLICT when it is not (spent by another first). */
static err_code set_next(db_conn *c, const char *campaign_id, const char *spent,
                         db_commitment *out, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    db_commitment_draw(campaign_id, out);
    if ((rc = db_prepare(c,
                         spent ? "UPDATE campaigns SET next_commitment = ?1, "
                                 "next_seed = ?2, next_created_at = ?3, "
                                 "version = version + 1 WHERE id = ?4 AND "
                                 "next_commitment = ?5"
                               : "UPDATE campaigns SET next_commitment = ?1, "
                                 "next_seed = ?2, next_created_at = ?3, "
                                 "version = version + 1 WHERE id = ?4 AND "
                                 "next_commitment IS NULL",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, out->commitment);
    db_bind_text(st, 2, out->seed);
    db_bind_text(st, 3, out->created_at);
    db_bind_text(st, 4, campaign_id);
    if (spent)
        db_bind_text(st, 5, spent);
    if ((rc = db_step_done(c, st, e, "draw the next commitment")) == ERR_OK &&
        db_changes(c) == 1)
        db_keys_version_counted(c, campaign_id, 0);
    else if (rc == ERR_OK)
        rc = spent ? db_commitment_spent_first(e, spent)
                   : err_set(e, ERR_CONFLICT, NULL,
                             "campaign %s has a next commitment already, or "
                             "is not there",
                             campaign_id);
    db_done(st);
    if (rc != ERR_OK)
        sodium_memzero(out->seed, sizeof out->seed);
    return rc;
}

void db_chain_spend(db_chain *ch, const char *spent)
{
    snprintf(ch->spent, sizeof ch->spent, "%s", spent);
    db_commitment_draw(ch->campaign_id, &ch->next);
}

err_code db_commitment_spent_first(err_info *e, const char *spent)
{
    return err_set(e, ERR_CONFLICT, "dice.commitment",
                   "the commitment %s was used by another combat first", spent);
}

err_code db_commitment_new(db_conn *c, const char *campaign_id,
                           db_commitment *out, err_info *e)
{
    if (campaign_id == NULL || campaign_id[0] == '\0')
        return db_commitment_new_row(c, NULL, out, e);
    return set_next(c, campaign_id, NULL, out, e);
}

err_code db_commitment_renew(db_conn *c, const char *campaign_id,
                             const char *spent, db_commitment *next,
                             err_info *e)
{
    return set_next(c, campaign_id, spent, next, e);
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

    /* As the combats in flight leave it; else read already, with the
     * campaign's version, in this snapshot. */
    if (db_ahead_next(c, campaign_id, out) ||
        db_snapshot_next(c, campaign_id, out))
        return ERR_OK;
    if ((rc = db_prepare(c,
                         "SELECT next_commitment, next_seed, id, "
                         "next_created_at, NULL, NULL FROM campaigns "
                         "WHERE id = ? AND next_commitment IS NOT NULL",
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
