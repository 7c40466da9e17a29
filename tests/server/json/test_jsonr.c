/*
 * test_jsonr.c: tests server/json/jsonr.c, the quick reader of request
 * bodies, against the reference it stands in for: jansson's json_loadb.
 * For every document and every supported set of flags the two must agree
 * exactly: both fail with the same error (message, line, column,
 * position, source), or both succeed with the same values, the same types
 * and the keys in the same order (compared as json_dumps text without
 * sorting), and the same error struct left behind.
 *
 * The documents: a table of hand-picked cases at the edges of what the
 * quick reader takes itself (numbers, escapes, UTF-8, duplicates, depth,
 * whitespace, trailing bytes), the bench's one-off SCRUD body, and
 * thousands of random documents, well formed and then broken byte by
 * byte.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <jansson.h>

#include "jsonr.h"
#include "suites.h"

/* run by tests/run_tests.c once tests/suites.h lists it */

static const size_t all_flags[] = {0, JSON_REJECT_DUPLICATES, JSON_DECODE_ANY,
                                   JSON_REJECT_DUPLICATES | JSON_DECODE_ANY};
#define N_FLAGS (sizeof all_flags / sizeof all_flags[0])

/* The value as text, keys in their order, reals told from integers. */
static char *dump(const json_t *v)
{
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

    ck_assert_ptr_nonnull(s);
    return s;
}

/* jsonr_loadb and json_loadb agree on buf[0..len) with flags. */
static void agree(const char *buf, size_t len, size_t flags)
{
    json_error_t want_err, got_err;
    json_t *want, *got;

    memset(&want_err, 0x5a, sizeof want_err);
    memset(&got_err, 0x5a, sizeof got_err);
    want = json_loadb(buf, len, flags, &want_err);
    got = jsonr_loadb(buf, len, flags, &got_err);
    ck_assert_msg((want == NULL) == (got == NULL),
                  "%.*s (flags %zu): jansson %s, jsonr %s", (int)len, buf,
                  flags, want ? "reads it" : want_err.text,
                  got ? "reads it" : got_err.text);
    if (want != NULL) {
        char *a = dump(want), *b = dump(got);
        ck_assert_msg(strcmp(a, b) == 0, "%.*s: jansson %s, jsonr %s", (int)len,
                      buf, a, b);
        ck_assert(json_equal(want, got));
        free(a);
        free(b);
    }
    ck_assert_str_eq(got_err.text, want_err.text);
    ck_assert_str_eq(got_err.source, want_err.source);
    ck_assert_int_eq(got_err.line, want_err.line);
    ck_assert_int_eq(got_err.column, want_err.column);
    ck_assert_int_eq(got_err.position, want_err.position);
    json_decref(want);
    json_decref(got);
    /* NULL error structs are allowed */
    got = jsonr_loadb(buf, len, flags, NULL);
    ck_assert((got == NULL) == (want == NULL));
    json_decref(got);
}

/* What jsonr_is_plain says of buf[0..len) holds: a plain text is an
 * object or an array jansson reads with no key given twice (so the text
 * stands for the value read), the value jsonr reads too. */
static void plain_holds(const char *buf, size_t len)
{
    json_t *strict, *quick;
    char *a, *b;

    if (!jsonr_is_plain(buf, len))
        return;
    strict = json_loadb(buf, len, JSON_REJECT_DUPLICATES, NULL);
    ck_assert_msg(strict != NULL, "%.*s: plain, but jansson refuses it",
                  (int)len, buf);
    ck_assert(json_is_object(strict) || json_is_array(strict));
    quick = jsonr_loadb(buf, len, 0, NULL);
    ck_assert_ptr_nonnull(quick);
    a = dump(strict);
    b = dump(quick);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
    json_decref(strict);
    json_decref(quick);
}

static void agree_all_flags(const char *buf, size_t len)
{
    size_t i;

    for (i = 0; i < N_FLAGS; i++)
        agree(buf, len, all_flags[i]);
    plain_holds(buf, len);
}

/* ---- hand-picked documents ---- */

