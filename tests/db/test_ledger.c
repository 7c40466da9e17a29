/*
 * test_ledger.c: tests what db/ledger.c, db/log.c, db/battles.c,
 * db/commitments.c and db/idempotency.c keep of the campaign ledger of
 * docs/ledger.md (combat rolls and battle actions chained as they are
 * written, commitments, idempotency keys), and migration 5's chaining of
 * what was logged before it.  core/ledger.c's own tests are in
 * tests/core/test_ledger.c.
 *
 * Hashes are checked with SHA-256 computed apart from core/ledger.c
 * (core/ledger_fixture.h).  The tests write through the writer on a fresh
 * file (db_fixture.h); the migration test builds a schema-4 file with
 * plain SQLite and opens it with db_open.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <sqlite3.h>

#include "db_sql.h"
#include "core/ledger_fixture.h"
#include "db.h"
#include "db_fixture.h"
#include "ledger.h"
#include "migrations.h"
#include "rng.h"
#include "suites.h"

#define HEX64   DB_FIXTURE_HEX64
#define HEX64_B DB_FIXTURE_HEX64_B
#define AT      LEDGER_FIXTURE_AT

/* ---- 1. The ledger in the database ------------------------------------- */

/* Rows read through the pool: the campaign's recorded chain and its
 * ledger, which must walk clean, every link also checked here. */
static size_t stored(const char *campaign_id, db_chain *ch,
                     db_ledger_row **rows)
{
    db_conn *c = db_read_acquire(db_fixture_db);
    ledger_entry *en;
    ledger_walk w;
    err_info e;
    size_t n = 0, i;

    ck_assert_int_eq(db_chain_open(c, campaign_id, ch, &e), ERR_OK);
    ck_assert_int_eq(db_ledger_rows(c, campaign_id, rows, &n, &e), ERR_OK);
    db_read_release(db_fixture_db, c);
    en = calloc(n + 1, sizeof *en);
    ck_assert_ptr_nonnull(en);
    for (i = 0; i < n; i++) {
        char want[LEDGER_HASH_HEX], *content;
        size_t len = 0;
        db_ledger_row_entry(&(*rows)[i], campaign_id, &en[i]);
        content = ledger_content(&en[i], &len);
        ledger_fixture_sha_link(i ? (*rows)[i - 1].hash : NULL, content, len,
                                want);
        free(content);
        ck_assert_str_eq((*rows)[i].hash, want);
        ck_assert_int_eq((*rows)[i].pos, (long long)i + 1);
    }
    ck_assert_int_eq(ledger_check(en, n, ch->length, ch->head, &w, &e), ERR_OK);
    ck_assert_msg(w.broken_pos == 0, "broken at %lld: %s", w.broken_pos, w.why);
    free(en);
    return n;
}

typedef struct chain_job {
    char campaign_id[DB_ID_MAX];
    ledger_entry en[2];
    char prev[2][LEDGER_HASH_HEX], hash[2][LEDGER_HASH_HEX];
    db_chain ch;
    long long length0;
    char head0[LEDGER_HASH_HEX];
} chain_job;

static err_code job_chain(db_conn *c, void *arg, err_info *e)
{
    chain_job *j = arg;
    err_code rc;
    int i;

    if ((rc = db_chain_open(c, j->campaign_id, &j->ch, e)))
        return rc;
    j->length0 = j->ch.length;
    memcpy(j->head0, j->ch.head, LEDGER_HASH_HEX);
    for (i = 0; i < 2; i++)
        if ((rc = db_chain_add(&j->ch, &j->en[i], j->prev[i], j->hash[i], e)))
            return rc;
    return db_chain_save(c, &j->ch, e);
}

START_TEST(test_db_chain)
{
    static const int two[] = {2, 3};
    chain_job j;
    db_campaign cmp;
    db_chain ch;
    db_conn *c;
    err_info e;
    char want[LEDGER_HASH_HEX], *content;
    size_t len = 0;
    int i;

    db_fixture_open();
    db_fixture_add_campaign(&cmp, "Wavre");
    memset(&j, 0, sizeof j);
    snprintf(j.campaign_id, sizeof j.campaign_id, "%s", cmp.id);
    j.en[0] = ledger_fixture_roll();
    j.en[1] = ledger_fixture_action(two, 2);
    db_fixture_write_ok(job_chain, &j, "chain two entries");
    ck_assert_int_eq(j.length0, 0);
    ck_assert_str_eq(j.head0, ledger_genesis);
    for (i = 0; i < 2; i++) {
        ck_assert_int_eq(j.en[i].pos, i + 1);
        ck_assert_str_eq(j.en[i].campaign_id, cmp.id);
        ck_assert_str_eq(j.prev[i], i ? j.hash[0] : ledger_genesis);
        content = ledger_content(&j.en[i], &len);
        ledger_fixture_sha_link(i ? j.hash[0] : NULL, content, len, want);
        free(content);
        ck_assert_str_eq(j.hash[i], want);
    }
    c = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_chain_open(c, cmp.id, &ch, &e), ERR_OK);
    ck_assert_int_eq(ch.length, 2);
    ck_assert_str_eq(ch.head, j.hash[1]);
    ck_assert_int_eq(db_chain_open(c, "cmp_none", &ch, &e), ERR_NOT_FOUND);
    db_read_release(db_fixture_db, c);
}
END_TEST

typedef struct combat_job {
    db_combat cb;
    db_roll rolls[4];
    size_t n;
} combat_job;

static err_code job_combat(db_conn *c, void *arg, err_info *e)
{
    combat_job *j = arg;

    return db_combat_insert(c, &j->cb, j->rolls, j->n, e);
}

/* A seeded combat of campaign_id ("": one-off) with n rolls, written. */
static void add_combat(combat_job *j, const char *campaign_id, size_t n,
                       bool is_record)
{
    size_t i;

    memset(j, 0, sizeof *j);
    db_fixture_new_combat(&j->cb, campaign_id, AT, NULL, "cs");
    j->cb.is_battle_record = is_record;
    j->n = n;
    for (i = 0; i < n; i++) {
        db_roll *r = &j->rolls[i];
        r->seq = (int)i + 1;
        snprintf(r->side_name, sizeof r->side_name, "%s",
                 i % 2 ? "Red" : "Blue");
        snprintf(r->unit_id, sizeof r->unit_id, "un_%zu", i);
        snprintf(r->unit_name, sizeof r->unit_name, "Unit %zu", i);
        snprintf(r->reason, sizeof r->reason, "scrud.front");
        r->faces = 6;
        r->natural = (int)i % 6 + 1;
        r->modified = r->natural + 1;
        snprintf(r->source, sizeof r->source, "seeded");
        snprintf(r->rng, sizeof r->rng, "v1");
    }
    db_fixture_write_ok(job_combat, j, "insert combat");
}

START_TEST(test_db_combat_chains)
{
    combat_job a, one, rec, b, none;
    db_ledger_row *rows = NULL;
    db_campaign cmp;
    db_chain ch;
    size_t i, n;

    db_fixture_open();
    db_fixture_add_campaign(&cmp, "Wavre");
    add_combat(&a, cmp.id, 3, false);
    add_combat(&one, "", 2, false);
    add_combat(&rec, cmp.id, 2, true);
    add_combat(&b, cmp.id, 2, false);
    add_combat(&none, cmp.id, 0, false);
    for (i = 0; i < 3; i++) {
        ck_assert_int_eq(a.rolls[i].ledger_pos, (long long)i + 1);
        ck_assert_int_eq(strlen(a.rolls[i].hash), 64);
    }
    for (i = 0; i < 2; i++) {
        ck_assert_int_eq(one.rolls[i].ledger_pos, 0);
        ck_assert_str_eq(one.rolls[i].hash, "");
        ck_assert_int_eq(rec.rolls[i].ledger_pos, 0);
        ck_assert_int_eq(b.rolls[i].ledger_pos, (long long)i + 4);
    }
    n = stored(cmp.id, &ch, &rows);
    ck_assert_int_eq(n, 5);
    ck_assert_int_eq(ch.length, 5);
    ck_assert_str_eq(ch.head, b.rolls[1].hash);
    for (i = 0; i < n; i++) {
        const combat_job *j = i < 3 ? &a : &b;
        const db_roll *r = &j->rolls[i < 3 ? i : i - 3];
        ck_assert_int_eq(rows[i].kind, LEDGER_ROLL);
        ck_assert_str_eq(rows[i].record_id, j->cb.id);
        ck_assert_int_eq(rows[i].seq, r->seq);
        ck_assert_int_eq(rows[i].natural, r->natural);
        ck_assert_str_eq(rows[i].unit, r->unit_name);
        ck_assert_str_eq(rows[i].commitment, HEX64);
        ck_assert_str_eq(rows[i].client_seed, "cs");
        ck_assert_str_eq(rows[i].hash, r->hash);
        /* each previous hash, stored or (after a combat's first roll)
         * read from the roll before */
        ck_assert_str_eq(rows[i].prev_hash,
                         i ? rows[i - 1].hash : ledger_genesis);
    }
    db_ledger_rows_free(rows, n);
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT count(*) FROM rolls "
                                              "WHERE prev_hash IS NOT NULL"),
                     2);
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT count(*) FROM rolls "
                                              "WHERE ledger_pos IS NULL AND "
                                              "prev_hash IS NULL AND hash IS "
                                              "NULL"),
                     4);
}
END_TEST

typedef struct action_job {
    char battle_id[DB_ID_MAX];
    db_battle_action a;
} action_job;

static err_code job_action(db_conn *c, void *arg, err_info *e)
{
    action_job *j = arg;

    return db_battle_action_insert(c, j->battle_id, &j->a, e);
}

static err_code job_battle(db_conn *c, void *arg, err_info *e)
{
    return db_battle_insert(c, arg, e);
}

/* A battle of campaign_id, seeded (commitment HEX64, client seed "my
 * seed") or entered. */
static void add_battle(db_battle *b, const char *campaign_id, bool is_seeded)
{
    memset(b, 0, sizeof *b);
    db_new_id("bat", b->id);
    snprintf(b->campaign_id, sizeof b->campaign_id, "%s", campaign_id);
    snprintf(b->system, sizeof b->system, "matrix");
    snprintf(b->status, sizeof b->status, "open");
    b->turn = 1;
    snprintf(b->created_at, sizeof b->created_at, AT);
    snprintf(b->updated_at, sizeof b->updated_at, AT);
    snprintf(b->dice_source, sizeof b->dice_source, "%s",
             is_seeded ? "seeded" : "entered");
    if (is_seeded) {
        snprintf(b->commitment, sizeof b->commitment, HEX64);
        snprintf(b->server_seed, sizeof b->server_seed, HEX64_B);
        b->client_seed = "my seed";
    }
    b->setup = "{}";
    db_fixture_write_ok(job_battle, b, "insert battle");
}

/* Action seq of battle b drawing naturals (a JSON list); its code. */
static err_code add_action(const db_battle *b, int seq, const char *kind,
                           char *naturals, char *detail)
{
    action_job j;
    err_info e;

    memset(&j, 0, sizeof j);
    snprintf(j.battle_id, sizeof j.battle_id, "%s", b->id);
    j.a.seq = seq;
    snprintf(j.a.at, sizeof j.a.at, "2026-11-22T10:0%d:00.000Z", seq);
    snprintf(j.a.kind, sizeof j.a.kind, "%s", kind);
    j.a.army = j.a.unit = -1;
    j.a.naturals = naturals;
    j.a.detail = detail;
    return db_fixture_write_rc(job_action, &j, &e);
}

/* Combat j of its campaign as the pipeline stages one: chained (its
 * rolls' places and hashes), packed with them (db_combat_pack), and
 * written by db_combat_insert_chained (pack 0: rows, as before). */
typedef struct staged_job {
    combat_job *j;
    bool pack;
    long long moved; /* the campaign's version counted this many more
                        between the chaining and the write */
    bool is_current; /* as db_combat_insert_chained said */
} staged_job;

static err_code job_staged(db_conn *c, void *arg, err_info *e)
{
    staged_job *s = arg;
    combat_job *j = s->j;
    long long version = 0;
    db_chain end;
    err_code rc = db_campaign_version(c, j->cb.campaign_id, &version, e);

    if (rc == ERR_OK)
        rc = db_combat_chain(c, &j->cb, j->rolls, j->n, &end, e);
    if (rc == ERR_OK && s->pack)
        rc = db_combat_pack(&j->cb, j->rolls, j->n, e);
    if (rc == ERR_OK)
        rc = db_combat_insert_chained(c, &j->cb, j->rolls, j->n, &end,
                                      version - s->moved, &s->is_current, NULL,
                                      e);
    return rc;
}

