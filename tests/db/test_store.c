/*
 * test_store.c: tests db/store.c, row by row through the writer and back
 * through pooled read connections, as a request would see them: campaigns
 * with every SCRUD option, sides, tokens, units (found by id or name,
 * listed with every filter, updated), combats with their rolls, and unit
 * history events.
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
#include "scrud.h"
#include "suites.h"

#define HEX64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define HEX64_B                                                                \
    "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"

/* ---- helpers ----------------------------------------------------------- */

/* Job wrappers: one store call each, the row as arg. */
static err_code job_unit(sqlite3 *c, void *arg, err_info *e)
{
    return db_unit_insert(c, arg, e);
}

static err_code job_unit_update(sqlite3 *c, void *arg, err_info *e)
{
    return db_unit_update(c, arg, e);
}

static err_code job_event(sqlite3 *c, void *arg, err_info *e)
{
    return db_event_insert(c, arg, e);
}

typedef struct token_row {
    db_token t;
    const char *hash;
} token_row;

static err_code job_token(sqlite3 *c, void *arg, err_info *e)
{
    token_row *r = arg;

    return db_token_insert(c, &r->t, r->hash, "2026-01-01T00:00:00.000Z", e);
}

typedef struct combat_row {
    const db_combat *cb;
    const db_roll *rolls;
    size_t n_rolls;
} combat_row;

static err_code job_combat(sqlite3 *c, void *arg, err_info *e)
{
    combat_row *r = arg;

    return db_combat_insert(c, r->cb, r->rolls, r->n_rolls, e);
}

static void new_unit(db_unit *u, const db_side *s, const char *id,
                     const char *name)
{
    memset(u, 0, sizeof *u);
    if (id != NULL)
        snprintf(u->id, sizeof u->id, "%s", id);
    else
        db_new_id("un", u->id);
    snprintf(u->campaign_id, sizeof u->campaign_id, "%s", s->campaign_id);
    snprintf(u->side_id, sizeof u->side_id, "%s", s->id);
    snprintf(u->name, sizeof u->name, "%s", name);
    db_now(u->created_at);
    scrud_unit_default(&u->scrud);
}

static bool str_eq_or_null(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    return strcmp(a, b) == 0;
}

/* Every stored field of a unit; side_name only when want_side is given. */
static void check_unit(const db_unit *got, const db_unit *want,
                       const char *want_side)
{
    ck_assert_str_eq(got->id, want->id);
    ck_assert_str_eq(got->campaign_id, want->campaign_id);
    ck_assert_str_eq(got->side_id, want->side_id);
    ck_assert_str_eq(got->name, want->name);
    ck_assert_str_eq(got->created_at, want->created_at);
    ck_assert_int_eq(got->is_eliminated, want->is_eliminated);
    ck_assert_int_eq(got->scrud.is_eliminated, want->is_eliminated);
    ck_assert_str_eq(got->eliminated_reason, want->eliminated_reason);
    ck_assert_str_eq(got->eliminated_by, want->eliminated_by);
    ck_assert_int_eq(got->scrud.quality, want->scrud.quality);
    ck_assert_int_eq(got->scrud.faces, want->scrud.faces);
    ck_assert_int_eq(got->scrud.defeat_penalty, want->scrud.defeat_penalty);
    ck_assert_int_eq(got->scrud.fatigue_penalty, want->scrud.fatigue_penalty);
    if (want_side != NULL)
        ck_assert_str_eq(got->side_name, want_side);
}

/* ---- store round trips ------------------------------------------------- */

