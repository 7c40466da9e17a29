/*
 * test_log.c: tests db/log.c (unit history: per-unit numbering, pages of
 * one unit's or a whole campaign's events, the rolls of one unit in one
 * combat) and the unit filters of db/units.c, each against a simple
 * reference model kept in C: the events written with the seq each got, the
 * rolls written, the units' specs.  What the database returns is compared
 * with the model filtered and ordered by hand.
 *
 * Every test gets a fresh database file with every migration
 * (db_fixture.h); writes go through the writer, reads through pooled read
 * connections, as a request would see them.  The model is static: jobs on
 * the writer thread only borrow it during a db_write.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <sqlite3.h>

#include "db_sql.h"
#include "db.h"
#include "db_fixture.h"
#include "scrud.h"
#include "suites.h"

#define MAX_EVENTS 640

/* The units of the history tests: three in campaign 0, one in campaign 1;
 * campaign 2 has a side and nothing else. */
#define N_CAMPAIGNS 3
#define N_UNITS     4
static const int unit_campaign[N_UNITS] = {0, 0, 0, 1};
static const char *const unit_names[N_UNITS] = {"Foot", "Horse", "Guns",
                                                "Lancers"};

/* An event written, as the model remembers it. */
typedef struct model_event {
    long long seq;      /* what the database gave it */
    long long unit_seq; /* expected: its place among its unit's events */
    int unit;           /* index in world.units */
    char at[DB_TIME_MAX];
    char kind[16];
    char after[32];
} model_event;

static struct world {
    db_campaign cmps[N_CAMPAIGNS];
    db_side sides[N_CAMPAIGNS];
    db_unit units[N_UNITS];
    model_event evs[MAX_EVENTS]; /* in write order, which is seq order */
    size_t n_evs;
} world;

/* What a page query covers: a campaign, and one unit of it or all (-1). */
typedef struct scope {
    int campaign;
    int unit;
} scope;

/* ---- helpers ----------------------------------------------------------- */

static err_code job_unit(db_conn *c, void *arg, err_info *e)
{
    return db_unit_insert(c, arg, e);
}

/* Events written in one job, so in one transaction; the seq of each. */
typedef struct event_batch {
    const db_event *evs;
    long long *seqs;
    size_t n;
} event_batch;

static err_code job_events(db_conn *c, void *arg, err_info *e)
{
    event_batch *b = arg;
    err_code rc;
    size_t i;

    for (i = 0; i < b->n; i++) {
        if ((rc = db_event_insert(c, &b->evs[i], e)) != ERR_OK)
            return rc;
        /* the newest: its unit's head was written after it */
        b->seqs[i] = db_fixture_query_int(c, "SELECT max(seq) FROM "
                                             "unit_events");
    }
    return ERR_OK;
}

static void new_unit(db_unit *u, const db_side *s, const char *name)
{
    memset(u, 0, sizeof *u);
    db_new_id("un", u->id);
    snprintf(u->campaign_id, sizeof u->campaign_id, "%s", s->campaign_id);
    snprintf(u->side_id, sizeof u->side_id, "%s", s->id);
    snprintf(u->name, sizeof u->name, "%s", name);
    db_now(u->created_at);
    scrud_unit_default(&u->scrud);
    u->has_scrud = true;
    u->has_edna = true;
    u->edna = 8;
    u->edna_start = 8;
}

/* Opens the database and writes the campaigns, sides and units of world. */
static void world_make(void)
{
    size_t i;

    memset(&world, 0, sizeof world);
    db_fixture_open();
    for (i = 0; i < N_CAMPAIGNS; i++) {
        db_fixture_add_campaign(&world.cmps[i], i == 0 ? "Ligny" : "Wavre");
        db_fixture_add_side(&world.sides[i], world.cmps[i].id, NULL, "Blue");
    }
    for (i = 0; i < N_UNITS; i++) {
        new_unit(&world.units[i], &world.sides[unit_campaign[i]],
                 unit_names[i]);
        db_fixture_write_ok(job_unit, &world.units[i], "insert unit");
    }
}

/*
 * Writes one event for each entry of units (indexes in world.units), all
 * in one transaction when is_batch, else one db_write each, and records
 * them in the model with their expected unit_seq.  Each event claims
 * unit_seq 77, which the database must ignore.
 */
