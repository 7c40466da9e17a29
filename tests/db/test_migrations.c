/*
 * test_migrations.c: tests db/migrations.c by upgrading populated schema-1,
 * schema-2 and schema-3 databases.  The schema-1 file is made with plain
 * SQLite, outside db_open: migration 1's own SQL (migrations_sql[0]) and PRAGMA
 * user_version = 1, then a campaign, a side, two units, their history
 * (interleaved between the two units) and a combat with its rolls, in the
 * columns schema 1 had and the way its store wrote them.  The schema-2 file
 * is that one taken on by migration 2's own SQL, then given what schema 2
 * could hold and schema 1 could not (campaign EDNA options, a unit with
 * EDNA only); the schema-3 file is that one taken on by migration 3's SQL,
 * then given what schema 3 could hold (an SCS counter, campaign multipliers,
 * a combat results table).  Then db_open runs every later migration, and
 * the rows are read back through the store.
 *
 * What must hold: every old row is kept; units from schema 1 carry SCRUD
 * and EDNA with EDNA 8 of 8, and the campaign gets EDNA tests of 2d6 from
 * 8; no old unit carries SCS (no printed values, no steps) and old
 * campaigns get SCS out-of-supply multipliers of 1; there are no combat
 * results tables yet, and they can be added; every old unit carries Matrix
 * at quality 0 and no side is exhausted, with no battles yet, and they can
 * be added; each unit's events are
 * numbered 1..k in seq order whatever came between them; the history
 * pages; opening the upgraded file again changes nothing.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <sqlite3.h>

#include "db.h"
#include "db_fixture.h"
#include "migrations.h"
#include "scrud.h"
#include "suites.h"

/* ---- the schema-1 database --------------------------------------------- */

#define CMP_ID    "cmp_0192a0000001a1a1a1a1a1a1"
#define SIDE_ID   "sd_0192a0000002b2b2b2b2b2b2"
#define UNIT_A    "un_0192a0000003c3c3c3c3c3c3"
#define UNIT_B    "un_0192a0000004d4d4d4d4d4d4"
#define COMBAT_ID "cmb_0192a0000005e5e5e5e5e5e5"
#define TOKEN_ID  "tok_0192a0000006f6f6f6f6f6f6"
#define UNIT_C    "un_0192a0000007a7a7a7a7a7a7"
#define UNIT_D    "un_0192a0000008b8b8b8b8b8b8"
#define UNIT_E    "un_0192a0000009c9c9c9c9c9c9"
#define CREATED   "2025-06-01T09:00:00.000Z"

/* Unit states as schema 1's server wrote them (units_doc_state). */
#define STATE(name, elim, reason, q, f, d)                                     \
    "{\"name\": \"" name "\", \"side_id\": \"" SIDE_ID                         \
    "\", \"eliminated\": " elim ", \"eliminated_reason\": " reason             \
    ", \"scrud\": {\"quality\": " q ", \"faces\": " f                          \
    ", \"defeat_penalty\": " d ", \"fatigue_penalty\": 0, "                    \
    "\"modifier\": " q "}}"
#define A0 STATE("1st Foot", "false", "null", "2", "10", "0")
#define A1 STATE("1st Foot", "false", "null", "2", "10", "1")
#define A2 STATE("1st Foot", "false", "null", "3", "10", "1")
#define B0 STATE("Horse", "false", "null", "0", "6", "0")
#define B1 STATE("Horse", "false", "null", "0", "6", "2")
#define B2 STATE("Horse", "true", "\"threshold\"", "0", "6", "3")

/* Schema 1's history, in write order: unit 0 is A, 1 is B. */
static const struct v1_event {
    int unit;
    const char *at, *kind;
    bool has_combat;
    const char *note, *before, *after, *result;
} v1_events[] = {
    {0, "2025-06-01T09:00:01.000Z", "created", false, NULL, NULL, A0, NULL},
    {1, "2025-06-01T09:00:02.000Z", "created", false, NULL, NULL, B0, NULL},
    {0, "2025-06-01T09:10:00.000Z", "combat", true, NULL, A0, A1,
     "{\"defeats\": 1}"},
    {1, "2025-06-01T09:10:00.000Z", "combat", true, NULL, B0, B1,
     "{\"defeats\": 2}"},
    {0, "2025-06-01T09:20:00.000Z", "correction", false, "quality was 3", A1,
     A2, NULL},
    {0, "2025-06-01T09:30:00.000Z", "resupply", false, NULL, A2, A1, NULL},
    {1, "2025-06-01T09:40:00.000Z", "correction", false, "routed", B1, B2,
     NULL},
    {0, "2025-06-01T09:50:00.000Z", "correction", false, "back to 3", A1, A2,
     NULL},
};
#define N_V1_EVENTS (sizeof v1_events / sizeof v1_events[0])

static const char *const unit_ids[2] = {UNIT_A, UNIT_B};

/* The seq each event of v1_events got in the schema-1 file. */
static long long v1_seqs[N_V1_EVENTS];

static void exec_ok_lite(sqlite3 *c, const char *sql)
{
    char *msg = NULL;
    int rc = sqlite3_exec(c, sql, NULL, NULL, &msg);

    ck_assert_msg(rc == SQLITE_OK, "%.60s...: %s", sql, msg ? msg : "?");
    sqlite3_free(msg);
}
#define exec_ok(c, sql) exec_ok_lite(DB_LITE(c), sql)