START_TEST(test_campaign_round_trip)
{
    db_campaign cmps[2], got;
    scrud_options def;
    err_info e;
    sqlite3 *r;
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
    db_fixture_new_campaign(&cmps[1], "Tannenberg 1914");
    cmps[1].scrud.cap_kind = SCRUD_CAP_NONE;
    cmps[1].scrud.floor = -3;
    cmps[1].scrud.extra_dice = SCRUD_EXTRA_IGNORE;
    cmps[1].scrud.max_penalty_per_combat = 0;
    cmps[1].scrud.eliminate_below = -100;
    cmps[1].scrud.defeats_per_elimination = 7;

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
    }
    err_clear(&e);
    ck_assert_int_eq(db_campaign_get(r, "cmp_nope", &got, &e), ERR_NOT_FOUND);
    ck_assert_int_eq(e.code, ERR_NOT_FOUND);
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
    sqlite3 *r;

    db_fixture_open();
    db_fixture_add_campaign(&c1, "One");
    db_fixture_add_campaign(&c2, "Two");
    db_fixture_add_campaign(&c3, "Empty");
    db_fixture_add_side(&sides[0], c1.id, ids[0], names[0]);
    /* The same name in another campaign. */
    db_fixture_add_side(&other, c2.id, "sd_9", "North");
    for (i = 1; i < 3; i++)
        db_fixture_add_side(&sides[i], c1.id, ids[i], names[i]);
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
    }
    free(list);
    ck_assert_int_eq(db_sides_list(r, c3.id, &list, &n, NULL), ERR_OK);
    ck_assert_uint_eq(n, 0);
    free(list);

    ck_assert_int_eq(db_side_find(r, c1.id, "sd_1", &got, NULL), ERR_OK);
    ck_assert_str_eq(got.name, "South"); /* the id wins over the name */
    ck_assert_int_eq(db_side_find(r, c1.id, "sd_2", &got, NULL), ERR_OK);
    ck_assert_str_eq(got.name, "sd_1");
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
    sqlite3 *r;

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

START_TEST(test_unit_round_trip_and_update)
{
    db_campaign c;
    db_side a, b;
    db_unit u, twin, got, ghost;
    err_info e;
    sqlite3 *r;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Units");
    db_fixture_add_side(&a, c.id, NULL, "Blue");
    db_fixture_add_side(&b, c.id, NULL, "Red");
    new_unit(&u, &a, NULL, "1st Foot");
    u.scrud.quality = 2;
    u.scrud.faces = 10;
    u.scrud.defeat_penalty = 1;
    u.scrud.fatigue_penalty = 3;
    db_fixture_write_ok(job_unit, &u, "insert unit");
    new_unit(&twin, &b, NULL, u.id); /* named like the first one's id */
    db_fixture_write_ok(job_unit, &twin, "insert twin");

    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_unit_find(r, c.id, u.id, &got, NULL), ERR_OK);
    check_unit(&got, &u, "Blue"); /* the id wins over the twin's name */
    ck_assert_int_eq(db_unit_find(r, c.id, "1st Foot", &got, NULL), ERR_OK);
    check_unit(&got, &u, "Blue");
    ck_assert_int_eq(db_unit_find(r, c.id, twin.id, &got, NULL), ERR_OK);
    check_unit(&got, &twin, "Red");
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
    db_fixture_write_ok(job_unit_update, &u, "update unit");
    ghost = u;
    db_new_id("un", ghost.id);
    ck_assert_int_eq(db_fixture_write_rc(job_unit_update, &ghost, &e),
                     ERR_NOT_FOUND);

    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_unit_find(r, c.id, "Old Guard", &got, NULL), ERR_OK);
    check_unit(&got, &u, "Red");
    ck_assert_int_eq(db_unit_find(r, c.id, "1st Foot", &got, NULL),
                     ERR_NOT_FOUND);
    db_read_release(db_fixture_db, r);
}
END_TEST

/* The units of test_units_list, in creation order; ids run backwards. */
static const struct {
    const char *id, *name;
    int side;
    bool is_eliminated;
} unit_specs[] = {
    {"un_e", "1st Foot", 0, false}, {"un_d", "2nd Foot", 1, true},
    {"un_c", "Horse", 0, true},     {"un_b", "Guns", 1, false},
    {"un_a", "Militia", 0, false},
};
#define N_UNIT_SPECS (sizeof unit_specs / sizeof unit_specs[0])

