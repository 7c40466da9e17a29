/*
 * test_store.c: tests db/store.c and db/units.c, row by row through the
 * writer and back through pooled read connections, as a request would see them:
 * campaigns with every SCRUD and SCS option, sides, tokens, units (found by id
 * or name, listed with every filter, updated, with every system's state, the
 * SCS counter checked when read back), combats with their rolls, and unit
 * history events.  (A side's exhausted turn updated and a unit's Matrix
 * quality checked on reading: test_battles.c.)
 *
 * Every test gets a fresh database file with every migration
 * (db_fixture.h); a field that the store dropped or mixed up shows as a
 * difference from the row written.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <sqlite3.h>

#include "db.h"
#include "db_fixture.h"
#include "matrix.h"
#include "scrud.h"
#include "scs.h"
#include "suites.h"
#include "token_cache.h"

#define HEX64   DB_FIXTURE_HEX64
#define HEX64_B DB_FIXTURE_HEX64_B

/* ---- helpers ----------------------------------------------------------- */

/* Job wrappers: one store call each, the row as arg. */
static err_code job_event(db_conn *c, void *arg, err_info *e)
{
    return db_event_insert(c, arg, e);
}

typedef struct token_row {
    db_token t;
    const char *hash;
} token_row;

static err_code job_token(db_conn *c, void *arg, err_info *e)
{
    token_row *r = arg;

    return db_token_insert(c, &r->t, r->hash, "2026-01-01T00:00:00.000Z", e);
}

typedef struct combat_row {
    const db_combat *cb;
    db_roll *rolls;
    size_t n_rolls;
} combat_row;

static err_code job_combat(db_conn *c, void *arg, err_info *e)
{
    combat_row *r = arg;

    return db_combat_insert(c, r->cb, r->rolls, r->n_rolls, e);
}

/* ---- store round trips ------------------------------------------------- */

START_TEST(test_campaign_round_trip)
{
    db_campaign cmps[2], got;
    scrud_options def;
    scs_options scs_def;
    err_info e;
    db_conn *r;
    size_t i;

    db_fixture_new_campaign(&cmps[0], "");
    memset(cmps[0].name, 'x', DB_NAME_MAX - 1);    /* the longest name */
    memcpy(cmps[0].name, "\xc3\x89t\xc3\xa9 ", 6); /* "Été " */
    cmps[0].name[DB_NAME_MAX - 1] = '\0';
    cmps[0].scrud = (scrud_options){.cap_kind = SCRUD_CAP_FIXED,
                                    .cap = 9,
                                    .has_floor = false,
                                    .floor = 2,
                                    .extra_dice = SCRUD_EXTRA_HALF,
                                    .attrition = false,
                                    .max_penalty_per_combat = 2,
                                    .eliminate_below = -5,
                                    .defeats_per_elimination = 0};
    /* Every field differs from the default, so a dropped column shows. */
    scrud_options_default(&def);
    ck_assert_int_ne(cmps[0].scrud.cap_kind, def.cap_kind);
    ck_assert_int_ne(cmps[0].scrud.cap, def.cap);
    ck_assert_int_ne(cmps[0].scrud.has_floor, def.has_floor);
    ck_assert_int_ne(cmps[0].scrud.floor, def.floor);
    ck_assert_int_ne(cmps[0].scrud.extra_dice, def.extra_dice);
    ck_assert_int_ne(cmps[0].scrud.attrition, def.attrition);
    ck_assert_int_ne(cmps[0].scrud.max_penalty_per_combat,
                     def.max_penalty_per_combat);
    ck_assert_int_ne(cmps[0].scrud.eliminate_below, def.eliminate_below);
    ck_assert_int_ne(cmps[0].scrud.defeats_per_elimination,
                     def.defeats_per_elimination);
    cmps[0].scs.out_of_supply_attack = (scs_frac){1, 2};
    cmps[0].scs.out_of_supply_defense = (scs_frac){2, 3};
    scs_options_default(&scs_def);
    ck_assert_int_ne(scs_frac_cmp(cmps[0].scs.out_of_supply_attack,
                                  scs_def.out_of_supply_attack),
                     0);
    ck_assert_int_ne(scs_frac_cmp(cmps[0].scs.out_of_supply_defense,
                                  scs_def.out_of_supply_defense),
                     0);
    db_fixture_new_campaign(&cmps[1], "Tannenberg 1914");
    cmps[1].scs.out_of_supply_attack = (scs_frac){3, 1}; /* whole: "3" */
    cmps[1].scs.out_of_supply_defense = (scs_frac){1000000, 999999};
    cmps[1].scrud.cap_kind = SCRUD_CAP_NONE;
    cmps[1].scrud.floor = -3;
    cmps[1].scrud.extra_dice = SCRUD_EXTRA_IGNORE;
    cmps[1].scrud.max_penalty_per_combat = 0;
    cmps[1].scrud.eliminate_below = -100;
    cmps[1].scrud.defeats_per_elimination = 7;
    cmps[1].edna_start = 5;
    cmps[1].edna.dice = 3;
    cmps[1].edna.faces = 10;

    db_fixture_open();
    for (i = 0; i < 2; i++)
        db_fixture_write_ok(db_fixture_job_campaign, &cmps[i],
                            "insert campaign");
    r = db_read_acquire(db_fixture_db);
    for (i = 0; i < 2; i++) {
        const scrud_options *w = &cmps[i].scrud, *g = &got.scrud;
        ck_assert_int_eq(db_campaign_get(r, cmps[i].id, &got, NULL), ERR_OK);
        ck_assert_str_eq(got.id, cmps[i].id);
        ck_assert_str_eq(got.name, cmps[i].name);
        ck_assert_str_eq(got.created_at, cmps[i].created_at);
        ck_assert_int_eq(g->cap_kind, w->cap_kind);
        ck_assert_int_eq(g->cap, w->cap);
        ck_assert_int_eq(g->has_floor, w->has_floor);
        ck_assert_int_eq(g->floor, w->floor);
        ck_assert_int_eq(g->extra_dice, w->extra_dice);
        ck_assert_int_eq(g->attrition, w->attrition);
        ck_assert_int_eq(g->max_penalty_per_combat, w->max_penalty_per_combat);
        ck_assert_int_eq(g->eliminate_below, w->eliminate_below);
        ck_assert_int_eq(g->defeats_per_elimination,
                         w->defeats_per_elimination);
        ck_assert_int_eq(got.edna_start, cmps[i].edna_start);
        ck_assert_int_eq(got.edna.dice, cmps[i].edna.dice);
        ck_assert_int_eq(got.edna.faces, cmps[i].edna.faces);
        /* Exact: the same numerator and denominator, not a rounding. */
        ck_assert_int_eq(got.scs.out_of_supply_attack.num,
                         cmps[i].scs.out_of_supply_attack.num);
        ck_assert_int_eq(got.scs.out_of_supply_attack.den,
                         cmps[i].scs.out_of_supply_attack.den);
        ck_assert_int_eq(got.scs.out_of_supply_defense.num,
                         cmps[i].scs.out_of_supply_defense.num);
        ck_assert_int_eq(got.scs.out_of_supply_defense.den,
                         cmps[i].scs.out_of_supply_defense.den);
    }
    err_clear(&e);
    ck_assert_int_eq(db_campaign_get(r, "cmp_nope", &got, &e), ERR_NOT_FOUND);
    ck_assert_int_eq(e.code, ERR_NOT_FOUND);
    db_read_release(db_fixture_db, r);
}
END_TEST

/* The columns of a campaign's row that every write of them counts the
 * version itself (the ledger's save, commitments.c): migration 26's
 * trigger leaves them out. */
static bool counts_itself(const char *column)
{
    static const char *const own[] = {
        "version",   "ledger_length",   "ledger_head", "next_commitment",
        "next_seed", "next_created_at", NULL};
    size_t i;

    for (i = 0; own[i]; i++)
        if (strcmp(own[i], column) == 0)
            return true;
    return false;
}

/* A write of any other column of a campaign's row counts its version
 * once, by trigger (campaign_version_self), so that what a snapshot keeps
 * of the campaign is never given after it changed: every column the
 * table has, today's and any added later (one the trigger does not name
 * fails here).  A write of the columns that count it themselves, without
 * the version, is left to them: the trigger is not coded into those
 * writes at all, which is what saves the writer its program. */
