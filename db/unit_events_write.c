/*
 * unit_events_write.c: units' history events inserted, and on SQLite
 * logged in the campaign event log; declared in db.h (read back by
 * unit_events.c).  An event names its unit, campaign and combat by their
 * rows' rowids (migration 18); one whose documents are packed in its
 * combat's row (doc_slot, unit_docs.c) takes its time, kind, actor and
 * note from there too.  Each unit's history is a chain (migration 23),
 * kept here on SQLite with the heads and keys SQLite's writer keeps
 * (writer_kept.h).
 * Prepared statements only; every statement is released (db_done) at
 * its function's single exit, and the rows written are the caller's
 * until then, so their text is bound without a copy.
 */
#include "db_sql.h"
#include "unit_events.h"
#include "writer_kept.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rowids that key the history events of one campaign and combat
 * (migration 18), found once for a write's run of them. */
typedef struct event_keys {
    const char *campaign_id, *combat_id; /* whose they are; NULL: none yet */
    long long campaign_row, combat_row;  /* 0 where there is no such row */
} event_keys;

static bool keys_kept(db_conn *c, const db_event *ev, event_keys *k);
static void keys_keep(db_conn *c, const event_keys *k);

/* k for ev's campaign and combat, read again only where they change and
 * the writer does not keep them (keys_kept). */
static err_code find_keys(db_conn *c, const db_event *ev, event_keys *k,
                          err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    if ((k->campaign_id != NULL &&
         strcmp(k->campaign_id, ev->campaign_id) == 0 &&
         strcmp(k->combat_id, ev->combat_id) == 0) ||
        keys_kept(c, ev, k))
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
        keys_keep(c, k);
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

/* A unit's history is a chain (migration 23): each event names the seq
 * of the unit's event before it (prev_seq), unit_heads holds the unit's
 * last (its seq, its number, and n, how many it has), and unit_marks
 * every MARK_EVERY-th of them, so that a page read from anywhere walks a
 * bounded part of the chain (db_events_page).  A combat's events touch
 * its units' heads, rows of one small table (a campaign's units are
 * written together, so their heads share a page or two), rather than an
 * index entry per unit, each on a page of its own (unit_events_by_unit,
 * dropped): the pages written and checksummed at each commit were most
 * of a combat's.  On PostgreSQL a trigger keeps the chain
 * (unit_events_chain, migrations_pg.c): the event's place in it, its
 * number, its unit's head and marks, whoever writes it (an instance of an
 * older build too, during an upgrade that restarts one at a time), in
 * the one statement that inserts it.  On SQLite the one writer keeps it
 * here: a trigger's sub-program at every insert cost more than the
 * statements (about 42k a combat more, under callgrind). */

/* Whether c keeps the keys of ev's campaign and combat: then in k. */
static bool keys_kept(db_conn *c, const db_event *ev, event_keys *k)
{
    const writer_kept *w = db_kept_if(c);

    if (w == NULL || w->campaign_row <= 0 ||
        strcmp(w->campaign_id, ev->campaign_id) != 0 ||
        (ev->combat_id[0] != '\0' &&
         (w->combat_row <= 0 || strcmp(w->combat_id, ev->combat_id) != 0)))
        return false;
    k->campaign_id = ev->campaign_id;
    k->combat_id = ev->combat_id;
    k->campaign_row = w->campaign_row;
    k->combat_row = ev->combat_id[0] != '\0' ? w->combat_row : 0;
    return true;
}

/* The keys k just read, kept where c is SQLite's writer. */
static void keys_keep(db_conn *c, const event_keys *k)
{
    writer_kept *w = db_kept(c);

    if (w == NULL)
        return;
    if (k->campaign_row > 0) {
        snprintf(w->campaign_id, sizeof w->campaign_id, "%s", k->campaign_id);
        w->campaign_row = k->campaign_row;
    }
    if (k->combat_row > 0)
        db_keys_keep_combat(c, k->combat_id, k->combat_row);
}

/* c's kept head of unit_row, or NULL (none kept, or c keeps none). */
static const unit_head *kept_head(db_conn *c, long long unit_row)
{
    const writer_kept *k = db_kept_if(c);
    size_t i = (size_t)unit_row % HEADS_KEPT;

    return k != NULL && k->unit_row[i] == unit_row ? &k->head[i] : NULL;
}

/* Keeps h as unit_row's head, where c is SQLite's writer (not kept when
 * memory is short: read again next time). */
static void keep_head(db_conn *c, long long unit_row, const unit_head *h)
{
    writer_kept *k = db_kept(c);
    size_t i = (size_t)unit_row % HEADS_KEPT;

    if (k == NULL)
        return;
    k->unit_row[i] = unit_row;
    k->head[i] = *h;
}

/* seq, just given to a history event, kept as unit_events' largest, where
 * c is SQLite's writer: rows are only ever added, by this file, and a
 * rollback forgets it with the rest (db_kept_forget). */
static void keep_last_event(db_conn *c, long long seq)
{
    writer_kept *k = db_kept(c);

    if (k != NULL) {
        k->last_event = seq;
        k->has_last_event = true;
    }
}

/* The row of unit id (0: none). */
static err_code unit_row_of(db_conn *c, const char *unit_id, long long *out,
                            err_info *e)
{
    return db_int64_of(c, "SELECT rowid FROM units WHERE id = ?1", unit_id, out,
                       "find a history event's unit", e);
}

static err_code read_head(db_conn *c, long long unit_row, unit_head *h,
                          err_info *e)
{
    const unit_head *kept = kept_head(c, unit_row);
    db_stmt *st = NULL;
    err_code rc;
    int step;

    if (kept != NULL) {
        *h = *kept;
        return ERR_OK;
    }
    memset(h, 0, sizeof *h);
    if ((rc = db_prepare(c,
                         "SELECT seq, unit_seq, n FROM unit_heads "
                         "WHERE unit_row = ?1",
                         &st, e)))
        return rc;
    db_bind_int64(st, 1, unit_row);
    if ((step = db_step(st)) == DB_ROW) {
        h->seq = db_column_int64(st, 0);
        h->unit_seq = db_column_int64(st, 1);
        h->n = db_column_int64(st, 2);
    } else if (step != DB_DONE) {
        rc = db_fail(c, e, "read a unit's last history event");
    }
    db_done(st);
    if (rc == ERR_OK)
        keep_head(c, unit_row, h);
    return rc;
}

/* Unit unit_row's event seq marked (a MARK_EVERY-th). */
static err_code add_mark(db_conn *c, long long unit_row, long long seq,
                         err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c,
                         "INSERT INTO unit_marks (unit_row, seq) "
                         "VALUES (?1, ?2)",
                         &st, e)))
        return rc;
    db_bind_int64(st, 1, unit_row);
    db_bind_int64(st, 2, seq);
    rc = db_step_done(c, st, e, "mark a unit's history event");
    db_done(st);
    return rc;
}

