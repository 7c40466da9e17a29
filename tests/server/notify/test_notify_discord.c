/*
 * test_notify_discord.c: tests server/notify/notify_discord.c, in
 * process: the webhook URLs accepted and refused (a table), their masked
 * form, the API bases the poster may send to, the message for a combat
 * within Discord's limits (a long summary cut on a character, an open
 * code block closed, mentions off), and what a 429's body says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <jansson.h>

#include "notify_discord.h"
#include "suites.h"

#define ID    "112233445566778899"
#define TOKEN "AbC_d-0123456789abcdefghijklmnopqrstuvwxyz"
#define HOOK  "/api/webhooks/" ID "/" TOKEN

/* ---- URLs -------------------------------------------------------------- */

static const char *const good_urls[] = {
    "https://discord.com" HOOK,
    "https://ptb.discord.com" HOOK,
    "https://canary.discord.com" HOOK,
    "https://discordapp.com" HOOK,
    "https://canary.discordapp.com" HOOK,
    "HTTPS://Discord.COM" HOOK,
    "https://discord.com/api/webhooks/1/t",
    "https://discord.com/api/webhooks/18446744073709551615/t",
};

static const char *const bad_urls[] = {
    "",
    "http://discord.com" HOOK,           /* not https */
    "https://discord.com:443" HOOK,      /* a port */
    "https://user@discord.com" HOOK,     /* a user */
    "https://evil.com" HOOK,             /* another host */
    "https://discord.com.evil.com" HOOK, /* a suffix */
    "https://evildiscord.com" HOOK,      /* a prefix */
    "https://www.discord.com" HOOK,      /* another subdomain */
    "https://discord.com/api/v10/webhooks/" ID "/" TOKEN, /* a version */
    "https://discord.com/api/webhooks/" ID,               /* no token */
    "https://discord.com/api/webhooks/" ID "/",
    "https://discord.com/api/webhooks//" TOKEN,                /* no id */
    "https://discord.com/api/webhooks/12a/" TOKEN,             /* not digits */
    "https://discord.com/api/webhooks/0123/" TOKEN,            /* a leading 0 */
    "https://discord.com/api/webhooks/18446744073709551616/t", /* > 64 bits */
    "https://discord.com/api/webhooks/123456789012345678901/t",
    "https://discord.com" HOOK "/",          /* a trailing slash */
    "https://discord.com" HOOK "?wait=true", /* a query */
    "https://discord.com" HOOK "#x",         /* a fragment */
    "https://discord.com" HOOK "/github",    /* another route */
    "https://discord.com/api/webhooks/" ID "/to%2Fken",
    "https://discord.com/api/webhooks/" ID "/tok en",
    "https://discord.com/API/webhooks/" ID "/" TOKEN,
    " https://discord.com" HOOK,
};

START_TEST(test_good_urls)
{
    char id[DB_WEBHOOK_ID_MAX], token[DB_WEBHOOK_TOKEN_MAX];
    const char *url = good_urls[_i];
    err_info e;

    err_clear(&e);
    ck_assert_msg(notify_discord_parse_url(url, "url", id, token, &e) == ERR_OK,
                  "%s: %s", url, e.message);
    ck_assert_str_eq(token, strrchr(url, '/') + 1);
    ck_assert_uint_ge(strlen(id), 1);
    ck_assert(strstr(url, id) != NULL);
}
END_TEST

START_TEST(test_bad_urls)
{
    char id[DB_WEBHOOK_ID_MAX], token[DB_WEBHOOK_TOKEN_MAX];
    const char *url = bad_urls[_i];
    err_info e;

    err_clear(&e);
    ck_assert_msg(notify_discord_parse_url(url, "url", id, token, &e) ==
                      ERR_INVALID,
                  "%s was accepted", url);
    ck_assert_str_eq(e.field, "url");
    ck_assert_str_eq(id, "");
    ck_assert_str_eq(token, "");
}
END_TEST

START_TEST(test_long_url_and_token)
{
    char url[600], id[DB_WEBHOOK_ID_MAX], token[DB_WEBHOOK_TOKEN_MAX];
    size_t n;

    /* A token of 128 characters is the longest. */
    n = (size_t)snprintf(url, sizeof url,
                         "https://discord.com/api/webhooks/"
                         "1/");
    memset(url + n, 'a', 128);
    url[n + 128] = '\0';
    ck_assert_int_eq(notify_discord_parse_url(url, "url", id, token, NULL),
                     ERR_OK);
    ck_assert_uint_eq(strlen(token), 128);
    strcat(url, "a");
    ck_assert_int_eq(notify_discord_parse_url(url, "url", id, token, NULL),
                     ERR_INVALID);
    memset(url + n, 'a', 400);
    url[n + 400] = '\0';
    ck_assert_int_eq(notify_discord_parse_url(url, "url", id, token, NULL),
                     ERR_INVALID);
}
END_TEST