static const char *const docs[] = {
    /* shapes and whitespace */
    "{}",
    "[]",
    " \t\r\n{ } \n",
    "[ ]",
    "{\"a\":1}",
    "{ \"a\" : [ 1 , 2 ] }",
    "[[[[]]]]",
    "[{}, {\"a\": {}}, []]",
    "{\"\": 0}",
    "{\"a\":1,}",
    "[1,]",
    "[,1]",
    "{,}",
    "{\"a\" 1}",
    "{\"a\":}",
    "{1:2}",
    "[1 2]",
    "{\"a\":1",
    "[1",
    "",
    "   ",
    "{} {}",
    "{}x",
    "{}\n\n",
    "\v{}",
    "{}\f",
    /* top-level scalars: only with JSON_DECODE_ANY */
    "1",
    "-1",
    "\"s\"",
    "true",
    "false",
    "null",
    " 7 ",
    /* numbers */
    "[0]",
    "[-0]",
    "[01]",
    "[-01]",
    "[00]",
    "[1.5]",
    "[1e5]",
    "[1E5]",
    "[-1.0e-3]",
    "[1.]",
    "[.5]",
    "[-]",
    "[--1]",
    "[+1]",
    "[1a]",
    "[0x10]",
    "[123456789012345678]",
    "[-123456789012345678]",
    "[1234567890123456789]",
    "[9223372036854775807]",
    "[9223372036854775808]",
    "[-9223372036854775808]",
    "[-9223372036854775809]",
    "[99999999999999999999999]",
    /* literals */
    "[true,false,null]",
    "[truex]",
    "[tru]",
    "[nul]",
    "[True]",
    "[nulll]",
    "[true1]",
    "[falsey]",
    "[null,null]",
    /* strings and escapes */
    "[\"\"]",
    "[\"plain text\"]",
    "[\"a\\\"b\"]",
    "[\"a\\\\b\"]",
    "[\"a\\/b\"]",
    "[\"\\b\\f\\n\\r\\t\"]",
    "[\"\\u0041\"]",
    "[\"\\u00e9\"]",
    "[\"\\ud83d\\ude00\"]",
    "[\"\\ud83d\"]",
    "[\"\\u0000\"]",
    "[\"\\x\"]",
    "[\"\\\"]",
    "[\"a\nb\"]",
    "[\"a\tb\"]",
    "[\"\x7f\"]",
    "[\"unterminated]",
    "{\"k\\ney\":1}",
    "{\"k\\u0041\":1}",
    "{\"a\\\"\":{\"b\\\\\":[\"\\/\"]}}",
    /* UTF-8 */
    "[\"\xc3\xa9\"]",
    "[\"\xe2\x82\xac\"]",
    "[\"\xf0\x9f\x98\x80\"]",
    "[\"\xc0\x80\"]",
    "[\"\xc1\xbf\"]",
    "[\"\xe0\x80\x80\"]",
    "[\"\xed\xa0\x80\"]",
    "[\"\xf4\x90\x80\x80\"]",
    "[\"\xf5\x80\x80\x80\"]",
    "[\"\x80\"]",
    "[\"\xc3\"]",
    "[\"\xc3\x28\"]",
    "[\"\xe2\x82\"]",
    "[\"\xff\"]",
    "{\"\xc3\xa9t\xc3\xa9\":\"\xe2\x82\xac\"}",
    "\xc3\xa9",
    "[\xc3\xa9]",
    "[\"\xef\xbb\xbf\"]",
    "\xef\xbb\xbf{}",
    /* duplicates: an error with JSON_REJECT_DUPLICATES, else the last
     * value in the first key's place */
    "{\"a\":1,\"a\":2}",
    "{\"a\":1,\"b\":2,\"a\":3}",
    "{\"a\":{\"b\":1,\"b\":2}}",
    "{\"a\\u0041\":1,\"aA\":2}",
    "{\"a\\/\":1,\"a/\":2}",
    /* key order */
    "{\"z\":1,\"y\":2,\"x\":3,\"a\":4,\"m\":5,\"b\":6,\"c\":7,\"d\":8,"
    "\"e\":9,\"f\":10,\"g\":11,\"h\":12}",
};
#define N_DOCS (int)(sizeof docs / sizeof docs[0])