START_TEST(test_campaign_writes_count_the_version)
{
    char sql[256], columns[64][64];
    db_campaign cmp;
    sqlite3 *raw;
    sqlite3_stmt *st;
    long long v = 0, now;
    size_t n = 0, i;

    db_fixture_open();
    db_fixture_add_campaign(&cmp, "Counted");
    ck_assert_int_eq(sqlite3_open(db_fixture_path, &raw), SQLITE_OK);
    ck_assert_int_eq(sqlite3_busy_timeout(raw, 5000), SQLITE_OK);
    ck_assert_int_eq(
        sqlite3_prepare_v2(raw, "PRAGMA table_info(campaigns)", -1, &st, NULL),
        SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW && n < 64)
        snprintf(columns[n++], sizeof columns[0], "%s",
                 (const char *)sqlite3_column_text(st, 1));
    sqlite3_finalize(st);
    ck_assert_uint_ge(n, 25);
    snprintf(sql, sizeof sql,
             "SELECT version FROM campaigns WHERE id = '%.64s'", cmp.id);
    v = db_fixture_lite_query_int(raw, sql);
    for (i = 0; i < n; i++) {
        snprintf(
            sql, sizeof sql,
            "UPDATE campaigns SET \"%.63s\" = \"%.63s\" WHERE id = '%.64s'",
            columns[i], columns[i], cmp.id);
        ck_assert_msg(sqlite3_exec(raw, sql, NULL, NULL, NULL) == SQLITE_OK,
                      "%s: %s", sql, sqlite3_errmsg(raw));
        snprintf(sql, sizeof sql,
                 "SELECT version FROM campaigns WHERE id = '%.64s'", cmp.id);
        now = db_fixture_lite_query_int(raw, sql);
        ck_assert_msg(now == (counts_itself(columns[i]) ? v : v + 1),
                      "a write of %s alone: version %lld after %lld",
                      columns[i], now, v);
        v = now;
    }
    sqlite3_close(raw);
}
END_TEST

/* Units of a job, updated one after the other; first (when
 * is_counted_first) the campaign's next commitment drawn, which counts its
 * version, as a combat's ledger save does before its units. */
typedef struct units_job {
    db_unit *units;
    size_t n;
    bool is_counted_first; /* a commitment drawn before the units */
    bool is_failed;        /* refused after its writes */
} units_job;

static err_code job_units(db_conn *c, void *arg, err_info *e)
{
    units_job *j = arg;
    db_commitment k;
    err_code rc;
    size_t i;

    if (j->is_counted_first &&
        (rc = db_commitment_new(c, j->units[0].campaign_id, &k, e)))
        return rc;
    for (i = 0; i < j->n; i++)
        if ((rc = db_unit_update(c, &j->units[i], e)))
            return rc;
    return j->is_failed ? err_set(e, ERR_RULE, NULL, "refused") : ERR_OK;
}

static long long version_of(const char *campaign_id)
{
    db_conn *r = db_read_acquire(db_fixture_db);
    long long v = -1;

    ck_assert_int_eq(db_campaign_version(r, campaign_id, &v, NULL), ERR_OK);
    db_read_release(db_fixture_db, r);
    return v;
}

/* A write of a unit counts its campaign's version once a job, whatever
 * the number of units it writes (the code counts it since migration 26,
 * no trigger): a job alone, several units in one job, a job whose
 * commitment was counted first (as a combat's ledger save is), and a job
 * refused (nothing counted), then the next (counted again). */
START_TEST(test_unit_writes_count_the_version_once)
{
    db_campaign c, other;
    db_side s, t;
    db_unit u[3];
    units_job j;
    long long v, vo;
    err_info e;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Counted");
    db_fixture_add_campaign(&other, "Other");
    db_fixture_add_side(&s, c.id, NULL, "Blue");
    db_fixture_add_side(&t, other.id, NULL, "Red");
    db_fixture_new_unit(&u[0], &s, NULL, "A");
    db_fixture_new_unit(&u[1], &s, NULL, "B");
    db_fixture_new_unit(&u[2], &t, NULL, "C");
    db_fixture_write_ok(db_fixture_job_unit, &u[0], "insert A");
    db_fixture_write_ok(db_fixture_job_unit, &u[1], "insert B");
    db_fixture_write_ok(db_fixture_job_unit, &u[2], "insert C");
    memset(&j, 0, sizeof j);
    j.units = u;
    j.n = 1;
    v = version_of(c.id);
    u[0].scrud.fatigue_penalty = 1;
    db_fixture_write_ok(job_units, &j, "one unit");
    ck_assert_int_eq(version_of(c.id), v + 1);
    j.n = 2;
    u[0].scrud.fatigue_penalty = 2;
    u[1].scrud.fatigue_penalty = 2;
    db_fixture_write_ok(job_units, &j, "two units");
    ck_assert_int_eq(version_of(c.id), v + 2);
    j.is_counted_first = true;
    db_fixture_write_ok(job_units, &j, "a commitment, then two units");
    ck_assert_int_eq(version_of(c.id), v + 3);
    /* Refused: nothing counted; the next job counts again. */
    j.is_counted_first = false;
    j.is_failed = true;
    err_clear(&e);
    ck_assert_int_eq(db_fixture_write_rc(job_units, &j, &e), ERR_RULE);
    ck_assert_int_eq(version_of(c.id), v + 3);
    j.is_failed = false;
    db_fixture_write_ok(job_units, &j, "two units again");
    ck_assert_int_eq(version_of(c.id), v + 4);
    /* Units of two campaigns in one job: each campaign counted. */
    v = version_of(c.id);
    vo = version_of(other.id);
    u[1] = u[2];
    u[1].scrud.fatigue_penalty = 5;
    db_fixture_write_ok(job_units, &j, "units of two campaigns");
    ck_assert_int_eq(version_of(c.id), v + 1);
    ck_assert_int_eq(version_of(other.id), vo + 1);
}
END_TEST

/* Multipliers the store refuses to write, and stored text it refuses to
 * read back. */
START_TEST(test_campaign_scs_options_checked)
{
    static const scs_frac bad_writes[] = {{0, 0}, {0, 1}, {-1, 2}, {1, 0}};
    static const char *const bad_rows[] = {"0", "-1", "1/0", "x", "", "1/2/3"};
    db_campaign c, got;
    char sql[160];
    err_info e;
    size_t i;
    db_conn *r;

    db_fixture_open();
    for (i = 0; i < sizeof bad_writes / sizeof bad_writes[0]; i++) {
        db_fixture_new_campaign(&c, "Refused");
        if (i % 2)
            c.scs.out_of_supply_attack = bad_writes[i];
        else
            c.scs.out_of_supply_defense = bad_writes[i];
        ck_assert_int_eq(db_fixture_write_rc(db_fixture_job_campaign, &c, &e),
                         ERR_INTERNAL);
        ck_assert_int_eq(e.code, ERR_INTERNAL);
    }
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT count(*) FROM campaigns"),
                     0);

    db_fixture_add_campaign(&c, "Tampered");
    for (i = 0; i < sizeof bad_rows / sizeof bad_rows[0] * 2; i++) {
        snprintf(sql, sizeof sql,
                 "UPDATE campaigns SET scs_oos_attack = '%s', "
                 "scs_oos_defense = '%s' WHERE id = '%s'",
                 i % 2 ? bad_rows[i / 2] : "1", i % 2 ? "1" : bad_rows[i / 2],
                 c.id);
        db_fixture_raw_exec(sql);
        r = db_read_acquire(db_fixture_db);
        err_clear(&e);
        ck_assert_msg(db_campaign_get(r, c.id, &got, &e) == ERR_DB,
                      "\"%s\" was read", bad_rows[i / 2]);
        db_read_release(db_fixture_db, r);
    }
    /* And as written, it reads again. */
    db_fixture_raw_exec("UPDATE campaigns SET scs_oos_attack = '3/2', "
                        "scs_oos_defense = '1'");
    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_campaign_get(r, c.id, &got, NULL), ERR_OK);
    ck_assert_int_eq(got.scs.out_of_supply_attack.num, 3);
    ck_assert_int_eq(got.scs.out_of_supply_attack.den, 2);
    ck_assert_int_eq(got.scs.out_of_supply_defense.num, 1);
    ck_assert_int_eq(got.scs.out_of_supply_defense.den, 1);
    db_read_release(db_fixture_db, r);
}
END_TEST

