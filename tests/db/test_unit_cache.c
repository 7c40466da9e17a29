/*
 * test_unit_cache.c: the units kept between campaign combats' snapshots
 * (db/unit_cache.c, db_units_landed, db_unit_as_stored).
 *
 * What could go wrong is a snapshot given a row the store does not hold
 * at the campaign's version it read: a row kept at another version, a row
 * landed by a job that was rolled back, or a landed row that differs from
 * what a read of the written row gives.  Each is tried here; the rows the
 * cache gives are compared byte for byte with reads of the store on a
 * connection that does not use it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "db.h"
#include "db_conn.h"
#include "db_fixture.h"
#include "full_vfs.h"
#include "suites.h"
#include "unit_cache.h"

/* A string field written with bytes after its end that a read would not
 * give. */
#define SET_DIRTY(field, text)                                                 \
    do {                                                                       \
        memset((field), 'x', sizeof(field));                                   \
        snprintf((field), sizeof(field), "%s", (text));                        \
    } while (0)

/* u as a reader that does not use the cache reads it. */
static void read_plain(const char *campaign_id, const char *ref, db_unit *out)
{
    db_conn *r = db_read_acquire(db_fixture_db);
    err_info e;

    err_clear(&e);
    ck_assert_msg(db_unit_find(r, campaign_id, ref, out, &e) == ERR_OK, "%s",
                  e.message);
    db_read_release(db_fixture_db, r);
}

/* A unit written as given reads back as db_unit_as_stored(given) says,
 * byte for byte, for units of every system and values the store does not
 * keep. */
START_TEST(test_as_stored_is_what_a_read_gives)
{
    db_campaign c;
    db_side blue, red;
    db_unit base, given[6], got, want;
    size_t i;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Stored");
    db_fixture_add_side(&blue, c.id, NULL, "Blue");
    db_fixture_add_side(&red, c.id, NULL, "Red");
    for (i = 0; i < 6; i++) {
        char name[32];
        snprintf(name, sizeof name, "Unit %zu", i);
        db_fixture_new_unit(&base, &blue, NULL, name);
        db_fixture_write_ok(db_fixture_job_unit, &base, "insert unit");
        read_plain(c.id, base.id, &given[i]);
    }
    /* SCRUD, eliminated, strings with bytes after their end, and this
     * combat's values (reserve, modifier) that are not stored. */
    given[0].has_scrud = true;
    given[0].scrud.quality = 2;
    given[0].scrud.faces = 8;
    given[0].scrud.defeat_penalty = 1;
    given[0].scrud.fatigue_penalty = 2;
    given[0].scrud.is_reserve = true;
    given[0].scrud.modifier = -7;
    given[0].is_eliminated = true;
    SET_DIRTY(given[0].eliminated_reason, "defeats");
    SET_DIRTY(given[0].eliminated_by, "cbt_0123");
    SET_DIRTY(given[0].side_name, "Red");
    snprintf(given[0].side_id, sizeof given[0].side_id, "%s", red.id);
    SET_DIRTY(given[0].name, "Renamed");
    /* SCS, two-sided, the reduced side printing no attack (its value is
     * not stored). */
    given[1].has_scs = true;
    given[1].scs = (scs_counter){.full = {true, 12, 7, 8},
                                 .reduced = {false, 4, 3, 6},
                                 .has_reduced = true,
                                 .steps = 4,
                                 .steps_lost = 1,
                                 .is_exploit = true,
                                 .is_out_of_supply = true};
    /* SCS, one-sided, with a reduced side that is not stored. */
    given[2].has_scs = true;
    given[2].scs = (scs_counter){.full = {false, 9, 1, 0},
                                 .reduced = {true, 5, 5, 5},
                                 .has_reduced = false,
                                 .steps = 1};
    /* A counter on a unit without SCS: not stored. */
    given[3].scs = given[1].scs;
    /* EDNA, Matrix and Civilization. */
    given[4].has_edna = true;
    given[4].edna = 3;
    given[4].edna_start = 7;
    given[4].has_matrix = true;
    given[4].matrix_quality = -2;
    given[5].has_civ = true;
    given[5].civ = (civ_unit){CIV_AIRCRAFT, 3, 4, 2};
    given[5].matrix_quality = 3; /* not carried: stored as given */
    for (i = 0; i < 6; i++) {
        db_fixture_write_ok(db_fixture_job_unit_update, &given[i],
                            "update unit");
        read_plain(c.id, given[i].id, &got);
        db_unit_as_stored(&given[i], &want);
        ck_assert_msg(memcmp(&got, &want, sizeof got) == 0,
                      "unit %zu: read back is not as stored", i);
        ck_assert_str_eq(got.side_name, i == 0 ? "Red" : "Blue");
        /* In place, the same. */
        db_unit_as_stored(&given[i], &given[i]);
        ck_assert(memcmp(&got, &given[i], sizeof got) == 0);
    }
}
END_TEST