/* The combat of sp, written as rows by add_combat, written again as a
 * fresh combat of the same rolls, staged and packed (what): its packed
 * forms freed, its ledger_first and id kept in sp's job. */
static void stage_again_packed(staged_job *sp, const char *what)
{
    db_new_id("cmb", sp->j->cb.id);
    db_fixture_write_ok(job_staged, sp, what);
    free(sp->j->cb.rolls_z);
    free(sp->j->cb.report_z);
}

/* A unit that rolled twice, with another's roll between them, and two
 * that rolled once: a history page's read of each unit's rolls gives its
 * own, in order, byte for byte as the whole log's, their hashes too. */
START_TEST(test_db_unit_rolls_twice)
{
    static const char *const unit_of[4] = {"un_0", "un_1", "un_0", "un_2"};
    combat_job p;
    staged_job sp = {.j = &p, .pack = true};
    db_campaign cmp;
    db_conn *c;
    db_roll *all = NULL, *one = NULL;
    size_t n_all = 0, n_one = 0, i, k, want;
    err_info e;

    db_fixture_open();
    db_fixture_add_campaign(&cmp, "Wavre");
    add_combat(&p, cmp.id, 4, false);
    for (i = 0; i < 4; i++)
        snprintf(p.rolls[i].unit_id, sizeof p.rolls[i].unit_id, "%s",
                 unit_of[i]);
    db_new_id("cmb", p.cb.id);
    db_fixture_write_ok(job_staged, &sp, "a combat staged and packed");
    ck_assert_ptr_nonnull(p.cb.rolls_z);
    free(p.cb.rolls_z);
    free(p.cb.report_z);
    c = db_read_acquire(db_fixture_db);
    err_clear(&e);
    ck_assert_int_eq(db_rolls_list(c, p.cb.id, &all, &n_all, &e), ERR_OK);
    ck_assert_uint_eq(n_all, 4);
    for (i = 0; i < 3; i++) {
        char unit[8];
        snprintf(unit, sizeof unit, "un_%zu", i);
        ck_assert_int_eq(db_rolls_of_unit(c, p.cb.id, unit, &one, &n_one, &e),
                         ERR_OK);
        for (k = 0, want = 0; k < n_all; k++) {
            if (strcmp(all[k].unit_id, unit) != 0)
                continue;
            ck_assert_uint_lt(want, n_one);
            ck_assert_int_eq(memcmp(&one[want], &all[k], sizeof *one), 0);
            ck_assert_str_eq(one[want].hash, p.rolls[k].hash);
            ck_assert_str_eq(one[want].prev_hash, p.rolls[k].prev_hash);
            want++;
        }
        ck_assert_uint_eq(n_one, want);
        ck_assert_uint_eq(n_one, i == 0 ? 2 : 1);
        free(one);
    }
    free(all);
    db_read_release(db_fixture_db, c);
}
END_TEST

/* A combat staged at a version the campaign has moved on from: the
 * ledger's save that checks it refuses it, and nothing is written (no
 * combat, no roll, the ledger and the event log as they were), without
 * an error: the caller works it out again.  With dice and without (its
 * version read). */
START_TEST(test_db_staged_not_current)
{
    combat_job p;
    staged_job sp = {.j = &p, .pack = true, .moved = 1};
    db_campaign cmp;
    char sql[160];
    int dice, log_rows;

    db_fixture_open();
    db_fixture_add_campaign(&cmp, "Wavre");
    for (dice = 3; dice >= 0; dice -= 3) {
        add_combat(&p, cmp.id, (size_t)dice, false);
        log_rows = db_fixture_raw_query_int("SELECT count(*) FROM event_log");
        db_new_id("cmb", p.cb.id);
        sp.is_current = true;
        db_fixture_write_ok(job_staged, &sp,
                            "a combat staged at a version before");
        ck_assert(!sp.is_current);
        free(p.cb.rolls_z);
        free(p.cb.report_z);
        snprintf(sql, sizeof sql,
                 "SELECT count(*) FROM combats WHERE id = '%s'", p.cb.id);
        ck_assert_int_eq(db_fixture_raw_query_int(sql), 0);
        snprintf(sql, sizeof sql,
                 "SELECT ledger_length FROM campaigns WHERE id = '%s'", cmp.id);
        ck_assert_int_eq(db_fixture_raw_query_int(sql), 3);
        ck_assert_int_eq(
            db_fixture_raw_query_int("SELECT count(*) FROM event_log"),
            log_rows);
    }
}
END_TEST

/* A campaign combat's rolls packed in one row once chained: no row each,
 * the ledger's place of the first on the row, and every list reads them
 * back as rows would give them: the ledger (between other entries, each
 * hash and previous hash), the combat's rolls, a unit's. */
START_TEST(test_db_packed_rolls_chain)
{
    combat_job a, p, q;
    staged_job sp = {.j = &p, .pack = true};
    db_ledger_row *rows = NULL;
    db_roll *rl = NULL;
    db_battle bt;
    db_campaign cmp;
    db_chain ch;
    db_conn *c;
    err_info e;
    size_t n, i;
    char sql[160];

    db_fixture_open();
    db_fixture_add_campaign(&cmp, "Wavre");
    add_combat(&a, cmp.id, 3, false); /* rows: db_combat_insert */
    add_combat(&p, cmp.id, 3, false);
    /* add_combat wrote p as rows: a fresh combat of the same rolls */
    db_new_id("cmb", p.cb.id);
    db_fixture_write_ok(job_staged, &sp, "a combat staged and packed");
    ck_assert(sp.is_current);
    ck_assert_ptr_nonnull(p.cb.rolls_z);
    free(p.cb.rolls_z);
    free(p.cb.report_z);
    ck_assert_int_eq(p.cb.ledger_first, 7);
    add_battle(&bt, cmp.id, true);
    ck_assert_int_eq(add_action(&bt, 1, "roll", "[3,4]", NULL), ERR_OK);

    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM rolls WHERE combat_id = '%s'", p.cb.id);
    ck_assert_int_eq(db_fixture_raw_query_int(sql), 0);
    snprintf(sql, sizeof sql,
             "SELECT ledger_first FROM combats WHERE id = '%s'", p.cb.id);
    ck_assert_int_eq(db_fixture_raw_query_int(sql), 7);
    /* the whole ledger, every hash worked out again and walked */
    n = stored(cmp.id, &ch, &rows);
    ck_assert_uint_eq(n, 3 + 3 + 3 + 1);
    for (i = 6; i < 9; i++) {
        const db_roll *r = &p.rolls[i - 6];
        ck_assert_int_eq(rows[i].kind, LEDGER_ROLL);
        ck_assert_str_eq(rows[i].record_id, p.cb.id);
        ck_assert_int_eq(rows[i].seq, r->seq);
        ck_assert_int_eq(rows[i].natural, r->natural);
        ck_assert_int_eq(rows[i].modified, r->modified);
        ck_assert_str_eq(rows[i].unit_id, r->unit_id);
        ck_assert_str_eq(rows[i].unit, r->unit_name);
        ck_assert_str_eq(rows[i].side, r->side_name);
        ck_assert_str_eq(rows[i].commitment, HEX64);
        ck_assert_str_eq(rows[i].client_seed, "cs");
        ck_assert_str_eq(rows[i].hash, r->hash);
        ck_assert_str_eq(rows[i].prev_hash, rows[i - 1].hash);
    }
    ck_assert_int_eq(rows[9].kind, LEDGER_ACTION);
    db_ledger_rows_free(rows, n);

    c = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_rolls_list(c, p.cb.id, &rl, &n, &e), ERR_OK);
    ck_assert_uint_eq(n, 3);
    for (i = 0; i < n; i++) {
        ck_assert_int_eq(rl[i].ledger_pos, 7 + (long long)i);
        ck_assert_str_eq(rl[i].hash, p.rolls[i].hash);
        ck_assert_str_eq(rl[i].reason, "scrud.front");
    }
    free(rl);
    ck_assert_int_eq(db_rolls_of_unit(c, p.cb.id, "un_1", &rl, &n, &e), ERR_OK);
    ck_assert_uint_eq(n, 1);
    ck_assert_int_eq(rl[0].seq, 2);
    ck_assert_int_eq(rl[0].ledger_pos, 8);
    free(rl);
    db_read_release(db_fixture_db, c);

    /* packed before it is chained on the writer: refused, nothing written */
    add_combat(&q, cmp.id, 2, false);
    db_new_id("cmb", q.cb.id);
    {
        db_chain end;
        c = db_read_acquire(db_fixture_db);
        ck_assert_int_eq(db_combat_chain(c, &q.cb, q.rolls, q.n, &end, &e),
                         ERR_OK);
        db_read_release(db_fixture_db, c);
    }
    ck_assert_int_eq(db_combat_pack(&q.cb, q.rolls, q.n, &e), ERR_OK);
    ck_assert_int_eq(db_fixture_write_rc(job_combat, &q, &e), ERR_DB);
    free(q.cb.rolls_z);
    free(q.cb.report_z);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM combats WHERE id = '%s'",
             q.cb.id);
    ck_assert_int_eq(db_fixture_raw_query_int(sql), 0);
}
END_TEST

/* Packed rolls that do not read: one entry at their first place, which
 * fails its check (the walk breaks there), not an error of the read nor
 * a gap at the end. */
START_TEST(test_db_packed_rolls_unreadable)
{
    combat_job a, p;
    staged_job sp = {.j = &p, .pack = true};
    db_ledger_row *rows = NULL;
    ledger_entry en[8];
    ledger_walk w;
    db_campaign cmp;
    db_chain ch;
    db_conn *c;
    err_info e;
    size_t n = 0, i;
    char sql[160];

    db_fixture_open();
    db_fixture_add_campaign(&cmp, "Wavre");
    add_combat(&a, cmp.id, 2, false);
    add_combat(&p, cmp.id, 3, false);
    stage_again_packed(&sp, "a combat staged and packed");
    snprintf(sql, sizeof sql,
             "UPDATE combats SET rolls = x'28b52ffd0058ffff' WHERE "
             "id = '%s'",
             p.cb.id);
    db_fixture_raw_exec(sql);
    c = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_chain_open(c, cmp.id, &ch, &e), ERR_OK);
    ck_assert_int_eq(db_ledger_rows(c, cmp.id, &rows, &n, &e), ERR_OK);
    db_read_release(db_fixture_db, c);
    ck_assert_uint_eq(n, 2 + 3 + 1);
    ck_assert_str_eq(rows[5].record_id, p.cb.id);
    ck_assert_int_eq(rows[5].pos, 6);
    ck_assert_str_eq(rows[5].hash, "");
    for (i = 0; i < n; i++)
        db_ledger_row_entry(&rows[i], cmp.id, &en[i]);
    ck_assert_int_eq(ledger_check(en, n, ch.length, ch.head, &w, &e), ERR_OK);
    ck_assert_int_eq(w.broken_pos, 6);
    db_ledger_rows_free(rows, n);
}
END_TEST

/* Combat id's packed rolls (its row's) as stored, into v (at most max
 * bytes); their length. */
static size_t rolls_value(const char *id, unsigned char *v, size_t max)
{
    sqlite3 *raw;
    sqlite3_stmt *st;
    size_t n;

    ck_assert_int_eq(sqlite3_open(db_fixture_path, &raw), SQLITE_OK);
    ck_assert_int_eq(
        sqlite3_prepare_v2(raw, "SELECT rolls FROM combats WHERE id = ?", -1,
                           &st, NULL),
        SQLITE_OK);
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    n = (size_t)sqlite3_column_bytes(st, 0);
    ck_assert_uint_le(n, max);
    memcpy(v, sqlite3_column_blob(st, 0), n);
    sqlite3_finalize(st);
    sqlite3_close(raw);
    return n;
}

/* Stores v (n bytes) as combat id's packed rolls, a blob. */
static void rolls_value_set(const char *id, const unsigned char *v, size_t n)
{
    sqlite3 *raw;
    sqlite3_stmt *st;

    ck_assert_int_eq(sqlite3_open(db_fixture_path, &raw), SQLITE_OK);
    ck_assert_int_eq(sqlite3_prepare_v2(raw,
                                        "UPDATE combats SET rolls = ? "
                                        "WHERE id = ?",
                                        -1, &st, NULL),
                     SQLITE_OK);
    sqlite3_bind_blob(st, 1, v, (int)n, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, id, -1, SQLITE_STATIC);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
    sqlite3_close(raw);
}