START_TEST(test_sides)
{
    /* Creation order differs from id and name order; one side is named
     * like another side's id. */
    static const char *const ids[] = {"sd_3", "sd_1", "sd_2"};
    static const char *const names[] = {"North", "South", "sd_1"};
    db_campaign c1, c2, c3;
    db_side sides[3], other, dup, got, *list;
    size_t i, n;
    err_info e;
    db_conn *r;

    db_fixture_open();
    db_fixture_add_campaign(&c1, "One");
    db_fixture_add_campaign(&c2, "Two");
    db_fixture_add_campaign(&c3, "Empty");
    db_fixture_add_side(&sides[0], c1.id, ids[0], names[0]);
    /* The same name in another campaign. */
    db_fixture_add_side(&other, c2.id, "sd_9", "North");
    for (i = 1; i < 3; i++) {
        db_fixture_new_side(&sides[i], c1.id, ids[i], names[i]);
        sides[i].exhausted_turn = (int)i * 4; /* Matrix */
        db_fixture_write_ok(db_fixture_job_side, &sides[i], "insert side");
    }
    db_fixture_new_side(&dup, c1.id, "sd_4", "North");
    ck_assert_int_eq(db_fixture_write_rc(db_fixture_job_side, &dup, &e),
                     ERR_CONFLICT);

    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_sides_list(r, c1.id, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 3);
    for (i = 0; i < n; i++) {
        ck_assert_str_eq(list[i].id, ids[i]);
        ck_assert_str_eq(list[i].name, names[i]);
        ck_assert_str_eq(list[i].campaign_id, c1.id);
        ck_assert_str_eq(list[i].created_at, sides[i].created_at);
        ck_assert_int_eq(list[i].exhausted_turn, sides[i].exhausted_turn);
    }
    free(list);
    ck_assert_int_eq(db_sides_list(r, c3.id, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 0);
    free(list);

    ck_assert_int_eq(db_side_find(r, c1.id, "sd_1", &got, NULL), ERR_OK);
    ck_assert_str_eq(got.name, "South"); /* the id wins over the name */
    ck_assert_int_eq(db_side_find(r, c1.id, "sd_2", &got, NULL), ERR_OK);
    ck_assert_str_eq(got.name, "sd_1");
    ck_assert_int_eq(got.exhausted_turn, 8);
    ck_assert_int_eq(db_side_find(r, c1.id, "North", &got, NULL), ERR_OK);
    ck_assert_str_eq(got.id, "sd_3");
    ck_assert_str_eq(got.campaign_id, c1.id);
    ck_assert_int_eq(db_side_find(r, c2.id, "North", &got, NULL), ERR_OK);
    ck_assert_str_eq(got.id, "sd_9");
    err_clear(&e);
    ck_assert_int_eq(db_side_find(r, c1.id, "sd_9", &got, &e), ERR_NOT_FOUND);
    ck_assert_int_eq(e.code, ERR_NOT_FOUND);
    ck_assert_int_eq(db_side_find(r, c1.id, "West", &got, NULL), ERR_NOT_FOUND);
    db_read_release(db_fixture_db, r);
}
END_TEST

START_TEST(test_tokens)
{
    db_campaign c;
    db_side s;
    token_row umpire, player, dup;
    db_token got;
    err_info e;
    db_conn *r;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Tokens");
    db_fixture_add_side(&s, c.id, NULL, "Blue");
    memset(&umpire, 0, sizeof umpire);
    db_new_id("tok", umpire.t.id);
    snprintf(umpire.t.campaign_id, sizeof umpire.t.campaign_id, "%s", c.id);
    umpire.t.is_umpire = true;
    umpire.hash = HEX64;
    player = umpire;
    db_new_id("tok", player.t.id);
    snprintf(player.t.side_id, sizeof player.t.side_id, "%s", s.id);
    player.t.is_umpire = false;
    player.hash = HEX64_B;
    db_fixture_write_ok(job_token, &umpire, "insert umpire token");
    db_fixture_write_ok(job_token, &player, "insert player token");
    dup = player;
    db_new_id("tok", dup.t.id);
    ck_assert_int_eq(db_fixture_write_rc(job_token, &dup, &e), ERR_CONFLICT);

    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_token_find(r, HEX64, &got, NULL), ERR_OK);
    ck_assert_str_eq(got.id, umpire.t.id);
    ck_assert_str_eq(got.campaign_id, c.id);
    ck_assert_str_eq(got.side_id, "");
    ck_assert(got.is_umpire);
    ck_assert_int_eq(db_token_find(r, player.hash, &got, NULL), ERR_OK);
    ck_assert_str_eq(got.id, player.t.id);
    ck_assert_str_eq(got.side_id, s.id);
    ck_assert(!got.is_umpire);
    err_clear(&e);
    ck_assert_int_eq(db_token_find(r, "ee" HEX64, &got, &e), ERR_NOT_FOUND);
    ck_assert_int_eq(e.code, ERR_NOT_FOUND);
    db_read_release(db_fixture_db, r);
}
END_TEST

/* The umpire token of campaign_id, its hash HEX64, inserted into *r. */
static void add_umpire_token(token_row *r, const char *campaign_id)
{
    memset(r, 0, sizeof *r);
    db_new_id("tok", r->t.id);
    snprintf(r->t.campaign_id, sizeof r->t.campaign_id, "%s", campaign_id);
    r->t.is_umpire = true;
    r->hash = HEX64;
    db_fixture_write_ok(job_token, r, "insert umpire token");
}

/* The token's lookup on a reader, and whether the cache answered it. */
static err_code find_kept(const char *hash, db_token *got, bool *was_kept)
{
    token_cache *k = db_token_cache(db_fixture_db);
    long long hits0, hits, misses;
    db_conn *r = db_read_acquire(db_fixture_db);
    err_code rc;

    token_cache_stats(k, &hits0, &misses);
    rc = db_token_find(r, hash, got, NULL);
    db_read_release(db_fixture_db, r);
    token_cache_stats(k, &hits, &misses);
    *was_kept = hits == hits0 + 1;
    return rc;
}

/* A reissue in a writer job, which can fail after it (is_failing), and
 * looks the old token up on a reader before its batch ends. */
typedef struct reissue_row {
    db_token t;
    const char *hash, *old_hash;
    bool is_failing;
    err_code old_rc;   /* the old token's lookup meanwhile */
    bool was_old_kept; /* and whether the cache answered it */
} reissue_row;

static err_code job_reissue(db_conn *c, void *arg, err_info *e)
{
    reissue_row *r = arg;
    db_token got;
    err_code rc;

    if ((rc = db_token_reissue(c, &r->t, r->hash, "2026-01-02T00:00:00.000Z",
                               e)))
        return rc;
    r->old_rc = find_kept(r->old_hash, &got, &r->was_old_kept);
    if (r->is_failing)
        return err_set(e, ERR_CONFLICT, NULL, "failed after the reissue");
    return ERR_OK;
}

/* Rows of tokens whose hash is hash and that are live. */
static int n_live(const char *hash)
{
    char sql[160];

    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM tokens WHERE hash = '%s' AND revoked_at IS "
             "NULL",
             hash);
    return db_fixture_raw_query_int(sql);
}

/* Live tokens are kept by the readers; a reissue's batch, once it has
 * ended, leaves none of them kept: not even one read live (and kept) on a
 * reader while the reissue was written; a reissue rolled back leaves the
 * old token live. */