static db_unit unit_of(const char *campaign_id, const char *id,
                       const char *name, int quality)
{
    db_unit u;

    memset(&u, 0, sizeof u);
    snprintf(u.campaign_id, sizeof u.campaign_id, "%s", campaign_id);
    snprintf(u.id, sizeof u.id, "%s", id);
    snprintf(u.name, sizeof u.name, "%s", name);
    scrud_unit_default(&u.scrud);
    u.scrud.quality = quality;
    return u;
}

/* The cache alone: rows of one version, found by id or name, forgotten
 * for a newer version, and moved on by a landing only from the version
 * they are of. */
START_TEST(test_kept_rows_and_versions)
{
    unit_cache *k = unit_cache_new();
    db_unit a = unit_of("cmp_1", "unit_a", "Alpha", 1),
            b = unit_of("cmp_1", "unit_b", "Bravo", 2),
            odd = unit_of("cmp_1", "un_c", "unit_a2", 3), got, rows[70];
    unit_landing l;
    long long hits, misses, version;
    int i;

    ck_assert_ptr_nonnull(k);
    unit_cache_put(k, 5, &a);
    unit_cache_put(k, 5, &b);
    ck_assert(unit_cache_get(k, "cmp_1", 5, "unit_a", &got));
    ck_assert_str_eq(got.name, "Alpha");
    ck_assert(unit_cache_get(k, "cmp_1", 5, "Bravo", &got));
    ck_assert_str_eq(got.id, "unit_b");
    /* Another version, another campaign, an unknown unit. */
    ck_assert(!unit_cache_get(k, "cmp_1", 6, "unit_a", &got));
    ck_assert(!unit_cache_get(k, "cmp_1", 4, "unit_a", &got));
    ck_assert(!unit_cache_get(k, "cmp_2", 5, "unit_a", &got));
    ck_assert(!unit_cache_get(k, "cmp_1", 5, "Charlie", &got));
    /* A name shaped like an id is not answered by name: the store would
     * look for a unit of that id first. */
    unit_cache_put(k, 5, &odd);
    ck_assert(!unit_cache_get(k, "cmp_1", 5, "unit_a2", &got));
    ck_assert(unit_cache_get(k, "cmp_1", 5, "un_c", &got));
    unit_cache_stats(k, &hits, &misses);
    ck_assert_int_eq(hits, 3);
    ck_assert_int_eq(misses, 5);

    /* A row of an older version is not kept; a newer one forgets the
     * rows of before. */
    b.scrud.quality = 9;
    unit_cache_put(k, 4, &b);
    ck_assert(unit_cache_get(k, "cmp_1", 5, "unit_b", &got));
    ck_assert_int_eq(got.scrud.quality, 2);
    unit_cache_put(k, 7, &b);
    ck_assert(!unit_cache_get(k, "cmp_1", 7, "unit_a", &got));
    ck_assert(unit_cache_get(k, "cmp_1", 7, "unit_b", &got));
    ck_assert_int_eq(got.scrud.quality, 9);

    /* A landing from 7 to 9: the other rows move on with it. */
    unit_cache_put(k, 7, &a);
    memset(&l, 0, sizeof l);
    snprintf(l.campaign_id, sizeof l.campaign_id, "cmp_1");
    l.from = 7;
    l.to = 9;
    b.scrud.quality = 0;
    l.units = &b;
    l.n = 1;
    unit_cache_land(k, &l);
    ck_assert(!unit_cache_get(k, "cmp_1", 7, "unit_a", &got));
    ck_assert(unit_cache_get(k, "cmp_1", 9, "unit_a", &got));
    ck_assert(unit_cache_get(k, "cmp_1", 9, "unit_b", &got));
    ck_assert_int_eq(got.scrud.quality, 0);
    /* A landing from a version the rows are not of: only its own units
     * are known at its end. */
    l.from = 10;
    l.to = 12;
    unit_cache_land(k, &l);
    ck_assert(!unit_cache_get(k, "cmp_1", 12, "unit_a", &got));
    ck_assert(unit_cache_get(k, "cmp_1", 12, "unit_b", &got));
    /* One older than the rows kept changes nothing. */
    l.from = 3;
    l.to = 4;
    b.scrud.quality = 5;
    unit_cache_land(k, &l);
    ck_assert(!unit_cache_get(k, "cmp_1", 4, "unit_b", &got));
    ck_assert(unit_cache_get(k, "cmp_1", 12, "unit_b", &got));
    ck_assert_int_eq(got.scrud.quality, 0);

    /* More units than a campaign keeps: the newest are kept, the rows
     * stay each their own unit's. */
    for (i = 0; i < 70; i++) {
        char id[DB_ID_MAX], name[DB_NAME_MAX];
        snprintf(id, sizeof id, "unit_%d", i);
        snprintf(name, sizeof name, "U%d", i);
        rows[i] = unit_of("cmp_1", id, name, i % 4);
        unit_cache_put(k, 12, &rows[i]);
    }
    ck_assert_uint_eq(unit_cache_rows(k, "cmp_1", &version, rows, 70), 64);
    ck_assert_int_eq(version, 12);
    ck_assert(unit_cache_get(k, "cmp_1", 12, "unit_69", &got));
    ck_assert_str_eq(got.name, "U69");
    for (i = 0; i < 64; i++)
        ck_assert_int_eq(rows[i].scrud.quality,
                         atoi(rows[i].id + strlen("unit_")) % 4);
    unit_cache_free(k);
}
END_TEST

