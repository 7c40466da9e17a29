/*
 * test_pipeline.c: a campaign combat the rules refuse writes nothing
 * (server/systems/pipeline.c, combat.c): the campaign's next commitment is
 * read, not claimed, before the rules run, and claimed (the next one drawn)
 * only by a combat that lands.
 *
 * Regression: a refused combat used to claim the commitment and draw the
 * next before the rules ran, then roll both back: some 16 KB of log per
 * refusal.  Measured two ways: the rows the writer's job changed, even
 * ones rolled back (db_total_changes around pipeline_campaign_job),
 * and the -wal file of a real server around a refused request.
 *
 * And a combat worked out off the writer (pipeline_stage): landed as it
 * was staged while its campaign stays as it was read, worked out again
 * by the writer when a unit changed in between, and not staged at all
 * while another combat of its campaign is in flight; one the writer works
 * out written as a staged one is.
 */
#include "db_conn.h"
#include "db_sql.h"
#include "combat.h"
#include "db_fixture.h"
#include "harness.h"
#include "pipeline.h"
#include "suites.h"
#include "systems.h"
#include "unit_cache.h"

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#define COMBAT(red, blue)                                                      \
    "{\"sides\":[{\"side\":\"Red\",\"units\":[{\"unit\":\"" red "\"}]},"       \
    "{\"side\":\"Blue\",\"units\":[{\"unit\":\"" blue "\"}]}]}"

/* The same with entered dice: each side's unit rolls the die given. */
#define ENTERED_COMBAT(red, d_red, blue, d_blue)                               \
    "{\"sides\":[{\"side\":\"Red\",\"units\":[{\"unit\":\"" red                \
    "\",\"die\":" #d_red "}]},{\"side\":\"Blue\",\"units\":[{\"unit\":\"" blue \
    "\",\"die\":" #d_blue "}]}],\"dice\":{\"source\":\"entered\"}}"

static test_server *ts;

static void setup(void)
{
    ts = ts_start();
}

static void teardown(void)
{
    ts_stop(ts);
    ts = NULL;
}

/* The same, keeping no units between snapshots (as when there was no
 * memory for the cache): SQLite's combats then read their units from the
 * store, as PostgreSQL's do. */
static void setup_uncached(void)
{
    ts = ts_start();
    db_unit_cache_drop(http_db(ts->srv));
    ck_assert_ptr_null(db_unit_cache(http_db(ts->srv)));
}

/* Red (Alpha, and Charlie eliminated) against Blue (Bravo). */
static void world(test_campaign *c)
{
    static const char *const sides[] = {"Red", "Blue", NULL};
    char path[160], charlie[64];

    ts_campaign(ts, c, NULL, sides);
    ts_unit(ts, c, "Alpha", "Red", 0, 6, NULL);
    ts_unit(ts, c, "Bravo", "Blue", 0, 6, NULL);
    ts_unit(ts, c, "Charlie", "Red", 0, 6, charlie);
    snprintf(path, sizeof path, "/v1/campaigns/%s/units/%s", c->id, charlie);
    json_decref(
        ts_call(ts, 200, "PATCH", path, c->umpire, "{\"eliminated\":true}"));
}

/* The id of c's unit name into out (64 bytes). */
static void unit_id(const test_campaign *c, const char *name, char *out)
{
    ck_assert_msg(ts_sql_text(ts, out, 64,
                              "SELECT id FROM units WHERE campaign_id = ? AND "
                              "name = ?",
                              TS_TEXT(c->id), TS_TEXT(name)),
                  "no unit %s", name);
}

/* PATCH of c's unit name with body (JSON), answered 200. */
static void edit_unit(const test_campaign *c, const char *name,
                      const char *body)
{
    char path[192];

    snprintf(path, sizeof path, "/v1/campaigns/%s/units/%s", c->id, name);
    json_decref(ts_call(ts, 200, "PATCH", path, c->umpire, "%s", body));
}

/* The campaign's version as the store holds it. */
static long long stored_version(const test_campaign *c)
{
    return ts_sql_int(ts, "SELECT version FROM campaigns WHERE id = ?",
                      TS_TEXT(c->id));
}

/* The campaign's next commitment, as GET /v1/campaigns/{id} shows it. */
static void next_commitment(const test_campaign *c, char out[65])
{
    char path[128];
    json_t *j;

    snprintf(path, sizeof path, "/v1/campaigns/%s", c->id);
    j = ts_call(ts, 200, "GET", path, c->umpire, NULL);
    snprintf(out, 65, "%s",
             json_string_value(json_object_get(j, "next_commitment")));
    json_decref(j);
    ck_assert_uint_eq(strlen(out), 64);
}

/* pipeline_campaign_job, counting the rows it changed. */
typedef struct counted {
    void *job;
    int n_changes;
} counted;

static err_code counted_job(db_conn *c, void *arg, err_info *e)
{
    counted *k = arg;
    long long before = db_total_changes(c);
    err_code rc = pipeline_campaign_job(c, k->job, e);

    k->n_changes = (int)(db_total_changes(c) - before);
    return rc;
}

/* A SCRUD campaign combat through the pipeline alone; its code, the rows
 * it changed in *n_changes, the commitment it used into used (65). */
static err_code fight(const test_campaign *c, const char *body_text,
                      int *n_changes, char used[65], err_info *e)
{
    const systems_entry *s = systems_find("scrud");
    json_t *body = json_loads(body_text, 0, NULL);
    counted k = {NULL, -1};
    err_code rc;

    ck_assert_ptr_nonnull(body);
    err_clear(e);
    rc = pipeline_read(s, body, c->id, "", &k.job, e);
    if (rc == ERR_OK)
        rc = db_write_in(http_db(ts->srv), c->id, counted_job, &k, e);
    *n_changes = k.n_changes;
    snprintf(used, 65, "%s", ((combat_record *)k.job)->dice.commitment);
    s->job_free(k.job);
    json_decref(body);
    return rc;
}

/* Refused by the rules (an eliminated unit: core refuses it while the
 * combat runs) or before them (an unknown unit): no row changed, not even
 * for a moment; then a valid combat takes the commitment that was next. */
START_TEST(test_refused_combat_changes_no_row)
{
    static const struct {
        const char *body, *field;
        err_code code;
    } refused[] = {
        {COMBAT("Charlie", "Bravo"), "sides[0].units[0]", ERR_RULE},
        {COMBAT("Nobody", "Bravo"), "sides[0].units[0].unit", ERR_INVALID},
    };
    char k0[65], k1[65], used[65];
    test_campaign c;
    err_info e;
    int n, i;

    world(&c);
    next_commitment(&c, k0);
    for (i = 0; i < 2; i++) {
        ck_assert_int_eq(fight(&c, refused[i].body, &n, used, &e),
                         refused[i].code);
        ck_assert_str_eq(e.field, refused[i].field);
        ck_assert_msg(n == 0, "refusal %d changed %d rows", i, n);
    }
    ck_assert_uint_eq(db_writer_refused(http_db(ts->srv)), 0);
    next_commitment(&c, k1);
    ck_assert_str_eq(k1, k0);
    ck_assert_int_eq(fight(&c, COMBAT("Alpha", "Bravo"), &n, used, &e), ERR_OK);
    ck_assert_int_gt(n, 0);
    ck_assert_str_eq(used, k0);
    next_commitment(&c, k1);
    ck_assert_str_ne(k1, k0);
}
END_TEST

/* Over HTTP: the -wal file does not grow for a refused combat, and the
 * next valid combat uses the commitment shown before the refusal. */
START_TEST(test_refused_combat_does_not_grow_log)
{
    char path[128], k0[65], k1[65];
    test_campaign c;
    long long wal0;
    json_t *j;

    world(&c);
    snprintf(path, sizeof path, "/v1/campaigns/%s/combats/scrud", c.id);
    next_commitment(&c, k0);
    wal0 = db_fixture_log_size(ts->db_path);
    j = ts_call(ts, 422, "POST", path, c.umpire, "%s",
                COMBAT("Charlie", "Bravo"));
    ck_assert_str_eq(json_string_value(json_object_get(j, "code")),
                     "rule_violation");
    json_decref(j);
    ck_assert_msg(db_fixture_log_size(ts->db_path) <= wal0,
                  "the log grew from %lld to %lld bytes", wal0,
                  db_fixture_log_size(ts->db_path));
    /* and on either store, no row written even for a moment */
    ck_assert_uint_eq(db_writer_refused(http_db(ts->srv)), 0);
    next_commitment(&c, k1);
    ck_assert_str_eq(k1, k0);
    j = ts_call(ts, 201, "POST", path, c.umpire, "%s",
                COMBAT("Alpha", "Bravo"));
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_object_get(j, "dice"), "commitment")),
                     k0);
    json_decref(j);
}
END_TEST

/* A Matrix battle refused because a unit already fights another open
 * battle: the checks now all run before the battle claims the campaign's
 * commitment (they used to run after it), so the log does not grow and
 * the commitment stays next. */
START_TEST(test_refused_battle_does_not_grow_log)
{
    static const char *const body =
        "{\"turn\":1,\"attacker\":{\"side\":\"Red\",\"units\":[\"Dog\"]},"
        "\"defender\":{\"side\":\"Blue\",\"units\":[\"Easy\"]},"
        "\"line\":[{\"attacker\":[\"Dog\"],\"defender\":[\"Easy\"]}]}";
    char path[128], k0[65], k1[65];
    test_campaign c;
    long long wal0;
    json_t *j;

    world(&c);
    snprintf(path, sizeof path, "/v1/campaigns/%s/units", c.id);
    json_decref(ts_call(ts, 201, "POST", path, c.umpire,
                        "{\"name\":\"Dog\",\"side\":\"Red\",\"matrix\":{}}"));
    json_decref(ts_call(ts, 201, "POST", path, c.umpire,
                        "{\"name\":\"Easy\",\"side\":\"Blue\",\"matrix\":{}}"));
    snprintf(path, sizeof path, "/v1/campaigns/%s/battles", c.id);
    json_decref(ts_call(ts, 201, "POST", path, c.umpire, "%s", body));
    next_commitment(&c, k0);
    wal0 = db_fixture_log_size(ts->db_path);
    ck_assert_uint_eq(db_writer_refused(http_db(ts->srv)), 0);
    j = ts_call(ts, 422, "POST", path, c.umpire, "%s", body);
    ck_assert_str_eq(json_string_value(json_object_get(j, "field")),
                     "attacker.units[0]");
    json_decref(j);
    ck_assert_msg(db_fixture_log_size(ts->db_path) <= wal0,
                  "the log grew from %lld to %lld bytes", wal0,
                  db_fixture_log_size(ts->db_path));
    /* Not even for a moment: the job wrote no row before it was refused
     * (a lone refused job's batch is rolled back whole, so the log alone
     * would not show it). */
    ck_assert_uint_eq(db_writer_refused(http_db(ts->srv)), 0);
    next_commitment(&c, k1);
    ck_assert_str_eq(k1, k0);
}
END_TEST