/* Binds s, or NULL when s is NULL. */
static void bind_or_null(sqlite3_stmt *st, int i, const char *s)
{
    if (s == NULL)
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
}

static void insert_v1_events_lite(sqlite3 *c)
{
    sqlite3_stmt *st = NULL;
    size_t i;

    ck_assert_int_eq(
        sqlite3_prepare_v2(DB_LITE(c),
                           "INSERT INTO unit_events (unit_id, campaign_id, "
                           "at, kind, combat_id, actor_token_id, note, "
                           "before, after, result) "
                           "VALUES (?,?,?,?,?,?,?,?,?,?)",
                           -1, &st, NULL),
        SQLITE_OK);
    for (i = 0; i < N_V1_EVENTS; i++) {
        const struct v1_event *v = &v1_events[i];
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, unit_ids[v->unit], -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, CMP_ID, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, v->at, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, v->kind, -1, SQLITE_STATIC);
        bind_or_null(st, 5, v->has_combat ? COMBAT_ID : NULL);
        bind_or_null(st, 6, v->has_combat ? TOKEN_ID : NULL);
        bind_or_null(st, 7, v->note);
        bind_or_null(st, 8, v->before);
        bind_or_null(st, 9, v->after);
        bind_or_null(st, 10, v->result);
        ck_assert_msg(sqlite3_step(st) == SQLITE_DONE, "event %zu: %s", i,
                      sqlite3_errmsg(DB_LITE(c)));
        v1_seqs[i] = sqlite3_last_insert_rowid(DB_LITE(c));
    }
    sqlite3_finalize(st);
}
#define insert_v1_events(c) insert_v1_events_lite(DB_LITE(c))

/*
 * Makes db_fixture_path a schema-1 database holding one campaign (every
 * SCRUD option away from its default), a side, units A and B, the
 * history of v1_events and one combat of theirs with four rolls.
 */
static void make_v1(void)
{
    sqlite3 *c = NULL;
    char sql[1024];

    ck_assert_int_eq(sqlite3_open(db_fixture_path, &c), SQLITE_OK);
    exec_ok(c, migrations_sql[0]);
    exec_ok(c, "PRAGMA user_version = 1");
    exec_ok(c, "PRAGMA foreign_keys = ON");
    snprintf(sql, sizeof sql,
             "INSERT INTO campaigns (id, name, created_at, scrud_cap_kind, "
             "scrud_cap, scrud_has_floor, scrud_floor, scrud_extra_dice, "
             "scrud_attrition, scrud_max_penalty, scrud_eliminate_below, "
             "scrud_defeats_per_elimination) VALUES ('" CMP_ID "', "
             "'Quatre Bras', '" CREATED "', %d, 9, 0, 2, %d, 0, 2, -5, 0)",
             (int)SCRUD_CAP_FIXED, (int)SCRUD_EXTRA_HALF);
    exec_ok(c, sql);
    exec_ok(c, "INSERT INTO sides (id, campaign_id, name, created_at) "
               "VALUES ('" SIDE_ID "', '" CMP_ID "', 'Allies', '" CREATED "')");
    exec_ok(c, "INSERT INTO tokens (id, campaign_id, side_id, role, hash, "
               "created_at) VALUES ('" TOKEN_ID "', '" CMP_ID "', NULL, "
               "'umpire', 'ab12', '" CREATED "')");
    exec_ok(c,
            "INSERT INTO units (id, side_id, name, eliminated, "
            "eliminated_reason, eliminated_by, scrud_quality, "
            "scrud_faces, scrud_defeat_penalty, scrud_fatigue_penalty, "
            "campaign_id, created_at) VALUES "
            "('" UNIT_A "', '" SIDE_ID "', '1st Foot', 0, NULL, NULL, 3, "
            "10, 1, 0, '" CMP_ID "', '2025-06-01T09:00:01.000Z'), "
            "('" UNIT_B "', '" SIDE_ID "', 'Horse', 1, 'threshold', '" COMBAT_ID
            "', 0, 6, 3, 2, '" CMP_ID "', '2025-06-01T09:00:02.000Z')");
    exec_ok(c, "INSERT INTO combats (id, campaign_id, system, created_at, "
               "note, dice_source, rng, commitment, server_seed, "
               "client_seed, actor_token_id, summary, report) VALUES "
               "('" COMBAT_ID "', '" CMP_ID "', 'scrud', "
               "'2025-06-01T09:10:00.000Z', NULL, 'entered', NULL, NULL, "
               "NULL, NULL, '" TOKEN_ID "', '1st Foot 1 defeat, Horse 2', "
               "'{\"winner\": \"1st Foot\"}')");
    exec_ok(c, "INSERT INTO rolls (combat_id, seq, side_name, unit_id, "
               "unit_name, reason, faces, natural, modified, source, rng) "
               "VALUES ('" COMBAT_ID "', 3, 'Allies', '" UNIT_A "', "
               "'1st Foot', 'scrud.extra', 10, 7, 9, 'entered', NULL), "
               "('" COMBAT_ID "', 1, 'Allies', '" UNIT_A "', '1st Foot', "
               "'scrud.front', 10, 4, 6, 'entered', NULL), "
               "('" COMBAT_ID "', 4, 'Allies', '" UNIT_B "', 'Horse', "
               "'scrud.extra', 6, 1, 1, 'entered', NULL), "
               "('" COMBAT_ID "', 2, 'Allies', '" UNIT_B "', 'Horse', "
               "'scrud.front', 6, 5, 5, 'entered', NULL)");
    insert_v1_events(c);
    ck_assert_int_eq(db_fixture_query_int(c, "PRAGMA user_version"), 1);
    ck_assert_int_eq(sqlite3_close(DB_LITE(c)), SQLITE_OK);
}

