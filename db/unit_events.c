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

/* The columns a unit's page reads after its events' (PAGE_OF_UNIT), of
 * the event's combat row k, as keep_combat reads them: its rowid (NULL:
 * none), then what it holds; its rolls where ROLLS_PACKED_SQL (log.c)
 * reads them packed. */
#define PAGE_COMBAT_COLUMNS                                                    \
    "k.rowid, k.system, k.report, k.unit_docs, k.actor_token_id, k.note, "     \
    "CASE WHEN k.campaign_id IS NULL OR k.ledger_first IS NOT NULL THEN "      \
    "k.rolls END, coalesce(k.ledger_first, 0) "
enum { PAGE_COMBAT_COL = 14 }; /* after the event's 13 and its kr */

/* ev's documents from text, its combat's documents unpacked (as
 * unit_docs_fill fills them), with the combat's actor and note at column
 * col of st on; on any failure none, left to unit_docs_fill (which reads
 * the row again, and reports it). */
static void take_docs(db_stmt *st, int col, db_event *ev, const char *text)
{
    char actor[DB_ID_MAX];
    err_info why;

    db_column_copy(st, col, actor, sizeof actor);
    err_clear(&why);
    if (unit_docs_take(ev, text, actor,
                       (const char *)db_column_text(st, col + 1),
                       &why) == ERR_OK)
        return;
    free(ev->before);
    free(ev->after);
    free(ev->result);
    ev->before = ev->after = ev->result = NULL;
}

/* Keeps in ev what its combat's row, at column col of st on
 * (PAGE_COMBAT_COLUMNS), holds for it, each where it is stored as today
 * and reads: its system and facts, the unit's rolls, and its packed
 * documents (with the combat's actor and note where the event has none,
 * as unit_docs_fill gives them).  Anything else, or anything that fails,
 * is left to be read apart, which reports the failure.  Each value is
 * used before the next is read (on PostgreSQL, reading a blob frees the
 * one before: sql_pg.c). */
static void keep_combat(db_stmt *st, int col, db_event *ev)
{
    const void *z;
    size_t zn, i, k = 0;
    db_roll *rolls = NULL, *fit;
    char *text;
    err_info why;

    if (db_column_type(st, col) == DB_NULL) /* no combat row */
        return;
    db_column_copy(st, col + 1, ev->system, sizeof ev->system);
    if (db_column_type(st, col + 2) == DB_BLOB &&
        db_is_facts(z = db_column_blob(st, col + 2),
                    zn = (size_t)db_column_bytes(st, col + 2)) &&
        db_facts_unwrap(z, zn, &ev->facts, &ev->facts_len) != ERR_OK) {
        ev->facts = NULL;
        ev->facts_len = 0;
    }
    if (ev->doc_slot > 0 && ev->after == NULL &&
        db_column_type(st, col + 3) == DB_BLOB &&
        db_doc_is_dict(z = db_column_blob(st, col + 3),
                       zn = (size_t)db_column_bytes(st, col + 3)) &&
        (text = db_doc_text(z, zn)) != NULL) {
        take_docs(st, col + 4, ev, text);
        free(text);
    }
    if (db_column_type(st, col + 6) == DB_NULL ||
        (db_column_type(st, col + 6) == DB_BLOB &&
         db_is_after_report(db_column_blob(st, col + 6),
                            (size_t)db_column_bytes(st, col + 6))))
        return;
    err_clear(&why);
    if (db_column_rolls_read(st, col + 6, db_column_int64(st, col + 7),
                             ev->unit_id, &rolls, &ev->n_rolls,
                             &why) != ERR_OK) {
        free(rolls);
        ev->n_rolls = 0;
        return;
    }
    for (i = 0; i < ev->n_rolls; i++)
        if (strcmp(rolls[i].unit_id, ev->unit_id) == 0)
            rolls[k++] = rolls[i];
    /* the combat's rolls, the unit's kept: no more room held than those
     * (a page holds them all until it is written) */
    if (k == 0) {
        free(rolls);
        rolls = NULL;
    } else if (k < ev->n_rolls && (fit = realloc(rolls, k * sizeof *rolls))) {
        rolls = fit;
    }
    ev->rolls = rolls;
    ev->n_rolls = k;
    ev->has_rolls = true;
}

