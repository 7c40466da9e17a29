/*
 * log.c: the record of what happened: combats and their roll log, in SQL;
 * declared in db.h.  (Unit history events: unit_events_write.c.  A combat
 * packed to store, its report and roll log, before the writer: combat_pack.c.)
 * Prepared statements only; every statement is released (db_done) at its
 * function's single exit.  The rows written are the caller's until then,
 * so their text is bound without a copy (db_bind_text,
 * db_bind_text_or_null_borrowed).
 */
#include "db_sql.h"
#include "writer_kept.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A roll of cb as a ledger entry (docs/ledger.md), borrowing both. */
static void roll_entry(const db_combat *cb, const db_roll *r, ledger_entry *en)
{
    memset(en, 0, sizeof *en);
    en->kind = LEDGER_ROLL;
    en->at = cb->created_at;
    en->record_id = cb->id;
    en->seq = r->seq;
    en->side = r->side_name;
    en->unit_id = r->unit_id;
    en->unit = r->unit_name;
    en->reason = r->reason;
    en->faces = r->faces;
    en->natural = r->natural;
    en->modified = r->modified;
    en->source = r->source;
    en->rng = r->rng;
    en->commitment = cb->commitment;
    en->client_seed = cb->client_seed;
}

/* Chains rolls on ch: each one's place, previous hash and hash. */
static err_code chain_rolls(const db_combat *cb, db_roll *rolls, size_t n_rolls,
                            db_chain *ch, err_info *e)
{
    err_code rc = ERR_OK;
    size_t i;

    for (i = 0; i < n_rolls && rc == ERR_OK; i++) {
        db_roll *r = &rolls[i];
        ledger_entry en;
        roll_entry(cb, r, &en);
        rc = db_chain_add(ch, &en, r->prev_hash, r->hash, e);
        r->ledger_pos = en.pos;
    }
    return rc;
}

