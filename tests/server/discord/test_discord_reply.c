/*
 * test_discord_reply.c: tests server/discord/discord_reply.c (lengths as
 * Discord counts them, cutting on character boundaries, an embed's
 * budget) and, through the endpoint, the largest replies the service
 * makes: SCRUD 10 v 10 and 60 v 60 with long names full of Markdown and
 * mentions, EDNA of 100 units, SCS 32 v 32.  Each stays within every
 * limit of Discord's, and is kept for the checks by Discord's own
 * library (tests/discord/); the largest figures are printed.
 */
#include "discord_reply.h"
#include "discord_rig.h"
#include "suites.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_len_counts_utf16_units)
{
    ck_assert_uint_eq(discord_reply_len("abc"), 3);
    ck_assert_uint_eq(discord_reply_len("\xC3\xA9t\xC3\xA9"), 3); /* été */
    ck_assert_uint_eq(discord_reply_len("\xE2\x80\xA6"), 1);     /* … */
    ck_assert_uint_eq(discord_reply_len("\xF0\x9F\x8E\xB2"), 2); /* 🎲 */
    ck_assert_uint_eq(discord_reply_len(""), 0);
}
END_TEST

START_TEST(test_cut_keeps_characters_whole)
{
    char *c = discord_reply_cut("abcdef", 4);

    ck_assert_str_eq(c, "abc\xE2\x80\xA6");
    free(c);
    c = discord_reply_cut("abc", 3);
    ck_assert_str_eq(c, "abc");
    free(c);
    /* Never half of a character: the die (2 units) goes whole. */
    c = discord_reply_cut("a\xF0\x9F\x8E\xB2" "bc", 3);
    ck_assert_str_eq(c, "a\xE2\x80\xA6");
    ck_assert_uint_le(discord_reply_len(c), 3);
    free(c);
    c = discord_reply_cut("\xC3\xA9\xC3\xA9\xC3\xA9", 2);
    ck_assert_str_eq(c, "\xC3\xA9\xE2\x80\xA6");
    free(c);
}
END_TEST

START_TEST(test_embed_keeps_within_6000)
{
    char value[1200];
    discord_embed em;
    json_t *e, *fields;
    size_t i, total;
    int n_in = 0;

    memset(value, 'x', sizeof value - 1);
    value[sizeof value - 1] = '\0';
    discord_reply_embed_init(&em, "T", 1, "footer", "see the full report");
    discord_reply_embed_text(&em, value);
    for (i = 0; i < 30; i++)
        n_in += discord_reply_embed_field(&em, "f", value, false);
    e = discord_reply_embed_take(&em);
    fields = json_object_get(e, "fields");
    ck_assert_uint_le(json_array_size(fields), 25);
    /* The last field says what was left out and where the rest is. */
    ck_assert_ptr_nonnull(strstr(
        json_string_value(json_object_get(
            json_array_get(fields, json_array_size(fields) - 1), "value")),
        "see the full report"));
    total = 1 + 6 + discord_reply_len(json_string_value(
                        json_object_get(e, "description")));
    for (i = 0; i < json_array_size(fields); i++)
        total += discord_reply_len(json_string_value(
                     json_object_get(json_array_get(fields, i), "name"))) +
                 discord_reply_len(json_string_value(
                     json_object_get(json_array_get(fields, i), "value")));
    ck_assert_uint_le(total, 6000);
    ck_assert_int_lt(n_in, 30);
    json_decref(e);
}
END_TEST

START_TEST(test_message_never_mentions)
{
    json_t *m = discord_reply_notice("@everyone <@123> hello");

    ck_assert_uint_eq(
        json_array_size(json_object_get(
            json_object_get(json_object_get(m, "data"), "allowed_mentions"),
            "parse")),
        0);
    json_decref(m);
}
END_TEST

/* ---- the largest replies, through the endpoint ---- */

static discord_rig g;

static void setup(void)
{
    discord_rig_start(&g);
    discord_rig_link(&g);
}

static void teardown(void)
{
    discord_rig_stop(&g);
}

/* A 64-byte name, as hard on a reply as names get: Markdown, mentions,
 * accents, a die. */
static void long_name(char *out, const char *side, int i)
{
    char n[128];

    snprintf(n, sizeof n,
             "%s \xC3\xA9*_~|`@everyone<@1%02d> r\xC3\xA9giment de ligne n%03d de la "
             "Garde",
             side, i, i);
    ck_assert_uint_le(strlen(n), 64);
    memcpy(out, n, strlen(n) + 1);
}