START_TEST(test_tokens_kept_until_reissued)
{
    db_campaign c;
    token_row umpire;
    reissue_row again, failed;
    db_token got;
    bool was_kept;
    err_info e;

    db_fixture_open();
    ck_assert_ptr_nonnull(db_token_cache(db_fixture_db));
    db_fixture_add_campaign(&c, "Kept");
    add_umpire_token(&umpire, c.id);
    /* Read, then kept: the same row. */
    ck_assert_int_eq(find_kept(HEX64, &got, &was_kept), ERR_OK);
    ck_assert(!was_kept);
    ck_assert_int_eq(find_kept(HEX64, &got, &was_kept), ERR_OK);
    ck_assert(was_kept);
    ck_assert_str_eq(got.id, umpire.t.id);
    ck_assert_str_eq(got.campaign_id, c.id);
    ck_assert_str_eq(got.side_id, "");
    ck_assert(got.is_umpire);
    /* A reissue that fails after it: rolled back, the old token stays
     * live, and was still found (kept) meanwhile. */
    memset(&failed, 0, sizeof failed);
    failed.t = umpire.t;
    db_new_id("tok", failed.t.id);
    failed.hash = HEX64_B;
    failed.old_hash = HEX64;
    failed.is_failing = true;
    ck_assert_int_eq(db_fixture_write_rc(job_reissue, &failed, &e),
                     ERR_CONFLICT);
    ck_assert_int_eq(failed.old_rc, ERR_OK);
    ck_assert(failed.was_old_kept);
    ck_assert_int_eq(n_live(HEX64), 1);
    ck_assert_int_eq(n_live(HEX64_B), 0);
    /* A reissue: the old token, read live from the store (the batch that
     * failed forgot it) and kept while the reissue was written, is
     * refused once the batch has ended. */
    again = failed;
    again.is_failing = false;
    again.old_rc = ERR_DB;
    again.was_old_kept = true;
    db_fixture_write_ok(job_reissue, &again, "reissue the umpire token");
    ck_assert_int_eq(again.old_rc, ERR_OK);
    ck_assert(!again.was_old_kept);
    ck_assert_int_eq(find_kept(HEX64, &got, &was_kept), ERR_NOT_FOUND);
    ck_assert(!was_kept);
    ck_assert_int_eq(find_kept(HEX64_B, &got, &was_kept), ERR_OK);
    ck_assert(!was_kept);
    ck_assert_str_eq(got.id, again.t.id);
    ck_assert_int_eq(find_kept(HEX64_B, &got, &was_kept), ERR_OK);
    ck_assert(was_kept);
    ck_assert_int_eq(find_kept(HEX64, &got, &was_kept), ERR_NOT_FOUND);
}
END_TEST

/* A token found in an older snapshot (live there, reissued since) is not
 * kept: a reader outside it refuses the token. */
START_TEST(test_token_of_an_old_snapshot_not_kept)
{
    db_campaign c, seen;
    token_row umpire;
    reissue_row again;
    db_token got;
    bool was_kept;
    db_conn *snap;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Snapshot");
    add_umpire_token(&umpire, c.id);
    ck_assert_int_eq(db_read_begin(db_fixture_db, &snap, NULL), ERR_OK);
    ck_assert_int_eq(db_campaign_get(snap, c.id, &seen, NULL), ERR_OK);
    memset(&again, 0, sizeof again);
    again.t = umpire.t;
    db_new_id("tok", again.t.id);
    again.hash = HEX64_B;
    again.old_hash = HEX64_B; /* not the old one: nothing kept meanwhile */
    db_fixture_write_ok(job_reissue, &again, "reissue the umpire token");
    /* The snapshot still sees the old token live, as a snapshot must. */
    ck_assert_int_eq(db_token_find(snap, HEX64, &got, NULL), ERR_OK);
    ck_assert_str_eq(got.id, umpire.t.id);
    ck_assert_int_eq(db_read_end(db_fixture_db, snap, NULL), ERR_OK);
    ck_assert_int_eq(find_kept(HEX64, &got, &was_kept), ERR_NOT_FOUND);
    ck_assert(!was_kept);
}
END_TEST

START_TEST(test_unit_round_trip_and_update)
{
    db_campaign c;
    db_side a, b;
    db_unit u, twin, one_sided, got, ghost;
    char raw[128];
    err_info e;
    db_conn *r;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Units");
    db_fixture_add_side(&a, c.id, NULL, "Blue");
    db_fixture_add_side(&b, c.id, NULL, "Red");
    db_fixture_new_unit(&u, &a, NULL, "1st Foot");
    u.scrud.quality = 2;
    u.scrud.faces = 10;
    u.scrud.defeat_penalty = 1;
    u.scrud.fatigue_penalty = 3;
    u.has_scrud = true;
    u.has_edna = true;
    u.edna = 5;
    u.edna_start = 7;
    u.has_scs = true;
    u.has_matrix = true;
    u.matrix_quality = -2;
    /* Every field away from its default; the reduced side prints no
     * attack, so its attack value is not stored. */
    u.scs = (scs_counter){.full = {true, 12, 7, 8},
                          .reduced = {false, 4, 3, 6},
                          .has_reduced = true,
                          .steps = 4,
                          .steps_lost = 1,
                          .is_exploit = true,
                          .is_out_of_supply = true};
    db_fixture_write_ok(db_fixture_job_unit, &u, "insert unit");
    db_fixture_raw_scs(u.id, raw, sizeof raw);
    ck_assert_str_eq(raw, "1|12|7|8|1|NULL|3|6|4|1|1|1");
    /* Named like the first one's id; carries no SCS, whatever its counter
     * says: the defaults are stored. */
    db_fixture_new_unit(&twin, &b, NULL, u.id);
    twin.has_edna = true;
    twin.edna = 8;
    twin.edna_start = 8;
    twin.scs = u.scs;
    twin.matrix_quality = 3; /* not carried: stored as given */
    db_fixture_write_ok(db_fixture_job_unit, &twin, "insert twin");
    db_fixture_raw_scs(twin.id, raw, sizeof raw);
    ck_assert_str_eq(raw, "0|NULL|0|0|0|NULL|0|0|0|0|0|0");
    /* A one-sided counter: the reduced side is not stored. */
    db_fixture_new_unit(&one_sided, &a, NULL, "Barrage");
    one_sided.has_scs = true;
    one_sided.scs = (scs_counter){.full = {false, 0, 1, 0},
                                  .reduced = {true, 5, 5, 5},
                                  .has_reduced = false,
                                  .steps = 1};
    db_fixture_write_ok(db_fixture_job_unit, &one_sided, "insert one-sided");
    db_fixture_raw_scs(one_sided.id, raw, sizeof raw);
    ck_assert_str_eq(raw, "1|NULL|1|0|0|NULL|0|0|1|0|0|0");

    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_unit_find(r, c.id, u.id, &got, NULL), ERR_OK);
    db_fixture_check_unit(&got, &u,
                          "Blue"); /* the id wins over the twin's name */
    ck_assert(got.scs.full.has_attack && !got.scs.reduced.has_attack);
    ck_assert_int_eq(got.scs.reduced.attack, 0);
    ck_assert_int_eq(db_unit_find(r, c.id, "1st Foot", &got, NULL), ERR_OK);
    db_fixture_check_unit(&got, &u, "Blue");
    ck_assert_int_eq(db_unit_find(r, c.id, twin.id, &got, NULL), ERR_OK);
    db_fixture_check_unit(&got, &twin, "Red");
    ck_assert(!got.has_scs && got.scs.steps == 0 && got.scs.full.defense == 0);
    ck_assert_int_eq(db_unit_find(r, c.id, "Barrage", &got, NULL), ERR_OK);
    db_fixture_check_unit(&got, &one_sided, "Blue");
    ck_assert(!got.scs.full.has_attack && !got.scs.has_reduced);
    db_read_release(db_fixture_db, r);

    snprintf(u.name, sizeof u.name, "Old Guard");
    snprintf(u.side_id, sizeof u.side_id, "%s", b.id);
    u.is_eliminated = true;
    snprintf(u.eliminated_reason, sizeof u.eliminated_reason, "three_defeats");
    db_new_id("cmb", u.eliminated_by);
    u.scrud.quality = -1;
    u.scrud.faces = 12;
    u.scrud.defeat_penalty = 4;
    u.scrud.fatigue_penalty = 0;
    u.has_scrud = false;
    u.edna = 0;
    u.matrix_quality = MATRIX_QUALITY_MAX;
    /* Every SCS field changed: the full side loses its attack, the
     * reduced side gains one, the most steps, all of them lost. */
    u.scs = (scs_counter){.full = {false, 0, 2, 1},
                          .reduced = {true, 9, 5, SCS_MAX_PRINTED},
                          .has_reduced = true,
                          .steps = SCS_MAX_STEPS,
                          .steps_lost = SCS_MAX_STEPS};
    db_fixture_write_ok(db_fixture_job_unit_update, &u, "update unit");
    ghost = u;
    db_new_id("un", ghost.id);
    ck_assert_int_eq(
        db_fixture_write_rc(db_fixture_job_unit_update, &ghost, &e),
        ERR_NOT_FOUND);
    /* The twin takes up SCS and Matrix; the one-sided counter drops SCS. */
    twin.has_scs = true;
    twin.has_matrix = true;
    twin.scs.steps_lost = 0;
    db_fixture_write_ok(db_fixture_job_unit_update, &twin, "update twin");
    one_sided.has_scs = false;
    db_fixture_write_ok(db_fixture_job_unit_update, &one_sided,
                        "update one-sided");
    db_fixture_raw_scs(one_sided.id, raw, sizeof raw);
    ck_assert_str_eq(raw, "0|NULL|0|0|0|NULL|0|0|0|0|0|0");

    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_unit_find(r, c.id, "Old Guard", &got, NULL), ERR_OK);
    db_fixture_check_unit(&got, &u, "Red");
    ck_assert(!got.scs.full.has_attack && got.scs.reduced.has_attack);
    ck_assert_int_eq(db_unit_find(r, c.id, "1st Foot", &got, NULL),
                     ERR_NOT_FOUND);
    ck_assert_int_eq(db_unit_find(r, c.id, twin.id, &got, NULL), ERR_OK);
    db_fixture_check_unit(&got, &twin, "Red");
    ck_assert(got.has_scs && got.scs.is_exploit && got.has_matrix);
    ck_assert_int_eq(db_unit_find(r, c.id, one_sided.id, &got, NULL), ERR_OK);
    db_fixture_check_unit(&got, &one_sided, "Blue");
    db_read_release(db_fixture_db, r);
}
END_TEST