/* The unit's head moved on to its event seq (was: h, read before it),
 * and the event marked when it is a MARK_EVERY-th. */
static err_code move_head(db_conn *c, long long unit_row, const unit_head *h,
                          long long seq, err_info *e)
{
    static const char *const sql[2] = {
        "INSERT INTO unit_heads (seq, unit_seq, n, unit_row) "
        "VALUES (?1, ?2, ?3, ?4)",
        "UPDATE unit_heads SET seq = ?1, unit_seq = ?2, n = ?3 "
        "WHERE unit_row = ?4"};
    const unit_head next = {seq, h->unit_seq + 1, h->n + 1};
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c, sql[h->seq > 0], &st, e)))
        return rc;
    db_bind_int64(st, 1, next.seq);
    db_bind_int64(st, 2, next.unit_seq);
    db_bind_int64(st, 3, next.n);
    db_bind_int64(st, 4, unit_row);
    rc = db_step_done(c, st, e, "move a unit's last history event");
    db_done(st);
    if (rc == ERR_OK)
        keep_head(c, unit_row, &next);
    if (rc != ERR_OK || next.n % MARK_EVERY != 0)
        return rc;
    return add_mark(c, unit_row, seq, e);
}

/* A unit's next number is its last event's plus one: every write of a
 * campaign's events runs one at a time (one writer on SQLite; the
 * campaign's lock on PostgreSQL, db_submit_in), so two events of one unit
 * never take the same, and its head is read and moved by one writer at a
 * time.  The unit, campaign and combat are keyed by their rows' rowids
 * (migration 18): an unknown unit or campaign leaves its key NULL, which
 * the table refuses (an unknown combat, find_keys).  An event in its
 * combat's row (doc_slot) takes its time and kind from there too.  Its
 * seq: SQLite's rowid just given.  On PostgreSQL the trigger sets its
 * number and place and moves the head (unit_events_chain). */