/* ---- through the store ---- */

typedef struct landing_job {
    const char *campaign_id;
    long long from;
    db_unit unit;         /* its new row */
    bool is_written;      /* db_unit_update first */
    bool is_saved;        /* before it, the ledger's save at from */
    const db_side *side;  /* after it, this side written (or NULL) */
    err_code rc;          /* what the job then answers */
    err_code done_rc;     /* what the writer told of it (land_done) */
    bool is_nothing_done; /* nothing_job, after it, done */
} landing_job;

/* A landing of u from version from, its quality made quality. */
static void landing_of(landing_job *j, const char *campaign_id, long long from,
                       const db_unit *u, int quality)
{
    memset(j, 0, sizeof *j);
    j->campaign_id = campaign_id;
    j->from = from;
    j->unit = *u;
    j->unit.scrud.quality = quality;
}

static void land_done(void *arg, err_code rc, const err_info *e)
{
    (void)e;
    ((landing_job *)arg)->done_rc = rc;
}

/* A job that writes nothing and succeeds: its batch commits. */
static err_code nothing_job(db_conn *c, void *arg, err_info *e)
{
    (void)c;
    (void)arg;
    (void)e;
    return ERR_OK;
}

static void nothing_done(void *arg, err_code rc, const err_info *e)
{
    (void)e;
    ((landing_job *)arg)->is_nothing_done = rc == ERR_OK;
}

static err_code land_job(db_conn *c, void *arg, err_info *e)
{
    landing_job *j = arg;
    db_unit *units = malloc(sizeof *units);
    err_code rc;

    ck_assert_ptr_nonnull(units);
    if (j->is_saved) {
        db_chain ch;
        bool is_current = false;
        ck_assert_int_eq(db_chain_open(c, j->campaign_id, &ch, e), ERR_OK);
        ck_assert_int_eq(db_chain_store_at(c, &ch, j->from, &is_current, e),
                         ERR_OK);
        ck_assert(is_current);
    }
    if (j->is_written && (rc = db_unit_update(c, &j->unit, e)) != ERR_OK) {
        free(units);
        return rc;
    }
    if (j->side != NULL)
        ck_assert_int_eq(db_side_update(c, j->side, e), ERR_OK);
    db_unit_as_stored(&j->unit, units);
    db_units_landed(c, j->campaign_id, j->from, &units, 1);
    ck_assert_ptr_null(units);
    if (j->rc != ERR_OK)
        return err_set(e, j->rc, NULL, "refused after landing");
    return ERR_OK;
}

/* A snapshot's read of ref (after the campaign's), its campaign's version
 * in *version; whether the cache answered for the unit. */
static bool read_snapshot(const char *campaign_id, const char *ref,
                          db_unit *out, long long *version)
{
    unit_cache *k = db_unit_cache(db_fixture_db);
    long long hits0, hits, misses;
    db_campaign cmp;
    db_conn *c;
    err_info e;

    err_clear(&e);
    ck_assert_int_eq(db_read_begin(db_fixture_db, &c, &e), ERR_OK);
    ck_assert_int_eq(db_campaign_get(c, campaign_id, &cmp, &e), ERR_OK);
    unit_cache_stats(k, &hits0, &misses);
    ck_assert_msg(db_unit_find(c, campaign_id, ref, out, &e) == ERR_OK, "%s",
                  e.message);
    ck_assert_int_eq(db_read_end(db_fixture_db, c, &e), ERR_OK);
    unit_cache_stats(k, &hits, &misses);
    *version = cmp.version;
    return hits > hits0;
}

/* What the store holds, read without the cache, is what a snapshot gets. */
static void check_same(const char *campaign_id, const char *ref,
                       const db_unit *got)
{
    db_unit want;

    read_plain(campaign_id, ref, &want);
    ck_assert_msg(memcmp(&want, got, sizeof want) == 0,
                  "%s: the snapshot's row is not the store's", ref);
}

