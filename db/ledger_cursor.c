/*
 * ledger_cursor.c: the campaign ledger's entries read as they are sent
 * (docs/ledger.md), a row at a time, for an export, a part of it after a
 * position or up to one, or one combat's own (db_ledger_cursor_open and
 * its kin, declared in db.h): a part's records found through the
 * campaign's event log, where each move of the ledger is logged beside
 * its record.  The rows made entries are ledger_rows.c's.
 */
#include "db_sql.h"
#include "ledger_rows.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The records of kind KIND ('combat' or 'battle') that the campaign's
 * event log names between its seqs LO and HI (parameters), as the table
 * l, the first of a join (CROSS JOIN: SQLite reads it first, rather than
 * every record of the campaign).  A part of the ledger reads its records
 * from there (ledger_log_reach says which seqs), where LEDGER_ROWS_SQL's
 * ranges (ledger_rows.h) read every combat of the campaign to find those
 * with entries in it. */
#define LOGGED(KIND, LO, HI)                                                   \
    "(SELECT DISTINCT record_id FROM event_log WHERE campaign_id = ?1 AND "    \
    "kind = '" KIND "' AND seq >= " LO " AND seq <= " HI ") l CROSS JOIN "
/* The records of each kind that the log names between seqs ?4 and ?5. */
#define LOGGED_COMBATS LOGGED("combat", "?4", "?5")
#define LOGGED_BATTLES LOGGED("battle", "?4", "?5")
/* LEDGER_ROWS_SQL for the records the log names between seqs ?4 and ?5. */
#define LEDGER_LOGGED_ROWS_SQL                                                 \
    LEDGER_PACKED_COLUMNS                                                      \
    "FROM " LOGGED_COMBATS "combats c "                                        \
    "WHERE c.id = l.record_id AND " LEDGER_PACKED_RANGE                        \
    "UNION ALL " LEDGER_ROLLS_COLUMNS "FROM " LOGGED_COMBATS                   \
    "rolls r JOIN combats c ON c.id = r.combat_id "                            \
    "WHERE r.combat_id = l.record_id AND " LEDGER_ROLLS_RANGE                  \
    "UNION ALL " LEDGER_ACTIONS_COLUMNS "FROM " LOGGED_BATTLES                 \
    "battle_actions a JOIN battles b ON b.id = a.battle_id "                   \
    "WHERE a.battle_id = l.record_id AND " LEDGER_ACTIONS_RANGE "ORDER BY 2"

/* The records whose dice seed the ledger's entries from position ?3 up
 * to ?2, as the export lists them: the campaign's combats that have
 * entries there (a battle's record has none: its actions do), in the
 * order they were written, then its battles, an open one's seed
 * withheld: every battle for the whole ledger, those with entries there
 * for a part of it.  (A battle's seed is revealed by the action that
 * closes it, an entry of its own: a part after a position holds every
 * seed revealed since.)  The columns: id, source, commitment, seed,
 * client seed. */
#define LEDGER_BATTLE_SEED_COLUMNS                                             \
    "SELECT b.id, b.dice_source, b.commitment, CASE b.status WHEN 'open' "     \
    "THEN NULL ELSE b.server_seed END, b.client_seed "
#define LEDGER_BATTLE_SEEDS                                                    \
    LEDGER_BATTLE_SEED_COLUMNS "FROM battles b WHERE b.campaign_id = ?1 "
#define LEDGER_COMBAT_SEEDS                                                    \
    "SELECT c.id, c.dice_source, c.commitment, c.server_seed, c.client_seed "
/* A combat's entries from position ?3 up to ?2, packed or kept as rows. */
#define LEDGER_COMBAT_IN_RANGE                                                 \
    "((c.ledger_first <= ?2 AND c.ledger_first >= ?3) OR EXISTS (SELECT 1 "    \
    "FROM rolls r WHERE r.combat_id = c.id AND r.ledger_pos <= ?2 AND "        \
    "r.ledger_pos >= ?3)) "
#define LEDGER_BATTLE_IN_RANGE                                                 \
    "EXISTS (SELECT 1 FROM battle_actions a WHERE a.battle_id = b.id AND "     \
    "a.ledger_pos <= ?2 AND a.ledger_pos >= ?3) "
/* [0] combats with entries from ?3 up to ?2, [1] every battle, [2]
 * battles with entries there; [3] and [4], [0] and [2] for the records
 * the log names between seqs ?4 and ?5. */
