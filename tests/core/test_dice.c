/*
 * test_dice.c: tests core/dice.c, the dice sources of
 * ../shared/rules/dice.md ("Entered and replayed dice") and their roll log.
 *
 * A seeded source must give exactly the naturals of rng_v1_die on the same
 * seed (the reference model here) and log every die in order; entered and
 * replay sources hand out their values in order and refuse values that do
 * not fit the die, running out, and leftovers; faces outside 2..1000 are
 * refused by every kind without consuming anything.
 */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include <sodium.h>

#include "dice.h"
#include "suites.h"

/* The kinds that hand out given values; the loop tests run over both. */
static const dice_kind value_kinds[] = {DICE_ENTERED, DICE_REPLAY};

static void seq_seed(uint8_t seed[RNG_SEED_LEN])
{
    size_t i;

    for (i = 0; i < RNG_SEED_LEN; i++)
        seed[i] = (uint8_t)(0xa0 + i);
}

static void check_row(const dice_source *d, size_t i, int faces, int natural,
                      int side, int unit, const char *reason)
{
    const dice_roll *row;

    ck_assert_uint_lt(i, d->n_log);
    row = &d->log[i];
    ck_assert_int_eq(row->faces, faces);
    ck_assert_int_eq(row->natural, natural);
    ck_assert_int_eq(row->modified, natural);
    ck_assert_int_eq(row->side, side);
    ck_assert_int_eq(row->unit, unit);
    ck_assert_str_eq(row->reason, reason);
}

/* A mixed run of dice, as a combat would draw them. */
static const struct {
    int faces, side, unit;
    const char *reason;
} plan[] = {
    {6, 0, 0, "scrud.front"},     {6, 1, 0, "scrud.front"},
    {6, 0, 1, "scrud.front"},     {10, 1, -1, "test.morale"},
    {20, -1, -1, "test.weather"}, {2, 0, 2, "test.coin"},
    {1000, 1, 3, "test.big"},     {997, 0, 0, "test.odd"},
    {6, 1, 1, "scrud.extra"},
};
#define N_PLAN (sizeof plan / sizeof plan[0])

START_TEST(test_seeded_logs_in_order)
{
    static const char client[] = "discord:1234567890";
    uint8_t seed[RNG_SEED_LEN];
    dice_source d;
    rng_v1 ref;
    err_info e;
    size_t i;

    seq_seed(seed);
    dice_init_seeded(&d, seed, (const uint8_t *)client, strlen(client));
    rng_v1_init(&ref, seed, (const uint8_t *)client, strlen(client));
    ck_assert_int_eq(d.kind, DICE_SEEDED);
    ck_assert_uint_eq(d.n_log, 0);
    err_clear(&e);
    for (i = 0; i < N_PLAN; i++) {
        int natural = -7;
        size_t at = 999;
        int want = rng_v1_die(&ref, plan[i].faces);

        ck_assert_int_eq(dice_roll_die(&d, plan[i].faces, plan[i].side,
                                       plan[i].unit, plan[i].reason, &natural,
                                       &at, &e),
                         ERR_OK);
        ck_assert_int_eq(natural, want);
        ck_assert_uint_eq(at, i);
        ck_assert_uint_eq(d.n_log, i + 1);
    }
    ck_assert_int_eq(e.code, ERR_OK);
    for (i = 0; i < N_PLAN; i++) {
        ck_assert_int_ge(d.log[i].natural, 1);
        ck_assert_int_le(d.log[i].natural, plan[i].faces);
        check_row(&d, i, plan[i].faces, d.log[i].natural, plan[i].side,
                  plan[i].unit, plan[i].reason);
    }
    /* The source consumed exactly the words the reference did. */
    ck_assert_uint_eq(d.rng.n_words, ref.n_words);
    ck_assert_int_eq(dice_check_all_used(&d, &e), ERR_OK);
    rng_v1_cleanup(&ref);
    dice_cleanup(&d);
}
END_TEST

/*
 * Many dice (past any initial log capacity) on the seed whose d997 stream
 * rejects word 35 (seed = SHA-256("reject-search-61552"), found by
 * tests/vectors/gen_rng_golden.js): naturals equal rng_v1_die's, the log is
 * intact after growing, and the rejected word is consumed.
 */