START_TEST(test_landings_kept_once_committed)
{
    db_campaign c;
    db_side blue;
    db_unit a, b, got;
    landing_job j;
    long long v, v2;

    db_fixture_open();
    ck_assert_ptr_nonnull(db_unit_cache(db_fixture_db));
    db_fixture_add_campaign(&c, "Kept");
    db_fixture_add_side(&blue, c.id, NULL, "Blue");
    db_fixture_new_unit(&a, &blue, NULL, "Alpha");
    a.has_scrud = true;
    db_fixture_write_ok(db_fixture_job_unit, &a, "insert Alpha");
    db_fixture_new_unit(&b, &blue, NULL, "Bravo");
    b.has_scrud = true;
    db_fixture_write_ok(db_fixture_job_unit, &b, "insert Bravo");

    /* Read once from the store, then kept. */
    ck_assert(!read_snapshot(c.id, "Alpha", &got, &v));
    check_same(c.id, a.id, &got);
    ck_assert(!read_snapshot(c.id, b.id, &got, &v));
    ck_assert(read_snapshot(c.id, "Alpha", &got, &v2));
    ck_assert_int_eq(v2, v);
    check_same(c.id, a.id, &got);
    a = got;

    /* A job that lands a row and is then refused, in a batch that
     * commits (a job after it succeeds): rolled back, and its row is not
     * kept (nor would it be the store's). */
    landing_of(&j, c.id, v, &a, 3);
    j.rc = ERR_CONFLICT;
    j.done_rc = ERR_INTERNAL;
    db_fixture_hold_writer();
    ck_assert_int_eq(db_submit(db_fixture_db, land_job, land_done, &j), ERR_OK);
    ck_assert_int_eq(db_submit(db_fixture_db, nothing_job, nothing_done, &j),
                     ERR_OK);
    db_fixture_release_writer();
    /* Jobs end in order: once this one has, so have they. */
    db_fixture_write_ok(nothing_job, NULL, "after the batch");
    ck_assert_int_eq(j.done_rc, ERR_CONFLICT);
    ck_assert(j.is_nothing_done);
    ck_assert(read_snapshot(c.id, "Alpha", &got, &v2));
    ck_assert_int_eq(v2, v);
    ck_assert_int_eq(got.scrud.quality, 0);
    check_same(c.id, a.id, &got);
    /* The same written and landed: kept at the version it left, with
     * Bravo, which it did not touch. */
    j.is_written = true;
    j.rc = ERR_OK;
    db_fixture_write_ok(land_job, &j, "land Alpha");
    ck_assert(read_snapshot(c.id, a.id, &got, &v2));
    ck_assert_int_gt(v2, v);
    ck_assert_int_eq(got.scrud.quality, 3);
    check_same(c.id, a.id, &got);
    ck_assert(read_snapshot(c.id, "Bravo", &got, &v));
    ck_assert_int_eq(v, v2);
    check_same(c.id, b.id, &got);
    b = got;
    /* A write that lands nothing (an edit): the version moves, nothing
     * kept is given, the store's row is read. */
    b.scrud.quality = 2;
    db_fixture_write_ok(db_fixture_job_unit_update, &b, "edit Bravo");
    ck_assert(!read_snapshot(c.id, "Bravo", &got, &v));
    ck_assert_int_gt(v, v2);
    ck_assert_int_eq(got.scrud.quality, 2);
    check_same(c.id, b.id, &got);
    ck_assert(!read_snapshot(c.id, "Alpha", &got, &v));
    check_same(c.id, a.id, &got);
}
END_TEST

/* A staged combat's landing: its ledger's save checks the version and
 * counts it, its units' writes do not count it again, and the version
 * the landing names is the one the save left, not read (migration 26):
 * then kept and given at the version committed.  A side written after
 * the save counts it again (its trigger): the landing's version is one
 * no snapshot reads, and the store's rows are read. */
START_TEST(test_landing_at_the_saved_version)
{
    db_campaign c;
    db_side s;
    db_unit a, got;
    landing_job j;
    long long v, v2;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Saved");
    db_fixture_add_side(&s, c.id, NULL, "Blue");
    db_fixture_new_unit(&a, &s, NULL, "Alpha");
    db_fixture_write_ok(db_fixture_job_unit, &a, "insert Alpha");
    ck_assert(!read_snapshot(c.id, "Alpha", &got, &v));
    a = got;
    landing_of(&j, c.id, v, &a, 4);
    j.is_saved = true;
    j.is_written = true;
    db_fixture_write_ok(land_job, &j, "save, write and land Alpha");
    ck_assert(read_snapshot(c.id, a.id, &got, &v2));
    ck_assert_int_eq(v2, v + 1); /* counted once, by the save */
    ck_assert_int_eq(got.scrud.quality, 4);
    check_same(c.id, a.id, &got);
    a = got;
    landing_of(&j, c.id, v2, &a, 5);
    j.is_saved = true;
    j.is_written = true;
    j.side = &s;
    db_fixture_write_ok(land_job, &j, "save, write, land Alpha; a side");
    ck_assert(!read_snapshot(c.id, a.id, &got, &v));
    ck_assert_int_eq(v, v2 + 2);
    ck_assert_int_eq(got.scrud.quality, 5);
    check_same(c.id, a.id, &got);
}
END_TEST