START_TEST(test_mask)
{
    char out[DB_WEBHOOK_URL_MAX];

    notify_discord_mask("https://discord.com" HOOK, out, sizeof out);
    ck_assert_str_eq(out, "https://discord.com/api/webhooks/" ID
                          "/" NOTIFY_DISCORD_MASK "wxyz");
    ck_assert(strstr(out, "AbC_d") == NULL);
    /* A short token shows nothing of itself. */
    notify_discord_mask("https://discord.com/api/webhooks/1/short", out,
                        sizeof out);
    ck_assert_str_eq(out,
                     "https://discord.com/api/webhooks/1/" NOTIFY_DISCORD_MASK);
}
END_TEST

START_TEST(test_api_base)
{
    static const struct {
        const char *base;
        err_code rc;
        bool is_http;
    } cases[] = {
        {"https://discord.com/api", ERR_OK, false},
        {"https://discord.com/api/v10", ERR_OK, false},
        {"https://proxy.example:8443", ERR_OK, false},
        {"http://127.0.0.1:4000/api", ERR_OK, true},
        {"http://127.1.2.3/api", ERR_OK, true},
        {"http://localhost:4000", ERR_OK, true},
        {"http://[::1]:4000/api", ERR_OK, true},
        {"http://discord.com/api", ERR_INVALID, true},
        {"http://127.0.0.1.evil.com/api", ERR_INVALID, true},
        {"http://10.0.0.1/api", ERR_INVALID, true},
        {"https://discord.com/api/", ERR_INVALID, false},
        {"https://discord.com/api?x=1", ERR_INVALID, false},
        {"https://user@discord.com/api", ERR_INVALID, false},
        {"ftp://discord.com", ERR_INVALID, false},
        {"https://", ERR_INVALID, false},
        {"", ERR_INVALID, false},
    };
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bool is_http;
        err_info e;
        err_clear(&e);
        ck_assert_msg(notify_discord_check_base(cases[i].base, &is_http, &e) ==
                          cases[i].rc,
                      "%s: %s", cases[i].base, e.message);
        if (cases[i].rc == ERR_OK)
            ck_assert_int_eq(is_http, cases[i].is_http);
        else
            ck_assert_str_eq(e.field, "discord_api_base");
    }
}
END_TEST

/* ---- the message ------------------------------------------------------- */

static notify_discord_combat combat(const char *summary, const char *note)
{
    notify_discord_combat cb = {
        "cmp_0123", "Tannenberg 1914",          "cmb_4567",
        "scrud",    "2026-11-22T10:00:00.123Z", note,
        summary};
    return cb;
}

/* The message parsed, with its one embed in *embed (borrowed). */
static json_t *message(const notify_discord_combat *cb, json_t **embed)
{
    char *text = notify_discord_message(cb);
    json_t *msg;

    ck_assert_ptr_nonnull(text);
    msg = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
    free(text);
    ck_assert_ptr_nonnull(msg);
    ck_assert_uint_eq(json_array_size(json_object_get(msg, "embeds")), 1);
    *embed = json_array_get(json_object_get(msg, "embeds"), 0);
    return msg;
}

/* Bytes of text in an embed, as Discord counts its limit (bytes are
 * never fewer than its characters). */
static size_t embed_size(const json_t *embed)
{
    const json_t *fields = json_object_get(embed, "fields");
    size_t n = 0, i;

    n += strlen(json_string_value(json_object_get(embed, "title")));
    n += strlen(json_string_value(json_object_get(embed, "description")));
    n += strlen(json_string_value(
        json_object_get(json_object_get(embed, "footer"), "text")));
    for (i = 0; i < json_array_size(fields); i++) {
        const json_t *f = json_array_get(fields, i);
        n += strlen(json_string_value(json_object_get(f, "name")));
        n += strlen(json_string_value(json_object_get(f, "value")));
        ck_assert_uint_le(
            strlen(json_string_value(json_object_get(f, "value"))), 1024);
    }
    return n;
}

