/*
 * test_unit_docs.c: tests db/unit_docs.c and migration 14: a combat's
 * unit history documents packed once in its row, the events written
 * without them and read back whole by every list (a unit's history, the
 * campaign's feed, the event log); a packed value that does not read
 * back, or a report it no longer matches, is an error, not an empty
 * event; and the migration from 13 keeps every event and seq, numbers
 * new ones after them, and leaves no AUTOINCREMENT counter or unread
 * index.  A fresh file per test (db_fixture.h).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <sqlite3.h>

#include "db.h"
#include "db_conn.h"
#include "db_fixture.h"
#include "migrations.h"
#include "suites.h"

#define T0 "2026-11-26T09:00:00.000Z"
#define T1 "2026-11-26T10:00:01.000Z"
#define T2 "2026-11-26T11:00:00.000Z"

/* A combat of the campaign and its three history events, two units. */
typedef struct fight {
    db_combat cb;
    db_event ev[3];
} fight;

static const char *const BEFORE_A =
    "{\"name\":\"A\",\"scrud\":{\"modifier\":2}}";
static const char *const AFTER_A =
    "{\"name\":\"A\",\"scrud\":{\"modifier\":1}}";
static const char *const RESULT_A = "{\"unit\":\"A\",\"natural\":4}";
static const char *const STATE_B =
    "{\"name\":\"B\",\"scrud\":{\"modifier\":0}}";

static void event_of(db_event *ev, const db_unit *u, const db_combat *cb)
{
    memset(ev, 0, sizeof *ev);
    snprintf(ev->unit_id, sizeof ev->unit_id, "%s", u->id);
    snprintf(ev->campaign_id, sizeof ev->campaign_id, "%s", u->campaign_id);
    snprintf(ev->at, sizeof ev->at, "%s", T1);
    snprintf(ev->kind, sizeof ev->kind, "combat");
    snprintf(ev->combat_id, sizeof ev->combat_id, "%s", cb->id);
    snprintf(ev->actor_token_id, sizeof ev->actor_token_id, "%s",
             cb->actor_token_id);
    ev->note = cb->note;
}

/* An event of kind of the unit unit_id of campaign_id, at T1, with its
 * own documents (after; before NULL). */
static void edit_of(db_event *ev, const char *unit_id, const char *campaign_id,
                    const char *kind, const char *after)
{
    memset(ev, 0, sizeof *ev);
    snprintf(ev->unit_id, sizeof ev->unit_id, "%s", unit_id);
    snprintf(ev->campaign_id, sizeof ev->campaign_id, "%s", campaign_id);
    snprintf(ev->at, sizeof ev->at, "%s", T1);
    snprintf(ev->kind, sizeof ev->kind, "%s", kind);
    ev->after = (char *)after;
}

/* A's state changed, with a result; B's the same before and after, with
 * no result; then A again with no state before.  Each with the combat's
 * actor and note. */
static void fight_make(fight *f, const db_campaign *cmp, const db_unit *a,
                       const db_unit *b)
{
    db_event *evs[3] = {&f->ev[0], &f->ev[1], &f->ev[2]};

    db_fixture_new_combat(&f->cb, cmp->id, T1, "again", NULL);
    /* A report that holds what the events repeat, as a real one does:
     * their documents are packed after it. */
    f->cb.report = "{\"units\":[{\"name\":\"A\",\"scrud\":{\"modifier\":2}},"
                   "{\"unit\":\"A\",\"natural\":4},{\"name\":\"B\",\"scrud\":"
                   "{\"modifier\":0}}]}";
    event_of(&f->ev[0], a, &f->cb);
    f->ev[0].before = (char *)BEFORE_A;
    f->ev[0].after = (char *)AFTER_A;
    f->ev[0].result = (char *)RESULT_A;
    event_of(&f->ev[1], b, &f->cb);
    f->ev[1].before = (char *)STATE_B;
    f->ev[1].after = (char *)STATE_B;
    event_of(&f->ev[2], a, &f->cb);
    f->ev[2].after = (char *)BEFORE_A;
    ck_assert_int_eq(db_combat_pack_events(&f->cb, evs, 3, NULL), ERR_OK);
    ck_assert_ptr_nonnull(f->cb.unit_docs_z);
    ck_assert_int_eq(f->ev[0].doc_slot, 1);
    ck_assert_int_eq(f->ev[2].doc_slot, 3);
}

static err_code job_fight(db_conn *c, void *arg, err_info *e)
{
    fight *f = arg;
    err_code rc = db_combat_insert(c, &f->cb, NULL, 0, e);
    int i;

    for (i = 0; i < 3 && rc == ERR_OK; i++)
        rc = db_event_insert(c, &f->ev[i], e);
    return rc;
}

/* The same in one call, as a combat's write does: its packed events
 * logged as one block. */
static err_code job_fight_block(db_conn *c, void *arg, err_info *e)
{
    fight *f = arg;
    const db_event *evs[3] = {&f->ev[0], &f->ev[1], &f->ev[2]};
    err_code rc = db_combat_insert(c, &f->cb, NULL, 0, e);

    return rc == ERR_OK ? db_events_insert(c, evs, 3, e) : rc;
}

static err_code job_edit(db_conn *c, void *arg, err_info *e)
{
    return db_event_insert(c, arg, e);
}

/* A campaign with two units, in the open store. */
static void add_units(db_campaign *cmp, db_unit *a, db_unit *b)
{
    db_side side;

    db_fixture_add_campaign(cmp, "Ligny");
    db_fixture_add_side(&side, cmp->id, NULL, "blue");
    db_fixture_new_unit(a, &side, NULL, "A");
    db_fixture_write_ok(db_fixture_job_unit, a, "unit A");
    db_fixture_new_unit(b, &side, NULL, "B");
    db_fixture_write_ok(db_fixture_job_unit, b, "unit B");
}

static void setup(db_campaign *cmp, db_unit *a, db_unit *b)
{
    db_fixture_open();
    add_units(cmp, a, b);
}