/* A snapshot's read of the campaign's row and of side ref; how many of
 * the two the cache answered. */
static int read_side_snapshot(const char *campaign_id, const char *ref,
                              db_campaign *cmp, db_side *out)
{
    unit_cache *k = db_unit_cache(db_fixture_db);
    long long hits0, hits, misses;
    db_conn *c;
    err_info e;

    err_clear(&e);
    unit_cache_stats(k, &hits0, &misses);
    ck_assert_int_eq(db_read_begin(db_fixture_db, &c, &e), ERR_OK);
    ck_assert_int_eq(db_campaign_get(c, campaign_id, cmp, &e), ERR_OK);
    ck_assert_msg(db_side_find(c, campaign_id, ref, out, &e) == ERR_OK, "%s",
                  e.message);
    ck_assert_int_eq(db_read_end(db_fixture_db, c, &e), ERR_OK);
    unit_cache_stats(k, &hits, &misses);
    return (int)(hits - hits0);
}

/* The campaign's row and its sides are kept as its units are: read once,
 * then given, byte for byte the store's, until the campaign changes. */
START_TEST(test_sides_and_campaign_kept)
{
    db_campaign c, got_c, want_c;
    db_side blue, red, got, want;
    db_conn *r;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Sides");
    db_fixture_add_side(&blue, c.id, NULL, "Blue");
    db_fixture_add_side(&red, c.id, NULL, "Red");
    ck_assert_int_eq(read_side_snapshot(c.id, "Blue", &got_c, &got), 0);
    ck_assert_int_eq(read_side_snapshot(c.id, red.id, &got_c, &got), 1);
    ck_assert_int_eq(read_side_snapshot(c.id, "Blue", &got_c, &got), 2);
    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_side_find(r, c.id, blue.id, &want, NULL), ERR_OK);
    ck_assert_int_eq(db_campaign_get(r, c.id, &want_c, NULL), ERR_OK);
    db_read_release(db_fixture_db, r);
    ck_assert(memcmp(&got, &want, sizeof got) == 0);
    ck_assert(memcmp(&got_c, &want_c, sizeof got_c) == 0);
    /* A side changed (a Matrix battle's exhaustion): the campaign's
     * version moves, and what was kept is not given. */
    want.exhausted_turn = 3;
    db_fixture_write_ok(db_fixture_job_side_update, &want, "exhaust Blue");
    ck_assert_int_eq(read_side_snapshot(c.id, blue.id, &got_c, &got), 0);
    ck_assert_int_eq(got.exhausted_turn, 3);
    ck_assert_int_gt(got_c.version, want_c.version);
    ck_assert_int_eq(read_side_snapshot(c.id, "Blue", &got_c, &got), 2);
    ck_assert_str_eq(got.id, blue.id);
    ck_assert_int_eq(got.exhausted_turn, 3);
    /* A side named like a side's id is not answered by its name (the
     * store looks for such an id first); by its id it is. */
    db_fixture_add_side(&red, c.id, NULL, "sd_decoy");
    ck_assert_int_eq(read_side_snapshot(c.id, "sd_decoy", &got_c, &got), 0);
    ck_assert_int_eq(read_side_snapshot(c.id, "sd_decoy", &got_c, &got), 1);
    ck_assert_str_eq(got.id, red.id);
    ck_assert_int_eq(read_side_snapshot(c.id, red.id, &got_c, &got), 2);
    ck_assert_str_eq(got.name, "sd_decoy");
}
END_TEST