/* ---- staged off the writer ---- */

/* A SCRUD job of the campaign read from body_text (s->job_free it). */
static void *read_job(const test_campaign *c, const char *body_text)
{
    const systems_entry *s = systems_find("scrud");
    json_t *body = json_loads(body_text, 0, NULL);
    void *job = NULL;
    err_info e;

    ck_assert_ptr_nonnull(body);
    err_clear(&e);
    ck_assert_int_eq(pipeline_read(s, body, c->id, "", &job, &e), ERR_OK);
    json_decref(body);
    return job;
}

/* The combats landed as staged, and worked out again, since landed0 and
 * redone0 (pipeline_stats) were read: landed and redone more. */
static void assert_counts(long long landed0, long long redone0, int landed,
                          int redone)
{
    long long now_landed, now_redone;

    pipeline_stats(&now_landed, &now_redone);
    ck_assert_int_eq(now_landed, landed0 + landed);
    ck_assert_int_eq(now_redone, redone0 + redone);
}

/* The three combats of test_chain_ahead_and_an_edit_between, read: Alpha
 * against Bravo, Delta against Bravo, Alpha against Bravo again. */
static void read_three(const test_campaign *c, combat_record **a,
                       combat_record **b, combat_record **d)
{
    *a = read_job(c, COMBAT("Alpha", "Bravo"));
    *b = read_job(c, COMBAT("Delta", "Bravo"));
    *d = read_job(c, COMBAT("Alpha", "Bravo"));
}

/* pipeline_stage of job, then handed over as a request hands it to the
 * writer (pipeline_staged_handed): the next of its campaign may be
 * worked out.  Whether it was staged. */
static bool stage(void *job)
{
    bool is_staged = pipeline_stage(http_db(ts->srv), job);

    pipeline_staged_handed(job);
    return is_staged;
}

/* The writer job of job, then job freed; the combat's id into id. */
static void land(void *job, char id[64])
{
    combat_record *rec = job;
    err_info e;

    err_clear(&e);
    ck_assert_int_eq(db_write_in(http_db(ts->srv), rec->campaign_id,
                                 pipeline_campaign_job, job, &e),
                     ERR_OK);
    snprintf(id, 64, "%s", rec->cb.id);
    rec->system->job_free(job);
}

/* The quality Alpha fought with in the stored combat id. */
static int alpha_quality(const test_campaign *c, const char *id)
{
    char path[192];
    json_t *j, *u;
    int q;

    snprintf(path, sizeof path, "/v1/campaigns/%s/combats/%s", c->id, id);
    j = ts_call(ts, 200, "GET", path, c->umpire, NULL);
    u = json_array_get(
        json_object_get(json_array_get(json_object_get(j, "sides"), 0),
                        "units"),
        0);
    ck_assert_str_eq(json_string_value(json_object_get(u, "unit")), "Alpha");
    q = (int)json_integer_value(json_object_get(u, "quality"));
    json_decref(j);
    return q;
}

/* The campaign's events of combat id, as a stream gives them, in the
 * order of a combat that moved the ledger, whatever the store and
 * however it landed: the combat, the ledger's move, then its units'
 * events (2). */
static void check_combat_events(const test_campaign *c, const char *id)
{
    db_conn *r = db_read_acquire(http_db(ts->srv));
    db_logged_event *evs = NULL;
    size_t n = 0, i;
    err_info e;

    err_clear(&e);
    ck_assert_int_eq(
        db_event_log_after(r, c->id, 0, LLONG_MAX, 500, &evs, &n, &e), ERR_OK);
    db_read_release(http_db(ts->srv), r);
    for (i = 0; i < n; i++)
        if (strcmp(evs[i].kind, "combat") == 0 &&
            strcmp(evs[i].record_id, id) == 0)
            break;
    ck_assert_uint_le(i + 4, n);
    ck_assert_str_eq(evs[i + 1].kind, "ledger");
    ck_assert_int_eq(evs[i + 1].seq, evs[i].seq + 1);
    ck_assert_str_eq(evs[i + 2].kind, "unit");
    ck_assert_str_eq(evs[i + 2].unit.combat_id, id);
    ck_assert_str_eq(evs[i + 3].kind, "unit");
    ck_assert_str_eq(evs[i + 3].unit.combat_id, id);
    db_event_log_free(evs, n);
}

/* One event as text: every member a reader sees. */
static void put_event(FILE *f, const db_logged_event *ev)
{
    const db_event *u = &ev->unit;

    fprintf(f, "%lld %s %s %s %s %lld %s %s %s |", ev->seq, ev->kind,
            ev->record_id, ev->system, ev->status, ev->n, ev->head,
            ev->created_at, ev->summary ? ev->summary : "-");
    if (strcmp(ev->kind, "unit") == 0)
        fprintf(f, " %lld %lld %s %s %s %s %s %s %s %d", u->seq, u->unit_seq,
                u->unit_id, u->combat_id, u->at, u->kind,
                u->before ? u->before : "-", u->after ? u->after : "-",
                u->result ? u->result : "-", u->doc_slot);
    fputc('\n', f);
}

/* The campaign's event log as text, as every reader of it reads it: its
 * windows (after, after + width] from 0 to its last, each as a stream
 * reads one (for each width of widths); every campaign's events at once;
 * and the feed (db_events_page) in pages of 2 from each end.  New. */
static char *log_text(const test_campaign *c)
{
    static const long long widths[] = {1, 2, 3, 7, 11, 1000};
    db_conn *r = db_read_acquire(http_db(ts->srv));
    long long last = 0, after;
    db_logged_event *evs;
    char *text = NULL;
    size_t len = 0, n, i, w;
    FILE *f = open_memstream(&text, &len);
    err_info e;
    int order;

    err_clear(&e);
    ck_assert_int_eq(db_event_log_last(r, c->id, &last, &e), ERR_OK);
    for (w = 0; w < sizeof widths / sizeof widths[0]; w++) {
        fprintf(f, "width %lld\n", widths[w]);
        for (after = 0; after < last; after += widths[w]) {
            ck_assert_int_eq(db_event_log_after(r, c->id, after,
                                                after + widths[w], 500, &evs,
                                                &n, &e),
                             ERR_OK);
            for (i = 0; i < n; i++)
                put_event(f, &evs[i]);
            db_event_log_free(evs, n);
        }
    }
    fprintf(f, "every campaign\n");
    ck_assert_int_eq(
        db_event_log_after(r, NULL, 0, LLONG_MAX, 5000, &evs, &n, &e), ERR_OK);
    ck_assert_int_eq(db_event_log_docs(r, evs, n, NULL, NULL, &e), ERR_OK);
    for (i = 0; i < n; i++)
        if (strcmp(evs[i].campaign_id, c->id) == 0)
            put_event(f, &evs[i]);
    db_event_log_free(evs, n);
    for (order = 0; order < 2; order++) {
        db_event_query q = {c->id, NULL, 0, order == 1, 2};
        db_event *page;
        fprintf(f, "feed %d\n", order);
        do {
            ck_assert_int_eq(db_events_page(r, &q, &page, &n, &e), ERR_OK);
            for (i = 0; i < n; i++)
                fprintf(f, "%lld %lld %s %s\n", page[i].seq, page[i].unit_seq,
                        page[i].unit_id, page[i].combat_id);
            if (n > 0)
                q.after = page[n - 1].seq;
            db_events_free(page, n);
        } while (n == 2);
    }
    db_read_release(http_db(ts->srv), r);
    fclose(f);
    return text;
}

/* A staged combat's units' events are logged in its combat's row (SQLite,
 * migration 27): read back, that row gives every reader of the log the
 * events, with the ids, that the two rows it stands for give (the shape
 * before, which stores from before still hold, and PostgreSQL's triggers
 * write; an event of its own still has a row of its own): the log
 * rewritten into that shape reads the same, byte for byte, window by
 * window.  A combat the writer works out is logged as a staged one. */
