/*
 * unit_events.c: units' history events, in SQL; declared in db.h.  Inserted
 * (and, on SQLite, logged in the campaign event log) and read back: a
 * unit's history, and a campaign's feed, a page at a time.  An event
 * names its unit, campaign and combat by their rows' rowids (migration
 * 18); one whose documents are packed in its combat's row (doc_slot,
 * unit_docs.c) takes its time, kind, actor and note from there too.
 * Prepared statements only; every statement is released (db_done) at
 * its function's single exit, and the rows written are the caller's
 * until then, so their text is bound without a copy.
 */
#include "db_sql.h"
#include "unit_events.h"
#include "unit_docs.h"

#include <stdlib.h>
#include <string.h>

/* The rowids that key the history events of one campaign and combat
 * (migration 18), found once for a write's run of them. */
typedef struct event_keys {
    const char *campaign_id, *combat_id; /* whose they are; NULL: none yet */
    long long campaign_row, combat_row;  /* 0 where there is no such row */
} event_keys;

/* k for ev's campaign and combat, read again only where they change. */
static err_code find_keys(db_conn *c, const db_event *ev, event_keys *k,
                          err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    if (k->campaign_id != NULL &&
        strcmp(k->campaign_id, ev->campaign_id) == 0 &&
        strcmp(k->combat_id, ev->combat_id) == 0)
        return ERR_OK;
    if ((rc = db_prepare(c,
                         "SELECT (SELECT rowid FROM campaigns WHERE id = ?1), "
                         "(SELECT rowid FROM combats WHERE id = ?2)",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, ev->campaign_id);
    db_bind_text_or_null_borrowed(st, 2, ev->combat_id);
    if (db_step(st) == DB_ROW) {
        k->campaign_id = ev->campaign_id;
        k->combat_id = ev->combat_id;
        k->campaign_row = db_column_int64(st, 0); /* NULL reads 0 */
        k->combat_row = db_column_int64(st, 1);
    } else {
        rc = db_fail(c, e, "find a history event's campaign");
    }
    db_done(st);
    /* No foreign key checks combat_row: a combat named must be there. */
    if (rc == ERR_OK && ev->combat_id[0] != '\0' && k->combat_row == 0) {
        k->campaign_id = NULL;
        rc = err_set(e, ERR_CONFLICT, NULL,
                     "no combat %s for a history event of unit %s",
                     ev->combat_id, ev->unit_id);
    }
    return rc;
}

static void bind_row_or_null(db_stmt *st, int i, long long row)
{
    if (row > 0)
        db_bind_int64(st, i, row);
    else
        db_bind_null(st, i);
}

/* A unit's next number is its last event's plus one: every write of a
 * campaign's events runs one at a time (one writer on SQLite; the
 * campaign's lock on PostgreSQL, db_submit_in), so two events of one unit
 * never take the same.  The unit, campaign and combat are keyed by their
 * rows' rowids (migration 18): an unknown unit or campaign leaves its key
 * NULL, which the table refuses (an unknown combat, find_keys).  An event
 * in its combat's row (doc_slot) takes its time and kind from there
 * too. */
static err_code insert_row(db_conn *c, const db_event *ev, const event_keys *k,
                           err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    /* The unit's key: its row where the event knows it (read with the
     * unit), else found by its id. */
#define INSERT_EVENT(UNIT)                                                     \
    "INSERT INTO unit_events (unit_row, campaign_row, at, kind, combat_row, "  \
    "actor_token_id, note, before, after, result, doc_slot, unit_seq) "        \
    "VALUES (" UNIT ", ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "             \
    "coalesce((SELECT unit_seq FROM unit_events WHERE unit_row = " UNIT        \
    " ORDER BY seq DESC LIMIT 1), 0) + 1)"
    static const char *const sql[2] = {
        INSERT_EVENT("(SELECT rowid FROM units WHERE id = ?1)"),
        INSERT_EVENT("?1")};
#undef INSERT_EVENT
    bool is_row_known = ev->unit_row > 0;

    if ((rc = db_prepare(c, sql[is_row_known], &st, e)))
        goto out;
    if (is_row_known)
        db_bind_int64(st, 1, ev->unit_row);
    else
        db_bind_text(st, 1, ev->unit_id);
    bind_row_or_null(st, 2, k->campaign_row);
    bind_row_or_null(st, 5, k->combat_row);
    if (ev->doc_slot > 0) { /* in the combat's row (unit_docs.c) */
        db_bind_null(st, 3);
        db_bind_null(st, 4);
        db_bind_null(st, 6);
        db_bind_null(st, 7);
        db_bind_null(st, 8);
        db_bind_null(st, 9);
        db_bind_null(st, 10);
        db_bind_int(st, 11, ev->doc_slot);
    } else {
        db_bind_text(st, 3, ev->at);
        db_bind_text(st, 4, ev->kind);
        db_bind_text_or_null_borrowed(st, 6, ev->actor_token_id);
        db_bind_text_or_null_borrowed(st, 7, ev->note);
        db_bind_text_or_null_borrowed(st, 8, ev->before);
        db_bind_text(st, 9, ev->after);
        db_bind_text_or_null_borrowed(st, 10, ev->result);
        db_bind_null(st, 11);
    }
    rc = db_step_done(c, st, e, "insert history event");
out:
    db_done(st);
    return rc;
}

/* The campaign's n events just inserted logged in the event log (SQLite
 * only; see db_events_insert).  A block (is_block) is one row for n
 * events whose documents are in their combat's row: its seq the last of
 * the n places it takes, the n - 1 before it left to its events, and
 * unit_seq the first event's seq.  Otherwise n is 1, an event whose
 * documents are its own, logged as the trigger of migration 10 did: a
 * row of its own, without n.  The writer is SQLite's only one and the n
 * rows were the last inserted, one after the other, so their seqs are
 * the n up to unit_events' largest (rowids taken as the largest plus
 * one: no row of either table is ever deleted). */
static err_code log_events(db_conn *c, const char *campaign_id, int n,
                           bool is_block, err_info *e)
{
    static const char *const sql[2] = {
        "INSERT INTO event_log (campaign_id, kind, unit_seq) VALUES (?1, "
        "'unit', (SELECT max(seq) FROM unit_events))",
        "INSERT INTO event_log (seq, campaign_id, kind, unit_seq, n) VALUES "
        "(coalesce((SELECT max(seq) FROM event_log), 0) + ?2, ?1, 'unit', "
        "(SELECT max(seq) FROM unit_events) - ?2 + 1, ?2)"};
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c, sql[is_block], &st, e)) == ERR_OK) {
        db_bind_text(st, 1, campaign_id);
        if (is_block)
            db_bind_int(st, 2, n);
        rc = db_step_done(c, st, e, "log history events");
    }
    db_done(st);
    return rc;
}