/* Outside a snapshot that has read the campaign, a read is the store's. */
START_TEST(test_no_cache_outside_a_snapshot)
{
    unit_cache *k;
    db_campaign c, read;
    db_side blue;
    db_unit a, got;
    long long v, hits0, hits, misses;
    db_conn *r;

    db_fixture_open();
    k = db_unit_cache(db_fixture_db);
    db_fixture_add_campaign(&c, "Plain");
    db_fixture_add_side(&blue, c.id, NULL, "Blue");
    db_fixture_new_unit(&a, &blue, NULL, "Alpha");
    db_fixture_write_ok(db_fixture_job_unit, &a, "insert Alpha");
    ck_assert(!read_snapshot(c.id, "Alpha", &got, &v));
    unit_cache_stats(k, &hits0, &misses);
    /* A pooled reader without a snapshot. */
    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_campaign_get(r, c.id, &read, NULL), ERR_OK);
    ck_assert_int_eq(db_unit_find(r, c.id, "Alpha", &got, NULL), ERR_OK);
    db_read_release(db_fixture_db, r);
    /* A snapshot that has not read the campaign. */
    ck_assert_int_eq(db_read_begin(db_fixture_db, &r, NULL), ERR_OK);
    ck_assert_int_eq(db_unit_find(r, c.id, "Alpha", &got, NULL), ERR_OK);
    ck_assert_int_eq(db_read_end(db_fixture_db, r, NULL), ERR_OK);
    unit_cache_stats(k, &hits, &misses);
    ck_assert_int_eq(hits, hits0);
    /* A snapshot given back without its end (db_read_release rolls it
     * back): the connection, lent again, reads the store. */
    ck_assert_int_eq(db_read_begin(db_fixture_db, &r, NULL), ERR_OK);
    ck_assert_int_eq(db_campaign_get(r, c.id, &read, NULL), ERR_OK);
    db_read_release(db_fixture_db, r);
    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_unit_find(r, c.id, "Alpha", &got, NULL), ERR_OK);
    db_read_release(db_fixture_db, r);
    unit_cache_stats(k, &hits, &misses);
    ck_assert_int_eq(hits, hits0 + 1); /* the campaign's row, in it */
    /* And a snapshot that has: kept. */
    ck_assert(read_snapshot(c.id, "Alpha", &got, &v));
}
END_TEST

/* ---- the next commitment, read with the campaign's version ---- */

typedef struct renew_job {
    const char *campaign_id;
    const char *spent; /* NULL: the campaign's first */
    db_commitment next;
} renew_job;

static err_code run_renew(db_conn *c, void *arg, err_info *e)
{
    renew_job *j = arg;

    return j->spent
               ? db_commitment_renew(c, j->campaign_id, j->spent, &j->next, e)
               : db_commitment_new(c, j->campaign_id, &j->next, e);
}

/* A snapshot's next commitment of campaign_id (want: ERR_OK or
 * ERR_NOT_FOUND) after it read the campaign kept or not (*was_kept:
 * whether it came with the campaign's version), read in a snapshot that
 * read campaign_id's row (or other's, when given). */
static void snapshot_next(const char *campaign_id, const char *other,
                          err_code want, db_commitment *out, bool *was_kept)
{
    db_campaign cmp;
    db_conn *c;
    err_info e;

    err_clear(&e);
    ck_assert_int_eq(db_read_begin(db_fixture_db, &c, &e), ERR_OK);
    ck_assert_int_eq(db_campaign_get(c, other ? other : campaign_id, &cmp, &e),
                     ERR_OK);
    *was_kept = c->has_snap_next;
    ck_assert_int_eq(db_commitment_next(c, campaign_id, out, &e), want);
    ck_assert_int_eq(db_read_end(db_fixture_db, c, &e), ERR_OK);
    /* The seed does not outlive the snapshot. */
    ck_assert(!c->has_snap_next);
    ck_assert_str_eq(c->snap_next.seed, "");
}

static void assert_same_commitment(const db_commitment *got,
                                   const db_commitment *want)
{
    ck_assert_str_eq(got->commitment, want->commitment);
    ck_assert_str_eq(got->seed, want->seed);
    ck_assert_str_eq(got->campaign_id, want->campaign_id);
    ck_assert_str_eq(got->created_at, want->created_at);
    ck_assert_str_eq(got->used_at, "");
    ck_assert_str_eq(got->used_by, "");
}

/* A staged combat reads its campaign's next commitment in the statement
 * that checks the kept campaign's version: what it gets is the store's,
 * for that campaign alone, and moves when the commitment is spent. */
