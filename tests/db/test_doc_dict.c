/*
 * test_doc_dict.c: tests the packing of stored documents (doc_pack.c) with
 * the dictionary of db/doc_dict.c: a document packed today reads back,
 * byte for byte, whatever is built later (the dictionary's bytes must
 * never change, or what was stored with them is lost); packing and
 * reading round trip, with the dictionary's tag; a document packed
 * before the dictionary (a bare zstd frame) and a document stored as text
 * still read; a packed document altered is refused, not read as another
 * text; the harder packing of a campaign combat's report is smaller and
 * reads back the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <sodium.h>
#include <zstd.h>

#include "db_sql.h"
#include "doc_dict.h"
#include "suites.h"

/* The dictionary's SHA-256 and length, as it was made. */
#define DICT_V1_SHA256                                                         \
    "2898d4b763b47a9f4ff9ed89b24fad6f2ac8a214d36c866fb247f46e1bfa4faa"
#define DICT_V1_LEN 30466

/* A text, and what db_doc_pack made of it with dictionary 1. */
static const char golden_text[] =
    "{\"unit\":\"Old Guard\",\"natural\":6,\"score\":9,"
    "\"summary_markdown\":\"**Blue** wins\"}";
static const unsigned char golden_packed[] =
    "\x1b\x75\x64\x31\x28\xb5\x2f\xfd\x24\x4d\x6d\x01\x00\xc0\x4f\x6c\x64"
    "\x20\x47\x75\x61\x72\x64\x22\x36\x42\x6c\x75\x65\x2a\x2a\x20\x77\x69"
    "\x6e\x73\x22\x7d\x05\x00\x7c\x71\x28\xe0\x8e\x0c\x43\xab\x9f\x7c\x65"
    "\x51\x35\x38\x05\x8a\x0a\x04\x1f\x90\x35\x85";

START_TEST(test_dictionary_never_changes)
{
    unsigned char h[crypto_hash_sha256_BYTES];
    char hex[2 * sizeof h + 1];

    ck_assert_uint_eq(db_doc_dict_v1_len, DICT_V1_LEN);
    crypto_hash_sha256(h, (const unsigned char *)db_doc_dict_v1,
                       db_doc_dict_v1_len);
    sodium_bin2hex(hex, sizeof hex, h, sizeof h);
    ck_assert_str_eq(hex, DICT_V1_SHA256);
}
END_TEST

START_TEST(test_packed_then_reads_back)
{
    char *text = db_doc_text(golden_packed, sizeof golden_packed - 1);

    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(text, golden_text);
    free(text);
}
END_TEST

START_TEST(test_round_trip_with_the_tag)
{
    /* A report-like text, long enough to pack well. */
    char doc[4096];
    unsigned char *z;
    char *back;
    size_t n, len = 0;
    int i;

    len += (size_t)snprintf(doc, sizeof doc, "{\"units\":[");
    for (i = 0; i < 30; i++)
        len += (size_t)snprintf(doc + len, sizeof doc - len,
                                "%s{\"unit\":\"U%d\",\"natural\":%d}",
                                i ? "," : "", i, i % 6 + 1);
    snprintf(doc + len, sizeof doc - len, "]}");
    z = db_doc_pack(doc, &n);
    ck_assert_ptr_nonnull(z);
    ck_assert_mem_eq(z, "\x1bud1", 4);
    ck_assert_uint_lt(n, strlen(doc) / 2);
    back = db_doc_text(z, n);
    ck_assert_ptr_nonnull(back);
    ck_assert_str_eq(back, doc);
    free(back);

    /* A byte of the frame altered: refused (its checksum), not read as
     * another text. */
    z[n / 2] ^= 0x01;
    ck_assert_ptr_null(db_doc_text(z, n));
    free(z);
}
END_TEST

/* A report-like text of n units, each unlike the others (names, dice,
 * scores), into doc (size room). */