/* n units a side, named long or short; the lists into a and b. */
static void armies(int n, bool is_long, char *a, char *b, size_t cap)
{
    char name[80];
    int i, s;

    a[0] = b[0] = '\0';
    for (s = 0; s < 2; s++)
        for (i = 0; i < n; i++) {
            char *list = s ? b : a;
            if (is_long)
                long_name(name, s ? "blue" : "red", i);
            else
                snprintf(name, sizeof name, "%c%d", s ? 'B' : 'R', i);
            discord_rig_unit(&g, name, s ? "blue" : "red");
            snprintf(list + strlen(list), cap - strlen(list), "%s%s",
                     i ? ", " : "", name);
        }
}

/* Sends a command, asserts a public message within the limits, keeps it
 * and prints its size against the limits. */
static void largest(const char *kind, const char *name, const char *opts)
{
    json_t *r = discord_rig_command(&g, DISCORD_RIG_UMPIRE, name, "%s", opts);
    const json_t *em = json_array_get(
        json_object_get(json_object_get(r, "data"), "embeds"), 0);
    size_t total;

    ck_assert_msg(json_integer_value(json_object_get(r, "type")) == 4 &&
                      em != NULL,
                  "%s: %s", kind, discord_rig_text(r));
    total = discord_rig_assert_limits(r);
    fprintf(stderr,
            "discord reply %-14s title %3zu/256, description %4zu/4096, "
            "fields %2zu/25, embed %4zu/6000\n",
            kind,
            discord_reply_len(json_string_value(json_object_get(em, "title"))),
            discord_reply_len(
                json_string_value(json_object_get(em, "description"))),
            json_array_size(json_object_get(em, "fields")), total);
    discord_rig_keep(r, kind);
    json_decref(r);
}

static char list_a[8000], list_b[8000], opts[17000];

START_TEST(test_scrud_10v10_long_names)
{
    armies(10, true, list_a, list_b, sizeof list_a);
    snprintf(opts, sizeof opts,
             "[{\"name\":\"side_a\",\"type\":3,\"value\":\"%s\"},"
             "{\"name\":\"side_b\",\"type\":3,\"value\":\"%s\"},"
             "{\"name\":\"note\",\"type\":3,\"value\":\"@here ping nobody\"}]",
             list_a, list_b);
    largest("scrud_10v10", "scrud", opts);
}
END_TEST

START_TEST(test_scrud_60v60)
{
    armies(60, false, list_a, list_b, sizeof list_a);
    snprintf(opts, sizeof opts,
             "[{\"name\":\"side_a\",\"type\":3,\"value\":\"%s\"},"
             "{\"name\":\"side_b\",\"type\":3,\"value\":\"%s\"}]",
             list_a, list_b);
    largest("scrud_60v60", "scrud", opts);
}
END_TEST

START_TEST(test_edna_100_units)
{
    char tail[sizeof list_a + sizeof list_b + 2];

    armies(50, false, list_a, list_b, sizeof list_a);
    snprintf(tail, sizeof tail, "%s, %s", list_a, list_b);
    snprintf(opts, sizeof opts,
             "[{\"name\":\"units\",\"type\":3,\"value\":\"%s\"}]", tail);
    largest("edna_100", "edna", opts);
}
END_TEST

START_TEST(test_scs_32v32_long_names)
{
    armies(32, true, list_a, list_b, sizeof list_a);
    snprintf(opts, sizeof opts,
             "[{\"name\":\"attackers\",\"type\":3,\"value\":\"%s\"},"
             "{\"name\":\"defenders\",\"type\":3,\"value\":\"%s\"},"
             "{\"name\":\"table\",\"type\":3,\"value\":\"example-2d6\"}]",
             list_a, list_b);
    largest("scs_32v32", "scs", opts);
}
END_TEST

Suite *suite_discord_reply(void)
{
    Suite *s = suite_create("discord_reply");
    TCase *t = tcase_create("limits");
    TCase *big = tcase_create("largest");

    tcase_add_test(t, test_len_counts_utf16_units);
    tcase_add_test(t, test_cut_keeps_characters_whole);
    tcase_add_test(t, test_embed_keeps_within_6000);
    tcase_add_test(t, test_message_never_mentions);
    suite_add_tcase(s, t);
    tcase_add_checked_fixture(big, setup, teardown);
    tcase_set_timeout(big, 60);
    tcase_add_test(big, test_scrud_10v10_long_names);
    tcase_add_test(big, test_scrud_60v60);
    tcase_add_test(big, test_edna_100_units);
    tcase_add_test(big, test_scs_32v32_long_names);
    suite_add_tcase(s, big);
    return s;
}
