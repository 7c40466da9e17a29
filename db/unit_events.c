/*
 * unit_events.c: units' history events read back (inserted by
 * unit_events_write.c); declared in db.h: a unit's history, walking its
 * chain (migration 23), and a campaign's feed, a page at a time, each
 * event with its documents (those packed in its combat's row read from
 * there, unit_docs.c).
 */
#include "db_sql.h"
#include "unit_events.h"
#include "unit_docs.h"

#include <stdlib.h>
#include <string.h>

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

/* A unit's events, walking its chain (migration 23) back from START (a
 * seq) at most BOUND (an expression) steps: ch's rows, with their
 * columns and joins (unit_events.h).  The unit is ?2. */
#define UNIT_ROW_OF "(SELECT rowid FROM units WHERE id = ?2)"
#define UNIT_HEAD                                                              \
    "(SELECT seq FROM unit_heads WHERE unit_row = " UNIT_ROW_OF ")"
#define UNIT_CHAIN(START, BOUND)                                               \
    "WITH RECURSIVE ch(s, d) AS (SELECT " START ", 0 UNION ALL "               \
    "SELECT u.prev_seq, ch.d + 1 FROM ch JOIN unit_events u ON u.seq = ch.s "  \
    "WHERE u.prev_seq IS NOT NULL AND ch.d < " BOUND ") "                      \
    "SELECT " HISTORY_EVENT_COLUMNS "FROM ch JOIN unit_events u "              \
    "ON u.seq = ch.s " HISTORY_EVENT_JOINS

err_code db_events_list(db_conn *c, const char *unit_id, db_event **out,
                        size_t *n, err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    *out = NULL;
    *n = 0;
    /* The whole chain, from the unit's last event back. */
    if ((rc = db_prepare(c,
                         UNIT_CHAIN(UNIT_HEAD, "(SELECT n FROM unit_heads "
                                               "WHERE unit_row = " UNIT_ROW_OF
                                               ")") "ORDER BY u.seq",
                         &st, e)))
        return rc;
    db_bind_text(st, 2, unit_id);
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
     * from the first on every page).
     *
     * A unit's walks its chain (migration 23, UNIT_CHAIN), the campaign
     * checked only (+), a bounded part of it whatever the unit's length:
     * newest first from its last event (?6 = the page's rows) or, after a
     * cursor, from the first mark at or after it (?6 = the page's rows
     * and the MARK_EVERY at most between that mark and the cursor); oldest
     * first from the mark ?5 = ceil(limit / MARK_EVERY) marks after the
     * first after the cursor (its last event where there are fewer),
     * which at least the page's rows and at most ?6 = (?5 + 1) *
     * MARK_EVERY follow the cursor.
     *
     * A campaign's, on SQLite (migration 19), through the rows that log
     * its unit events, on event_log_units (campaign_id, unit_seq): each
     * row is an event, or a block of at most DB_LOG_BLOCK_MAX of a
     * combat's (migration 17; in the combat's own row since migration 27)
     * whose unit_seq is its first (LOG_UNITS of them); no two rows'
     * events overlap, so their order is the events'.  A block with an
     * event after ?3 starts after ?3 - DB_LOG_BLOCK_MAX (?5), which
     * bounds the index's range.  On PostgreSQL (whose planner cannot size
     * that join), on unit_events_by_campaign (campaign_row, seq). */
#define IN_CAMPAIGN                                                            \
    "WHERE +u.campaign_row = (SELECT rowid FROM campaigns WHERE id = ?1) "
#define MARK_AFTER(CMP, OFFSET)                                                \
    "coalesce((SELECT seq FROM unit_marks WHERE unit_row = " UNIT_ROW_OF       \
    " AND seq " CMP " ?3 ORDER BY seq LIMIT 1" OFFSET "), " UNIT_HEAD ")"
#define EVENTS_OF_UNIT_OLDEST                                                  \
    UNIT_CHAIN(MARK_AFTER(">", " OFFSET ?5"), "?6")                            \
    IN_CAMPAIGN "AND u.seq > ?3 ORDER BY u.seq LIMIT ?4"
#define EVENTS_OF_FEED                                                         \
    "SELECT " HISTORY_EVENT_COLUMNS                                            \
    "FROM event_log l JOIN unit_events u ON u.seq >= l.unit_seq "              \
    "AND u.seq < l.unit_seq + " LOG_UNITS " " HISTORY_EVENT_JOINS              \
    "WHERE l.campaign_id = ?1 AND l.unit_seq IS NOT NULL "
#define FEED_OLDEST "ORDER BY l.unit_seq, u.seq LIMIT ?4"
#define FEED_NEWEST "ORDER BY l.unit_seq DESC, u.seq DESC LIMIT ?4"
#define EVENTS_OF_FEED_PG                                                      \
    "SELECT " EVENT_COLUMNS                                                    \
    "WHERE u.campaign_row = (SELECT rowid FROM campaigns WHERE id = ?1) "
    static const char *const sql[2][2][2] = {
        {{EVENTS_OF_FEED FEED_OLDEST, EVENTS_OF_FEED FEED_NEWEST},
         {EVENTS_OF_FEED "AND l.unit_seq > ?5 AND u.seq > ?3 " FEED_OLDEST,
          EVENTS_OF_FEED "AND l.unit_seq < ?3 AND u.seq < ?3 " FEED_NEWEST}},
        {{EVENTS_OF_UNIT_OLDEST,
          UNIT_CHAIN(UNIT_HEAD, "?6") IN_CAMPAIGN "ORDER BY u.seq DESC "
                                                  "LIMIT ?4"},
         {EVENTS_OF_UNIT_OLDEST,
          UNIT_CHAIN(MARK_AFTER(">=", ""), "?6") IN_CAMPAIGN
          "AND u.seq < ?3 ORDER BY u.seq DESC LIMIT ?4"}}};
    static const char *const sql_feed_pg[2][2] = {
        {EVENTS_OF_FEED_PG "ORDER BY u.seq LIMIT ?4",
         EVENTS_OF_FEED_PG "ORDER BY u.seq DESC LIMIT ?4"},
        {EVENTS_OF_FEED_PG "AND u.seq > ?3 ORDER BY u.seq LIMIT ?4",
         EVENTS_OF_FEED_PG "AND u.seq < ?3 ORDER BY u.seq DESC LIMIT ?4"}};
#undef IN_CAMPAIGN
#undef MARK_AFTER
#undef EVENTS_OF_UNIT_OLDEST
#undef EVENTS_OF_FEED
#undef EVENTS_OF_FEED_PG
#undef FEED_OLDEST
#undef FEED_NEWEST
    bool is_feed = q->unit_id == NULL, is_after = q->after > 0,
         is_log = is_feed && db_conn_sqlite(c) != NULL;
    long long marks = (q->limit + MARK_EVERY - 1) / MARK_EVERY;
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
    if (q->after > 0 || (!is_feed && !q->is_newest_first))
        db_bind_int64(st, 3, q->after);
    db_bind_int(st, 4, q->limit);
    if (is_log && is_after && !q->is_newest_first)
        db_bind_int64(st, 5, q->after - DB_LOG_BLOCK_MAX);
    if (!is_feed && !q->is_newest_first) {
        db_bind_int64(st, 5, marks);
        db_bind_int64(st, 6, (marks + 1) * MARK_EVERY);
    } else if (!is_feed) {
        db_bind_int64(st, 6, q->limit + (is_after ? MARK_EVERY : 0));
    }
    return read_events(c, st, out, n, "read history", e);
}
