/*
 * event_log.c: the campaign event log of migration 10 (docs/events.md),
 * read back; declared in db.h.  The log is written by triggers, but on
 * SQLite unit history events by unit_events_write.c (db_events_insert: a
 * combat's packed ones as one row, migration 17; no trigger, migration
 * 18) and a campaign's combats and the ledger's moves here (db_log_combat
 * and db_log_ledger, below: a combat and its move as one row, migration
 * 25; with its units' events too, db_log_combat_held, migration 27), in
 * the transaction of what each event reports; this file reads it a
 * batch at a time, each event with what it reports joined from its record (a
 * combat's system and summary, a battle's system, a unit history event
 * whole).  Two statements, one per filter shape (every campaign's events,
 * or one campaign's between two seqs), so that each keeps its index.
 */
#include "db_sql.h"
#include "unit_events.h"
#include "unit_docs.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* An event's id: its row's seq, but for a block of unit events (SQLite's
 * db_events_insert, migration 17: n events, the row's seq the last of
 * their places) the place of each, in the order of their seqs, and for
 * a combat logged with the ledger's move (SQLite's db_log_combat,
 * migration 25: x.part 1 the combat, 2 the move) the combat's seq - 1;
 * with its units' events too (migration 27: x.part 3, each), the
 * combat's place and the move's before theirs.  A row of one unit event
 * has no n. */
#define LOG_ID                                                                 \
    "(CASE WHEN x.part = 1 THEN l.seq - coalesce(l.n_units, 0) - CASE WHEN "   \
    "l.head IS NULL THEN 0 ELSE 1 END "                                        \
    "WHEN x.part = 2 THEN l.seq - coalesce(l.n_units, 0) "                     \
    "WHEN u.seq IS NULL THEN l.seq "                                           \
    "ELSE l.seq - " LOG_UNITS " + 1 + u.seq - l.unit_seq END)"

/* The columns read_row reads, then FROM and the joins: a unit row joins
 * each of its events (one, or its block's n), and each event its unit's
 * and combat's rows (unit_events.h); a combat's row with the ledger's
 * move (its head set) or its units' events (n_units set) is read once
 * for each: x.part 1 the combat as its own row would read (without n
 * and head), 2 the move as a 'ledger' row would (without the combat), 3
 * each event as a unit row's (n its number of events). */
#define LOG_SELECT                                                             \
    "SELECT " LOG_ID ", l.campaign_id, "                                       \
    "CASE WHEN x.part = 2 THEN 'ledger' WHEN x.part = 3 THEN 'unit' "          \
    "ELSE l.kind END, "                                                        \
    "CASE WHEN x.part >= 2 THEN NULL ELSE l.record_id END, l.status, "         \
    "CASE WHEN x.part = 1 THEN NULL WHEN x.part = 3 THEN l.n_units "           \
    "ELSE l.n END, "                                                           \
    "CASE WHEN x.part = 1 OR x.part = 3 THEN NULL ELSE l.head END, "           \
    "coalesce(c.system, b.system), c.created_at, "                             \
    "c.summary, " HISTORY_EVENT_COLUMNS "FROM event_log l "                    \
    "LEFT JOIN (SELECT 1 AS part UNION ALL SELECT 2 UNION ALL SELECT 3) x "    \
    "ON l.kind = 'combat' AND (l.head IS NOT NULL OR l.n_units IS NOT NULL) "  \
    "AND (x.part = 1 OR (x.part = 2 AND l.head IS NOT NULL) "                  \
    "OR (x.part = 3 AND l.n_units IS NOT NULL)) "                              \
    "LEFT JOIN combats c ON l.kind = 'combat' AND coalesce(x.part, 1) = 1 "    \
    "AND c.id = l.record_id "                                                  \
    "LEFT JOIN battles b ON l.kind = 'battle' AND b.id = l.record_id "         \
    "LEFT JOIN unit_events u ON (l.kind = 'unit' OR x.part = 3) "              \
    "AND u.seq >= l.unit_seq AND u.seq < l.unit_seq + " LOG_UNITS              \
    " " HISTORY_EVENT_JOINS

/* The most ids one row of the log takes: a block of unit events, after a
 * combat's place and the ledger's move (migration 27). */
enum { LOG_ROW_IDS_MAX = DB_LOG_BLOCK_MAX + 2 };