START_TEST(test_seeded_matches_rng_v1)
{
    static const char label[] = "reject-search-61552";
    uint8_t seed[RNG_SEED_LEN];
    dice_source d;
    rng_v1 ref;
    int naturals[200];
    size_t i;

    crypto_hash_sha256(seed, (const uint8_t *)label, strlen(label));
    dice_init_seeded(&d, seed, NULL, 0);
    rng_v1_init(&ref, seed, NULL, 0);
    for (i = 0; i < 200; i++) {
        int faces = i < 64 ? 997 : plan[i % N_PLAN].faces;

        ck_assert_int_eq(dice_roll_die(&d, faces, (int)(i % 2), (int)i,
                                       "test.many", &naturals[i], NULL, NULL),
                         ERR_OK);
        ck_assert_int_eq(naturals[i], rng_v1_die(&ref, faces));
        if (i == 63)
            ck_assert_uint_eq(d.rng.n_words, 65); /* one word rejected */
    }
    ck_assert_uint_eq(d.n_log, 200);
    for (i = 0; i < 200; i++)
        check_row(&d, i, i < 64 ? 997 : plan[i % N_PLAN].faces, naturals[i],
                  (int)(i % 2), (int)i, "test.many");
    rng_v1_cleanup(&ref);
    dice_cleanup(&d);
}
END_TEST

/* The client seed reaches the stream: a different one gives other dice. */
START_TEST(test_seeded_client_seed_used)
{
    uint8_t seed[RNG_SEED_LEN];
    dice_source a, b;
    int va, vb, n_same = 0, i;

    seq_seed(seed);
    dice_init_seeded(&a, seed, (const uint8_t *)"one", 3);
    dice_init_seeded(&b, seed, (const uint8_t *)"two", 3);
    for (i = 0; i < 20; i++) {
        ck_assert_int_eq(dice_roll_die(&a, 1000, 0, 0, "t", &va, NULL, NULL),
                         ERR_OK);
        ck_assert_int_eq(dice_roll_die(&b, 1000, 0, 0, "t", &vb, NULL, NULL),
                         ERR_OK);
        n_same += va == vb;
    }
    ck_assert_int_lt(n_same, 3);
    dice_cleanup(&a);
    dice_cleanup(&b);
}
END_TEST

START_TEST(test_values_in_order)
{
    static const int values[] = {3, 1, 6, 2, 10, 1, 20};
    static const int faces[] = {6, 6, 6, 2, 10, 20, 20};
    dice_kind kind = value_kinds[_i];
    dice_source d;
    err_info e;
    size_t i;

    dice_init_values(&d, kind, values, 7);
    ck_assert_int_eq(d.kind, kind);
    err_clear(&e);
    for (i = 0; i < 7; i++) {
        int natural = 0;
        size_t at = 99;

        /* Until the last value is taken, some are unused. */
        ck_assert_int_eq(dice_check_all_used(&d, NULL), ERR_DICE);
        ck_assert_int_eq(dice_roll_die(&d, faces[i], (int)i % 2, (int)i,
                                       "scrud.front", &natural, &at, &e),
                         ERR_OK);
        ck_assert_int_eq(natural, values[i]);
        ck_assert_uint_eq(at, i);
    }
    ck_assert_int_eq(e.code, ERR_OK);
    for (i = 0; i < 7; i++)
        check_row(&d, i, faces[i], values[i], (int)i % 2, (int)i,
                  "scrud.front");
    ck_assert_int_eq(dice_check_all_used(&d, &e), ERR_OK);
    ck_assert_int_eq(e.code, ERR_OK);
    dice_cleanup(&d);
}
END_TEST

