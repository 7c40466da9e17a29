/*
 * test_battles.c: tests db/battles.c, Matrix battles and their actions,
 * and the Matrix fields of db/store.c that test_store.c has no room for
 * (a side's exhausted turn saved and read back; a unit's Matrix quality
 * refused on reading when out of range).
 *
 * A battle written with every field away from its default must read back
 * whole; an update saves its five fields and nothing else; the list is
 * oldest first without setups; actions come back in seq order with every
 * field; a second action with a seq already taken is refused with
 * ERR_CONFLICT, alone or racing in one writer batch, and the first stays
 * as it was; one campaign never sees another's battle.  Writes go through
 * the writer, reads through pooled connections, on a fresh file with every
 * migration (db_fixture.h).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <sqlite3.h>

#include "db.h"
#include "db_fixture.h"
#include "matrix.h"
#include "suites.h"

#define HEX64   DB_FIXTURE_HEX64
#define HEX64_B DB_FIXTURE_HEX64_B
#define SETUP   "{\"kind\":\"open\",\"armies\":[[{\"quality\":1}],[]]}"

/* ---- helpers ----------------------------------------------------------- */

static err_code job_battle(db_conn *c, void *arg, err_info *e)
{
    return db_battle_insert(c, arg, e);
}

static err_code job_battle_update(db_conn *c, void *arg, err_info *e)
{
    return db_battle_update(c, arg, e);
}

/* An action for a battle; with is_counted, the job also sets the battle's
 * n_actions to the action's seq, as the server's job does. */
typedef struct action_row {
    db_battle *b;
    db_battle_action a;
    bool is_counted;
    err_code rc; /* db_submit's outcome */
} action_row;

static err_code job_action(db_conn *c, void *arg, err_info *e)
{
    action_row *r = arg;
    db_battle b = *r->b;
    err_code rc;

    if ((rc = db_battle_action_insert(c, r->b->id, &r->a, e)) != ERR_OK ||
        !r->is_counted)
        return rc;
    b.n_actions = r->a.seq;
    return db_battle_update(c, &b, e);
}

static void done_action(void *arg, err_code rc, const err_info *e)
{
    (void)e;
    ((action_row *)arg)->rc = rc;
}

static err_code job_nothing(db_conn *c, void *arg, err_info *e)
{
    (void)c;
    (void)arg;
    (void)e;
    return ERR_OK;
}

static err_code job_combat(db_conn *c, void *arg, err_info *e)
{
    return db_combat_insert(c, arg, NULL, 0, e);
}

/* Adds a combat of campaign_id; its id into id (DB_ID_MAX bytes). */
static void add_combat(const char *campaign_id, char *id)
{
    db_combat cb;

    db_fixture_new_combat(&cb, campaign_id, "2026-05-02T09:00:00.000Z", NULL,
                          NULL);
    db_fixture_write_ok(job_combat, &cb, "insert combat");
    memcpy(id, cb.id, DB_ID_MAX);
}

/* A battle of campaign_id with every field away from its default, but
 * combat_id and linked_to (there is no combat yet); strings borrowed. */
static void new_battle(db_battle *b, const char *campaign_id,
                       const char *created_at)
{
    memset(b, 0, sizeof *b);
    db_new_id("bat", b->id);
    snprintf(b->campaign_id, sizeof b->campaign_id, "%s", campaign_id);
    snprintf(b->system, sizeof b->system, "matrix");
    snprintf(b->status, sizeof b->status, "open");
    b->turn = 7;
    snprintf(b->created_at, sizeof b->created_at, "%s", created_at);
    snprintf(b->updated_at, sizeof b->updated_at, "2026-05-02T08:00:00.000Z");
    snprintf(b->dice_source, sizeof b->dice_source, "seeded");
    snprintf(b->commitment, sizeof b->commitment, "%s", HEX64);
    snprintf(b->server_seed, sizeof b->server_seed, "%s", HEX64_B);
    b->client_seed = "my seed";
    db_new_id("tok", b->actor_token_id);
    b->note = "\xc3\x89t\xc3\xa9 at the ford";
    b->setup = SETUP;
    b->n_actions = 0;
    db_new_id("bat", b->linked_from);
}