static void read_row(db_stmt *st, void *elem)
{
    db_logged_event *ev = elem;

    ev->seq = db_column_int64(st, 0);
    db_column_copy(st, 1, ev->campaign_id, sizeof ev->campaign_id);
    db_column_copy(st, 2, ev->kind, sizeof ev->kind);
    db_column_copy(st, 3, ev->record_id, sizeof ev->record_id);
    db_column_copy(st, 4, ev->status, sizeof ev->status);
    ev->n = db_column_int64(st, 5);
    db_column_copy(st, 6, ev->head, sizeof ev->head);
    db_column_copy(st, 7, ev->system, sizeof ev->system);
    db_column_copy(st, 8, ev->created_at, sizeof ev->created_at);
    ev->summary = db_column_dup(st, 9);
    if (strcmp(ev->kind, "unit") == 0)
        history_event_read(st, 10, &ev->unit);
}

static void release_rows(void *v, size_t n)
{
    db_event_log_free(v, n);
}

err_code db_event_log_after(db_conn *c, const char *campaign_id,
                            long long after, long long upto, int limit,
                            db_logged_event **out, size_t *n, err_info *e)
{
    db_stmt *st = NULL;
    void *rows = NULL;
    err_code rc;

    *out = NULL;
    *n = 0;
    /* Rows by seq on their index; a block's row (whose seq is its last
     * id) is read while any of its ids is after `after`, and up to `upto`
     * while its first is: a batch may end within a block, and the next
     * goes on from there.  A row holds at most LOG_ROW_IDS_MAX ids. */
    if (campaign_id == NULL)
        rc = db_prepare(c,
                        LOG_SELECT "WHERE l.seq > ?1 AND " LOG_ID " > ?1 "
                                   "ORDER BY l.seq, x.part, u.seq LIMIT ?2",
                        &st, e);
    else
        rc = db_prepare(c,
                        LOG_SELECT "WHERE l.campaign_id = ?3 AND "
                                   "l.seq > ?1 AND l.seq <= ?5 AND " LOG_ID
                                   " > ?1 AND " LOG_ID " <= ?4 "
                                   "ORDER BY l.seq, x.part, u.seq LIMIT ?2",
                        &st, e);
    if (rc != ERR_OK)
        return rc;
    db_bind_int64(st, 1, after);
    db_bind_int(st, 2, limit);
    if (campaign_id != NULL) {
        db_bind_text(st, 3, campaign_id);
        db_bind_int64(st, 4, upto);
        db_bind_int64(st, 5,
                      upto > LLONG_MAX - LOG_ROW_IDS_MAX
                          ? LLONG_MAX
                          : upto + LOG_ROW_IDS_MAX - 1);
    }
    rc = db_read_rows(c, st, sizeof **out, read_row, release_rows, &rows, n,
                      "read the event log", e);
    *out = rows;
    /* A campaign's read fills its unit events' documents; every
     * campaign's leaves them to db_event_log_docs, for those wanted. */
    if (rc == ERR_OK && campaign_id != NULL &&
        (rc = db_event_log_docs(c, *out, *n, NULL, NULL, e)) != ERR_OK) {
        db_event_log_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

err_code db_event_log_docs(db_conn *c, db_logged_event *evs, size_t n,
                           bool (*is_wanted)(const char *campaign_id,
                                             void *arg),
                           void *arg, err_info *e)
{
    unit_docs_cache cache;
    err_code rc = ERR_OK;
    size_t i;

    memset(&cache, 0, sizeof cache);
    for (i = 0; i < n && rc == ERR_OK; i++) {
        if (strcmp(evs[i].kind, "unit") != 0 ||
            (is_wanted != NULL && !is_wanted(evs[i].campaign_id, arg)))
            continue;
        /* One combat's documents that do not read must not stop the log
         * of every campaign (the live streams read it all): its events go
         * without them, and its history's pages report the error. */
        if ((rc = unit_docs_fill(c, &evs[i].unit, &cache, e)) == ERR_DB) {
            err_clear(e);
            rc = ERR_OK;
        }
    }
    unit_docs_cache_clear(&cache);
    return rc;
}

err_code db_event_log_last(db_conn *c, const char *campaign_id, long long *out,
                           err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    *out = 0;
    if (campaign_id == NULL)
        rc = db_prepare(c, "SELECT max(seq) FROM event_log", &st, e);
    else
        rc = db_prepare(c,
                        "SELECT max(seq) FROM event_log "
                        "WHERE campaign_id = ?",
                        &st, e);
    if (rc != ERR_OK)
        return rc;
    if (campaign_id != NULL)
        db_bind_text(st, 1, campaign_id);
    if (db_step(st) == DB_ROW)
        *out = db_column_int64(st, 0); /* NULL (empty) reads 0 */
    else
        rc = db_fail(c, e, "read the event log's last seq");
    db_done(st);
    return rc;
}

/* ---- written: SQLite's rows of combats and the ledger (migration 25) ----
 *
 * SQLite's triggers event_log_combats and event_log_ledger wrote a row
 * for every campaign combat and another for the ledger's move it made:
 * two rows, their index entries and two trigger programs a combat, on the
 * writer.  Since migration 25 these write them, and a combat that moves
 * the ledger writes one row for both: kind 'combat', its id, and the
 * ledger's length and head after it (n, head), which takes two places,
 * the combat's (seq - 1) and the move's (seq), as a block of unit events
 * takes its n (migration 17): the writer is SQLite's only one, and no row
 * of the log is ever deleted, so seq - 1 is free.  LOG_SELECT reads such
 * a row back as the two events the triggers wrote, with the same ids.
 * PostgreSQL's triggers still write a row each (its numbers come from
 * one sequence several writers draw from). */

/* A combat's row: the ledger's move with it where length > 0 (its
 * length and head), and its n_units events from seq first where n_units
 * > 0 (migration 27): its seq the last of the places they all take. */
static err_code log_combat_row(db_conn *c, const char *campaign_id,
                               const char *combat_id, long long length,
                               const char *head, long long first, int n_units,
                               err_info *e)
{
    /* [with the move][with events] */
    static const char *const sql[2][2] = {
        {"INSERT INTO event_log (campaign_id, kind, record_id) "
         "VALUES (?1, 'combat', ?2)",
         "INSERT INTO event_log (seq, campaign_id, kind, record_id, unit_seq, "
         "n_units) VALUES (coalesce((SELECT max(seq) FROM event_log), 0) + 1 "
         "+ ?6, ?1, 'combat', ?2, ?5, ?6)"},
        {"INSERT INTO event_log (seq, campaign_id, kind, record_id, n, head) "
         "VALUES (coalesce((SELECT max(seq) FROM event_log), 0) + 2, ?1, "
         "'combat', ?2, ?3, ?4)",
         "INSERT INTO event_log (seq, campaign_id, kind, record_id, n, head, "
         "unit_seq, n_units) VALUES (coalesce((SELECT max(seq) FROM "
         "event_log), 0) + 2 + ?6, ?1, 'combat', ?2, ?3, ?4, ?5, ?6)"}};
    bool has_move = length > 0, has_units = n_units > 0;
    db_stmt *st = NULL;
    err_code rc;

    if (n_units < 0 || n_units > DB_LOG_BLOCK_MAX)
        return err_set(e, ERR_DB, NULL, "a combat logged with %d events",
                       n_units);
    if ((rc = db_prepare(c, sql[has_move][has_units], &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    db_bind_text(st, 2, combat_id);
    if (has_move) {
        db_bind_int64(st, 3, length);
        db_bind_text(st, 4, head);
    }
    if (has_units) {
        db_bind_int64(st, 5, first);
        db_bind_int(st, 6, n_units);
    }
    rc = db_step_done(c, st, e, "log a combat");
    db_done(st);
    return rc;
}

err_code db_log_combat(db_conn *c, const char *campaign_id,
                       const char *combat_id, const db_chain *moved,
                       err_info *e)
{
    if (db_conn_sqlite(c) == NULL)
        return ERR_OK;
    return log_combat_row(c, campaign_id, combat_id,
                          moved != NULL ? moved->length : 0,
                          moved != NULL ? moved->head : NULL, 0, 0, e);
}

err_code db_log_combat_held(db_conn *c, db_combat_log *held, long long first,
                            int n_units, err_info *e)
{
    err_code rc;

    if (held == NULL || !held->is_pending || db_conn_sqlite(c) == NULL)
        return ERR_OK;
    rc = log_combat_row(c, held->campaign_id, held->combat_id,
                        held->has_move ? held->length : 0,
                        held->has_move ? held->head : NULL, first, n_units, e);
    held->is_pending = false;
    return rc;
}

err_code db_log_ledger(db_conn *c, const db_chain *ch, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    if (db_conn_sqlite(c) == NULL)
        return ERR_OK;
    if ((rc = db_prepare(c,
                         "INSERT INTO event_log (campaign_id, kind, n, head) "
                         "VALUES (?1, 'ledger', ?2, ?3)",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, ch->campaign_id);
    db_bind_int64(st, 2, ch->length);
    db_bind_text(st, 3, ch->head);
    rc = db_step_done(c, st, e, "log the ledger's move");
    db_done(st);
    return rc;
}

void db_event_log_free(db_logged_event *evs, size_t n)
{
    size_t i;

    for (i = 0; evs && i < n; i++) {
        free(evs[i].summary);
        free(evs[i].unit.note);
        free(evs[i].unit.before);
        free(evs[i].unit.after);
        free(evs[i].unit.result);
    }
    free(evs);
}