START_TEST(test_values_run_out)
{
    static const int values[] = {4, 5};
    dice_source d;
    err_info e;
    int natural;

    dice_init_values(&d, value_kinds[_i], values, 2);
    ck_assert_int_eq(dice_roll_die(&d, 6, 0, 0, "a", &natural, NULL, NULL),
                     ERR_OK);
    ck_assert_int_eq(dice_roll_die(&d, 6, 1, 0, "b", &natural, NULL, NULL),
                     ERR_OK);
    ck_assert_int_eq(natural, 5);
    err_clear(&e);
    ck_assert_int_eq(dice_roll_die(&d, 6, 0, 1, "c", &natural, NULL, &e),
                     ERR_DICE);
    ck_assert_int_eq(e.code, ERR_DICE);
    ck_assert_str_eq(e.field, "dice");
    ck_assert(e.message[0] != '\0');
    /* The refused die is not logged; and it stays refused. */
    ck_assert_uint_eq(d.n_log, 2);
    ck_assert_int_eq(dice_roll_die(&d, 6, 0, 1, "c", &natural, NULL, NULL),
                     ERR_DICE);
    ck_assert_uint_eq(d.n_log, 2);
    dice_cleanup(&d);
}
END_TEST

START_TEST(test_values_empty)
{
    dice_source d;
    err_info e;
    int natural;

    dice_init_values(&d, value_kinds[_i], NULL, 0);
    err_clear(&e);
    ck_assert_int_eq(dice_check_all_used(&d, &e), ERR_OK);
    ck_assert_int_eq(dice_roll_die(&d, 6, 0, 0, "a", &natural, NULL, &e),
                     ERR_DICE);
    ck_assert_str_eq(e.field, "dice");
    ck_assert_uint_eq(d.n_log, 0);
    dice_cleanup(&d);
}
END_TEST

/* Values that do not fit the die they are drawn for, one case each. */
static const struct {
    int value, faces;
} misfits[] = {
    {7, 6},   {0, 6},       {-1, 6},    {3, 2},       {0, 2},          {11, 10},
    {21, 20}, {1001, 1000}, {998, 997}, {INT_MIN, 6}, {INT_MAX, 1000},
};
#define N_MISFITS (sizeof misfits / sizeof misfits[0])

START_TEST(test_values_out_of_range)
{
    size_t m = (size_t)_i % N_MISFITS;
    dice_kind kind = value_kinds[(size_t)_i / N_MISFITS];
    int values[3];
    dice_source d;
    err_info e;
    int natural = 0;

    values[0] = 1;
    values[1] = misfits[m].value;
    values[2] = 2;
    dice_init_values(&d, kind, values, 3);
    ck_assert_int_eq(
        dice_roll_die(&d, misfits[m].faces, 0, 0, "a", &natural, NULL, NULL),
        ERR_OK);
    ck_assert_int_eq(natural, 1);
    err_clear(&e);
    ck_assert_msg(dice_roll_die(&d, misfits[m].faces, 0, 1, "b", &natural, NULL,
                                &e) == ERR_DICE,
                  "%s value %d accepted for a d%d", dice_kind_name(kind),
                  misfits[m].value, misfits[m].faces);
    ck_assert_int_eq(e.code, ERR_DICE);
    ck_assert_str_eq(e.field, "dice");
    ck_assert_uint_eq(d.n_log, 1);
    ck_assert_int_eq(dice_check_all_used(&d, NULL), ERR_DICE);
    dice_cleanup(&d);
}
END_TEST

/* Boundary values that do fit: 1 and faces, on the smallest and largest. */
START_TEST(test_values_edges_fit)
{
    static const int values[] = {1, 2, 1, 1000, 997};
    static const int faces[] = {2, 2, 1000, 1000, 997};
    dice_source d;
    int natural;
    size_t i;

    dice_init_values(&d, value_kinds[_i], values, 5);
    for (i = 0; i < 5; i++) {
        ck_assert_int_eq(
            dice_roll_die(&d, faces[i], 0, 0, "e", &natural, NULL, NULL),
            ERR_OK);
        ck_assert_int_eq(natural, values[i]);
    }
    ck_assert_int_eq(dice_check_all_used(&d, NULL), ERR_OK);
    dice_cleanup(&d);
}
END_TEST

