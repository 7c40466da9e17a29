/*
 * test_facts.c: tests a combat's facts (db/facts.c): integers and strings
 * written and read back in order, ids packed to their bytes and given
 * back as they were, every other string as it is; a reader refuses what
 * is not there, an integer out of its bounds, a string longer than its
 * room, and what is left over; the stored value is tagged and its
 * checksum refuses a damaged one; and the layout never changes (a value
 * stored today must read the same in every later build).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "db.h"
#include "db_sql.h"
#include "suites.h"

/* Writes the sequence every test reads: integers at their extremes,
 * strings empty, plain, id-like but not ids, and ids. */
static void write_all(db_facts *f)
{
    db_facts_int(f, 0);
    db_facts_int(f, -1);
    db_facts_int(f, INT_MAX);
    db_facts_int(f, INT_MIN);
    db_facts_str(f, NULL);
    db_facts_str(f, "");
    db_facts_str(f, "Guard \"1\" \xc3\xa9");
    db_facts_str(f, "unit_01a21af02dbdf5ae8506245a");
    db_facts_str(f, "sd_01a21af02dbdf5ae8506245a");
    db_facts_str(f, "unit_01A21AF02DBDF5AE8506245A"); /* upper case: text */
    db_facts_str(f, "unit_01a21af02dbdf5ae8506245");  /* short: text */
    db_facts_str(f, "u_01a21af02dbdf5ae8506245a");    /* 1 letter: text */
}

/* Written by write_all, once, as this build's first stored them. */
static const unsigned char golden[] = {
    0x00, 0x01, 0xfe, 0xff, 0xff, 0xff, 0x0f, 0xff, 0xff, 0xff, 0xff, 0x0f,
    0x02, 0x02, 0x0e, 'G',  'u',  'a',  'r',  'd',  ' ',  '"',  '1',  '"',
    ' ',  0xc3, 0xa9, 0x01, 0x04, 'u',  'n',  'i',  't',  0x01, 0xa2, 0x1a,
    0xf0, 0x2d, 0xbd, 0xf5, 0xae, 0x85, 0x06, 0x24, 0x5a, 0x01, 0x02, 's',
    'd',  0x01, 0xa2, 0x1a, 0xf0, 0x2d, 0xbd, 0xf5, 0xae, 0x85, 0x06, 0x24,
    0x5a, 0x1f, 'u',  'n',  'i',  't',  '_',  '0',  '1',  'A',  '2',  '1',
    'A',  'F',  '0',  '2',  'D',  'B',  'D',  'F',  '5',  'A',  'E',  '8',
    '5',  '0',  '6',  '2',  '4',  '5',  'A',  0x1e, 'u',  'n',  'i',  't',
    '_',  '0',  '1',  'a',  '2',  '1',  'a',  'f',  '0',  '2',  'd',  'b',
    'd',  'f',  '5',  'a',  'e',  '8',  '5',  '0',  '6',  '2',  '4',  '5',
    0x1c, 'u',  '_',  '0',  '1',  'a',  '2',  '1',  'a',  'f',  '0',  '2',
    'd',  'b',  'd',  'f',  '5',  'a',  'e',  '8',  '5',  '0',  '6',  '2',
    '4',  '5',  'a'};

START_TEST(test_round_trip)
{
    db_combat cb;
    db_facts f;
    db_facts_reader r;
    char s[64];

    memset(&cb, 0, sizeof cb);
    memset(&f, 0, sizeof f);
    write_all(&f);
    ck_assert(db_facts_done(&f, &cb));
    ck_assert_ptr_null(f.buf);
    /* the ids in 17 and 15 bytes rather than 29 and 27 */
    ck_assert_uint_eq(cb.facts_len, sizeof golden);
    ck_assert_mem_eq(cb.facts, golden, sizeof golden);
    db_facts_read(&r, &cb);
    ck_assert_int_eq(db_facts_get_int(&r, INT_MIN, INT_MAX), 0);
    ck_assert_int_eq(db_facts_get_int(&r, INT_MIN, INT_MAX), -1);
    ck_assert_int_eq(db_facts_get_int(&r, INT_MIN, INT_MAX), INT_MAX);
    ck_assert_int_eq(db_facts_get_int(&r, INT_MIN, INT_MAX), INT_MIN);
    db_facts_get_str(&r, s, sizeof s);
    ck_assert_str_eq(s, "");
    db_facts_get_str(&r, s, sizeof s);
    ck_assert_str_eq(s, "");
    db_facts_get_str(&r, s, sizeof s);
    ck_assert_str_eq(s, "Guard \"1\" \xc3\xa9");
    db_facts_get_str(&r, s, sizeof s);
    ck_assert_str_eq(s, "unit_01a21af02dbdf5ae8506245a");
    db_facts_get_str(&r, s, sizeof s);
    ck_assert_str_eq(s, "sd_01a21af02dbdf5ae8506245a");
    db_facts_get_str(&r, s, sizeof s);
    ck_assert_str_eq(s, "unit_01A21AF02DBDF5AE8506245A");
    db_facts_get_str(&r, s, sizeof s);
    ck_assert_str_eq(s, "unit_01a21af02dbdf5ae8506245");
    db_facts_get_str(&r, s, sizeof s);
    ck_assert_str_eq(s, "u_01a21af02dbdf5ae8506245a");
    ck_assert(db_facts_end(&r));
    db_combat_cleanup(&cb);
}
END_TEST