static void write_events(const int *units, size_t n, bool is_batch)
{
    static const char *const kinds[] = {"created", "combat", "correction",
                                        "resupply"};
    static db_event evs[MAX_EVENTS];
    static long long seqs[MAX_EVENTS];
    size_t start = world.n_evs, i, j;
    event_batch b;

    ck_assert_uint_le(start + n, MAX_EVENTS);
    memset(evs, 0, sizeof evs);
    for (i = 0; i < n; i++) {
        model_event *m = &world.evs[start + i];
        const db_unit *u = &world.units[units[i]];
        size_t k = start + i;

        m->unit = units[i];
        m->unit_seq = 1;
        for (j = 0; j < k; j++)
            if (world.evs[j].unit == m->unit)
                m->unit_seq++;
        snprintf(m->at, sizeof m->at, "2026-03-01T10:%02u:%02u.000Z",
                 (unsigned)(k / 60 % 60), (unsigned)(k % 60));
        snprintf(m->kind, sizeof m->kind, "%s", kinds[k % 4]);
        snprintf(m->after, sizeof m->after, "{\"n\":%zu}", k);
        snprintf(evs[i].unit_id, sizeof evs[i].unit_id, "%s", u->id);
        snprintf(evs[i].campaign_id, sizeof evs[i].campaign_id, "%s",
                 u->campaign_id);
        snprintf(evs[i].at, sizeof evs[i].at, "%s", m->at);
        snprintf(evs[i].kind, sizeof evs[i].kind, "%s", m->kind);
        evs[i].after = m->after;
        evs[i].unit_seq = 77;
    }
    if (is_batch) {
        b = (event_batch){evs, seqs, n};
        db_fixture_write_ok(job_events, &b, "insert events");
    } else {
        for (i = 0; i < n; i++) {
            b = (event_batch){&evs[i], &seqs[i], 1};
            db_fixture_write_ok(job_events, &b, "insert event");
        }
    }
    for (i = 0; i < n; i++) {
        world.evs[start + i].seq = seqs[i];
        if (start + i > 0)
            ck_assert_int_gt(seqs[i], world.evs[start + i - 1].seq);
    }
    world.n_evs += n;
}

static bool in_scope(const model_event *m, scope s)
{
    return unit_campaign[m->unit] == s.campaign &&
           (s.unit < 0 || m->unit == s.unit);
}

/* The model's events of s as indexes into world.evs, in the order asked;
 * returns how many. */
static size_t expect(scope s, bool is_newest_first, size_t *out)
{
    size_t i, n = 0;

    for (i = 0; i < world.n_evs; i++) {
        size_t k = is_newest_first ? world.n_evs - 1 - i : i;
        if (in_scope(&world.evs[k], s))
            out[n++] = k;
    }
    return n;
}

/* Every field the model knows of an event. */
static void check_event(const db_event *got, const model_event *m)
{
    ck_assert_int_eq(got->seq, m->seq);
    ck_assert_int_eq(got->unit_seq, m->unit_seq);
    ck_assert_str_eq(got->unit_id, world.units[m->unit].id);
    ck_assert_str_eq(got->campaign_id, world.cmps[unit_campaign[m->unit]].id);
    ck_assert_str_eq(got->at, m->at);
    ck_assert_str_eq(got->kind, m->kind);
    ck_assert_ptr_nonnull(got->after);
    ck_assert_str_eq(got->after, m->after);
}

static size_t model_index(long long seq)
{
    size_t i;

    for (i = 0; i < world.n_evs; i++)
        if (world.evs[i].seq == seq)
            return i;
    ck_abort_msg("the page holds seq %lld, which was never written", seq);
    return 0;
}

/*
 * Pages through s from cursor after, limit rows a page, each next page
 * from the seq of the last item, until a short page or max_pages pages.
 * The events seen are checked against the model and appended to out (as
 * model indexes) at *n.  *is_end says whether a short page ended it.
 * Returns the cursor after the last page.
 */
static long long page_through(db_conn *r, scope s, bool is_newest_first,
                              int limit, long long after, int max_pages,
                              size_t *out, size_t *n, bool *is_end)
{
    db_event_query q;
    db_event *evs;
    size_t k, i;
    err_info e;
    int pages;

    q.campaign_id = world.cmps[s.campaign].id;
    q.unit_id = s.unit < 0 ? NULL : world.units[s.unit].id;
    q.after = after;
    q.is_newest_first = is_newest_first;
    q.limit = limit;
    *is_end = false;
    for (pages = 0; pages < max_pages && !*is_end; pages++) {
        err_clear(&e);
        ck_assert_msg(db_events_page(r, &q, &evs, &k, &e) == ERR_OK,
                      "db_events_page: %s", e.message);
        ck_assert_uint_le(k, (size_t)limit);
        for (i = 0; i < k; i++) {
            check_event(&evs[i], &world.evs[model_index(evs[i].seq)]);
            ck_assert_uint_lt(*n, MAX_EVENTS);
            out[(*n)++] = model_index(evs[i].seq);
        }
        if (k > 0)
            q.after = evs[k - 1].seq;
        *is_end = k < (size_t)limit;
        db_events_free(evs, k);
    }
    return q.after;
}

/* got (n model indexes) must be want (n_want), item by item. */
static void check_sequence(const size_t *got, size_t n, const size_t *want,
                           size_t n_want, const char *what, int limit)
{
    size_t i;

    ck_assert_msg(n == n_want, "%s, limit %d: %zu events, want %zu", what,
                  limit, n, n_want);
    for (i = 0; i < n; i++)
        ck_assert_msg(got[i] == want[i],
                      "%s, limit %d: item %zu is seq %lld, want seq %lld", what,
                      limit, i, world.evs[got[i]].seq, world.evs[want[i]].seq);
}

