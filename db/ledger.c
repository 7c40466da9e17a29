/*
 * ledger.c: the campaign ledger in SQL (docs/ledger.md): the chain's head
 * on the campaign (opened, moved, saved), and migration 5's chaining of
 * what was logged before; declared in db.h.  Its entries read back:
 * ledger_rows.c.  The content and hashes are core/ledger.c's.
 */
#include "db_sql.h"
#include "ledger_rows.h"
#include "unit_cache.h"
#include "writer_kept.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

err_code db_chain_open(db_conn *c, const char *campaign_id, db_chain *ch,
                       err_info *e)
{
    db_ledger_head kept;
    db_stmt *st = NULL;
    err_code rc;
    int step;

    memset(ch, 0, sizeof *ch);
    /* As the combats in flight leave it (db_snapshot_ahead). */
    if (db_ahead_chain(c, campaign_id, ch))
        return ERR_OK;
    /* A snapshot that read the campaign kept read its ledger with it. */
    if (db_snapshot_ledger(c, campaign_id, &kept)) {
        snprintf(ch->campaign_id, sizeof ch->campaign_id, "%s", campaign_id);
        ch->length = ch->length0 = kept.length;
        memcpy(ch->head, kept.head, sizeof ch->head);
        memcpy(ch->head0, kept.head, sizeof ch->head0);
        return ERR_OK;
    }
    if ((rc = db_prepare(c,
                         "SELECT ledger_length, ledger_head FROM campaigns "
                         "WHERE id = ?",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    step = db_step(st);
    if (step == DB_ROW) {
        snprintf(ch->campaign_id, sizeof ch->campaign_id, "%s", campaign_id);
        ch->length = ch->length0 = db_column_int64(st, 0);
        db_column_copy(st, 1, ch->head, sizeof ch->head);
        memcpy(ch->head0, ch->head, sizeof ch->head0);
    } else if (step == DB_DONE) {
        rc = err_set(e, ERR_NOT_FOUND, NULL, "no campaign %s", campaign_id);
    } else {
        rc = db_fail(c, e, "read the ledger's head");
    }
    db_done(st);
    return rc;
}

err_code db_chain_add(db_chain *ch, ledger_entry *en,
                      char prev[LEDGER_HASH_HEX], char hash[LEDGER_HASH_HEX],
                      err_info *e)
{
    err_code rc;
    uint8_t h[LEDGER_HASH_BYTES];

    en->campaign_id = ch->campaign_id;
    en->pos = ch->length + 1;
    if (!ch->has_head_raw) {
        ledger_unhex(ch->head, ch->head_raw);
        ch->has_head_raw = true;
    }
    if ((rc = ledger_hash_raw(en, ch->head_raw, h, e)))
        return rc;
    rng_hex(h, sizeof h, hash);
    memcpy(prev, ch->head, LEDGER_HASH_HEX);
    memcpy(ch->head, hash, LEDGER_HASH_HEX);
    memcpy(ch->head_raw, h, sizeof h);
    ch->length = en->pos;
    return ERR_OK;
}

/* Whether the ledger of ch's campaign is no longer where ch started. */
static err_code chain_moved(db_conn *c, const db_chain *ch, bool *is_moved,
                            err_info *e)
{
    db_chain now;
    err_code rc = db_chain_open(c, ch->campaign_id, &now, e);

    *is_moved = rc == ERR_OK &&
                (now.length != ch->length0 || strcmp(now.head, ch->head0) != 0);
    return rc;
}

err_code db_chain_is_at(db_conn *c, const db_chain *ch, long long version,
                        bool *is_at, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;
    int step;

    /* The row held until the commit (the combat's landing writes it):
     * a write that would not take the campaign's lock waits, and counts
     * after it, rather than between this read and the version the
     * landing leaves (db_campaign_landed_at). */
    *is_at = false;
    if ((rc = db_prepare(c,
                         "SELECT version, ledger_length, ledger_head FROM "
                         "campaigns WHERE id = ? FOR NO KEY UPDATE",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, ch->campaign_id);
    step = db_step(st);
    if (step == DB_ROW) {
        const char *head = (const char *)db_column_text(st, 2);
        *is_at = db_column_int64(st, 0) == version &&
                 db_column_int64(st, 1) == ch->length0 &&
                 strcmp(head ? head : "", ch->head0) == 0;
    } else if (step == DB_DONE) {
        rc = err_set(e, ERR_NOT_FOUND, NULL, "no campaign %s", ch->campaign_id);
    } else {
        rc = db_fail(c, e, "read the campaign's version and ledger");
    }
    db_done(st);
    return rc;
}

/* The head saved: by the writes of today's schema, counting the
 * campaign's version in the same write rather than by the trigger
 * campaign_version_self's second one; or (is_backfill) by migration 5's
 * chaining, before the version column (migration 12). */
static err_code chain_save(db_conn *c, const db_chain *ch, bool is_backfill,
                           long long version, bool *is_current, err_info *e)
{
    static const char *const sql[2][2] = {
        {"UPDATE campaigns SET ledger_length = ?1, ledger_head = ?2, "
         "version = version + 1 WHERE id = ?3",
         "UPDATE campaigns SET ledger_length = ?1, ledger_head = ?2, "
         "version = version + 1 WHERE id = ?3 AND version = ?8 AND "
         "ledger_length = ?9 AND ledger_head = ?10"},
        {"UPDATE campaigns SET ledger_length = ?1, ledger_head = ?2, "
         "version = version + 1, next_commitment = ?4, next_seed = ?5, "
         "next_created_at = ?6 WHERE id = ?3 AND next_commitment = ?7",
         "UPDATE campaigns SET ledger_length = ?1, ledger_head = ?2, "
         "version = version + 1, next_commitment = ?4, next_seed = ?5, "
         "next_created_at = ?6 WHERE id = ?3 AND next_commitment = ?7 AND "
         "version = ?8 AND ledger_length = ?9 AND ledger_head = ?10"}};
    bool is_spending = !is_backfill && ch->spent[0] != '\0',
         is_at = !is_backfill && version >= 0;
    long long now;
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c,
                         is_backfill ? "UPDATE campaigns SET ledger_length = "
                                       "?1, ledger_head = ?2 WHERE id = ?3"
                                     : sql[is_spending][is_at],
                         &st, e)))
        return rc;
    db_bind_int64(st, 1, ch->length);
    db_bind_text(st, 2, ch->head);
    db_bind_text(st, 3, ch->campaign_id);
    if (is_spending) {
        db_bind_text(st, 4, ch->next.commitment);
        db_bind_text(st, 5, ch->next.seed);
        db_bind_text(st, 6, ch->next.created_at);
        db_bind_text(st, 7, ch->spent);
    }
    /* At a version: and where the chain started.  A combat worked out
     * ahead of others in flight (pipeline.c) chains on the ledger they
     * leave, and spends the next commitment they leave: the last of them
     * to roll moved the head, and the last to draw one drew it (it is
     * stored only by that combat's landing), so together they say all
     * of them landed, seeded or entered. */
    if (is_at) {
        db_bind_int64(st, 8, version);
        db_bind_int64(st, 9, ch->length0);
        db_bind_text(st, 10, ch->head0);
    }
    rc = db_step_done(c, st, e, "save the ledger's head");
    if (is_current != NULL)
        *is_current = rc == ERR_OK && db_changes(c) == 1;
    /* Counted; at a version checked, the one it left is known. */
    if (rc == ERR_OK && !is_backfill && db_changes(c) == 1)
        db_keys_version_counted(c, ch->campaign_id, is_at ? version + 1 : 0);
    if (rc == ERR_OK && (is_spending || is_at) && db_changes(c) != 1) {
        /* At another version, or another ledger: not current (the
         * caller works it out again; nothing was written).  At this one,
         * or none asked: its commitment was spent first. */
        bool is_moved = false;
        if (is_at &&
            (rc = db_campaign_version(c, ch->campaign_id, &now, e)) == ERR_OK)
            is_moved = now != version;
        if (is_at && rc == ERR_OK && !is_moved)
            rc = chain_moved(c, ch, &is_moved, e);
        if (rc == ERR_OK && !is_moved)
            rc = db_commitment_spent_first(e, ch->spent);
    }
    db_done(st);
    return rc;
}

err_code db_chain_store(db_conn *c, const db_chain *ch, err_info *e)
{
    return chain_save(c, ch, false, -1, NULL, e);
}

err_code db_chain_store_at(db_conn *c, const db_chain *ch, long long version,
                           bool *is_current, err_info *e)
{
    return chain_save(c, ch, false, version, is_current, e);
}

err_code db_chain_save(db_conn *c, const db_chain *ch, err_info *e)
{
    err_code rc = chain_save(c, ch, false, -1, NULL, e);

    /* Logged where it moved, as the trigger did (where its head changed:
     * every entry changes it). */
    return rc || ch->length == ch->length0 ? rc : db_log_ledger(c, ch, e);
}

/* ---- migration 5 ---- */

/* What was logged before the ledger, in the order it was logged: a
 * combat's rolls at its time, a battle's actions at theirs (a battle's
 * record is left out: its dice are its actions). */
#define BACKFILL_SQL                                                           \
    "SELECT 0, NULL, c.created_at, c.id, r.seq, r.side_name, r.unit_id, "      \
    "r.unit_name, r.reason, r.faces, r.natural, r.modified, NULL, NULL, "      \
    "NULL, r.source, r.rng, c.commitment, c.client_seed, NULL, NULL "          \
    "FROM rolls r JOIN combats c ON c.id = r.combat_id "                       \
    "WHERE c.campaign_id = ?1 AND NOT EXISTS (SELECT 1 FROM battles b "        \
    "WHERE b.combat_id = c.id AND b.campaign_id = c.campaign_id) "             \
    "UNION ALL "                                                               \
    "SELECT 1, NULL, a.at, b.id, a.seq, NULL, NULL, NULL, NULL, 0, 0, 0, "     \
    "a.kind, a.naturals, a.detail, b.dice_source, "                            \
    "CASE b.dice_source WHEN 'seeded' THEN 'v1' END, b.commitment, "           \
    "b.client_seed, NULL, NULL FROM battle_actions a "                         \
    "JOIN battles b ON b.id = a.battle_id WHERE b.campaign_id = ?1 "           \
    "ORDER BY 3, 4, 5"

static err_code backfill_store(db_conn *c, const db_ledger_row *r,
                               const char *prev, const char *hash, err_info *e)
{
    static const char *const sql[2] = {
        "UPDATE rolls SET ledger_pos = ?, prev_hash = ?, hash = ? "
        "WHERE combat_id = ? AND seq = ?",
        "UPDATE battle_actions SET ledger_pos = ?, prev_hash = ?, hash = ? "
        "WHERE battle_id = ? AND seq = ?"};
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c, sql[r->kind == LEDGER_ACTION], &st, e)))
        return rc;
    db_bind_int64(st, 1, r->pos);
    db_bind_text(st, 2, prev);
    db_bind_text(st, 3, hash);
    db_bind_text(st, 4, r->record_id);
    db_bind_int(st, 5, r->seq);
    rc = db_step_done(c, st, e, "chain an earlier entry");
    db_done(st);
    return rc;
}