static const char *const ledger_seeds_sql[5] = {
    LEDGER_COMBAT_SEEDS "FROM combats c WHERE c.campaign_id = ?1 "
                        "AND " LEDGER_COMBAT_IN_RANGE "ORDER BY c.rowid",
    LEDGER_BATTLE_SEEDS "ORDER BY b.created_at, b.rowid",
    LEDGER_BATTLE_SEEDS "AND " LEDGER_BATTLE_IN_RANGE
                        "ORDER BY b.created_at, b.rowid",
    LEDGER_COMBAT_SEEDS "FROM " LOGGED_COMBATS "combats c "
                        "WHERE c.id = l.record_id AND c.campaign_id = ?1 "
                        "AND " LEDGER_COMBAT_IN_RANGE "ORDER BY c.rowid",
    LEDGER_BATTLE_SEED_COLUMNS
    "FROM " LOGGED_BATTLES "battles b "
    "WHERE b.id = l.record_id AND b.campaign_id = ?1 "
    "AND " LEDGER_BATTLE_IN_RANGE "ORDER BY b.created_at, b.rowid"};

/* One combat's entries and seeds (db_ledger_cursor_open_combat), found
 * by its id (?4) rather than by the campaign's range of positions: its
 * packed rolls or its rolls kept as rows, from ?3 up to ?2.  No battle action
 * lies among a combat's consecutive positions, so no battle's seed either. */
static const char combat_rows_sql[] = LEDGER_PACKED_SELECT
    "WHERE c.id = ?4 AND " LEDGER_PACKED_RANGE "UNION ALL " LEDGER_ROLLS_SELECT
    "WHERE r.combat_id = ?4 AND " LEDGER_ROLLS_RANGE "ORDER BY 2";
static const char combat_seeds_sql[] =
    LEDGER_COMBAT_SEEDS "FROM combats c WHERE c.id = ?4 AND c.campaign_id = ?1 "
                        "AND " LEDGER_COMBAT_IN_RANGE;

struct db_ledger_cursor {
    db_conn *c;
    /* The cursor's own statements, finalized at close (seeds[1], the
     * battles', NULL when it reads none); seed_part the one of seeds being
     * read. */
    db_stmt *entries, *seeds[2];
    int seed_part;
    long long after; /* the entries up to it are read, not given */
    long long upto;  /* the last position given; LLONG_MAX: all */
    bool is_past;    /* an entry past upto was read: the entries end */
    /* The keys and hash of the entry read last (prev_from), kind
     * LEDGER_ACTION before any. */
    db_ledger_row last;
    /* The entries of the row read last (read_entries: a combat's packed
     * rolls, each), given one by one: [next, n_pending) still to give. */
    db_ledger_row *pending;
    size_t n_pending, next, cap;
};

/* The first move of the campaign's ledger logged at seq s or after (a
 * row of its event log with a head: a 'ledger' row, or SQLite's combat
 * logged with its move), its seq and the ledger's length after it, on
 * st (bound to the campaign); 0 when none, -1 on error. */
static int move_from(db_conn *c, db_stmt *st, long long s, long long *seq,
                     long long *n, err_info *e)
{
    int step;

    db_reset(st);
    db_bind_int64(st, 2, s);
    if ((step = db_step(st)) == DB_ROW) {
        *seq = db_column_int64(st, 0);
        *n = db_column_int64(st, 1);
        return 1;
    }
    if (step == DB_DONE)
        return 0;
    db_fail(c, e, "read the ledger's moves in the event log");
    return -1;
}

/* The halving of move_from as one statement (one round trip on
 * PostgreSQL, where each probe was one): the least seq in [?2, ?3] from
 * which the first move is past the length ?4 (?3 when none is), each step
 * of the recursion a probe (PROBE) at the middle of the range it halves
 * (MID), keeping the half that holds the answer. */
#define MID(LO, HI) "(" LO " + (" HI " - " LO ") / 2)"
#define PROBE(AT)                                                              \
    "(SELECT n FROM event_log WHERE campaign_id = ?1 AND seq >= " AT           \
    " AND head IS NOT NULL ORDER BY seq LIMIT 1)"