START_TEST(test_documents)
{
    agree_all_flags(docs[_i], strlen(docs[_i]));
}
END_TEST

/* Bytes strlen would stop at: a NUL in a string, after a value, and as
 * the whole document; and a buffer that stops short of its NUL. */
START_TEST(test_nul_bytes)
{
    static const char in_string[] = "[\"a\0b\"]", after[] = "{}\0",
                      alone[] = "\0", key[] = "{\"a\0\":1}";

    agree_all_flags(in_string, sizeof in_string - 1);
    agree_all_flags(after, sizeof after - 1);
    agree_all_flags(alone, sizeof alone - 1);
    agree_all_flags(key, sizeof key - 1);
    agree_all_flags("[1,2]", 3); /* "[1," */
    agree_all_flags("{\"a\":1}", 6);
    agree_all_flags("", 0);
}
END_TEST

/* Nesting up to jsonr's limit and past it, and past jansson's. */
START_TEST(test_depth)
{
    static const int depths[] = {1,
                                 JSONR_MAX_DEPTH - 1,
                                 JSONR_MAX_DEPTH,
                                 JSONR_MAX_DEPTH + 1,
                                 2047,
                                 2048,
                                 2049};
    char *buf = malloc(2 * 2100 + 16);
    size_t i;
    int k, n;

    ck_assert_ptr_nonnull(buf);
    for (i = 0; i < sizeof depths / sizeof depths[0]; i++) {
        n = depths[i];
        for (k = 0; k < n; k++)
            buf[k] = '[';
        for (k = 0; k < n; k++)
            buf[n + k] = ']';
        agree_all_flags(buf, 2 * (size_t)n);
        /* objects inside arrays */
        for (k = 0; k < n; k++)
            buf[k] = '[';
        memcpy(buf + n, "{\"a\":1}", 7);
        for (k = 0; k < n; k++)
            buf[n + 7 + k] = ']';
        agree_all_flags(buf, 2 * (size_t)n + 7);
    }
    free(buf);
}
END_TEST

/* The body the bench sends, and an entered-dice campaign body. */
START_TEST(test_request_bodies)
{
    static const char oneoff[] =
        "{\"sides\":[\n"
        " {\"name\":\"Blue\",\"modifier\":1,\"units\":[\n"
        "  {\"name\":\"Guard Grenadiers\",\"quality\":3},\n"
        "  {\"name\":\"1st Line\",\"quality\":1},\n"
        "  {\"name\":\"2nd Line\",\"quality\":1,\"defeat_penalty\":1},\n"
        "  {\"name\":\"Hussars\",\"quality\":2,\"faces\":8},\n"
        "  {\"name\":\"Foot Artillery\",\"quality\":1,\"reserve\":true}]},\n"
        " {\"name\":\"Red\",\"units\":[\n"
        "  {\"name\":\"Old Guard\",\"quality\":-4},\n"
        "  {\"name\":\"Cuirassiers\",\"quality\":3,\"faces\":8,"
        "\"reserve\":false}]}],\n"
        " \"dice\":{\"source\":\"seeded\"},\n"
        " \"note\":\"bench: 8 against 4\"}\n",
                      campaign[] =
                          "{\"note\":\"Day 1\",\"dice\":{\"source\":"
                          "\"entered\",\"client_seed\":null},\"sides\":"
                          "[{\"side\":\"russian\",\"units\":[{\"unit\":"
                          "\"R1\",\"die\":6}]},{\"side\":\"german\","
                          "\"units\":[{\"unit\":\"G\\u00fcnther\","
                          "\"die\":1}]}]}";

    agree_all_flags(oneoff, sizeof oneoff - 1);
    agree_all_flags(campaign, sizeof campaign - 1);
}
END_TEST

/* ---- random documents ---- */

/* A small deterministic generator (xorshift64*), so that a failure
 * repeats. */
static uint64_t rnd_state;