static err_code insert_row(db_conn *c, const db_event *ev, const event_keys *k,
                           err_info *e)
{
    static const char *const sql =
        "INSERT INTO unit_events (unit_row, campaign_row, at, kind, "
        "combat_row, actor_token_id, note, before, after, result, doc_slot, "
        "unit_seq, prev_seq) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
        "?11, ?12, ?13)";
    bool is_lite = db_conn_sqlite(c) != NULL;
    db_stmt *st = NULL;
    long long unit_row = ev->unit_row;
    unit_head h;
    err_code rc;

    memset(&h, 0, sizeof h);
    /* The unit's key: its row where the event knows it (read with the
     * unit), else found by its id. */
    if (unit_row <= 0 && (rc = unit_row_of(c, ev->unit_id, &unit_row, e)))
        return rc;
    if (is_lite && unit_row > 0 && (rc = read_head(c, unit_row, &h, e)))
        return rc;
    if ((rc = db_prepare(c, sql, &st, e)))
        return rc;
    bind_row_or_null(st, 1, unit_row);
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
    db_bind_int64(st, 12, h.unit_seq + 1);
    bind_row_or_null(st, 13, h.seq);
    rc = db_step_done(c, st, e, "insert history event");
    db_done(st);
    if (rc == ERR_OK && is_lite) { /* its seq: the rowid just given */
        keep_last_event(c, db_last_rowid(c));
        rc = move_head(c, unit_row, &h, db_last_rowid(c), e);
    }
    return rc;
}

/* The largest seq of unit_events (0: none), into *out: kept by the
 * writer once known (keep_last_event), else read. */
static err_code last_event_seq(db_conn *c, long long *out, err_info *e)
{
    const writer_kept *k = db_kept_if(c);
    db_stmt *st = NULL;
    err_code rc;

    if (k != NULL && k->has_last_event) {
        *out = k->last_event;
        return ERR_OK;
    }
    if ((rc = db_prepare(c, "SELECT coalesce(max(seq), 0) FROM unit_events",
                         &st, e)))
        return rc;
    if (db_step(st) == DB_ROW)
        *out = db_column_int64(st, 0);
    else
        rc = db_fail(c, e, "read the last history event");
    db_done(st);
    return rc;
}

/* The statements of a run (insert_run), for n rows: the head, then
 * " VALUES " and n copies of the row, comma-separated, then the tail. */
#define RUN_EVENTS_HEAD                                                        \
    "INSERT INTO unit_events (seq, unit_row, campaign_row, combat_row, "       \
    "doc_slot, unit_seq, prev_seq)"
#define RUN_EVENTS_ROW "(?,?,?,?,?,?,?)"
#define RUN_HEADS_HEAD "INSERT INTO unit_heads (unit_row, seq, unit_seq, n)"
#define RUN_HEADS_ROW  "(?,?,?,?)"
#define RUN_HEADS_TAIL                                                         \
    " ON CONFLICT (unit_row) DO UPDATE SET seq = excluded.seq, "               \
    "unit_seq = excluded.unit_seq, n = excluded.n"
enum { RUN_EVENT_ROW = 7, RUN_HEAD_ROW = 4 }; /* parameters a row */
/* The longer of the two, with DB_LOG_BLOCK_MAX rows, and its NUL. */
#define RUN_SQL_MAX(HEAD, ROW, TAIL)                                           \
    (sizeof HEAD - 1 + sizeof " VALUES " - 1 + DB_LOG_BLOCK_MAX * sizeof ROW + \
     sizeof TAIL)