/* Where a stored ledger breaks (0: nowhere), read as a verify reads it. */
static long long broken_at(const char *campaign_id)
{
    db_conn *c = db_read_acquire(db_fixture_db);
    db_ledger_row *rows = NULL;
    ledger_entry en[16];
    ledger_walk w;
    db_chain ch;
    err_info e;
    size_t n = 0, i;

    ck_assert_int_eq(db_chain_open(c, campaign_id, &ch, &e), ERR_OK);
    ck_assert_int_eq(db_ledger_rows(c, campaign_id, &rows, &n, &e), ERR_OK);
    db_read_release(db_fixture_db, c);
    ck_assert_uint_le(n, 16);
    for (i = 0; i < n; i++)
        db_ledger_row_entry(&rows[i], campaign_id, &en[i]);
    ck_assert_int_eq(ledger_check(en, n, ch.length, ch.head, &w, &e), ERR_OK);
    db_ledger_rows_free(rows, n);
    return w.broken_pos;
}

/* db_rolls_read reads the zlen bytes at v as db_rolls_unpack reads their
 * text (db_rolls_text), chained from 0 (a one-off's) and from 40: either
 * neither reads, or both read the same rolls, byte for byte (each zeroed
 * past its strings).  Then their text, as db_rolls_text gives it: every
 * value the tests below read goes through both readers. */
static char *rolls_text(const void *v, size_t zlen)
{
    static const long long firsts[] = {0, 40};
    size_t f;

    for (f = 0; f < sizeof firsts / sizeof firsts[0]; f++) {
        db_roll *a = NULL, *b = NULL;
        size_t na = 0, nb = 0;
        char *text = db_rolls_text(v, zlen);
        err_info e;
        err_code ra =
            text ? db_rolls_unpack(text, firsts[f], &a, &na, &e) : ERR_DB;
        err_code rb = db_rolls_read(v, zlen, firsts[f], &b, &nb, &e);

        free(text);
        ck_assert_msg(ra == rb, "from %lld: %d read as %d", firsts[f], rb, ra);
        ck_assert_uint_eq(nb, na);
        ck_assert_msg(na == 0 || memcmp(a, b, na * sizeof *a) == 0,
                      "from %lld: other rolls", firsts[f]);
        free(a);
        free(b);
    }
    return db_rolls_text(v, zlen);
}

/* A campaign combat's packed rolls keep their hashes beside the rolls, as
 * their 32 bytes (combat_pack.c): the tag, their number (the first
 * roll's previous hash, then each roll's), each where it belongs.  They
 * read back as before, and values packed the earlier ways (the rolls in a
 * frame after the hashes; every hash in the frame) still read.  A hash altered
 * in place breaks the walk at its own entry; a count that does not match the
 * rolls, or a value cut after the hashes, does not read (one entry that fails
 * its check). */
START_TEST(test_db_packed_rolls_hashes_beside)
{
    combat_job a, p;
    staged_job sp = {.j = &p, .pack = true};
    db_ledger_row *rows = NULL;
    db_campaign cmp;
    db_chain ch;
    unsigned char *legacy, v[4096];
    char sql[512], *text, *text2;
    size_t n, i, len, vlen;

    db_fixture_open();
    db_fixture_add_campaign(&cmp, "Ligny");
    add_combat(&a, cmp.id, 3, false);
    add_combat(&p, cmp.id, 3, false);
    db_new_id("cmb", p.cb.id);
    db_fixture_write_ok(job_staged, &sp, "a combat staged and packed");
    ck_assert_ptr_nonnull(p.cb.rolls_z);
    ck_assert_int_eq(memcmp(p.cb.rolls_z, "\x1brh2\x04\x00\x00\x00", 8), 0);
    /* The value read back by the ledger's own reader, the old way. */
    text = rolls_text(p.cb.rolls_z, p.cb.rolls_z_len);
    ck_assert_ptr_nonnull(text);
    free(p.cb.rolls_z);
    free(p.cb.report_z);
    for (i = 0; i < 4; i++) {
        const char *h = i == 0 ? p.rolls[0].prev_hash : p.rolls[i - 1].hash;
        snprintf(sql, sizeof sql,
                 "SELECT hex(substr(rolls, %zu, 32)) = upper('%s') FROM "
                 "combats WHERE id = '%s'",
                 9 + 32 * i, h, p.cb.id);
        ck_assert_msg(db_fixture_raw_query_int(sql) == 1, "hash %zu", i);
    }
    n = stored(cmp.id, &ch, &rows);
    ck_assert_uint_eq(n, 9);
    for (i = 6; i < 9; i++) {
        ck_assert_str_eq(rows[i].hash, p.rolls[i - 6].hash);
        ck_assert_str_eq(rows[i].prev_hash, rows[i - 1].hash);
        ck_assert_int_eq(rows[i].natural, p.rolls[i - 6].natural);
    }
    db_ledger_rows_free(rows, n);
    ck_assert_int_eq(broken_at(cmp.id), 0);
    /* One unit's rolls (a history page's read) are those of the whole
     * log, byte for byte, their hashes too. */
    {
        db_conn *c = db_read_acquire(db_fixture_db);
        db_roll *all = NULL, *one = NULL;
        size_t n_all = 0, n_one = 0;
        err_info e;

        err_clear(&e);
        ck_assert_int_eq(db_rolls_list(c, p.cb.id, &all, &n_all, &e), ERR_OK);
        ck_assert_uint_eq(n_all, 3);
        for (i = 0; i < n_all; i++) {
            ck_assert_int_eq(
                db_rolls_of_unit(c, p.cb.id, all[i].unit_id, &one, &n_one, &e),
                ERR_OK);
            ck_assert_uint_eq(n_one, 1);
            ck_assert_int_eq(memcmp(&one[0], &all[i], sizeof *one), 0);
            ck_assert_str_eq(one[0].hash, p.rolls[i].hash);
            free(one);
        }
        ck_assert_int_eq(db_rolls_of_unit(c, p.cb.id, "un_9", &one, &n_one, &e),
                         ERR_OK);
        ck_assert_uint_eq(n_one, 0);
        free(one);
        free(all);
        db_read_release(db_fixture_db, c);
    }

    /* The second roll's hash altered: broken at its entry, 8. */
    vlen = rolls_value(p.cb.id, v, sizeof v);
    v[8 + 2 * 32] ^= 1;
    rolls_value_set(p.cb.id, v, vlen);
    ck_assert_int_eq(broken_at(cmp.id), 8);
    v[8 + 2 * 32] ^= 1;
    rolls_value_set(p.cb.id, v, vlen);
    ck_assert_int_eq(broken_at(cmp.id), 0);
    /* Counting 5 hashes for 3 rolls, or cut after its hashes: unreadable,
     * broken at the combat's first entry, 7. */
    v[4] = 5;
    rolls_value_set(p.cb.id, v, vlen);
    ck_assert_int_eq(broken_at(cmp.id), 7);
    v[4] = 4;
    rolls_value_set(p.cb.id, v, 8 + 4 * 32);
    ck_assert_int_eq(broken_at(cmp.id), 7);
    /* Counts that cannot be: none, the first roll's previous hash alone,
     * more than the value holds. */
    {
        static const unsigned char counts[][4] = {
            {0, 0, 0, 0}, {1, 0, 0, 0}, {0xff, 0xff, 0xff, 0xff}, {5, 0, 0, 0}};
        for (i = 0; i < sizeof counts / sizeof counts[0]; i++) {
            memcpy(v + 4, counts[i], 4);
            ck_assert_msg(rolls_text(v, i < 3 ? vlen : 8 + 4 * 32) == NULL,
                          "count %zu read", i);
        }
        v[4] = 4;
        v[5] = v[6] = v[7] = 0;
        text2 = rolls_text(v, vlen);
        ck_assert_ptr_nonnull(text2);
        ck_assert_str_eq(text2, text);
        free(text2);
    }
    /* The rolls after the hashes in the compact layout, no frame; stored
     * as the layouts before did (after the same hashes, a frame of their
     * text with the documents' dictionary, or a bare one), they read the
     * same, and the ledger walks them whole. */
    ck_assert_int_ne(v[8 + 4 * 32], 0x1b);
    ck_assert_int_ne(v[8 + 4 * 32], 0x28);
    for (i = 0; i < 2; i++) {
        size_t v1_len;
        unsigned char *v1 = db_fixture_rolls_v1(v, vlen, i == 1, &v1_len);
        size_t head = 8 + 4 * 32;
        ck_assert_int_eq(memcmp(v1, "\x1brh1", 4), 0);
        ck_assert_int_eq(memcmp(v1 + 4, v + 4, head - 4), 0);
        if (i == 0)
            ck_assert_int_eq(memcmp(v1 + head, "\x1bud1", 4), 0);
        else
            ck_assert_int_eq(v1[head], 0x28); /* a zstd frame's first byte */
        text2 = rolls_text(v1, v1_len);
        ck_assert_ptr_nonnull(text2);
        ck_assert_str_eq(text2, text);
        free(text2);
        rolls_value_set(p.cb.id, v1, v1_len);
        free(v1);
        ck_assert_int_eq(broken_at(cmp.id), 0);
    }

    /* Stored the earlier way: its text in a bare frame, hashes and all. */
    legacy = db_fixture_pack_bare(text, &len);
    ck_assert_ptr_nonnull(legacy);
    free(text);
    ck_assert_int_ne(legacy[0], 0x1b);
    rolls_value_set(p.cb.id, legacy, len);
    free(legacy);
    n = stored(cmp.id, &ch, &rows);
    ck_assert_uint_eq(n, 9);
    for (i = 6; i < 9; i++)
        ck_assert_str_eq(rows[i].hash, p.rolls[i - 6].hash);
    db_ledger_rows_free(rows, n);
}
END_TEST

/* n chained rolls of a campaign combat (is_oneoff: n rolls of a one-off,
 * read back without a ledger place or hashes), packed and read back:
 * every field as it was (db_rolls_unpack of db_rolls_text).  The value
 * into v (at most 4096 bytes), *vlen its size. */
static void compact_round_trip(const db_roll *rolls, size_t n, bool is_oneoff,
                               unsigned char *v, size_t *vlen)
{
    db_combat cb;
    db_roll *back = NULL;
    size_t got = 0, i;
    char *text;
    err_info e;

    memset(&cb, 0, sizeof cb);
    if (!is_oneoff)
        snprintf(cb.campaign_id, sizeof cb.campaign_id, "%s",
                 "cmp_0123456789abcdef01234567");
    ck_assert_int_eq(db_combat_pack(&cb, rolls, n, &e), ERR_OK);
    ck_assert_ptr_nonnull(cb.rolls_z);
    ck_assert_int_eq(memcmp(cb.rolls_z, is_oneoff ? "\x1brc1" : "\x1brh2", 4),
                     0);
    ck_assert_int_eq(cb.ledger_first, is_oneoff ? 0 : rolls[0].ledger_pos);
    ck_assert_ptr_nonnull(text = rolls_text(cb.rolls_z, cb.rolls_z_len));
    ck_assert_int_eq(db_rolls_unpack(text, cb.ledger_first, &back, &got, &e),
                     ERR_OK);
    free(text);
    ck_assert_uint_eq(got, n);
    for (i = 0; i < n; i++) {
        ck_assert_int_eq(back[i].seq, rolls[i].seq);
        ck_assert_str_eq(back[i].side_name, rolls[i].side_name);
        ck_assert_str_eq(back[i].unit_id, rolls[i].unit_id);
        ck_assert_str_eq(back[i].unit_name, rolls[i].unit_name);
        ck_assert_str_eq(back[i].reason, rolls[i].reason);
        ck_assert_int_eq(back[i].faces, rolls[i].faces);
        ck_assert_int_eq(back[i].natural, rolls[i].natural);
        ck_assert_int_eq(back[i].modified, rolls[i].modified);
        ck_assert_str_eq(back[i].source, rolls[i].source);
        ck_assert_str_eq(back[i].rng, rolls[i].rng);
        ck_assert_int_eq(back[i].ledger_pos,
                         is_oneoff ? 0 : rolls[i].ledger_pos);
        ck_assert_str_eq(back[i].prev_hash,
                         is_oneoff ? "" : rolls[i].prev_hash);
        ck_assert_str_eq(back[i].hash, is_oneoff ? "" : rolls[i].hash);
    }
    free(back);
    ck_assert_uint_le(cb.rolls_z_len, 4096);
    memcpy(v, cb.rolls_z, cb.rolls_z_len);
    *vlen = cb.rolls_z_len;
    db_combat_cleanup(&cb);
}

/* The compact layout of a campaign combat's rolls (combat_pack.c): each
 * field read back as written, at the edges of what it holds (integers
 * from INT_MIN to INT_MAX, the longest strings, empty ones, unit ids in
 * db_new_id's form and out of it, a string repeated from the roll before
 * and changed again); a roll repeating the one before takes a few bytes;
 * and a value damaged in any of the ways it can be does not read. */