static void varied_report(char *doc, size_t room, int n)
{
    static const char *const names[] = {
        "Guard",     "Line",       "Militia",     "Hussars",
        "Fusiliers", "Voltigeurs", "Cuirassiers", "Artillery"};
    unsigned v = 12345;
    size_t len = 0;
    int i;

    len += (size_t)snprintf(doc, room, "{\"system\":\"scrud\",\"units\":[");
    for (i = 0; i < n; i++) {
        v = v * 1103515245u + 12345u;
        len += (size_t)snprintf(
            doc + len, room - len,
            "%s{\"unit\":\"%s %d\",\"quality\":%d,\"natural\":%u,"
            "\"modified\":%u,\"defeated\":%s,\"roll\":\"d%u\"}",
            i ? "," : "", names[(v >> 8) % 8], i, (int)((v >> 12) % 5) - 1,
            (v >> 16) % 6 + 1, (v >> 20) % 9, (v >> 24) % 2 ? "true" : "false",
            (v >> 28) % 2 ? 8u : 6u);
    }
    snprintf(doc + len, room - len, "],\"summary\":\"Blue vs Red\"}");
}

/* db_doc_pack_small packs the same document smaller, and
 * db_doc_pack_quick larger, with the same dictionary and tag, and each
 * reads back the same way; db_combat_pack packs a campaign combat's
 * report small, a one-off's quick. */
START_TEST(test_small_packs_smaller)
{
    char doc[8192];
    unsigned char *fast, *small, *quick;
    size_t n_fast, n_small, n_quick;
    char *back;
    db_combat cb;

    varied_report(doc, sizeof doc, 40);
    fast = db_doc_pack(doc, &n_fast);
    small = db_doc_pack_small(doc, &n_small);
    quick = db_doc_pack_quick(doc, &n_quick);
    ck_assert_ptr_nonnull(fast);
    ck_assert_ptr_nonnull(small);
    ck_assert_ptr_nonnull(quick);
    ck_assert_mem_eq(small, "\x1bud1", 4);
    ck_assert_mem_eq(quick, "\x1bud1", 4);
    ck_assert_uint_lt(n_small, n_fast);
    ck_assert_uint_gt(n_quick, n_fast);
    back = db_doc_text(small, n_small);
    ck_assert_ptr_nonnull(back);
    ck_assert_str_eq(back, doc);
    free(back);
    back = db_doc_text(quick, n_quick);
    ck_assert_ptr_nonnull(back);
    ck_assert_str_eq(back, doc);
    free(back);

    memset(&cb, 0, sizeof cb);
    cb.report = doc;
    snprintf(cb.campaign_id, sizeof cb.campaign_id, "cmp_1");
    ck_assert_int_eq(db_combat_pack(&cb, NULL, 0, NULL), ERR_OK);
    ck_assert_uint_eq(cb.report_z_len, n_small);
    ck_assert_mem_eq(cb.report_z, small, n_small);
    cb.campaign_id[0] = '\0';
    ck_assert_int_eq(db_combat_pack(&cb, NULL, 0, NULL), ERR_OK);
    ck_assert_uint_eq(cb.report_z_len, n_quick);
    ck_assert_mem_eq(cb.report_z, quick, n_quick);
    free(cb.report_z);
    free(cb.rolls_z);
    free(fast);
    free(small);
    free(quick);
}
END_TEST

START_TEST(test_older_forms_still_read)
{
    const char *doc = "{\"winner\":\"Blue\",\"margin\":2}";
    unsigned char bare[256];
    size_t n = ZSTD_compress(bare, sizeof bare, doc, strlen(doc), 1);
    char *back;

    /* Packed before the dictionary: a bare zstd frame. */
    ck_assert(!ZSTD_isError(n));
    back = db_doc_text(bare, n);
    ck_assert_ptr_nonnull(back);
    ck_assert_str_eq(back, doc);
    free(back);
    /* Stored as text. */
    back = db_doc_text(doc, strlen(doc));
    ck_assert_ptr_nonnull(back);
    ck_assert_str_eq(back, doc);
    free(back);
}
END_TEST

Suite *suite_doc_dict(void)
{
    Suite *s = suite_create("doc_dict");
    TCase *tc = tcase_create("doc_dict");

    suite_add_tcase(s, tc);
    tcase_add_test(tc, test_dictionary_never_changes);
    tcase_add_test(tc, test_packed_then_reads_back);
    tcase_add_test(tc, test_round_trip_with_the_tag);
    tcase_add_test(tc, test_older_forms_still_read);
    tcase_add_test(tc, test_small_packs_smaller);
    return s;
}