START_TEST(test_unused_values_detected)
{
    static const int values[] = {2, 3, 4};
    dice_source d;
    err_info e;
    int natural;

    dice_init_values(&d, value_kinds[_i], values, 3);
    err_clear(&e);
    ck_assert_int_eq(dice_check_all_used(&d, &e), ERR_DICE);
    ck_assert_str_eq(e.field, "dice");
    ck_assert_int_eq(dice_roll_die(&d, 6, 0, 0, "a", &natural, NULL, NULL),
                     ERR_OK);
    ck_assert_int_eq(dice_roll_die(&d, 6, 0, 1, "a", &natural, NULL, NULL),
                     ERR_OK);
    err_clear(&e);
    ck_assert_int_eq(dice_check_all_used(&d, &e), ERR_DICE);
    ck_assert_int_eq(e.code, ERR_DICE);
    ck_assert_str_eq(e.field, "dice");
    ck_assert_int_eq(dice_roll_die(&d, 6, 0, 2, "a", &natural, NULL, NULL),
                     ERR_OK);
    ck_assert_int_eq(natural, 4);
    ck_assert_int_eq(dice_check_all_used(&d, NULL), ERR_OK);
    dice_cleanup(&d);
}
END_TEST

/* A seeded source has nothing to leave unused, rolled or not. */
START_TEST(test_seeded_all_used)
{
    uint8_t seed[RNG_SEED_LEN];
    dice_source d;
    int natural;

    seq_seed(seed);
    dice_init_seeded(&d, seed, NULL, 0);
    ck_assert_int_eq(dice_check_all_used(&d, NULL), ERR_OK);
    ck_assert_int_eq(dice_roll_die(&d, 6, 0, 0, "a", &natural, NULL, NULL),
                     ERR_OK);
    ck_assert_int_eq(dice_check_all_used(&d, NULL), ERR_OK);
    dice_cleanup(&d);
}
END_TEST

static const int bad_faces[] = {INT_MIN, -6, -1, 0, 1, 1001, 1024, INT_MAX};
#define N_BAD_FACES (sizeof bad_faces / sizeof bad_faces[0])

/* Loop index: kind (seeded, entered, replay) times bad faces. */
START_TEST(test_faces_out_of_range)
{
    static const int values[] = {1, 2};
    int faces = bad_faces[(size_t)_i % N_BAD_FACES];
    int which = _i / (int)N_BAD_FACES;
    uint8_t seed[RNG_SEED_LEN];
    dice_source d;
    err_info e;
    int natural = 0;

    seq_seed(seed);
    if (which == 0)
        dice_init_seeded(&d, seed, NULL, 0);
    else
        dice_init_values(&d, value_kinds[which - 1], values, 2);
    err_clear(&e);
    ck_assert_msg(
        dice_roll_die(&d, faces, 0, 0, "bad", &natural, NULL, &e) == ERR_RANGE,
        "a d%d was not refused by a %s source", faces, dice_kind_name(d.kind));
    ck_assert_int_eq(e.code, ERR_RANGE);
    ck_assert_str_eq(e.field, "faces");
    /* Nothing consumed, nothing logged: the next good die is the first. */
    ck_assert_uint_eq(d.n_log, 0);
    ck_assert_uint_eq(d.rng.n_words, 0);
    ck_assert_int_eq(dice_roll_die(&d, 2, 0, 0, "good", &natural, NULL, NULL),
                     ERR_OK);
    if (which != 0) {
        ck_assert_int_eq(natural, 1);
    } else {
        rng_v1 ref;

        rng_v1_init(&ref, seed, NULL, 0);
        ck_assert_int_eq(natural, rng_v1_die(&ref, 2));
        rng_v1_cleanup(&ref);
    }
    dice_cleanup(&d);
}
END_TEST

/* The first error wins: a later failure leaves the first in e. */
START_TEST(test_first_error_wins)
{
    static const int values[] = {9};
    dice_source d;
    err_info e;
    int natural;

    dice_init_values(&d, DICE_ENTERED, values, 1);
    err_clear(&e);
    ck_assert_int_eq(dice_roll_die(&d, 6, 0, 0, "a", &natural, NULL, &e),
                     ERR_DICE);
    ck_assert_int_eq(dice_roll_die(&d, 1, 0, 0, "a", &natural, NULL, &e),
                     ERR_RANGE);
    ck_assert_int_eq(e.code, ERR_DICE);
    ck_assert_str_eq(e.field, "dice");
    dice_cleanup(&d);
}
END_TEST