START_TEST(test_staged_combat_logged_in_one_row)
{
    test_campaign c;
    char id[64], path[192], *folded, *split;
    int k;

    /* pairs that fight, each unit twice (none worn out) */
    static const char *const pairs[6] = {
        COMBAT("Alpha", "Bravo"),  COMBAT("Delta", "Echo"),
        COMBAT("Foxtrot", "Golf"), COMBAT("Alpha", "Echo"),
        COMBAT("Delta", "Golf"),   COMBAT("Foxtrot", "Bravo")};

    TS_SQLITE_ONLY();
    world(&c);
    ts_unit(ts, &c, "Delta", "Red", 0, 6, NULL);
    ts_unit(ts, &c, "Foxtrot", "Red", 0, 6, NULL);
    ts_unit(ts, &c, "Echo", "Blue", 0, 6, NULL);
    ts_unit(ts, &c, "Golf", "Blue", 0, 6, NULL);
    for (k = 0; k < 3; k++) {
        /* one staged, and one in flight beside it that the writer works
         * out (logged in one row too) */
        void *staged = read_job(&c, pairs[2 * k]),
             *second = read_job(&c, pairs[2 * k + 1]);
        ck_assert(stage(staged));
        land(staged, id);
        land(second, id); /* not staged: the writer works it out */
        if (k == 1) {     /* an event of its own between */
            char charlie[64];
            unit_id(&c, "Charlie", charlie);
            snprintf(path, sizeof path, "/v1/campaigns/%s/units/%s", c.id,
                     charlie);
            json_decref(ts_call(ts, 200, "PATCH", path, c.umpire,
                                "{\"name\":\"Charlie2\"}"));
        }
    }
    ck_assert_int_eq(ts_sql_int(ts,
                                "SELECT count(*) FROM event_log WHERE "
                                "campaign_id = ? AND n_units IS NOT NULL",
                                TS_TEXT(c.id)),
                     6);
    folded = log_text(&c);
    /* the ids as the two rows gave them: every id of the log once, in
     * order (the campaign is the server's only one) */
    {
        db_conn *r = db_read_acquire(http_db(ts->srv));
        db_logged_event *evs;
        long long last = 0;
        size_t n, i;
        err_info e;

        err_clear(&e);
        ck_assert_int_eq(
            db_event_log_after(r, NULL, 0, LLONG_MAX, 5000, &evs, &n, &e),
            ERR_OK);
        ck_assert_int_eq(db_event_log_last(r, NULL, &last, &e), ERR_OK);
        db_read_release(http_db(ts->srv), r);
        ck_assert_uint_gt(n, 20);
        for (i = 0; i < n; i++)
            ck_assert_int_eq(evs[i].seq, evs[0].seq + (long long)i);
        ck_assert_int_eq(evs[n - 1].seq, last);
        db_event_log_free(evs, n);
    }
    /* each such row as the two it stands for: the combat's (and the
     * ledger's move), then its units' block; the first three, so that
     * both shapes are read side by side (a store from before this one
     * holds both), then the other three */
    for (k = 0; k < 2; k++) {
        size_t at = 0;

        ck_assert_int_eq(
            ts_sql_exec(ts, "INSERT INTO event_log (seq, campaign_id, kind, "
                            "unit_seq, n) SELECT -seq, campaign_id, 'unit', "
                            "unit_seq, n_units FROM event_log WHERE seq IN "
                            "(SELECT seq FROM event_log WHERE n_units IS NOT "
                            "NULL ORDER BY seq LIMIT 3)"),
            3);
        ck_assert_int_eq(
            ts_sql_exec(ts, "UPDATE event_log SET seq = seq - n_units, "
                            "unit_seq = NULL, n_units = NULL WHERE seq IN "
                            "(SELECT -seq FROM event_log WHERE seq < 0)"),
            3);
        ck_assert_int_eq(
            ts_sql_exec(ts, "UPDATE event_log SET seq = -seq WHERE seq < 0"),
            3);
        split = log_text(&c);
        while (folded[at] && folded[at] == split[at])
            at++;
        ck_assert_msg(folded[at] == split[at], "%s read otherwise from: %.200s",
                      k == 0 ? "half split" : "split", folded + at);
        free(split);
    }
    ck_assert_int_eq(ts_sql_int(ts, "SELECT count(*) FROM event_log WHERE "
                                    "n_units IS NOT NULL"),
                     0);
    ck_assert_ptr_nonnull(strstr(folded, " unit "));
    ck_assert_ptr_nonnull(strstr(folded, " ledger "));
    free(folded);
}
END_TEST

/* Units read together (db_units_prefetch; PostgreSQL's binds) are found
 * as each would be alone: by id or by name, the id first (a unit named as
 * another's id, which only a write behind the service's back makes), none
 * where no unit is or it is another campaign's, twice where asked twice,
 * and more than one statement's worth (63) at once. */
enum { TOGETHER_EXTRA = 70, TOGETHER_REFS = 8 + TOGETHER_EXTRA };

START_TEST(test_units_found_together)
{
    test_campaign c, other;
    char alpha[64], bravo[64], charlie[64], theirs[64];
    char names[TOGETHER_EXTRA][16];
    const char *refs[TOGETHER_REFS];
    static db_unit alone[TOGETHER_REFS], together[TOGETHER_REFS];
    err_code rc_alone[TOGETHER_REFS], rc_together[TOGETHER_REFS];
    db_conn *r;
    size_t i;

    world(&c);
    world(&other);
    unit_id(&c, "Alpha", alpha);
    unit_id(&c, "Bravo", bravo);
    unit_id(&c, "Charlie", charlie);
    unit_id(&other, "Alpha", theirs);
    for (i = 0; i < TOGETHER_EXTRA; i++) {
        snprintf(names[i], sizeof names[i], "U%02zu", i);
        ts_unit(ts, &c, names[i], i % 2 ? "Red" : "Blue", (int)(i % 3), 6,
                NULL);
        refs[8 + i] = names[i];
    }
    /* Delta: named as Alpha's id */
    ts_unit(ts, &c, "Delta", "Blue", 1, 6, NULL);
    ck_assert_int_eq(ts_sql_exec(ts,
                                 "UPDATE units SET name = ? WHERE "
                                 "campaign_id = ? AND name = 'Delta'",
                                 TS_TEXT(alpha), TS_TEXT(c.id)),
                     1);
    refs[0] = "Alpha";
    refs[1] = bravo;
    refs[2] = "Nobody";
    refs[3] = "Charlie";
    refs[4] = "Alpha";
    refs[5] = "Bravo";
    refs[6] = alpha;
    refs[7] = theirs;
    r = db_read_acquire(http_db(ts->srv));
    for (i = 0; i < TOGETHER_REFS; i++)
        rc_alone[i] = db_unit_find(r, c.id, refs[i], &alone[i], NULL);
    ck_assert_int_eq(db_units_prefetch(r, c.id, refs, TOGETHER_REFS, NULL),
                     ERR_OK);
    /* read together on PostgreSQL only: SQLite's finds are its cache's */
    ck_assert(ts_is_pg() ? r->prefetch != NULL : r->prefetch == NULL);
    for (i = 0; i < TOGETHER_REFS; i++)
        rc_together[i] = db_unit_find(r, c.id, refs[i], &together[i], NULL);
    /* another campaign's finds are its own */
    ck_assert_int_eq(db_unit_find(r, other.id, "Alpha", &together[0], NULL),
                     ERR_OK);
    ck_assert_str_eq(together[0].id, theirs);
    rc_together[0] = db_unit_find(r, c.id, refs[0], &together[0], NULL);
    db_units_prefetch_end(r);
    ck_assert_ptr_null(r->prefetch);
    db_read_release(http_db(ts->srv), r);
    ck_assert_int_eq(rc_alone[2], ERR_NOT_FOUND);
    ck_assert_int_eq(rc_alone[7], ERR_NOT_FOUND);
    ck_assert_str_eq(alone[1].name, "Bravo");
    ck_assert_str_eq(alone[5].id, bravo);
    ck_assert_str_eq(alone[3].id, charlie);
    ck_assert(alone[3].is_eliminated);
    ck_assert_str_eq(alone[6].name, "Alpha"); /* the id, not Delta */
    for (i = 0; i < TOGETHER_REFS; i++) {
        ck_assert_int_eq(rc_together[i], rc_alone[i]);
        if (rc_alone[i] != ERR_OK)
            continue;
        ck_assert_str_eq(together[i].id, alone[i].id);
        ck_assert_str_eq(together[i].name, alone[i].name);
        ck_assert_str_eq(together[i].side_name, alone[i].side_name);
        ck_assert_int_eq(together[i].is_eliminated, alone[i].is_eliminated);
        ck_assert_int_eq(together[i].scrud.quality, alone[i].scrud.quality);
        ck_assert_int_eq(together[i].row, alone[i].row);
    }
    ck_assert_str_eq(together[8 + TOGETHER_EXTRA - 1].name, "U69");
}
END_TEST

START_TEST(test_staged_combat_lands_as_staged)
{
    long long landed0, redone0;
    test_campaign c;
    void *job;
    char id[64], k0[65];

    world(&c);
    next_commitment(&c, k0);
    pipeline_stats(&landed0, &redone0);
    job = read_job(&c, COMBAT("Alpha", "Bravo"));
    ck_assert(stage(job));
    ck_assert(((combat_record *)job)->is_staged);
    ck_assert_str_eq(((combat_record *)job)->dice.commitment, k0);
    land(job, id);
    assert_counts(landed0, redone0, 1, 0);
    ck_assert_int_eq(alpha_quality(&c, id), 0);
    check_combat_events(&c, id);
}
END_TEST

START_TEST(test_staged_combat_redone_when_a_unit_changed)
{
    long long landed0, redone0;
    test_campaign c;
    void *job;
    char id[64], path[192];
    json_t *j;

    world(&c);
    pipeline_stats(&landed0, &redone0);
    job = read_job(&c, COMBAT("Alpha", "Bravo"));
    ck_assert(stage(job));
    /* Between the snapshot and the writer, the umpire edits Alpha. */
    edit_unit(&c, "Alpha", "{\"scrud\":{\"quality\":2}}");
    land(job, id);
    assert_counts(landed0, redone0, 0, 1);
    /* Worked out again with Alpha as it is now, not as it was staged. */
    ck_assert_int_eq(alpha_quality(&c, id), 2);
    check_combat_events(&c, id);
    /* And applied to it as it is now: the edit is kept, and the combat's
     * history event starts from it (not from the unit the snapshot
     * read). */
    snprintf(path, sizeof path, "/v1/campaigns/%s/units/Alpha", c.id);
    j = ts_call(ts, 200, "GET", path, c.umpire, NULL);
    ck_assert_int_eq(json_integer_value(json_object_get(
                         json_object_get(j, "scrud"), "quality")),
                     2);
    json_decref(j);
    snprintf(path, sizeof path,
             "/v1/campaigns/%s/units/Alpha/history?order=newest&limit=1", c.id);
    j = ts_call(ts, 200, "GET", path, c.umpire, NULL);
    {
        json_t *ev = json_array_get(json_object_get(j, "items"), 0);
        ck_assert_str_eq(json_string_value(json_object_get(ev, "kind")),
                         "combat");
        ck_assert_int_eq(
            json_integer_value(json_object_get(
                json_object_get(json_object_get(ev, "before"), "scrud"),
                "quality")),
            2);
    }
    json_decref(j);
    /* And the ledger still holds together. */
    snprintf(path, sizeof path, "/v1/campaigns/%s/ledger/verify", c.id);
    j = ts_call(ts, 200, "GET", path, c.umpire, NULL);
    ck_assert(json_is_true(json_object_get(j, "verified")));
    json_decref(j);
}
END_TEST