#define PAST        "(m IS NULL OR m > ?4)"
#define NEXT_LO     "CASE WHEN " PAST " THEN lo ELSE " MID("lo", "hi") " + 1 END"
#define NEXT_HI     "CASE WHEN " PAST " THEN " MID("lo", "hi") " ELSE hi END"
#define PROBE_FIRST PROBE(MID("CAST(?2 AS BIGINT)", "CAST(?3 AS BIGINT)"))
#define PROBE_NEXT  PROBE(MID(NEXT_LO, NEXT_HI))
static const char search_sql[] =
    "WITH RECURSIVE b(lo, hi, m) AS ("
    "SELECT CAST(?2 AS BIGINT), CAST(?3 AS BIGINT), " PROBE_FIRST " "
    "UNION ALL SELECT " NEXT_LO ", " NEXT_HI ", " PROBE_NEXT " "
    "FROM b WHERE lo < hi) SELECT lo FROM b WHERE lo >= hi";

/* A part read through the event log rather than as the whole ledger is
 * (every record of the campaign): any part of a ledger shorter than
 * part_whole_from entries, else one of half its entries or fewer.  A
 * longer part of a long ledger (one from near its start) reads faster
 * whole: for all but the first of 800,000 entries, about 6 s against 8 s
 * through the log.  Counted for tests (db_ledger_parts_stats). */
static _Atomic long long part_whole_from = 4096;
static _Atomic long long n_parts_logged, n_parts_whole;

void db_ledger_parts_whole_from(long long entries)
{
    part_whole_from = entries;
}

void db_ledger_parts_stats(long long *logged, long long *whole)
{
    *logged = n_parts_logged;
    *whole = n_parts_whole;
}

/* The campaign's ledger's length, as its row records it (0: none). */
static err_code ledger_length(db_conn *c, const char *campaign_id,
                              long long *length, err_info *e)
{
    return db_int64_of(c, "SELECT ledger_length FROM campaigns WHERE id = ?1",
                       campaign_id, length, "read the ledger's length", e);
}

/* Whether the part after position after, up to upto (below 0: the end),
 * of a ledger of length entries, is read through the log. */
static bool part_is_narrow(long long after, long long upto, long long length)
{
    long long last = upto < 0 || upto > length ? length : upto;

    return length < part_whole_from || last - after <= length / 2;
}

/* search_sql's answer for campaign_id's moves, seqs lo to hi, past the
 * length bound, into *out. */