/* Counters as rows: db_unit_find reads the good ones and refuses the
 * impossible ones (ERR_DB); only a unit carrying SCS is checked. */
static const struct {
    const char *what;
    bool has_scs;
    scs_counter k;
    bool is_ok;
} scs_rows[] = {
    {"smallest", true, {.steps = 1}, true},
    {"largest",
     true,
     {{true, SCS_MAX_PRINTED, SCS_MAX_PRINTED, SCS_MAX_PRINTED},
      {true, SCS_MAX_PRINTED, SCS_MAX_PRINTED, SCS_MAX_PRINTED},
      true,
      SCS_MAX_STEPS,
      SCS_MAX_STEPS,
      true,
      true},
     true},
    {"no steps", true, {.steps = 0}, false},
    {"too many steps", true, {.steps = SCS_MAX_STEPS + 1}, false},
    {"negative steps lost", true, {.steps = 2, .steps_lost = -1}, false},
    {"more lost than steps", true, {.steps = 2, .steps_lost = 3}, false},
    {"attack over",
     true,
     {{true, SCS_MAX_PRINTED + 1, 0, 0}, .steps = 1},
     false},
    {"attack under", true, {{true, -1, 0, 0}, .steps = 1}, false},
    {"defense over",
     true,
     {{false, 0, SCS_MAX_PRINTED + 1, 0}, .steps = 1},
     false},
    {"movement under", true, {{false, 0, 0, -1}, .steps = 1}, false},
    {"reduced attack over",
     true,
     {.reduced = {true, SCS_MAX_PRINTED + 1, 0, 0},
      .has_reduced = true,
      .steps = 2},
     false},
    {"reduced defense under",
     true,
     {.reduced = {false, 0, -1, 0}, .has_reduced = true, .steps = 2},
     false},
    {"reduced movement over",
     true,
     {.reduced = {false, 0, 0, SCS_MAX_PRINTED + 1},
      .has_reduced = true,
      .steps = 2},
     false},
    /* Not stored, so not checked. */
    {"no reduced side",
     true,
     {.reduced = {true, -5, -5, -5}, .has_reduced = false, .steps = 1},
     true},
    {"no SCS", false, {{true, -1, -1, -1}, .steps = -3, .steps_lost = 9}, true},
};
#define N_SCS_ROWS (sizeof scs_rows / sizeof scs_rows[0])

START_TEST(test_unit_scs_values_checked)
{
    db_campaign c;
    db_side s;
    db_unit u, got, *list;
    char name[32];
    err_info e;
    size_t i, n;
    db_conn *r;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Checked");
    db_fixture_add_side(&s, c.id, NULL, "Blue");
    for (i = 0; i < N_SCS_ROWS; i++) {
        snprintf(name, sizeof name, "unit %zu", i);
        db_fixture_new_unit(&u, &s, NULL, name);
        u.has_scs = scs_rows[i].has_scs;
        u.scs = scs_rows[i].k;
        db_fixture_write_ok(db_fixture_job_unit, &u, scs_rows[i].what);
    }
    r = db_read_acquire(db_fixture_db);
    for (i = 0; i < N_SCS_ROWS; i++) {
        snprintf(name, sizeof name, "unit %zu", i);
        err_clear(&e);
        ck_assert_msg(db_unit_find(r, c.id, name, &got, &e) ==
                          (scs_rows[i].is_ok ? ERR_OK : ERR_DB),
                      "%s: %s", scs_rows[i].what, e.message);
    }
    /* The list reads every row as it is (it feeds no combat). */
    ck_assert_int_eq(db_units_list(r, c.id, NULL, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, N_SCS_ROWS);
    free(list);
    db_read_release(db_fixture_db, r);
}
END_TEST

/* The systems a unit carries, as bits, and their filter names. */
enum { SYS_SCRUD = 1, SYS_EDNA = 2, SYS_SCS = 4, SYS_MATRIX = 8 };
static const char *const system_names[] = {NULL, "scrud", "edna", "scs",
                                           "matrix"};
#define N_SYSTEM_NAMES (sizeof system_names / sizeof system_names[0])

/* The units of test_units_list, in creation order; ids run backwards. */
static const struct {
    const char *id, *name;
    int side;
    bool is_eliminated;
    unsigned systems;
} unit_specs[] = {
    {"un_f", "Panzer", 1, false, SYS_SCS | SYS_MATRIX},
    {"un_e", "1st Foot", 0, false, SYS_SCRUD | SYS_EDNA},
    {"un_d", "2nd Foot", 1, true, SYS_SCRUD | SYS_SCS},
    {"un_c", "Horse", 0, true, SYS_SCS | SYS_EDNA | SYS_MATRIX},
    {"un_b", "Guns", 1, false, 0},
    {"un_a", "Militia", 0, false, SYS_SCRUD | SYS_MATRIX},
};
#define N_UNIT_SPECS (sizeof unit_specs / sizeof unit_specs[0])

START_TEST(test_units_list)
{
    db_campaign c, c2;
    db_side sides[2], s2;
    db_unit u, *list;
    size_t i, n, k, want, sys;
    int side, elim, count;
    db_conn *r;

    db_fixture_open();
    db_fixture_add_campaign(&c, "List");
    db_fixture_add_campaign(&c2, "Elsewhere");
    db_fixture_add_side(&sides[0], c.id, NULL, "Blue");
    db_fixture_add_side(&sides[1], c.id, NULL, "Red");
    db_fixture_add_side(&s2, c2.id, NULL, "Blue");
    for (i = 0; i < N_UNIT_SPECS; i++) {
        db_fixture_new_unit(&u, &sides[unit_specs[i].side], unit_specs[i].id,
                            unit_specs[i].name);
        u.is_eliminated = unit_specs[i].is_eliminated;
        if (u.is_eliminated)
            snprintf(u.eliminated_reason, sizeof u.eliminated_reason,
                     "threshold");
        u.has_scrud = (unit_specs[i].systems & SYS_SCRUD) != 0;
        u.has_edna = (unit_specs[i].systems & SYS_EDNA) != 0;
        u.edna = u.edna_start = u.has_edna ? 8 : 0;
        u.has_scs = (unit_specs[i].systems & SYS_SCS) != 0;
        u.scs.steps = u.has_scs ? 2 : 0;
        u.has_matrix = (unit_specs[i].systems & SYS_MATRIX) != 0;
        db_fixture_write_ok(db_fixture_job_unit, &u, "insert unit");
    }
    db_fixture_new_unit(&u, &s2, NULL, "Horse"); /* another campaign's */
    u.has_scs = true;
    u.scs.steps = 1;
    db_fixture_write_ok(db_fixture_job_unit, &u, "insert other unit");

    r = db_read_acquire(db_fixture_db);
    /* Every filter against the reference: the specs, filtered, in order.
     * System i of system_names is bit i - 1. */
    for (side = -1; side < 2; side++)
        for (elim = -1; elim <= 1; elim++)
            for (sys = 0; sys < N_SYSTEM_NAMES; sys++) {
                const char *side_id = side < 0 ? NULL : sides[side].id;
                const char *what = sys > 0 ? system_names[sys] : "any";
                ck_assert_int_eq(
                    db_units_list(
                        r, c.id,
                        &(db_unit_filter){side_id, system_names[sys], elim, -1},
                        &list, &n, NULL),
                    ERR_OK);
                for (i = 0, k = 0, want = 0; i < N_UNIT_SPECS; i++) {
                    if ((side >= 0 && unit_specs[i].side != side) ||
                        (elim >= 0 &&
                         unit_specs[i].is_eliminated != (elim == 1)) ||
                        (sys > 0 &&
                         !(unit_specs[i].systems & (1u << (sys - 1)))))
                        continue;
                    want++;
                    ck_assert_msg(k < n, "side %d elim %d %s: %s missing", side,
                                  elim, what, unit_specs[i].name);
                    ck_assert_str_eq(list[k].id, unit_specs[i].id);
                    ck_assert_str_eq(list[k].name, unit_specs[i].name);
                    ck_assert_str_eq(list[k].side_name,
                                     sides[unit_specs[i].side].name);
                    ck_assert_int_eq(list[k].is_eliminated,
                                     unit_specs[i].is_eliminated);
                    ck_assert_int_eq(list[k].has_scs,
                                     (unit_specs[i].systems & SYS_SCS) != 0);
                    ck_assert_int_eq(list[k].scs.steps,
                                     list[k].has_scs ? 2 : 0);
                    ck_assert_int_eq(list[k].has_matrix,
                                     (unit_specs[i].systems & SYS_MATRIX) != 0);
                    k++;
                }
                ck_assert_msg(n == want,
                              "side %d elim %d %s: %zu units, want %zu", side,
                              elim, what, n, want);
                free(list);
            }
    ck_assert_int_eq(db_units_count(r, c.id, &count, NULL), ERR_OK);
    ck_assert_int_eq(count, (int)N_UNIT_SPECS);
    ck_assert_int_eq(db_units_count(r, c2.id, &count, NULL), ERR_OK);
    ck_assert_int_eq(count, 1);
    db_read_release(db_fixture_db, r);
}
END_TEST

/* The query plan of every statement kept on c that reads "FROM units u":
 * none sorts through a temporary b-tree, and how many use the index
 * named (*n_using). */
static void check_unit_plans(db_conn *c, const char *index, int *n_using)
{
    sqlite3_stmt *s = NULL, *plan;
    char sql[2048];

    *n_using = 0;
    while ((s = sqlite3_next_stmt(DB_LITE(c), s)) != NULL) {
        if (strstr(sqlite3_sql(s), "FROM units u ") == NULL)
            continue;
        snprintf(sql, sizeof sql, "EXPLAIN QUERY PLAN %s", sqlite3_sql(s));
        ck_assert_int_eq(sqlite3_prepare_v2(DB_LITE(c), sql, -1, &plan, NULL),
                         SQLITE_OK);
        while (sqlite3_step(plan) == SQLITE_ROW) {
            const char *detail = (const char *)sqlite3_column_text(plan, 3);
            ck_assert_msg(strstr(detail, "TEMP B-TREE") == NULL, "%s: %s",
                          sqlite3_sql(s), detail);
            if (strstr(detail, index))
                (*n_using)++;
        }
        sqlite3_finalize(plan);
    }
}

/* Regression: finding a unit by id or name sorted its candidates through
 * a temporary b-tree, and a campaign's list of units sorted them by
 * rowid; migration 11's index units_by_campaign makes the list (and its
 * pages, either way) a range. */
START_TEST(test_units_sort_nothing)
{
    db_campaign c;
    db_side s;
    db_unit u, got, *list;
    size_t i, n;
    int n_using;
    db_conn *r;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Plans");
    db_fixture_add_side(&s, c.id, NULL, "Blue");
    for (i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "unit %zu", i);
        db_fixture_new_unit(&u, &s, NULL, name);
        u.has_scrud = true;
        db_fixture_write_ok(db_fixture_job_unit, &u, "insert unit");
    }
    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_unit_find(r, c.id, u.id, &got, NULL), ERR_OK);
    ck_assert_int_eq(db_unit_find(r, c.id, "unit 0", &got, NULL), ERR_OK);
    ck_assert_int_eq(db_units_list(r, c.id, NULL, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 3);
    free(list);
    ck_assert_int_eq(db_units_page(r, c.id, NULL, &(db_page){got.id, false, 2},
                                   &list, &n, NULL),
                     ERR_OK);
    ck_assert_uint_eq(n, 2);
    free(list);
    ck_assert_int_eq(db_units_page(r, c.id,
                                   &(db_unit_filter){NULL, "scrud", 0, -1},
                                   &(db_page){u.id, true, 2}, &list, &n, NULL),
                     ERR_OK);
    ck_assert_uint_eq(n, 2);
    free(list);
    check_unit_plans(r, "units_by_campaign", &n_using);
    ck_assert_int_eq(n_using, 3);
    db_read_release(db_fixture_db, r);
}
END_TEST