enum {
    RUN_SQL_SIZE =
        RUN_SQL_MAX(RUN_EVENTS_HEAD, RUN_EVENTS_ROW, "") >
                RUN_SQL_MAX(RUN_HEADS_HEAD, RUN_HEADS_ROW, RUN_HEADS_TAIL)
            ? RUN_SQL_MAX(RUN_EVENTS_HEAD, RUN_EVENTS_ROW, "")
            : RUN_SQL_MAX(RUN_HEADS_HEAD, RUN_HEADS_ROW, RUN_HEADS_TAIL)
};

/* head, " VALUES ", n (1..DB_LOG_BLOCK_MAX) copies of row and tail into
 * sql (RUN_SQL_SIZE bytes, which RUN_SQL_MAX says is enough). */
static void run_sql(char sql[RUN_SQL_SIZE], const char *head, const char *row,
                    const char *tail, size_t n)
{
    size_t i, len = strlen(row), k = strlen(head);
    char *p = sql;

    memcpy(p, head, k);
    p += k;
    memcpy(p, " VALUES ", 8);
    p += 8;
    for (i = 0; i < n; i++) {
        if (i > 0)
            *p++ = ',';
        memcpy(p, row, len);
        p += len;
    }
    memcpy(p, tail, strlen(tail) + 1);
}

/* A run of n (at most DB_LOG_BLOCK_MAX) events of one campaign and
 * combat whose documents are in the combat's row (doc_slot), on SQLite's
 * writer only: their rows in one statement, their seqs the n after
 * unit_events' largest (the seqs SQLite gives rows one at a time: the
 * writer is its only one, and no row is ever deleted), and their units'
 * heads moved in one more (an upsert, which decides insert or update row
 * by row, so a unit twice ends at its second), where each event took two
 * statements (its row, then its head).  A unit twice in the run chains
 * its second event onto its first.  The heads kept as soon as they are
 * written, as one at a time kept each; a MARK_EVERY-th event's mark, a
 * statement of its own, as before.  The writer keeps each run length's
 * two statements it meets (64 at most of each). */
static err_code insert_run(db_conn *c, const db_event *const *evs, size_t n,
                           const event_keys *k, long long *first, err_info *e)
{
    long long unit_row[DB_LOG_BLOCK_MAX], prev[DB_LOG_BLOCK_MAX], last = 0;
    unit_head next[DB_LOG_BLOCK_MAX];
    char sql[RUN_SQL_SIZE];
    db_stmt *st = NULL;
    err_code rc = ERR_OK;
    size_t i, j;
    int col;

    assert(db_conn_sqlite(c) != NULL); /* PostgreSQL's trigger chains */
    if (n == 0 || n > DB_LOG_BLOCK_MAX)
        return err_set(e, ERR_DB, NULL, "a run of %zu history events", n);
    if ((rc = last_event_seq(c, &last, e)))
        return rc;
    *first = last + 1;
    for (i = 0; i < n && rc == ERR_OK; i++) {
        unit_head h;
        memset(&h, 0, sizeof h);
        unit_row[i] = evs[i]->unit_row;
        if (unit_row[i] <= 0)
            rc = unit_row_of(c, evs[i]->unit_id, &unit_row[i], e);
        for (j = i; rc == ERR_OK && unit_row[i] > 0 && j-- > 0;)
            if (unit_row[j] == unit_row[i]) {
                h = next[j]; /* its event earlier in the run */
                break;
            }
        if (rc == ERR_OK && unit_row[i] > 0 && h.seq == 0)
            rc = read_head(c, unit_row[i], &h, e);
        prev[i] = h.seq;
        next[i] = (unit_head){last + 1 + (long long)i, h.unit_seq + 1, h.n + 1};
    }
    if (rc != ERR_OK)
        return rc;
    run_sql(sql, RUN_EVENTS_HEAD, RUN_EVENTS_ROW, "", n);
    if ((rc = db_prepare(c, sql, &st, e)))
        return rc;
    for (i = 0, col = 1; i < n; i++, col += RUN_EVENT_ROW) {
        db_bind_int64(st, col, next[i].seq);
        bind_row_or_null(st, col + 1, unit_row[i]);
        bind_row_or_null(st, col + 2, k->campaign_row);
        bind_row_or_null(st, col + 3, k->combat_row);
        db_bind_int(st, col + 4, evs[i]->doc_slot);
        db_bind_int64(st, col + 5, next[i].unit_seq);
        bind_row_or_null(st, col + 6, prev[i]);
    }
    rc = db_step_done(c, st, e, "insert history event");
    db_done(st);
    if (rc != ERR_OK)
        return rc;
    keep_last_event(c, last + (long long)n);
    run_sql(sql, RUN_HEADS_HEAD, RUN_HEADS_ROW, RUN_HEADS_TAIL, n);
    if ((rc = db_prepare(c, sql, &st, e)))
        return rc;
    for (i = 0, col = 1; i < n; i++, col += RUN_HEAD_ROW) {
        db_bind_int64(st, col, unit_row[i]);
        db_bind_int64(st, col + 1, next[i].seq);
        db_bind_int64(st, col + 2, next[i].unit_seq);
        db_bind_int64(st, col + 3, next[i].n);
    }
    rc = db_step_done(c, st, e, "move a unit's last history event");
    db_done(st);
    for (i = 0; i < n && rc == ERR_OK; i++)
        keep_head(c, unit_row[i], &next[i]);
    for (i = 0; i < n && rc == ERR_OK; i++)
        if (next[i].n % MARK_EVERY == 0)
            rc = add_mark(c, unit_row[i], next[i].seq, e);
    return rc;
}