static void add_battle(db_battle *b, const char *campaign_id,
                       const char *created_at)
{
    new_battle(b, campaign_id, created_at);
    db_fixture_write_ok(job_battle, b, "insert battle");
}

/* Every field of got against want; setup only when has_setup (else it
 * must be NULL). */
static void check_battle(const db_battle *got, const db_battle *want,
                         bool has_setup)
{
    ck_assert_str_eq(got->id, want->id);
    ck_assert_str_eq(got->campaign_id, want->campaign_id);
    ck_assert_str_eq(got->system, want->system);
    ck_assert_str_eq(got->status, want->status);
    ck_assert_int_eq(got->turn, want->turn);
    ck_assert_str_eq(got->created_at, want->created_at);
    ck_assert_str_eq(got->updated_at, want->updated_at);
    ck_assert_str_eq(got->dice_source, want->dice_source);
    ck_assert_str_eq(got->commitment, want->commitment);
    ck_assert_str_eq(got->server_seed, want->server_seed);
    ck_assert(db_fixture_str_eq_or_null(got->client_seed, want->client_seed));
    ck_assert_str_eq(got->actor_token_id, want->actor_token_id);
    ck_assert(db_fixture_str_eq_or_null(got->note, want->note));
    ck_assert_int_eq(got->n_actions, want->n_actions);
    ck_assert_str_eq(got->combat_id, want->combat_id);
    ck_assert_str_eq(got->linked_from, want->linked_from);
    ck_assert_str_eq(got->linked_to, want->linked_to);
    if (has_setup) {
        ck_assert(db_fixture_str_eq_or_null(got->setup, want->setup));
    } else {
        ck_assert_ptr_null(got->setup);
    }
}

/* db_battle_get of (campaign_id, id) must be want. */
static void check_get(const char *campaign_id, const char *id,
                      const db_battle *want)
{
    db_conn *r = db_read_acquire(db_fixture_db);
    db_battle got;
    err_info e;
    err_code rc;

    err_clear(&e);
    rc = db_battle_get(r, campaign_id, id, &got, &e);
    db_read_release(db_fixture_db, r);
    ck_assert_msg(rc == ERR_OK, "get %s: %s", id, e.message);
    check_battle(&got, want, true);
    db_battle_cleanup(&got);
    ck_assert_ptr_null(got.setup);
}

/* Action seq of a battle, every field set; kind 0 roll, 1 commit. */
static void new_action(db_battle_action *a, int seq, int kind)
{
    static char *const naturals[] = {"[6,1]", "[4]", "[]"};

    memset(a, 0, sizeof *a);
    a->seq = seq;
    snprintf(a->at, sizeof a->at, "2026-05-02T08:00:%02d.000Z", seq);
    db_new_id("tok", a->actor_token_id);
    snprintf(a->kind, sizeof a->kind, "%s", kind ? "commit" : "roll");
    a->combat = seq % 3;
    a->army = kind ? seq % 2 : -1;
    a->unit = kind ? seq + 10 : -1;
    a->naturals = naturals[seq % 3];
    a->note = seq % 2 ? "feeds the reserve" : NULL;
}

static void check_action(const db_battle_action *got,
                         const db_battle_action *want)
{
    ck_assert_int_eq(got->seq, want->seq);
    ck_assert_str_eq(got->at, want->at);
    ck_assert_str_eq(got->actor_token_id, want->actor_token_id);
    ck_assert_str_eq(got->kind, want->kind);
    ck_assert_int_eq(got->combat, want->combat);
    ck_assert_int_eq(got->army, want->army);
    ck_assert_int_eq(got->unit, want->unit);
    ck_assert_ptr_nonnull(got->naturals);
    ck_assert_str_eq(got->naturals, want->naturals);
    ck_assert(db_fixture_str_eq_or_null(got->note, want->note));
}