START_TEST(test_reader_refuses)
{
    db_combat cb;
    db_facts f;
    db_facts_reader r;
    char s[64], small[29];
    int i;

    memset(&cb, 0, sizeof cb);
    memset(&f, 0, sizeof f);
    write_all(&f);
    ck_assert(db_facts_done(&f, &cb));
    /* An integer outside its bounds: min, and bad from then on. */
    db_facts_read(&r, &cb);
    ck_assert_int_eq(db_facts_get_int(&r, 1, 5), 1);
    ck_assert(r.is_bad);
    ck_assert_int_eq(db_facts_get_int(&r, INT_MIN, INT_MAX), INT_MIN);
    ck_assert(!db_facts_end(&r));
    /* A string longer than its room (an id's 29 characters in 29). */
    db_facts_read(&r, &cb);
    for (i = 0; i < 4; i++)
        (void)db_facts_get_int(&r, INT_MIN, INT_MAX);
    for (i = 0; i < 3; i++)
        db_facts_get_str(&r, s, sizeof s);
    db_facts_get_str(&r, small, sizeof small);
    ck_assert(r.is_bad);
    ck_assert_str_eq(small, "");
    /* Left over, and read past the end. */
    db_facts_read(&r, &cb);
    (void)db_facts_get_int(&r, INT_MIN, INT_MAX);
    ck_assert(!db_facts_end(&r));
    cb.facts_len = 3; /* cut inside INT_MAX's varint */
    db_facts_read(&r, &cb);
    (void)db_facts_get_int(&r, INT_MIN, INT_MAX);
    (void)db_facts_get_int(&r, INT_MIN, INT_MAX);
    ck_assert(!r.is_bad);
    (void)db_facts_get_int(&r, INT_MIN, INT_MAX);
    ck_assert(r.is_bad);
    /* Strings that do not read: an id cut short, an id's prefix of 0, 1
     * or 9 letters, a header of 0 (never written). */
    {
        static const unsigned char bad[][20] = {
            {0x01, 0x04, 'u', 'n', 'i', 't', 0x01, 0xa2},
            {0x01, 0x00, 0x01, 0xa2, 0x1a, 0xf0, 0x2d, 0xbd, 0xf5, 0xae, 0x85,
             0x06, 0x24, 0x5a},
            {0x01, 0x01, 'u', 0x01, 0xa2, 0x1a, 0xf0, 0x2d, 0xbd, 0xf5, 0xae,
             0x85, 0x06, 0x24, 0x5a},
            {0x01, 0x09, 'a',  'b',  'c',  'd',  'e',  'f',  'g',  'h',
             'i',  0x01, 0xa2, 0x1a, 0xf0, 0x2d, 0xbd, 0xf5, 0xae, 0x85},
            {0x00}};
        static const size_t len[] = {8, 14, 15, 20, 1};
        db_combat raw;
        size_t k;
        memset(&raw, 0, sizeof raw);
        for (k = 0; k < sizeof len / sizeof len[0]; k++) {
            raw.facts = (unsigned char *)bad[k];
            raw.facts_len = len[k];
            db_facts_read(&r, &raw);
            db_facts_get_str(&r, s, sizeof s);
            ck_assert_msg(r.is_bad, "bad string %zu read as \"%s\"", k, s);
            ck_assert_str_eq(s, "");
        }
    }
    /* A combat without facts reads as bad at once. */
    free(cb.facts);
    cb.facts = NULL;
    cb.facts_len = 0;
    db_facts_read(&r, &cb);
    ck_assert(r.is_bad);
    /* Nothing written is no facts. */
    memset(&f, 0, sizeof f);
    ck_assert(!db_facts_done(&f, &cb));
    ck_assert_ptr_null(cb.facts);
    db_combat_cleanup(&cb);
}
END_TEST

START_TEST(test_stored_checked)
{
    db_combat cb;
    db_facts f;
    unsigned char *z, *back;
    size_t zlen, n, i;

    memset(&cb, 0, sizeof cb);
    memset(&f, 0, sizeof f);
    write_all(&f);
    ck_assert(db_facts_done(&f, &cb));
    ck_assert_ptr_nonnull(z = db_facts_wrap(&cb, &zlen));
    ck_assert_uint_eq(zlen, 4 + sizeof golden + 4);
    ck_assert_mem_eq(z,
                     "\x1b"
                     "fc1",
                     4);
    ck_assert(db_is_facts(z, zlen));
    ck_assert(!db_is_facts("{\"id\":1}", 8));
    ck_assert(!db_is_facts("\x1b"
                           "ud1",
                           4));
    ck_assert_int_eq(db_facts_unwrap(z, zlen, &back, &n), ERR_OK);
    ck_assert_uint_eq(n, sizeof golden);
    ck_assert_mem_eq(back, golden, sizeof golden);
    free(back);
    /* Any byte altered, the checksum's included, is refused. */
    for (i = 4; i < zlen; i++) {
        z[i] ^= 0x20;
        ck_assert_msg(db_facts_unwrap(z, zlen, &back, &n) == ERR_DB,
                      "byte %zu altered was read", i);
        z[i] ^= 0x20;
    }
    ck_assert_int_eq(db_facts_unwrap(z, 8, &back, &n), ERR_DB); /* tag, check */
    free(z);
    db_combat_cleanup(&cb);
}
END_TEST

Suite *suite_facts(void)
{
    Suite *s = suite_create("facts");
    TCase *tc = tcase_create("facts");

    tcase_add_test(tc, test_round_trip);
    tcase_add_test(tc, test_reader_refuses);
    tcase_add_test(tc, test_stored_checked);
    suite_add_tcase(s, tc);
    return s;
}