/* The campaign of world() without Charlie, whose combats keep a fatigue
 * penalty on most units (attrition), so that they change rows, and lose
 * none for some 90 combats (as bench/campaign.sh's BENCH_WEAR=1). */
static void world_kept(test_campaign *c)
{
    static const char *const sides[] = {"Red", "Blue", NULL};

    ts_campaign(ts, c,
                "{\"attrition\":true,\"eliminate_below\":-100,"
                "\"defeats_per_elimination\":0}",
                sides);
    ts_unit(ts, c, "Alpha", "Red", 0, 6, NULL);
    ts_unit(ts, c, "Bravo", "Blue", 0, 6, NULL);
}

/* The campaign of world_kept, the pipeline's counts before its combats,
 * and two jobs of Alpha against Bravo read from it (a, then b). */
static void kept_pair(test_campaign *c, long long *landed0, long long *redone0,
                      combat_record **a, combat_record **b)
{
    world_kept(c);
    pipeline_stats(landed0, redone0);
    *a = read_job(c, COMBAT("Alpha", "Bravo"));
    *b = read_job(c, COMBAT("Alpha", "Bravo"));
}

/* The newest two history events of unit (name) of c: items[0] the
 * newest; new. */
static json_t *last_two_events(const test_campaign *c, const char *unit)
{
    char path[192];
    json_t *j;

    snprintf(path, sizeof path,
             "/v1/campaigns/%s/units/%s/history?order=newest&limit=2", c->id,
             unit);
    j = ts_call(ts, 200, "GET", path, c->umpire, NULL);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "items")), 2);
    return j;
}

/* Each unit's newest event starts from what the one before it left:
 * its before is the event before's after. */
static void assert_events_follow(const test_campaign *c)
{
    static const char *const units[] = {"Alpha", "Bravo"};
    int k;

    for (k = 0; k < 2; k++) {
        json_t *j = last_two_events(c, units[k]),
               *items = json_object_get(j, "items");
        ck_assert_msg(
            json_equal(json_object_get(json_array_get(items, 0), "before"),
                       json_object_get(json_array_get(items, 1), "after")),
            "%s's last combat did not start from the one before", units[k]);
        json_decref(j);
    }
}

/* Whether rec, staged, leaves the unit named name otherwise than it read
 * it (penalties, or eliminated): seeded dice decide. */
static bool leaves_changed(const combat_record *rec, const char *name)
{
    size_t i, k;

    for (i = 0; i < rec->n_bound; i++)
        if (strcmp(rec->bound[i].name, name) == 0)
            for (k = 0; k < rec->n_left; k++)
                if (strcmp(rec->left[k].id, rec->bound[i].id) == 0)
                    return rec->left[k].scrud.defeat_penalty !=
                               rec->bound[i].scrud.defeat_penalty ||
                           rec->left[k].scrud.fatigue_penalty !=
                               rec->bound[i].scrud.fatigue_penalty ||
                           rec->left[k].is_eliminated !=
                               rec->bound[i].is_eliminated;
    return false;
}

/* The ledger of c verifies. */
static void assert_ledger_verifies(const test_campaign *c)
{
    char path[160];
    json_t *j;

    snprintf(path, sizeof path, "/v1/campaigns/%s/ledger/verify", c->id);
    j = ts_call(ts, 200, "GET", path, c->umpire, NULL);
    ck_assert_msg(json_is_true(json_object_get(j, "verified")), "%s",
                  json_dumps(j, 0));
    json_decref(j);
}

/* assert_counts, then c's units' events follow each other and its
 * ledger verifies: what every landing of these tests leaves. */
static void assert_landed(const test_campaign *c, long long landed0,
                          long long redone0, int landed, int redone)
{
    assert_counts(landed0, redone0, landed, redone);
    assert_events_follow(c);
    assert_ledger_verifies(c);
}

/* a, staged, never lands (refused, or lost); then one write of its
 * campaign (Bravo edited with body), which takes it to the version b,
 * worked out ahead of a, expects; then b's writer job: worked out again
 * (not landed as staged).  b's combat's id into id. */
static void lost_then_edit(const test_campaign *c, combat_record *a,
                           combat_record *b, const char *body, char id[64])
{
    long long landed0, redone0;

    pipeline_stats(&landed0, &redone0);
    a->system->job_free(a);
    edit_unit(c, "Bravo", body);
    land((void *)b, id);
    assert_counts(landed0, redone0, 0, 1);
}

/* Combat id of c, as GET gives it (new). */
static json_t *get_combat(const test_campaign *c, const char *id)
{
    char path[192];

    snprintf(path, sizeof path, "/v1/campaigns/%s/combats/%s", c->id, id);
    return ts_call(ts, 200, "GET", path, c->umpire, NULL);
}

/* Combat id stored packed, as a staged one: no row of rolls, its rolls
 * in its row, from ledger place first; its two units' events with their
 * documents in its row.  Its commitment into commitment ("" for none). */
static void assert_stored_packed(const char *id, long long first,
                                 char commitment[80])
{
    ck_assert_int_eq(
        ts_sql_int(ts, "SELECT count(*) FROM rolls WHERE combat_id = ?",
                   TS_TEXT(id)),
        0);
    ck_assert_int_eq(ts_sql_int(ts,
                                "SELECT ledger_first FROM combats WHERE id = ? "
                                "AND rolls IS NOT NULL",
                                TS_TEXT(id)),
                     first);
    ck_assert_int_eq(ts_sql_int(ts,
                                "SELECT count(*) FROM unit_events WHERE "
                                "combat_row = (SELECT rowid FROM combats "
                                "WHERE id = ?) AND doc_slot > 0 AND after "
                                "IS NULL",
                                TS_TEXT(id)),
                     2);
    if (!ts_sql_text(ts, commitment, 80,
                     "SELECT commitment FROM combats WHERE id = ? AND "
                     "commitment IS NOT NULL",
                     TS_TEXT(id)))
        commitment[0] = '\0';
}

/* A combat the writer works out whole (never staged) is written as a
 * staged one is: its rolls packed in its row, at their first place in the
 * ledger, no row each; its units' events with their documents in its row
 * (doc_slot), no text of their own; a seeded one's commitment spent by
 * the ledger's save, an entered one's left to the next.  Each reads back
 * as any other. */
START_TEST(test_writer_combat_lands_packed)
{
    long long landed0, redone0, length;
    test_campaign c;
    char id[64], k0[65], spent[80];

    world(&c);
    next_commitment(&c, k0);
    pipeline_stats(&landed0, &redone0);
    land(read_job(&c, COMBAT("Alpha", "Bravo")), id); /* never staged */
    assert_landed(&c, landed0, redone0, 0, 0);
    assert_stored_packed(id, 1, spent);
    ck_assert_str_eq(spent, k0);
    next_commitment(&c, spent);
    ck_assert_str_ne(spent, k0);
    ck_assert_int_eq(alpha_quality(&c, id), 0);
    check_combat_events(&c, id);
    /* entered dice, their rolls after the first combat's: the
     * commitment stays the campaign's next */
    next_commitment(&c, k0);
    length = ts_sql_int(ts, "SELECT ledger_length FROM campaigns WHERE id = ?",
                        TS_TEXT(c.id));
    ck_assert_int_gt(length, 0);
    land(read_job(&c, ENTERED_COMBAT("Alpha", 2, "Bravo", 5)), id);
    assert_landed(&c, landed0, redone0, 0, 0);
    assert_stored_packed(id, length + 1, spent);
    ck_assert_str_eq(spent, "");
    next_commitment(&c, spent);
    ck_assert_str_eq(spent, k0);
    check_combat_events(&c, id);
}
END_TEST

/* A second combat of a campaign, while the first is in flight, is
 * worked out ahead of it: on the campaign as the first leaves it (its
 * units, its ledger, its next commitment), and both land as worked out,
 * on either store. */
START_TEST(test_second_combat_worked_out_ahead)
{
    long long landed0, redone0, ahead0 = pipeline_n_ahead(), left1, left2;
    test_campaign c;
    combat_record *first, *second;
    char id1[64], id2[64], k0[65], k1[65];
    int round, changed = 0;

    world_kept(&c);
    /* Until the first has changed Alpha twice (its dice decide), so that
     * the second reading it as the store held it would show. */
    for (round = 0; changed < 2; round++) {
        ck_assert_int_lt(round, 200);
        next_commitment(&c, k0);
        pipeline_stats(&landed0, &redone0);
        first = read_job(&c, COMBAT("Alpha", "Bravo"));
        second = read_job(&c, COMBAT("Alpha", "Bravo"));
        ck_assert(stage(first));
        ck_assert(stage(second));
        ck_assert(second->is_staged);
        ck_assert_int_eq(pipeline_n_ahead(), ahead0 + round + 1);
        ck_assert_str_eq(first->dice.commitment, k0);
        ck_assert_str_eq(second->dice.commitment,
                         first->chain_end.next.commitment);
        ck_assert_int_eq(second->version, first->version + 1);
        ck_assert_int_eq(second->chain_end.length0, first->chain_end.length);
        ck_assert_str_eq(second->chain_end.head0, first->chain_end.head);
        snprintf(k1, sizeof k1, "%s", second->chain_end.next.commitment);
        changed += leaves_changed(first, "Alpha");
        /* Each lands one version on, the one the next was worked out
         * on, on either store (PostgreSQL's trigger counts each unit's
         * write: db_campaign_landed_at). */
        left1 = first->version + 1;
        left2 = second->version + 1;
        land((void *)first, id1);
        ck_assert_int_eq(stored_version(&c), left1);
        land((void *)second, id2);
        ck_assert_int_eq(stored_version(&c), left2);
        assert_counts(landed0, redone0, 2, 0);
        next_commitment(&c, k0);
        ck_assert_str_eq(k0, k1);
        assert_events_follow(&c);
        assert_ledger_verifies(&c);
    }
    /* Its campaign free again, the next one is worked out alone. */
    first = read_job(&c, COMBAT("Alpha", "Bravo"));
    ck_assert(stage(first));
    land((void *)first, id1);
    ck_assert_int_eq(pipeline_n_ahead(), ahead0 + round);
    assert_events_follow(&c);
}
END_TEST