static void check_docs(const db_event *ev, const char *before,
                       const char *after, const char *result)
{
    ck_assert_msg(db_fixture_str_eq_or_null(ev->before, before), "before: %s",
                  ev->before ? ev->before : "NULL");
    ck_assert_str_eq(ev->after, after);
    ck_assert_msg(db_fixture_str_eq_or_null(ev->result, result), "result: %s",
                  ev->result ? ev->result : "NULL");
}

/* A unit's page, oldest first (db_events_page, which reads each event's
 * combat row with it): as db_events_list answers. */
static err_code unit_page(db_conn *c, const char *campaign_id,
                          const char *unit_id, db_event **out, size_t *n,
                          err_info *e)
{
    db_event_query q;

    memset(&q, 0, sizeof q);
    q.campaign_id = campaign_id;
    q.unit_id = unit_id;
    q.limit = 10;
    return db_events_page(c, &q, out, n, e);
}

/* The unit events of a log read without their documents. */
static size_t count_bare(const db_logged_event *evs, size_t n)
{
    size_t i, k = 0;

    for (i = 0; i < n; i++)
        k += strcmp(evs[i].kind, "unit") == 0 && evs[i].unit.after == NULL;
    return k;
}

static bool is_other_campaign(const char *campaign_id, void *arg)
{
    return strcmp(campaign_id, arg) != 0;
}

