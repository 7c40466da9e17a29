/*
 * test_jsonw.c: tests server/json/jsonw.c, the streaming JSON writer that
 * serializes every combat report.  Each case writes through the public
 * calls and compares the whole output string with the text expected, so
 * a comma too many or too few, a wrong escape or a lost byte shows; and
 * every output must also parse with jansson (json_loads), the reference
 * reader of the project.
 *
 * The writer starts with a 4096-byte buffer and doubles it; the long cases
 * force several growths, in many small writes and in one large one.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <jansson.h>

#include "jsonw.h"
#include "suites.h"

/* Takes w's text, asserts it is want (byte for byte, length included) and
 * that jansson parses it; returns the parsed value (new). */
static json_t *expect_text(jw *w, const char *want)
{
    size_t len = 0;
    char *got = jw_take(w, &len);
    json_error_t jerr;
    json_t *j;

    ck_assert_msg(got != NULL, "jw_take failed, expected %s", want);
    ck_assert_msg(strcmp(got, want) == 0, "wrote %s\n expected %s", got, want);
    ck_assert_uint_eq(len, strlen(want));
    j = json_loads(got, JSON_DECODE_ANY, &jerr);
    ck_assert_msg(j != NULL, "%s does not parse: %s", got, jerr.text);
    free(got);
    jw_free(w);
    return j;
}

/* Like expect_text, dropping the parsed value. */
static void expect(jw *w, const char *want)
{
    json_decref(expect_text(w, want));
}

/* ---- commas and nesting ---- */

START_TEST(test_empty_containers)
{
    jw w;

    jw_init(&w);
    jw_object(&w);
    jw_object_end(&w);
    expect(&w, "{}");

    jw_init(&w);
    jw_array(&w);
    jw_array_end(&w);
    expect(&w, "[]");

    /* empty containers as items still take their commas */
    jw_init(&w);
    jw_array(&w);
    jw_object(&w);
    jw_object_end(&w);
    jw_array(&w);
    jw_array_end(&w);
    jw_object(&w);
    jw_object_end(&w);
    jw_array_end(&w);
    expect(&w, "[{},[],{}]");

    jw_init(&w);
    jw_object(&w);
    jw_key(&w, "a");
    jw_array(&w);
    jw_array_end(&w);
    jw_key(&w, "b");
    jw_object(&w);
    jw_object_end(&w);
    jw_object_end(&w);
    expect(&w, "{\"a\":[],\"b\":{}}");
}
END_TEST

START_TEST(test_nested_commas)
{
    json_t *j, *f;
    jw w;

    jw_init(&w);
    jw_object(&w);
    jw_kint(&w, "a", 1);
    jw_key(&w, "b");
    jw_array(&w);
    jw_int(&w, 1);
    jw_object(&w);
    jw_kint(&w, "c", 2);
    jw_kstring(&w, "d", "x");
    jw_object_end(&w);
    jw_array(&w);
    jw_array_end(&w);
    jw_int(&w, 3);
    jw_array_end(&w);
    jw_key(&w, "e");
    jw_object(&w);
    jw_key(&w, "f");
    jw_array(&w);
    jw_array(&w);
    jw_int(&w, 4);
    jw_array_end(&w);
    jw_array_end(&w);
    jw_object_end(&w);
    jw_kbool(&w, "g", false);
    jw_object_end(&w);
    j = expect_text(&w, "{\"a\":1,\"b\":[1,{\"c\":2,\"d\":\"x\"},[],3],"
                        "\"e\":{\"f\":[[4]]},\"g\":false}");
    /* the structure jansson reads matches what was written */
    ck_assert_uint_eq(json_object_size(j), 4);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "b")), 4);
    f = json_object_get(json_object_get(j, "e"), "f");
    ck_assert_int_eq(
        json_integer_value(json_array_get(json_array_get(f, 0), 0)), 4);
    json_decref(j);
}
END_TEST

/* A key after a closed container, and a key after a scalar value, both
 * take a comma; the value after a key never does. */