/* Three at once: the third worked out ahead of both, on what the second
 * leaves (the units the first alone read, as the first left them); a
 * unit edited between the first's landing and theirs: the second and the
 * third are worked out again, as the campaign now is. */
START_TEST(test_chain_ahead_and_an_edit_between)
{
    long long landed0, redone0;
    test_campaign c;
    combat_record *a, *b, *d;
    char id[64];
    json_t *j;

    bool is_changed = false;
    int round;

    world_kept(&c);
    ts_unit(ts, &c, "Delta", "Red", 0, 6, NULL);
    /* Until the first changed Alpha (its dice decide): the third reads
     * Alpha as the first left it, though the second did not read it. */
    for (round = 0; !is_changed; round++) {
        ck_assert_int_lt(round, 200);
        pipeline_stats(&landed0, &redone0);
        read_three(&c, &a, &b, &d);
        ck_assert(stage(a));
        ck_assert(stage(b));
        ck_assert(stage(d));
        ck_assert_int_eq(b->version, a->version + 1);
        ck_assert_int_eq(d->version, b->version + 1);
        ck_assert_str_eq(d->dice.commitment, b->chain_end.next.commitment);
        is_changed = leaves_changed(a, "Alpha");
        land((void *)a, id);
        land((void *)b, id);
        land((void *)d, id);
        assert_counts(landed0, redone0, 3, 0);
        assert_events_follow(&c); /* Alpha: the third from the first */
        assert_ledger_verifies(&c);
    }
    /* The first landed before the third is worked out: Alpha read from
     * the store (the ahead keeps only rows newer than its snapshot). */
    pipeline_stats(&landed0, &redone0);
    read_three(&c, &a, &b, &d);
    ck_assert(stage(a));
    ck_assert(stage(b));
    land((void *)a, id);
    ck_assert(stage(d));
    land((void *)b, id);
    land((void *)d, id);
    assert_landed(&c, landed0, redone0, 3, 0);

    /* Again, with Alpha edited once the first has landed. */
    pipeline_stats(&landed0, &redone0);
    read_three(&c, &a, &b, &d);
    ck_assert(stage(a));
    ck_assert(stage(b));
    ck_assert(stage(d));
    land((void *)a, id);
    edit_unit(&c, "Alpha", "{\"scrud\":{\"quality\":2}}");
    land((void *)b, id);
    land((void *)d, id);
    assert_counts(landed0, redone0, 1, 2);
    ck_assert_int_eq(alpha_quality(&c, id), 2);
    j = last_two_events(&c, "Alpha");
    ck_assert_int_eq(
        json_integer_value(json_object_get(
            json_object_get(
                json_object_get(json_array_get(json_object_get(j, "items"), 0),
                                "before"),
                "scrud"),
            "quality")),
        2);
    json_decref(j);
    assert_ledger_verifies(&c);
}
END_TEST

/* A combat worked out ahead of another whose campaign's units the cache
 * no longer holds (another campaign took their place): it reads them
 * from the store, and still as the one in flight leaves them. */
START_TEST(test_ahead_reads_the_store_as_left)
{
    long long landed0, redone0;
    test_campaign c, other;
    combat_record *a, *b, *y;
    char id[64];
    int round;
    bool is_changed = false;

    world_kept(&c);
    do
        world_kept(&other);
    while (unit_cache_slot(other.id) != unit_cache_slot(c.id));
    for (round = 0; !is_changed; round++) {
        ck_assert_int_lt(round, 200);
        pipeline_stats(&landed0, &redone0);
        a = read_job(&c, COMBAT("Alpha", "Bravo"));
        ck_assert(stage(a));
        is_changed = leaves_changed(a, "Alpha");
        /* The other campaign's combat puts c's rows out of the cache. */
        y = read_job(&other, COMBAT("Alpha", "Bravo"));
        ck_assert(stage(y));
        b = read_job(&c, COMBAT("Alpha", "Bravo"));
        ck_assert(stage(b));
        land((void *)a, id);
        land((void *)y, id);
        land((void *)b, id);
        assert_landed(&c, landed0, redone0, 3, 0);
    }
}
END_TEST

/* The SCS combat of Alpha against Bravo, entered dice, shifted off the
 * table's left: it rolls no die, and spends no commitment. */
#define SCS_OFF_TABLE                                                          \
    "{\"table\":\"example-2d6\",\"attackers\":[{\"unit\":\"Alpha\"}],"         \
    "\"defenders\":[{\"unit\":\"Bravo\"}],\"column_shift\":-3,"                \
    "\"dice\":{\"source\":\"entered\"}}"

/* A campaign whose units wear (a SCRUD combat changes them), Alpha
 * (Red) and Bravo (Blue), each with SCRUD and SCS ratings. */
static void world_wearing(test_campaign *c)
{
    static const char *const sides[] = {"Red", "Blue", NULL};
    char path[128];

    ts_campaign(ts, c,
                "{\"attrition\":true,\"eliminate_below\":-100,"
                "\"defeats_per_elimination\":0}",
                sides);
    snprintf(path, sizeof path, "/v1/campaigns/%s/units", c->id);
    json_decref(
        ts_call(ts, 201, "POST", path, c->umpire,
                "{\"name\":\"Alpha\",\"side\":\"Red\",\"scrud\":{\"quality\":0,"
                "\"faces\":6},\"scs\":{\"attack\":1,\"defense\":1,\"steps\":9,"
                "\"reduced\":{\"attack\":1,\"defense\":1}}}"));
    json_decref(ts_call(
        ts, 201, "POST", path, c->umpire,
        "{\"name\":\"Bravo\",\"side\":\"Blue\",\"scrud\":{\"quality\":0,"
        "\"faces\":6},\"scs\":{\"attack\":1,\"defense\":9,\"steps\":9,"
        "\"reduced\":{\"attack\":1,\"defense\":1}}}"));
}

/* The first staged combat of Alpha against Bravo that changes Alpha (its
 * dice decide), not landed; those before it landed, each one version
 * on. */
static combat_record *staged_changing_alpha(const test_campaign *c)
{
    combat_record *a;
    char id[64];
    long long v;
    int round;

    for (round = 0;; round++) {
        ck_assert_int_lt(round, 200);
        a = read_job(c, COMBAT("Alpha", "Bravo"));
        ck_assert(stage(a));
        if (leaves_changed(a, "Alpha"))
            return a;
        v = a->version;
        land((void *)a, id);
        ck_assert_int_eq(stored_version(c), v + 1);
    }
}

/* The SCS combat SCS_OFF_TABLE of c, read (not staged). */
static combat_record *scs_off_table_job(const test_campaign *c)
{
    json_t *body = json_loads(SCS_OFF_TABLE, 0, NULL);
    void *job = NULL;
    err_info e;

    err_clear(&e);
    ck_assert_int_eq(
        pipeline_read(systems_find("scs"), body, c->id, "", &job, &e), ERR_OK);
    json_decref(body);
    return job;
}

/* A combat without rolls worked out ahead of one that never lands, after
 * one write that takes the campaign to the version it expects: its
 * landing checks the ledger all the same (not moved by it), and works
 * it out again, as the campaign now is. */
START_TEST(test_ahead_without_rolls_checks_the_ledger)
{
    long long landed0, redone0;
    test_campaign c;
    combat_record *a, *b;
    err_info e;

    world_wearing(&c);
    a = staged_changing_alpha(&c);
    b = scs_off_table_job(&c);
    pipeline_stats(&landed0, &redone0);
    ck_assert(stage(b));
    ck_assert_uint_eq(b->n_rolls, 0);
    ck_assert_int_eq(b->version, a->version + 1);
    a->system->job_free(a); /* refused, or lost: it never lands */
    /* One write: Bravo eliminated, the campaign at the version b expects. */
    edit_unit(&c, "Bravo", "{\"eliminated\":true}");
    err_clear(&e);
    /* Worked out again, on Bravo eliminated: refused by the rules. */
    ck_assert_int_ne(
        db_write_in(http_db(ts->srv), c.id, pipeline_campaign_job, b, &e),
        ERR_OK);
    b->system->job_free(b);
    assert_counts(landed0, redone0, 0, 1);
    ck_assert_int_eq(ts_sql_int(ts,
                                "SELECT count(*) FROM units WHERE campaign_id "
                                "= ? AND name = 'Bravo' AND eliminated <> 0",
                                TS_TEXT(c.id)),
                     1);
    ck_assert_int_eq(ts_sql_int(ts,
                                "SELECT count(*) FROM combats WHERE "
                                "campaign_id = ? AND system = 'scs'",
                                TS_TEXT(c.id)),
                     0);
}
END_TEST

/* Every landing leaves its campaign one version on, on either store,
 * whatever it writes: the version a combat worked out ahead of it
 * expects (on PostgreSQL a trigger counts each unit's write, and a
 * combat without a ledger to save counts none: db_campaign_landed_at
 * sets it).  A staged combat that changes its units, one that rolls no
 * die (SCS shifted off the table: no ledger to save), one the writer
 * works out whole, and one worked out again after an edit. */
START_TEST(test_landing_counts_one_version)
{
    long long landed0, redone0, v;
    test_campaign c;
    combat_record *a, *b;
    char id[64];

    world_wearing(&c);
    a = staged_changing_alpha(&c);
    v = a->version;
    land((void *)a, id);
    ck_assert_int_eq(stored_version(&c), v + 1);

    b = scs_off_table_job(&c);
    ck_assert(stage(b));
    ck_assert_uint_eq(b->n_rolls, 0);
    v = stored_version(&c);
    land((void *)b, id);
    ck_assert_int_eq(stored_version(&c), v + 1);

    v = stored_version(&c);
    land(read_job(&c, COMBAT("Alpha", "Bravo")), id); /* the writer's */
    ck_assert_int_eq(stored_version(&c), v + 1);

    pipeline_stats(&landed0, &redone0);
    a = read_job(&c, COMBAT("Alpha", "Bravo"));
    ck_assert(stage(a));
    edit_unit(&c, "Bravo", "{\"scrud\":{\"quality\":1}}");
    v = stored_version(&c);
    ck_assert_int_gt(v, a->version);
    land((void *)a, id);
    assert_counts(landed0, redone0, 0, 1);
    ck_assert_int_eq(stored_version(&c), v + 1);
    assert_ledger_verifies(&c);
}
END_TEST