START_TEST(test_next_commitment_with_the_version)
{
    db_campaign c, d;
    renew_job first = {0}, second = {0};
    db_commitment got, plain;
    bool was_kept;
    db_conn *r;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Next");
    /* d in another slot of the cache than c's (one in 32 would share it,
     * and put c out when kept) */
    do
        db_fixture_add_campaign(&d, "Other");
    while (unit_cache_slot(d.id) == unit_cache_slot(c.id));
    first.campaign_id = c.id;
    db_fixture_write_ok(run_renew, &first, "draw the first commitment");
    /* Not kept yet: read whole, then the commitment on its own. */
    snapshot_next(c.id, NULL, ERR_OK, &got, &was_kept);
    ck_assert(!was_kept);
    assert_same_commitment(&got, &first.next);
    /* Kept: with the version. */
    snapshot_next(c.id, NULL, ERR_OK, &got, &was_kept);
    ck_assert(was_kept);
    assert_same_commitment(&got, &first.next);
    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_commitment_next(r, c.id, &plain, NULL), ERR_OK);
    db_read_release(db_fixture_db, r);
    assert_same_commitment(&got, &plain);
    /* A snapshot that read c's version does not give c's commitment as
     * another campaign's (which has none). */
    snapshot_next(d.id, c.id, ERR_NOT_FOUND, &got, &was_kept);
    ck_assert(was_kept);
    /* One snapshot reads c (kept, with its seed), then d (kept, without
     * one): c's seed does not outlive the snapshot either. */
    snapshot_next(d.id, NULL, ERR_NOT_FOUND, &got, &was_kept); /* d kept */
    {
        db_campaign cmp;
        db_conn *s;
        ck_assert_int_eq(db_read_begin(db_fixture_db, &s, NULL), ERR_OK);
        ck_assert_int_eq(db_campaign_get(s, c.id, &cmp, NULL), ERR_OK);
        ck_assert(s->has_snap_next);
        ck_assert_int_eq(db_campaign_get(s, d.id, &cmp, NULL), ERR_OK);
        ck_assert(!s->has_snap_next);
        ck_assert_str_eq(s->snap_next.seed, "");
        ck_assert_int_eq(db_read_end(db_fixture_db, s, NULL), ERR_OK);
        ck_assert_str_eq(s->snap_next.seed, "");
    }
    /* Spent: the next one, once the campaign is read again. */
    second.campaign_id = c.id;
    second.spent = first.next.commitment;
    db_fixture_write_ok(run_renew, &second, "spend the first commitment");
    ck_assert_str_ne(second.next.commitment, first.next.commitment);
    snapshot_next(c.id, NULL, ERR_OK, &got, &was_kept);
    ck_assert(!was_kept); /* the version moved: read whole */
    assert_same_commitment(&got, &second.next);
    snapshot_next(c.id, NULL, ERR_OK, &got, &was_kept);
    ck_assert(was_kept);
    assert_same_commitment(&got, &second.next);
}
END_TEST

/* ---- the ledger's head, read with the campaign's version ---- */

typedef struct ledger_move {
    const char *campaign_id;
    long long length;
    char head[65];
} ledger_move;

static err_code run_ledger_move(db_conn *c, void *arg, err_info *e)
{
    ledger_move *m = arg;
    db_chain ch;
    err_code rc;

    if ((rc = db_chain_open(c, m->campaign_id, &ch, e)))
        return rc;
    ch.length = m->length;
    memcpy(ch.head, m->head, sizeof ch.head);
    ch.has_head_raw = false;
    return db_chain_store(c, &ch, e);
}

/* campaign_id's ledger as db_chain_open gives it in a snapshot that read
 * campaign_id's row (then other's, when given: the ledger kept is then
 * another campaign's), and whether it came with the version. */
static void snapshot_chain(const char *campaign_id, const char *other,
                           db_chain *out, bool *was_kept)
{
    db_campaign cmp;
    db_conn *c;
    err_info e;

    err_clear(&e);
    ck_assert_int_eq(db_read_begin(db_fixture_db, &c, &e), ERR_OK);
    ck_assert_int_eq(db_campaign_get(c, campaign_id, &cmp, &e), ERR_OK);
    if (other != NULL)
        ck_assert_int_eq(db_campaign_get(c, other, &cmp, &e), ERR_OK);
    *was_kept = c->has_snap_ledger;
    ck_assert_int_eq(db_chain_open(c, campaign_id, out, &e), ERR_OK);
    ck_assert_int_eq(db_read_end(db_fixture_db, c, &e), ERR_OK);
    ck_assert(!c->has_snap_ledger);
}

/* A staged combat reads its campaign's ledger in the statement that
 * checks the kept campaign's version: what db_chain_open gives is the
 * store's, for that campaign alone, and moves with it. */