START_TEST(test_db_packed_rolls_compact)
{
    enum { N = 5 };
    db_roll r[N];
    unsigned char v[4096], bad[4096];
    size_t vlen, i, rolls_at = 8 + (N + 1) * 32, one_len;
    char name64[DB_NAME_MAX];

    memset(r, 0, sizeof r);
    memset(name64, 'n', sizeof name64 - 1);
    name64[sizeof name64 - 1] = '\0';
    for (i = 0; i < N; i++) {
        r[i].seq = (int)i + 1;
        snprintf(r[i].side_name, sizeof r[i].side_name, "%s", "blue");
        snprintf(r[i].unit_id, sizeof r[i].unit_id,
                 "unit_01a219fdb3b1e24edd387f%02zx", i);
        snprintf(r[i].unit_name, sizeof r[i].unit_name, "B%zu", i);
        snprintf(r[i].reason, sizeof r[i].reason, "%s", "SCRUD roll");
        r[i].faces = 6;
        r[i].natural = (int)i + 1;
        r[i].modified = (int)i - 2;
        snprintf(r[i].source, sizeof r[i].source, "%s", "seeded");
        snprintf(r[i].rng, sizeof r[i].rng, "%s", "v1");
        r[i].ledger_pos = 40 + (long long)i;
        snprintf(r[i].hash, sizeof r[i].hash, "%064zx", 0xa0 + i);
        snprintf(r[i].prev_hash, sizeof r[i].prev_hash, "%064zx",
                 i == 0 ? (size_t)0x9f : 0xa0 + i - 1);
    }
    /* five rolls alike but for their unit, numbers and hashes */
    compact_round_trip(r, N, false, v, &vlen);
    one_len = vlen;
    /* the edges: integers, the longest and empty strings, ids in other
     * forms (upper-case digits, too short, another prefix, none), a side
     * repeated, changed, then back */
    r[0].seq = 0;
    r[0].faces = INT32_MAX;
    r[0].natural = INT32_MIN;
    r[0].modified = -1;
    snprintf(r[0].side_name, sizeof r[0].side_name, "%s", name64);
    snprintf(r[0].unit_name, sizeof r[0].unit_name, "%s", name64);
    snprintf(r[1].unit_id, sizeof r[1].unit_id, "%s",
             "unit_01A219FDB3B1E24EDD387F8D");
    snprintf(r[2].unit_id, sizeof r[2].unit_id, "%s", "unit_01a2");
    snprintf(r[3].unit_id, sizeof r[3].unit_id, "%s",
             "cmp_0123456789abcdef01234567");
    r[4].unit_id[0] = '\0';
    r[4].unit_name[0] = '\0';
    snprintf(r[1].side_name, sizeof r[1].side_name, "%s", "red");
    snprintf(r[2].side_name, sizeof r[2].side_name, "%s", "red");
    snprintf(r[3].reason, sizeof r[3].reason, "%s",
             "a reason of thirty-one bytes...");
    ck_assert_uint_eq(strlen(r[3].reason), sizeof r[3].reason - 1);
    r[4].source[0] = '\0';
    r[4].rng[0] = '\0';
    r[4].faces = INT32_MIN;
    r[4].natural = INT32_MAX;
    compact_round_trip(r, N, false, v, &vlen);
    ck_assert_uint_gt(vlen, one_len);
    /* In the first value, after the hashes: a unit id as 12 bytes and the
     * rolls after the first (their side, reason, source and rng repeated)
     * a few bytes more than their id. */
    {
        db_roll same[2];
        unsigned char w[4096];
        size_t wlen, two;
        memcpy(same, r, sizeof same);
        snprintf(same[0].unit_id, sizeof same[0].unit_id, "%s",
                 "unit_01a219fdb3b1e24edd387f00");
        snprintf(same[1].unit_id, sizeof same[1].unit_id, "%s",
                 "unit_01a219fdb3b1e24edd387f01");
        snprintf(same[1].side_name, sizeof same[1].side_name, "%s",
                 same[0].side_name);
        snprintf(same[1].unit_name, sizeof same[1].unit_name, "%s",
                 same[0].unit_name);
        snprintf(same[1].reason, sizeof same[1].reason, "%s", same[0].reason);
        snprintf(same[1].source, sizeof same[1].source, "%s", same[0].source);
        snprintf(same[1].rng, sizeof same[1].rng, "%s", same[0].rng);
        same[1].faces = same[0].faces = 6;
        same[1].natural = same[0].natural = 3;
        same[1].modified = same[0].modified = 4;
        same[0].seq = 1;
        same[1].seq = 2;
        compact_round_trip(same, 2, false, w, &wlen);
        /* the first roll: 4 one-byte numbers, its side and name of 64
         * bytes (1 + 64 each), its id 1 + 12, its reason, source and rng
         * each 1 + its bytes; the second: 4 numbers, its id 1 + 12, its
         * 5 other strings repeated (0, a byte each) */
        two = 8 + 3 * 32;
        /* then the checksum, 4 bytes */
        ck_assert_uint_eq(wlen, two + (4 + 65 + 13 + 65 + 11 + 7 + 3) + 22 + 4);
        ck_assert_int_eq(w[two + 4], 64 + 2);
        ck_assert_int_eq(w[two + 4 + 65], 1);
        ck_assert_int_eq(w[wlen - 4 - 18], 0);
        ck_assert_int_eq(w[wlen - 4 - 17], 1);
        for (i = 1; i <= 4; i++)
            ck_assert_int_eq(w[wlen - 4 - i], 0);
    }
    /* A one-off's rolls: the same layout after their count, without
     * hashes; a count that does not match, or a cut, does not read. */
    {
        unsigned char oneoff[4096];
        size_t oneoff_len, j;
        compact_round_trip(r, N, true, oneoff, &oneoff_len);
        ck_assert_int_eq(memcmp(oneoff, "\x1brc1\x05\x00\x00\x00", 8), 0);
        ck_assert_uint_eq(oneoff_len, vlen - (N + 1) * 32);
        ck_assert_int_eq(memcmp(oneoff + 8, v + rolls_at, vlen - rolls_at), 0);
        for (j = 4; j <= 6; j += 2) {
            oneoff[4] = (unsigned char)j;
            ck_assert_msg(rolls_text(oneoff, oneoff_len) == NULL,
                          "count %zu read", j);
        }
        oneoff[4] = N;
        ck_assert_ptr_null(rolls_text(oneoff, oneoff_len - 1));
    }
    /* Damaged: cut anywhere in the rolls, a byte more after them, any bit
     * of the rolls or their checksum flipped (each fails the checksum);
     * and, with the checksum made right, the first roll's side "as the
     * roll before", a string longer than the value, a varint that never
     * ends or takes 6 bytes, a NUL in a string, an integer out of range,
     * a unit id cut short: none reads. */
    for (i = rolls_at; i < vlen; i++)
        ck_assert_msg(rolls_text(v, i) == NULL, "cut at %zu read", i);
    memcpy(bad, v, vlen);
    bad[vlen] = 0;
    ck_assert_ptr_null(rolls_text(bad, vlen + 1));
    for (i = rolls_at * 8; i < vlen * 8; i++) {
        bad[i / 8] ^= (unsigned char)(1u << (i % 8));
        ck_assert_msg(rolls_text(bad, vlen) == NULL, "bit %zu flipped read", i);
        bad[i / 8] ^= (unsigned char)(1u << (i % 8));
    }
    {
        /* a value of one roll, written here: its numbers 1, 6, 3 and 4
         * (zigzag: 2, 12, 6, 8), its side "blue", an empty id, its name
         * "B1", an empty reason, source and rng; it reads */
        static const unsigned char ok[] = {2,   12, 6, 8,   6,   'b', 'l', 'u',
                                           'e', 2,  4, 'B', '1', 2,   2,   2};
        static const unsigned char damaged[][20] = {
            /* the side "as the roll before" */
            {2, 12, 6, 8, 0, 2, 4, 'B', '1', 2, 2, 2},
            /* a side of 58 bytes */
            {2, 12, 6, 8, 60, 'b', 'l', 'u', 'e', 2, 4, 'B', '1', 2, 2, 2},
            /* a varint that never ends */
            {2, 12, 6, 8, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
             0x80, 0x80, 0x80},
            /* a NUL in the side */
            {2, 12, 6, 8, 6, 'b', 0, 'u', 'e', 2, 4, 'B', '1', 2, 2, 2},
            /* modified 2^31 */
            {2,   12,  6,   0x80, 0x80, 0x80, 0x80, 0x10, 6, 'b',
             'l', 'u', 'e', 2,    4,    'B',  '1',  2,    2, 2},
            /* a unit id's 12 bytes cut short */
            {2, 12, 6, 8, 6, 'b', 'l', 'u', 'e', 1, 4, 'B', '1', 2, 2, 2},
            /* seq 1 in 6 bytes */
            {0x82, 0x80, 0x80, 0x80, 0x80, 0, 12,  6,   8, 6,
             'b',  'l',  'u',  'e',  2,    4, 'B', '1', 2, 2}};
        static const size_t damaged_len[] = {12, 16, 16, 16, 20, 16, 20};
        size_t head = 8 + 2 * 32, j;
        char *text;
        memcpy(bad, v, 8);
        bad[4] = 2;
        bad[5] = bad[6] = bad[7] = 0;
        memset(bad + 8, 0x5a, 2 * 32);
        memcpy(bad + head, ok, sizeof ok);
        db_fixture_rolls_check(bad + head, sizeof ok, bad + head + sizeof ok);
        ck_assert_ptr_nonnull(text = rolls_text(bad, head + sizeof ok + 4));
        free(text);
        /* the same rolls as a one-off's: tag, count 1; with a count of 0
         * (a one-off's value never says none), it does not read */
        {
            unsigned char one[64];
            memcpy(one, "\x1brc1\x01\x00\x00\x00", 8);
            memcpy(one + 8, bad + head, sizeof ok + 4);
            ck_assert_ptr_nonnull(text = rolls_text(one, 8 + sizeof ok + 4));
            free(text);
            one[4] = 0;
            ck_assert_ptr_null(rolls_text(one, 8 + sizeof ok + 4));
        }
        /* a reason of 40 bytes, and an rng in a unit id's form: the text
         * holds them, but not a roll (db_rolls_unpack), nor does
         * db_rolls_read */
        {
            unsigned char longer[96];
            size_t k = 0, m;
            db_roll *got = NULL;
            err_info e;
            for (m = 0; m < 2; m++) {
                k = 0;
                memcpy(longer, ok, 13); /* numbers, side, id, name */
                k = 13;
                if (m == 0) {
                    longer[k++] = 40 + 2;
                    memset(longer + k, 'r', 40);
                    k += 40;
                    longer[k++] = 2;
                    longer[k++] = 2;
                } else {
                    longer[k++] = 2;
                    longer[k++] = 2;
                    longer[k++] = 1;
                    memset(longer + k, 0xab, 12);
                    k += 12;
                }
                memcpy(bad + head, longer, k);
                db_fixture_rolls_check(bad + head, k, bad + head + k);
                ck_assert_ptr_nonnull(text = rolls_text(bad, head + k + 4));
                free(text);
                ck_assert_int_eq(
                    db_rolls_read(bad, head + k + 4, 40, &got, &j, &e), ERR_DB);
                ck_assert_ptr_null(got);
            }
        }
        for (j = 0; j < sizeof damaged_len / sizeof damaged_len[0]; j++) {
            memcpy(bad + head, damaged[j], damaged_len[j]);
            db_fixture_rolls_check(bad + head, damaged_len[j],
                                   bad + head + damaged_len[j]);
            ck_assert_msg(rolls_text(bad, head + damaged_len[j] + 4) == NULL,
                          "damaged value %zu read", j);
        }
    }
}
END_TEST