/* A combat worked out ahead of one that never lands, after a write that
 * takes the campaign to the version it expects: its landing sees the
 * ledger is not the one it was chained on, and works it out again (with
 * entered dice, which spend no commitment, the ledger alone tells). */
START_TEST(test_ahead_of_one_that_never_lands)
{
    test_campaign c;
    combat_record *a, *b;
    char id[64], k0[65];
    json_t *j;

    world_kept(&c);
    a = read_job(&c, COMBAT("Alpha", "Bravo"));
    b = read_job(&c, ENTERED_COMBAT("Alpha", 1, "Bravo", 6));
    ck_assert(stage(a));
    ck_assert(stage(b));
    ck_assert_int_eq(b->version, a->version + 1);
    ck_assert_str_eq(b->chain_end.head0, a->chain_end.head);
    lost_then_edit(&c, a, b, "{\"scrud\":{\"quality\":1}}", id);
    /* Chained on the ledger as it is: the campaign's first entries, and
     * the ledger holds together. */
    j = get_combat(&c, id);
    ck_assert_int_eq(json_integer_value(json_object_get(
                         json_object_get(j, "ledger"), "first_pos")),
                     1);
    json_decref(j);
    assert_ledger_verifies(&c);
    ck_assert_int_eq(ts_sql_int(ts,
                                "SELECT count(*) FROM campaigns WHERE id = ? "
                                "AND ledger_length = 2",
                                TS_TEXT(c.id)),
                     1);

    /* Seeded: the commitment b spends was drawn by a, never stored; b is
     * worked out again on the campaign's next one (not refused). */
    next_commitment(&c, k0);
    a = read_job(&c, COMBAT("Alpha", "Bravo"));
    b = read_job(&c, COMBAT("Alpha", "Bravo"));
    ck_assert(stage(a));
    ck_assert(stage(b));
    ck_assert_str_eq(b->dice.commitment, a->chain_end.next.commitment);
    lost_then_edit(&c, a, b, "{\"scrud\":{\"quality\":2}}", id);
    j = get_combat(&c, id);
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_object_get(j, "dice"), "commitment")),
                     k0);
    json_decref(j);
    assert_ledger_verifies(&c);
}
END_TEST

/* Whether b read the unit named name as a leaves it: its penalties and
 * whether it is eliminated. */
static bool reads_as_left(const combat_record *b, const combat_record *a,
                          const char *name)
{
    size_t i, k;

    for (i = 0; i < b->n_bound; i++)
        if (strcmp(b->bound[i].name, name) == 0)
            for (k = 0; k < a->n_left; k++)
                if (strcmp(a->left[k].id, b->bound[i].id) == 0)
                    return a->left[k].scrud.defeat_penalty ==
                               b->bound[i].scrud.defeat_penalty &&
                           a->left[k].scrud.fatigue_penalty ==
                               b->bound[i].scrud.fatigue_penalty &&
                           a->left[k].is_eliminated ==
                               b->bound[i].is_eliminated;
    return false;
}

/* A combat with entered dice leaves the campaign for the next to be
 * worked out ahead of it too: the next spends the campaign's next
 * commitment, which the first did not, on the ledger and the units the
 * first leaves.  Where the first never lands and a write takes the
 * campaign to the version the next expects, the next's save sees the
 * ledger is not the one it was chained on (its commitment alone would
 * not tell): it is worked out again. */
START_TEST(test_ahead_of_entered_dice)
{
    long long landed0, redone0, ahead0;
    test_campaign c;
    combat_record *a, *b;
    char id[64], k0[65];
    json_t *j;

    world_kept(&c);
    next_commitment(&c, k0);
    pipeline_stats(&landed0, &redone0);
    ahead0 = pipeline_n_ahead();
    /* Alpha's 2 against Bravo's 5: Alpha loses, and is changed. */
    a = read_job(&c, ENTERED_COMBAT("Alpha", 2, "Bravo", 5));
    b = read_job(&c, COMBAT("Alpha", "Bravo"));
    ck_assert(stage(a));
    ck_assert(leaves_changed(a, "Alpha"));
    ck_assert(stage(b));
    ck_assert_int_eq(pipeline_n_ahead(), ahead0 + 1);
    ck_assert_int_eq(b->version, a->version + 1);
    ck_assert_str_eq(b->dice.commitment, k0);
    ck_assert_int_eq(b->chain_end.length0, a->chain_end.length);
    ck_assert_str_eq(b->chain_end.head0, a->chain_end.head);
    ck_assert(reads_as_left(b, a, "Alpha"));
    ck_assert(reads_as_left(b, a, "Bravo"));
    land((void *)a, id);
    land((void *)b, id);
    assert_landed(&c, landed0, redone0, 2, 0);

    /* The first never lands; Bravo edited in its place. */
    next_commitment(&c, k0);
    a = read_job(&c, ENTERED_COMBAT("Alpha", 2, "Bravo", 5));
    b = read_job(&c, COMBAT("Alpha", "Bravo"));
    ck_assert(stage(a));
    ck_assert(stage(b));
    ck_assert_int_eq(b->version, a->version + 1);
    ck_assert_str_eq(b->dice.commitment, k0);
    lost_then_edit(&c, a, b, "{\"scrud\":{\"quality\":1}}", id);
    j = get_combat(&c, id);
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_object_get(j, "dice"), "commitment")),
                     k0);
    json_decref(j);
    assert_events_follow(&c);
    assert_ledger_verifies(&c);
}
END_TEST

/* Milliseconds since start (CLOCK_MONOTONIC). */
static long long ms_since(const struct timespec *start)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - start->tv_sec) * 1000LL +
           (now.tv_nsec - start->tv_nsec) / 1000000LL;
}

/* stage(job) with the waits set to wait_ms and drain_ms
 * (combat_campaign_set_wait; 0: as they are), then put back: whether it
 * was staged; how long it took, in ms, into *ms. */
static bool stage_timed(void *job, int wait_ms, int drain_ms, long long *ms)
{
    struct timespec start;
    bool is_staged;

    combat_campaign_set_wait(wait_ms, drain_ms);
    clock_gettime(CLOCK_MONOTONIC, &start);
    is_staged = stage(job);
    *ms = ms_since(&start);
    combat_campaign_set_wait(0, 0);
    return is_staged;
}

/* A combat arriving while another of its campaign is being worked out
 * waits for it, 50 ms at most (AHEAD_WAIT_MS), then goes to the writer
 * whole; what the first was worked out ahead on is dropped, so nothing
 * after lands on it.  The next waits for those in flight to land, for
 * the shorter wait (DRAIN_WAIT_MS), then goes to the writer; that wait
 * having run out, the one after goes there at once.  Every combat
 * lands, and once none is in flight the next is worked out ahead
 * again. */
START_TEST(test_ahead_wait_ends_at_the_writer)
{
    long long landed0, redone0, ahead0, elapsed;
    test_campaign c;
    combat_record *a, *b, *d, *f, *g;
    db_ahead held;
    char id[64];

    kept_pair(&c, &landed0, &redone0, &a, &b);
    d = read_job(&c, COMBAT("Alpha", "Bravo"));
    ck_assert(stage(a));
    /* b taken to be worked out ahead of a, and not done yet. */
    ck_assert_int_eq(combat_campaign_enter(b, &held), COMBAT_ENTER_AHEAD);
    ck_assert_int_eq(held.version, a->version + 1);
    combat_ahead_free(&held);
    ahead0 = pipeline_n_ahead();
    ck_assert(!stage_timed(d, 0, 0, &elapsed));
    ck_assert_int_ge(elapsed, 50);
    ck_assert(!d->is_staged);
    ck_assert_int_eq(pipeline_n_ahead(), ahead0);
    combat_campaign_release(b);
    /* The next, with a, b and d in flight and no ahead to be worked out
     * on: it waits for them to land (none does: this thread lands them
     * below) for the shorter of the two waits (here 40 ms against 3 s),
     * then goes to the writer. */
    f = read_job(&c, COMBAT("Alpha", "Bravo"));
    ck_assert(!stage_timed(f, 3000, 40, &elapsed));
    ck_assert_int_ge(elapsed, 40);
    ck_assert_int_lt(elapsed, 2000);
    ck_assert(!f->is_staged);
    /* That wait ran out (a commit slower than it): the next does not
     * wait again (here it would for 2 s), until none is in flight. */
    g = read_job(&c, COMBAT("Alpha", "Bravo"));
    ck_assert(!stage_timed(g, 3000, 2000, &elapsed));
    ck_assert_int_lt(elapsed, 1000);
    land((void *)a, id);
    land((void *)b, id);
    land((void *)d, id);
    land((void *)f, id);
    land((void *)g, id);
    assert_landed(&c, landed0, redone0, 1, 0);
    /* None in flight: the next two, the second worked out ahead. */
    a = read_job(&c, COMBAT("Alpha", "Bravo"));
    b = read_job(&c, COMBAT("Alpha", "Bravo"));
    ck_assert(stage(a));
    ck_assert(stage(b));
    ck_assert_int_eq(pipeline_n_ahead(), ahead0 + 1);
    land((void *)a, id);
    land((void *)b, id);
    assert_landed(&c, landed0, redone0, 3, 0);
}
END_TEST

/* stage(job) on a thread of its own, with the waits set to wait_ms and
 * drain_ms (combat_campaign_set_wait): whether it was staged, and when
 * it returned (ms after staging_start). */
typedef struct staging {
    void *job;
    struct timespec start;
    pthread_t thread;
    bool is_staged;
    long long ms;
} staging;

static void *stage_on_thread(void *arg)
{
    staging *g = arg;

    g->is_staged = stage(g->job);
    g->ms = ms_since(&g->start);
    return NULL;
}