/* A run of PostgreSQL's (insert_run_pg) is at most this long: its
 * statement binds 2 + 2 n parameters, under the 64 sql_pg.c allows. */
enum { PG_RUN_MAX = 16 };

/* A run of n (at most PG_RUN_MAX) events of one campaign and combat whose
 * documents are in the combat's row (doc_slot), on PostgreSQL: their rows
 * in one statement, one round trip where each event took its own, inside
 * the campaign's lock.  The trigger unit_events_chain (migration 23) runs
 * for each row in turn, as for rows inserted one at a time: their seqs
 * are given in the order of the rows, and each row's trigger sees the
 * heads the rows before it moved. */
static err_code insert_run_pg(db_conn *c, const db_event *const *evs, size_t n,
                              const event_keys *k, err_info *e)
{
    static const char head[] = "INSERT INTO unit_events (unit_row, "
                               "campaign_row, combat_row, doc_slot) VALUES ";
    char sql[sizeof head + PG_RUN_MAX * sizeof "(?99,?1,?2,?99),"];
    long long unit_row[PG_RUN_MAX];
    db_stmt *st = NULL;
    err_code rc = ERR_OK;
    size_t i, len = sizeof head - 1;

    assert(n >= 1 && n <= PG_RUN_MAX);
    memcpy(sql, head, len);
    for (i = 0; i < n && rc == ERR_OK; i++) {
        unit_row[i] = evs[i]->unit_row;
        if (unit_row[i] <= 0)
            rc = unit_row_of(c, evs[i]->unit_id, &unit_row[i], e);
        len +=
            (size_t)snprintf(sql + len, sizeof sql - len, "%s(?%zu,?1,?2,?%zu)",
                             i > 0 ? "," : "", 3 + 2 * i, 4 + 2 * i);
    }
    if (rc != ERR_OK || (rc = db_prepare(c, sql, &st, e)))
        return rc;
    bind_row_or_null(st, 1, k->campaign_row);
    bind_row_or_null(st, 2, k->combat_row);
    for (i = 0; i < n; i++) {
        bind_row_or_null(st, 3 + 2 * (int)i, unit_row[i]);
        db_bind_int(st, 4 + 2 * (int)i, evs[i]->doc_slot);
    }
    rc = db_step_done(c, st, e, "insert history events");
    db_done(st);
    return rc;
}

/* The campaign's n events just inserted logged in the event log (SQLite
 * only; see db_events_insert).  A block (is_block) is one row for n
 * events whose documents are in their combat's row: its seq the last of
 * the n places it takes, the n - 1 before it left to its events, and
 * unit_seq the first event's seq.  Otherwise n is 1, an event whose
 * documents are its own, logged as the trigger of migration 10 did: a
 * row of its own, without n, its seq unit_events' largest: the writer
 * is SQLite's only one and the row was the last inserted (rowids taken
 * as the largest plus one: no row of either table is ever deleted).  A
 * block's first seq is first, as insert_run gave it. */