/* ---- numbering --------------------------------------------------------- */

START_TEST(test_unit_seq_per_unit)
{
    /* Units 0-2 share campaign 0; unit 3's events (campaign 1) fall
     * between theirs.  The first run commits each event on its own, the
     * second writes all of its events in one transaction. */
    static const int one_by_one[] = {0, 1, 0, 0, 3, 2, 1, 0};
    static const int together[] = {1, 3, 0, 2, 2, 1, 0, 3, 1, 1};
    db_event *list;
    size_t n, i, u, want;
    db_conn *r;

    world_make();
    write_events(one_by_one, sizeof one_by_one / sizeof one_by_one[0], false);
    write_events(together, sizeof together / sizeof together[0], true);

    r = db_read_acquire(db_fixture_db);
    for (u = 0; u < N_UNITS; u++) {
        ck_assert_int_eq(db_events_list(r, world.units[u].id, &list, &n, NULL),
                         ERR_OK);
        for (i = 0, want = 0; i < world.n_evs; i++)
            if (world.evs[i].unit == (int)u) {
                ck_assert_msg(want < n, "unit %zu: event %zu missing", u,
                              want + 1);
                ck_assert_int_eq(list[want].unit_seq, (long long)want + 1);
                check_event(&list[want], &world.evs[i]);
                want++;
            }
        ck_assert_msg(n == want, "unit %zu: %zu events, want %zu", u, n, want);
        db_events_free(list, n);
    }
    /* The model itself: units 0 and 1 got 6 events each, unit 3 three. */
    ck_assert_int_eq(world.evs[14].unit, 0);
    ck_assert_int_eq(world.evs[14].unit_seq, 6);
    ck_assert_int_eq(world.evs[17].unit, 1);
    ck_assert_int_eq(world.evs[17].unit_seq, 6);
    ck_assert_int_eq(world.evs[15].unit, 3);
    ck_assert_int_eq(world.evs[15].unit_seq, 3);
    db_read_release(db_fixture_db, r);
}
END_TEST

/* ---- pages ------------------------------------------------------------- */

static const scope page_scopes[] = {
    {0, -1}, {0, 0}, {0, 1}, {0, 2}, {1, -1}, {1, 3}, {2, -1},
};
#define N_PAGE_SCOPES (sizeof page_scopes / sizeof page_scopes[0])