START_TEST(test_keys_after_values)
{
    jw w;

    jw_init(&w);
    jw_object(&w);
    jw_key(&w, "o");
    jw_object(&w);
    jw_kint(&w, "x", 1);
    jw_object_end(&w);
    jw_key(&w, "a");
    jw_array(&w);
    jw_null(&w);
    jw_array_end(&w);
    jw_kstring(&w, "s", "v");
    jw_kstring_or_null(&w, "n", NULL);
    jw_kbool(&w, "t", true);
    jw_kint(&w, "i", -7);
    jw_object_end(&w);
    expect(&w, "{\"o\":{\"x\":1},\"a\":[null],\"s\":\"v\",\"n\":null,"
               "\"t\":true,\"i\":-7}");

    /* an object inside an array inside an object, twice: the second of
     * each level needs its comma back after the inner one closed */
    jw_init(&w);
    jw_object(&w);
    jw_key(&w, "l");
    jw_array(&w);
    jw_object(&w);
    jw_kint(&w, "k", 1);
    jw_object_end(&w);
    jw_object(&w);
    jw_kint(&w, "k", 2);
    jw_object_end(&w);
    jw_array_end(&w);
    jw_key(&w, "m");
    jw_int(&w, 3);
    jw_object_end(&w);
    expect(&w, "{\"l\":[{\"k\":1},{\"k\":2}],\"m\":3}");
}
END_TEST

/* Top-level scalars (no container): no comma bookkeeping at depth 0. */
START_TEST(test_top_level_values)
{
    jw w;

    jw_init(&w);
    jw_int(&w, 5);
    expect(&w, "5");
    jw_init(&w);
    jw_string(&w, "x");
    expect(&w, "\"x\"");
    jw_init(&w);
    jw_null(&w);
    expect(&w, "null");
}
END_TEST

/* ---- strings ---- */

static const struct {
    const char *in, *out; /* out: the JSON text, quotes included */
} strings[] = {
    {"", "\"\""},
    {"plain", "\"plain\""},
    {"say \"hi\"", "\"say \\\"hi\\\"\""},
    {"a\\b", "\"a\\\\b\""},
    {"\\", "\"\\\\\""},
    {"\"", "\"\\\"\""},
    {"line\nnext", "\"line\\u000anext\""},
    {"\n", "\"\\u000a\""},
    {"\x01", "\"\\u0001\""},
    {"a\x1f"
     "b",
     "\"a\\u001fb\""},
    {"\t\r", "\"\\u0009\\u000d\""},
    {"\x7f", "\"\x7f\""}, /* DEL needs no escape */
    {" ", "\" \""},       /* 0x20 is the first character left alone */
    {"\"\\\n\x01\x1f", "\"\\\"\\\\\\u000a\\u0001\\u001f\""},
    /* UTF-8 passes through byte for byte: é, €, 😀 */
    {"\xc3\xa9", "\"\xc3\xa9\""},
    {"\xe2\x82\xac 5", "\"\xe2\x82\xac 5\""},
    {"\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\""},
    {"Gro\xc3\x9f\n\"K\xc3\xb6ln\"",
     "\"Gro\xc3\x9f\\u000a\\\"K\xc3\xb6ln\\\"\""},
};
#define N_STRINGS (int)(sizeof strings / sizeof strings[0])

/* jw_string escapes exactly what JSON requires, and jansson reads the
 * original string back. */
START_TEST(test_string_escaping)
{
    json_t *j;
    jw w;

    jw_init(&w);
    jw_string(&w, strings[_i].in);
    j = expect_text(&w, strings[_i].out);
    ck_assert(json_is_string(j));
    ck_assert_str_eq(json_string_value(j), strings[_i].in);
    json_decref(j);
}
END_TEST

/* Keys go through the same escaping. */
START_TEST(test_key_escaping)
{
    json_t *j;
    jw w;

    jw_init(&w);
    jw_object(&w);
    jw_kint(&w, "a\"b", 1);
    jw_kint(&w, "c\\d\n", 2);
    jw_kint(&w, "\xc3\xa9", 3);
    jw_object_end(&w);
    j = expect_text(&w, "{\"a\\\"b\":1,\"c\\\\d\\u000a\":2,\"\xc3\xa9\":3}");
    ck_assert_int_eq(json_integer_value(json_object_get(j, "a\"b")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "c\\d\n")), 2);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "\xc3\xa9")), 3);
    json_decref(j);
}
END_TEST

/* Strings damaged into bytes that are not UTF-8 (only a damaged store
 * holds them: requests are checked): each byte that starts no
 * well-formed sequence is written as U+FFFD, a well-formed sequence
 * beside it as it is, so the text always reads. */