err_code db_events_insert(db_conn *c, const db_event *const *evs, size_t n,
                          err_info *e)
{
    /* On SQLite this logs every event it inserts (migration 18 dropped
     * the trigger that logged some: one less sub-program run per event):
     * an event whose documents are its own, a row of its own; a run of
     * events whose documents are in their combat's row (doc_slot), one
     * block row of up to DB_LOG_BLOCK_MAX (migration 17).  On PostgreSQL
     * the trigger event_log_unit_events logs every event: identity
     * numbers are not handed out as a run. */
    bool is_sqlite = db_conn_sqlite(c) != NULL;
    const char *block_campaign = NULL;
    event_keys keys = {NULL, NULL, 0, 0};
    int in_block = 0;
    err_code rc = ERR_OK;
    size_t i;

    for (i = 0; i < n && rc == ERR_OK; i++) {
        bool is_packed = is_sqlite && evs[i]->doc_slot > 0;

        if (in_block > 0 &&
            (!is_packed || in_block == DB_LOG_BLOCK_MAX ||
             strcmp(block_campaign, evs[i]->campaign_id) != 0)) {
            rc = log_events(c, block_campaign, in_block, true, e);
            in_block = 0;
        }
        if (rc == ERR_OK && (rc = find_keys(c, evs[i], &keys, e)) == ERR_OK)
            rc = insert_row(c, evs[i], &keys, e);
        if (rc == ERR_OK && is_packed) {
            block_campaign = evs[i]->campaign_id;
            in_block++;
        } else if (rc == ERR_OK && is_sqlite) {
            rc = log_events(c, evs[i]->campaign_id, 1, false, e);
        }
    }
    if (rc == ERR_OK && in_block > 0)
        rc = log_events(c, block_campaign, in_block, true, e);
    return rc;
}