START_TEST(test_db_action_chains)
{
    db_ledger_row *rows = NULL;
    db_battle seeded, entered, ghost;
    db_campaign cmp;
    combat_job a;
    db_chain ch;
    size_t n;

    db_fixture_open();
    db_fixture_add_campaign(&cmp, "Wavre");
    add_combat(&a, cmp.id, 2, false);
    add_battle(&seeded, cmp.id, true);
    add_battle(&entered, cmp.id, false);
    ck_assert_int_eq(add_action(&seeded, 1, "roll", "[4,1]", "{\"x\":1}"),
                     ERR_OK);
    ck_assert_int_eq(add_action(&seeded, 2, "accept", "[]", NULL), ERR_OK);
    ck_assert_int_eq(add_action(&entered, 1, "roll", "[2, 5]", NULL), ERR_OK);
    /* refused: nothing chained, nothing stored */
    ck_assert_int_eq(add_action(&entered, 2, "roll", "[4,", NULL),
                     ERR_INTERNAL);
    ck_assert_int_eq(add_action(&seeded, 2, "roll", "[1,1]", NULL),
                     ERR_CONFLICT);
    memcpy(&ghost, &seeded, sizeof ghost);
    db_new_id("bat", ghost.id);
    ck_assert_int_eq(add_action(&ghost, 1, "roll", "[1,1]", NULL),
                     ERR_CONFLICT);
    n = stored(cmp.id, &ch, &rows);
    ck_assert_int_eq(n, 5);
    ck_assert_int_eq(ch.length, 5);
    ck_assert_int_eq(rows[2].kind, LEDGER_ACTION);
    ck_assert_str_eq(rows[2].record_id, seeded.id);
    ck_assert_str_eq(rows[2].action, "roll");
    ck_assert_int_eq(rows[2].n_naturals, 2);
    ck_assert_int_eq(rows[2].naturals[0], 4);
    ck_assert_int_eq(rows[2].naturals[1], 1);
    ck_assert_str_eq(rows[2].detail, "{\"x\":1}");
    ck_assert_str_eq(rows[2].source, "seeded");
    ck_assert_str_eq(rows[2].rng, "v1");
    ck_assert_str_eq(rows[2].commitment, HEX64);
    ck_assert_str_eq(rows[2].client_seed, "my seed");
    ck_assert_str_eq(rows[3].action, "accept");
    ck_assert_int_eq(rows[3].n_naturals, 0);
    ck_assert_str_eq(rows[4].record_id, entered.id);
    ck_assert_str_eq(rows[4].source, "entered");
    ck_assert_str_eq(rows[4].rng, "");
    ck_assert_int_eq(rows[4].n_naturals, 2);
    db_ledger_rows_free(rows, n);
    ck_assert_int_eq(
        db_fixture_raw_query_int("SELECT count(*) FROM battle_actions"), 3);
}
END_TEST

/* ---- 2. Commitments and idempotency keys ------------------------------- */

typedef struct commit_job {
    const char *campaign_id, *commitment, *used_by, *before;
    int op; /* 0 new, 1 use, 2 purge, 3 renew (a campaign's) */
    db_commitment k;
} commit_job;

static err_code job_commit(db_conn *c, void *arg, err_info *e)
{
    commit_job *j = arg;

    if (j->op == 0)
        return db_commitment_new(c, j->campaign_id, &j->k, e);
    if (j->op == 1)
        return db_commitment_use(c, j->commitment, j->used_by, AT, e);
    if (j->op == 3)
        return db_commitment_renew(c, j->campaign_id, j->commitment, &j->k, e);
    return db_commitments_purge(c, j->before, e);
}

static err_code commit(int op, const char *campaign_id, const char *what,
                       db_commitment *out)
{
    commit_job j;
    err_info e;
    err_code rc;

    memset(&j, 0, sizeof j);
    j.campaign_id = campaign_id;
    j.commitment = j.before = what;
    j.used_by = "cbt_x";
    j.op = op;
    rc = db_fixture_write_rc(job_commit, &j, &e);

    if (out)
        *out = j.k;
    return rc;
}

START_TEST(test_db_commitments)
{
    db_commitment k1, k2, one, used1, got;
    long long version = 0, after = 0;
    char hex[LEDGER_HASH_HEX];
    uint8_t seed[32];
    db_campaign cmp;
    db_conn *c;
    err_info e;

    db_fixture_open();
    db_fixture_add_campaign(&cmp, "Wavre");
    ck_assert_int_eq(commit(0, cmp.id, NULL, &k1), ERR_OK);
    ck_assert_int_eq(rng_unhex(k1.seed, seed, sizeof seed), 0);
    rng_commitment(seed, hex);
    ck_assert_str_eq(k1.commitment, hex);
    /* one unused commitment per campaign */
    ck_assert_int_eq(commit(0, cmp.id, NULL, NULL), ERR_CONFLICT);
    ck_assert_int_eq(commit(0, NULL, NULL, &one), ERR_OK);
    c = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_commitment_next(c, cmp.id, &got, &e), ERR_OK);
    ck_assert_str_eq(got.commitment, k1.commitment);
    ck_assert_str_eq(got.seed, k1.seed);
    ck_assert_str_eq(got.used_at, "");
    ck_assert_int_eq(db_commitment_get(c, one.commitment, &got, &e), ERR_OK);
    ck_assert_str_eq(got.campaign_id, "");
    ck_assert_str_eq(got.created_at, one.created_at);
    db_read_release(db_fixture_db, c);
    /* kept on the campaign's row, not as a row of commitments */
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT count(*) FROM "
                                              "commitments WHERE campaign_id "
                                              "IS NOT NULL"),
                     0);
    /* a campaign's spent once, the next drawn in its place, its version
     * counted once; a one-off's or an unknown one cannot be spent */
    c = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_campaign_version(c, cmp.id, &version, &e), ERR_OK);
    db_read_release(db_fixture_db, c);
    ck_assert_int_eq(commit(3, cmp.id, one.commitment, NULL), ERR_CONFLICT);
    ck_assert_int_eq(commit(3, cmp.id, k1.commitment, &k2), ERR_OK);
    ck_assert_str_ne(k2.commitment, k1.commitment);
    ck_assert_int_eq(commit(3, cmp.id, k1.commitment, NULL), ERR_CONFLICT);
    ck_assert_int_eq(commit(3, cmp.id, HEX64_B, NULL), ERR_CONFLICT);
    c = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_commitment_next(c, cmp.id, &got, &e), ERR_OK);
    ck_assert_str_eq(got.commitment, k2.commitment);
    ck_assert_str_eq(got.seed, k2.seed);
    ck_assert_int_eq(rng_unhex(k2.seed, seed, sizeof seed), 0);
    rng_commitment(seed, hex);
    ck_assert_str_eq(k2.commitment, hex);
    ck_assert_int_eq(db_campaign_version(c, cmp.id, &after, &e), ERR_OK);
    ck_assert_int_eq(after, version + 1);
    ck_assert_int_eq(db_commitment_get(c, k1.commitment, &got, &e),
                     ERR_NOT_FOUND);
    ck_assert_int_eq(db_commitment_get(c, one.commitment, &got, &e), ERR_OK);
    ck_assert_str_eq(got.used_at, "");
    db_read_release(db_fixture_db, c);
    /* a one-off's used once, and kept with its combat */
    ck_assert_int_eq(commit(0, NULL, NULL, &used1), ERR_OK);
    ck_assert_int_eq(commit(1, NULL, used1.commitment, NULL), ERR_OK);
    ck_assert_int_eq(commit(1, NULL, used1.commitment, NULL), ERR_CONFLICT);
    ck_assert_int_eq(commit(1, NULL, HEX64_B, NULL), ERR_CONFLICT);
    c = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_commitment_get(c, used1.commitment, &got, &e), ERR_OK);
    db_read_release(db_fixture_db, c);
    ck_assert_str_eq(got.used_by, "cbt_x");
    ck_assert_str_eq(got.used_at, AT);
    /* the purge takes unused one-offs only, older than its time */
    ck_assert_int_eq(commit(2, NULL, "2000-01-01T00:00:00.000Z", NULL), ERR_OK);
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT count(*) FROM "
                                              "commitments"),
                     2);
    ck_assert_int_eq(commit(2, NULL, "9999-01-01T00:00:00.000Z", NULL), ERR_OK);
    c = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_commitment_get(c, one.commitment, &got, &e),
                     ERR_NOT_FOUND);
    ck_assert_int_eq(db_commitment_get(c, used1.commitment, &got, &e), ERR_OK);
    ck_assert_int_eq(db_commitment_next(c, cmp.id, &got, &e), ERR_OK);
    ck_assert_str_eq(got.commitment, k2.commitment);
    db_read_release(db_fixture_db, c);
}
END_TEST

typedef struct spend_job {
    const char *campaign_id, *spent;
    db_chain ch;
} spend_job;

/* The ledger's save spending spent (db_chain_spend), its head as it is. */
static err_code job_spend(db_conn *c, void *arg, err_info *e)
{
    spend_job *j = arg;
    err_code rc = db_chain_open(c, j->campaign_id, &j->ch, e);

    if (rc == ERR_OK) {
        db_chain_spend(&j->ch, j->spent);
        rc = db_chain_save(c, &j->ch, e);
    }
    return rc;
}

/* A staged combat's commitment is spent, and the next set, by the
 * ledger's save: one write, the version counted once; a commitment that
 * is no longer the next is refused, and nothing changes. */
START_TEST(test_db_chain_save_spends)
{
    db_commitment k1, got;
    db_campaign cmp;
    spend_job j;
    long long v0 = 0, v1 = 0;
    db_conn *c;
    err_info e;

    db_fixture_open();
    db_fixture_add_campaign(&cmp, "Wavre");
    ck_assert_int_eq(commit(0, cmp.id, NULL, &k1), ERR_OK);
    c = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_campaign_version(c, cmp.id, &v0, &e), ERR_OK);
    db_read_release(db_fixture_db, c);
    memset(&j, 0, sizeof j);
    j.campaign_id = cmp.id;
    j.spent = k1.commitment;
    db_fixture_write_ok(job_spend, &j, "spend with the save");
    c = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_commitment_next(c, cmp.id, &got, &e), ERR_OK);
    ck_assert_str_eq(got.commitment, j.ch.next.commitment);
    ck_assert_str_eq(got.seed, j.ch.next.seed);
    ck_assert_str_ne(got.commitment, k1.commitment);
    ck_assert_int_eq(db_campaign_version(c, cmp.id, &v1, &e), ERR_OK);
    ck_assert_int_eq(v1, v0 + 1);
    db_read_release(db_fixture_db, c);
    /* k1 again: not the next any more */
    memset(&j, 0, sizeof j);
    j.campaign_id = cmp.id;
    j.spent = k1.commitment;
    ck_assert_int_eq(db_fixture_write_rc(job_spend, &j, &e), ERR_CONFLICT);
    c = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_commitment_next(c, cmp.id, &got, &e), ERR_OK);
    ck_assert_str_ne(got.commitment, j.ch.next.commitment);
    ck_assert_int_eq(db_campaign_version(c, cmp.id, &v0, &e), ERR_OK);
    ck_assert_int_eq(v0, v1);
    db_read_release(db_fixture_db, c);
}
END_TEST

typedef struct idem_job {
    const db_idem *k;
    const char *before;
} idem_job;

static err_code job_idem(db_conn *c, void *arg, err_info *e)
{
    idem_job *j = arg;

    return j->k ? db_idem_insert(c, j->k, e) : db_idem_purge(c, j->before, e);
}

static err_code idem(const db_idem *k, const char *before)
{
    idem_job j = {k, before};
    err_info e;

    return db_fixture_write_rc(job_idem, &j, &e);
}

/* Keys stored before this are as good as gone. */
#define SINCE "2026-01-01T00:00:00.000Z"

START_TEST(test_db_idempotency)
{
    db_idem k, other, got;
    db_conn *c;
    err_info e;

    db_fixture_open();
    memset(&k, 0, sizeof k);
    snprintf(k.scope, sizeof k.scope, "tok_1");
    snprintf(k.key, sizeof k.key, "k-1");
    snprintf(k.fingerprint, sizeof k.fingerprint, HEX64);
    snprintf(k.created_at, sizeof k.created_at, AT);
    k.status = 201;
    snprintf(k.location, sizeof k.location, "/v1/combats/cbt_1");
    snprintf(k.render, sizeof k.render, "combat");
    k.body = "{\"id\":\"cbt_1\"}";
    other = k;
    snprintf(other.scope, sizeof other.scope, "tok_2");
    other.location[0] = other.render[0] = '\0';
    ck_assert_int_eq(idem(&k, NULL), ERR_OK);
    ck_assert_int_eq(idem(&k, NULL), ERR_CONFLICT);
    ck_assert_int_eq(idem(&other, NULL), ERR_OK);
    c = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_idem_get(c, "tok_1", "k-1", SINCE, &got, &e), ERR_OK);
    ck_assert_str_eq(got.fingerprint, HEX64);
    ck_assert_str_eq(got.created_at, AT);
    ck_assert_int_eq(got.status, 201);
    ck_assert_str_eq(got.location, "/v1/combats/cbt_1");
    ck_assert_str_eq(got.render, "combat");
    ck_assert_str_eq(got.body, k.body);
    db_idem_cleanup(&got);
    ck_assert_int_eq(db_idem_get(c, "tok_2", "k-1", SINCE, &got, &e), ERR_OK);
    ck_assert_str_eq(got.location, "");
    ck_assert_str_eq(got.render, "");
    db_idem_cleanup(&got);
    ck_assert_int_eq(db_idem_get(c, "tok_3", "k-1", SINCE, &got, &e),
                     ERR_NOT_FOUND);
    /* stored before since: as good as gone */
    ck_assert_int_eq(
        db_idem_get(c, "tok_1", "k-1", "2026-11-22T10:00:00.124Z", &got, &e),
        ERR_NOT_FOUND);
    ck_assert_int_eq(db_idem_get(c, "tok_1", "k-2", SINCE, &got, &e),
                     ERR_NOT_FOUND);
    db_read_release(db_fixture_db, c);
    ck_assert_int_eq(idem(NULL, "2000-01-01T00:00:00.000Z"), ERR_OK);
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT count(*) FROM "
                                              "idempotency_keys"),
                     2);
    ck_assert_int_eq(idem(NULL, "9999-01-01T00:00:00.000Z"), ERR_OK);
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT count(*) FROM "
                                              "idempotency_keys"),
                     0);
}
END_TEST

