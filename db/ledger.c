/*
 * ledger.c: the campaign ledger in SQL (docs/ledger.md): the chain's head
 * on the campaign, its entries on the rolls and battle actions that hold
 * the dice, and migration 5's chaining of what was logged before; declared
 * in db.h.  The content and hashes are core/ledger.c's.
 */
#include "db_sql.h"
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
         "version = ?8"}};
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
    /* At a version: and, spending no commitment, where the chain
     * started.  A combat worked out ahead of others in flight (pipeline.c)
     * chains on the head they leave, and spends the commitment the last
     * of them drew: either says they landed (that commitment is stored
     * only by its combat's landing). */
    if (is_at)
        db_bind_int64(st, 8, version);
    if (is_at && !is_spending) {
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

/* Both kinds of entry of one campaign, with their record's dice; the
 * order of the columns is read_ledger_row's.  A battle's rng is "v1" for
 * seeded dice (battles store no rng of their own).  A combat whose rolls
 * are packed (in its row with ledger_first: migrations 15 and 22) is one
 * row, kind 2, at its first roll's place, the packed rolls its last
 * column: read_entries
 * makes an entry of each.  That part comes first: PostgreSQL types each
 * column of a UNION from its parts in order, and a NULL before the bytes
 * would make it text. */
#define LEDGER_ROWS_SQL                                                        \
    "SELECT 2, c.ledger_first, c.created_at, c.id, 0, NULL, NULL, NULL, "      \
    "NULL, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, c.commitment, "              \
    "c.client_seed, NULL, NULL, c.rolls FROM combats c "                       \
    "WHERE c.campaign_id = ?1 AND c.ledger_first IS NOT NULL "                 \
    "UNION ALL "                                                               \
    "SELECT 0, r.ledger_pos, c.created_at, c.id, r.seq, r.side_name, "         \
    "r.unit_id, r.unit_name, r.reason, r.faces, r.natural, r.modified, "       \
    "NULL, NULL, NULL, r.source, r.rng, c.commitment, c.client_seed, "         \
    "r.prev_hash, r.hash, NULL FROM rolls r JOIN combats c "                   \
    "ON c.id = r.combat_id "                                                   \
    "WHERE c.campaign_id = ?1 AND r.ledger_pos IS NOT NULL "                   \
    "UNION ALL "                                                               \
    "SELECT 1, a.ledger_pos, a.at, b.id, a.seq, NULL, NULL, NULL, NULL, 0, "   \
    "0, 0, a.kind, a.naturals, a.detail, b.dice_source, "                      \
    "CASE b.dice_source WHEN 'seeded' THEN 'v1' END, b.commitment, "           \
    "b.client_seed, a.prev_hash, a.hash, NULL FROM battle_actions a "          \
    "JOIN battles b ON b.id = a.battle_id "                                    \
    "WHERE b.campaign_id = ?1 AND a.ledger_pos IS NOT NULL "                   \
    "ORDER BY 2"

/* A stored dice list into a new array *out (NULL for none): the count,
 * or -1 when it cannot be read (or memory is short: the entry then fails
 * its check, which is reported, rather than passing unchecked). */
static int read_naturals(const char *text, int **out)
{
    size_t cap = 1;
    const char *p;
    int n;

    for (p = text; *p; p++)
        cap += *p == ',';
    if (cap > LEDGER_MAX_NATURALS)
        return -1;
    if ((*out = malloc(cap * sizeof **out)) == NULL)
        return -1;
    n = ledger_parse_naturals(text, *out, cap);
    return n;
}

static void read_ledger_row(db_stmt *st, void *elem)
{
    db_ledger_row *r = elem;
    const char *naturals;

    r->kind = db_column_int(st, 0) ? LEDGER_ACTION : LEDGER_ROLL;
    r->pos = db_column_int64(st, 1);
    db_column_copy(st, 2, r->at, sizeof r->at);
    db_column_copy(st, 3, r->record_id, sizeof r->record_id);
    r->seq = db_column_int(st, 4);
    db_column_copy(st, 5, r->side, sizeof r->side);
    db_column_copy(st, 6, r->unit_id, sizeof r->unit_id);
    db_column_copy(st, 7, r->unit, sizeof r->unit);
    db_column_copy(st, 8, r->reason, sizeof r->reason);
    r->faces = db_column_int(st, 9);
    r->natural = db_column_int(st, 10);
    r->modified = db_column_int(st, 11);
    db_column_copy(st, 12, r->action, sizeof r->action);
    naturals = (const char *)db_column_text(st, 13);
    r->n_naturals = naturals ? read_naturals(naturals, &r->naturals) : 0;
    r->detail = db_column_dup(st, 14);
    db_column_copy(st, 15, r->source, sizeof r->source);
    db_column_copy(st, 16, r->rng, sizeof r->rng);
    db_column_copy(st, 17, r->commitment, sizeof r->commitment);
    r->client_seed = db_column_dup(st, 18);
    db_column_copy(st, 19, r->prev_hash, sizeof r->prev_hash);
    db_column_copy(st, 20, r->hash, sizeof r->hash);
}

/* A roll stored without its previous hash (insert_rolls stores none
 * where it is the hash of the roll before in its combat) takes it from
 * the entry before it, when that one is that roll: the same combat, the
 * seq and the place before.  Otherwise it stays without, and the entry
 * does not link (ledger_check says so). */
static void prev_from(db_ledger_row *r, const db_ledger_row *before)
{
    if (r->kind == LEDGER_ROLL && r->prev_hash[0] == '\0' && before != NULL &&
        before->kind == LEDGER_ROLL && before->pos == r->pos - 1 &&
        before->seq == r->seq - 1 &&
        strcmp(before->record_id, r->record_id) == 0)
        memcpy(r->prev_hash, before->hash, sizeof r->prev_hash);
}

static void release_rows(void *rows, size_t n)
{
    db_ledger_row *r = rows;
    size_t i;

    for (i = 0; i < n; i++) {
        free(r[i].naturals);
        free(r[i].detail);
        free(r[i].client_seed);
    }
}

/* A new entry, zeroed, at the end of *rows (*n of *cap); NULL when out
 * of memory. */
static db_ledger_row *new_row(db_ledger_row **rows, size_t *n, size_t *cap)
{
    db_ledger_row *row;

    if (*n == *cap) {
        size_t want = *cap ? *cap * 2 : 64;
        db_ledger_row *more = realloc(*rows, want * sizeof *more);
        if (more == NULL)
            return NULL;
        *rows = more;
        *cap = want;
    }
    row = &(*rows)[(*n)++];
    memset(row, 0, sizeof *row);
    return row;
}

/* A new entry read from LEDGER_ROWS_SQL's row at st (read_ledger_row);
 * NULL when out of memory. */
static db_ledger_row *append_row(db_stmt *st, db_ledger_row **rows, size_t *n,
                                 size_t *cap)
{
    db_ledger_row *row = new_row(rows, n, cap);

    if (row != NULL)
        read_ledger_row(st, row);
    return row;
}

/* The entries of LEDGER_ROWS_SQL's row at st appended to *rows (*n of
 * *cap): the row itself, or (kind 2) each roll packed in it, with the
 * combat's time, id and dice (read from st for the first, copied from
 * the first for the others).  Packed rolls that do not read are one
 * entry at their first place with no hash: it fails its check, which is
 * reported, rather than leaving a gap.  (A value of an older layout too
 * large to inflate in the memory left reads the same way: its text is
 * NULL either way; a second verify tells.) */
static err_code read_entries(db_stmt *st, db_ledger_row **rows, size_t *n,
                             size_t *cap, err_info *e)
{
    db_roll *rolls = NULL;
    size_t n_rolls = 0, i, first;
    db_ledger_row *row;
    err_code rc;

    if (db_column_int(st, 0) != 2)
        return append_row(st, rows, n, cap)
                   ? ERR_OK
                   : err_set(e, ERR_NOMEM, NULL, "out of memory");
    rc = db_column_rolls_read(st, 21, db_column_int64(st, 1), NULL, &rolls,
                              &n_rolls, e);
    if (rc == ERR_NOMEM)
        return rc;
    if (rc != ERR_OK || n_rolls == 0) {
        err_clear(e);
        free(rolls);
        if ((row = append_row(st, rows, n, cap)) == NULL)
            return err_set(e, ERR_NOMEM, NULL, "out of memory");
        row->kind = LEDGER_ROLL;
        return ERR_OK;
    }
    first = *n;
    for (i = 0; i < n_rolls; i++) {
        const db_roll *r = &rolls[i];
        row = i == 0 ? append_row(st, rows, n, cap) : new_row(rows, n, cap);
        if (row != NULL && i > 0) {
            const db_ledger_row *f = &(*rows)[first];
            *row = *f; /* no naturals or detail: a roll's */
            row->client_seed = NULL;
            if (f->client_seed != NULL &&
                (row->client_seed = strdup(f->client_seed)) == NULL)
                row = NULL;
        }
        if (row == NULL) {
            free(rolls);
            return err_set(e, ERR_NOMEM, NULL, "out of memory");
        }
        row->kind = LEDGER_ROLL;
        row->pos = r->ledger_pos;
        row->seq = r->seq;
        memcpy(row->side, r->side_name, sizeof row->side);
        memcpy(row->unit_id, r->unit_id, sizeof row->unit_id);
        memcpy(row->unit, r->unit_name, sizeof row->unit);
        memcpy(row->reason, r->reason, sizeof row->reason);
        row->faces = r->faces;
        row->natural = r->natural;
        row->modified = r->modified;
        memcpy(row->source, r->source, sizeof row->source);
        memcpy(row->rng, r->rng, sizeof row->rng);
        memcpy(row->prev_hash, r->prev_hash, sizeof row->prev_hash);
        memcpy(row->hash, r->hash, sizeof row->hash);
    }
    free(rolls);
    return ERR_OK;
}

err_code db_ledger_rows(db_conn *c, const char *campaign_id,
                        db_ledger_row **out, size_t *n, err_info *e)
{
    db_stmt *st = NULL;
    size_t cap = 0, i;
    err_code rc;
    int step = DB_DONE;

    *out = NULL;
    *n = 0;
    if ((rc = db_prepare(c, LEDGER_ROWS_SQL, &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    while (rc == ERR_OK && (step = db_step(st)) == DB_ROW)
        rc = read_entries(st, out, n, &cap, e);
    if (rc == ERR_OK && step != DB_DONE)
        rc = db_fail(c, e, "read the ledger");
    db_done(st);
    if (rc != ERR_OK) {
        db_ledger_rows_free(*out, *n);
        *out = NULL;
        *n = 0;
        return rc;
    }
    for (i = 1; i < *n; i++)
        prev_from(&(*out)[i], &(*out)[i - 1]);
    return rc;
}

void db_ledger_rows_free(db_ledger_row *rows, size_t n)
{
    if (rows == NULL)
        return;
    release_rows(rows, n);
    free(rows);
}

void db_ledger_row_entry(const db_ledger_row *row, const char *campaign_id,
                         ledger_entry *en)
{
    memset(en, 0, sizeof *en);
    en->kind = row->kind;
    en->campaign_id = campaign_id;
    en->pos = row->pos;
    en->at = row->at;
    en->record_id = row->record_id;
    en->seq = row->seq;
    en->side = row->side;
    en->unit_id = row->unit_id;
    en->unit = row->unit;
    en->reason = row->reason;
    en->faces = row->faces;
    en->natural = row->natural;
    en->modified = row->modified;
    en->action = row->action;
    en->naturals = row->naturals;
    en->n_naturals = row->n_naturals > 0 ? (size_t)row->n_naturals : 0;
    en->detail = row->detail;
    en->source = row->source;
    en->rng = row->rng;
    en->commitment = row->commitment;
    en->client_seed = row->client_seed;
    en->prev_hash = row->prev_hash;
    en->hash = row->hash;
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
    if ((rc = db_read_rows(c, st, sizeof *rows, read_ledger_row, release_rows,
                           &p, &n, "read the earlier log", e)))
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

static void read_unchained(db_stmt *st, void *elem)
{
    char *out = elem;

    snprintf(out, DB_ID_MAX + 16, "%s#%d", (const char *)db_column_text(st, 0),
             db_column_int(st, 1));
}

err_code db_ledger_unchained(db_conn *c, const char *campaign_id,
                             char (**out)[DB_ID_MAX + 16], size_t *n,
                             err_info *e)
{
    db_stmt *st = NULL;
    void *rows;
    err_code rc;

    *out = NULL;
    *n = 0;
    if ((rc =
             db_prepare(c,
                        "SELECT r.combat_id, r.seq FROM rolls r JOIN "
                        "combats c ON c.id = r.combat_id WHERE "
                        "c.campaign_id = ? AND r.ledger_pos IS NULL AND "
                        "NOT EXISTS (SELECT 1 FROM battles b WHERE "
                        "b.combat_id = c.id AND b.campaign_id = c.campaign_id) "
                        "ORDER BY c.rowid, r.seq",
                        &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    rc = db_read_rows(c, st, sizeof **out, read_unchained, NULL, &rows, n,
                      "find rolls outside the ledger", e);
    *out = rows;
    return rc;
}

/* ---- the export, read as it is sent ---- */

/* The records whose dice seed the ledger's entries, as the export lists
 * them: the campaign's combats that have entries (a battle's record has
 * none: its actions do), in the order they were written, then its
 * battles, an open one's seed withheld.  The columns: id, source,
 * commitment, seed, client seed. */
static const char *const ledger_seeds_sql[2] = {
    "SELECT c.id, c.dice_source, c.commitment, c.server_seed, c.client_seed "
    "FROM combats c WHERE c.campaign_id = ?1 AND (c.ledger_first IS NOT "
    "NULL OR EXISTS (SELECT 1 FROM rolls r WHERE r.combat_id = c.id AND "
    "r.ledger_pos IS NOT NULL)) ORDER BY c.rowid",
    "SELECT b.id, b.dice_source, b.commitment, CASE b.status WHEN 'open' "
    "THEN NULL ELSE b.server_seed END, b.client_seed FROM battles b "
    "WHERE b.campaign_id = ?1 ORDER BY b.created_at, b.rowid"};

struct db_ledger_cursor {
    db_conn *c;
    /* The cursor's own statements, finalized at close; seed_part the one
     * of seeds being read. */
    db_stmt *entries, *seeds[2];
    int seed_part;
    /* The keys and hash of the entry read last (prev_from), kind
     * LEDGER_ACTION before any. */
    db_ledger_row last;
    /* The entries of the row read last (read_entries: a combat's packed
     * rolls, each), given one by one: [next, n_pending) still to give. */
    db_ledger_row *pending;
    size_t n_pending, next, cap;
};

err_code db_ledger_cursor_open(db_conn *c, const char *campaign_id,
                               db_ledger_cursor **out, err_info *e)
{
    db_ledger_cursor *cur = calloc(1, sizeof *cur);
    int i;

    *out = NULL;
    if (cur == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    cur->c = c;
    cur->last.kind = LEDGER_ACTION; /* none read yet */
    /* Statements of its own (not the connection's shared ones): they stay
     * open between the turns of a stream. */
    {
        err_code rc;
        if ((rc = db_prepare_own(c, LEDGER_ROWS_SQL, &cur->entries, e)) ||
            (rc = db_prepare_own(c, ledger_seeds_sql[0], &cur->seeds[0], e)) ||
            (rc = db_prepare_own(c, ledger_seeds_sql[1], &cur->seeds[1], e))) {
            db_ledger_cursor_close(cur);
            return rc;
        }
    }
    db_bind_text(cur->entries, 1, campaign_id);
    for (i = 0; i < 2; i++)
        db_bind_text(cur->seeds[i], 1, campaign_id);
    *out = cur;
    return ERR_OK;
}

int db_ledger_cursor_entry(db_ledger_cursor *cur, db_ledger_row *row,
                           err_info *e)
{
    int step = DB_ROW;

    if (cur->next == cur->n_pending) {
        cur->next = cur->n_pending = 0;
        if ((step = db_step(cur->entries)) == DB_ROW &&
            read_entries(cur->entries, &cur->pending, &cur->n_pending,
                         &cur->cap, e) != ERR_OK)
            return -1;
    }
    if (step == DB_ROW) {
        /* Moved out: its strings are the caller's now. */
        *row = cur->pending[cur->next++];
        prev_from(row, &cur->last);
        cur->last.kind = row->kind;
        cur->last.pos = row->pos;
        cur->last.seq = row->seq;
        memcpy(cur->last.record_id, row->record_id, sizeof row->record_id);
        memcpy(cur->last.hash, row->hash, sizeof row->hash);
        return 1;
    }
    if (step == DB_DONE)
        return 0;
    db_fail(cur->c, e, "read the ledger");
    return -1;
}

void db_ledger_row_clear(db_ledger_row *row)
{
    release_rows(row, 1);
    memset(row, 0, sizeof *row);
}

int db_ledger_cursor_seed(db_ledger_cursor *cur, db_ledger_seed *seed,
                          err_info *e)
{
    while (cur->seed_part < 2) {
        db_stmt *st = cur->seeds[cur->seed_part];
        int step = db_step(st);

        if (step == DB_DONE) {
            cur->seed_part++;
            continue;
        }
        if (step != DB_ROW) {
            db_fail(cur->c, e, "read the ledger's seeds");
            return -1;
        }
        memset(seed, 0, sizeof *seed);
        seed->is_battle = cur->seed_part == 1;
        db_column_copy(st, 0, seed->id, sizeof seed->id);
        db_column_copy(st, 1, seed->source, sizeof seed->source);
        db_column_copy(st, 2, seed->commitment, sizeof seed->commitment);
        db_column_copy(st, 3, seed->seed, sizeof seed->seed);
        seed->client_seed = db_column_dup(st, 4);
        return 1;
    }
    return 0;
}

void db_ledger_cursor_close(db_ledger_cursor *cur)
{
    if (cur == NULL)
        return;
    db_finalize(cur->entries);
    db_finalize(cur->seeds[0]);
    db_finalize(cur->seeds[1]);
    if (cur->pending != NULL)
        release_rows(cur->pending + cur->next, cur->n_pending - cur->next);
    free(cur->pending);
    free(cur);
}