static void read_page_row(db_stmt *st, void *elem)
{
    history_event_read(st, 0, elem);
    keep_combat(st, PAGE_COMBAT_COL, elem);
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

/* db_read_rows of events, each read by row, then their documents: *out
 * and *n as there, freed and cleared on failure. */
static err_code read_events(db_conn *c, db_stmt *st,
                            void (*row)(db_stmt *, void *), db_event **out,
                            size_t *n, const char *what, err_info *e)
{
    void *rows;
    err_code rc = db_read_rows(c, st, sizeof **out, row, release_events, &rows,
                               n, what, e);

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
#define UNIT_CHAIN_OF(COLUMNS, START, BOUND)                                   \
    "WITH RECURSIVE ch(s, d) AS (SELECT " START ", 0 UNION ALL "               \
    "SELECT u.prev_seq, ch.d + 1 FROM ch JOIN unit_events u ON u.seq = ch.s "  \
    "WHERE u.prev_seq IS NOT NULL AND ch.d < " BOUND ") "                      \
    "SELECT " COLUMNS "FROM ch JOIN unit_events u "                            \
    "ON u.seq = ch.s " HISTORY_EVENT_JOINS
#define UNIT_CHAIN(START, BOUND)                                               \
    UNIT_CHAIN_OF(HISTORY_EVENT_COLUMNS, START, BOUND)

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
    return read_events(c, st, read_event_row, out, n, "list history", e);
}

void db_events_free(db_event *evs, size_t n)
{
    size_t i;

    for (i = 0; evs && i < n; i++) {
        free(evs[i].note);
        free(evs[i].before);
        free(evs[i].after);
        free(evs[i].result);
        free(evs[i].facts);
        free(evs[i].rolls);
    }
    free(evs);
}

/* qsort's orders of events by seq. */
static int by_seq_up(const void *a, const void *b)
{
    long long x = ((const db_event *)a)->seq, y = ((const db_event *)b)->seq;

    return (x > y) - (x < y);
}

static int by_seq_down(const void *a, const void *b)
{
    return by_seq_up(b, a);
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
/* A unit's page, its chain's rows (ROWS) with what each one's combat row
 * holds for it (PAGE_COMBAT_COLUMNS), read once the page's rows are
 * chosen: in no order (sorted after, by_seq), which spares sorting them
 * again with their combats' values (about a seventh of a page's work). */
#define PAGE_OF_UNIT(START, ROWS)                                              \
    "SELECT p.*, " PAGE_COMBAT_COLUMNS "FROM (" UNIT_CHAIN_OF(                 \
        HISTORY_EVENT_COLUMNS ", u.combat_row AS kr ", START, "?6")            \
        IN_CAMPAIGN ROWS ") p LEFT JOIN combats k ON k.rowid = p.kr "
#define EVENTS_OF_UNIT_OLDEST                                                  \
    PAGE_OF_UNIT(MARK_AFTER(">", " OFFSET ?5"),                                \
                 "AND u.seq > ?3 ORDER BY u.seq LIMIT ?4")
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
          PAGE_OF_UNIT(UNIT_HEAD, "ORDER BY u.seq DESC LIMIT ?4")},
         {EVENTS_OF_UNIT_OLDEST,
          PAGE_OF_UNIT(MARK_AFTER(">=", ""),
                       "AND u.seq < ?3 ORDER BY u.seq DESC LIMIT ?4")}}};
    static const char *const sql_feed_pg[2][2] = {
        {EVENTS_OF_FEED_PG "ORDER BY u.seq LIMIT ?4",
         EVENTS_OF_FEED_PG "ORDER BY u.seq DESC LIMIT ?4"},
        {EVENTS_OF_FEED_PG "AND u.seq > ?3 ORDER BY u.seq LIMIT ?4",
         EVENTS_OF_FEED_PG "AND u.seq < ?3 ORDER BY u.seq DESC LIMIT ?4"}};
#undef IN_CAMPAIGN
#undef MARK_AFTER
#undef EVENTS_OF_UNIT_OLDEST
#undef PAGE_OF_UNIT
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
    if (is_feed)
        return read_events(c, st, read_event_row, out, n, "read history", e);
    rc = read_events(c, st, read_page_row, out, n, "read history", e);
    if (rc == ERR_OK && *n > 1)
        qsort(*out, *n, sizeof **out,
              q->is_newest_first ? by_seq_down : by_seq_up);
    return rc;
}