/*
 * Makes db_fixture_path a schema-2 database: make_v1's, upgraded by
 * migration 2's SQL, then the campaign's EDNA options away from their
 * defaults and unit C, with EDNA only, as schema 2's store wrote them.
 */
static void make_v2(void)
{
    sqlite3 *c = NULL;

    make_v1();
    ck_assert_int_eq(sqlite3_open(db_fixture_path, &c), SQLITE_OK);
    exec_ok(c, "PRAGMA foreign_keys = ON");
    exec_ok(c, "BEGIN");
    exec_ok(c, migrations_sql[1]);
    exec_ok(c, "PRAGMA user_version = 2");
    exec_ok(c, "COMMIT");
    exec_ok(c, "UPDATE campaigns SET edna_start = 6, edna_dice = 3, "
               "edna_faces = 10 WHERE id = '" CMP_ID "'");
    exec_ok(c, "INSERT INTO units (id, side_id, name, eliminated, "
               "eliminated_reason, eliminated_by, scrud_quality, "
               "scrud_faces, scrud_defeat_penalty, scrud_fatigue_penalty, "
               "campaign_id, created_at, has_scrud, has_edna, edna, "
               "edna_start) VALUES ('" UNIT_C "', '" SIDE_ID "', 'Guns', 0, "
               "NULL, NULL, 0, 6, 0, 0, '" CMP_ID "', "
               "'2025-06-02T09:00:00.000Z', 0, 1, 3, 6)");
    ck_assert_int_eq(db_fixture_query_int(c, "PRAGMA user_version"), 2);
    ck_assert_int_eq(sqlite3_close(DB_LITE(c)), SQLITE_OK);
}

/*
 * Makes db_fixture_path a schema-3 database: make_v2's, upgraded by
 * migration 3's SQL, then the campaign's SCS multipliers, unit D with a
 * two-sided SCS counter and a combat results table, as schema 3's store
 * wrote them.
 */
static void make_v3(void)
{
    sqlite3 *c = NULL;

    make_v2();
    ck_assert_int_eq(sqlite3_open(db_fixture_path, &c), SQLITE_OK);
    exec_ok(c, "PRAGMA foreign_keys = ON");
    exec_ok(c, "BEGIN");
    exec_ok(c, migrations_sql[2]);
    exec_ok(c, "PRAGMA user_version = 3");
    exec_ok(c, "COMMIT");
    exec_ok(c, "UPDATE campaigns SET scs_oos_attack = '1/2', "
               "scs_oos_defense = '2/3' WHERE id = '" CMP_ID "'");
    exec_ok(c, "INSERT INTO units (id, side_id, name, campaign_id, "
               "created_at, has_scrud, has_edna, has_scs, scs_attack, "
               "scs_defense, scs_movement, scs_has_reduced, scs_r_attack, "
               "scs_r_defense, scs_r_movement, scs_steps, scs_steps_lost, "
               "scs_exploit, scs_out_of_supply) VALUES ('" UNIT_D "', "
               "'" SIDE_ID "', 'Panzer', '" CMP_ID "', "
               "'2025-06-03T09:00:00.000Z', 0, 0, 1, 12, 7, 8, 1, NULL, 3, "
               "6, 4, 1, 1, 0)");
    exec_ok(c, "INSERT INTO crts (campaign_id, name, doc, created_at, "
               "updated_at) VALUES ('" CMP_ID "', 'Standard', "
               "'{\"roll\":\"1d6\"}', '" CREATED "', '" CREATED "')");
    ck_assert_int_eq(db_fixture_query_int(c, "PRAGMA user_version"), 3);
    ck_assert_int_eq(sqlite3_close(DB_LITE(c)), SQLITE_OK);
}

/* ---- checks ------------------------------------------------------------ */

/* u came from before migration 3: it carries no SCS, and its counter is
 * all defaults, with no printed attack. */
static void check_no_scs(const db_unit *u)
{
    const scs_printed *sides[2] = {&u->scs.full, &u->scs.reduced};
    int i;

    ck_assert_msg(!u->has_scs, "%s carries SCS", u->name);
    for (i = 0; i < 2; i++)
        ck_assert_msg(!sides[i]->has_attack && sides[i]->attack == 0 &&
                          sides[i]->defense == 0 && sides[i]->movement == 0,
                      "%s: side %d has values", u->name, i);
    ck_assert(!u->scs.has_reduced);
    ck_assert_int_eq(u->scs.steps, 0);
    ck_assert_int_eq(u->scs.steps_lost, 0);
    ck_assert(!u->scs.is_exploit);
    ck_assert(!u->scs.is_out_of_supply);
}