/* ---- 3. Migration 5 chains what was logged before it -------------------- */

#define OLD_CMP  "cmp_0192a0000001a1a1a1a1a1a1"
#define OLD_CMP2 "cmp_0192a0000002a2a2a2a2a2a2"
#define OLD_C1   "cbt_0192a0000003c3c3c3c3c3c3" /* seeded, 10:00 */
#define OLD_C2   "cbt_0192a0000004c4c4c4c4c4c4" /* entered, 10:10 */
#define OLD_REC  "cbt_0192a0000005c5c5c5c5c5c5" /* the battle's record */
#define OLD_ONE  "cbt_0192a0000006c6c6c6c6c6c6" /* one-off */
#define OLD_BT   "bat_0192a0000007b7b7b7b7b7b7" /* actions 10:05, 10:20 */

static void exec_ok(sqlite3 *c, const char *sql)
{
    char *msg = NULL;
    int rc = sqlite3_exec(c, sql, NULL, NULL, &msg);

    ck_assert_msg(rc == SQLITE_OK, "%.80s...: %s", sql, msg ? msg : "?");
    sqlite3_free(msg);
}

/* Seeds of the old seeded combat (1..32) and battle (101..132). */
static void old_seeds(uint8_t sx[32], uint8_t sy[32])
{
    int k;

    for (k = 0; k < 32; k++) {
        sx[k] = (uint8_t)(k + 1);
        sy[k] = (uint8_t)(k + 101);
    }
}

/*
 * db_fixture_path as schema 4 left it: migrations 1 to 4, then a campaign
 * with a seeded combat (its rolls stored out of seq order), a seeded
 * battle whose two actions come before and after an entered combat, the
 * battle's record, a one-off combat, and a second campaign with nothing.
 */
static void make_v4(void)
{
    uint8_t sx[32], sy[32];
    char hx[65], hy[65], cx[65], cy[65], sql[2048];
    int d[5], k;
    rng_v1 r;
    sqlite3 *c = NULL;

    old_seeds(sx, sy);
    rng_hex(sx, 32, hx);
    rng_hex(sy, 32, hy);
    rng_commitment(sx, cx);
    rng_commitment(sy, cy);
    ck_assert_int_eq(sqlite3_open(db_fixture_path, &c), SQLITE_OK);
    for (k = 0; k < 4; k++) {
        exec_ok(DB_LITE(c), "BEGIN");
        exec_ok(DB_LITE(c), migrations_sql[k]);
        snprintf(sql, sizeof sql, "PRAGMA user_version = %d", k + 1);
        exec_ok(DB_LITE(c), sql);
        exec_ok(DB_LITE(c), "COMMIT");
    }
#define CAMPAIGN(id, name)                                                     \
    "INSERT INTO campaigns (id, name, created_at, scrud_cap_kind, scrud_cap, " \
    "scrud_has_floor, scrud_floor, scrud_extra_dice, scrud_attrition, "        \
    "scrud_max_penalty, scrud_eliminate_below, "                               \
    "scrud_defeats_per_elimination) VALUES ('" id "', '" name "', "            \
    "'2025-06-01T09:00:00.000Z', 0, 0, 1, 1, 0, 1, 1, -2, 3)"
    exec_ok(DB_LITE(c), CAMPAIGN(OLD_CMP, "Ligny"));
    exec_ok(DB_LITE(c), CAMPAIGN(OLD_CMP2, "Wavre"));
#define COMBAT(id, cmp, at, src, com, seed, cs)                                \
    "INSERT INTO combats (id, campaign_id, system, created_at, "               \
    "dice_source, rng, commitment, server_seed, client_seed, summary, "        \
    "report) VALUES ('" id "', " cmp ", 'scrud', '" at "', '" src "', "        \
    "CASE '" src "' WHEN 'seeded' THEN 'v1' END, " com ", " seed ", " cs       \
    ", 's', '{}')"
    snprintf(sql, sizeof sql,
             COMBAT(OLD_C1, "'" OLD_CMP "'", "2025-06-01T10:00:00.000Z",
                    "seeded", "'%s'", "'%s'", "'cs'"),
             cx, hx);
    exec_ok(DB_LITE(c), sql);
    exec_ok(DB_LITE(c),
            COMBAT(OLD_C2, "'" OLD_CMP "'", "2025-06-01T10:10:00.000Z",
                   "entered", "NULL", "NULL", "NULL"));
    exec_ok(DB_LITE(c),
            COMBAT(OLD_REC, "'" OLD_CMP "'", "2025-06-01T10:20:00.000Z",
                   "seeded", "NULL", "NULL", "NULL"));
    exec_ok(DB_LITE(c), COMBAT(OLD_ONE, "NULL", "2025-06-01T10:00:00.000Z",
                               "entered", "NULL", "NULL", "NULL"));
    /* C1: a d6, a d10 and a d20 from its seed, stored seq 3, 1, 2 */
    rng_v1_init(&r, sx, (const uint8_t *)"cs", 2);
    d[0] = rng_v1_die(&r, 6);
    d[1] = rng_v1_die(&r, 10);
    d[2] = rng_v1_die(&r, 20);
    rng_v1_cleanup(&r);
#define ROLL(id, seq, faces, nat, src, rng)                                    \
    "('" id "', " #seq ", 'Blue', 'un_1', 'U1', 'scrud.front', " #faces        \
    ", " nat ", " nat ", '" src "', " rng ")"
    snprintf(
        sql, sizeof sql,
        "INSERT INTO rolls (combat_id, seq, side_name, unit_id, "
        "unit_name, reason, faces, natural, modified, source, rng) "
        "VALUES " ROLL(OLD_C1, 3, 20, "%d", "seeded", "'v1'") "," ROLL(
            OLD_C1, 1, 6, "%d", "seeded",
            "'v1'") "," ROLL(OLD_C1, 2, 10, "%d", "seeded",
                             "'v1'") "," ROLL(OLD_C2, 1, 6, "4", "entered",
                                              "NULL") "," ROLL(OLD_C2, 2, 6,
                                                               "2", "entered",
                                                               "NULL") "," ROLL(OLD_ONE,
                                                                                1,
                                                                                6,
                                                                                "5",
                                                                                "entered",
                                                                                "NULL"),
        d[2], d[2], d[0], d[0], d[1], d[1]);
    exec_ok(DB_LITE(c), sql);
    /* the battle: a roll of two dice from its seed, then an accept */
    rng_v1_init(&r, sy, NULL, 0);
    d[3] = rng_v1_die(&r, 6);
    d[4] = rng_v1_die(&r, 6);
    rng_v1_cleanup(&r);
    snprintf(sql, sizeof sql,
             "INSERT INTO battles (id, campaign_id, system, status, turn, "
             "created_at, updated_at, dice_source, commitment, server_seed, "
             "setup, n_actions, combat_id) VALUES ('" OLD_BT "', '" OLD_CMP
             "', 'matrix', 'finished', 1, '2025-06-01T10:01:00.000Z', "
             "'2025-06-01T10:20:00.000Z', 'seeded', '%s', '%s', '{}', 2, "
             "'" OLD_REC "');"
             "INSERT INTO battle_actions (battle_id, seq, at, kind, combat, "
             "army, unit, naturals, detail) VALUES ('" OLD_BT "', 2, "
             "'2025-06-01T10:20:00.000Z', 'accept', 0, -1, -1, '[]', NULL), "
             "('" OLD_BT "', 1, '2025-06-01T10:05:00.000Z', 'roll', 0, -1, "
             "-1, '[%d,%d]', '{\"x\":1}');"
             "INSERT INTO rolls (combat_id, seq, side_name, unit_id, "
             "unit_name, reason, faces, natural, modified, source, rng) "
             "VALUES " ROLL(OLD_REC, 1, 6, "%d", "seeded", "'v1'") "," ROLL(
                 OLD_REC, 2, 6, "%d", "seeded", "'v1'"),
             cy, hy, d[3], d[4], d[3], d[3], d[4], d[4]);
    exec_ok(DB_LITE(c), sql);
    ck_assert_int_eq(sqlite3_close(c), SQLITE_OK);
}

START_TEST(test_migration_backfill)
{
    static const struct {
        const char *record;
        int seq;
    } order[] = {{OLD_C1, 1}, {OLD_C1, 2}, {OLD_C1, 3}, {OLD_BT, 1},
                 {OLD_C2, 1}, {OLD_C2, 2}, {OLD_BT, 2}};
    uint8_t sx[32], sy[32];
    char hx[65], hy[65];
    db_ledger_row *rows = NULL;
    ledger_seed seeds[2];
    ledger_entry en[8];
    ledger_walk w;
    ledger_dice count;
    db_chain ch;
    err_info e;
    char *before, *after;
    size_t n, i;

    make_v4();
    db_fixture_open();
    ck_assert_int_eq(db_schema_version(db_fixture_db), db_n_migrations());
    ck_assert_int_ge(db_n_migrations(), 5);
    n = stored(OLD_CMP, &ch, &rows);
    ck_assert_int_eq(n, 7);
    ck_assert_int_eq(ch.length, 7);
    for (i = 0; i < n; i++) {
        ck_assert_msg(strcmp(rows[i].record_id, order[i].record) == 0 &&
                          rows[i].seq == order[i].seq,
                      "entry %zu is %s#%d, expected %s#%d", i + 1,
                      rows[i].record_id, rows[i].seq, order[i].record,
                      order[i].seq);
        db_ledger_row_entry(&rows[i], OLD_CMP, &en[i]);
    }
    ck_assert_int_eq(rows[3].kind, LEDGER_ACTION);
    ck_assert_str_eq(rows[3].detail, "{\"x\":1}");
    ck_assert_str_eq(rows[4].source, "entered");
    /* the old dice still re-derive from their seeds */
    old_seeds(sx, sy);
    rng_hex(sx, 32, hx);
    rng_hex(sy, 32, hy);
    seeds[0] = (ledger_seed){OLD_C1, hx};
    seeds[1] = (ledger_seed){OLD_BT, hy};
    memset(&w, 0, sizeof w);
    ck_assert_int_eq(ledger_check_dice(en, n, seeds, 2, &w, &count, &e),
                     ERR_OK);
    ck_assert_msg(w.broken_pos == 0, "%s", w.why);
    ck_assert_int_eq(count.seeded, 5);
    ck_assert_int_eq(count.rederived, 5);
    ck_assert_int_eq(count.entered, 2);
    db_ledger_rows_free(rows, n);
    /* the record and the one-off stay outside */
    ck_assert_int_eq(db_fixture_raw_query_int(
                         "SELECT count(*) FROM rolls WHERE ledger_pos IS NULL "
                         "AND combat_id IN ('" OLD_REC "', '" OLD_ONE "')"),
                     3);
    ck_assert_int_eq(db_fixture_raw_query_int(
                         "SELECT count(*) FROM rolls WHERE ledger_pos IS NULL"),
                     3);
    /* every campaign gets exactly one next commitment (migration 5), moved
     * onto its row (migration 16) */
    ck_assert_int_eq(db_fixture_raw_query_int(
                         "SELECT count(*) FROM campaigns WHERE id IN ('" OLD_CMP
                         "', '" OLD_CMP2 "') AND length(next_commitment) = 64 "
                         "AND length(next_seed) = 64 AND next_created_at IS "
                         "NOT NULL"),
                     2);
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT count(*) FROM "
                                              "commitments"),
                     0);
    n = stored(OLD_CMP2, &ch, &rows);
    ck_assert_int_eq(n, 0);
    ck_assert_str_eq(ch.head, ledger_genesis);
    db_ledger_rows_free(rows, n);
    /* opened again, nothing moves */
    db_close(db_fixture_db);
    db_fixture_db = NULL;
    before = db_fixture_snapshot();
    db_fixture_open();
    db_close(db_fixture_db);
    db_fixture_db = NULL;
    after = db_fixture_snapshot();
    ck_assert_str_eq(after, before);
    free(before);
    free(after);
}
END_TEST