static err_code search_from(db_conn *c, const char *campaign_id, long long lo,
                            long long hi, long long bound, long long *out,
                            err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;

    if ((rc = db_prepare(c, search_sql, &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    db_bind_int64(st, 2, lo);
    db_bind_int64(st, 3, hi);
    db_bind_int64(st, 4, bound);
    if (db_step(st) == DB_ROW)
        *out = db_column_int64(st, 0);
    else
        rc = db_fail(c, e, "search the ledger's moves in the event log");
    db_done(st);
    return rc;
}

/*
 * Where in the campaign's event log the records with entries after
 * position after, up to upto (below 0: to the end), are logged: between
 * its seqs reach[0] and reach[1].  Each move of the ledger is logged in
 * the transaction that makes it, and its record's row (a combat's, a
 * battle's action's) beside it: the same row (SQLite's combat since
 * migration 25), the row before (SQLite's before that, a battle's
 * action, PostgreSQL's) or, as builds of PostgreSQL's store once wrote a
 * combat, the row after; always between the moves before and after its
 * own.  The lengths the moves log grow with their seqs (one writer at a
 * time moves a campaign's ledger), so the first move past a length is
 * found by halving the seqs (search_sql, one statement), each probe the
 * rows of event_log_by_campaign from its seq to the next move (the events
 * between that move nothing, unit edits and battles' changes of status,
 * are walked: a long run of them makes each probe longer).  The records from
 * the move that holds after + 1 are logged after the move before it, and those
 * up to upto before the move after the first move past upto.  Where the log
 * holds no such move (or none before the first that is: a ledger made before
 * the log, migration 10, is logged as one move after its records), the
 * bound is the log's own end; where the campaign has no row in the log,
 * *has_log is false.  The answer only narrows which records are read:
 * their entries are still chosen by position.
 */
static err_code ledger_log_reach(db_conn *c, const char *campaign_id,
                                 long long after, long long upto,
                                 long long reach[2], bool *has_log, err_info *e)
{
    long long bound[2] = {after, upto}, ends[2] = {0, 0};
    db_stmt *st = NULL;
    err_code rc = ERR_OK;
    int i, got;

    reach[0] = 0;
    reach[1] = LLONG_MAX;
    *has_log = false;
    if ((rc = db_prepare(c,
                         "SELECT (SELECT min(seq) FROM event_log WHERE "
                         "campaign_id = ?1), (SELECT max(seq) FROM event_log "
                         "WHERE campaign_id = ?1)",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    if (db_step(st) == DB_ROW) {
        ends[0] = db_column_int64(st, 0);
        ends[1] = db_column_int64(st, 1);
    } else {
        rc = db_fail(c, e, "read the event log's ends");
    }
    db_done(st);
    if (rc != ERR_OK || ends[1] <= 0)
        return rc;
    *has_log = true;
    if ((rc = db_prepare(c,
                         "SELECT seq, n FROM event_log WHERE campaign_id = ?1 "
                         "AND seq >= ?2 AND head IS NOT NULL ORDER BY seq "
                         "LIMIT 1",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    for (i = 0; i < 2 && rc == ERR_OK; i++) {
        /* The least seq from which the first move is past bound[i]. */
        long long lo = ends[0], hi = ends[1] + 1, seq = 0, n = 0;
        if (bound[i] < 0 || (i == 0 && bound[i] == 0))
            continue; /* from the log's start, or to its end */
        if ((rc = search_from(c, campaign_id, lo, hi, bound[i], &lo, e)))
            break;
        if (i == 0) {
            reach[0] = lo;
        } else if ((got = move_from(c, st, lo, &seq, &n, e)) < 0 ||
                   (got == 1 &&
                    (got = move_from(c, st, seq + 1, &seq, &n, e)) < 0)) {
            rc = ERR_DB;
        } else if (got == 1) {
            reach[1] = seq; /* the move after the first past upto */
        }
    }
    db_done(st);
    return rc;
}

/* read_from's statements: among every combat of the campaign, or those
 * the log names between its seqs ?3 and ?4. */
#define FROM_COMBATS LOGGED("combat", "?3", "?4")
static const char *const from_sql[2] = {
    "SELECT ledger_first, rolls FROM combats WHERE campaign_id = ?1 AND "
    "ledger_first <= ?2 ORDER BY ledger_first DESC LIMIT 1",
    "SELECT c.ledger_first, c.rolls FROM " FROM_COMBATS "combats c "
    "WHERE c.id = l.record_id AND c.campaign_id = ?1 "
    "AND c.ledger_first <= ?2 ORDER BY c.ledger_first DESC LIMIT 1"};

/* Where the entries after position after begin to be read: the first
 * position of the combat whose packed rolls hold after + 1 (the rolls
 * before it in that combat are read to chain it, not given), else
 * after + 1.  A combat's rolls are at consecutive positions, so none but
 * its own lie between: the records with entries from there are exactly
 * those the entries given name. */
static err_code read_from(db_conn *c, const char *campaign_id, long long after,
                          const long long *logged, long long *from, err_info *e)
{
    db_roll *rolls = NULL;
    db_stmt *st = NULL;
    size_t n = 0;
    err_code rc;
    int step;

    *from = after + 1;
    if (after <= 0)
        return ERR_OK;
    /* The last combat with packed rolls from after + 1 or before (among
     * those the log names between its seqs logged[0] and [1], unless
     * logged is NULL). */
    if ((rc = db_prepare(c, from_sql[logged != NULL], &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    db_bind_int64(st, 2, after + 1);
    if (logged != NULL) {
        db_bind_int64(st, 3, logged[0]);
        db_bind_int64(st, 4, logged[1]);
    }
    if ((step = db_step(st)) == DB_ROW) {
        long long first = db_column_int64(st, 0);
        rc = db_column_rolls_read(st, 1, first, NULL, &rolls, &n, e);
        if (rc == ERR_NOMEM) {
            /* stays the caller's error */
        } else if (rc != ERR_OK || first + (long long)n > after + 1) {
            /* It holds after + 1 (or does not read: read it whole, as
             * the whole export does, its entry then failing its check). */
            err_clear(e);
            rc = ERR_OK;
            *from = first;
        }
        free(rolls);
    } else if (step != DB_DONE) {
        rc = db_fail(c, e, "read where the ledger's part begins");
    }
    db_done(st);
    return rc;
}

/* A new cursor on c giving the entries after after up to upto, read by
 * the statements of entries_sql, and of the combats' and the battles'
 * seeds (battles_sql NULL: none), prepared as its own (not the
 * connection's shared ones: they stay open between the turns of a
 * stream), their parameters for the caller to bind. */
static err_code cursor_new(db_conn *c, long long after, long long upto,
                           const char *entries_sql, const char *combats_sql,
                           const char *battles_sql, db_ledger_cursor **out,
                           err_info *e)
{
    db_ledger_cursor *cur = calloc(1, sizeof *cur);
    err_code rc;

    *out = NULL;
    if (cur == NULL)
        return err_set(e, ERR_NOMEM, NULL, "out of memory");
    cur->c = c;
    cur->last.kind = LEDGER_ACTION; /* none read yet */
    cur->after = after;
    cur->upto = upto;
    if ((rc = db_prepare_own(c, entries_sql, &cur->entries, e)) ||
        (rc = db_prepare_own(c, combats_sql, &cur->seeds[0], e)) ||
        (battles_sql != NULL &&
         (rc = db_prepare_own(c, battles_sql, &cur->seeds[1], e)))) {
        db_ledger_cursor_close(cur);
        return rc;
    }
    *out = cur;
    return ERR_OK;
}

err_code db_ledger_cursor_open(db_conn *c, const char *campaign_id,
                               long long after, long long upto,
                               bool is_all_seeds, db_ledger_cursor **out,
                               err_info *e)
{
    db_ledger_cursor *cur;
    bool is_part = upto >= 0;
    /* The seeds of the records of the entries given only, or every one's
     * (the whole ledger's: from position 1, every battle). */
    bool is_named = is_part || (after > 0 && !is_all_seeds);
    long long from;
    err_code rc;
    int i;

    /* A part (after a position, or up to one) reads the records the
     * event log names around it, where it is short enough
     * (part_is_narrow) and the log holds the ledger's moves; the whole
     * ledger, or a longer part, every record of the campaign. */
    bool is_logged = after > 0 || is_part, has_log = false;
    long long logged[2] = {0, LLONG_MAX}, length = 0;

    *out = NULL;
    if (is_logged) {
        if ((rc = ledger_length(c, campaign_id, &length, e)))
            return rc;
        is_logged = part_is_narrow(after, is_part ? upto : -1, length);
    }
    if (is_logged &&
        (rc = ledger_log_reach(c, campaign_id, after, is_part ? upto : -1,
                               logged, &has_log, e)))
        return rc;
    is_logged = is_logged && has_log;
    if (is_logged)
        n_parts_logged++;
    else if (after > 0 || is_part)
        n_parts_whole++;
    if ((rc = read_from(c, campaign_id, after, is_logged ? logged : NULL, &from,
                        e)) ||
        (rc = cursor_new(c, after > 0 ? after : 0, is_part ? upto : LLONG_MAX,
                         is_logged ? LEDGER_LOGGED_ROWS_SQL : LEDGER_ROWS_SQL,
                         ledger_seeds_sql[is_logged && is_named ? 3 : 0],
                         ledger_seeds_sql[!is_named   ? 1
                                          : is_logged ? 4
                                                      : 2],
                         &cur, e)))
        return rc;
    db_bind_text(cur->entries, 1, campaign_id);
    db_bind_int64(cur->entries, 2, cur->upto);
    /* Entry after itself read too (not given), when it comes first: a
     * roll kept as a row (before migration 15) takes its previous hash
     * from it, as packed rolls take theirs from the roll before. */
    db_bind_int64(cur->entries, 3, after > 0 && after < from ? after : from);
    if (is_logged) {
        db_bind_int64(cur->entries, 4, logged[0]);
        db_bind_int64(cur->entries, 5, logged[1]);
    }
    for (i = 0; i < 2; i++) {
        db_bind_text(cur->seeds[i], 1, campaign_id);
        if (i == 0 || is_named) {
            db_bind_int64(cur->seeds[i], 2, cur->upto);
            db_bind_int64(cur->seeds[i], 3, is_named ? from : 1);
        }
        if (is_logged && is_named) {
            db_bind_int64(cur->seeds[i], 4, logged[0]);
            db_bind_int64(cur->seeds[i], 5, logged[1]);
        }
    }
    *out = cur;
    return ERR_OK;
}

int db_ledger_cursor_entry(db_ledger_cursor *cur, db_ledger_row *row,
                           err_info *e)
{
    int step = DB_ROW;

    while (!cur->is_past) {
        if (cur->next == cur->n_pending) {
            cur->next = cur->n_pending = 0;
            if ((step = db_step(cur->entries)) != DB_ROW)
                break;
            if (db_ledger_read_entries(cur->entries, &cur->pending,
                                       &cur->n_pending, &cur->cap, e) != ERR_OK)
                return -1;
            if (cur->n_pending == 0)
                continue;
        }
        /* Moved out: its strings are the caller's now. */
        *row = cur->pending[cur->next++];
        if (row->pos > cur->upto) {
            db_ledger_row_clear(row);
            cur->is_past = true;
            /* Its answer read to the end (PostgreSQL: the connection
             * takes the seeds' statement next). */
            db_reset(cur->entries);
            return 0;
        }
        db_ledger_prev_from(row, &cur->last);
        cur->last.kind = row->kind;
        cur->last.pos = row->pos;
        cur->last.seq = row->seq;
        memcpy(cur->last.record_id, row->record_id, sizeof row->record_id);
        memcpy(cur->last.hash, row->hash, sizeof row->hash);
        if (row->pos > cur->after)
            return 1;
        /* Before the part asked for: read to chain the next, not given. */
        db_ledger_row_clear(row);
    }
    if (cur->is_past || step == DB_DONE)
        return 0;
    db_fail(cur->c, e, "read the ledger");
    return -1;
}

void db_ledger_row_clear(db_ledger_row *row)
{
    db_ledger_release_rows(row, 1);
    memset(row, 0, sizeof *row);
}

int db_ledger_cursor_seed(db_ledger_cursor *cur, db_ledger_seed *seed,
                          err_info *e)
{
    while (cur->seed_part < 2) {
        db_stmt *st = cur->seeds[cur->seed_part];
        int step = st != NULL ? db_step(st) : DB_DONE;

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

err_code db_ledger_cursor_open_combat(db_conn *c, const char *campaign_id,
                                      const char *combat_id, long long first,
                                      long long last, db_ledger_cursor **out,
                                      err_info *e)
{
    db_ledger_cursor *cur;
    err_code rc;

    /* No battle's seed: no battle action lies among a combat's
     * positions. */
    if ((rc = cursor_new(c, first - 1, last, combat_rows_sql, combat_seeds_sql,
                         NULL, out, e)))
        return rc;
    cur = *out;
    /* From its first position: the first roll of a combat holds its
     * previous hash, packed or kept as a row. */
    db_bind_text(cur->entries, 1, campaign_id);
    db_bind_int64(cur->entries, 2, last);
    db_bind_int64(cur->entries, 3, first);
    db_bind_text(cur->entries, 4, combat_id);
    db_bind_text(cur->seeds[0], 1, campaign_id);
    db_bind_int64(cur->seeds[0], 2, last);
    db_bind_int64(cur->seeds[0], 3, first);
    db_bind_text(cur->seeds[0], 4, combat_id);
    return ERR_OK;
}

void db_ledger_cursor_close(db_ledger_cursor *cur)
{
    if (cur == NULL)
        return;
    db_finalize(cur->entries);
    db_finalize(cur->seeds[0]);
    db_finalize(cur->seeds[1]);
    if (cur->pending != NULL)
        db_ledger_release_rows(cur->pending + cur->next,
                               cur->n_pending - cur->next);
    free(cur->pending);
    free(cur);
}

err_code db_battle_ledger_reach(db_conn *c, const char *campaign_id,
                                const char *battle_id, long long *first,
                                long long *last, char hash[LEDGER_HASH_HEX],
                                err_info *e)
{
    db_stmt *st = NULL;
    err_code rc;
    int step;

    *first = *last = 0;
    hash[0] = '\0';
    if ((rc = db_prepare(c,
                         "SELECT a.ledger_pos, a.hash, m.first FROM "
                         "battle_actions a JOIN battles b ON b.id = "
                         "a.battle_id, (SELECT min(ledger_pos) AS first "
                         "FROM battle_actions WHERE battle_id = ?2) AS m "
                         "WHERE b.campaign_id = ?1 AND a.battle_id = ?2 AND "
                         "a.ledger_pos IS NOT NULL ORDER BY a.ledger_pos "
                         "DESC LIMIT 1",
                         &st, e)))
        return rc;
    db_bind_text(st, 1, campaign_id);
    db_bind_text(st, 2, battle_id);
    step = db_step(st);
    if (step == DB_ROW) {
        *last = db_column_int64(st, 0);
        db_column_copy(st, 1, hash, LEDGER_HASH_HEX);
        *first = db_column_int64(st, 2);
    } else if (step != DB_DONE) {
        rc = db_fail(c, e, "read the battle's ledger entries");
    }
    db_done(st);
    return rc;
}