START_TEST(test_message)
{
    notify_discord_combat cb = combat("**red** wins", "@everyone *ford*");
    json_t *embed, *msg = message(&cb, &embed), *fields, *mentions;

    ck_assert_str_eq(json_string_value(json_object_get(embed, "title")),
                     "SCRUD combat \xc2\xb7 Tannenberg 1914");
    ck_assert_str_eq(json_string_value(json_object_get(embed, "description")),
                     "**red** wins");
    ck_assert_str_eq(json_string_value(json_object_get(embed, "timestamp")),
                     "2026-11-22T10:00:00.123Z");
    ck_assert(strstr(json_string_value(json_object_get(
                         json_object_get(embed, "footer"), "text")),
                     "cmb_4567") != NULL);
    fields = json_object_get(embed, "fields");
    ck_assert_uint_eq(json_array_size(fields), 2);
    ck_assert_str_eq(
        json_string_value(json_object_get(json_array_get(fields, 0), "value")),
        "`GET /v1/campaigns/cmp_0123/combats/cmb_4567`");
    /* The note is the umpire's text: its Markdown is escaped. */
    ck_assert_str_eq(
        json_string_value(json_object_get(json_array_get(fields, 1), "value")),
        "@everyone \\*ford\\*");
    /* Nobody is mentioned, whatever the text says. */
    mentions = json_object_get(msg, "allowed_mentions");
    ck_assert(json_is_array(json_object_get(mentions, "parse")));
    ck_assert_uint_eq(json_array_size(json_object_get(mentions, "parse")), 0);
    json_decref(msg);
    /* No note: no field for it; a battle's record is titled so. */
    cb = combat("x", NULL);
    cb.system = "matrix";
    msg = message(&cb, &embed);
    ck_assert_uint_eq(json_array_size(json_object_get(embed, "fields")), 1);
    ck_assert_str_eq(json_string_value(json_object_get(embed, "title")),
                     "Matrix battle \xc2\xb7 Tannenberg 1914");
    json_decref(msg);
}
END_TEST

START_TEST(test_message_limits)
{
    /* 3,000 two-byte characters inside an open code block, then more. */
    size_t n = 8000, i;
    char *md = malloc(n + 1), note[501];
    notify_discord_combat cb;
    json_t *embed, *msg;
    const char *desc;

    ck_assert_ptr_nonnull(md);
    memcpy(md, "```\n", 4);
    for (i = 4; i + 2 <= n; i += 2)
        memcpy(md + i, "\xc3\xa9", 2);
    md[i] = '\0';
    memset(note, '*', 500); /* escaped to 1,000 bytes */
    note[500] = '\0';
    cb = combat(md, note);
    msg = message(&cb, &embed);
    desc = json_string_value(json_object_get(embed, "description"));
    ck_assert_uint_le(strlen(desc), NOTIFY_DISCORD_DESCRIPTION_MAX);
    ck_assert_uint_gt(strlen(desc), NOTIFY_DISCORD_DESCRIPTION_MAX - 32);
    /* Closed, and marked as cut. */
    ck_assert_str_eq(desc + strlen(desc) - 8, "\n```\n\xe2\x80\xa6");
    ck_assert_uint_le(embed_size(embed), NOTIFY_DISCORD_EMBED_MAX);
    json_decref(msg);
    /* Lines: the cut falls at a line's end. */
    for (i = 0; i < n; i++)
        md[i] = i % 80 == 79 ? '\n' : 'a';
    md[n] = '\0';
    cb = combat(md, NULL);
    msg = message(&cb, &embed);
    desc = json_string_value(json_object_get(embed, "description"));
    ck_assert_uint_le(strlen(desc), NOTIFY_DISCORD_DESCRIPTION_MAX);
    ck_assert_uint_eq((strlen(desc) - 4) % 80, 79);
    ck_assert_str_eq(desc + strlen(desc) - 4, "\n\xe2\x80\xa6");
    json_decref(msg);
    free(md);
}
END_TEST

START_TEST(test_read_429)
{
    double after;
    bool is_global;
    char m[32];

    notify_discord_read_429("{\"message\":\"You are being rate limited.\","
                            "\"retry_after\":0.25,\"global\":true}",
                            &after, &is_global);
    ck_assert_double_eq_tol(after, 0.25, 1e-9);
    ck_assert(is_global);
    notify_discord_read_429("{\"retry_after\":3}", &after, &is_global);
    ck_assert_double_eq_tol(after, 3, 1e-9);
    ck_assert(!is_global);
    notify_discord_read_429("<html>slow down</html>", &after, &is_global);
    ck_assert_double_eq(after, -1);
    notify_discord_read_429("{\"retry_after\":-2}", &after, &is_global);
    ck_assert_double_eq(after, -1);
    notify_discord_error_message("{\"message\":\"Unknown\\nWebhook \xc3\xa9\"}",
                                 m, sizeof m);
    ck_assert_str_eq(m, "Unknown Webhook ??");
    notify_discord_error_message("", m, sizeof m);
    ck_assert_str_eq(m, "");
}
END_TEST

Suite *suite_notify_discord(void)
{
    Suite *s = suite_create("notify_discord");
    TCase *urls = tcase_create("urls"), *msgs = tcase_create("messages");

    tcase_add_loop_test(urls, test_good_urls, 0,
                        (int)(sizeof good_urls / sizeof good_urls[0]));
    tcase_add_loop_test(urls, test_bad_urls, 0,
                        (int)(sizeof bad_urls / sizeof bad_urls[0]));
    tcase_add_test(urls, test_long_url_and_token);
    tcase_add_test(urls, test_mask);
    tcase_add_test(urls, test_api_base);
    tcase_add_test(msgs, test_message);
    tcase_add_test(msgs, test_message_limits);
    tcase_add_test(msgs, test_read_429);
    suite_add_tcase(s, urls);
    suite_add_tcase(s, msgs);
    return s;
}