/* Campaigns from before migration 3 get multipliers of 1, stored as "1". */
static void check_scs_default(const db_campaign *c)
{
    ck_assert_int_eq(c->scs.out_of_supply_attack.num, 1);
    ck_assert_int_eq(c->scs.out_of_supply_attack.den, 1);
    ck_assert_int_eq(c->scs.out_of_supply_defense.num, 1);
    ck_assert_int_eq(c->scs.out_of_supply_defense.den, 1);
    ck_assert_int_eq(db_fixture_raw_query_int(
                         "SELECT count(*) FROM campaigns WHERE "
                         "scs_oos_attack = '1' AND scs_oos_defense = '1'"),
                     1);
}

/* Indexes into v1_events of unit u's events (u -1: every event), oldest
 * or newest first; returns how many. */
static size_t expect(int u, bool is_newest_first, size_t *out)
{
    size_t i, n = 0;

    for (i = 0; i < N_V1_EVENTS; i++) {
        size_t k = is_newest_first ? N_V1_EVENTS - 1 - i : i;
        if (u < 0 || v1_events[k].unit == u)
            out[n++] = k;
    }
    return n;
}

/* The unit_seq v1_events[k] must have: its place among its unit's. */
static long long want_unit_seq(size_t k)
{
    long long n = 0;
    size_t i;

    for (i = 0; i <= k; i++)
        n += v1_events[i].unit == v1_events[k].unit;
    return n;
}

/* got must be v1_events[k], numbered in its unit. */
static void check_event(const db_event *got, size_t k)
{
    const struct v1_event *v = &v1_events[k];

    ck_assert_int_eq(got->seq, v1_seqs[k]);
    ck_assert_int_eq(got->unit_seq, want_unit_seq(k));
    ck_assert_str_eq(got->unit_id, unit_ids[v->unit]);
    ck_assert_str_eq(got->campaign_id, CMP_ID);
    ck_assert_str_eq(got->at, v->at);
    ck_assert_str_eq(got->kind, v->kind);
    ck_assert_str_eq(got->combat_id, v->has_combat ? COMBAT_ID : "");
    ck_assert_str_eq(got->actor_token_id, v->has_combat ? TOKEN_ID : "");
    ck_assert(db_fixture_str_eq_or_null(got->note, v->note));
    ck_assert(db_fixture_str_eq_or_null(got->before, v->before));
    ck_assert(db_fixture_str_eq_or_null(got->after, v->after));
    ck_assert(db_fixture_str_eq_or_null(got->result, v->result));
}

/* Pages through unit u's history (-1: the campaign's), limit a page,
 * following the cursor until a short page; checks the concatenation. */
static void check_pages(db_conn *r, int u, bool is_newest_first, int limit)
{
    db_event_query q = {CMP_ID, u < 0 ? NULL : unit_ids[u], 0, is_newest_first,
                        limit};
    size_t want[N_V1_EVENTS], n_want, n = 0, k, i;
    db_event *evs;
    int pages;

    n_want = expect(u, is_newest_first, want);
    for (pages = 0;; pages++) {
        ck_assert_int_le(pages, (int)N_V1_EVENTS + 1);
        ck_assert_int_eq(db_events_page(r, &q, &evs, &k, NULL), ERR_OK);
        ck_assert_uint_le(k, (size_t)limit);
        for (i = 0; i < k; i++, n++) {
            ck_assert_msg(n < n_want, "unit %d, limit %d: more than %zu", u,
                          limit, n_want);
            check_event(&evs[i], want[n]);
        }
        if (k > 0)
            q.after = evs[k - 1].seq;
        db_events_free(evs, k);
        if (k < (size_t)limit)
            break;
    }
    ck_assert_msg(n == n_want, "unit %d, %s, limit %d: %zu events, want %zu", u,
                  is_newest_first ? "newest first" : "oldest first", limit, n,
                  n_want);
}

/* ---- tests ------------------------------------------------------------- */