static uint32_t rnd(uint32_t n)
{
    rnd_state ^= rnd_state >> 12;
    rnd_state ^= rnd_state << 25;
    rnd_state ^= rnd_state >> 27;
    return (uint32_t)((rnd_state * 2685821657736338717ULL) >> 33) % n;
}

typedef struct buf {
    char s[16384];
    size_t len;
} buf;

static void add(buf *b, const char *s)
{
    size_t n = strlen(s);

    if (b->len + n < sizeof b->s) {
        memcpy(b->s + b->len, s, n);
        b->len += n;
    }
}

static void add_space(buf *b)
{
    static const char *const spaces[] = {"", "", "", " ", "\n", "\t", "\r\n  "};

    add(b, spaces[rnd(sizeof spaces / sizeof spaces[0])]);
}

static void add_string(buf *b)
{
    static const char *const parts[] = {"a",
                                        "name",
                                        "Guard",
                                        " ",
                                        "\\\"",
                                        "\\\\",
                                        "\\/",
                                        "\\n",
                                        "\\t",
                                        "\\b",
                                        "\\f",
                                        "\\r",
                                        "\\u0041",
                                        "\\u00e9",
                                        "\xc3\xa9",
                                        "\xe2\x82\xac",
                                        "\xf0\x9f\x98\x80",
                                        "1",
                                        "_",
                                        "k"};
    int n = (int)rnd(5), k;

    add(b, "\"");
    for (k = 0; k < n; k++)
        add(b, parts[rnd(sizeof parts / sizeof parts[0])]);
    add(b, "\"");
}

static void add_value(buf *b, int depth)
{
    static const char *const scalars[] = {
        "0",   "1",   "-1",   "42",    "-0",   "7",   "123456789012345678",
        "1.5", "2e3", "true", "false", "null", "-17", "9999999999999999999"};
    uint32_t kind = depth > 5 ? 2 : rnd(5);
    int n, k;

    switch (kind) {
    case 0:
        add(b, "{");
        n = (int)rnd(5);
        for (k = 0; k < n; k++) {
            add_space(b);
            if (k > 0) {
                add(b, ",");
                add_space(b);
            }
            /* few distinct keys, so that duplicates happen */
            if (rnd(3) == 0)
                add_string(b);
            else
                add(b, rnd(2) ? "\"a\"" : "\"b\"");
            add_space(b);
            add(b, ":");
            add_space(b);
            add_value(b, depth + 1);
        }
        add_space(b);
        add(b, "}");
        break;
    case 1:
        add(b, "[");
        n = (int)rnd(5);
        for (k = 0; k < n; k++) {
            add_space(b);
            if (k > 0) {
                add(b, ",");
                add_space(b);
            }
            add_value(b, depth + 1);
        }
        add_space(b);
        add(b, "]");
        break;
    case 2: add(b, scalars[rnd(sizeof scalars / sizeof scalars[0])]); break;
    default: add_string(b); break;
    }
}

/* 3,000 random documents as they are, and each broken three ways. */
START_TEST(test_random_documents)
{
    static const char noise[] = "{}[],:\"\\-0123456789.eEtfnul \n\x01\x80\xc3";
    buf b;
    int round, k;

    rnd_state = 0x9e3779b97f4a7c15ULL;
    for (round = 0; round < 3000; round++) {
        b.len = 0;
        add_space(&b);
        add_value(&b, 0);
        add_space(&b);
        agree_all_flags(b.s, b.len);
        for (k = 0; k < 3 && b.len > 1; k++) {
            size_t at = rnd((uint32_t)b.len);
            char c = noise[rnd(sizeof noise - 1)];
            switch (rnd(3)) {
            case 0: b.s[at] = c; break; /* replace */
            case 1:                     /* delete */
                memmove(b.s + at, b.s + at + 1, b.len - at - 1);
                b.len--;
                break;
            default: /* insert */
                if (b.len + 1 < sizeof b.s) {
                    memmove(b.s + at + 1, b.s + at, b.len - at);
                    b.s[at] = c;
                    b.len++;
                }
                break;
            }
            agree_all_flags(b.s, b.len);
        }
    }
}
END_TEST

