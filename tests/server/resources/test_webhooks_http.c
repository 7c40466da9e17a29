/*
 * test_webhooks_http.c: tests server/resources/webhooks.c through real
 * HTTP: PUT .../webhook (201 new, 200 replaced, the answer masked), the
 * URLs and bodies it refuses (422 naming the field, 400, and nothing
 * stored), who may put and remove it (401, 403), DELETE (204, then 404),
 * and the webhook on GET /v1/campaigns/{id}: null without one, masked for
 * umpire and player, the token in no answer.  What the poster does is in
 * tests/server/notify/test_notify.c.  No combat is fought here, so
 * nothing is posted.
 */
#include <stdio.h>
#include <string.h>

#include <check.h>
#include <jansson.h>

#include "api_fixture.h"
#include "harness.h"
#include "suites.h"

#define ID     "112233445566778899"
#define TOKEN  "AbC_d-0123456789abcdefghijklmnopqrstuvwxyz"
#define URL    "https://discord.com/api/webhooks/" ID "/" TOKEN
#define URL2   "https://ptb.discordapp.com/api/webhooks/42/" TOKEN "Z"
#define MASKED "https://discord.com/api/webhooks/" ID "/****wxyz"

static const char *wh_path(const test_campaign *c)
{
    return api_fixture_cp(c, "/webhook");
}

/* The campaign's "webhook" as token reads it (borrowed: kept). */
static json_t *shown(const test_campaign *c, const char *token)
{
    json_t *j = api_fixture_get(api_fixture_cp(c, "%s", ""), token);

    ck_assert_msg(json_object_get(j, "webhook") != NULL, "no webhook member");
    return json_object_get(j, "webhook");
}

START_TEST(test_put_replace_delete)
{
    test_campaign c;
    http_resp *r;
    json_t *w;

    api_fixture_mk(&c);
    ck_assert(json_is_null(shown(&c, c.umpire)));
    r = api_fixture_req("PUT", wh_path(&c), c.umpire, "{\"url\":\"" URL "\"}");
    ck_assert_msg(r->status == 201, "got %d: %s", r->status, r->body);
    ck_assert_str_eq(r->location, wh_path(&c));
    ck_assert(strstr(r->body, TOKEN) == NULL);
    api_fixture_assert_has(r->json, "{\"url\":\"" MASKED "\",\"delivered\":0,"
                                    "\"last_delivery\":null,\"failures\":0,"
                                    "\"last_failure\":null,\"pending\":0}");
    api_fixture_assert_time(
        json_string_value(json_object_get(r->json, "set_at")));
    /* As the umpire and a player see it on the campaign. */
    api_fixture_assert_has(shown(&c, c.umpire), "{\"url\":\"" MASKED "\"}");
    api_fixture_assert_has(shown(&c, c.player[0]), "{\"url\":\"" MASKED "\"}");
    r = api_fixture_req("GET", api_fixture_cp(&c, "%s", ""), c.player[1], NULL);
    ck_assert(strstr(r->body, TOKEN) == NULL);
    /* Replaced: 200, the new one. */
    w = API_FIXTURE_CALL(200, "PUT", wh_path(&c), c.umpire, "{\"url\":\"%s\"}",
                         URL2);
    ck_assert_str_eq(json_string_value(json_object_get(w, "url")),
                     "https://ptb.discordapp.com/api/webhooks/42/****xyzZ");
    /* Removed, then there is none. */
    ck_assert_ptr_null(
        API_FIXTURE_CALL(204, "DELETE", wh_path(&c), c.umpire, NULL));
    ck_assert(json_is_null(shown(&c, c.umpire)));
    api_fixture_problem("DELETE", wh_path(&c), c.umpire, NULL, 404, "not_found",
                        NULL);
}
END_TEST

START_TEST(test_put_refused)
{
    static const struct {
        const char *body;
        int status;
        const char *code, *field;
    } cases[] = {
        {"{\"url\":\"http://discord.com/api/webhooks/1/t\"}", 422,
         "invalid_value", "url"},
        {"{\"url\":\"https://evil.example/api/webhooks/1/t\"}", 422,
         "invalid_value", "url"},
        {"{\"url\":\"https://discord.com/api/webhooks/1/t?wait=true\"}", 422,
         "invalid_value", "url"},
        {"{\"url\":\"https://discord.com/api/webhooks/x/t\"}", 422,
         "invalid_value", "url"},
        {"{\"url\":\"\"}", 422, "out_of_range", "url"},
        {"{\"url\":42}", 422, "invalid_value", "url"},
        {"{}", 422, "missing_field", "url"},
        {"{\"url\":\"" URL "\",\"wait\":true}", 422, "unknown_field", "wait"},
        {"[\"" URL "\"]", 422, "invalid_value", NULL},
        {"{\"url\":", 400, "invalid_json", NULL},
    };
    test_campaign c;
    size_t i;

    api_fixture_mk(&c);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        api_fixture_problem("PUT", wh_path(&c), c.umpire, cases[i].body,
                            cases[i].status, cases[i].code, cases[i].field);
    ck_assert(json_is_null(shown(&c, c.umpire)));
}
END_TEST

START_TEST(test_who_may)
{
    test_campaign c, other;

    api_fixture_mk(&c);
    api_fixture_mk(&other);
    api_fixture_problem("PUT", wh_path(&c), NULL, "{\"url\":\"" URL "\"}", 401,
                        "unauthorized", NULL);
    api_fixture_problem("PUT", wh_path(&c), c.player[0],
                        "{\"url\":\"" URL "\"}", 403, "forbidden", NULL);
    api_fixture_problem("PUT", wh_path(&c), other.umpire,
                        "{\"url\":\"" URL "\"}", 403, "forbidden", NULL);
    API_FIXTURE_OK(201, "PUT", wh_path(&c), c.umpire, "{\"url\":\"%s\"}", URL);
    api_fixture_problem("DELETE", wh_path(&c), c.player[0], NULL, 403,
                        "forbidden", NULL);
    api_fixture_problem("DELETE", wh_path(&c), other.umpire, NULL, 403,
                        "forbidden", NULL);
    /* Another campaign's webhook is its own. */
    ck_assert(json_is_null(shown(&other, other.umpire)));
    api_fixture_problem("GET", wh_path(&c), c.umpire, NULL, 405, NULL, NULL);
}
END_TEST

Suite *suite_webhooks_http(void)
{
    Suite *s = suite_create("webhooks_http");
    TCase *tc = tcase_create("webhook");

    tcase_add_checked_fixture(tc, api_fixture_setup, api_fixture_teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_put_replace_delete);
    tcase_add_test(tc, test_put_refused);
    tcase_add_test(tc, test_who_may);
    suite_add_tcase(s, tc);
    return s;
}