/* Inserts the rolls as they are (chained or not: ledger_pos 0). */
static err_code insert_rolls(db_conn *c, const db_combat *cb,
                             const db_roll *rolls, size_t n_rolls, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc = ERR_OK;
    size_t i;

    if ((rc = db_prepare(c,
                         "INSERT INTO rolls (combat_id, seq, side_name, "
                         "unit_id, unit_name, reason, faces, \"natural\", "
                         "modified, source, rng, ledger_pos, prev_hash, hash) "
                         "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                         &st, e)))
        return rc;
    for (i = 0; i < n_rolls; i++) {
        const db_roll *r = &rolls[i];
        db_reset(st);
        db_bind_text(st, 1, cb->id);
        db_bind_int(st, 2, r->seq);
        db_bind_text_or_null_borrowed(st, 3, r->side_name);
        db_bind_text_or_null_borrowed(st, 4, r->unit_id);
        db_bind_text_or_null_borrowed(st, 5, r->unit_name);
        db_bind_text(st, 6, r->reason);
        db_bind_int(st, 7, r->faces);
        db_bind_int(st, 8, r->natural);
        db_bind_int(st, 9, r->modified);
        db_bind_text(st, 10, r->source);
        db_bind_text_or_null_borrowed(st, 11, r->rng);
        if (r->ledger_pos > 0)
            db_bind_int64(st, 12, r->ledger_pos);
        else
            db_bind_null(st, 12);
        /* The previous hash only where it is not the hash of the roll
         * before in this combat: the ledger's read (ledger.c, prev_from)
         * takes that one's there. */
        db_bind_text_or_null_borrowed(
            st, 13,
            r->ledger_pos > 0 && !(i > 0 && rolls[i - 1].seq == r->seq - 1 &&
                                   rolls[i - 1].ledger_pos == r->ledger_pos - 1)
                ? r->prev_hash
                : "");
        db_bind_text_or_null_borrowed(st, 14, r->ledger_pos > 0 ? r->hash : "");
        if ((rc = db_step_done(c, st, e, "insert roll")))
            break;
    }
    db_done(st);
    return rc;
}

/* The combat's own row, with its packed rolls (a campaign combat's once
 * chained with ledger_first, the ledger place of the first: migration
 * 22; a one-off's without).  Its report as packed (db_combat_pack),
 * else its facts (a record db_combat_pack was not called on), else its
 * text. */
static err_code insert_combat_row(db_conn *c, const db_combat *cb, err_info *e)
{
    unsigned char *facts_z = NULL;
    size_t facts_zlen = 0;
    db_stmt *st = NULL;
    err_code rc;

    if (cb->report_z == NULL && cb->facts != NULL &&
        (facts_z = db_facts_wrap(cb, &facts_zlen)) == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    if ((rc =
             db_prepare(c,
                        "INSERT INTO combats (id, campaign_id, system, "
                        "created_at, note, dice_source, rng, commitment, "
                        "server_seed, client_seed, actor_token_id, summary, "
                        "report, rolls, unit_docs, ledger_first) VALUES (?,?,?,"
                        "?,?,?,?,?,?,?,?,?,?,?,?,?)",
                        &st, e))) {
        free(facts_z);
        return rc;
    }
    db_bind_text(st, 1, cb->id);
    db_bind_text_or_null_borrowed(st, 2, cb->campaign_id);
    db_bind_text(st, 3, cb->system);
    db_bind_text(st, 4, cb->created_at);
    db_bind_text_or_null_borrowed(st, 5, cb->note);
    db_bind_text(st, 6, cb->dice_source);
    db_bind_text_or_null_borrowed(st, 7, cb->rng);
    db_bind_text_or_null_borrowed(st, 8, cb->commitment);
    db_bind_text_or_null_borrowed(st, 9, cb->server_seed);
    if (cb->client_seed)
        db_bind_text(st, 10, cb->client_seed);
    db_bind_text_or_null_borrowed(st, 11, cb->actor_token_id);
    db_bind_text(st, 12, cb->summary);
    if (cb->report_z != NULL)
        db_bind_blob(st, 13, cb->report_z, cb->report_z_len);
    else if (facts_z != NULL)
        db_bind_blob(st, 13, facts_z, facts_zlen);
    else
        db_bind_text(st, 13, cb->report);
    if (cb->rolls_z != NULL)
        db_bind_blob(st, 14, cb->rolls_z, cb->rolls_z_len);
    if (cb->unit_docs_z != NULL)
        db_bind_blob(st, 15, cb->unit_docs_z, cb->unit_docs_z_len);
    if (cb->rolls_z != NULL && cb->ledger_first > 0)
        db_bind_int64(st, 16, cb->ledger_first);
    rc = db_step_done(c, st, e, "insert combat");
    db_done(st);
    free(facts_z);
    /* Its row, for its history events (SQLite's writer), and its channel
     * post where its campaign has a webhook (on PostgreSQL, by trigger). */
    if (rc == ERR_OK && db_conn_sqlite(c) != NULL) {
        db_keys_keep_combat(c, cb->id, db_last_rowid(c));
        rc = db_webhook_enqueue(c, cb->campaign_id, cb->id, cb->created_at, e);
    }
    return rc;
}

err_code db_combat_insert(db_conn *c, const db_combat *cb, db_roll *rolls,
                          size_t n_rolls, err_info *e)
{
    db_chain ch;
    bool is_chained = cb->campaign_id[0] && !cb->is_battle_record;
    err_code rc;
    size_t i;

    /* A campaign's rolls are packed once chained, in the chain of the
     * staging (db_combat_insert_chained), never before chaining here. */
    if (is_chained && cb->rolls_z != NULL)
        return err_set(e, ERR_DB, NULL,
                       "combat %s: its rolls were packed before chaining",
                       cb->id);
    for (i = 0; i < n_rolls; i++)
        rolls[i].ledger_pos = 0;
    if ((rc = insert_combat_row(c, cb, e)) ||
        (is_chained && ((rc = db_chain_open(c, cb->campaign_id, &ch, e)) ||
                        (rc = chain_rolls(cb, rolls, n_rolls, &ch, e)))) ||
        (cb->rolls_z == NULL && (rc = insert_rolls(c, cb, rolls, n_rolls, e))))
        return rc;
    if (is_chained && n_rolls > 0 && (rc = db_chain_store(c, &ch, e)))
        return rc;
    if (cb->campaign_id[0] == '\0')
        return ERR_OK;
    return db_log_combat(c, cb->campaign_id, cb->id,
                         is_chained && ch.length != ch.length0 ? &ch : NULL, e);
}

err_code db_combat_chain(db_conn *c, const db_combat *cb, db_roll *rolls,
                         size_t n_rolls, db_chain *end, err_info *e)
{
    err_code rc = db_chain_open(c, cb->campaign_id, end, e);

    return rc ? rc : chain_rolls(cb, rolls, n_rolls, end, e);
}

bool db_combat_saves_ledger(size_t n_rolls, const db_chain *end)
{
    return n_rolls > 0 || end->spent[0] != '\0';
}

err_code db_combat_insert_chained(db_conn *c, const db_combat *cb,
                                  const db_roll *rolls, size_t n_rolls,
                                  const db_chain *end, long long version,
                                  bool *is_current, db_combat_log *held,
                                  err_info *e)
{
    /* The ledger is checked too, even where the combat moves nothing (a
     * combat without rolls or commitment): a combat worked out ahead of
     * others lands only where they did (pipeline.c). */
    bool is_saved = db_combat_saves_ledger(n_rolls, end),
         is_save_first = db_conn_sqlite(c) != NULL;
    err_code rc;

    /* On SQLite the ledger's save first, where the campaign is still at
     * version (one write that checks it and counts it again; the events
     * are logged after, db_log_combat).  On PostgreSQL the same checked
     * by a read (the version, and the ledger where the combat started it:
     * one worked out ahead of others in flight lands only where they did),
     * and the save after the combat's row, so that its triggers log the
     * combat, then the ledger's move.  Not current: nothing written. */
    *is_current = false;
    if (is_save_first)
        rc = db_chain_store_at(c, end, version, is_current, e);
    else
        rc = db_chain_is_at(c, end, version, is_current, e);
    if (rc != ERR_OK || !*is_current)
        return rc;
    if ((rc = insert_combat_row(c, cb, e)) ||
        (cb->rolls_z == NULL &&
         (rc = insert_rolls(c, cb, rolls, n_rolls, e))) ||
        (is_saved && !is_save_first && (rc = db_chain_store(c, end, e))))
        return rc;
    /* The ledger moved with its rolls (a commitment spent alone leaves
     * its head as it was).  Held for its events' row, on SQLite, where
     * the caller says it writes them next. */
    if (held != NULL && db_conn_sqlite(c) != NULL) {
        memset(held, 0, sizeof *held);
        held->is_pending = true;
        snprintf(held->campaign_id, sizeof held->campaign_id, "%s",
                 cb->campaign_id);
        snprintf(held->combat_id, sizeof held->combat_id, "%s", cb->id);
        if ((held->has_move = end->length != end->length0)) {
            held->length = end->length;
            snprintf(held->head, sizeof held->head, "%s", end->head);
        }
        return ERR_OK;
    }
    return db_log_combat(c, cb->campaign_id, cb->id,
                         end->length != end->length0 ? end : NULL, e);
}

/* The report's column read into cb: its facts (new: ERR_DB when their
 * checksum fails, ERR_NOMEM), or its text. */
static err_code read_report(db_stmt *st, int col, db_combat *cb)
{
    const void *z;
    size_t n;

    if (db_column_type(st, col) == DB_BLOB &&
        db_is_facts(z = db_column_blob(st, col),
                    n = (size_t)db_column_bytes(st, col)))
        return db_facts_unwrap(z, n, &cb->facts, &cb->facts_len);
    cb->report = db_column_doc(st, col);
    cb->after_report = db_report_end(cb->report);
    return ERR_OK;
}

static void read_combat(db_stmt *st, db_combat *cb)
{
    memset(cb, 0, sizeof *cb);
    db_column_copy(st, 0, cb->id, sizeof cb->id);
    db_column_copy(st, 1, cb->campaign_id, sizeof cb->campaign_id);
    db_column_copy(st, 2, cb->system, sizeof cb->system);
    db_column_copy(st, 3, cb->created_at, sizeof cb->created_at);
    cb->note = db_column_dup(st, 4);
    db_column_copy(st, 5, cb->dice_source, sizeof cb->dice_source);
    db_column_copy(st, 6, cb->rng, sizeof cb->rng);
    db_column_copy(st, 7, cb->commitment, sizeof cb->commitment);
    db_column_copy(st, 8, cb->server_seed, sizeof cb->server_seed);
    cb->client_seed = db_column_dup(st, 9);
    db_column_copy(st, 10, cb->actor_token_id, sizeof cb->actor_token_id);
    cb->summary = db_column_dup(st, 11);
}

#define COMBAT_COLUMNS                                                         \
    "id, campaign_id, system, created_at, note, dice_source, rng, "            \
    "commitment, server_seed, client_seed, actor_token_id, summary "

err_code db_combat_get(db_conn *c, const char *id, db_combat *out, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;
    int step;

    memset(out, 0, sizeof *out);
    if ((rc = db_prepare(
             c, "SELECT " COMBAT_COLUMNS ", report FROM combats WHERE id = ?",
             &st, e)))
        goto out;
    db_bind_text(st, 1, id);
    step = db_step(st);
    if (step == DB_ROW) {
        read_combat(st, out);
        if ((rc = read_report(st, 12, out)) != ERR_OK) {
            db_combat_cleanup(out);
            rc = rc == ERR_NOMEM
                     ? err_set(e, ERR_NOMEM, NULL, "out of memory")
                     : err_set(e, ERR_DB, NULL,
                               "the stored facts of combat %s are damaged", id);
        }
    } else if (step == DB_DONE)
        rc = err_set(e, ERR_NOT_FOUND, NULL, "no combat %s", id);
    else
        rc = db_fail(c, e, "read combat");
out:
    db_done(st);
    return rc;
}

void db_combat_cleanup(db_combat *cb)
{
    if (cb == NULL)
        return;
    free(cb->note);
    free(cb->client_seed);
    free(cb->summary);
    free(cb->report);
    free(cb->facts);
    free(cb->report_z);
    free(cb->rolls_z);
    free(cb->unit_docs_z);
    memset(cb, 0, sizeof *cb);
}

static void read_combat_row(db_stmt *st, void *elem)
{
    read_combat(st, elem);
}

static void release_combats(void *v, size_t n)
{
    db_combats_free(v, n);
}

err_code db_combats_list(db_conn *c, const char *campaign_id, db_combat **out,
                         size_t *n, err_info *e)
{
    db_stmt *st = NULL;
    void *rows;
    err_code rc;

    *out = NULL;
    *n = 0;
    if ((rc = db_prepare(c,
                         "SELECT " COMBAT_COLUMNS
                         "FROM combats WHERE campaign_id = ? ORDER BY rowid",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    rc = db_read_rows(c, st, sizeof **out, read_combat_row, release_combats,
                      &rows, n, "list combats", e);
    *out = rows;
    return rc;
}

err_code db_combats_page(db_conn *c, const char *campaign_id, const db_page *pg,
                         db_combat **out, size_t *n, err_info *e)
{
    /* [after][newest first]: one statement per shape (PERF.md), each an
     * index range of combats_by_campaign (campaign_id, created_at), whose
     * rows are in rowid order within a created_at: no sort. */
    static const db_page_sql sql = {
        {{"SELECT " COMBAT_COLUMNS "FROM combats WHERE campaign_id = ?1 "
          "ORDER BY created_at, rowid LIMIT ?4",
          "SELECT " COMBAT_COLUMNS "FROM combats WHERE campaign_id = ?1 "
          "ORDER BY created_at DESC, rowid DESC LIMIT ?4"},
         {"SELECT " COMBAT_COLUMNS "FROM combats WHERE campaign_id = ?1 "
          "AND (created_at, rowid) > (?2, ?3) "
          "ORDER BY created_at, rowid LIMIT ?4",
          "SELECT " COMBAT_COLUMNS "FROM combats WHERE campaign_id = ?1 "
          "AND (created_at, rowid) < (?2, ?3) "
          "ORDER BY created_at DESC, rowid DESC LIMIT ?4"}},
        "SELECT created_at, rowid FROM combats "
        "WHERE id = ?1 AND campaign_id = ?2",
        true};
    void *rows;
    err_code rc =
        db_read_page(c, &sql, campaign_id, pg, sizeof **out, read_combat_row,
                     release_combats, &rows, n, "list combats", e);

    *out = rows;
    return rc;
}

void db_combats_free(db_combat *cbs, size_t n)
{
    size_t i;

    for (i = 0; cbs && i < n; i++)
        db_combat_cleanup(&cbs[i]);
    free(cbs);
}

static void read_roll_row(db_stmt *st, void *elem)
{
    db_roll *r = elem;

    r->seq = db_column_int(st, 0);
    db_column_copy(st, 1, r->side_name, sizeof r->side_name);
    db_column_copy(st, 2, r->unit_id, sizeof r->unit_id);
    db_column_copy(st, 3, r->unit_name, sizeof r->unit_name);
    db_column_copy(st, 4, r->reason, sizeof r->reason);
    r->faces = db_column_int(st, 5);
    r->natural = db_column_int(st, 6);
    r->modified = db_column_int(st, 7);
    db_column_copy(st, 8, r->source, sizeof r->source);
    db_column_copy(st, 9, r->rng, sizeof r->rng);
    r->ledger_pos = db_column_int64(st, 10);
    db_column_copy(st, 11, r->hash, sizeof r->hash);
}

/* A combat's packed rolls and their first ledger place (0: a one-off's),
 * or NULL: they are rows.  A campaign combat's only with its ledger_first
 * (migration 22): a campaign combat's row never holds another log.  A
 * one-off's packed in its report's frame, as before migration 21 (one
 * byte, RS: combat_pack.c): the report's value too. */
#define ROLLS_PACKED_SQL                                                       \
    "SELECT CASE WHEN c.campaign_id IS NULL OR c.ledger_first IS NOT NULL "    \
    "THEN c.rolls END, coalesce(c.ledger_first, 0), CASE WHEN "                \
    "c.campaign_id IS NULL AND length(c.rolls) = 1 THEN c.report END "         \
    "FROM combats c WHERE c.id = ?"

/* Whether the rolls of ROLLS_PACKED_SQL's row at st are after the report
 * in its value (a one-off combat's packed so: one byte, RS, in its
 * rolls); other packed rolls are read as they are (db_column_rolls_read). */
static bool is_after_report(db_stmt *st)
{
    return db_column_type(st, 0) == DB_BLOB &&
           db_is_after_report(db_column_blob(st, 0),
                              (size_t)db_column_bytes(st, 0));
}

/* The text of such rolls, as db_rolls_unpack reads it, after the report,
 * which after_report holds when the report has been read already
 * (db_combat_get).  New, or NULL. */
static char *rolls_after_report(db_stmt *st, const char *after_report)
{
    char *report, *text;

    if (after_report != NULL)
        return strdup(after_report);
    report = db_column_doc(st, 2);
    text = db_after_report(report);
    free(report);
    return text;
}

/* A combat's rolls (unit_id: that unit's only; NULL: all), in order:
 * unpacked from its row (a one-off's, a campaign combat's once chained)
 * or its rows. */
static err_code read_rolls(db_conn *c, const char *combat_id,
                           const char *unit_id, const char *after_report,
                           db_roll **out, size_t *n, err_info *e)
{
    /* [a unit's] */
    static const char *const rows_sql[2] = {
        "SELECT seq, side_name, unit_id, unit_name, reason, faces, "
        "\"natural\", modified, source, rng, ledger_pos, hash FROM rolls "
        "WHERE combat_id = ? ORDER BY seq",
        "SELECT seq, side_name, unit_id, unit_name, reason, faces, "
        "\"natural\", modified, source, rng, ledger_pos, hash FROM rolls "
        "WHERE combat_id = ? AND unit_id = ? ORDER BY seq"};
    db_stmt *st = NULL;
    void *rows;
    char *packed = NULL;
    long long first = 0;
    bool is_packed;
    size_t i, k = 0;
    err_code rc;
    int step;

    *out = NULL;
    *n = 0;
    if ((rc = db_prepare(c, ROLLS_PACKED_SQL, &st, e)))
        return rc;
    db_bind_text(st, 1, combat_id);
    step = db_step(st);
    is_packed = step == DB_ROW && db_column_type(st, 0) != DB_NULL;
    if (is_packed)
        first = db_column_int64(st, 1);
    if (step != DB_ROW && step != DB_DONE)
        rc = db_fail(c, e, "read rolls");
    else if (is_packed && !is_after_report(st)) /* read as they are */
        rc = db_column_rolls_read(st, 0, first, unit_id, out, n, e);
    else if (is_packed &&
             (packed = rolls_after_report(st, after_report)) == NULL)
        rc = err_set(e, ERR_DB, NULL, "a packed roll log is malformed");
    else if (is_packed)
        rc = db_rolls_unpack(packed, first, out, n, e);
    db_done(st);
    if (rc == ERR_OK && is_packed) {
        for (i = 0; unit_id != NULL && i < *n; i++)
            if (strcmp((*out)[i].unit_id, unit_id) == 0)
                (*out)[k++] = (*out)[i];
        if (rc == ERR_OK && unit_id != NULL)
            *n = k;
    }
    free(packed);
    if (rc != ERR_OK || is_packed)
        return rc;
    if ((rc = db_prepare(c, rows_sql[unit_id != NULL], &st, e)))
        return rc;
    db_bind_text(st, 1, combat_id);
    if (unit_id != NULL)
        db_bind_text(st, 2, unit_id);
    rc = db_read_rows(c, st, sizeof **out, read_roll_row, NULL, &rows, n,
                      "read rolls", e);
    *out = rows;
    return rc;
}

err_code db_rolls_list(db_conn *c, const char *combat_id, db_roll **out,
                       size_t *n, err_info *e)
{
    return read_rolls(c, combat_id, NULL, NULL, out, n, e);
}

err_code db_combat_rolls(db_conn *c, const db_combat *cb, db_roll **out,
                         size_t *n, err_info *e)
{
    return read_rolls(c, cb->id, NULL, cb->after_report, out, n, e);
}

err_code db_rolls_of_unit(db_conn *c, const char *combat_id,
                          const char *unit_id, db_roll **out, size_t *n,
                          err_info *e)
{
    return read_rolls(c, combat_id, unit_id, NULL, out, n, e);
}