static const struct {
    const char *in, *out, *read; /* read: the string jansson reads back */
} damaged[] = {
    {"\x80", "\"\\ufffd\"", "\xef\xbf\xbd"},
    {"a\xc3", "\"a\\ufffd\"", "a\xef\xbf\xbd"}, /* cut at its end */
    {"\xc3(", "\"\\ufffd(\"", "\xef\xbf\xbd("}, /* not continued */
    {"\xc0\xaf", "\"\\ufffd\\ufffd\"",          /* overlong */
     "\xef\xbf\xbd\xef\xbf\xbd"},
    {"\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"", /* overlong */
     "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
    {"\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"", /* a surrogate */
     "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
    {"\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"", /* > U+10FFFF */
     "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
    {"\xf5\xff", "\"\\ufffd\\ufffd\"", "\xef\xbf\xbd\xef\xbf\xbd"},
    {"\xe2\x82", "\"\\ufffd\\ufffd\"", "\xef\xbf\xbd\xef\xbf\xbd"},
    {"ok\xff\xc3\xa9\n", "\"ok\\ufffd\xc3\xa9\\u000a\"",
     "ok\xef\xbf\xbd\xc3\xa9\n"},
    {"\xf0\x9f\x98\"", "\"\\ufffd\\ufffd\\ufffd\\\"\"",
     "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""},
    {"\xf0\x9f\x98\x80\xf0\x9f\x98",
     "\"\xf0\x9f\x98\x80\\ufffd\\ufffd\\ufffd\"",
     "\xf0\x9f\x98\x80\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
    {"\xef\xbf\xbd", "\"\xef\xbf\xbd\"", "\xef\xbf\xbd"}, /* U+FFFD itself */
    {"\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\"", "\xf4\x8f\xbf\xbf"},
};
#define N_DAMAGED (int)(sizeof damaged / sizeof damaged[0])

START_TEST(test_damaged_utf8)
{
    json_t *j;
    jw w;

    jw_init(&w);
    jw_object(&w);
    jw_key(&w, damaged[_i].in);
    jw_string(&w, damaged[_i].in);
    jw_kstring(&w, "k", damaged[_i].in);
    jw_object_end(&w);
    {
        char want[256];
        snprintf(want, sizeof want, "{%s:%s,\"k\":%s}", damaged[_i].out,
                 damaged[_i].out, damaged[_i].out);
        j = expect_text(&w, want);
    }
    ck_assert_str_eq(json_string_value(json_object_get(j, "k")),
                     damaged[_i].read);
    ck_assert_str_eq(json_string_value(json_object_get(j, damaged[_i].read)),
                     damaged[_i].read);
    json_decref(j);
}
END_TEST

/* Random byte strings (any byte but NUL, with UTF-8 sequences, quotes
 * and backslashes among them): what is written always reads; a string
 * that is UTF-8 (jansson's json_stringn takes it) reads back as it was,
 * and one that is not reads with U+FFFD in it. */
START_TEST(test_random_bytes_read)
{
    static const char *const pieces[] = {
        "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\"", "\\", "a"};
    unsigned seed = 17;
    int round, n_damaged = 0;

    for (round = 0; round < 20000; round++) {
        char in[64];
        size_t n = 0, want = 0, len;
        json_error_t jerr;
        json_t *j, *ref;
        char *text;
        jw w;

        seed = seed * 1103515245u + 12345u;
        want = (seed >> 16) % 24;
        while (n < want) {
            seed = seed * 1103515245u + 12345u;
            if ((seed >> 16) % 3 == 0) {
                const char *p = pieces[(seed >> 8) % 6];
                size_t k = strlen(p);
                if (n + k > want)
                    break;
                memcpy(in + n, p, k);
                n += k;
            } else {
                in[n++] = (char)(1 + (seed >> 16) % 255);
            }
        }
        in[n] = '\0';
        jw_init(&w);
        jw_string(&w, in);
        text = jw_take(&w, &len);
        ck_assert_ptr_nonnull(text);
        j = json_loadb(text, len, JSON_DECODE_ANY, &jerr);
        ck_assert_msg(j != NULL && json_is_string(j),
                      "round %d: %s does not read: %s", round, text, jerr.text);
        if ((ref = json_stringn(in, n)) != NULL) {
            ck_assert_msg(json_equal(j, ref), "round %d: %s", round, text);
        } else {
            ck_assert_msg(strstr(json_string_value(j), "\xef\xbf\xbd"),
                          "round %d: %s", round, text);
            n_damaged++;
        }
        json_decref(ref);
        json_decref(j);
        free(text);
        jw_free(&w);
    }
    ck_assert_int_gt(n_damaged, 1000); /* both kinds were tried */
    ck_assert_int_lt(n_damaged, 19000);
}
END_TEST

/* Keys known only when run (not literals the compiler checks): plain and
 * escaped, through every key shorthand. */
START_TEST(test_runtime_keys)
{
    char plain[16], quoted[16];
    jw w;

    snprintf(plain, sizeof plain, "k%d", 7);
    snprintf(quoted, sizeof quoted, "q\"%d\n", 8);
    jw_init(&w);
    jw_object(&w);
    jw_kint(&w, plain, -1);
    jw_kint(&w, quoted, 22);
    jw_kstring(&w, plain, "s");
    jw_kstring_or_null(&w, quoted, NULL);
    jw_kbool(&w, plain, true);
    jw_key(&w, quoted);
    jw_int(&w, 0);
    jw_object_end(&w);
    expect(&w, "{\"k7\":-1,\"q\\\"8\\u000a\":22,\"k7\":\"s\","
               "\"q\\\"8\\u000a\":null,\"k7\":true,"
               "\"q\\\"8\\u000a\":0}");
}
END_TEST

START_TEST(test_string_or_null)
{
    jw w;

    jw_init(&w);
    jw_array(&w);
    jw_string_or_null(&w, NULL);
    jw_string_or_null(&w, "");
    jw_string_or_null(&w, "x");
    jw_string_or_null(&w, "\"");
    jw_array_end(&w);
    expect(&w, "[null,null,\"x\",\"\\\"\"]");

    jw_init(&w);
    jw_object(&w);
    jw_kstring_or_null(&w, "a", NULL);
    jw_kstring_or_null(&w, "b", "");
    jw_kstring_or_null(&w, "c", "y");
    jw_object_end(&w);
    expect(&w, "{\"a\":null,\"b\":null,\"c\":\"y\"}");

    /* jw_string itself keeps "" as a string */
    jw_init(&w);
    jw_array(&w);
    jw_string(&w, "");
    jw_array_end(&w);
    expect(&w, "[\"\"]");
}
END_TEST

/* ---- numbers, booleans, null ---- */

START_TEST(test_int_extremes)
{
    static const struct {
        long long v;
        const char *text;
    } ints[] = {
        {0, "0"},
        {-1, "-1"},
        {1, "1"},
        {10, "10"},
        {-10, "-10"},
        {LLONG_MAX, "9223372036854775807"},
        {LLONG_MIN, "-9223372036854775808"},
        {LLONG_MIN + 1, "-9223372036854775807"},
    };
    char want[64];
    json_t *j;
    size_t i;
    jw w;

    for (i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        jw_init(&w);
        jw_array(&w);
        jw_int(&w, ints[i].v);
        jw_int(&w, ints[i].v);
        jw_array_end(&w);
        snprintf(want, sizeof want, "[%s,%s]", ints[i].text, ints[i].text);
        j = expect_text(&w, want);
        ck_assert_msg(json_integer_value(json_array_get(j, 1)) ==
                          (json_int_t)ints[i].v,
                      "%s reads back as %lld", ints[i].text,
                      (long long)json_integer_value(json_array_get(j, 1)));
        json_decref(j);
    }
    jw_init(&w);
    jw_object(&w);
    jw_kint(&w, "max", LLONG_MAX);
    jw_kint(&w, "min", LLONG_MIN);
    jw_kint(&w, "zero", 0);
    jw_object_end(&w);
    expect(&w, "{\"max\":9223372036854775807,\"min\":-9223372036854775808,"
               "\"zero\":0}");
}
END_TEST

START_TEST(test_bool_and_null)
{
    json_t *j;
    jw w;

    jw_init(&w);
    jw_array(&w);
    jw_bool(&w, true);
    jw_bool(&w, false);
    jw_null(&w);
    jw_bool(&w, true);
    jw_array_end(&w);
    j = expect_text(&w, "[true,false,null,true]");
    ck_assert(json_is_true(json_array_get(j, 0)));
    ck_assert(json_is_false(json_array_get(j, 1)));
    ck_assert(json_is_null(json_array_get(j, 2)));
    json_decref(j);

    jw_init(&w);
    jw_object(&w);
    jw_kbool(&w, "t", true);
    jw_kbool(&w, "f", false);
    jw_key(&w, "n");
    jw_null(&w);
    jw_object_end(&w);
    expect(&w, "{\"t\":true,\"f\":false,\"n\":null}");
}
END_TEST

/* ---- jw_raw ---- */

START_TEST(test_raw_splicing)
{
    static const char inner[] = "{\"x\":[1,2]}";
    jw w;

    /* a raw value is an item like any other: commas around it */
    jw_init(&w);
    jw_array(&w);
    jw_int(&w, 0);
    jw_raw(&w, inner, strlen(inner));
    jw_raw(&w, "true", 4);
    jw_int(&w, 9);
    jw_array_end(&w);
    expect(&w, "[0,{\"x\":[1,2]},true,9]");

    /* after a key, no comma; the next key gets one */
    jw_init(&w);
    jw_object(&w);
    jw_key(&w, "r");
    jw_raw(&w, inner, strlen(inner));
    jw_kint(&w, "n", 1);
    jw_object_end(&w);
    expect(&w, "{\"r\":{\"x\":[1,2]},\"n\":1}");

    /* only len bytes are copied */
    jw_init(&w);
    jw_array(&w);
    jw_raw(&w, "123456", 3);
    jw_array_end(&w);
    expect(&w, "[123]");

    /*
     * How a stored report gets its roll log (combat_report_with_rolls in
     * server/systems/combat.c): the report without its closing brace, a raw
     * member, an array, the brace.  At depth 0 no comma is added.
     */
    jw_init(&w);
    jw_raw(&w, "{\"id\":\"c1\"}", 10);
    jw_raw(&w, ",\"rolls\":", 9);
    jw_array(&w);
    jw_object(&w);
    jw_kint(&w, "seq", 1);
    jw_object_end(&w);
    jw_object(&w);
    jw_kint(&w, "seq", 2);
    jw_object_end(&w);
    jw_array_end(&w);
    jw_raw(&w, "}", 1);
    expect(&w, "{\"id\":\"c1\",\"rolls\":[{\"seq\":1},{\"seq\":2}]}");
}
END_TEST

/* ---- growth ---- */

#define N_ITEMS 10000

/* 10,000 objects in an array: ~400 KB, so the 4 KB buffer doubles about
 * seven times in the middle of values. */
START_TEST(test_long_output)
{
    char name[32], *text, *p;
    size_t len = 0, want_len = 2;
    json_error_t jerr;
    json_t *j, *last;
    int k;
    jw w;

    jw_init(&w);
    jw_array(&w);
    for (k = 0; k < N_ITEMS; k++) {
        snprintf(name, sizeof name, "item \"%d\"\n", k);
        jw_object(&w);
        jw_kint(&w, "i", k);
        jw_kstring(&w, "name", name);
        jw_kbool(&w, "even", k % 2 == 0);
        jw_object_end(&w);
        /* {"i":K,"name":"item \"K\"\u000a","even":B} and a comma */
        want_len += strlen("{\"i\":,\"name\":\"item \\\"\\\"\\u000a\","
                           "\"even\":}") +
                    2 * (size_t)snprintf(NULL, 0, "%d", k) +
                    (k % 2 == 0 ? 4 : 5) + (k > 0);
    }
    jw_array_end(&w);
    text = jw_take(&w, &len);
    ck_assert_ptr_nonnull(text);
    ck_assert_uint_eq(len, strlen(text));
    ck_assert_uint_eq(len, want_len);
    ck_assert_uint_gt(len, 4096 * 64);
    j = json_loads(text, 0, &jerr);
    ck_assert_msg(j != NULL, "does not parse: %s (at %d)", jerr.text,
                  jerr.position);
    ck_assert_uint_eq(json_array_size(j), N_ITEMS);
    last = json_array_get(j, N_ITEMS - 1);
    ck_assert_int_eq(json_integer_value(json_object_get(last, "i")),
                     N_ITEMS - 1);
    snprintf(name, sizeof name, "item \"%d\"\n", N_ITEMS - 1);
    ck_assert_str_eq(json_string_value(json_object_get(last, "name")), name);
    ck_assert(json_is_false(json_object_get(last, "even")));
    ck_assert_int_eq(
        json_integer_value(json_object_get(json_array_get(j, 4096), "i")),
        4096);
    /* and the text ends exactly where the last item does */
    p = text + len - strlen("\"even\":false}]");
    ck_assert_str_eq(p, "\"even\":false}]");
    json_decref(j);
    free(text);
    jw_free(&w);
}
END_TEST

/* One string far larger than the buffer (and than twice it), plain and
 * escaped: the growth loop must reach the size in one call. */
START_TEST(test_one_large_string)
{
    size_t n = 100000, len = 0, i;
    char *big = malloc(n + 1), *text;
    json_t *j;
    jw w;

    ck_assert_ptr_nonnull(big);
    for (i = 0; i < n; i++)
        big[i] = (char)('a' + i % 26);
    big[n] = '\0';
    jw_init(&w);
    jw_array(&w);
    jw_string(&w, big);
    big[n / 2] = '\n'; /* now escaped: a different path */
    jw_string(&w, big);
    jw_array_end(&w);
    text = jw_take(&w, &len);
    ck_assert_ptr_nonnull(text);
    /* [ "n plain" , "n - 1 plain and \u000a" ] */
    ck_assert_uint_eq(len, 1 + (n + 2) + 1 + (n - 1 + 6 + 2) + 1);
    j = json_loads(text, 0, NULL);
    ck_assert_ptr_nonnull(j);
    ck_assert_str_eq(json_string_value(json_array_get(j, 1)), big);
    big[n / 2] = (char)('a' + (n / 2) % 26);
    ck_assert_str_eq(json_string_value(json_array_get(j, 0)), big);
    json_decref(j);
    free(text);
    free(big);
    jw_free(&w);
}
END_TEST

/* Writes that end exactly at the end of the buffer, or one byte before or
 * after it: the terminating NUL needs a byte of its own (an overrun here
 * shows under make asan or valgrind). */
START_TEST(test_buffer_boundary)
{
    char *body = malloc(4200), *text, *want = malloc(4200);
    size_t k, len;
    jw w;

    ck_assert_ptr_nonnull(body);
    ck_assert_ptr_nonnull(want);
    for (k = 4085; k < 4105; k++) {
        memset(body, 'b', k);
        body[k] = '\0';
        jw_init(&w);
        jw_array(&w);        /* 1 byte, the first 4096-byte buffer */
        jw_string(&w, body); /* k + 2 bytes: ends at 4096 when k = 4093 */
        jw_int(&w, 7);
        jw_array_end(&w);
        snprintf(want, 4200, "[\"%s\",7]", body);
        text = jw_take(&w, &len);
        ck_assert_ptr_nonnull(text);
        ck_assert_uint_eq(len, k + 6);
        ck_assert_str_eq(text, want);
        free(text);
        jw_free(&w);
    }
    free(body);
    free(want);
}
END_TEST

/* A key and its value are written in one reservation (jw_kint, jw_kstring,
 * jw_kstring_or_null, jw_kbool), or inline (jw_next_key: an integer of 0
 * to 99, a boolean, null) where it fits: each of them across the end of
 * the first buffer, at every offset (from k = 3950 the last items cross it
 * too), a string's escapes and the inline writes' edges (0, 9, 10, 99,
 * 100) included.  A reservation too short shows as a wrong
 * text here, or as an overflow under make asan. */
START_TEST(test_keyed_boundary)
{
    char *body = malloc(4200), *text, *want = malloc(4400);
    size_t k, len;
    jw w;

    ck_assert_ptr_nonnull(body);
    ck_assert_ptr_nonnull(want);
    for (k = 3950; k < 4100; k++) {
        memset(body, 'b', k);
        body[k] = '\0';
        jw_init(&w);
        jw_object(&w);
        jw_kstring(&w, "s", body);
        jw_kint(&w, "defeats", -1234567);
        jw_kint(&w, "n", 9);
        jw_kint(&w, "zero", 0);
        jw_kint(&w, "ten", 10);
        jw_kint(&w, "most", 99);
        jw_kint(&w, "hundred", 100);
        jw_kstring(&w, "quote", "a\"b\n");
        jw_kstring_or_null(&w, "none", "");
        jw_kstring_or_null(&w, "some", "\\");
        jw_kbool(&w, "yes", true);
        jw_kbool(&w, "no", false);
        jw_object_end(&w);
        snprintf(want, 4400,
                 "{\"s\":\"%s\",\"defeats\":-1234567,\"n\":9,"
                 "\"zero\":0,\"ten\":10,\"most\":99,\"hundred\":100,"
                 "\"quote\":\"a\\\"b\\u000a\",\"none\":null,"
                 "\"some\":\"\\\\\",\"yes\":true,\"no\":false}",
                 body);
        text = jw_take(&w, &len);
        ck_assert_ptr_nonnull(text);
        ck_assert_uint_eq(len, strlen(want));
        ck_assert_str_eq(text, want);
        free(text);
        jw_free(&w);
    }
    free(body);
    free(want);
}
END_TEST

/* ---- failures and ownership ---- */

/* JW_MAX_DEPTH counts depth 0 (outside every container): 31 nested
 * containers fit; the 32nd fails the writer, and the failure sticks. */
START_TEST(test_depth_limit)
{
    char want[2 * JW_MAX_DEPTH + 1];
    int k, n = JW_MAX_DEPTH - 1;
    jw w;

    jw_init(&w);
    for (k = 0; k < n; k++)
        jw_array(&w);
    for (k = 0; k < n; k++)
        jw_array_end(&w);
    memset(want, '[', (size_t)n);
    memset(want + n, ']', (size_t)n);
    want[2 * n] = '\0';
    expect(&w, want);

    jw_init(&w);
    for (k = 0; k < JW_MAX_DEPTH; k++)
        jw_array(&w);
    ck_assert(w.is_failed);
    for (k = 0; k < JW_MAX_DEPTH; k++)
        jw_array_end(&w);
    jw_int(&w, 1);
    ck_assert_ptr_null(jw_take(&w, NULL));
    ck_assert_ptr_null(w.s); /* jw_take freed the text */
    jw_free(&w);
}
END_TEST

/* Nothing written: no text.  jw_take hands the buffer over; jw_free after
 * it, twice, or on NULL is harmless. */
START_TEST(test_take_and_free)
{
    size_t len = 99;
    char *s;
    jw w;

    jw_init(&w);
    ck_assert_ptr_null(jw_take(&w, &len));
    ck_assert_uint_eq(len, 99); /* untouched on failure */
    jw_free(&w);

    jw_init(&w);
    jw_int(&w, 42);
    s = jw_take(&w, NULL); /* len may be NULL */
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(s, "42");
    ck_assert_ptr_null(w.s);
    jw_free(&w);
    jw_free(&w);
    jw_free(NULL);
    free(s);
}
END_TEST

Suite *suite_jsonw(void)
{
    Suite *s = suite_create("jsonw");
    TCase *shape = tcase_create("shape"), *values = tcase_create("values"),
          *growth = tcase_create("growth");

    tcase_add_test(shape, test_empty_containers);
    tcase_add_test(shape, test_nested_commas);
    tcase_add_test(shape, test_keys_after_values);
    tcase_add_test(shape, test_top_level_values);
    tcase_add_test(shape, test_raw_splicing);
    tcase_add_loop_test(values, test_string_escaping, 0, N_STRINGS);
    tcase_add_test(values, test_key_escaping);
    tcase_add_loop_test(values, test_damaged_utf8, 0, N_DAMAGED);
    tcase_add_test(values, test_random_bytes_read);
    tcase_add_test(values, test_runtime_keys);
    tcase_add_test(values, test_string_or_null);
    tcase_add_test(values, test_int_extremes);
    tcase_add_test(values, test_bool_and_null);
    tcase_add_test(growth, test_long_output);
    tcase_add_test(growth, test_one_large_string);
    tcase_add_test(growth, test_buffer_boundary);
    tcase_add_test(growth, test_keyed_boundary);
    tcase_add_test(growth, test_depth_limit);
    tcase_add_test(growth, test_take_and_free);
    suite_add_tcase(s, shape);
    suite_add_tcase(s, values);
    suite_add_tcase(s, growth);
    return s;
}