START_TEST(test_packed_docs_read_back_by_every_list)
{
    db_campaign cmp;
    db_unit a, b;
    fight f;
    db_conn *c;
    db_event *list;
    db_logged_event *logged;
    size_t n, i, n_unit = 0;
    db_event_query q;
    char buf[64];

    setup(&cmp, &a, &b);
    fight_make(&f, &cmp, &a, &b);
    db_fixture_write_ok(job_fight, &f, "combat and its events");
    free(f.cb.unit_docs_z);
    free(f.cb.report_z);

    c = db_read_acquire(db_fixture_db);
    /* Stored once, in the combat's row; the events hold none, nor the
     * combat's actor and note. */
    ck_assert_int_eq(db_fixture_query_int(c, "SELECT count(*) FROM unit_events "
                                             "WHERE before IS NULL AND after "
                                             "IS NULL AND result IS NULL AND "
                                             "actor_token_id IS NULL AND "
                                             "note IS NULL AND doc_slot > 0"),
                     3);
    ck_assert_int_eq(db_fixture_query_int(c, "SELECT count(*) FROM combats "
                                             "WHERE typeof(unit_docs) = "
                                             "'blob'"),
                     1);
    db_fixture_query_text(c,
                          "SELECT group_concat(unit_seq) FROM (SELECT "
                          "unit_seq FROM unit_events ORDER BY seq)",
                          buf, sizeof buf);
    ck_assert_str_eq(buf, "1,1,2");

    /* A unit's history, whole. */
    ck_assert_int_eq(db_events_list(c, a.id, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 2);
    check_docs(&list[0], BEFORE_A, AFTER_A, RESULT_A);
    check_docs(&list[1], NULL, BEFORE_A, NULL);
    for (i = 0; i < n; i++) {
        ck_assert_str_eq(list[i].note, "again");
        ck_assert_str_eq(list[i].actor_token_id, f.cb.actor_token_id);
    }
    db_events_free(list, n);

    /* The campaign's feed, a page: B's after is its before. */
    memset(&q, 0, sizeof q);
    q.campaign_id = cmp.id;
    q.limit = 10;
    ck_assert_int_eq(db_events_page(c, &q, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 3);
    check_docs(&list[1], STATE_B, STATE_B, NULL);
    ck_assert_str_eq(list[1].unit_id, b.id);
    db_events_free(list, n);

    /* The event log's unit events. */
    ck_assert_int_eq(
        db_event_log_after(c, cmp.id, 0, 1000000, 100, &logged, &n, NULL),
        ERR_OK);
    for (i = 0; i < n; i++) {
        if (strcmp(logged[i].kind, "unit") != 0 ||
            strcmp(logged[i].unit.kind, "combat") != 0)
            continue;
        n_unit++;
        ck_assert_str_eq(logged[i].unit.note, "again");
        ck_assert_str_eq(logged[i].unit.actor_token_id, f.cb.actor_token_id);
        if (logged[i].unit.unit_seq == 1 &&
            strcmp(logged[i].unit.unit_id, a.id) == 0)
            check_docs(&logged[i].unit, BEFORE_A, AFTER_A, RESULT_A);
    }
    ck_assert_uint_eq(n_unit, 3);
    db_event_log_free(logged, n);

    /* Every campaign's log leaves them to db_event_log_docs, which reads
     * those of the campaigns wanted only. */
    ck_assert_int_eq(db_event_log_after(c, NULL, 0, 0, 100, &logged, &n, NULL),
                     ERR_OK);
    ck_assert_uint_eq(count_bare(logged, n), 3);
    ck_assert_int_eq(
        db_event_log_docs(c, logged, n, is_other_campaign, cmp.id, NULL),
        ERR_OK);
    ck_assert_uint_eq(count_bare(logged, n), 3);
    ck_assert_int_eq(db_event_log_docs(c, logged, n, NULL, NULL, NULL), ERR_OK);
    ck_assert_uint_eq(count_bare(logged, n), 0);
    db_event_log_free(logged, n);
    db_read_release(db_fixture_db, c);
}
END_TEST

/* f's documents as they were packed before they went in the report's
 * frame (unit_docs.c): the report as it is (plain), the documents in a
 * frame of their own with it as their reference. */
static void old_layout(fight *f)
{
    char *both = db_doc_text(f->cb.report_z, f->cb.report_z_len), *rs;

    ck_assert_ptr_nonnull(both);
    ck_assert_ptr_nonnull(rs = strchr(both, 0x1e));
    *rs = '\0';
    ck_assert_str_eq(both, f->cb.report);
    free(f->cb.report_z);
    f->cb.report_z = NULL;
    free(f->cb.unit_docs_z);
    f->cb.unit_docs_z =
        db_fixture_pack_after(rs + 1, f->cb.report, &f->cb.unit_docs_z_len);
    ck_assert_ptr_nonnull(f->cb.unit_docs_z);
    free(both);
}

/* _i: 0 the marker of the documents in the report replaced by a frame
 * that does not read; 1 (as packed before: old_layout) a digit of the
 * report they were packed after changed (the same length: only the
 * frame's checksum tells); 2 a report value without its documents. */
START_TEST(test_unreadable_docs_are_an_error)
{
    db_campaign cmp;
    db_unit a, b;
    fight f;
    db_conn *c;
    db_event *list = NULL;
    size_t n = 99;
    err_info e;

    setup(&cmp, &a, &b);
    fight_make(&f, &cmp, &a, &b);
    if (_i == 1)
        old_layout(&f);
    if (_i == 2) {
        free(f.cb.report_z);
        f.cb.report_z = db_doc_pack(f.cb.report, &f.cb.report_z_len);
    }
    db_fixture_write_ok(job_fight, &f, "combat and its events");
    free(f.cb.unit_docs_z);
    free(f.cb.report_z);
    if (_i < 2)
        db_fixture_raw_exec(_i == 0 ? "UPDATE combats SET unit_docs = "
                                      "x'28b52ffd0058ffff'"
                                    : "UPDATE combats SET report = "
                                      "replace(report, 'natural\":4', "
                                      "'natural\":5')");
    c = db_read_acquire(db_fixture_db);
    err_clear(&e);
    ck_assert_int_eq(db_events_list(c, a.id, &list, &n, &e), ERR_DB);
    ck_assert_ptr_nonnull(strstr(e.message, f.cb.id));
    ck_assert_ptr_null(list);
    ck_assert_uint_eq(n, 0);
    n = 99;
    err_clear(&e);
    ck_assert_int_eq(unit_page(c, cmp.id, a.id, &list, &n, &e), ERR_DB);
    ck_assert_ptr_nonnull(strstr(e.message, f.cb.id));
    ck_assert_ptr_null(list);
    ck_assert_uint_eq(n, 0);
    /* Events of other combats still read. */
    ck_assert_int_eq(db_events_list(c, "unit_none", &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 0);
    db_events_free(list, n);
    db_read_release(db_fixture_db, c);
    /* The event log, which the live streams of every campaign read, goes
     * on: that combat's events without their documents, the rest whole
     * (an edit of A's, after). */
    {
        db_logged_event *logged;
        db_event edit;
        size_t i, n_bare = 0, n_whole = 0;
        edit_of(&edit, a.id, cmp.id, "correction", BEFORE_A);
        edit.before = (char *)AFTER_A;
        db_fixture_write_ok(job_edit, &edit, "an edit");
        c = db_read_acquire(db_fixture_db);
        err_clear(&e);
        ck_assert_int_eq(
            db_event_log_after(c, cmp.id, 0, 1000000, 100, &logged, &n, &e),
            ERR_OK);
        for (i = 0; i < n; i++) {
            if (strcmp(logged[i].kind, "unit") != 0)
                continue;
            if (logged[i].unit.after == NULL)
                n_bare++;
            else
                n_whole++;
        }
        ck_assert_uint_eq(n_bare, 3);
        ck_assert_uint_eq(n_whole, 1);
        db_event_log_free(logged, n);
    }
    db_read_release(db_fixture_db, c);
}
END_TEST

/* A campaign combat's documents packed in its report's frame: the report,
 * RS, the documents (one frame, packed as a campaign's report is), and
 * unit_docs one byte, RS.  The combat read back has its report alone;
 * its events, their documents.  _i 1: the same combat stored as they
 * were packed before (old_layout) reads back the same. */
START_TEST(test_docs_packed_with_the_report)
{
    db_campaign cmp;
    db_unit a, b;
    fight f;
    db_combat got;
    db_conn *c;
    db_event *list;
    char *both;
    size_t n;

    setup(&cmp, &a, &b);
    fight_make(&f, &cmp, &a, &b);
    ck_assert(db_combat_docs_in_report(&f.cb));
    ck_assert_uint_eq(f.cb.unit_docs_z_len, 1);
    ck_assert_int_eq(f.cb.unit_docs_z[0], 0x1e);
    both = db_doc_text(f.cb.report_z, f.cb.report_z_len);
    ck_assert_ptr_nonnull(both);
    ck_assert_int_eq(strncmp(both, f.cb.report, strlen(f.cb.report)), 0);
    ck_assert_int_eq(both[strlen(f.cb.report)], 0x1e);
    ck_assert_ptr_nonnull(strstr(both + strlen(f.cb.report), AFTER_A));
    free(both);
    /* db_combat_pack keeps it. */
    ck_assert_int_eq(db_combat_pack(&f.cb, NULL, 0, NULL), ERR_OK);
    ck_assert(db_combat_docs_in_report(&f.cb));
    if (_i == 1) {
        old_layout(&f);
        ck_assert(!db_combat_docs_in_report(&f.cb));
    }
    db_fixture_write_ok(job_fight, &f, "combat and its events");
    free(f.cb.unit_docs_z);
    free(f.cb.report_z);

    c = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_fixture_query_int(c, "SELECT length(unit_docs) = 1 "
                                             "AND unit_docs = x'1e' FROM "
                                             "combats"),
                     _i == 0);
    ck_assert_int_eq(db_combat_get(c, f.cb.id, &got, NULL), ERR_OK);
    ck_assert_str_eq(got.report, f.cb.report);
    db_combat_cleanup(&got);
    ck_assert_int_eq(db_events_list(c, a.id, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 2);
    check_docs(&list[0], BEFORE_A, AFTER_A, RESULT_A);
    check_docs(&list[1], NULL, BEFORE_A, NULL);
    db_events_free(list, n);
    ck_assert_int_eq(db_events_list(c, b.id, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 1);
    check_docs(&list[0], STATE_B, STATE_B, NULL);
    db_events_free(list, n);
    /* A unit's page, which reads the combat's row with its events, the
     * same: these documents are read apart, from the report. */
    ck_assert_int_eq(unit_page(c, cmp.id, a.id, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 2);
    check_docs(&list[0], BEFORE_A, AFTER_A, RESULT_A);
    check_docs(&list[1], NULL, BEFORE_A, NULL);
    ck_assert_str_eq(list[0].note, "again");
    ck_assert_str_eq(list[1].actor_token_id, f.cb.actor_token_id);
    db_events_free(list, n);
    db_read_release(db_fixture_db, c);
}
END_TEST

/* _i: 0 an event with an actor of its own, 1 with a note of its own
 * (the others the combat's): nothing is packed, every event keeps its
 * own documents and words.  2: events packed, the one written before
 * this (migration 14's rows) keeping its own actor and note, still
 * read as its own. */
START_TEST(test_events_keep_words_not_the_combats)
{
    db_campaign cmp;
    db_unit a, b;
    fight f;
    db_conn *c;
    db_event *list = NULL, *evs[3];
    size_t n = 0, i;
    char sql[256];

    setup(&cmp, &a, &b);
    fight_make(&f, &cmp, &a, &b);
    free(f.cb.unit_docs_z);
    f.cb.unit_docs_z = NULL;
    free(f.cb.report_z);
    f.cb.report_z = NULL;
    if (_i == 0)
        db_new_id("tok", f.ev[1].actor_token_id);
    if (_i == 1)
        f.ev[1].note = "its own";
    for (i = 0; i < 3; i++)
        evs[i] = &f.ev[i];
    ck_assert_int_eq(db_combat_pack_events(&f.cb, evs, 3, NULL), ERR_OK);
    ck_assert_int_eq(f.ev[1].doc_slot, _i < 2 ? 0 : 2);
    ck_assert(_i < 2 ? f.cb.unit_docs_z == NULL : f.cb.unit_docs_z != NULL);
    db_fixture_write_ok(job_fight, &f, "combat and its events");
    free(f.cb.unit_docs_z);
    free(f.cb.report_z);
    if (_i == 2) {
        snprintf(sql, sizeof sql,
                 "UPDATE unit_events SET actor_token_id = 'tok_old', note = "
                 "'old words' WHERE unit_row = (SELECT rowid FROM units "
                 "WHERE id = '%s')",
                 b.id);
        db_fixture_raw_exec(sql);
    }
    c = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_fixture_query_int(c, "SELECT count(*) FROM unit_events "
                                             "WHERE after IS NOT NULL"),
                     _i < 2 ? 3 : 0);
    ck_assert_int_eq(db_events_list(c, b.id, &list, &n, NULL), ERR_OK);
    db_read_release(db_fixture_db, c);
    ck_assert_uint_eq(n, 1);
    check_docs(&list[0], STATE_B, STATE_B, NULL);
    ck_assert_str_eq(list[0].actor_token_id, _i == 0   ? f.ev[1].actor_token_id
                                             : _i == 2 ? "tok_old"
                                                       : f.cb.actor_token_id);
    ck_assert_str_eq(list[0].note, _i == 1   ? "its own"
                                   : _i == 2 ? "old words"
                                             : "again");
    db_events_free(list, n);
}
END_TEST

/* An event with no documents of its own, or no time and kind (its
 * combat's, migration 18), must have a place in its combat's. */
START_TEST(test_event_without_docs_needs_a_place)
{
    db_campaign cmp;
    db_unit a, b;

    setup(&cmp, &a, &b);
    {
        sqlite3 *raw;
        char sql[512];
        ck_assert_int_eq(sqlite3_open(db_fixture_path, &raw), SQLITE_OK);
        /* Neither documents nor a place; a combat's, without a place; a
         * place without a combat; documents but no time, and no kind,
         * without a place. */
        static const char *const rows[] = {
            "'" T1 "', 'combat', NULL, NULL, NULL",
            "'" T1 "', 'combat', 1, NULL, NULL",
            "'" T1 "', 'combat', NULL, 1, NULL",
            "NULL, 'combat', 1, NULL, '{}'", "'" T1 "', NULL, 1, NULL, '{}'"};
        size_t i;
        for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
            snprintf(sql, sizeof sql,
                     "INSERT INTO unit_events (unit_row, campaign_row, "
                     "unit_seq, at, kind, combat_row, doc_slot, after) "
                     "VALUES ((SELECT rowid FROM units WHERE id = '%s'), "
                     "(SELECT rowid FROM campaigns WHERE id = '%s'), 1, %s)",
                     a.id, cmp.id, rows[i]);
            ck_assert_msg(sqlite3_exec(raw, sql, NULL, NULL, NULL) ==
                              SQLITE_CONSTRAINT,
                          "accepted: %s", rows[i]);
        }
        /* The same with its time, kind and documents is taken. */
        snprintf(sql, sizeof sql,
                 "INSERT INTO unit_events (unit_row, campaign_row, "
                 "unit_seq, at, kind, after) VALUES ((SELECT rowid FROM "
                 "units WHERE id = '%s'), (SELECT rowid FROM campaigns "
                 "WHERE id = '%s'), 1, '" T1 "', 'combat', '{}')",
                 a.id, cmp.id);
        ck_assert_int_eq(sqlite3_exec(raw, sql, NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(raw);
    }
}
END_TEST

/* A file at schema 13 with a unit, two history events and their log. */
static void make_v13(void)
{
    sqlite3 *raw;
    int i;

    ck_assert_int_eq(sqlite3_open(db_fixture_path, &raw), SQLITE_OK);
    for (i = 0; i < 13; i++)
        ck_assert_msg(sqlite3_exec(raw, migrations_sql[i], NULL, NULL, NULL) ==
                          SQLITE_OK,
                      "migration %d: %s", i + 1, sqlite3_errmsg(raw));
    ck_assert_int_eq(
        sqlite3_exec(
            raw,
            "INSERT INTO campaigns (id, name, created_at, scrud_cap_kind, "
            "scrud_cap, scrud_has_floor, scrud_floor, scrud_extra_dice, "
            "scrud_attrition, scrud_max_penalty, scrud_eliminate_below, "
            "scrud_defeats_per_elimination) VALUES ('cmp_1', 'Wavre', "
            "'" T1 "', 0, 0, 1, 1, 0, 1, 1, -2, 3);"
            "INSERT INTO sides (id, campaign_id, name, created_at) VALUES "
            "('sd_1', 'cmp_1', 'blue', '" T1 "');"
            "INSERT INTO units (id, campaign_id, side_id, name, created_at) "
            "VALUES ('unit_1', 'cmp_1', 'sd_1', 'A', '" T1 "');"
            "INSERT INTO unit_events (unit_id, campaign_id, at, kind, after, "
            "unit_seq) VALUES ('unit_1', 'cmp_1', '" T1 "', 'created', "
            "'{\"v\":1}', 1);"
            "INSERT INTO unit_events (unit_id, campaign_id, at, kind, before, "
            "after, unit_seq) VALUES ('unit_1', 'cmp_1', '" T1 "', 'edit', "
            "'{\"v\":1}', '{\"v\":2}', 2);"
            "PRAGMA user_version = 13;",
            NULL, NULL, NULL),
        SQLITE_OK);
    sqlite3_close(raw);
}

START_TEST(test_migration_14_keeps_events_and_numbers_on)
{
    db_event ev, *list;
    db_conn *c;
    size_t n;
    char buf[256];
    long long log_before;

    make_v13();
    log_before = db_fixture_raw_query_int("SELECT max(seq) FROM event_log");
    ck_assert_int_ge(log_before, 2);
    db_fixture_open();
    ck_assert_int_eq(db_schema_version(db_fixture_db), migrations_count);
    c = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_events_list(c, "unit_1", &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 2);
    check_docs(&list[1], "{\"v\":1}", "{\"v\":2}", NULL);
    ck_assert_int_eq(list[1].doc_slot, 0);
    db_events_free(list, n);
    /* Counters gone with AUTOINCREMENT; the unread indexes dropped. */
    ck_assert_int_eq(db_fixture_query_int(c, "SELECT count(*) FROM "
                                             "sqlite_sequence WHERE name IN "
                                             "('unit_events', 'event_log')"),
                     0);
    db_fixture_query_text(c,
                          "SELECT coalesce(group_concat(name), 'none') FROM "
                          "sqlite_schema WHERE "
                          "name IN ('rolls_by_unit', "
                          "'unit_events_by_unit_seq') OR (type = 'table' AND "
                          "sql LIKE '%AUTOINCREMENT%')",
                          buf, sizeof buf);
    ck_assert_str_eq(buf, "none");
    db_read_release(db_fixture_db, c);

    /* A new event takes the next numbers, and is logged after the rest. */
    edit_of(&ev, "unit_1", "cmp_1", "edit", "{\"v\":3}");
    ev.before = "{\"v\":2}";
    db_fixture_write_ok(job_edit, &ev, "event after the migration");
    c = db_read_acquire(db_fixture_db);
    db_fixture_query_text(c,
                          "SELECT group_concat(seq || ':' || unit_seq) FROM "
                          "unit_events",
                          buf, sizeof buf);
    ck_assert_str_eq(buf, "1:1,2:2,3:3");
    ck_assert_int_eq(db_fixture_query_int(c, "SELECT max(seq) FROM event_log"),
                     log_before + 1);
    ck_assert_int_eq(db_fixture_query_int(c, "SELECT unit_seq FROM event_log "
                                             "ORDER BY seq DESC LIMIT 1"),
                     3);
    db_read_release(db_fixture_db, c);
}
END_TEST

/* unit_events made again as migration 17 left it, from the rows there
 * (their ids joined back), the packed events' time set to T0 (before
 * their combat's), and the event log's index of migration 19 dropped:
 * the file at schema 17. */
static void back_to_17(void)
{
    db_fixture_raw_exec(
        "CREATE TABLE ue17 ("
        "  seq INTEGER PRIMARY KEY,"
        "  unit_id TEXT NOT NULL REFERENCES units(id),"
        "  campaign_id TEXT NOT NULL REFERENCES campaigns(id),"
        "  at TEXT NOT NULL, kind TEXT NOT NULL,"
        "  combat_id TEXT REFERENCES combats(id), actor_token_id TEXT,"
        "  note TEXT, before TEXT, after TEXT, result TEXT,"
        "  unit_seq INTEGER, doc_slot INTEGER,"
        "  CHECK (after IS NOT NULL"
        "    OR (coalesce(doc_slot, 0) > 0 AND combat_id IS NOT NULL)));"
        "INSERT INTO ue17 SELECT e.seq, un.id, cp.id,"
        "  CASE WHEN e.doc_slot > 0 THEN '" T0 "' ELSE e.at END,"
        "  coalesce(e.kind, 'combat'), cb.id, e.actor_token_id, e.note,"
        "  e.before, e.after, e.result, e.unit_seq, e.doc_slot"
        "  FROM unit_events e JOIN units un ON un.rowid = e.unit_row"
        "  JOIN campaigns cp ON cp.rowid = e.campaign_row"
        "  LEFT JOIN combats cb ON cb.rowid = e.combat_row;"
        "DROP TABLE unit_events;"
        "ALTER TABLE ue17 RENAME TO unit_events;"
        "CREATE INDEX unit_events_by_unit"
        "  ON unit_events (unit_id, seq, unit_seq);"
        "CREATE INDEX unit_events_by_campaign"
        "  ON unit_events (campaign_id, seq);"
        "CREATE TRIGGER event_log_unit_events AFTER INSERT ON unit_events"
        "  WHEN NEW.doc_slot IS NULL BEGIN"
        "  INSERT INTO event_log (campaign_id, kind, unit_seq)"
        "    VALUES (NEW.campaign_id, 'unit', NEW.seq);"
        "  END;"
        "DROP INDEX event_log_units;"                /* migration 19's (27's) */
        "ALTER TABLE event_log DROP COLUMN n_units;" /* migration 27's */
        "DROP TABLE unit_heads;"                     /* migration 23's */
        "DROP TABLE unit_marks;"
        /* migration 22's: packed chained rolls back in combat_rolls */
        "CREATE TABLE combat_rolls (combat_id TEXT PRIMARY KEY REFERENCES"
        "  combats(id), ledger_first INTEGER NOT NULL, rolls BLOB NOT NULL)"
        "  WITHOUT ROWID;"
        "INSERT INTO combat_rolls SELECT id, ledger_first, rolls FROM combats"
        "  WHERE ledger_first IS NOT NULL;"
        "UPDATE combats SET rolls = NULL WHERE ledger_first IS NOT NULL;"
        "ALTER TABLE combats DROP COLUMN ledger_first;"
        "PRAGMA user_version = 17;");
}

/* Migration 18: every event keeps its unit, campaign, combat, time and
 * kind, now keyed by rowid; events written after it keep no time or kind
 * of their own where their combat's row holds their documents, and read
 * back with the combat's. */
START_TEST(test_migration_18_keys_events_by_row)
{
    db_campaign decoy, cmp;
    db_unit d, a, b;
    db_side side;
    db_event edit, *list;
    db_logged_event *logged;
    fight f, g;
    db_conn *c;
    size_t n, i;
    char buf[512];

    /* Another campaign and unit first, so that no rowid is one of ours
     * by chance. */
    db_fixture_open();
    db_fixture_add_campaign(&decoy, "Quatre Bras");
    db_fixture_add_side(&side, decoy.id, NULL, "red");
    db_fixture_new_unit(&d, &side, NULL, "D");
    db_fixture_write_ok(db_fixture_job_unit, &d, "unit D");
    add_units(&cmp, &a, &b);
    fight_make(&f, &cmp, &a, &b);
    db_fixture_write_ok(job_fight, &f, "combat before the migration");
    free(f.cb.unit_docs_z);
    free(f.cb.report_z);
    edit_of(&edit, a.id, cmp.id, "edit", "{\"v\":1}");
    db_fixture_write_ok(job_edit, &edit, "an edit before the migration");
    db_close(db_fixture_db);
    db_fixture_db = NULL;
    back_to_17();

    db_fixture_open();
    ck_assert_int_eq(db_schema_version(db_fixture_db), migrations_count);
    c = db_read_acquire(db_fixture_db);
    db_fixture_query_text(c,
                          "SELECT group_concat(name) FROM pragma_table_info("
                          "'unit_events') WHERE name LIKE '%_id' OR name "
                          "LIKE '%_row'",
                          buf, sizeof buf);
    ck_assert_str_eq(buf, "unit_row,campaign_row,combat_row,actor_token_id");
    ck_assert_int_eq(db_events_list(c, a.id, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 3); /* two of the combat, then the edit */
    for (i = 0; i < n; i++) {
        ck_assert_str_eq(list[i].unit_id, a.id);
        ck_assert_str_eq(list[i].campaign_id, cmp.id);
        ck_assert_str_eq(list[i].combat_id, i < 2 ? f.cb.id : "");
        ck_assert_str_eq(list[i].at, i < 2 ? T0 : T1); /* its own, kept */
        ck_assert_str_eq(list[i].kind, i < 2 ? "combat" : "edit");
        ck_assert_int_eq(list[i].unit_seq, (long long)i + 1);
    }
    check_docs(&list[0], BEFORE_A, AFTER_A, RESULT_A);
    check_docs(&list[2], NULL, "{\"v\":1}", NULL);
    db_events_free(list, n);
    db_read_release(db_fixture_db, c);

    /* A combat after it: its packed events keep no time or kind, and
     * read back with the combat's time, in the history and the log. */
    fight_make(&g, &cmp, &a, &b);
    snprintf(g.cb.created_at, sizeof g.cb.created_at, T2);
    ck_assert_int_eq(
        db_combat_pack_events(
            &g.cb, (db_event *[]){&g.ev[0], &g.ev[1], &g.ev[2]}, 3, NULL),
        ERR_OK);
    ck_assert_str_eq(g.ev[0].at, T2);
    db_fixture_write_ok(job_fight, &g, "combat after the migration");
    free(g.cb.unit_docs_z);
    free(g.cb.report_z);
    c = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_fixture_query_int(c, "SELECT count(*) FROM "
                                             "unit_events WHERE at IS NULL "
                                             "AND kind IS NULL"),
                     3);
    ck_assert_int_eq(db_events_list(c, b.id, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(list[0].at, T0);
    ck_assert_str_eq(list[1].at, T2);
    ck_assert_str_eq(list[1].kind, "combat");
    ck_assert_str_eq(list[1].combat_id, g.cb.id);
    ck_assert_str_eq(list[1].campaign_id, cmp.id);
    ck_assert_int_eq(list[1].unit_seq, 2);
    check_docs(&list[1], STATE_B, STATE_B, NULL);
    db_events_free(list, n);
    ck_assert_int_eq(
        db_event_log_after(c, cmp.id, 0, LLONG_MAX, 100, &logged, &n, NULL),
        ERR_OK);
    ck_assert_uint_ge(n, 3);
    ck_assert_str_eq(logged[n - 1].kind, "unit");
    ck_assert_str_eq(logged[n - 1].unit.unit_id, a.id);
    ck_assert_str_eq(logged[n - 1].unit.campaign_id, cmp.id);
    ck_assert_str_eq(logged[n - 1].unit.combat_id, g.cb.id);
    ck_assert_str_eq(logged[n - 1].unit.at, T2);
    ck_assert_str_eq(logged[n - 1].unit.kind, "combat");
    db_event_log_free(logged, n);
    db_read_release(db_fixture_db, c);
}
END_TEST

/* An event of no unit, or of no campaign, is refused by the table (a
 * constraint: ERR_CONFLICT), one of no combat by the insert, and none
 * leaves anything. */
START_TEST(test_event_of_no_unit_is_refused)
{
    db_campaign cmp;
    db_unit a, b;
    db_event ev;
    err_info e;

    setup(&cmp, &a, &b);
    edit_of(&ev, "unt_none", cmp.id, "edit", "{}");
    err_clear(&e);
    ck_assert_int_eq(db_fixture_write_rc(job_edit, &ev, &e), ERR_CONFLICT);
    snprintf(ev.unit_id, sizeof ev.unit_id, "%s", a.id);
    snprintf(ev.campaign_id, sizeof ev.campaign_id, "cmp_none");
    ck_assert_int_eq(db_fixture_write_rc(job_edit, &ev, &e), ERR_CONFLICT);
    snprintf(ev.campaign_id, sizeof ev.campaign_id, "%s", cmp.id);
    snprintf(ev.combat_id, sizeof ev.combat_id, "cbt_none");
    ck_assert_int_eq(db_fixture_write_rc(job_edit, &ev, &e), ERR_CONFLICT);
    ck_assert_ptr_nonnull(strstr(e.message, "no combat cbt_none"));
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT count(*) FROM "
                                              "unit_events"),
                     0);
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT count(*) FROM "
                                              "event_log WHERE kind = 'unit'"),
                     0);
}
END_TEST

/* A file at schema 17 with an event of a unit that is not there (written
 * with foreign keys off): migration 18 stops rather than drop it, and the
 * file stays as it was. */
START_TEST(test_migration_18_stops_on_a_lost_unit)
{
    db_campaign cmp;
    db_unit a, b;
    err_info e;

    setup(&cmp, &a, &b);
    db_close(db_fixture_db);
    db_fixture_db = NULL;
    back_to_17();
    db_fixture_raw_exec("INSERT INTO unit_events (unit_id, campaign_id, at, "
                        "kind, after, unit_seq) VALUES ('unt_gone', "
                        "(SELECT id FROM campaigns LIMIT 1), '" T1 "', "
                        "'created', '{}', 1)");
    err_clear(&e);
    ck_assert_int_ne(db_open(db_fixture_path, 2, &db_fixture_db, &e), ERR_OK);
    ck_assert_ptr_null(db_fixture_db);
    ck_assert_int_eq(db_fixture_raw_query_int("PRAGMA user_version"), 17);
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT count(*) FROM "
                                              "unit_events WHERE unit_id = "
                                              "'unt_gone'"),
                     1);
}
END_TEST

/* A unit read carries its row, and an event given it is keyed by it, as
 * one found by the unit's id is. */
START_TEST(test_event_keyed_by_its_units_row)
{
    db_campaign cmp;
    db_unit a, b, got;
    db_event ev, *list;
    db_conn *c;
    size_t n;
    char sql[256];

    setup(&cmp, &a, &b);
    c = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_unit_find(c, cmp.id, b.id, &got, NULL), ERR_OK);
    db_read_release(db_fixture_db, c);
    snprintf(sql, sizeof sql, "SELECT rowid FROM units WHERE id = '%s'", b.id);
    ck_assert_int_eq(got.row, db_fixture_raw_query_int(sql));
    ck_assert_int_gt(got.row, 1); /* not A's */
    edit_of(&ev, b.id, cmp.id, "edit", "{\"v\":1}");
    ev.unit_row = got.row;
    db_fixture_write_ok(job_edit, &ev, "an edit by the unit's row");
    ev.unit_row = 0;
    ev.after = "{\"v\":2}";
    db_fixture_write_ok(job_edit, &ev, "an edit by the unit's id");
    c = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_events_list(c, b.id, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(list[0].after, "{\"v\":1}");
    ck_assert_int_eq(list[1].unit_seq, 2);
    ck_assert_str_eq(list[1].unit_id, b.id);
    db_events_free(list, n);
    ck_assert_int_eq(db_events_list(c, a.id, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 0);
    db_events_free(list, n);
    db_read_release(db_fixture_db, c);
}
END_TEST

/* A combat of n events, alternately A's and B's, packed in its row, and
 * written as a combat is (db_events_insert: one block on SQLite, or two
 * past DB_LOG_BLOCK_MAX). */
typedef struct big_fight {
    db_combat cb;
    db_event ev[DB_LOG_BLOCK_MAX + 1];
    size_t n;
} big_fight;

static void big_fight_make(big_fight *f, const db_campaign *cmp,
                           const db_unit *a, const db_unit *b, size_t n)
{
    db_event *evs[DB_LOG_BLOCK_MAX + 1];
    size_t i;

    ck_assert_uint_le(n, DB_LOG_BLOCK_MAX + 1);
    db_fixture_new_combat(&f->cb, cmp->id, T1, "again", NULL);
    for (i = 0; i < n; i++) {
        event_of(&f->ev[i], i % 2 ? b : a, &f->cb);
        f->ev[i].after = (char *)(i % 2 ? STATE_B : AFTER_A);
        evs[i] = &f->ev[i];
    }
    f->n = n;
    ck_assert_int_eq(db_combat_pack_events(&f->cb, evs, n, NULL), ERR_OK);
    ck_assert_int_eq(f->ev[n - 1].doc_slot, (int)n);
}

static err_code job_big_fight(db_conn *c, void *arg, err_info *e)
{
    big_fight *f = arg;
    const db_event *evs[DB_LOG_BLOCK_MAX + 1];
    err_code rc = db_combat_insert(c, &f->cb, NULL, 0, e);
    size_t i;

    for (i = 0; i < f->n; i++)
        evs[i] = &f->ev[i];
    return rc == ERR_OK ? db_events_insert(c, evs, f->n, e) : rc;
}

/* The seqs of a campaign's history events, in order, into seqs (max). */
static size_t campaign_seqs(const char *campaign_id, long long *seqs,
                            size_t max)
{
    sqlite3 *raw;
    sqlite3_stmt *st;
    char sql[256];
    size_t n = 0;

    snprintf(sql, sizeof sql,
             "SELECT seq FROM unit_events WHERE campaign_row = (SELECT "
             "rowid FROM campaigns WHERE id = '%s') ORDER BY seq",
             campaign_id);
    ck_assert_int_eq(sqlite3_open(db_fixture_path, &raw), SQLITE_OK);
    ck_assert_int_eq(sqlite3_prepare_v2(raw, sql, -1, &st, NULL), SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW && n < max)
        seqs[n++] = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(raw);
    return n;
}

/* The campaign's feed (migration 19: read through the event log's rows,
 * a combat's packed events one block) pages as the events' seqs go, in
 * both orders, from every cursor (its own events', another campaign's,
 * one past the last), with blocks of 3, of 64 and of 1 (a combat of 65
 * events), rows of one event mixed in, and a page starting or ending
 * inside a block. */
START_TEST(test_feed_pages_through_blocks)
{
    enum { FIGHTS = 4, MAX = 256 };
    static const int limits[] = {1, 2, 5, 50};
    db_campaign cmp, other;
    db_unit a, b, o1, o2;
    db_event edit;
    long long seqs[MAX], others[MAX], cursors[2 * MAX + 2];
    fight f[FIGHTS], g;
    big_fight *big = calloc(1, sizeof *big);
    db_conn *c;
    size_t n_seqs, n_others, n_cursors = 0, li, k;
    int i;

    ck_assert_ptr_nonnull(big);
    setup(&cmp, &a, &b);
    add_units(&other, &o1, &o2);
    edit_of(&edit, a.id, cmp.id, "edit", "{\"v\":1}");
    for (i = 0; i < FIGHTS; i++) {
        fight_make(&f[i], &cmp, &a, &b);
        db_fixture_write_ok(job_fight_block, &f[i], "a combat");
        free(f[i].cb.unit_docs_z);
        free(f[i].cb.report_z);
        if (i % 2 == 0)
            db_fixture_write_ok(job_edit, &edit, "an edit between");
        /* Another campaign's block between ours. */
        fight_make(&g, &other, &o1, &o2);
        db_fixture_write_ok(job_fight_block, &g, "another campaign's combat");
        free(g.cb.unit_docs_z);
        free(g.cb.report_z);
        if (i == 1) {
            big_fight_make(big, &cmp, &a, &b, DB_LOG_BLOCK_MAX + 1);
            db_fixture_write_ok(job_big_fight, big, "a combat of 65");
            free(big->cb.unit_docs_z);
            free(big->cb.report_z);
        }
    }
    free(big);
    n_seqs = campaign_seqs(cmp.id, seqs, MAX);
    n_others = campaign_seqs(other.id, others, MAX);
    ck_assert_uint_eq(n_seqs, FIGHTS * 3 + FIGHTS / 2 + DB_LOG_BLOCK_MAX + 1);
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT max(n) FROM event_log "
                                              "WHERE kind = 'unit'"),
                     DB_LOG_BLOCK_MAX);
    cursors[n_cursors++] = 0; /* none */
    for (k = 0; k < n_seqs; k++)
        cursors[n_cursors++] = seqs[k];
    for (k = 0; k < n_others; k++)
        cursors[n_cursors++] = others[k];
    cursors[n_cursors++] = seqs[n_seqs - 1] + 100;
    c = db_read_acquire(db_fixture_db);
    for (li = 0; li < sizeof limits / sizeof limits[0]; li++)
        for (k = 0; k < n_cursors; k++) {
            long long x = cursors[k];
            int dir;
            for (dir = 0; dir < 2; dir++) {
                db_event_query q = {cmp.id, NULL, x, dir == 1, limits[li]};
                long long want[MAX];
                db_event *evs;
                size_t n, j, want_n = 0;
                /* Oldest first after x, or newest first before x. */
                for (j = 0; j < n_seqs && want_n < (size_t)limits[li]; j++) {
                    long long s = dir == 0 ? seqs[j] : seqs[n_seqs - 1 - j];
                    if (x == 0 || (dir == 0 ? s > x : s < x))
                        want[want_n++] = s;
                }
                ck_assert_int_eq(db_events_page(c, &q, &evs, &n, NULL), ERR_OK);
                ck_assert_msg(n == want_n,
                              "limit %d, cursor %lld, %s: %zu events, not %zu",
                              limits[li], x, dir ? "newest" : "oldest", n,
                              want_n);
                for (j = 0; j < n; j++) {
                    ck_assert_int_eq(evs[j].seq, want[j]);
                    ck_assert_str_eq(evs[j].campaign_id, cmp.id);
                    ck_assert_ptr_nonnull(evs[j].after);
                }
                db_events_free(evs, n);
            }
        }
    db_read_release(db_fixture_db, c);
}
END_TEST

Suite *suite_unit_docs(void)
{
    Suite *s = suite_create("unit_docs");
    TCase *tc = tcase_create("unit_docs");

    tcase_add_unchecked_fixture(tc, db_fixture_suite_make,
                                db_fixture_suite_remove);
    tcase_add_checked_fixture(tc, db_fixture_setup, db_fixture_teardown);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    tcase_add_test(tc, test_packed_docs_read_back_by_every_list);
    tcase_add_loop_test(tc, test_unreadable_docs_are_an_error, 0, 3);
    tcase_add_loop_test(tc, test_docs_packed_with_the_report, 0, 2);
    tcase_add_loop_test(tc, test_events_keep_words_not_the_combats, 0, 3);
    tcase_add_test(tc, test_event_without_docs_needs_a_place);
    tcase_add_test(tc, test_migration_14_keeps_events_and_numbers_on);
    tcase_add_test(tc, test_migration_18_keys_events_by_row);
    tcase_add_test(tc, test_migration_18_stops_on_a_lost_unit);
    tcase_add_test(tc, test_event_of_no_unit_is_refused);
    tcase_add_test(tc, test_event_keyed_by_its_units_row);
    tcase_add_test(tc, test_feed_pages_through_blocks);
    return s;
}