/* The text of sql's first column on db_fixture_path, into buf (n bytes). */
static void raw_text(const char *sql, char *buf, size_t n)
{
    sqlite3 *raw;

    ck_assert_int_eq(sqlite3_open(db_fixture_path, &raw), SQLITE_OK);
    db_fixture_lite_query_text(raw, sql, buf, n);
    sqlite3_close(raw);
}

/* Migration 22: a store of schema 21, whose campaign combat's packed
 * rolls are a row of combat_rolls (made here from this build's by hand:
 * the rolls moved back out of the combat's row, its ledger_first column
 * dropped), opened by this build.  The rolls are moved into the combat's
 * row, the same bytes at the same place, combat_rolls goes, and the
 * ledger reads and walks as before, with the combat whose rolls are rows
 * and a one-off beside it untouched. */
START_TEST(test_migration_rolls_in_row)
{
    combat_job a, p, one;
    staged_job sp = {.j = &p, .pack = true};
    db_ledger_row *rows = NULL;
    db_campaign cmp;
    db_chain ch;
    db_conn *c;
    db_roll *rl = NULL;
    err_info e;
    char sql[512], before[2048], after[2048], rows_id[DB_ID_MAX];
    size_t n, n_rl, i;

    db_fixture_open();
    db_fixture_add_campaign(&cmp, "Wavre");
    add_combat(&a, cmp.id, 3, false); /* rows */
    add_combat(&p, cmp.id, 4, false);
    /* p written as rows: a fresh combat of the same rolls, packed */
    snprintf(rows_id, sizeof rows_id, "%s", p.cb.id);
    stage_again_packed(&sp, "a combat staged and packed");
    ck_assert_int_eq(p.cb.ledger_first, 8);
    add_combat(&one, "", 2, false); /* a one-off's, rows */
    n = stored(cmp.id, &ch, &rows);
    ck_assert_uint_eq(n, 3 + 4 + 4);
    db_ledger_rows_free(rows, n);
    db_close(db_fixture_db);
    db_fixture_db = NULL;
    snprintf(sql, sizeof sql,
             "SELECT hex(rolls) || ':' || ledger_first FROM combats "
             "WHERE id = '%s'",
             p.cb.id);
    raw_text(sql, before, sizeof before);
    ck_assert_uint_gt(strlen(before), 40);
    ck_assert_str_eq(before + strlen(before) - 2, ":8");
    /* back to schema 21 */
    db_fixture_raw_exec(
        "BEGIN;" DB_FIXTURE_BEFORE_23
        "CREATE TABLE combat_rolls (combat_id TEXT PRIMARY KEY REFERENCES "
        "combats(id), ledger_first INTEGER NOT NULL, rolls BLOB NOT NULL) "
        "WITHOUT ROWID;"
        "INSERT INTO combat_rolls SELECT id, ledger_first, rolls FROM combats "
        "WHERE ledger_first IS NOT NULL;"
        "UPDATE combats SET rolls = NULL WHERE ledger_first IS NOT NULL;"
        "ALTER TABLE combats DROP COLUMN ledger_first;"
        "PRAGMA user_version = 21;"
        "COMMIT;");
    ck_assert_int_eq(
        db_fixture_raw_query_int("SELECT count(*) FROM combat_rolls"), 1);

    db_fixture_open();
    ck_assert_int_eq(db_schema_version(db_fixture_db), db_n_migrations());
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT count(*) FROM "
                                              "sqlite_schema WHERE name = "
                                              "'combat_rolls'"),
                     0);
    raw_text(sql, after, sizeof after);
    ck_assert_str_eq(after, before);
    /* only the packed combat has a ledger_first; the others' rolls rows */
    ck_assert_int_eq(db_fixture_raw_query_int(
                         "SELECT count(*) FROM combats WHERE ledger_first IS "
                         "NOT NULL OR rolls IS NOT NULL"),
                     1);
    n = stored(cmp.id, &ch, &rows);
    ck_assert_uint_eq(n, 3 + 4 + 4);
    for (i = 0; i < n; i++)
        ck_assert_str_eq(rows[i].record_id, i < 3   ? a.cb.id
                                            : i < 7 ? rows_id
                                                    : p.cb.id);
    db_ledger_rows_free(rows, n);
    /* the combat's rolls, as the combat's page reads them */
    c = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_combat_rolls(c, &p.cb, &rl, &n_rl, &e), ERR_OK);
    db_read_release(db_fixture_db, c);
    ck_assert_uint_eq(n_rl, 4);
    for (i = 0; i < n_rl; i++) {
        ck_assert_int_eq(rl[i].ledger_pos, 8 + (long long)i);
        ck_assert_int_eq(rl[i].natural, p.rolls[i].natural);
        ck_assert_str_eq(rl[i].hash, p.rolls[i].hash);
    }
    free(rl);
}
END_TEST

/* The records of entry after + 1 up to upto (below 0: the last, n): the
 * part's records, each once. */
static size_t part_records(const db_ledger_row *rows, size_t n, long long after,
                           long long upto, const char *ids[], size_t max)
{
    size_t i, k, got = 0;
    long long last = upto < 0 || upto > (long long)n ? (long long)n : upto;

    for (i = (size_t)after; (long long)i < last; i++) {
        for (k = 0; k < got && strcmp(ids[k], rows[i].record_id) != 0; k++)
            ;
        if (k == got && got < max)
            ids[got++] = rows[i].record_id;
    }
    return got;
}

/* The part of campaign_id's ledger (rows, n entries, as stored() reads
 * it) after position after, up to to (below 0: to its end), read on c:
 * its entries exactly, with the whole ledger's hashes, and the seeds of
 * exactly its records. */
static void check_part(db_conn *c, const char *campaign_id,
                       const db_ledger_row *rows, size_t n, long long after,
                       long long to)
{
    db_ledger_row row;
    db_ledger_cursor *cur;
    db_ledger_seed sd;
    err_info e;
    size_t k, n_ids, n_seeds;
    long long pos;
    const char **ids = calloc(n + 1, sizeof *ids);
    char *seen = calloc(n + 1, 1);

    ck_assert_ptr_nonnull(ids);
    ck_assert_ptr_nonnull(seen);
    ck_assert_int_eq(
        db_ledger_cursor_open(c, campaign_id, after, to, false, &cur, &e),
        ERR_OK);
    for (pos = after + 1; db_ledger_cursor_entry(cur, &row, &e) == 1; pos++) {
        ck_assert_msg(row.pos == pos,
                      "after %lld up to %lld: entry %lld, not %lld", after, to,
                      row.pos, pos);
        ck_assert_str_eq(row.record_id, rows[pos - 1].record_id);
        ck_assert_msg(strcmp(row.prev_hash, rows[pos - 1].prev_hash) == 0 &&
                          strcmp(row.hash, rows[pos - 1].hash) == 0,
                      "after %lld up to %lld: entry %lld's hashes are not the "
                      "ledger's",
                      after, to, pos);
        db_ledger_row_clear(&row);
    }
    ck_assert_int_eq(pos, after >= (long long)n         ? after + 1
                          : to < 0 || to > (long long)n ? (long long)n + 1
                                                        : to + 1);
    /* Its records' seeds, each once, none other (none for an empty part
     * from position 1: the whole ledger's battles). */
    n_ids = part_records(rows, n, after, to, ids, n + 1);
    n_seeds = 0;
    while (db_ledger_cursor_seed(cur, &sd, &e) == 1) {
        for (k = 0; k < n_ids && strcmp(ids[k], sd.id) != 0; k++)
            ;
        ck_assert_msg(k < n_ids || (after == 0 && to < 0),
                      "after %lld up to %lld: the seed of %s, which has no "
                      "entry there",
                      after, to, sd.id);
        if (k < n_ids) {
            ck_assert_msg(seen[k] == 0,
                          "after %lld up to %lld: the seed of %s twice", after,
                          to, sd.id);
            seen[k] = 1;
        }
        free(sd.client_seed);
        n_seeds++;
    }
    if (after > 0 || to >= 0)
        ck_assert_msg(n_seeds == n_ids,
                      "after %lld up to %lld: %zu seeds for %zu records", after,
                      to, n_seeds, n_ids);
    db_ledger_cursor_close(cur);
    free(ids);
    free(seen);
}

/* Every part of campaign_id's ledger (rows, n entries, as stored()
 * reads it), from each position up to each later one and to its end
 * (check_part). */
static void check_parts(const char *campaign_id, const db_ledger_row *rows,
                        size_t n)
{
    db_conn *c = db_read_acquire(db_fixture_db);
    long long after, upto;

    for (after = 0; after <= (long long)n + 1; after++)
        for (upto = after + 1; upto <= (long long)n + 2; upto++)
            /* upto n + 2 stands for the whole rest (-1) */
            check_part(c, campaign_id, rows, n, after,
                       upto == (long long)n + 2 ? -1 : upto);
    db_read_release(db_fixture_db, c);
}

/* A clock stepped back between a battle's two actions: the later action
 * was logged with the earlier time.  The backfill keeps each record's
 * entries in seq order within the places the record holds, so its dice
 * still re-derive. */
START_TEST(test_migration_clock_step)
{
    static const struct {
        const char *record;
        int seq;
    } order[] = {{OLD_C1, 1}, {OLD_C1, 2}, {OLD_C1, 3}, {OLD_BT, 1},
                 {OLD_BT, 2}, {OLD_C2, 1}, {OLD_C2, 2}};
    uint8_t sx[32], sy[32];
    char hx[65], hy[65];
    db_ledger_row *rows = NULL;
    ledger_seed seeds[2];
    ledger_entry en[8];
    ledger_walk w;
    combat_job later;
    ledger_dice count;
    db_chain ch;
    err_info e;
    sqlite3 *c = NULL;
    size_t n, i;

    make_v4();
    ck_assert_int_eq(sqlite3_open(db_fixture_path, &c), SQLITE_OK);
    exec_ok(DB_LITE(c),
            "UPDATE battle_actions SET at = '2025-06-01T10:04:00.000Z' "
            "WHERE battle_id = '" OLD_BT "' AND seq = 2");
    ck_assert_int_eq(sqlite3_close(c), SQLITE_OK);
    db_fixture_open();
    n = stored(OLD_CMP, &ch, &rows);
    ck_assert_int_eq(n, 7);
    for (i = 0; i < n; i++) {
        ck_assert_msg(strcmp(rows[i].record_id, order[i].record) == 0 &&
                          rows[i].seq == order[i].seq,
                      "entry %zu is %s#%d, expected %s#%d", i + 1,
                      rows[i].record_id, rows[i].seq, order[i].record,
                      order[i].seq);
        db_ledger_row_entry(&rows[i], OLD_CMP, &en[i]);
    }
    ck_assert_int_eq(ledger_check(en, n, ch.length, ch.head, &w, &e), ERR_OK);
    ck_assert_msg(w.broken_pos == 0, "%s", w.why);
    old_seeds(sx, sy);
    rng_hex(sx, 32, hx);
    rng_hex(sy, 32, hy);
    seeds[0] = (ledger_seed){OLD_C1, hx};
    seeds[1] = (ledger_seed){OLD_BT, hy};
    ck_assert_int_eq(ledger_check_dice(en, n, seeds, 2, &w, &count, &e),
                     ERR_OK);
    ck_assert_msg(w.broken_pos == 0, "%s", w.why);
    ck_assert_int_eq(count.rederived, 5);
    db_ledger_rows_free(rows, n);
    /* Its parts, read where the event log names their records: the
     * ledger made before the log is logged as one move, after its
     * records, and a combat chained since as its own. */
    add_combat(&later, OLD_CMP, 2, false);
    n = stored(OLD_CMP, &ch, &rows);
    ck_assert_int_eq(n, 9);
    check_parts(OLD_CMP, rows, n);
    db_ledger_rows_free(rows, n);
}
END_TEST

/* The ledger's parts after each position (db_ledger_cursor_open's after),
 * over rolls kept as rows (a combat's rolls before migration 15 chained
 * in the rolls table, each one's previous hash taken from the one before
 * it), packed rolls and a battle's action: each part gives exactly the
 * entries after its position, each with the previous hash and the hash
 * the whole ledger gives it. */