START_TEST(test_kind_names_and_cleanup)
{
    dice_source d;

    ck_assert_str_eq(dice_kind_name(DICE_SEEDED), "seeded");
    ck_assert_str_eq(dice_kind_name(DICE_ENTERED), "entered");
    ck_assert_str_eq(dice_kind_name(DICE_REPLAY), "replay");
    dice_cleanup(NULL);
    /* Cleanup of a source that never rolled. */
    dice_init_values(&d, DICE_REPLAY, NULL, 0);
    dice_cleanup(&d);
}
END_TEST

/* dice_skip leaves a seeded source where drawing the same dice would (the
 * stream an interactive battle continues), logs nothing, and leaves an
 * entered source alone. */
START_TEST(test_skip_continues_the_stream)
{
    static const char label[] = "skip";
    static const int values[] = {4, 2};
    uint8_t seed[RNG_SEED_LEN];
    dice_source drawn, skipped, entered;
    int a, b, k;

    crypto_hash_sha256(seed, (const uint8_t *)label, strlen(label));
    dice_init_seeded(&drawn, seed, (const uint8_t *)"c", 1);
    dice_init_seeded(&skipped, seed, (const uint8_t *)"c", 1);
    for (k = 0; k < 37; k++)
        ck_assert_int_eq(
            dice_roll_die(&drawn, 6, 0, 0, "test.skip", &a, NULL, NULL),
            ERR_OK);
    dice_skip(&skipped, 6, 37);
    ck_assert_uint_eq(skipped.n_log, 0);
    for (k = 0; k < 10; k++) {
        ck_assert_int_eq(dice_roll_die(&drawn, 6, 0, 0, "t", &a, NULL, NULL),
                         ERR_OK);
        ck_assert_int_eq(dice_roll_die(&skipped, 6, 0, 0, "t", &b, NULL, NULL),
                         ERR_OK);
        ck_assert_int_eq(a, b);
    }
    dice_init_values(&entered, DICE_ENTERED, values, 2);
    dice_skip(&entered, 6, 5);
    ck_assert_int_eq(dice_roll_die(&entered, 6, 0, 0, "t", &a, NULL, NULL),
                     ERR_OK);
    ck_assert_int_eq(a, 4);
    dice_cleanup(&drawn);
    dice_cleanup(&skipped);
    dice_cleanup(&entered);
}
END_TEST

Suite *suite_dice(void)
{
    Suite *s = suite_create("dice");
    TCase *seeded = tcase_create("seeded");
    TCase *values = tcase_create("values");
    TCase *common = tcase_create("common");
    int n_kinds = (int)(sizeof value_kinds / sizeof value_kinds[0]);

    tcase_add_test(seeded, test_seeded_logs_in_order);
    tcase_add_test(seeded, test_seeded_matches_rng_v1);
    tcase_add_test(seeded, test_seeded_client_seed_used);
    tcase_add_test(seeded, test_skip_continues_the_stream);
    tcase_add_test(seeded, test_seeded_all_used);
    suite_add_tcase(s, seeded);

    tcase_add_loop_test(values, test_values_in_order, 0, n_kinds);
    tcase_add_loop_test(values, test_values_run_out, 0, n_kinds);
    tcase_add_loop_test(values, test_values_empty, 0, n_kinds);
    tcase_add_loop_test(values, test_values_out_of_range, 0,
                        n_kinds * (int)N_MISFITS);
    tcase_add_loop_test(values, test_values_edges_fit, 0, n_kinds);
    tcase_add_loop_test(values, test_unused_values_detected, 0, n_kinds);
    suite_add_tcase(s, values);

    tcase_add_loop_test(common, test_faces_out_of_range, 0,
                        (1 + n_kinds) * (int)N_BAD_FACES);
    tcase_add_test(common, test_first_error_wins);
    tcase_add_test(common, test_kind_names_and_cleanup);
    suite_add_tcase(s, common);
    return s;
}