static void staging_start(staging *g, void *job, int wait_ms, int drain_ms)
{
    memset(g, 0, sizeof *g);
    g->job = job;
    combat_campaign_set_wait(wait_ms, drain_ms);
    clock_gettime(CLOCK_MONOTONIC, &g->start);
    ck_assert_int_eq(pthread_create(&g->thread, NULL, stage_on_thread, g), 0);
}

/* Once its thread is done; the waits put back. */
static void staging_end(staging *g)
{
    pthread_join(g->thread, NULL);
    combat_campaign_set_wait(0, 0);
}

/* Those in flight leaving nothing to be worked out ahead on (one was
 * worked out again, or by the writer): the next waits for them to land,
 * then is worked out alone on the campaign they leave, rather than go to
 * the writer (as every one after it would, until none is in flight). */
START_TEST(test_ahead_waits_for_those_in_flight)
{
    long long landed0, redone0, ahead0, version;
    test_campaign c;
    combat_record *a, *b;
    staging g;
    char id[64];

    kept_pair(&c, &landed0, &redone0, &a, &b);
    ck_assert(stage(a));
    version = a->version + 1;
    combat_campaign_no_ahead(c.id); /* as a combat worked out again does */
    ahead0 = pipeline_n_ahead();
    /* Long enough that only a's landing can end the wait. */
    staging_start(&g, b, 0, 10000);
    usleep(100 * 1000);
    land((void *)a, id);
    staging_end(&g);
    ck_assert_msg(g.is_staged, "not worked out once a landed");
    ck_assert_int_ge(g.ms, 100);
    ck_assert_int_lt(g.ms, 5000);
    ck_assert_int_eq(pipeline_n_ahead(), ahead0); /* alone, after a */
    ck_assert_int_eq(b->version, version);
    land((void *)b, id);
    assert_landed(&c, landed0, redone0, 2, 0);
}
END_TEST

/* A combat that first waits for one being worked out, which then leaves
 * nothing to go on, still has the whole wait for those in flight to
 * land, counted from then (not from its arrival); with nothing landing,
 * it then goes to the writer. */
START_TEST(test_drain_wait_counted_from_the_drain)
{
    long long landed0, redone0;
    test_campaign c;
    combat_record *a, *b;
    db_ahead held;
    staging g;
    char id[64];

    kept_pair(&c, &landed0, &redone0, &a, &b);
    /* a being worked out, alone. */
    ck_assert_int_eq(combat_campaign_enter(a, &held), COMBAT_ENTER_ALONE);
    combat_ahead_free(&held);
    staging_start(&g, b, 5000, 100);
    /* 150 ms on (more than the drain's 100), a is done, leaving nothing. */
    usleep(150 * 1000);
    combat_campaign_release(a);
    staging_end(&g);
    ck_assert(!g.is_staged);
    ck_assert_int_ge(g.ms, 240);
    ck_assert_int_lt(g.ms, 4000);
    land((void *)a, id);
    land((void *)b, id);
    assert_counts(landed0, redone0, 0, 0);
    assert_events_follow(&c);
}
END_TEST

/* ---- a hot campaign under load ---- */

enum { HOT_CLIENTS = 8, HOT_COMBATS = 25, HOT_EDITS = 6 };

/* A client of test_hot_campaign_under_load: what it was answered. */
typedef struct hot_client {
    const test_campaign *c;
    int k;                   /* its place among the clients */
    int n_done;              /* combats answered 201, edits 200 */
    long long n_dice;        /* the dice of its combats' answers */
    int n_other, last_other; /* other answers (-1: none), the last */
} hot_client;

/* One answer to h: done when its status is expected; the dice of a
 * combat's answer counted. */
static void hot_answer(hot_client *h, int sent, const http_resp *r,
                       int expected)
{
    if (sent == 0 && r->status == expected) {
        h->n_done++;
        h->n_dice +=
            (long long)json_array_size(json_object_get(r->json, "rolls"));
    } else {
        h->n_other++;
        h->last_other = sent == 0 ? r->status : -1;
    }
}

/* HOT_COMBATS combats of Alpha against Bravo, one after another; one in
 * seven with entered dice (they spend no commitment: the next combat's
 * landing shows they landed by the ledger's head alone). */
static void *hot_combats(void *arg)
{
    hot_client *h = arg;
    char path[160];
    int i;

    snprintf(path, sizeof path, "/v1/campaigns/%s/combats/scrud", h->c->id);
    for (i = 0; i < HOT_COMBATS; i++) {
        bool is_entered = (h->k * HOT_COMBATS + i) % 7 == 3;
        http_resp r;
        int sent =
            ts_request(ts, "POST", path, h->c->umpire,
                       is_entered ? ENTERED_COMBAT("Alpha", 2, "Bravo", 5)
                                  : COMBAT("Alpha", "Bravo"),
                       &r);
        hot_answer(h, sent, &r, 201);
        if (sent == 0)
            http_resp_cleanup(&r);
    }
    return NULL;
}

/* HOT_EDITS edits of Bravo's quality, 5 ms apart: combats worked out on
 * Bravo as it was are worked out again. */
static void *hot_edits(void *arg)
{
    hot_client *h = arg;
    char path[160];
    int i;

    snprintf(path, sizeof path, "/v1/campaigns/%s/units/Bravo", h->c->id);
    for (i = 0; i < HOT_EDITS; i++) {
        http_resp r;
        int sent;

        usleep(5000);
        sent = ts_request(ts, "PATCH", path, h->c->umpire,
                          i % 2 ? "{\"scrud\":{\"quality\":2}}"
                                : "{\"scrud\":{\"quality\":1}}",
                          &r);
        hot_answer(h, sent, &r, 200);
        if (sent == 0)
            http_resp_cleanup(&r);
    }
    return NULL;
}

/* Unit's whole history, oldest first, page by page: each event starts
 * from what the one before it left (its before is that one's after).
 * Its combat events counted. */
static int assert_history_follows(const test_campaign *c, const char *unit)
{
    char path[320], cursor[64] = "";
    json_t *after = NULL;
    int n_combats = 0, n_events = 0;

    do {
        json_t *j, *items, *next;
        size_t i;

        snprintf(path, sizeof path,
                 "/v1/campaigns/%s/units/%s/history?order=oldest&limit=200%s%s",
                 c->id, unit, cursor[0] ? "&cursor=" : "", cursor);
        j = ts_call(ts, 200, "GET", path, c->umpire, NULL);
        items = json_object_get(j, "items");
        for (i = 0; i < json_array_size(items); i++) {
            json_t *ev = json_array_get(items, i);
            const char *kind = json_string_value(json_object_get(ev, "kind"));

            ck_assert_ptr_nonnull(kind);
            if (after != NULL)
                ck_assert_msg(json_equal(json_object_get(ev, "before"), after),
                              "%s's event %d (%s) did not start from the "
                              "one before it",
                              unit, n_events + 1, kind);
            json_decref(after);
            after = json_incref(json_object_get(ev, "after"));
            n_combats += strcmp(kind, "combat") == 0;
            n_events++;
        }
        next = json_object_get(j, "next_cursor");
        if (json_is_string(next))
            snprintf(cursor, sizeof cursor, "%s", json_string_value(next));
        else if (json_is_integer(next))
            snprintf(cursor, sizeof cursor, "%lld",
                     (long long)json_integer_value(next));
        else
            cursor[0] = '\0';
        json_decref(j);
    } while (cursor[0] != '\0');
    json_decref(after);
    return n_combats;
}

/* Many combats of one campaign at once, from several clients, some with
 * entered dice, while its units are edited: every one lands, and each
 * once; every unit's history runs unbroken, each event from what the one
 * before left (none read the campaign without one landed before it); and
 * the ledger holds every die answered, and verifies.  Some were worked
 * out ahead of others in flight, on either store. */
START_TEST(test_hot_campaign_under_load)
{
    hot_client h[HOT_CLIENTS + 1];
    pthread_t th[HOT_CLIENTS + 1];
    long long ahead0 = pipeline_n_ahead(), n_dice = 0;
    test_campaign c;
    char path[160];
    json_t *j;
    int i;

    world_kept(&c);
    memset(h, 0, sizeof h);
    for (i = 0; i <= HOT_CLIENTS; i++) {
        h[i].c = &c;
        h[i].k = i;
        ck_assert_int_eq(
            pthread_create(&th[i], NULL,
                           i < HOT_CLIENTS ? hot_combats : hot_edits, &h[i]),
            0);
    }
    for (i = 0; i <= HOT_CLIENTS; i++)
        pthread_join(th[i], NULL);
    for (i = 0; i <= HOT_CLIENTS; i++) {
        ck_assert_msg(h[i].n_other == 0,
                      "client %d: %d answers not the expected one (the last "
                      "%d)",
                      i, h[i].n_other, h[i].last_other);
        n_dice += i < HOT_CLIENTS ? h[i].n_dice : 0;
    }
    ck_assert_int_eq(h[HOT_CLIENTS].n_done, HOT_EDITS);
    ck_assert_int_eq(assert_history_follows(&c, "Alpha"),
                     HOT_CLIENTS * HOT_COMBATS);
    ck_assert_int_eq(assert_history_follows(&c, "Bravo"),
                     HOT_CLIENTS * HOT_COMBATS);
    snprintf(path, sizeof path, "/v1/campaigns/%s/ledger/verify", c.id);
    j = ts_call(ts, 200, "GET", path, c.umpire, NULL);
    ck_assert_msg(json_is_true(json_object_get(j, "verified")), "%s",
                  json_dumps(j, 0));
    ck_assert_int_eq(json_integer_value(json_object_get(
                         json_object_get(j, "ledger"), "length")),
                     n_dice);
    json_decref(j);
    ck_assert_int_gt(pipeline_n_ahead(), ahead0);
}
END_TEST

/* A campaign combat through the API; its id into id. */
static void post_combat(const test_campaign *c, const char *body, char id[64])
{
    char path[160];
    json_t *j;

    snprintf(path, sizeof path, "/v1/campaigns/%s/combats/scrud", c->id);
    j = ts_call(ts, 201, "POST", path, c->umpire, "%s", body);
    snprintf(id, 64, "%s", json_string_value(json_object_get(j, "id")));
    json_decref(j);
}