err_code db_event_insert(db_conn *c, const db_event *ev, err_info *e)
{
    return db_events_insert(c, &ev, 1, e);
}

/* The events of unit_events u, with their columns and joins (unit_events.h). */
#define EVENT_COLUMNS                                                          \
    HISTORY_EVENT_COLUMNS "FROM unit_events u " HISTORY_EVENT_JOINS

void history_event_read(db_stmt *st, int col, db_event *ev)
{
    ev->seq = db_column_int64(st, col);
    db_column_copy(st, col + 1, ev->unit_id, sizeof ev->unit_id);
    db_column_copy(st, col + 2, ev->campaign_id, sizeof ev->campaign_id);
    db_column_copy(st, col + 3, ev->at, sizeof ev->at);
    db_column_copy(st, col + 4, ev->kind, sizeof ev->kind);
    db_column_copy(st, col + 5, ev->combat_id, sizeof ev->combat_id);
    db_column_copy(st, col + 6, ev->actor_token_id, sizeof ev->actor_token_id);
    ev->note = db_column_dup(st, col + 7);
    ev->before = db_column_dup(st, col + 8);
    ev->after = db_column_dup(st, col + 9);
    ev->result = db_column_dup(st, col + 10);
    ev->unit_seq = db_column_int64(st, col + 11);
    ev->doc_slot = db_column_int(st, col + 12);
}

static void read_event_row(db_stmt *st, void *elem)
{
    history_event_read(st, 0, elem);
}

static void release_events(void *v, size_t n)
{
    db_events_free(v, n);
}

/* The documents of the n events at evs that their combat's row holds. */
static err_code fill_docs(db_conn *c, db_event *evs, size_t n, err_info *e)
{
    unit_docs_cache cache;
    err_code rc = ERR_OK;
    size_t i;

    memset(&cache, 0, sizeof cache);
    for (i = 0; i < n && rc == ERR_OK; i++)
        rc = unit_docs_fill(c, &evs[i], &cache, e);
    unit_docs_cache_clear(&cache);
    return rc;
}

/* db_read_rows of events, then their documents: *out and *n as there,
 * freed and cleared on failure. */