START_TEST(test_unit_name_unique_per_campaign)
{
    db_campaign c, c2;
    db_side s, s2;
    db_unit first, dup, other, second;
    err_info e;
    int count;
    db_conn *r;

    db_fixture_open();
    db_fixture_add_campaign(&c, "One");
    db_fixture_add_campaign(&c2, "Two");
    db_fixture_add_side(&s, c.id, NULL, "Blue");
    db_fixture_add_side(&s2, c2.id, NULL, "Blue");
    db_fixture_new_unit(&first, &s, NULL, "Lancers");
    db_fixture_write_ok(db_fixture_job_unit, &first, "insert unit");
    db_fixture_new_unit(&dup, &s, NULL, "Lancers");
    ck_assert_int_eq(db_fixture_write_rc(db_fixture_job_unit, &dup, &e),
                     ERR_CONFLICT);
    ck_assert_int_eq(e.code, ERR_CONFLICT);
    ck_assert_ptr_nonnull(strstr(e.message, "UNIQUE"));
    db_fixture_new_unit(&other, &s2, NULL, "Lancers");
    db_fixture_write_ok(db_fixture_job_unit, &other,
                        "same name, other campaign");
    /* Renaming onto a taken name is the same conflict. */
    db_fixture_new_unit(&second, &s, NULL, "Dragoons");
    db_fixture_write_ok(db_fixture_job_unit, &second, "insert second");
    snprintf(second.name, sizeof second.name, "Lancers");
    ck_assert_int_eq(
        db_fixture_write_rc(db_fixture_job_unit_update, &second, &e),
        ERR_CONFLICT);

    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_units_count(r, c.id, &count, NULL), ERR_OK);
    ck_assert_int_eq(count, 2);
    ck_assert_int_eq(db_unit_find(r, c.id, dup.id, &dup, NULL), ERR_NOT_FOUND);
    ck_assert_int_eq(db_unit_find(r, c.id, "Dragoons", &second, NULL), ERR_OK);
    ck_assert_int_eq(db_unit_find(r, c2.id, "Lancers", &dup, NULL), ERR_OK);
    ck_assert_str_eq(dup.id, other.id);
    db_read_release(db_fixture_db, r);
}
END_TEST

static void check_combat(const db_combat *got, const db_combat *want,
                         bool has_docs)
{
    ck_assert_str_eq(got->id, want->id);
    ck_assert_str_eq(got->campaign_id, want->campaign_id);
    ck_assert_str_eq(got->system, want->system);
    ck_assert_str_eq(got->created_at, want->created_at);
    ck_assert_str_eq(got->dice_source, want->dice_source);
    ck_assert_str_eq(got->rng, want->rng);
    ck_assert_str_eq(got->commitment, want->commitment);
    ck_assert_str_eq(got->server_seed, want->server_seed);
    ck_assert_str_eq(got->actor_token_id, want->actor_token_id);
    ck_assert(db_fixture_str_eq_or_null(got->note, want->note));
    ck_assert(db_fixture_str_eq_or_null(got->client_seed, want->client_seed));
    ck_assert(db_fixture_str_eq_or_null(got->summary, want->summary));
    if (has_docs) {
        ck_assert(db_fixture_str_eq_or_null(got->report, want->report));
    } else {
        ck_assert_ptr_null(got->report);
    }
}