/* Staged combats of a campaign read its units as the combat before left
 * them, kept (db/unit_cache.h) with its sides and its row, not from the
 * store; what is kept is the store's row byte for byte, penalties and
 * all; a unit edited in between is read from the store again. */
START_TEST(test_staged_combats_read_kept_units)
{
    unit_cache *k = db_unit_cache(http_db(ts->srv));
    long long hits0, hits, misses;
    test_campaign c;
    char id[64];
    int i;

    static const char *const sides[] = {"Red", "Blue", NULL};

    /* Penalties kept between combats (the default), so rows change, and
     * no unit lost to them. */
    ts_campaign(ts, &c,
                "{\"eliminate_below\":-10,\"defeats_per_elimination\":0}",
                sides);
    ts_unit(ts, &c, "Alpha", "Red", 0, 6, NULL);
    ts_unit(ts, &c, "Bravo", "Blue", 0, 6, NULL);
    for (i = 0; i < 4; i++)
        post_combat(&c, COMBAT("Alpha", "Bravo"), id);
    if (ts_is_pg()) {
        ck_assert_int_eq(ts_check_kept_units(ts, c.id), -1);
        return; /* other instances write: nothing is kept */
    }
    ck_assert_int_eq(ts_check_kept_units(ts, c.id), 2);
    unit_cache_stats(k, &hits0, &misses);
    post_combat(&c, COMBAT("Alpha", "Bravo"), id);
    unit_cache_stats(k, &hits, &misses);
    /* The campaign's row, its two sides, its two units. */
    ck_assert_int_eq(hits, hits0 + 5);
    ck_assert_int_eq(ts_check_kept_units(ts, c.id), 2);
    /* The umpire edits Alpha: the next combat reads it anew. */
    edit_unit(&c, "Alpha", "{\"scrud\":{\"quality\":3}}");
    ck_assert_int_eq(ts_check_kept_units(ts, c.id), 0);
    post_combat(&c, COMBAT("Alpha", "Bravo"), id);
    ck_assert_int_eq(alpha_quality(&c, id), 3);
    ck_assert_int_eq(ts_check_kept_units(ts, c.id), 2);
}
END_TEST

/* A unit's page reads, with each event, what its combat's row holds for
 * it (db_events_page): the combat's system and facts, the unit's rolls,
 * and the packed documents with the combat's actor and note, each as the
 * reads apart give it (a combat staged, and one with a note that the
 * writer works out; on PostgreSQL too). */
START_TEST(test_unit_page_reads_its_combats_with_events)
{
    static const char *const names[2] = {"Alpha", "Bravo"};
    test_campaign c;
    char ids[2][64], unit[64];
    void *staged;
    db_conn *r;
    int k, u;

    world(&c);
    staged = read_job(&c, COMBAT("Alpha", "Bravo"));
    (void)stage(staged);
    land(staged, ids[0]);
    post_combat(&c,
                "{\"sides\":[{\"side\":\"Red\",\"units\":[{\"unit\":"
                "\"Alpha\"}]},{\"side\":\"Blue\",\"units\":[{\"unit\":"
                "\"Bravo\"}]}],\"note\":\"at the ford\"}",
                ids[1]);
    r = db_read_acquire(http_db(ts->srv));
    for (u = 0; u < 2; u++) {
        db_event_query q = {c.id, unit, 0, true, 10};
        db_event *page, *whole;
        size_t n, n_whole, i;
        err_info e;
        err_clear(&e);
        unit_id(&c, names[u], unit);
        ck_assert_int_eq(db_events_page(r, &q, &page, &n, &e), ERR_OK);
        ck_assert_int_eq(db_events_list(r, unit, &whole, &n_whole, &e), ERR_OK);
        ck_assert_uint_eq(n, 3); /* created, and the two combats */
        ck_assert_uint_eq(n_whole, 3);
        for (k = 0; k < 2; k++) {
            const db_event *ev = &page[k], *apart = &whole[2 - k];
            db_roll *rolls;
            db_combat cb;
            size_t n_rolls;
            ck_assert_str_eq(ev->combat_id, ids[1 - k]); /* newest first */
            ck_assert_str_eq(ev->combat_id, apart->combat_id);
            /* the documents, actor and note: as the list reads them */
            ck_assert_str_eq(ev->after, apart->after);
            ck_assert_str_eq(ev->before, apart->before);
            ck_assert_str_eq(ev->actor_token_id, apart->actor_token_id);
            ck_assert(db_fixture_str_eq_or_null(ev->note, apart->note));
            ck_assert(db_fixture_str_eq_or_null(ev->result, apart->result));
            if (k == 0) { /* posted with the umpire's token */
                ck_assert_str_eq(ev->note, "at the ford");
                ck_assert_str_ne(ev->actor_token_id, "");
            } else { /* landed here, by no token */
                ck_assert_ptr_null(ev->note);
            }
            ck_assert_str_eq(ev->at, apart->at);
            ck_assert_str_eq(ev->kind, apart->kind);
            /* the facts: the combat's */
            ck_assert_int_eq(db_combat_get(r, ev->combat_id, &cb, &e), ERR_OK);
            ck_assert_str_eq(ev->system, "scrud");
            ck_assert_ptr_nonnull(cb.facts);
            ck_assert_ptr_nonnull(ev->facts);
            ck_assert_uint_eq(ev->facts_len, cb.facts_len);
            ck_assert_int_eq(memcmp(ev->facts, cb.facts, cb.facts_len), 0);
            db_combat_cleanup(&cb);
            /* the unit's rolls, hashes and all */
            ck_assert(ev->has_rolls);
            ck_assert_int_eq(
                db_rolls_of_unit(r, ev->combat_id, unit, &rolls, &n_rolls, &e),
                ERR_OK);
            ck_assert_uint_eq(ev->n_rolls, n_rolls);
            ck_assert_uint_ge(n_rolls, 1);
            for (i = 0; i < n_rolls; i++) {
                ck_assert_str_eq(ev->rolls[i].unit_id, unit);
                ck_assert_int_eq(ev->rolls[i].seq, rolls[i].seq);
                ck_assert_int_eq(ev->rolls[i].natural, rolls[i].natural);
                ck_assert_int_eq(ev->rolls[i].modified, rolls[i].modified);
                ck_assert_str_eq(ev->rolls[i].reason, rolls[i].reason);
                ck_assert_int_eq(ev->rolls[i].faces, rolls[i].faces);
                ck_assert_str_eq(ev->rolls[i].source, rolls[i].source);
                ck_assert_str_eq(ev->rolls[i].hash, rolls[i].hash);
                ck_assert_int_eq(ev->rolls[i].ledger_pos, rolls[i].ledger_pos);
            }
            free(rolls);
        }
        /* the unit's creation: no combat, nothing read with it */
        ck_assert_str_eq(page[2].kind, "created");
        ck_assert(!page[2].has_rolls);
        ck_assert_ptr_null(page[2].facts);
        db_events_free(page, n);
        db_events_free(whole, n_whole);
    }
    db_read_release(http_db(ts->srv), r);
}
END_TEST

Suite *suite_pipeline(void)
{
    Suite *s = suite_create("pipeline");
    TCase *tc = tcase_create("refusals");
    TCase *staged = tcase_create("staged");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_refused_combat_changes_no_row);
    tcase_add_test(tc, test_refused_combat_does_not_grow_log);
    tcase_add_test(tc, test_refused_battle_does_not_grow_log);
    suite_add_tcase(s, tc);
    tcase_add_checked_fixture(staged, setup, teardown);
    tcase_set_timeout(staged, 60);
    tcase_add_test(staged, test_staged_combat_lands_as_staged);
    tcase_add_test(staged, test_writer_combat_lands_packed);
    tcase_add_test(staged, test_units_found_together);
    tcase_add_test(staged, test_staged_combat_logged_in_one_row);
    tcase_add_test(staged, test_staged_combat_redone_when_a_unit_changed);
    tcase_add_test(staged, test_second_combat_worked_out_ahead);
    tcase_add_test(staged, test_chain_ahead_and_an_edit_between);
    tcase_add_test(staged, test_ahead_of_one_that_never_lands);
    tcase_add_test(staged, test_ahead_of_entered_dice);
    tcase_add_test(staged, test_ahead_reads_the_store_as_left);
    tcase_add_test(staged, test_ahead_without_rolls_checks_the_ledger);
    tcase_add_test(staged, test_landing_counts_one_version);
    tcase_add_test(staged, test_ahead_wait_ends_at_the_writer);
    tcase_add_test(staged, test_ahead_waits_for_those_in_flight);
    tcase_add_test(staged, test_drain_wait_counted_from_the_drain);
    tcase_add_test(staged, test_hot_campaign_under_load);
    tcase_add_test(staged, test_staged_combats_read_kept_units);
    tcase_add_test(staged, test_unit_page_reads_its_combats_with_events);
    suite_add_tcase(s, staged);
    /* PostgreSQL keeps no units: "staged" already runs these there. */
    if (!ts_is_pg()) {
        TCase *uncached = tcase_create("staged_uncached");

        tcase_add_checked_fixture(uncached, setup_uncached, teardown);
        tcase_set_timeout(uncached, 60);
        tcase_add_test(uncached, test_staged_combat_lands_as_staged);
        tcase_add_test(uncached, test_staged_combat_redone_when_a_unit_changed);
        tcase_add_test(uncached, test_second_combat_worked_out_ahead);
        tcase_add_test(uncached, test_chain_ahead_and_an_edit_between);
        tcase_add_test(uncached, test_ahead_of_one_that_never_lands);
        tcase_add_test(uncached, test_ahead_of_entered_dice);
        tcase_add_test(uncached, test_ahead_reads_the_store_as_left);
        tcase_add_test(uncached, test_ahead_without_rolls_checks_the_ledger);
        tcase_add_test(uncached, test_landing_counts_one_version);
        tcase_add_test(uncached, test_hot_campaign_under_load);
        suite_add_tcase(s, uncached);
    }
    return s;
}