/* An entry's record, its seq, and its place in the logged order. */
typedef struct slot_key {
    const char *record;
    int seq;
    size_t index;
} slot_key;

static int by_record_then_place(const void *a, const void *b)
{
    const slot_key *x = a, *y = b;
    int c = strcmp(x->record, y->record);

    return c ? c : (x->index > y->index) - (x->index < y->index);
}

static int by_record_then_seq(const void *a, const void *b)
{
    const slot_key *x = a, *y = b;
    int c = strcmp(x->record, y->record);

    return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

/*
 * rows are in logged order, by the time each was logged.  Should the clock
 * have stepped back between two actions of one battle, that order would
 * put them out of seq, and the dice could never be re-derived: each
 * record's entries are put back in seq order within the places the record
 * holds, the other records' places untouched.
 */
static err_code order_within_records(db_ledger_row *rows, size_t n, err_info *e)
{
    slot_key *places, *order;
    db_ledger_row *copy;
    size_t i;
    err_code rc = ERR_OK;

    if (n == 0)
        return ERR_OK; /* a campaign that never rolled: rows is NULL */
    places = malloc(n * sizeof *places);
    order = malloc(n * sizeof *order);
    copy = malloc(n * sizeof *copy);
    if (places == NULL || order == NULL || copy == NULL) {
        rc = err_set(e, ERR_NOMEM, NULL, "out of memory");
        goto out;
    }
    for (i = 0; i < n; i++) {
        places[i].record = rows[i].record_id;
        places[i].seq = rows[i].seq;
        places[i].index = i;
        order[i] = places[i];
    }
    qsort(places, n, sizeof *places, by_record_then_place);
    qsort(order, n, sizeof *order, by_record_then_seq);
    /* Both sorts group the records alike: the k-th place of a record
     * takes its k-th entry by seq. */
    for (i = 0; i < n; i++)
        copy[places[i].index] = rows[order[i].index];
    memcpy(rows, copy, n * sizeof *rows);
out:
    free(places);
    free(order);
    free(copy);
    return rc;
}

static err_code backfill_campaign(db_conn *c, const char *campaign_id,
                                  err_info *e)
{
    db_stmt *st = NULL;
    db_ledger_row *rows = NULL;
    db_commitment next;
    db_chain ch;
    void *p;
    size_t n = 0, i;
    err_code rc;

    if ((rc = db_prepare(c, BACKFILL_SQL, &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    if ((rc = db_read_rows(c, st, sizeof *rows, db_ledger_read_row,
                           db_ledger_release_rows, &p, &n,
                           "read the earlier log", e)))
        return rc;
    rows = p;
    if ((rc = order_within_records(rows, n, e)) ||
        (rc = db_chain_open(c, campaign_id, &ch, e)))
        goto out;
    for (i = 0; i < n; i++) {
        ledger_entry en;
        char prev[LEDGER_HASH_HEX], hash[LEDGER_HASH_HEX];
        db_ledger_row_entry(&rows[i], campaign_id, &en);
        if ((rc = db_chain_add(&ch, &en, prev, hash, e)))
            goto out;
        rows[i].pos = en.pos;
        if ((rc = backfill_store(c, &rows[i], prev, hash, e)))
            goto out;
    }
    if ((rc = chain_save(c, &ch, true, -1, NULL, e)))
        goto out;
    rc = db_commitment_new_row(c, campaign_id, &next, e);
out:
    db_ledger_rows_free(rows, n);
    return rc;
}

err_code db_ledger_backfill(db_conn *c, err_info *e)
{
    db_stmt *st = NULL;
    char(*ids)[DB_ID_MAX] = NULL;
    size_t n = 0, cap = 0, i;
    err_code rc = ERR_OK;
    int step;

    if ((rc = db_prepare(c, "SELECT id FROM campaigns ORDER BY created_at", &st,
                         e)))
        return rc;
    while ((step = db_step(st)) == DB_ROW) {
        if (n == cap) {
            void *grown = realloc(ids, (cap ? cap * 2 : 16) * sizeof *ids);
            if (grown == NULL) {
                rc = err_set(e, ERR_NOMEM, NULL, "out of memory");
                break;
            }
            ids = grown;
            cap = cap ? cap * 2 : 16;
        }
        db_column_copy(st, 0, ids[n++], DB_ID_MAX);
    }
    if (rc == ERR_OK && step != DB_DONE)
        rc = db_fail(c, e, "list the campaigns");
    db_done(st);
    for (i = 0; rc == ERR_OK && i < n; i++)
        rc = backfill_campaign(c, ids[i], e);
    free(ids);
    return rc;
}