static err_code read_events(db_conn *c, db_stmt *st, db_event **out, size_t *n,
                            const char *what, err_info *e)
{
    void *rows;
    err_code rc = db_read_rows(c, st, sizeof **out, read_event_row,
                               release_events, &rows, n, what, e);

    *out = rows;
    if (rc == ERR_OK && (rc = fill_docs(c, *out, *n, e)) != ERR_OK) {
        db_events_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

err_code db_events_list(db_conn *c, const char *unit_id, db_event **out,
                        size_t *n, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    *out = NULL;
    *n = 0;
    if ((rc = db_prepare(c,
                         "SELECT " EVENT_COLUMNS
                         "WHERE u.unit_row = (SELECT rowid FROM units "
                         "WHERE id = ?) ORDER BY u.seq",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, unit_id);
    return read_events(c, st, out, n, "list history", e);
}

void db_events_free(db_event *evs, size_t n)
{
    size_t i;

    for (i = 0; evs && i < n; i++) {
        free(evs[i].note);
        free(evs[i].before);
        free(evs[i].after);
        free(evs[i].result);
    }
    free(evs);
}

err_code db_events_page(db_conn *c, const db_event_query *q, db_event **out,
                        size_t *n, err_info *e)
{
    /* Keyset pagination on seq, which only grows: a page never skips or
     * repeats an event, whatever is written between two pages.  One
     * statement per shape, [a unit's][after][newest first] (an optional
     * "?N IS NULL OR" term would make SQLite scan the campaign's events
     * from the first on every page).  A unit's on unit_events_by_unit
     * (unit_row, seq), the campaign checked only (+).  A campaign's, on
     * SQLite (migration 19), through the rows that log its unit events,
     * on event_log_units (campaign_id, unit_seq): each row is an event,
     * or a block of at most DB_LOG_BLOCK_MAX of a combat's (migration 17)
     * whose unit_seq is its first; no two rows' events overlap, so their
     * order is the events'.  A block with an event after ?3 starts after
     * ?3 - DB_LOG_BLOCK_MAX (?5), which bounds the index's range.  On
     * PostgreSQL (whose planner cannot size that join), on
     * unit_events_by_campaign (campaign_row, seq). */
#define EVENTS_OF_UNIT                                                         \
    "SELECT " EVENT_COLUMNS                                                    \
    "WHERE u.unit_row = (SELECT rowid FROM units WHERE id = ?2) "              \
    "AND +u.campaign_row = (SELECT rowid FROM campaigns WHERE id = ?1) "
#define EVENTS_OF_FEED                                                         \
    "SELECT " HISTORY_EVENT_COLUMNS                                            \
    "FROM event_log l JOIN unit_events u ON u.seq >= l.unit_seq "              \
    "AND u.seq < l.unit_seq + coalesce(l.n, 1) " HISTORY_EVENT_JOINS           \
    "WHERE l.campaign_id = ?1 AND l.kind = 'unit' "
#define FEED_OLDEST "ORDER BY l.unit_seq, u.seq LIMIT ?4"
#define FEED_NEWEST "ORDER BY l.unit_seq DESC, u.seq DESC LIMIT ?4"
#define EVENTS_OF_FEED_PG                                                      \
    "SELECT " EVENT_COLUMNS                                                    \
    "WHERE u.campaign_row = (SELECT rowid FROM campaigns WHERE id = ?1) "
    static const char *const sql[2][2][2] = {
        {{EVENTS_OF_FEED FEED_OLDEST, EVENTS_OF_FEED FEED_NEWEST},
         {EVENTS_OF_FEED "AND l.unit_seq > ?5 AND u.seq > ?3 " FEED_OLDEST,
          EVENTS_OF_FEED "AND l.unit_seq < ?3 AND u.seq < ?3 " FEED_NEWEST}},
        {{EVENTS_OF_UNIT "ORDER BY u.seq LIMIT ?4",
          EVENTS_OF_UNIT "ORDER BY u.seq DESC LIMIT ?4"},
         {EVENTS_OF_UNIT "AND u.seq > ?3 ORDER BY u.seq LIMIT ?4",
          EVENTS_OF_UNIT "AND u.seq < ?3 ORDER BY u.seq DESC LIMIT ?4"}}};
    static const char *const sql_feed_pg[2][2] = {
        {EVENTS_OF_FEED_PG "ORDER BY u.seq LIMIT ?4",
         EVENTS_OF_FEED_PG "ORDER BY u.seq DESC LIMIT ?4"},
        {EVENTS_OF_FEED_PG "AND u.seq > ?3 ORDER BY u.seq LIMIT ?4",
         EVENTS_OF_FEED_PG "AND u.seq < ?3 ORDER BY u.seq DESC LIMIT ?4"}};
#undef EVENTS_OF_UNIT
#undef EVENTS_OF_FEED
#undef EVENTS_OF_FEED_PG
#undef FEED_OLDEST
#undef FEED_NEWEST
    bool is_feed = q->unit_id == NULL, is_after = q->after > 0,
         is_log = is_feed && db_conn_sqlite(c) != NULL;
    db_stmt *st = NULL;
    err_code rc;

    *out = NULL;
    *n = 0;
    if ((rc = db_prepare(c,
                         is_feed && !is_log
                             ? sql_feed_pg[is_after][q->is_newest_first]
                             : sql[!is_feed][is_after][q->is_newest_first],
                         &st, e)))
        return rc;
    db_bind_text(st, 1, q->campaign_id);
    if (q->unit_id)
        db_bind_text(st, 2, q->unit_id);
    if (q->after > 0)
        db_bind_int64(st, 3, q->after);
    db_bind_int(st, 4, q->limit);
    if (is_log && is_after && !q->is_newest_first)
        db_bind_int64(st, 5, q->after - DB_LOG_BLOCK_MAX);
    return read_events(c, st, out, n, "read history", e);
}