START_TEST(test_upgrade_keeps_campaign_and_units)
{
    db_campaign c;
    db_unit a, b, *list;
    db_unit_filter f = {NULL, NULL, -1, -1};
    size_t n;
    db_conn *r;

    ck_assert_int_ge(db_n_migrations(), 4);
    make_v1();
    db_fixture_open();
    ck_assert_int_eq(db_schema_version(db_fixture_db), db_n_migrations());
    ck_assert_int_eq(db_fixture_raw_query_int("PRAGMA user_version"),
                     db_n_migrations());

    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_campaign_get(r, CMP_ID, &c, NULL), ERR_OK);
    ck_assert_str_eq(c.name, "Quatre Bras");
    ck_assert_str_eq(c.created_at, CREATED);
    ck_assert_int_eq(c.scrud.cap_kind, SCRUD_CAP_FIXED);
    ck_assert_int_eq(c.scrud.cap, 9);
    ck_assert(!c.scrud.has_floor);
    ck_assert_int_eq(c.scrud.floor, 2);
    ck_assert_int_eq(c.scrud.extra_dice, SCRUD_EXTRA_HALF);
    ck_assert(!c.scrud.attrition);
    ck_assert_int_eq(c.scrud.max_penalty_per_combat, 2);
    ck_assert_int_eq(c.scrud.eliminate_below, -5);
    ck_assert_int_eq(c.scrud.defeats_per_elimination, 0);
    ck_assert_int_eq(c.edna_start, 8);
    ck_assert_int_eq(c.edna.dice, 2);
    ck_assert_int_eq(c.edna.faces, 6);
    check_scs_default(&c);

    ck_assert_int_eq(db_unit_find(r, CMP_ID, UNIT_A, &a, NULL), ERR_OK);
    ck_assert_str_eq(a.id, UNIT_A);
    ck_assert_str_eq(a.name, "1st Foot");
    ck_assert_str_eq(a.side_id, SIDE_ID);
    ck_assert_str_eq(a.side_name, "Allies");
    ck_assert_str_eq(a.created_at, "2025-06-01T09:00:01.000Z");
    ck_assert(!a.is_eliminated);
    ck_assert_str_eq(a.eliminated_reason, "");
    ck_assert_int_eq(a.scrud.quality, 3);
    ck_assert_int_eq(a.scrud.faces, 10);
    ck_assert_int_eq(a.scrud.defeat_penalty, 1);
    ck_assert_int_eq(a.scrud.fatigue_penalty, 0);
    ck_assert_int_eq(db_unit_find(r, CMP_ID, "Horse", &b, NULL), ERR_OK);
    ck_assert_str_eq(b.id, UNIT_B);
    ck_assert(b.is_eliminated);
    ck_assert(b.scrud.is_eliminated);
    ck_assert_str_eq(b.eliminated_reason, "threshold");
    ck_assert_str_eq(b.eliminated_by, COMBAT_ID);
    ck_assert_int_eq(b.scrud.faces, 6);
    ck_assert_int_eq(b.scrud.defeat_penalty, 3);
    ck_assert_int_eq(b.scrud.fatigue_penalty, 2);
    /* Units from before carry every system, EDNA at its start of 8. */
    ck_assert(a.has_scrud && a.has_edna);
    ck_assert(b.has_scrud && b.has_edna);
    ck_assert_int_eq(a.edna, 8);
    ck_assert_int_eq(a.edna_start, 8);
    ck_assert_int_eq(b.edna, 8);
    ck_assert_int_eq(b.edna_start, 8);
    /* But not SCS, which came later; Matrix too, at quality 0. */
    check_no_scs(&a);
    check_no_scs(&b);
    ck_assert(a.has_matrix && b.has_matrix);
    ck_assert_int_eq(a.matrix_quality, 0);
    ck_assert_int_eq(b.matrix_quality, 0);

    /* And the filters see them so. */
    f.system = "edna";
    ck_assert_int_eq(db_units_list(r, CMP_ID, &f, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 2);
    free(list);
    f.system = "scrud";
    ck_assert_int_eq(db_units_list(r, CMP_ID, &f, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 2);
    free(list);
    f.system = "scs";
    ck_assert_int_eq(db_units_list(r, CMP_ID, &f, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 0);
    free(list);
    f = (db_unit_filter){NULL, NULL, -1, 0};
    ck_assert_int_eq(db_units_list(r, CMP_ID, &f, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 2);
    free(list);
    f.ineffective = 1;
    ck_assert_int_eq(db_units_list(r, CMP_ID, &f, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 0);
    free(list);
    db_read_release(db_fixture_db, r);
}
END_TEST

static err_code job_event(db_conn *c, void *arg, err_info *e)
{
    return db_event_insert(c, arg, e);
}

static err_code job_table_put(db_conn *c, void *arg, err_info *e)
{
    bool is_new;

    return db_table_put(c, arg, &is_new, e);
}

START_TEST(test_upgrade_from_2)
{
    static const char *const ids[] = {UNIT_A, UNIT_B, UNIT_C};
    db_unit_filter f = {NULL, NULL, -1, -1};
    db_unit units[3], *list;
    db_table t, *tables;
    db_campaign c;
    size_t n, i;
    db_conn *r;

    ck_assert_int_ge(db_n_migrations(), 4);
    make_v2();
    db_fixture_open();
    ck_assert_int_eq(db_schema_version(db_fixture_db), db_n_migrations());
    ck_assert_int_eq(db_fixture_raw_query_int("PRAGMA user_version"),
                     db_n_migrations());
    /* No SCS column is left NULL but the attacks (none printed). */
    ck_assert_int_eq(db_fixture_raw_query_int(
                         "SELECT count(*) FROM units WHERE has_scs = 0 AND "
                         "scs_attack IS NULL AND scs_r_attack IS NULL AND "
                         "scs_defense = 0 AND scs_movement = 0 AND "
                         "scs_has_reduced = 0 AND scs_r_defense = 0 AND "
                         "scs_r_movement = 0 AND scs_steps = 0 AND "
                         "scs_steps_lost = 0 AND scs_exploit = 0 AND "
                         "scs_out_of_supply = 0"),
                     3);

    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_campaign_get(r, CMP_ID, &c, NULL), ERR_OK);
    ck_assert_str_eq(c.name, "Quatre Bras");
    ck_assert_int_eq(c.scrud.cap_kind, SCRUD_CAP_FIXED);
    ck_assert_int_eq(c.scrud.extra_dice, SCRUD_EXTRA_HALF);
    ck_assert_int_eq(c.scrud.eliminate_below, -5);
    ck_assert_int_eq(c.edna_start, 6); /* schema 2's, kept */
    ck_assert_int_eq(c.edna.dice, 3);
    ck_assert_int_eq(c.edna.faces, 10);
    check_scs_default(&c);

    for (i = 0; i < 3; i++) {
        ck_assert_int_eq(db_unit_find(r, CMP_ID, ids[i], &units[i], NULL),
                         ERR_OK);
        check_no_scs(&units[i]);
    }
    ck_assert_int_eq(units[0].scrud.quality, 3);
    ck_assert(units[1].is_eliminated);
    ck_assert_str_eq(units[2].name, "Guns");
    ck_assert(!units[2].has_scrud && units[2].has_edna);
    ck_assert_int_eq(units[2].edna, 3);
    ck_assert_int_eq(units[2].edna_start, 6);
    f.system = "scs";
    ck_assert_int_eq(db_units_list(r, CMP_ID, &f, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 0);
    free(list);
    f.system = "edna";
    ck_assert_int_eq(db_units_list(r, CMP_ID, &f, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 3);
    free(list);
    f.system = "scrud";
    ck_assert_int_eq(db_units_list(r, CMP_ID, &f, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 2);
    free(list);
    ck_assert_int_eq(db_tables_list(r, CMP_ID, &tables, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 0);
    db_tables_free(tables, n);
    db_read_release(db_fixture_db, r);

    /* The upgraded file takes SCS: an old unit given a counter, a table. */
    units[2].has_scs = true;
    units[2].scs = (scs_counter){.full = {false, 0, 2, 4}, .steps = 1};
    db_fixture_write_ok(db_fixture_job_unit_update, &units[2],
                        "give C a counter");
    memset(&t, 0, sizeof t);
    snprintf(t.campaign_id, sizeof t.campaign_id, "%s", CMP_ID);
    snprintf(t.name, sizeof t.name, "Standard");
    db_now(t.created_at);
    db_now(t.updated_at);
    t.doc = "{\"roll\":\"2d6\"}";
    db_fixture_write_ok(job_table_put, &t, "put a table");
    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_unit_find(r, CMP_ID, UNIT_C, &units[2], NULL), ERR_OK);
    ck_assert(units[2].has_scs && units[2].has_edna);
    ck_assert_int_eq(units[2].scs.full.defense, 2);
    ck_assert_int_eq(units[2].scs.full.movement, 4);
    ck_assert_int_eq(units[2].edna, 3);
    f.system = "scs";
    ck_assert_int_eq(db_units_list(r, CMP_ID, &f, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(list[0].id, UNIT_C);
    free(list);
    ck_assert_int_eq(db_tables_list(r, CMP_ID, &tables, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(tables[0].doc, t.doc);
    db_tables_free(tables, n);
    db_read_release(db_fixture_db, r);
}
END_TEST

static err_code job_battle(db_conn *c, void *arg, err_info *e)
{
    db_battle_action a = {.seq = 1, .kind = "roll", .army = -1, .unit = -1};
    err_code rc;

    db_now(a.at);
    a.naturals = "[3,5]";
    if ((rc = db_battle_insert(c, arg, e)) != ERR_OK)
        return rc;
    return db_battle_action_insert(c, ((db_battle *)arg)->id, &a, e);
}

START_TEST(test_upgrade_from_3)
{
    /* Which units of schema 3 carry Matrix, and why: a unit made naming no
     * system carried SCRUD and EDNA and not SCS, and one made so now
     * carries Matrix too; a unit that named its systems keeps only those. */
    static const struct {
        const char *id;
        bool has_matrix;
    } want[] = {
        {UNIT_A, true},  /* 1st Foot, schema 1: SCRUD and EDNA */
        {UNIT_B, true},  /* Horse, schema 1 (eliminated): SCRUD and EDNA */
        {UNIT_C, false}, /* Guns: named EDNA only */
        {UNIT_D, false}, /* Panzer: named SCS only */
        {UNIT_E, false}, /* Lancers: named SCRUD, EDNA and SCS */
    };
    db_unit_filter f = {NULL, "matrix", -1, -1};
    db_unit units[5], *list;
    db_side *sides, side = {SIDE_ID, CMP_ID, "Allies", CREATED, 2};
    db_battle b = {.campaign_id = CMP_ID,
                   .system = "matrix",
                   .status = "open",
                   .turn = 2,
                   .created_at = CREATED,
                   .updated_at = CREATED,
                   .dice_source = "entered",
                   .setup = "{}",
                   .n_actions = 1};
    db_battle *battles;
    db_table t;
    db_campaign c;
    size_t n, i;
    db_conn *r;

    ck_assert_int_ge(db_n_migrations(), 4);
    make_v3();
    /* A unit of schema 3 that named all three systems. */
    db_fixture_raw_exec(
        "INSERT INTO units (id, side_id, name, campaign_id, created_at, "
        "scrud_quality, has_scrud, has_edna, edna, edna_start, has_scs, "
        "scs_attack, scs_defense, scs_movement, scs_steps) VALUES "
        "('" UNIT_E "', '" SIDE_ID "', 'Lancers', '" CMP_ID "', "
        "'2025-06-03T10:00:00.000Z', 1, 1, 1, 5, 6, 1, 4, 3, 6, 1)");
    db_fixture_open();
    ck_assert_int_eq(db_schema_version(db_fixture_db), db_n_migrations());
    ck_assert_int_eq(db_fixture_raw_query_int(
                         "SELECT count(*) FROM units WHERE has_matrix = 1 "
                         "AND matrix_quality = 0"),
                     2);
    ck_assert_int_eq(db_fixture_raw_query_int(
                         "SELECT count(*) FROM units WHERE has_matrix = 0 "
                         "AND matrix_quality = 0"),
                     3);

    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_campaign_get(r, CMP_ID, &c, NULL), ERR_OK);
    ck_assert_int_eq(c.edna_start, 6);
    ck_assert_int_eq(c.scs.out_of_supply_attack.num, 1);
    ck_assert_int_eq(c.scs.out_of_supply_attack.den, 2);
    ck_assert_int_eq(c.scs.out_of_supply_defense.num, 2);
    ck_assert_int_eq(c.scs.out_of_supply_defense.den, 3);
    ck_assert_int_eq(db_sides_list(r, CMP_ID, &sides, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(sides[0].name, "Allies");
    ck_assert_int_eq(sides[0].exhausted_turn, 0);
    free(sides);
    for (i = 0; i < sizeof want / sizeof want[0]; i++) {
        ck_assert_int_eq(db_unit_find(r, CMP_ID, want[i].id, &units[i], NULL),
                         ERR_OK);
        ck_assert_msg(units[i].has_matrix == want[i].has_matrix,
                      "%s: has_matrix is %d", units[i].name,
                      units[i].has_matrix);
        ck_assert_int_eq(units[i].matrix_quality, 0);
    }
    ck_assert(units[4].has_scrud && units[4].has_edna && units[4].has_scs);
    ck_assert_int_eq(units[4].scs.full.attack, 4);
    /* What schema 3 held is intact. */
    ck_assert_int_eq(units[0].scrud.quality, 3);
    ck_assert(units[1].is_eliminated);
    ck_assert(!units[2].has_scrud && units[2].has_edna);
    ck_assert_int_eq(units[2].edna, 3);
    check_no_scs(&units[2]);
    ck_assert(units[3].has_scs && !units[3].has_edna && !units[3].has_scrud);
    ck_assert(units[3].scs.full.has_attack && !units[3].scs.reduced.has_attack);
    ck_assert_int_eq(units[3].scs.full.attack, 12);
    ck_assert_int_eq(units[3].scs.reduced.defense, 3);
    ck_assert_int_eq(units[3].scs.steps, 4);
    ck_assert_int_eq(units[3].scs.steps_lost, 1);
    ck_assert(units[3].scs.is_exploit && !units[3].scs.is_out_of_supply);
    ck_assert_int_eq(db_units_list(r, CMP_ID, &f, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(list[0].id, UNIT_A);
    ck_assert_str_eq(list[1].id, UNIT_B);
    free(list);
    ck_assert_int_eq(db_table_get(r, CMP_ID, "Standard", &t, NULL), ERR_OK);
    ck_assert_str_eq(t.doc, "{\"roll\":\"1d6\"}");
    db_table_cleanup(&t);
    ck_assert_int_eq(db_battles_list(r, CMP_ID, &battles, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 0);
    db_battles_free(battles, n);
    db_read_release(db_fixture_db, r);

    /* The upgraded file takes Matrix: a quality, an exhausted side, a
     * battle with an action. */
    units[0].matrix_quality = -3;
    db_fixture_write_ok(db_fixture_job_unit_update, &units[0], "quality");
    db_fixture_write_ok(db_fixture_job_side_update, &side, "exhaust");
    db_new_id("bat", b.id);
    db_fixture_write_ok(job_battle, &b, "insert battle");
    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_unit_find(r, CMP_ID, UNIT_A, &units[0], NULL), ERR_OK);
    ck_assert_int_eq(units[0].matrix_quality, -3);
    ck_assert_int_eq(db_sides_list(r, CMP_ID, &sides, &n, NULL), ERR_OK);
    ck_assert_int_eq(sides[0].exhausted_turn, 2);
    free(sides);
    ck_assert_int_eq(db_battles_list(r, CMP_ID, &battles, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(battles[0].id, b.id);
    db_battles_free(battles, n);
    ck_assert_int_eq(db_fixture_query_int(r, "SELECT count(*) FROM "
                                             "battle_actions WHERE naturals "
                                             "= '[3,5]'"),
                     1);
    db_read_release(db_fixture_db, r);
}
END_TEST

START_TEST(test_upgrade_numbers_history)
{
    size_t want[N_V1_EVENTS], n_want, n, i;
    db_event *list, ev;
    db_roll *rolls;
    int u, order, limit;
    db_conn *r;

    make_v1();
    db_fixture_open();
    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_fixture_query_int(r, "SELECT count(*) FROM "
                                             "unit_events WHERE unit_seq "
                                             "IS NULL"),
                     0);
    for (u = 0; u < 2; u++) {
        n_want = expect(u, false, want);
        ck_assert_uint_eq(n_want, u == 0 ? 5 : 3);
        ck_assert_int_eq(db_events_list(r, unit_ids[u], &list, &n, NULL),
                         ERR_OK);
        ck_assert_uint_eq(n, n_want);
        for (i = 0; i < n; i++) {
            ck_assert_int_eq(list[i].unit_seq, (long long)i + 1);
            check_event(&list[i], want[i]);
        }
        db_events_free(list, n);
    }
    for (u = -1; u < 2; u++)
        for (order = 0; order < 2; order++)
            for (limit = 1; limit <= (int)N_V1_EVENTS + 1; limit++)
                check_pages(r, u, order == 1, limit);

    /* The combat's roll log came through whole, and by unit. */
    ck_assert_int_eq(db_rolls_list(r, COMBAT_ID, &rolls, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 4);
    for (i = 0; i < n; i++) {
        ck_assert_int_eq(rolls[i].seq, (int)i + 1);
        ck_assert_str_eq(rolls[i].unit_id, i % 2 ? UNIT_B : UNIT_A);
    }
    free(rolls);
    ck_assert_int_eq(db_rolls_of_unit(r, COMBAT_ID, UNIT_A, &rolls, &n, NULL),
                     ERR_OK);
    ck_assert_uint_eq(n, 2);
    ck_assert_int_eq(rolls[0].seq, 1);
    ck_assert_int_eq(rolls[0].natural, 4);
    ck_assert_int_eq(rolls[0].modified, 6);
    ck_assert_int_eq(rolls[1].seq, 3);
    ck_assert_str_eq(rolls[1].reason, "scrud.extra");
    free(rolls);
    db_read_release(db_fixture_db, r);

    /* A new event goes on from the old numbering. */
    memset(&ev, 0, sizeof ev);
    snprintf(ev.unit_id, sizeof ev.unit_id, "%s", UNIT_B);
    snprintf(ev.campaign_id, sizeof ev.campaign_id, "%s", CMP_ID);
    db_now(ev.at);
    snprintf(ev.kind, sizeof ev.kind, "resupply");
    ev.after = B1;
    db_fixture_write_ok(job_event, &ev, "insert event");
    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_events_list(r, UNIT_B, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 4);
    ck_assert_int_eq(list[3].unit_seq, 4);
    ck_assert_int_gt(list[3].seq, v1_seqs[N_V1_EVENTS - 1]);
    db_events_free(list, n);
    db_read_release(db_fixture_db, r);
}
END_TEST

/* _i: 0 from schema 1, 1 from schema 2, 2 from schema 3. */
START_TEST(test_reopen_after_upgrade_changes_nothing)
{
    char *before, *after;
    size_t i, line = 0;
    db_unit a;
    db_event *list;
    size_t n;
    db_conn *r;

    if (_i == 0)
        make_v1();
    else if (_i == 1)
        make_v2();
    else
        make_v3();
    db_fixture_open();
    db_close(db_fixture_db);
    db_fixture_db = NULL;
    before = db_fixture_snapshot();
    /* The snapshot holds what it must compare: the upgraded rows. */
    ck_assert_ptr_nonnull(strstr(before, "table unit_heads"));
    ck_assert_ptr_nonnull(strstr(before, "Quatre Bras"));
    ck_assert_ptr_nonnull(strstr(before, "routed"));
    ck_assert_ptr_nonnull(strstr(before, "table crts"));
    ck_assert_ptr_nonnull(strstr(before, "scs_out_of_supply"));
    ck_assert_ptr_nonnull(strstr(before, "table battle_actions"));
    ck_assert_ptr_nonnull(strstr(before, "matrix_quality"));

    db_fixture_open();
    ck_assert_int_eq(db_schema_version(db_fixture_db), db_n_migrations());
    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_unit_find(r, CMP_ID, UNIT_A, &a, NULL), ERR_OK);
    ck_assert_int_eq(a.edna, 8);
    ck_assert_int_eq(db_events_list(r, UNIT_A, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 5);
    ck_assert_int_eq(list[4].unit_seq, 5);
    db_events_free(list, n);
    db_read_release(db_fixture_db, r);
    db_close(db_fixture_db);
    db_fixture_db = NULL;
    after = db_fixture_snapshot();
    for (i = 0; before[i] != '\0' && before[i] == after[i]; i++)
        if (before[i] == '\n')
            line = i + 1;
    ck_assert_msg(before[i] == after[i],
                  "opening again changed the file from:\n%.200s\nto:\n%.200s",
                  before + line, after + line);
    free(before);
    free(after);
}
END_TEST

Suite *suite_migrations(void)
{
    Suite *s = suite_create("migrations");
    TCase *tc = tcase_create("upgrade");

    tcase_add_unchecked_fixture(tc, db_fixture_suite_make,
                                db_fixture_suite_remove);
    tcase_add_checked_fixture(tc, db_fixture_setup, db_fixture_teardown);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    tcase_add_test(tc, test_upgrade_keeps_campaign_and_units);
    tcase_add_test(tc, test_upgrade_numbers_history);
    tcase_add_test(tc, test_upgrade_from_2);
    tcase_add_test(tc, test_upgrade_from_3);
    tcase_add_loop_test(tc, test_reopen_after_upgrade_changes_nothing, 0, 3);
    return s;
}