START_TEST(test_ledger_with_the_version)
{
    db_campaign c, d;
    ledger_move m = {0}, other = {0};
    db_chain got, plain;
    bool was_kept;
    db_conn *r;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Ledger");
    do
        db_fixture_add_campaign(&d, "Other");
    while (unit_cache_slot(d.id) == unit_cache_slot(c.id));
    m.campaign_id = c.id;
    m.length = 5;
    memset(m.head, 'a', 64);
    db_fixture_write_ok(run_ledger_move, &m, "move c's ledger");
    other.campaign_id = d.id;
    other.length = 9;
    memset(other.head, 'b', 64);
    db_fixture_write_ok(run_ledger_move, &other, "move d's ledger");
    snapshot_chain(c.id, NULL, &got, &was_kept); /* read whole, kept */
    ck_assert(!was_kept);
    snapshot_chain(c.id, NULL, &got, &was_kept);
    ck_assert(was_kept);
    ck_assert_int_eq(got.length, 5);
    ck_assert_int_eq(got.length0, 5);
    ck_assert_str_eq(got.head, m.head);
    ck_assert_str_eq(got.campaign_id, c.id);
    r = db_read_acquire(db_fixture_db);
    ck_assert_int_eq(db_chain_open(r, c.id, &plain, NULL), ERR_OK);
    db_read_release(db_fixture_db, r);
    ck_assert_int_eq(got.length, plain.length);
    ck_assert_str_eq(got.head, plain.head);
    /* d read kept after c: c's ledger is still c's (from the store). */
    snapshot_chain(d.id, NULL, &got, &was_kept); /* d kept */
    snapshot_chain(c.id, d.id, &got, &was_kept);
    ck_assert(was_kept); /* d's */
    ck_assert_int_eq(got.length, 5);
    ck_assert_str_eq(got.head, m.head);
    /* Moved: the next snapshot reads the new one. */
    m.length = 6;
    memset(m.head, 'c', 64);
    db_fixture_write_ok(run_ledger_move, &m, "move c's ledger again");
    snapshot_chain(c.id, NULL, &got, &was_kept);
    ck_assert_int_eq(got.length, 6);
    ck_assert_str_eq(got.head, m.head);
    snapshot_chain(c.id, NULL, &got, &was_kept);
    ck_assert(was_kept);
    ck_assert_int_eq(got.length, 6);
    ck_assert_str_eq(got.head, m.head);
}
END_TEST

/* A landing whose batch does not commit (the log's fsync fails: a full
 * disk) moves nothing: once the campaign's next version is committed by
 * another write, a snapshot at it reads that write, not the landing. */
START_TEST(test_landing_of_a_batch_not_committed)
{
    db_campaign c;
    db_side blue;
    db_unit a, got;
    landing_job j;
    long long v, v2;
    err_info e;

    db_fixture_open();
    db_fixture_add_campaign(&c, "Full");
    db_fixture_add_side(&blue, c.id, NULL, "Blue");
    db_fixture_new_unit(&a, &blue, NULL, "Alpha");
    a.has_scrud = true;
    db_fixture_write_ok(db_fixture_job_unit, &a, "insert Alpha");
    ck_assert(!read_snapshot(c.id, "Alpha", &got, &v));
    ck_assert(read_snapshot(c.id, "Alpha", &got, &v));
    a = got;
    landing_of(&j, c.id, v, &a, 3);
    j.is_written = true;
    full_vfs_fail(FULL_VFS_SYNC);
    err_clear(&e);
    ck_assert_int_eq(db_fixture_write_rc(land_job, &j, &e), ERR_FULL);
    full_vfs_fail(0);
    /* The store's next version is another write's. */
    a.scrud.quality = 5;
    db_fixture_write_ok(db_fixture_job_unit_update, &a, "edit Alpha");
    ck_assert(!read_snapshot(c.id, "Alpha", &got, &v2));
    ck_assert_int_eq(v2, v + 1);
    ck_assert_int_eq(got.scrud.quality, 5);
    check_same(c.id, a.id, &got);
}
END_TEST

static void full_setup(void)
{
    full_vfs_install();
    db_fixture_setup();
}

static void full_teardown(void)
{
    full_vfs_fail(0);
    db_fixture_teardown();
    full_vfs_uninstall();
}

Suite *suite_unit_cache(void)
{
    Suite *s = suite_create("unit_cache");
    TCase *tc = tcase_create("unit_cache");
    TCase *full = tcase_create("unit_cache_full");

    tcase_add_unchecked_fixture(tc, db_fixture_suite_make,
                                db_fixture_suite_remove);
    tcase_add_checked_fixture(tc, db_fixture_setup, db_fixture_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_as_stored_is_what_a_read_gives);
    tcase_add_test(tc, test_kept_rows_and_versions);
    tcase_add_test(tc, test_landings_kept_once_committed);
    tcase_add_test(tc, test_no_cache_outside_a_snapshot);
    tcase_add_test(tc, test_sides_and_campaign_kept);
    tcase_add_test(tc, test_next_commitment_with_the_version);
    tcase_add_test(tc, test_ledger_with_the_version);
    tcase_add_test(tc, test_landing_at_the_saved_version);
    suite_add_tcase(s, tc);
    tcase_add_unchecked_fixture(full, db_fixture_suite_make,
                                db_fixture_suite_remove);
    tcase_add_checked_fixture(full, full_setup, full_teardown);
    tcase_set_timeout(full, 60);
    tcase_add_test(full, test_landing_of_a_batch_not_committed);
    suite_add_tcase(s, full);
    return s;
}