/* jsonr_is_plain: a history document as stored is plain; what the quick
 * reader hands to jansson, a key given twice or spelled with an escape,
 * and an object of more than 32 members are not. */
START_TEST(test_plain)
{
    static const char *const plain[] = {
        "{\"eliminated\":false,\"eliminated_reason\":null,\"name\":\"B1\","
        "\"scrud\":{\"defeat_penalty\":0,\"faces\":6,\"modifier\":-2},"
        "\"side_id\":\"sd_01\",\"systems\":[\"scrud\"]}",
        " [ 1 , -2 , \"a\\\"b\\/\\n\" , {} , [] , true ] ",
        "{\"\xc3\xa9\":\"\xe2\x82\xac\"}", "[]"};
    static const char *const not_plain[] = {"{\"x\":1.5}",
                                            "[1e3]",
                                            "[\"\\u0041\"]",
                                            "{\"a\":1,\"a\":2}",
                                            "{\"a\\n\":1}",
                                            "\"text\"",
                                            "7",
                                            "{} x",
                                            "{\"a\":}",
                                            "[1,]",
                                            "[0123]",
                                            "[1234567890123456789]",
                                            "{\"a\":{\"b\":1,\"b\":2}}",
                                            "[\"\xc3\x28\"]",
                                            ""};
    char text[600], *p;
    size_t i;
    int k;

    for (i = 0; i < sizeof plain / sizeof plain[0]; i++)
        ck_assert_msg(jsonr_is_plain(plain[i], strlen(plain[i])), "%s",
                      plain[i]);
    for (i = 0; i < sizeof not_plain / sizeof not_plain[0]; i++)
        ck_assert_msg(!jsonr_is_plain(not_plain[i], strlen(not_plain[i])), "%s",
                      not_plain[i]);
    ck_assert(!jsonr_is_plain(NULL, 0));
    /* 32 members are, 33 are not; nesting to jsonr's limit is, past not */
    for (k = 32; k <= 33; k++) {
        p = text;
        *p++ = '{';
        for (i = 0; i < (size_t)k; i++)
            p += sprintf(p, "%s\"k%zu\":%zu", i ? "," : "", i, i);
        *p++ = '}';
        ck_assert(jsonr_is_plain(text, (size_t)(p - text)) == (k == 32));
    }
    for (k = JSONR_MAX_DEPTH; k <= JSONR_MAX_DEPTH + 1; k++) {
        memset(text, '[', (size_t)k);
        memset(text + k, ']', (size_t)k);
        ck_assert(jsonr_is_plain(text, 2 * (size_t)k) ==
                  (k == JSONR_MAX_DEPTH));
    }
}
END_TEST

/* Flags jsonr does not handle itself go to jansson as they are. */
START_TEST(test_other_flags)
{
    static const size_t others[] = {JSON_DISABLE_EOF_CHECK,
                                    JSON_DECODE_INT_AS_REAL, JSON_ALLOW_NUL};
    static const char doc[] = "[1, \"a\\u0000b\"] x";
    size_t i;

    for (i = 0; i < sizeof others / sizeof others[0]; i++) {
        agree(doc, sizeof doc - 1, others[i]);
        agree(doc, 15, others[i] | JSON_DECODE_ANY);
    }
}
END_TEST

Suite *suite_jsonr(void)
{
    Suite *s = suite_create("jsonr");
    TCase *fixed = tcase_create("fixed"), *random = tcase_create("random");

    tcase_add_loop_test(fixed, test_documents, 0, N_DOCS);
    tcase_add_test(fixed, test_nul_bytes);
    tcase_add_test(fixed, test_depth);
    tcase_add_test(fixed, test_request_bodies);
    tcase_add_test(fixed, test_other_flags);
    tcase_add_test(fixed, test_plain);
    tcase_add_test(random, test_random_documents);
    tcase_set_timeout(random, 60);
    suite_add_tcase(s, fixed);
    suite_add_tcase(s, random);
    return s;
}