/* The battle's actions must be want[0..n-1], in order. */
static void check_actions(const char *battle_id, const db_battle_action *want,
                          size_t n_want)
{
    db_conn *r = db_read_acquire(db_fixture_db);
    db_battle_action *list;
    size_t n, i;

    ck_assert_int_eq(db_battle_actions_list(r, battle_id, &list, &n, NULL),
                     ERR_OK);
    db_read_release(db_fixture_db, r);
    ck_assert_uint_eq(n, n_want);
    for (i = 0; i < n; i++)
        check_action(&list[i], &want[i]);
    db_battle_actions_free(list, n);
}

/* ---- the Matrix fields of sides and units (store.c) -------------------- */

START_TEST(test_side_exhausted_turn)
{
    db_campaign c, c2;
    db_side a, b, other, ghost, got, *list;
    err_info e;
    size_t n;
    db_conn *r;

    db_fixture_open();
    db_fixture_add_campaign(&c, "One");
    db_fixture_add_campaign(&c2, "Two");
    db_fixture_add_side(&a, c.id, NULL, "Blue");
    db_fixture_new_side(&b, c.id, NULL, "Red");
    b.exhausted_turn = 5; /* kept by insert */
    db_fixture_write_ok(db_fixture_job_side, &b, "insert exhausted side");
    db_fixture_add_side(&other, c2.id, NULL, "Blue");

    a.exhausted_turn = 12;
    db_fixture_write_ok(db_fixture_job_side_update, &a, "exhaust a");
    b.exhausted_turn = 0;
    db_fixture_write_ok(db_fixture_job_side_update, &b, "rest b");
    /* Not a side of that campaign, or none at all: nothing changes. */
    ghost = other;
    snprintf(ghost.campaign_id, sizeof ghost.campaign_id, "%s", c.id);
    ghost.exhausted_turn = 3;
    ck_assert_int_eq(
        db_fixture_write_rc(db_fixture_job_side_update, &ghost, &e),
        ERR_NOT_FOUND);
    ck_assert_int_eq(e.code, ERR_NOT_FOUND);
    db_new_id("sd", ghost.id);
    ck_assert_int_eq(
        db_fixture_write_rc(db_fixture_job_side_update, &ghost, &e),
        ERR_NOT_FOUND);

    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_sides_list(r, c.id, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(list[0].id, a.id);
    ck_assert_int_eq(list[0].exhausted_turn, 12);
    ck_assert_str_eq(list[1].id, b.id);
    ck_assert_int_eq(list[1].exhausted_turn, 0);
    free(list);
    ck_assert_int_eq(db_side_find(r, c.id, "Blue", &got, NULL), ERR_OK);
    ck_assert_int_eq(got.exhausted_turn, 12);
    ck_assert_str_eq(got.name, "Blue");
    ck_assert_str_eq(got.created_at, a.created_at);
    ck_assert_int_eq(db_side_find(r, c2.id, other.id, &got, NULL), ERR_OK);
    ck_assert_int_eq(got.exhausted_turn, 0);
    db_read_release(db_fixture_db, r);
}
END_TEST

/* Matrix qualities as rows: db_unit_find reads the good ones and refuses
 * the impossible ones (ERR_DB); only a unit carrying Matrix is checked. */
static const struct {
    bool has_matrix;
    int quality;
    bool is_ok;
} matrix_rows[] = {
    {true, 0, true},
    {true, -MATRIX_QUALITY_MAX, true},
    {true, MATRIX_QUALITY_MAX, true},
    {true, -MATRIX_QUALITY_MAX - 1, false},
    {true, MATRIX_QUALITY_MAX + 1, false},
    {true, 1000, false},
    {false, 1000, true}, /* not carried, so not checked */
    {false, -MATRIX_QUALITY_MAX - 1, true},
};
#define N_MATRIX_ROWS (sizeof matrix_rows / sizeof matrix_rows[0])

START_TEST(test_unit_matrix_quality_checked)
{
    db_unit_filter f = {NULL, "matrix", -1, -1};
    db_campaign c;
    db_side s;
    db_unit u, got, *list;
    char name[32];
    err_info e;
    size_t i, n, n_matrix = 0;
    db_conn *r;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Checked");
    db_fixture_add_side(&s, c.id, NULL, "Blue");
    for (i = 0; i < N_MATRIX_ROWS; i++) {
        snprintf(name, sizeof name, "unit %zu", i);
        db_fixture_new_unit(&u, &s, NULL, name);
        u.has_matrix = matrix_rows[i].has_matrix;
        u.matrix_quality = matrix_rows[i].quality;
        n_matrix += u.has_matrix;
        db_fixture_write_ok(db_fixture_job_unit, &u, name);
    }
    r = db_read_acquire(db_fixture_db);
    for (i = 0; i < N_MATRIX_ROWS; i++) {
        snprintf(name, sizeof name, "unit %zu", i);
        err_clear(&e);
        ck_assert_msg(db_unit_find(r, c.id, name, &got, &e) ==
                          (matrix_rows[i].is_ok ? ERR_OK : ERR_DB),
                      "quality %d (has_matrix %d): %s", matrix_rows[i].quality,
                      matrix_rows[i].has_matrix, e.message);
        if (matrix_rows[i].is_ok) /* stored as given */
            ck_assert_int_eq(got.matrix_quality, matrix_rows[i].quality);
    }
    /* The list reads every row as it is (it feeds no battle). */
    ck_assert_int_eq(db_units_list(r, c.id, NULL, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, N_MATRIX_ROWS);
    free(list);
    ck_assert_int_eq(db_units_list(r, c.id, &f, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, n_matrix);
    for (i = 0; i < n; i++)
        ck_assert(list[i].has_matrix);
    free(list);
    db_read_release(db_fixture_db, r);
}
END_TEST

/* ---- battles ----------------------------------------------------------- */

START_TEST(test_battle_round_trip)
{
    db_campaign c;
    db_battle full, bare, kept, bad;
    err_info e;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Battles");
    new_battle(&full, c.id, "2026-05-02T07:00:00.000Z");
    add_combat(c.id, full.combat_id);
    db_new_id("bat", full.linked_to);
    snprintf(full.status, sizeof full.status, "escalated");
    full.n_actions = 4;
    db_fixture_write_ok(job_battle, &full, "insert full battle");
    check_get(c.id, full.id, &full);

    /* Entered dice, nothing optional: NULL columns, read back as "" and
     * NULL. */
    new_battle(&bare, c.id, "2026-05-02T07:00:01.000Z");
    snprintf(bare.dice_source, sizeof bare.dice_source, "entered");
    bare.commitment[0] = bare.server_seed[0] = '\0';
    bare.actor_token_id[0] = bare.linked_from[0] = '\0';
    bare.client_seed = NULL;
    bare.note = ""; /* stored as NULL */
    db_fixture_write_ok(job_battle, &bare, "insert bare battle");
    ck_assert_int_eq(
        db_fixture_raw_query_int(
            "SELECT count(*) FROM battles WHERE commitment IS NULL AND "
            "server_seed IS NULL AND "
            "client_seed IS NULL AND actor_token_id IS NULL AND note IS NULL "
            "AND combat_id IS NULL AND linked_from IS NULL AND "
            "linked_to IS NULL"),
        1);
    bare.note = NULL;
    check_get(c.id, bare.id, &bare);

    /* An empty client seed is a seed given: kept as "", like a combat's. */
    new_battle(&kept, c.id, "2026-05-02T07:00:02.000Z");
    kept.client_seed = "";
    db_fixture_write_ok(job_battle, &kept, "insert empty client seed");
    check_get(c.id, kept.id, &kept);

    /* Refused: a taken id, an unknown status, an unknown campaign or
     * combat (constraints: ERR_CONFLICT); no setup (ERR_INTERNAL). */
    bad = full;
    ck_assert_int_eq(db_fixture_write_rc(job_battle, &bad, &e), ERR_CONFLICT);
    new_battle(&bad, c.id, "2026-05-02T07:00:03.000Z");
    snprintf(bad.status, sizeof bad.status, "paused");
    ck_assert_int_eq(db_fixture_write_rc(job_battle, &bad, &e), ERR_CONFLICT);
    new_battle(&bad, "cmp_nope", "2026-05-02T07:00:03.000Z");
    ck_assert_int_eq(db_fixture_write_rc(job_battle, &bad, &e), ERR_CONFLICT);
    new_battle(&bad, c.id, "2026-05-02T07:00:03.000Z");
    db_new_id("cmb", bad.combat_id);
    ck_assert_int_eq(db_fixture_write_rc(job_battle, &bad, &e), ERR_CONFLICT);
    new_battle(&bad, c.id, "2026-05-02T07:00:03.000Z");
    bad.setup = NULL;
    ck_assert_int_eq(db_fixture_write_rc(job_battle, &bad, &e), ERR_INTERNAL);
    ck_assert_int_eq(e.code, ERR_INTERNAL);
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT count(*) FROM battles"),
                     3);
    check_get(c.id, full.id, &full);
}
END_TEST

START_TEST(test_battle_update)
{
    db_campaign c, c2;
    db_battle b, other, up, want;
    err_info e;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Battles");
    db_fixture_add_campaign(&c2, "Elsewhere");
    add_battle(&b, c.id, "2026-05-02T07:00:00.000Z");
    add_battle(&other, c.id, "2026-05-02T07:00:01.000Z");

    /* The five fields are saved; the others, changed here, are not. */
    up = b;
    snprintf(up.status, sizeof up.status, "finished");
    snprintf(up.updated_at, sizeof up.updated_at, "2026-05-02T09:30:00.000Z");
    up.n_actions = 9;
    add_combat(c.id, up.combat_id);
    snprintf(up.linked_to, sizeof up.linked_to, "%s", other.id);
    up.turn = 99;
    snprintf(up.created_at, sizeof up.created_at, "2030-01-01T00:00:00.000Z");
    snprintf(up.dice_source, sizeof up.dice_source, "entered");
    up.commitment[0] = '\0';
    up.client_seed = NULL;
    up.note = "changed";
    up.setup = "{}";
    up.linked_from[0] = '\0';
    db_fixture_write_ok(job_battle_update, &up, "update battle");
    want = b;
    memcpy(want.status, up.status, sizeof want.status);
    memcpy(want.updated_at, up.updated_at, sizeof want.updated_at);
    want.n_actions = 9;
    memcpy(want.combat_id, up.combat_id, sizeof want.combat_id);
    memcpy(want.linked_to, up.linked_to, sizeof want.linked_to);
    check_get(c.id, b.id, &want);
    check_get(c.id, other.id, &other);

    /* Back to no combat and no link: "" is stored as NULL. */
    up = want;
    up.combat_id[0] = up.linked_to[0] = '\0';
    db_fixture_write_ok(job_battle_update, &up, "unlink battle");
    check_get(c.id, b.id, &up);

    /* Refused: a status not in the list, a combat that is not there; not
     * found: another campaign's, or no battle at all. */
    snprintf(up.status, sizeof up.status, "lost");
    ck_assert_int_eq(db_fixture_write_rc(job_battle_update, &up, &e),
                     ERR_CONFLICT);
    up = want;
    db_new_id("cmb", up.combat_id);
    ck_assert_int_eq(db_fixture_write_rc(job_battle_update, &up, &e),
                     ERR_CONFLICT);
    up = want;
    snprintf(up.campaign_id, sizeof up.campaign_id, "%s", c2.id);
    ck_assert_int_eq(db_fixture_write_rc(job_battle_update, &up, &e),
                     ERR_NOT_FOUND);
    ck_assert_int_eq(e.code, ERR_NOT_FOUND);
    up = want;
    db_new_id("bat", up.id);
    ck_assert_int_eq(db_fixture_write_rc(job_battle_update, &up, &e),
                     ERR_NOT_FOUND);
    want.combat_id[0] = want.linked_to[0] = '\0';
    check_get(c.id, b.id, &want);
}
END_TEST

START_TEST(test_battles_list)
{
    /* Created out of insertion order; two in the same millisecond keep the
     * order they were written in. */
    static const char *const times[] = {
        "2026-05-02T07:00:02.000Z", "2026-05-02T07:00:00.000Z",
        "2026-05-02T07:00:03.000Z", "2026-05-02T07:00:02.000Z"};
    static const size_t order[] = {1, 0, 3, 2};
    db_campaign c, c2, c3;
    db_battle bs[4], elsewhere, *list;
    size_t i, n;
    db_conn *r;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Battles");
    db_fixture_add_campaign(&c2, "Elsewhere");
    db_fixture_add_campaign(&c3, "Quiet");
    for (i = 0; i < 4; i++) {
        new_battle(&bs[i], c.id, times[i]);
        bs[i].turn = (int)i + 1;
        bs[i].client_seed = i % 2 ? NULL : "seed";
        bs[i].note = i % 2 ? "a note" : NULL;
        db_fixture_write_ok(job_battle, &bs[i], "insert battle");
        if (i == 1)
            add_battle(&elsewhere, c2.id, "2026-05-02T07:00:01.000Z");
    }
    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_battles_list(r, c.id, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 4);
    for (i = 0; i < n; i++)
        check_battle(&list[i], &bs[order[i]], false);
    db_battles_free(list, n);
    ck_assert_int_eq(db_battles_list(r, c2.id, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 1);
    check_battle(&list[0], &elsewhere, false);
    db_battles_free(list, n);
    ck_assert_int_eq(db_battles_list(r, c3.id, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 0);
    db_battles_free(list, n);
    db_read_release(db_fixture_db, r);
}
END_TEST

START_TEST(test_battle_actions)
{
    db_campaign c;
    db_battle b, b2;
    db_battle_action want[5];
    action_row row;
    err_info e;
    size_t i;
    static const size_t write_order[] = {2, 0, 4, 1, 3};

    db_fixture_open();
    db_fixture_add_campaign(&c, "Battles");
    add_battle(&b, c.id, "2026-05-02T07:00:00.000Z");
    add_battle(&b2, c.id, "2026-05-02T07:00:01.000Z");
    check_actions(b.id, NULL, 0);
    for (i = 0; i < 5; i++)
        new_action(&want[i], (int)i + 1, (int)i % 2);
    want[4].actor_token_id[0] = '\0'; /* NULL, read back as "" */
    snprintf(want[4].kind, sizeof want[4].kind, "accept");
    want[4].note = ""; /* stored as NULL */
    /* Written out of order: the list is in seq order whatever the writes. */
    for (i = 0; i < 5; i++) {
        row = (action_row){&b, want[write_order[i]], false, ERR_OK};
        db_fixture_write_ok(job_action, &row, "insert action");
    }
    row = (action_row){&b2, want[0], false, ERR_OK};
    db_fixture_write_ok(job_action, &row, "same seq, another battle");
    want[4].note = NULL;
    check_actions(b.id, want, 5);
    check_actions(b2.id, want, 1);

    /* Not a battle: refused by its foreign key; no dice list: refused
     * before SQL. */
    db_new_id("bat", b2.id);
    row = (action_row){&b2, want[0], false, ERR_OK};
    ck_assert_int_eq(db_fixture_write_rc(job_action, &row, &e), ERR_CONFLICT);
    row = (action_row){&b, want[0], false, ERR_OK};
    row.a.seq = 6;
    row.a.naturals = NULL;
    ck_assert_int_eq(db_fixture_write_rc(job_action, &row, &e), ERR_INTERNAL);
    check_actions(b.id, want, 5);
}
END_TEST

START_TEST(test_battle_action_seq_taken)
{
    db_campaign c;
    db_battle b, want_b;
    db_battle_action first, second, want[2];
    action_row rows[2];
    err_info e;
    int i;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Battles");
    add_battle(&b, c.id, "2026-05-02T07:00:00.000Z");
    new_action(&first, 1, 0);
    new_action(&second, 1, 1);
    second.naturals = "[2]";
    rows[0] = (action_row){&b, first, true, ERR_OK};
    db_fixture_write_ok(job_action, &rows[0], "first action");
    rows[1] = (action_row){&b, second, true, ERR_OK};
    err_clear(&e);
    ck_assert_int_eq(db_fixture_write_rc(job_action, &rows[1], &e),
                     ERR_CONFLICT);
    ck_assert_int_eq(e.code, ERR_CONFLICT);
    check_actions(b.id, &first, 1);
    want[0] = first;
    want_b = b;
    want_b.n_actions = 1;
    check_get(c.id, b.id, &want_b);

    /* Two requests that both read n_actions 1 race into one batch: the
     * first lands, the second is refused and leaves no trace. */
    new_action(&first, 2, 1);
    new_action(&second, 2, 0);
    second.naturals = "[5]";
    rows[0] = (action_row){&b, first, true, ERR_INTERNAL};
    rows[1] = (action_row){&b, second, true, ERR_INTERNAL};
    db_fixture_hold_writer();
    for (i = 0; i < 2; i++)
        ck_assert_int_eq(
            db_submit(db_fixture_db, job_action, done_action, &rows[i]),
            ERR_OK);
    db_fixture_release_writer();
    /* Jobs report in order: once this one is done, so are they. */
    db_fixture_write_ok(job_nothing, NULL, "after the race");
    ck_assert_int_eq(rows[0].rc, ERR_OK);
    ck_assert_int_eq(rows[1].rc, ERR_CONFLICT);
    want[1] = first;
    check_actions(b.id, want, 2);
    want_b.n_actions = 2;
    check_get(c.id, b.id, &want_b);
}
END_TEST

START_TEST(test_battle_of_another_campaign)
{
    db_campaign c, c2;
    db_battle b, got;
    err_info e;
    db_conn *r;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Mine");
    db_fixture_add_campaign(&c2, "Theirs");
    add_battle(&b, c2.id, "2026-05-02T07:00:00.000Z");
    r = db_read_acquire(db_fixture_db);
    err_clear(&e);
    ck_assert_int_eq(db_battle_get(r, c.id, b.id, &got, &e), ERR_NOT_FOUND);
    ck_assert_int_eq(e.code, ERR_NOT_FOUND);
    ck_assert_ptr_null(got.setup);
    db_battle_cleanup(&got);
    ck_assert_int_eq(db_battle_get(r, c.id, "bat_nope", &got, NULL),
                     ERR_NOT_FOUND);
    ck_assert_int_eq(db_battle_get(r, c2.id, b.id, &got, NULL), ERR_OK);
    db_battle_cleanup(&got);
    db_read_release(db_fixture_db, r);
}
END_TEST

START_TEST(test_cleanups_accept_null)
{
    db_battle b;

    db_battle_cleanup(NULL);
    db_battles_free(NULL, 0);
    db_battles_free(NULL, 3);
    db_battle_actions_free(NULL, 0);
    db_battle_actions_free(NULL, 3);
    /* A cleaned battle can be cleaned again. */
    memset(&b, 0, sizeof b);
    b.setup = strdup(SETUP);
    b.note = strdup("note");
    db_battle_cleanup(&b);
    ck_assert_ptr_null(b.setup);
    ck_assert_ptr_null(b.note);
    db_battle_cleanup(&b);
}
END_TEST

Suite *suite_battles(void)
{
    Suite *s = suite_create("battles");
    TCase *store = tcase_create("matrix store");
    TCase *battles = tcase_create("battles");
    TCase *tcs[2] = {store, battles};
    int i;

    for (i = 0; i < 2; i++) {
        tcase_add_unchecked_fixture(tcs[i], db_fixture_suite_make,
                                    db_fixture_suite_remove);
        tcase_add_checked_fixture(tcs[i], db_fixture_setup,
                                  db_fixture_teardown);
        tcase_set_timeout(tcs[i], 60);
        suite_add_tcase(s, tcs[i]);
    }
    tcase_add_test(store, test_side_exhausted_turn);
    tcase_add_test(store, test_unit_matrix_quality_checked);
    tcase_add_test(battles, test_battle_round_trip);
    tcase_add_test(battles, test_battle_update);
    tcase_add_test(battles, test_battles_list);
    tcase_add_test(battles, test_battle_actions);
    tcase_add_test(battles, test_battle_action_seq_taken);
    tcase_add_test(battles, test_battle_of_another_campaign);
    tcase_add_test(battles, test_cleanups_accept_null);
    return s;
}