START_TEST(test_combats_and_rolls)
{
    /* Inserted out of seq order; seq 2 is a die of no unit. */
    db_roll rolls[] = {
        {3, "Red", "un_r", "Guns", "scrud.front", 6, 5, 4, "seeded", "v1", 0,
         "", ""},
        {1, "Blue", "un_b", "Foot", "scrud.front", 6, 2, 3, "seeded", "v1", 0,
         "", ""},
        {2, "", "", "", "test.weather", 20, 17, 17, "seeded", "v1", 0, "", ""},
    };
    db_campaign c;
    db_combat c1, c0, c2, got, *list;
    combat_row row;
    db_roll bad[2], *rl;
    size_t n, i;
    err_info e;
    db_conn *r;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Combats");
    db_fixture_new_combat(&c1, c.id, "2026-03-01T10:00:00.000Z", NULL,
                          "my seed");
    db_fixture_new_combat(&c0, "", "2026-03-01T10:00:01.000Z", "one-off", NULL);
    db_fixture_new_combat(&c2, c.id, "2026-03-01T10:00:02.000Z", "second",
                          NULL);
    row = (combat_row){&c1, rolls, 3};
    db_fixture_write_ok(job_combat, &row, "insert c1");
    row = (combat_row){&c0, NULL, 0};
    db_fixture_write_ok(job_combat, &row, "insert c0");
    row = (combat_row){&c2, rolls, 1};
    db_fixture_write_ok(job_combat, &row, "insert c2");
    /* A duplicate roll fails the combat as a whole: no combat row. */
    db_new_id("cmb", c0.id);
    bad[0] = rolls[0];
    bad[1] = rolls[0];
    row = (combat_row){&c0, bad, 2};
    ck_assert_int_eq(db_fixture_write_rc(job_combat, &row, &e), ERR_CONFLICT);

    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_combat_get(r, c0.id, &got, NULL), ERR_NOT_FOUND);
    db_combat_cleanup(&got);
    ck_assert_int_eq(db_combat_get(r, c1.id, &got, NULL), ERR_OK);
    check_combat(&got, &c1, true);
    db_combat_cleanup(&got);
    ck_assert_int_eq(db_combats_list(r, c.id, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 2); /* the one-off is in no campaign */
    check_combat(&list[0], &c1, false);
    check_combat(&list[1], &c2, false);
    db_combats_free(list, n);

    ck_assert_int_eq(db_rolls_list(r, c1.id, &rl, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 3);
    for (i = 0; i < n; i++) {
        const db_roll *w = &rolls[i == 0 ? 1 : i == 1 ? 2 : 0];
        ck_assert_int_eq(rl[i].seq, (int)i + 1);
        ck_assert_int_eq(rl[i].seq, w->seq);
        ck_assert_str_eq(rl[i].side_name, w->side_name);
        ck_assert_str_eq(rl[i].unit_id, w->unit_id);
        ck_assert_str_eq(rl[i].unit_name, w->unit_name);
        ck_assert_str_eq(rl[i].reason, w->reason);
        ck_assert_int_eq(rl[i].faces, w->faces);
        ck_assert_int_eq(rl[i].natural, w->natural);
        ck_assert_int_eq(rl[i].modified, w->modified);
        ck_assert_str_eq(rl[i].source, w->source);
        ck_assert_str_eq(rl[i].rng, w->rng);
    }
    free(rl);
    ck_assert_int_eq(db_rolls_list(r, c2.id, &rl, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(rl[0].unit_name, "Guns");
    free(rl);
    err_clear(&e);
    ck_assert_int_eq(db_combat_get(r, "cmb_nope", &got, &e), ERR_NOT_FOUND);
    ck_assert_int_eq(e.code, ERR_NOT_FOUND);
    db_combat_cleanup(&got);
    db_read_release(db_fixture_db, r);
}
END_TEST

/* A report packed before the writer (db_combat_pack) is stored as a blob
 * and reads back as the text it was; one stored as text, as before, reads
 * back the same way.  A one-off's roll log packed into its row (in the
 * compact layout, or as before in its report's frame or in one of its
 * own) reads back roll for roll, with no row in rolls, and its report
 * alone. */
START_TEST(test_report_packed_or_plain)
{
    static char big[8192];
    db_roll rolls[] = {
        {1, "Red", "", "Gu\xc3\xa9ns", "scrud.front", 8, 8, -3, "seeded", "v1",
         0, "", ""},
        {2, "", "", "", "test.weather", 20, 17, 2147483647, "entered", "", 0,
         "", ""},
    };
    db_campaign c;
    db_combat packed, plain, oneoff, after, older, got;
    char *text;
    combat_row row;
    db_conn *r;
    sqlite3_stmt *st;
    db_roll *rl;
    size_t n;
    size_t len = 1;

    big[0] = '[';
    while (len + 40 < sizeof big)
        len += (size_t)snprintf(big + len, sizeof big - len,
                                "{\"unit\":\"R\xc3\xa9 %zu\"},", len % 7);
    big[len - 1] = ']';
    db_fixture_open();
    db_fixture_add_campaign(&c, "Packed");
    db_fixture_new_combat(&packed, c.id, "2026-03-01T10:00:00.000Z", NULL,
                          NULL);
    packed.report = big;
    ck_assert_int_eq(db_combat_pack(&packed, NULL, 0, NULL), ERR_OK);
    ck_assert_ptr_nonnull(packed.report_z);
    ck_assert_uint_lt(packed.report_z_len, strlen(big) / 4);
    db_fixture_new_combat(&plain, c.id, "2026-03-01T10:00:01.000Z", NULL, NULL);
    row = (combat_row){&packed, NULL, 0};
    db_fixture_write_ok(job_combat, &row, "insert packed");
    row = (combat_row){&plain, NULL, 0};
    db_fixture_write_ok(job_combat, &row, "insert plain");
    free(packed.report_z);
    db_fixture_new_combat(&oneoff, "", "2026-03-01T10:00:02.000Z", NULL, NULL);
    ck_assert_int_eq(db_combat_pack(&oneoff, rolls, 2, NULL), ERR_OK);
    ck_assert_ptr_nonnull(oneoff.rolls_z);
    /* Its rolls in the compact layout: the tag, their count; its report
     * alone in its frame. */
    ck_assert_uint_gt(oneoff.rolls_z_len, 8);
    ck_assert_int_eq(memcmp(oneoff.rolls_z, "\x1brc1\x02\x00\x00\x00", 8), 0);
    text = db_doc_text(oneoff.report_z, oneoff.report_z_len);
    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(text, oneoff.report);
    free(text);
    /* the text of its rolls, as the layouts before packed it */
    text = db_rolls_text(oneoff.rolls_z, oneoff.rolls_z_len);
    ck_assert_ptr_nonnull(text);
    row = (combat_row){&oneoff, rolls, 2};
    db_fixture_write_ok(job_combat, &row, "insert one-off");
    free(oneoff.report_z);
    free(oneoff.rolls_z);
    /* One packed as before: its rolls after its report, in the report's
     * frame, its rolls' value one byte, RS. */
    db_fixture_new_combat(&after, "", "2026-03-01T10:00:03.000Z", NULL, NULL);
    {
        size_t rlen = strlen(after.report), tlen = strlen(text);
        char *both = malloc(rlen + 1 + tlen + 1);
        ck_assert_ptr_nonnull(both);
        memcpy(both, after.report, rlen);
        both[rlen] = 0x1e;
        memcpy(both + rlen + 1, text, tlen + 1);
        after.report_z = db_doc_pack(both, &after.report_z_len);
        free(both);
    }
    ck_assert_ptr_nonnull(after.rolls_z = malloc(1));
    after.rolls_z[0] = 0x1e;
    after.rolls_z_len = 1;
    row = (combat_row){&after, rolls, 2};
    db_fixture_write_ok(job_combat, &row, "insert one-off after its report");
    free(after.report_z);
    free(after.rolls_z);
    /* One packed before that: its rolls in a frame of their own. */
    db_fixture_new_combat(&older, "", "2026-03-01T10:00:04.000Z", NULL, NULL);
    older.report_z = db_doc_pack(older.report, &older.report_z_len);
    older.rolls_z = db_doc_pack(text, &older.rolls_z_len);
    ck_assert_ptr_nonnull(older.rolls_z);
    free(text);
    row = (combat_row){&older, rolls, 2};
    db_fixture_write_ok(job_combat, &row, "insert one-off as before");
    free(older.report_z);
    free(older.rolls_z);

    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(sqlite3_prepare_v2(DB_LITE(r),
                                        "SELECT typeof(report) FROM combats "
                                        "ORDER BY rowid",
                                        -1, &st, NULL),
                     SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    ck_assert_str_eq((const char *)sqlite3_column_text(st, 0), "blob");
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    ck_assert_str_eq((const char *)sqlite3_column_text(st, 0), "text");
    sqlite3_finalize(st);
    ck_assert_int_eq(db_combat_get(r, packed.id, &got, NULL), ERR_OK);
    ck_assert_str_eq(got.report, big);
    db_combat_cleanup(&got);
    ck_assert_int_eq(db_combat_get(r, plain.id, &got, NULL), ERR_OK);
    ck_assert_str_eq(got.report, plain.report);
    db_combat_cleanup(&got);
    ck_assert_int_eq(db_combat_get(r, oneoff.id, &got, NULL), ERR_OK);
    ck_assert_str_eq(got.report, oneoff.report);
    db_combat_cleanup(&got);
    ck_assert_int_eq(db_combat_get(r, after.id, &got, NULL), ERR_OK);
    ck_assert_str_eq(got.report, after.report);
    db_combat_cleanup(&got);
    ck_assert_int_eq(db_combat_get(r, older.id, &got, NULL), ERR_OK);
    ck_assert_str_eq(got.report, older.report);
    db_combat_cleanup(&got);
    /* By the combat's id (k < 3), and from the combat as read (its rolls
     * taken from its report's value already read, for the one packed
     * after its report: k = 4). */
    for (int k = 0; k < 6; k++) {
        const char *ids[3] = {oneoff.id, after.id, older.id};
        if (k < 3) {
            ck_assert_int_eq(db_rolls_list(r, ids[k], &rl, &n, NULL), ERR_OK);
        } else {
            ck_assert_int_eq(db_combat_get(r, ids[k - 3], &got, NULL), ERR_OK);
            ck_assert((got.after_report != NULL) == (k == 4));
            ck_assert_int_eq(db_combat_rolls(r, &got, &rl, &n, NULL), ERR_OK);
            if (k == 4) {
                /* taken from what was read, not read again */
                db_roll *none = NULL;
                size_t n_none = 99;
                got.after_report = "";
                ck_assert(db_combat_rolls(r, &got, &none, &n_none, NULL) !=
                              ERR_OK ||
                          n_none == 0);
                free(none);
            }
            db_combat_cleanup(&got);
        }
        ck_assert_uint_eq(n, 2);
        for (size_t i = 0; i < n; i++) {
            ck_assert_int_eq(rl[i].seq, rolls[i].seq);
            ck_assert_str_eq(rl[i].side_name, rolls[i].side_name);
            ck_assert_str_eq(rl[i].unit_id, rolls[i].unit_id);
            ck_assert_str_eq(rl[i].unit_name, rolls[i].unit_name);
            ck_assert_str_eq(rl[i].reason, rolls[i].reason);
            ck_assert_int_eq(rl[i].faces, rolls[i].faces);
            ck_assert_int_eq(rl[i].natural, rolls[i].natural);
            ck_assert_int_eq(rl[i].modified, rolls[i].modified);
            ck_assert_str_eq(rl[i].source, rolls[i].source);
            ck_assert_str_eq(rl[i].rng, rolls[i].rng);
            ck_assert_int_eq(rl[i].ledger_pos, 0);
        }
        free(rl);
    }
    ck_assert_int_eq(sqlite3_prepare_v2(DB_LITE(r),
                                        "SELECT count(*) FROM rolls "
                                        "WHERE combat_id = ?",
                                        -1, &st, NULL),
                     SQLITE_OK);
    sqlite3_bind_text(st, 1, oneoff.id, -1, SQLITE_STATIC);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    ck_assert_int_eq(sqlite3_column_int(st, 0), 0);
    sqlite3_finalize(st);
    db_read_release(db_fixture_db, r);
}
END_TEST

START_TEST(test_history_events)
{
    db_campaign c;
    db_side s;
    db_unit a, b;
    db_combat cb;
    combat_row row;
    db_event evs[4], *list;
    const db_event *want_a[3];
    size_t n, i;
    db_conn *r;

    db_fixture_open();
    db_fixture_add_campaign(&c, "History");
    db_fixture_add_side(&s, c.id, NULL, "Blue");
    db_fixture_new_unit(&a, &s, NULL, "A");
    db_fixture_write_ok(db_fixture_job_unit, &a, "insert a");
    db_fixture_new_unit(&b, &s, NULL, "B");
    db_fixture_write_ok(db_fixture_job_unit, &b, "insert b");
    db_fixture_new_combat(&cb, c.id, "2026-03-01T10:00:00.000Z", NULL, NULL);
    row = (combat_row){&cb, NULL, 0};
    db_fixture_write_ok(job_combat, &row, "insert combat");

    memset(evs, 0, sizeof evs);
    for (i = 0; i < 4; i++) {
        snprintf(evs[i].unit_id, sizeof evs[i].unit_id, "%s",
                 i == 1 ? b.id : a.id);
        snprintf(evs[i].campaign_id, sizeof evs[i].campaign_id, "%s", c.id);
        snprintf(evs[i].at, sizeof evs[i].at, "2026-03-01T10:00:0%zu.000Z", i);
        evs[i].after = "{\"quality\":0}";
    }
    snprintf(evs[0].kind, sizeof evs[0].kind, "created");
    snprintf(evs[1].kind, sizeof evs[1].kind, "created");
    snprintf(evs[2].kind, sizeof evs[2].kind, "combat");
    snprintf(evs[2].combat_id, sizeof evs[2].combat_id, "%s", cb.id);
    snprintf(evs[2].actor_token_id, sizeof evs[2].actor_token_id, "tok_x");
    evs[2].note = "held the ridge";
    evs[2].before = "{\"quality\":0}";
    evs[2].after = "{\"quality\":0,\"defeat_penalty\":1}";
    evs[2].result = "{\"defeats\":1}";
    snprintf(evs[3].kind, sizeof evs[3].kind, "correction");
    evs[3].note = ""; /* stored as NULL */
    evs[3].before = "{\"quality\":0,\"defeat_penalty\":1}";
    for (i = 0; i < 4; i++)
        db_fixture_write_ok(job_event, &evs[i], "insert event");

    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_events_list(r, a.id, &list, &n, NULL), ERR_OK);
    want_a[0] = &evs[0];
    want_a[1] = &evs[2];
    want_a[2] = &evs[3];
    ck_assert_uint_eq(n, 3);
    for (i = 0; i < n; i++) {
        const db_event *w = want_a[i];
        if (i > 0)
            ck_assert_int_gt(list[i].seq, list[i - 1].seq);
        ck_assert_str_eq(list[i].unit_id, a.id);
        ck_assert_str_eq(list[i].campaign_id, c.id);
        ck_assert_str_eq(list[i].at, w->at);
        ck_assert_str_eq(list[i].kind, w->kind);
        ck_assert_str_eq(list[i].combat_id, w->combat_id);
        ck_assert_str_eq(list[i].actor_token_id, w->actor_token_id);
        ck_assert(db_fixture_str_eq_or_null(list[i].before, w->before));
        ck_assert(db_fixture_str_eq_or_null(list[i].after, w->after));
        ck_assert(db_fixture_str_eq_or_null(list[i].result, w->result));
    }
    ck_assert_ptr_null(list[0].note);
    ck_assert_str_eq(list[1].note, "held the ridge");
    ck_assert_ptr_null(list[2].note);
    db_events_free(list, n);
    ck_assert_int_eq(db_events_list(r, b.id, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(list[0].at, evs[1].at);
    db_events_free(list, n);
    ck_assert_int_eq(db_events_list(r, "un_nope", &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 0);
    db_events_free(list, n);
    db_read_release(db_fixture_db, r);
}
END_TEST

Suite *suite_store(void)
{
    Suite *s = suite_create("store");
    TCase *store = tcase_create("store");

    tcase_add_unchecked_fixture(store, db_fixture_suite_make,
                                db_fixture_suite_remove);
    tcase_add_checked_fixture(store, db_fixture_setup, db_fixture_teardown);
    tcase_set_timeout(store, 60);
    suite_add_tcase(s, store);
    tcase_add_test(store, test_campaign_round_trip);
    tcase_add_test(store, test_campaign_scs_options_checked);
    tcase_add_test(store, test_campaign_writes_count_the_version);
    tcase_add_test(store, test_unit_writes_count_the_version_once);
    tcase_add_test(store, test_sides);
    tcase_add_test(store, test_tokens);
    tcase_add_test(store, test_tokens_kept_until_reissued);
    tcase_add_test(store, test_token_of_an_old_snapshot_not_kept);
    tcase_add_test(store, test_unit_round_trip_and_update);
    tcase_add_test(store, test_unit_scs_values_checked);
    tcase_add_test(store, test_units_list);
    tcase_add_test(store, test_unit_name_unique_per_campaign);
    tcase_add_test(store, test_units_sort_nothing);
    tcase_add_test(store, test_combats_and_rolls);
    tcase_add_test(store, test_report_packed_or_plain);
    tcase_add_test(store, test_history_events);
    return s;
}