START_TEST(test_units_list)
{
    db_campaign c, c2;
    db_side sides[2], s2;
    db_unit u, *list;
    size_t i, n, k, want;
    int side, elim, count;
    sqlite3 *r;

    db_fixture_open();
    db_fixture_add_campaign(&c, "List");
    db_fixture_add_campaign(&c2, "Elsewhere");
    db_fixture_add_side(&sides[0], c.id, NULL, "Blue");
    db_fixture_add_side(&sides[1], c.id, NULL, "Red");
    db_fixture_add_side(&s2, c2.id, NULL, "Blue");
    for (i = 0; i < N_UNIT_SPECS; i++) {
        new_unit(&u, &sides[unit_specs[i].side], unit_specs[i].id,
                 unit_specs[i].name);
        u.is_eliminated = unit_specs[i].is_eliminated;
        if (u.is_eliminated)
            snprintf(u.eliminated_reason, sizeof u.eliminated_reason,
                     "threshold");
        db_fixture_write_ok(job_unit, &u, "insert unit");
    }
    new_unit(&u, &s2, NULL, "Horse"); /* another campaign's */
    db_fixture_write_ok(job_unit, &u, "insert other unit");

    r = db_read_acquire(db_fixture_db);
    /* Every filter against the reference: the specs, filtered, in order. */
    for (side = -1; side < 2; side++)
        for (elim = -1; elim <= 1; elim++) {
            const char *side_id = side < 0 ? NULL : sides[side].id;
            ck_assert_int_eq(
                db_units_list(r, c.id,
                              &(db_unit_filter){side_id, NULL, elim, -1}, &list,
                              &n, NULL),
                ERR_OK);
            for (i = 0, k = 0, want = 0; i < N_UNIT_SPECS; i++) {
                if ((side >= 0 && unit_specs[i].side != side) ||
                    (elim >= 0 && unit_specs[i].is_eliminated != (elim == 1)))
                    continue;
                want++;
                ck_assert_msg(k < n, "side %d elim %d: %s missing", side, elim,
                              unit_specs[i].name);
                ck_assert_str_eq(list[k].id, unit_specs[i].id);
                ck_assert_str_eq(list[k].name, unit_specs[i].name);
                ck_assert_str_eq(list[k].side_name,
                                 sides[unit_specs[i].side].name);
                ck_assert_int_eq(list[k].is_eliminated,
                                 unit_specs[i].is_eliminated);
                k++;
            }
            ck_assert_msg(n == want, "side %d elim %d: %zu units, want %zu",
                          side, elim, n, want);
            free(list);
        }
    ck_assert_int_eq(db_units_count(r, c.id, &count, NULL), ERR_OK);
    ck_assert_int_eq(count, (int)N_UNIT_SPECS);
    ck_assert_int_eq(db_units_count(r, c2.id, &count, NULL), ERR_OK);
    ck_assert_int_eq(count, 1);
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
    sqlite3 *r;

    db_fixture_open();
    db_fixture_add_campaign(&c, "One");
    db_fixture_add_campaign(&c2, "Two");
    db_fixture_add_side(&s, c.id, NULL, "Blue");
    db_fixture_add_side(&s2, c2.id, NULL, "Blue");
    new_unit(&first, &s, NULL, "Lancers");
    db_fixture_write_ok(job_unit, &first, "insert unit");
    new_unit(&dup, &s, NULL, "Lancers");
    ck_assert_int_eq(db_fixture_write_rc(job_unit, &dup, &e), ERR_CONFLICT);
    ck_assert_int_eq(e.code, ERR_CONFLICT);
    ck_assert_ptr_nonnull(strstr(e.message, "UNIQUE"));
    new_unit(&other, &s2, NULL, "Lancers");
    db_fixture_write_ok(job_unit, &other, "same name, other campaign");
    /* Renaming onto a taken name is the same conflict. */
    new_unit(&second, &s, NULL, "Dragoons");
    db_fixture_write_ok(job_unit, &second, "insert second");
    snprintf(second.name, sizeof second.name, "Lancers");
    ck_assert_int_eq(db_fixture_write_rc(job_unit_update, &second, &e),
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

/* A combat of campaign_id ("" one-off) with note and client seed. */
static void new_combat(db_combat *cb, const char *campaign_id,
                       const char *created_at, char *note, char *client_seed)
{
    memset(cb, 0, sizeof *cb);
    db_new_id("cmb", cb->id);
    snprintf(cb->campaign_id, sizeof cb->campaign_id, "%s", campaign_id);
    snprintf(cb->system, sizeof cb->system, "scrud");
    snprintf(cb->created_at, sizeof cb->created_at, "%s", created_at);
    snprintf(cb->dice_source, sizeof cb->dice_source, "seeded");
    snprintf(cb->rng, sizeof cb->rng, "v1");
    snprintf(cb->commitment, sizeof cb->commitment, "%s", HEX64);
    snprintf(cb->server_seed, sizeof cb->server_seed, "%s", HEX64_B);
    db_new_id("tok", cb->actor_token_id);
    cb->note = note;
    cb->client_seed = client_seed;
    cb->summary = "Blue 2 defeats, Red 3 defeats";
    cb->report = "{\"winner\":\"Blue\",\"note\":\"\xc3\xa9t\xc3\xa9\"}";
}

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
    ck_assert(str_eq_or_null(got->note, want->note));
    ck_assert(str_eq_or_null(got->client_seed, want->client_seed));
    ck_assert(str_eq_or_null(got->summary, want->summary));
    if (has_docs) {
        ck_assert(str_eq_or_null(got->report, want->report));
    } else {
        ck_assert_ptr_null(got->report);
    }
}

START_TEST(test_combats_and_rolls)
{
    /* Inserted out of seq order; seq 2 is a die of no unit. */
    static const db_roll rolls[] = {
        {3, "Red", "un_r", "Guns", "scrud.front", 6, 5, 4, "seeded", "v1"},
        {1, "Blue", "un_b", "Foot", "scrud.front", 6, 2, 3, "seeded", "v1"},
        {2, "", "", "", "test.weather", 20, 17, 17, "seeded", "v1"},
    };
    db_campaign c;
    db_combat c1, c0, c2, got, *list;
    combat_row row;
    db_roll bad[2], *rl;
    size_t n, i;
    err_info e;
    sqlite3 *r;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Combats");
    new_combat(&c1, c.id, "2026-03-01T10:00:00.000Z", NULL, "my seed");
    new_combat(&c0, "", "2026-03-01T10:00:01.000Z", "one-off", NULL);
    new_combat(&c2, c.id, "2026-03-01T10:00:02.000Z", "second", NULL);
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
    sqlite3 *r;

    db_fixture_open();
    db_fixture_add_campaign(&c, "History");
    db_fixture_add_side(&s, c.id, NULL, "Blue");
    new_unit(&a, &s, NULL, "A");
    db_fixture_write_ok(job_unit, &a, "insert a");
    new_unit(&b, &s, NULL, "B");
    db_fixture_write_ok(job_unit, &b, "insert b");
    new_combat(&cb, c.id, "2026-03-01T10:00:00.000Z", NULL, NULL);
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
        ck_assert(str_eq_or_null(list[i].before, w->before));
        ck_assert(str_eq_or_null(list[i].after, w->after));
        ck_assert(str_eq_or_null(list[i].result, w->result));
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
    tcase_add_test(store, test_sides);
    tcase_add_test(store, test_tokens);
    tcase_add_test(store, test_unit_round_trip_and_update);
    tcase_add_test(store, test_units_list);
    tcase_add_test(store, test_unit_name_unique_per_campaign);
    tcase_add_test(store, test_combats_and_rolls);
    tcase_add_test(store, test_history_events);
    return s;
}