START_TEST(test_db_ledger_parts)
{
    combat_job a, p, q;
    staged_job sp = {.j = &p, .pack = true};
    db_ledger_row *rows = NULL, row;
    db_ledger_cursor *cur;
    db_battle bt;
    db_campaign cmp, other;
    db_chain ch;
    db_conn *c;
    err_info e;
    size_t n;
    long long after, pos;

    db_fixture_open();
    db_fixture_add_campaign(&cmp, "Wavre");
    db_fixture_add_campaign(&other, "Ligny");
    add_combat(&a, cmp.id, 3, false);
    add_combat(&p, cmp.id, 3, false);
    stage_again_packed(&sp, "staged");
    add_combat(&q, cmp.id, 3, false);
    add_battle(&bt, cmp.id, true);
    ck_assert_int_eq(add_action(&bt, 1, "roll", "[3,4]", NULL), ERR_OK);
    n = stored(cmp.id, &ch, &rows);
    ck_assert_uint_gt(n, 9);
    c = db_read_acquire(db_fixture_db);
    for (after = 0; after <= (long long)n + 1; after++)
        check_part(c, cmp.id, rows, n, after, -1);
    /* Each combat's own entries by its id (rolls kept as rows, packed, and
     * packed when staged), with its seed alone, as the part after its
     * first position - 1 up to its last gives them. */
    {
        const char *ids[] = {a.cb.id, p.cb.id, q.cb.id};
        size_t k, i;
        for (k = 0; k < 3; k++) {
            long long first = 0, last = 0;
            db_ledger_seed sd;
            for (i = 0; i < n; i++)
                if (rows[i].kind == LEDGER_ROLL &&
                    strcmp(rows[i].record_id, ids[k]) == 0) {
                    if (first == 0)
                        first = rows[i].pos;
                    last = rows[i].pos;
                }
            ck_assert_int_gt(first, 0);
            db_ledger_cursor *gen;
            db_ledger_row want;
            ck_assert_int_eq(db_ledger_cursor_open_combat(
                                 c, cmp.id, ids[k], first, last, &cur, &e),
                             ERR_OK);
            /* Entry for entry, what the part by position gives. */
            ck_assert_int_eq(db_ledger_cursor_open(c, cmp.id, first - 1, last,
                                                   false, &gen, &e),
                             ERR_OK);
            for (pos = first; db_ledger_cursor_entry(cur, &row, &e) == 1;
                 pos++) {
                ck_assert_int_eq(db_ledger_cursor_entry(gen, &want, &e), 1);
                ck_assert_int_eq(row.pos, pos);
                ck_assert_int_eq(row.pos, want.pos);
                ck_assert_int_eq(row.kind, want.kind);
                ck_assert_int_eq(row.seq, want.seq);
                ck_assert_str_eq(row.record_id, ids[k]);
                ck_assert_str_eq(row.record_id, want.record_id);
                ck_assert_str_eq(row.at, want.at);
                ck_assert_str_eq(row.side, want.side);
                ck_assert_str_eq(row.unit_id, want.unit_id);
                ck_assert_str_eq(row.unit, want.unit);
                ck_assert_str_eq(row.reason, want.reason);
                ck_assert_int_eq(row.faces, want.faces);
                ck_assert_int_eq(row.natural, want.natural);
                ck_assert_int_eq(row.modified, want.modified);
                ck_assert_str_eq(row.source, want.source);
                ck_assert_str_eq(row.rng, want.rng);
                ck_assert_str_eq(row.commitment, want.commitment);
                ck_assert_str_eq(row.client_seed ? row.client_seed : "",
                                 want.client_seed ? want.client_seed : "");
                ck_assert_msg(strcmp(row.prev_hash, rows[pos - 1].prev_hash) ==
                                      0 &&
                                  strcmp(row.hash, rows[pos - 1].hash) == 0,
                              "combat %zu: entry %lld's hashes are not the "
                              "ledger's",
                              k, pos);
                db_ledger_row_clear(&row);
                db_ledger_row_clear(&want);
            }
            ck_assert_int_eq(pos, last + 1);
            ck_assert_int_eq(db_ledger_cursor_entry(gen, &want, &e), 0);
            db_ledger_cursor_close(gen);
            ck_assert_int_eq(db_ledger_cursor_seed(cur, &sd, &e), 1);
            ck_assert_str_eq(sd.id, ids[k]);
            ck_assert(!sd.is_battle);
            free(sd.client_seed);
            ck_assert_int_eq(db_ledger_cursor_seed(cur, &sd, &e), 0);
            db_ledger_cursor_close(cur);
            /* Named with another campaign: nothing. */
            ck_assert_int_eq(db_ledger_cursor_open_combat(
                                 c, other.id, ids[k], first, last, &cur, &e),
                             ERR_OK);
            ck_assert_int_eq(db_ledger_cursor_entry(cur, &row, &e), 0);
            ck_assert_int_eq(db_ledger_cursor_seed(cur, &sd, &e), 0);
            db_ledger_cursor_close(cur);
        }
    }
    db_read_release(db_fixture_db, c);
    db_ledger_rows_free(rows, n);
}
END_TEST

/* How a combat's move of the ledger sits beside its row in the event log
 * (test_db_ledger_parts_logged's loop): as written now, one row (SQLite
 * since migration 25); the combat's row, then the move's (before that,
 * and PostgreSQL's); the move's, then the combat's (PostgreSQL's store as
 * some builds wrote it).  Each combat's row with its move is made into
 * two, the other at seq - 1 (a combat logged with its move takes the seq
 * after a free one). */
static const char *const log_shapes[] = {
    NULL,
    "INSERT INTO event_log (seq, campaign_id, kind, record_id) "
    "SELECT seq - 1, campaign_id, 'combat', record_id FROM event_log "
    "WHERE kind = 'combat' AND head IS NOT NULL;"
    "UPDATE event_log SET kind = 'ledger', record_id = NULL "
    "WHERE kind = 'combat' AND head IS NOT NULL",
    "INSERT INTO event_log (seq, campaign_id, kind, n, head) "
    "SELECT seq - 1, campaign_id, 'ledger', n, head FROM event_log "
    "WHERE kind = 'combat' AND head IS NOT NULL;"
    "UPDATE event_log SET n = NULL, head = NULL "
    "WHERE kind = 'combat' AND head IS NOT NULL"};
enum { N_SHAPES = sizeof log_shapes / sizeof *log_shapes };

/* A part read from where the event log names its records
 * (db_ledger_cursor_open after a position, or up to one): every part of
 * a ledger whose records interleave (a battle's action first, another
 * battle's actions between combats of rows, packed and staged, another
 * campaign's combat and battle between them, a battle's row that moves
 * nothing), from each position
 * up to each later one and to the end, gives exactly its entries, with
 * the whole ledger's hashes, and the seeds of exactly its records, in
 * each shape of the log (log_shapes[_i % N_SHAPES]); then with the parts
 * of more than half of it read whole (db_ledger_parts_whole_from 0), as
 * a long ledger's are: each way taken, and giving the same. */
START_TEST(test_db_ledger_parts_logged)
{
    combat_job a, p, q, x;
    staged_job sp = {.j = &p, .pack = true};
    db_ledger_row *rows = NULL;
    db_battle b0, bt, bo;
    db_campaign cmp, other;
    db_chain ch;
    size_t n;
    long long logged0, whole0, logged, whole;

    db_fixture_open();
    db_fixture_add_campaign(&cmp, "Wavre");
    db_fixture_add_campaign(&other, "Ligny");
    add_battle(&b0, cmp.id, true);
    ck_assert_int_eq(add_action(&b0, 1, "roll", "[2]", NULL), ERR_OK);
    add_battle(&bt, cmp.id, true);
    add_combat(&a, cmp.id, 3, false);
    ck_assert_int_eq(add_action(&bt, 1, "roll", "[3,4]", NULL), ERR_OK);
    add_combat(&x, other.id, 2, false);
    add_combat(&p, cmp.id, 2, false);
    stage_again_packed(&sp, "staged");
    add_battle(&bo, other.id, true);
    ck_assert_int_eq(add_action(&bo, 1, "roll", "[6]", NULL), ERR_OK);
    ck_assert_int_eq(add_action(&bt, 2, "roll", "[1,2]", NULL), ERR_OK);
    add_combat(&q, cmp.id, 4, false);
    ck_assert_int_eq(add_action(&bt, 3, "roll", "[5]", NULL), ERR_OK);
    if (log_shapes[_i % N_SHAPES] != NULL) {
        sqlite3 *c = NULL;
        ck_assert_int_eq(sqlite3_open(db_fixture_path, &c), SQLITE_OK);
        exec_ok(c, log_shapes[_i % N_SHAPES]);
        ck_assert_int_eq(sqlite3_close(c), SQLITE_OK);
    }
    n = stored(cmp.id, &ch, &rows);
    ck_assert_uint_eq(n, 1 + 3 + 1 + 2 + 2 + 1 + 4 + 1);
    /* A ledger this short: every part through the log; or, from a length
     * of 0, those of more than half of it whole. */
    db_ledger_parts_whole_from(_i < N_SHAPES ? 4096 : 0);
    db_ledger_parts_stats(&logged0, &whole0);
    check_parts(cmp.id, rows, n);
    db_ledger_parts_stats(&logged, &whole);
    db_ledger_parts_whole_from(4096);
    ck_assert_int_gt(logged, logged0);
    if (_i < N_SHAPES)
        ck_assert_int_eq(whole, whole0);
    else
        ck_assert_int_gt(whole, whole0);
    db_ledger_rows_free(rows, n);
}
END_TEST

/* n rows of campaign_id's event log that move nothing (a token revoked,
 * as the log holds them), written behind the writer's back. */
static void log_filler(const char *campaign_id, int n)
{
    char sql[400];
    sqlite3 *s = NULL;

    snprintf(sql, sizeof sql,
             "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k "
             "WHERE i < %d) INSERT INTO event_log (campaign_id, kind, "
             "record_id) SELECT '%s', 'revoked', 'tok_none' FROM k",
             n, campaign_id);
    ck_assert_int_eq(sqlite3_open(db_fixture_path, &s), SQLITE_OK);
    exec_ok(s, sql);
    ck_assert_int_eq(sqlite3_close(s), SQLITE_OK);
}

/* Parts of a ledger whose campaign's log holds a long run of events that
 * move nothing between two runs of combats (5,000), and another
 * campaign's 5,000 after them, before its newest combat: every part still
 * gives exactly its entries and its records' seeds, and the part after
 * the newest combat is read through the log (it is short, whatever the
 * seqs between). */
START_TEST(test_db_ledger_parts_wide)
{
    combat_job j;
    db_campaign cmp, other;
    db_conn *c;
    long long logged0, whole0, logged, whole;
    db_ledger_row *rows = NULL;
    db_chain ch;
    size_t n, i;

    db_fixture_open();
    db_fixture_add_campaign(&cmp, "Quatre Bras");
    for (i = 0; i < 6; i++)
        add_combat(&j, cmp.id, 2, false);
    log_filler(cmp.id, 5000);
    for (i = 0; i < 5; i++)
        add_combat(&j, cmp.id, 2, false);
    db_fixture_add_campaign(&other, "Ligny");
    log_filler(other.id, 5000);
    add_combat(&j, cmp.id, 2, false);
    n = stored(cmp.id, &ch, &rows);
    ck_assert_uint_eq(n, 24);
    check_parts(cmp.id, rows, n);
    db_ledger_parts_whole_from(0);
    db_ledger_parts_stats(&logged0, &whole0);
    c = db_read_acquire(db_fixture_db);
    check_part(c, cmp.id, rows, n, 22, -1);
    db_read_release(db_fixture_db, c);
    db_ledger_parts_stats(&logged, &whole);
    db_ledger_parts_whole_from(4096);
    ck_assert_int_eq(logged, logged0 + 1);
    ck_assert_int_eq(whole, whole0);
    db_ledger_rows_free(rows, n);
}
END_TEST

Suite *suite_ledger(void)
{
    Suite *s = suite_create("ledger");
    TCase *tc = tcase_create("db");

    tcase_add_unchecked_fixture(tc, db_fixture_suite_make,
                                db_fixture_suite_remove);
    tcase_add_checked_fixture(tc, db_fixture_setup, db_fixture_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_db_chain);
    tcase_add_test(tc, test_db_combat_chains);
    tcase_add_test(tc, test_db_packed_rolls_chain);
    tcase_add_test(tc, test_db_ledger_parts);
    tcase_add_test(tc, test_db_ledger_parts_wide);
    tcase_add_loop_test(tc, test_db_ledger_parts_logged, 0, 2 * N_SHAPES);
    tcase_add_test(tc, test_db_staged_not_current);
    tcase_add_test(tc, test_db_packed_rolls_unreadable);
    tcase_add_test(tc, test_db_packed_rolls_hashes_beside);
    tcase_add_test(tc, test_db_unit_rolls_twice);
    tcase_add_test(tc, test_db_packed_rolls_compact);
    tcase_add_test(tc, test_db_action_chains);
    tcase_add_test(tc, test_db_commitments);
    tcase_add_test(tc, test_db_chain_save_spends);
    tcase_add_test(tc, test_db_idempotency);
    tcase_add_test(tc, test_migration_backfill);
    tcase_add_test(tc, test_migration_clock_step);
    tcase_add_test(tc, test_migration_rolls_in_row);
    suite_add_tcase(s, tc);
    return s;
}