START_TEST(test_pages_follow_cursor)
{
    static const int units[] = {0, 3, 1, 0, 0, 2, 3, 1, 3,
                                0, 2, 1, 1, 3, 0, 2, 0};
    size_t got[MAX_EVENTS], want[MAX_EVENTS], n, n_want, si;
    db_event_query q;
    db_event *evs;
    bool is_end;
    int order, limit;
    db_conn *r;
    char what[64];

    world_make();
    write_events(units, sizeof units / sizeof units[0], false);

    r = db_read_acquire(db_fixture_db);
    for (si = 0; si < N_PAGE_SCOPES; si++)
        for (order = 0; order < 2; order++) {
            scope s = page_scopes[si];
            n_want = expect(s, order == 1, want);
            snprintf(what, sizeof what, "campaign %d unit %d %s", s.campaign,
                     s.unit, order ? "newest first" : "oldest first");
            for (limit = 1; limit <= (int)n_want + 1; limit++) {
                n = 0;
                page_through(r, s, order == 1, limit, 0, (int)n_want + 2, got,
                             &n, &is_end);
                ck_assert_msg(is_end, "%s, limit %d: no short page", what,
                              limit);
                check_sequence(got, n, want, n_want, what, limit);
            }
        }

    /* A unit of another campaign, asked for within campaign 0: nothing. */
    q = (db_event_query){world.cmps[0].id, world.units[3].id, 0, false, 50};
    ck_assert_int_eq(db_events_page(r, &q, &evs, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 0);
    db_events_free(evs, n);
    q = (db_event_query){"cmp_nope", NULL, 0, true, 50};
    ck_assert_int_eq(db_events_page(r, &q, &evs, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 0);
    db_events_free(evs, n);
    db_read_release(db_fixture_db, r);
}
END_TEST

/*
 * A cursor taken, then more events written (to the scope and around it),
 * then the pages go on: oldest first they reach the new events, newest
 * first they go on into the past and never show them.  Loop: 0 unit 0,
 * 1 the whole of campaign 0.
 */
START_TEST(test_cursor_then_writes)
{
    static const int first[] = {0, 1, 3, 0, 2, 0, 1, 3, 0, 2, 1, 0};
    static const int more[] = {0, 3, 1, 0, 2};
    static const int later[] = {3, 0, 1};
    size_t got[MAX_EVENTS], before[MAX_EVENTS], want[MAX_EVENTS];
    size_t n, n_before, n_want, i;
    const scope s = {0, _i == 0 ? 0 : -1};
    const int limit = 3;
    long long cursor;
    bool is_end;
    int order;
    db_conn *r;

    world_make();
    write_events(first, sizeof first / sizeof first[0], false);
    r = db_read_acquire(db_fixture_db);
    for (order = 0; order < 2; order++) {
        const char *what = order ? "newest first" : "oldest first";
        n_before = expect(s, order == 1, before);
        ck_assert_uint_gt(n_before, (size_t)limit);
        n = 0;
        cursor = page_through(r, s, order == 1, limit, 0, 1, got, &n, &is_end);
        ck_assert(!is_end);
        ck_assert_uint_eq(n, (size_t)limit);
        write_events(more, 4, true);
        write_events(more + 4, 1, false);
        page_through(r, s, order == 1, limit, cursor, MAX_EVENTS, got, &n,
                     &is_end);
        ck_assert(is_end);
        if (order == 0) {
            n_want = expect(s, false, want);
            ck_assert_uint_gt(n_want, n_before);
            check_sequence(got, n, want, n_want, what, limit);
        } else {
            check_sequence(got, n, before, n_before, what, limit);
            /* From the start again, the new events come first. */
            n = 0;
            page_through(r, s, true, limit, 0, MAX_EVENTS, got, &n, &is_end);
            n_want = expect(s, true, want);
            check_sequence(got, n, want, n_want, "newest first again", limit);
            ck_assert_uint_eq(got[0], world.n_evs - (s.unit < 0 ? 1 : 2));
        }
    }

    /* Oldest first, from the cursor of the last (short) page: only what
     * was written since. */
    n = 0;
    cursor = page_through(r, s, false, limit, 0, MAX_EVENTS, got, &n, &is_end);
    ck_assert_int_eq(cursor, world.evs[got[n - 1]].seq);
    n_before = world.n_evs;
    write_events(later, sizeof later / sizeof later[0], true);
    n = 0;
    page_through(r, s, false, limit, cursor, MAX_EVENTS, got, &n, &is_end);
    for (i = n_before, n_want = 0; i < world.n_evs; i++)
        if (in_scope(&world.evs[i], s))
            want[n_want++] = i;
    ck_assert_uint_eq(n_want, s.unit < 0 ? 2 : 1);
    check_sequence(got, n, want, n_want, "after the last page", limit);
    db_read_release(db_fixture_db, r);
}
END_TEST

/* ---- a unit's history as a chain (migration 23) ----------------------- */

/* The first page of s from cursor after (0: from the start), limit rows,
 * must be the model's: its events past after in the order asked. */
static void check_first_page(db_conn *r, scope s, bool is_newest_first,
                             int limit, long long after)
{
    size_t want[MAX_EVENTS], got[MAX_EVENTS], n_want = 0, n = 0, i;
    size_t all[MAX_EVENTS], n_all = expect(s, is_newest_first, all);
    bool is_end;
    char what[96];

    for (i = 0; i < n_all && n_want < (size_t)limit; i++) {
        long long seq = world.evs[all[i]].seq;
        if (after == 0 || (is_newest_first ? seq < after : seq > after))
            want[n_want++] = all[i];
    }
    page_through(r, s, is_newest_first, limit, after, 1, got, &n, &is_end);
    snprintf(what, sizeof what, "unit %d %s after %lld", s.unit,
             is_newest_first ? "newest first" : "oldest first", after);
    check_sequence(got, n, want, n_want, what, limit);
}

/* Every page of the chain's units, read through and from each cursor. */
static void check_chains(db_conn *r)
{
    static const int limits[] = {1, 7, 63, 64, 65, 129, 200};
    static const scope units[] = {{0, 0}, {0, 1}, {0, 2}, {1, 3}};
    size_t got[MAX_EVENTS], want[MAX_EVENTS], n, n_want, si, li;
    long long after, last = world.evs[world.n_evs - 1].seq;
    bool is_end;
    int order;

    for (si = 0; si < sizeof units / sizeof units[0]; si++)
        for (order = 0; order < 2; order++) {
            n_want = expect(units[si], order == 1, want);
            for (li = 0; li < sizeof limits / sizeof limits[0]; li++) {
                n = 0;
                page_through(r, units[si], order == 1, limits[li], 0,
                             MAX_EVENTS, got, &n, &is_end);
                ck_assert(is_end);
                check_sequence(got, n, want, n_want,
                               order ? "newest first" : "oldest first",
                               limits[li]);
            }
            /* from every cursor: its unit's events, another unit's, and
             * past the last */
            for (after = 1; after <= last + 2; after++) {
                check_first_page(r, units[si], order == 1, 5, after);
                if (after % 7 == 0)
                    check_first_page(r, units[si], order == 1, 200, after);
            }
        }
}

/* Units with hundreds of events each, so that their chains have several
 * marks (one every 64 events): every page, from the start and from any
 * cursor, in either order, is the model's.  Then the same store taken
 * back to before migration 23 and opened again: the chains the migration
 * makes of the events read the same. */
START_TEST(test_chain_pages)
{
    static int units[MAX_EVENTS];
    size_t i, n = 600;
    unsigned x = 12345;
    db_conn *r;

    world_make();
    /* unit 0 most, in runs and alone; unit 3 of the other campaign
     * between */
    for (i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        units[i] = (x >> 16) % 10 < 5 ? 0 : (int)((x >> 20) % 4);
    }
    for (i = 0; i < n; i += 100)
        write_events(units + i, 100, true);
    ck_assert_int_gt(db_fixture_raw_query_int(
                         "SELECT n FROM unit_heads WHERE unit_row = "
                         "(SELECT rowid FROM units WHERE name = 'Foot')"),
                     3 * 64);
    ck_assert_int_ge(db_fixture_raw_query_int("SELECT count(*) FROM "
                                              "unit_marks"),
                     5);
    r = db_read_acquire(db_fixture_db);
    check_chains(r);
    db_read_release(db_fixture_db, r);

    db_close(db_fixture_db);
    db_fixture_db = NULL;
    db_fixture_raw_exec("BEGIN;" DB_FIXTURE_BEFORE_23
                        "PRAGMA user_version = 22; COMMIT;");
    db_fixture_open();
    ck_assert_int_eq(db_schema_version(db_fixture_db), db_n_migrations());
    ck_assert_int_eq(db_fixture_raw_query_int(
                         "SELECT count(*) FROM unit_events e WHERE prev_seq "
                         "IS NOT (SELECT max(p.seq) FROM unit_events p WHERE "
                         "p.unit_row = e.unit_row AND p.seq < e.seq)"),
                     0);
    r = db_read_acquire(db_fixture_db);
    check_chains(r);
    db_read_release(db_fixture_db, r);
    /* and events written after it go on from the migrated heads */
    write_events((const int[]){0, 3, 0, 1}, 4, false);
    r = db_read_acquire(db_fixture_db);
    check_first_page(r, (scope){0, 0}, true, 200, 0);
    check_first_page(r, (scope){0, 0}, false, 200, 0);
    check_first_page(r, (scope){1, 3}, false, 200, 0);
    db_read_release(db_fixture_db, r);
}
END_TEST

/* An event of unit 0 written, then (fails) the job refused: its write
 * rolled back with its savepoint. */
typedef struct chain_job {
    db_event ev;
    bool fails;
    err_code rc; /* as done() got it */
} chain_job;

static err_code job_chain_event(db_conn *c, void *arg, err_info *e)
{
    chain_job *j = arg;
    err_code rc = db_event_insert(c, &j->ev, e);

    if (rc == ERR_OK && j->fails)
        rc = err_set(e, ERR_RULE, NULL, "refused after its event");
    return rc;
}

static void chain_job_done(void *arg, err_code rc, const err_info *e)
{
    (void)e;
    ((chain_job *)arg)->rc = rc;
}

static void chain_job_make(chain_job *j, bool fails)
{
    memset(j, 0, sizeof *j);
    snprintf(j->ev.unit_id, sizeof j->ev.unit_id, "%s", world.units[0].id);
    snprintf(j->ev.campaign_id, sizeof j->ev.campaign_id, "%s",
             world.cmps[0].id);
    snprintf(j->ev.at, sizeof j->ev.at, "2026-03-01T11:00:00.000Z");
    snprintf(j->ev.kind, sizeof j->ev.kind, "correction");
    j->ev.after = "{\"rolled\":1}";
    j->fails = fails;
}

static err_code job_nothing(db_conn *c, void *arg, err_info *e)
{
    (void)c;
    (void)arg;
    (void)e;
    return ERR_OK;
}

/* The writer keeps the heads it moves (unit_events_write.c): a job whose
 * events are rolled back (its savepoint, within a batch of others that
 * land; or a batch of its own) must leave no head of them behind.  The
 * seq a rolled-back event took is given again to the next, which must
 * follow the unit's real last event, not the one rolled back. */
START_TEST(test_chain_after_rollback)
{
    static const int first[] = {0, 0, 1};
    chain_job j[5];
    db_event *list;
    size_t n, i;
    db_conn *r;

    world_make();
    write_events(first, 3, false);
    /* one batch: lands, rolled back, lands */
    chain_job_make(&j[0], false);
    chain_job_make(&j[1], true);
    chain_job_make(&j[2], false);
    db_fixture_hold_writer();
    for (i = 0; i < 3; i++)
        ck_assert_int_eq(
            db_submit(db_fixture_db, job_chain_event, chain_job_done, &j[i]),
            ERR_OK);
    db_fixture_release_writer();
    db_fixture_write_ok(job_nothing, NULL, "after the batch");
    ck_assert_int_eq(j[0].rc, ERR_OK);
    ck_assert_int_eq(j[1].rc, ERR_RULE);
    ck_assert_int_eq(j[2].rc, ERR_OK);
    db_fixture_check_chains();
    /* a batch of its own rolled back, then one that lands */
    chain_job_make(&j[3], true);
    chain_job_make(&j[4], false);
    ck_assert_int_eq(
        db_submit(db_fixture_db, job_chain_event, chain_job_done, &j[3]),
        ERR_OK);
    db_fixture_write_ok(job_nothing, NULL, "after the refused one");
    ck_assert_int_eq(j[3].rc, ERR_RULE);
    db_fixture_write_ok(job_chain_event, &j[4], "an event after them");
    db_fixture_check_chains();
    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_events_list(r, world.units[0].id, &list, &n, NULL),
                     ERR_OK);
    ck_assert_uint_eq(n, 2 + 3);
    for (i = 0; i < n; i++)
        ck_assert_int_eq(list[i].unit_seq, (long long)i + 1);
    db_events_free(list, n);
    db_read_release(db_fixture_db, r);
}
END_TEST

/* ---- rolls of a unit --------------------------------------------------- */

typedef struct combat_row {
    const db_combat *cb;
    db_roll *rolls;
    size_t n_rolls;
} combat_row;

static err_code job_combat(db_conn *c, void *arg, err_info *e)
{
    combat_row *row = arg;

    return db_combat_insert(c, row->cb, row->rolls, row->n_rolls, e);
}

static void new_combat(db_combat *cb, const char *campaign_id)
{
    memset(cb, 0, sizeof *cb);
    db_new_id("cmb", cb->id);
    snprintf(cb->campaign_id, sizeof cb->campaign_id, "%s", campaign_id);
    snprintf(cb->system, sizeof cb->system, "scrud");
    db_now(cb->created_at);
    snprintf(cb->dice_source, sizeof cb->dice_source, "entered");
    cb->summary = "a draw";
    cb->report = "{}";
}

/* A roll of unit u (-1: of no unit) with seq, natural and reason. */
static db_roll roll_of(int u, int seq, int natural, const char *reason)
{
    db_roll r;

    memset(&r, 0, sizeof r);
    r.seq = seq;
    if (u >= 0) {
        snprintf(r.unit_id, sizeof r.unit_id, "%s", world.units[u].id);
        snprintf(r.unit_name, sizeof r.unit_name, "%s", world.units[u].name);
        snprintf(r.side_name, sizeof r.side_name, "Blue");
    }
    snprintf(r.reason, sizeof r.reason, "%s", reason);
    r.faces = 6 + seq;
    r.natural = natural;
    r.modified = natural + u;
    snprintf(r.source, sizeof r.source, "entered");
    return r;
}

START_TEST(test_rolls_of_unit)
{
    db_combat cbs[2];
    db_roll rolls[2][8], *got;
    size_t n_rolls[2], n, i, k, want;
    combat_row row;
    const char *unit_id;
    db_conn *r;
    int u, seq;

    world_make();
    /* Combat 0, written out of seq order, naturals in neither seq nor
     * write order; seq 4 is a die of no unit.  Combat 1 has rolls of
     * units 0 and 1 too. */
    rolls[0][0] = roll_of(0, 5, 4, "scrud.front");
    rolls[0][1] = roll_of(1, 2, 5, "scrud.front");
    rolls[0][2] = roll_of(0, 1, 6, "scrud.front");
    rolls[0][3] = roll_of(-1, 4, 2, "test.weather");
    rolls[0][4] = roll_of(0, 3, 1, "scrud.extra");
    rolls[0][5] = roll_of(1, 6, 3, "scrud.extra");
    n_rolls[0] = 6;
    rolls[1][0] = roll_of(1, 1, 2, "edna.test");
    rolls[1][1] = roll_of(0, 2, 6, "edna.test");
    n_rolls[1] = 2;
    for (i = 0; i < 2; i++) {
        new_combat(&cbs[i], world.cmps[0].id);
        row = (combat_row){&cbs[i], rolls[i], n_rolls[i]};
        db_fixture_write_ok(job_combat, &row, "insert combat");
    }

    r = db_read_acquire(db_fixture_db);
    for (i = 0; i < 2; i++)
        for (u = -1; u < N_UNITS; u++) {
            unit_id = u < 0 ? "" : world.units[u].id;
            ck_assert_int_eq(
                db_rolls_of_unit(r, cbs[i].id, unit_id, &got, &n, NULL),
                ERR_OK);
            /* The reference: that unit's rolls of that combat, by seq. */
            want = 0;
            for (seq = 1; seq <= 8; seq++)
                for (k = 0; k < n_rolls[i]; k++) {
                    const db_roll *w = &rolls[i][k];
                    if (w->seq != seq || u < 0 ||
                        strcmp(w->unit_id, unit_id) != 0)
                        continue;
                    ck_assert_msg(want < n,
                                  "combat %zu unit %d: seq %d "
                                  "missing",
                                  i, u, seq);
                    ck_assert_int_eq(got[want].seq, w->seq);
                    ck_assert_str_eq(got[want].unit_id, w->unit_id);
                    ck_assert_str_eq(got[want].unit_name, w->unit_name);
                    ck_assert_str_eq(got[want].side_name, w->side_name);
                    ck_assert_str_eq(got[want].reason, w->reason);
                    ck_assert_int_eq(got[want].faces, w->faces);
                    ck_assert_int_eq(got[want].natural, w->natural);
                    ck_assert_int_eq(got[want].modified, w->modified);
                    ck_assert_str_eq(got[want].source, w->source);
                    want++;
                }
            ck_assert_msg(n == want, "combat %zu unit %d: %zu rolls, want %zu",
                          i, u, n, want);
            free(got);
        }
    /* The reference is not trivially empty. */
    ck_assert_int_eq(
        db_rolls_of_unit(r, cbs[0].id, world.units[0].id, &got, &n, NULL),
        ERR_OK);
    ck_assert_uint_eq(n, 3);
    ck_assert_int_eq(got[0].seq, 1);
    ck_assert_int_eq(got[1].seq, 3);
    ck_assert_int_eq(got[2].seq, 5);
    free(got);
    ck_assert_int_eq(
        db_rolls_of_unit(r, "cmb_nope", world.units[0].id, &got, &n, NULL),
        ERR_OK);
    ck_assert_uint_eq(n, 0);
    free(got);
    db_read_release(db_fixture_db, r);
}
END_TEST

/* ---- unit filters ------------------------------------------------------ */

/* The units of test_units_list_filters, in creation order. */
static const struct {
    const char *name;
    int side;
    bool is_eliminated, has_scrud, has_edna;
    int edna, edna_start;
} unit_specs[] = {
    {"Foot", 0, false, true, true, 5, 8},       /* both, effective */
    {"Horse", 1, true, true, true, 0, 8},       /* both, ineffective */
    {"Guns", 0, false, true, false, 0, 8},      /* no EDNA, stored 0 */
    {"Scouts", 1, false, false, true, 0, 6},    /* EDNA only, at 0 */
    {"Militia", 0, true, false, true, 3, 6},    /* EDNA only, above 0 */
    {"Baggage", 1, false, false, false, 0, 8},  /* neither, stored 0 */
    {"Pickets", 0, false, true, false, 8, 8},   /* no EDNA, stored 8 */
    {"Rangers", 1, true, true, false, 0, 4},    /* no EDNA, eliminated */
    {"Depot", 0, true, false, false, 5, 8},     /* neither, eliminated */
    {"Grenadiers", 1, false, true, true, 1, 8}, /* both, just effective */
};
#define N_UNIT_SPECS (sizeof unit_specs / sizeof unit_specs[0])

static const char *const systems[] = {NULL, "scrud", "edna"};

/* Whether spec i passes filter side (-1 any), system, eliminated and
 * ineffective (-1 any), read from db.h's db_unit_filter. */
static bool spec_matches(size_t i, int side, const char *system, int elim,
                         int ineffective)
{
    if (side >= 0 && unit_specs[i].side != side)
        return false;
    if (system && strcmp(system, "scrud") == 0 && !unit_specs[i].has_scrud)
        return false;
    if (system && strcmp(system, "edna") == 0 && !unit_specs[i].has_edna)
        return false;
    if (elim >= 0 && unit_specs[i].is_eliminated != (elim == 1))
        return false;
    if (ineffective >= 0 && (!unit_specs[i].has_edna ||
                             (unit_specs[i].edna == 0) != (ineffective == 1)))
        return false;
    return true;
}

/* The side of campaign 2 that unit_specs' side index names. */
static db_side spec_sides[2];

/* Lists campaign 2's units with filter f (NULL: none) and checks the
 * result against the specs that pass side, system (index in systems),
 * elim and ineffective, in creation order. */
static void check_filter(db_conn *r, const db_unit_filter *f, int side, int sys,
                         int elim, int ineffective)
{
    db_unit *list;
    size_t n, i, k = 0;

    ck_assert_int_eq(db_units_list(r, world.cmps[2].id, f, &list, &n, NULL),
                     ERR_OK);
    for (i = 0; i < N_UNIT_SPECS; i++) {
        if (!spec_matches(i, side, systems[sys], elim, ineffective))
            continue;
        ck_assert_msg(k < n,
                      "side %d system %d elim %d ineffective %d: %s missing",
                      side, sys, elim, ineffective, unit_specs[i].name);
        ck_assert_str_eq(list[k].name, unit_specs[i].name);
        ck_assert_str_eq(list[k].campaign_id, world.cmps[2].id);
        ck_assert_str_eq(list[k].side_id, spec_sides[unit_specs[i].side].id);
        ck_assert_str_eq(list[k].side_name,
                         spec_sides[unit_specs[i].side].name);
        ck_assert_int_eq(list[k].is_eliminated, unit_specs[i].is_eliminated);
        ck_assert_int_eq(list[k].has_scrud, unit_specs[i].has_scrud);
        ck_assert_int_eq(list[k].has_edna, unit_specs[i].has_edna);
        ck_assert_int_eq(list[k].edna, unit_specs[i].edna);
        ck_assert_int_eq(list[k].edna_start, unit_specs[i].edna_start);
        k++;
    }
    ck_assert_msg(n == k,
                  "side %d system %d elim %d ineffective %d: %zu units, "
                  "want %zu",
                  side, sys, elim, ineffective, n, k);
    free(list);
}

/* Spec i as a unit of side s. */
static void spec_unit(db_unit *u, size_t i, const db_side *s)
{
    new_unit(u, s, unit_specs[i].name);
    u->is_eliminated = unit_specs[i].is_eliminated;
    if (u->is_eliminated)
        snprintf(u->eliminated_reason, sizeof u->eliminated_reason,
                 "threshold");
    u->has_scrud = unit_specs[i].has_scrud;
    u->has_edna = unit_specs[i].has_edna;
    u->edna = unit_specs[i].edna;
    u->edna_start = unit_specs[i].edna_start;
}

/* How many specs pass one filter alone; the reference must keep some and
 * drop some for every value, or a filter that does nothing would pass. */
static void check_reference_splits(void)
{
    size_t i, n[8], n_edna = 0;
    int v;

    memset(n, 0, sizeof n);
    for (i = 0; i < N_UNIT_SPECS; i++) {
        for (v = 0; v < 2; v++) {
            n[v] += spec_matches(i, v, NULL, -1, -1);
            n[2 + v] += spec_matches(i, -1, systems[1 + v], -1, -1);
            n[4 + v] += spec_matches(i, -1, NULL, v, -1);
            n[6 + v] += spec_matches(i, -1, NULL, -1, v);
        }
        n_edna += unit_specs[i].has_edna;
    }
    for (i = 0; i < 8; i++)
        ck_assert_msg(n[i] > 0 && n[i] < N_UNIT_SPECS,
                      "filter %zu keeps %zu of %zu specs", i, n[i],
                      N_UNIT_SPECS);
    /* Ineffective 0 and 1 split the EDNA units and leave the others. */
    ck_assert_uint_eq(n[6] + n[7], n_edna);
    ck_assert_uint_lt(n_edna, N_UNIT_SPECS);
}

START_TEST(test_units_list_filters)
{
    db_side other_red;
    db_unit u, *list;
    db_unit_filter f;
    size_t i, n;
    int side, sys, elim, ineff;
    db_conn *r;

    check_reference_splits();
    world_make(); /* campaign 2: side Blue, no units */
    spec_sides[0] = world.sides[2];
    db_fixture_add_side(&spec_sides[1], world.cmps[2].id, NULL, "Red");
    db_fixture_add_side(&other_red, world.cmps[1].id, NULL, "Red");
    for (i = 0; i < N_UNIT_SPECS; i++) {
        spec_unit(&u, i, &spec_sides[unit_specs[i].side]);
        db_fixture_write_ok(job_unit, &u, "insert unit");
        /* The same unit in campaign 1: never listed for campaign 2. */
        spec_unit(&u, i, unit_specs[i].side ? &other_red : &world.sides[1]);
        db_fixture_write_ok(job_unit, &u, "insert unit elsewhere");
    }

    r = db_read_acquire(db_fixture_db);
    check_filter(r, NULL, -1, 0, -1, -1);
    /* Every filter alone and every combination of them. */
    for (side = -1; side < 2; side++)
        for (sys = 0; sys < 3; sys++)
            for (elim = -1; elim < 2; elim++)
                for (ineff = -1; ineff < 2; ineff++) {
                    f.side_id = side < 0 ? NULL : spec_sides[side].id;
                    f.system = systems[sys];
                    f.eliminated = elim;
                    f.ineffective = ineff;
                    check_filter(r, &f, side, sys, elim, ineff);
                }
    /* A side of another campaign: none of campaign 2's units. */
    f = (db_unit_filter){other_red.id, NULL, -1, -1};
    ck_assert_int_eq(db_units_list(r, world.cmps[2].id, &f, &list, &n, NULL),
                     ERR_OK);
    ck_assert_uint_eq(n, 0);
    free(list);
    db_read_release(db_fixture_db, r);
}
END_TEST

Suite *suite_log(void)
{
    Suite *s = suite_create("log");
    TCase *tc = tcase_create("log");

    tcase_add_unchecked_fixture(tc, db_fixture_suite_make,
                                db_fixture_suite_remove);
    tcase_add_checked_fixture(tc, db_fixture_setup, db_fixture_teardown);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    tcase_add_test(tc, test_unit_seq_per_unit);
    tcase_add_test(tc, test_pages_follow_cursor);
    tcase_add_loop_test(tc, test_cursor_then_writes, 0, 2);
    tcase_add_test(tc, test_chain_pages);
    tcase_add_test(tc, test_chain_after_rollback);
    tcase_add_test(tc, test_rolls_of_unit);
    tcase_add_test(tc, test_units_list_filters);
    return s;
}