static err_code log_events(db_conn *c, const char *campaign_id, int n,
                           bool is_block, long long first, err_info *e)
{
    static const char *const sql[2] = {
        "INSERT INTO event_log (campaign_id, kind, unit_seq) VALUES (?1, "
        "'unit', (SELECT max(seq) FROM unit_events))",
        "INSERT INTO event_log (seq, campaign_id, kind, unit_seq, n) VALUES "
        "(coalesce((SELECT max(seq) FROM event_log), 0) + ?2, ?1, 'unit', "
        "?3, ?2)"};
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c, sql[is_block], &st, e)) == ERR_OK) {
        db_bind_text(st, 1, campaign_id);
        if (is_block) {
            db_bind_int(st, 2, n);
            db_bind_int64(st, 3, first);
        }
        rc = db_step_done(c, st, e, "log history events");
    }
    db_done(st);
    return rc;
}

err_code db_events_insert(db_conn *c, const db_event *const *evs, size_t n,
                          err_info *e)
{
    return db_events_insert_logged(c, evs, n, NULL, e);
}

err_code db_events_insert_logged(db_conn *c, const db_event *const *evs,
                                 size_t n, db_combat_log *held, err_info *e)
{
    /* On SQLite this logs every event it inserts (migration 18 dropped
     * the trigger that logged some: one less sub-program run per event):
     * an event whose documents are its own, a row of its own; a run of
     * events of one combat whose documents are in its row (doc_slot),
     * inserted together (insert_run), one block row of up to
     * DB_LOG_BLOCK_MAX (migration 17).  On PostgreSQL the trigger
     * event_log_unit_events logs every event: identity numbers are not
     * handed out as a run.  A run there is still one statement
     * (insert_run_pg). */
    bool is_sqlite = db_conn_sqlite(c) != NULL;
    event_keys keys = {NULL, NULL, 0, 0};
    err_code rc = ERR_OK;
    size_t i;

    /* The combat's row held back goes first: with the first run below
     * where its events start one (migration 27), else alone, now. */
    if (held != NULL && held->is_pending &&
        !(is_sqlite && n > 0 && evs[0]->doc_slot > 0 &&
          strcmp(evs[0]->campaign_id, held->campaign_id) == 0 &&
          strcmp(evs[0]->combat_id, held->combat_id) == 0) &&
        (rc = db_log_combat_held(c, held, 0, 0, e)))
        return rc;
    for (i = 0; i < n && rc == ERR_OK;) {
        size_t run = 1;
        long long first = 0;

        if ((rc = find_keys(c, evs[i], &keys, e)))
            break;
        if (evs[i]->doc_slot <= 0) {
            if ((rc = insert_row(c, evs[i], &keys, e)) == ERR_OK && is_sqlite)
                rc = log_events(c, evs[i]->campaign_id, 1, false, 0, e);
            i++;
            continue;
        }
        /* A run of packed events of its campaign and combat: its rows,
         * then, on SQLite, one block row of the log. */
        while (i + run < n &&
               run < (is_sqlite ? DB_LOG_BLOCK_MAX : PG_RUN_MAX) &&
               evs[i + run]->doc_slot > 0 &&
               strcmp(evs[i + run]->campaign_id, evs[i]->campaign_id) == 0 &&
               strcmp(evs[i + run]->combat_id, evs[i]->combat_id) == 0)
            run++;
        if (!is_sqlite) {
            rc = insert_run_pg(c, evs + i, run, &keys, e);
            i += run;
            continue;
        }
        if ((rc = insert_run(c, evs + i, run, &keys, &first, e)) != ERR_OK)
            break;
        if (i == 0 && held != NULL && held->is_pending)
            rc = db_log_combat_held(c, held, first, (int)run, e);
        else
            rc = log_events(c, evs[i]->campaign_id, (int)run, true, first, e);
        i += run;
    }
    return rc;
}

err_code db_event_insert(db_conn *c, const db_event *ev, err_info *e)
{
    return db_events_insert(c, &ev, 1, e);
}
