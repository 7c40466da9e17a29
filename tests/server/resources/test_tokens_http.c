/*
 * test_tokens_http.c: tests the reissue and the list of a campaign's
 * tokens (server/resources/tokens.c, db/tokens.c, docs/sharing.md)
 * through real HTTP: the umpire token and a side's player token
 * reissued, the old one refused (401) from the answer on and the new one
 * working at once, with its role and side; every issue listed (creation
 * and reissue) without a secret, a page at a time; who may do it (a
 * player, another campaign, no token); bodies refused naming the field,
 * with nothing changed.  GET /v1/token itself is in test_console_http.c.
 */
#include <stdio.h>
#include <string.h>

#include <check.h>
#include <jansson.h>

#include "api_fixture.h"
#include "harness.h"
#include "suites.h"

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static const char *tokens_path(const test_campaign *c)
{
    return api_fixture_cp(c, "/tokens");
}

/* POST .../tokens with body, which must answer 201; the answer (kept). */
static json_t *reissue(const test_campaign *c, const char *token,
                       const char *body)
{
    http_resp *r = api_fixture_req("POST", tokens_path(c), token, body);

    ck_assert_msg(r->status == 201, "reissue %s: %d %s", body, r->status,
                  r->body);
    ck_assert_str_eq(r->location, tokens_path(c));
    api_fixture_assert_time(jstr(r->json, "issued_at"));
    api_fixture_assert_prefix(jstr(r->json, "id"), "tok_");
    return api_fixture_keep(json_incref(r->json));
}

/* token's GET /v1/token answers status (401 or 200). */
static void token_answers(const char *token, int status)
{
    http_resp *r = api_fixture_req("GET", "/v1/token", token, NULL);

    ck_assert_msg(r->status == status, "GET /v1/token: %d, expected %d: %s",
                  r->status, status, r->body);
}

/* A token's text: its prefix and 48 lower-case hex digits. */
static void assert_token_text(const char *t, const char *prefix)
{
    ck_assert_msg(t && strlen(t) == strlen(prefix) + 48 &&
                      strncmp(t, prefix, strlen(prefix)) == 0 &&
                      strspn(t + strlen(prefix), "0123456789abcdef") == 48,
                  "not a token: %s", t ? t : "(null)");
}

START_TEST(test_reissue_umpire)
{
    test_campaign c;
    json_t *j;
    char fresh[128];

    api_fixture_mk(&c);
    j = reissue(&c, c.umpire, "{\"role\":\"umpire\"}");
    assert_token_text(jstr(j, "token"), "ump_");
    api_fixture_assert_has(j, "{\"role\":\"umpire\",\"side\":null}");
    snprintf(fresh, sizeof fresh, "%s", jstr(j, "token"));
    /* At once: the old one is refused everywhere, the new one does all. */
    token_answers(c.umpire, 401);
    api_fixture_problem("GET", api_fixture_cp(&c, "%s", ""), c.umpire, NULL,
                        401, "unauthorized", NULL);
    api_fixture_problem("POST", api_fixture_cp(&c, "/sides"), c.umpire,
                        "{\"name\":\"Green\"}", 401, "unauthorized", NULL);
    api_fixture_assert_has(api_fixture_get("/v1/token", fresh),
                           "{\"role\":\"umpire\",\"side_id\":null}");
    API_FIXTURE_OK(201, "POST", api_fixture_cp(&c, "/sides"), fresh,
                   "{\"name\":\"Green\"}");
    /* The players' tokens are left alone. */
    token_answers(c.player[0], 200);
    token_answers(c.player[1], 200);
}
END_TEST

START_TEST(test_reissue_player)
{
    test_campaign c;
    json_t *j, *me;
    char by_name[128], by_id[128], body[160];

    api_fixture_mk(&c);
    j = reissue(&c, c.umpire, "{\"role\":\"player\",\"side\":\"Red\"}");
    assert_token_text(jstr(j, "token"), "ply_");
    api_fixture_assert_has(j,
                           "{\"role\":\"player\",\"side\":{\"id\":\"%s\","
                           "\"name\":\"Red\"}}",
                           c.side_id[0]);
    snprintf(by_name, sizeof by_name, "%s", jstr(j, "token"));
    token_answers(c.player[0], 401);
    me = api_fixture_get("/v1/token", by_name);
    api_fixture_assert_has(me,
                           "{\"role\":\"player\",\"side_id\":\"%s\","
                           "\"side_name\":\"Red\"}",
                           c.side_id[0]);
    API_FIXTURE_OK(200, "GET", api_fixture_cp(&c, "/units"), by_name, NULL);
    /* Again, naming the side by its id: the first reissue is refused now. */
    snprintf(body, sizeof body, "{\"role\":\"player\",\"side\":\"%s\"}",
             c.side_id[0]);
    j = reissue(&c, c.umpire, body);
    snprintf(by_id, sizeof by_id, "%s", jstr(j, "token"));
    ck_assert_str_ne(by_id, by_name);
    token_answers(by_name, 401);
    token_answers(by_id, 200);
    /* Still a player: no writes. */
    api_fixture_problem("POST", api_fixture_cp(&c, "/sides"), by_id,
                        "{\"name\":\"Green\"}", 403, "forbidden", NULL);
    /* The other side and the umpire keep theirs. */
    token_answers(c.player[1], 200);
    token_answers(c.umpire, 200);
}
END_TEST

/* Every issue, in order: the umpire's and each side's at creation, then
 * the reissues; revoked ones with the time they were revoked; no secret
 * and no hash anywhere. */
START_TEST(test_issues_listed)
{
    test_campaign c;
    json_t *list, *items, *ump, *red, *page;
    const char *cursor;
    http_resp *r;
    char green_token[128];

    api_fixture_mk(&c);
    ump = reissue(&c, c.umpire, "{\"role\":\"umpire\"}");
    red = reissue(&c, jstr(ump, "token"),
                  "{\"role\":\"player\",\"side\":\"Red\"}");
    r = api_fixture_req("POST", api_fixture_cp(&c, "/sides"),
                        jstr(ump, "token"), "{\"name\":\"Green\"}");
    ck_assert_int_eq(r->status, 201);
    snprintf(green_token, sizeof green_token, "%s",
             jstr(r->json, "player_token"));
    r = api_fixture_req("GET", tokens_path(&c), jstr(ump, "token"), NULL);
    ck_assert_int_eq(r->status, 200);
    list = r->json;
    items = json_object_get(list, "items");
    ck_assert_int_eq(json_array_size(items), 6);
    api_fixture_assert_has(
        list,
        "{\"order\":\"oldest\",\"next_cursor\":null,\"items\":["
        "{\"role\":\"umpire\",\"side\":null,\"issued_by\":\"creation\"},"
        "{\"role\":\"player\",\"side\":{\"id\":\"%s\",\"name\":\"Red\"},"
        "\"issued_by\":\"creation\"},"
        "{\"role\":\"player\",\"side\":{\"id\":\"%s\",\"name\":\"Blue\"},"
        "\"issued_by\":\"creation\",\"revoked_at\":null},"
        "{\"role\":\"umpire\",\"side\":null,\"issued_by\":\"umpire\","
        "\"revoked_at\":null,\"id\":\"%s\",\"issued_at\":\"%s\"},"
        "{\"role\":\"player\",\"issued_by\":\"umpire\",\"revoked_at\":null,"
        "\"id\":\"%s\",\"issued_at\":\"%s\"},"
        "{\"role\":\"player\",\"side\":{\"name\":\"Green\"},"
        "\"issued_by\":\"creation\",\"revoked_at\":null}]}",
        c.side_id[0], c.side_id[1], jstr(ump, "id"), jstr(ump, "issued_at"),
        jstr(red, "id"), jstr(red, "issued_at"));
    api_fixture_assert_time(jstr(json_array_get(items, 0), "revoked_at"));
    api_fixture_assert_time(jstr(json_array_get(items, 1), "revoked_at"));
    api_fixture_assert_time(jstr(json_array_get(items, 0), "issued_at"));
    /* No secret, old or new, and no hash. */
    ck_assert(strstr(r->body, c.umpire) == NULL);
    ck_assert(strstr(r->body, c.player[0]) == NULL);
    ck_assert(strstr(r->body, c.player[1]) == NULL);
    ck_assert(strstr(r->body, jstr(ump, "token")) == NULL);
    ck_assert(strstr(r->body, jstr(red, "token")) == NULL);
    ck_assert(strstr(r->body, green_token) == NULL);
    ck_assert(strstr(r->body, "hash") == NULL);
    ck_assert(strstr(r->body, "\"token\"") == NULL);
    /* A page at a time, newest first too. */
    page = api_fixture_get(api_fixture_cp(&c, "/tokens?order=newest&limit=4"),
                           jstr(ump, "token"));
    ck_assert_int_eq(json_array_size(json_object_get(page, "items")), 4);
    api_fixture_assert_has(page, "{\"order\":\"newest\",\"items\":[{\"side\":{"
                                 "\"name\":\"Green\"}},{},{},{}]}");
    cursor = jstr(page, "next_cursor");
    ck_assert_ptr_nonnull(cursor);
    page = api_fixture_get(
        api_fixture_cp(&c, "/tokens?order=newest&limit=4&cursor=%s", cursor),
        jstr(ump, "token"));
    api_fixture_assert_has(page, "{\"next_cursor\":null,\"items\":[{\"side\":{"
                                 "\"name\":\"Red\"}},{\"side\":null}]}");
    api_fixture_problem("GET", api_fixture_cp(&c, "/tokens?cursor=tok_nope"),
                        jstr(ump, "token"), NULL, 422, "invalid_value",
                        "cursor");
}
END_TEST

START_TEST(test_who_may)
{
    test_campaign c, other;

    api_fixture_mk(&c);
    api_fixture_mk(&other);
    api_fixture_problem("POST", tokens_path(&c), c.player[0],
                        "{\"role\":\"player\",\"side\":\"Red\"}", 403,
                        "forbidden", NULL);
    api_fixture_problem("POST", tokens_path(&c), c.player[0],
                        "{\"role\":\"umpire\"}", 403, "forbidden", NULL);
    api_fixture_problem("GET", tokens_path(&c), c.player[0], NULL, 403,
                        "forbidden", NULL);
    api_fixture_problem("POST", tokens_path(&c), other.umpire,
                        "{\"role\":\"umpire\"}", 403, "forbidden", NULL);
    api_fixture_problem("GET", tokens_path(&c), other.umpire, NULL, 403,
                        "forbidden", NULL);
    api_fixture_problem("POST", tokens_path(&c), NULL, "{\"role\":\"umpire\"}",
                        401, "unauthorized", NULL);
    api_fixture_problem("GET", tokens_path(&c), NULL, NULL, 401, "unauthorized",
                        NULL);
    /* Nothing was reissued. */
    token_answers(c.player[0], 200);
    token_answers(c.umpire, 200);
    ck_assert_int_eq(api_fixture_n_items(tokens_path(&c), c.umpire), 3);
}
END_TEST

START_TEST(test_refused_bodies)
{
    static const struct {
        const char *body;
        const char *code;
        const char *field;
    } cases[] = {
        {"{\"role\":\"player\",\"side\":\"Green\"}", "invalid_value", "side"},
        {"{\"role\":\"player\",\"side\":\"sd_nope\"}", "invalid_value", "side"},
        {"{\"role\":\"player\"}", "missing_field", "side"},
        {"{\"role\":\"umpire\",\"side\":\"Red\"}", "invalid_value", "side"},
        {"{\"side\":\"Red\"}", "missing_field", "role"},
        {"{\"role\":\"referee\"}", "invalid_value", "role"},
        {"{\"role\":\"player\",\"side\":\"\"}", "out_of_range", "side"},
        {"{\"role\":\"umpire\",\"token\":\"ump_x\"}", "unknown_field", "token"},
        {"[]", "invalid_value", NULL},
    };
    test_campaign c;
    size_t i;

    api_fixture_mk(&c);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        api_fixture_problem("POST", tokens_path(&c), c.umpire, cases[i].body,
                            422, cases[i].code, cases[i].field);
    api_fixture_problem("POST", tokens_path(&c), c.umpire, "{", 400,
                        "invalid_json", NULL);
    /* Nothing changed: every token works, three issues. */
    token_answers(c.umpire, 200);
    token_answers(c.player[0], 200);
    token_answers(c.player[1], 200);
    ck_assert_int_eq(api_fixture_n_items(tokens_path(&c), c.umpire), 3);
}
END_TEST

Suite *suite_tokens_http(void)
{
    Suite *s = suite_create("tokens_http");
    TCase *tc = tcase_create("tokens");

    tcase_add_checked_fixture(tc, api_fixture_setup, api_fixture_teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_reissue_umpire);
    tcase_add_test(tc, test_reissue_player);
    tcase_add_test(tc, test_issues_listed);
    tcase_add_test(tc, test_who_may);
    tcase_add_test(tc, test_refused_bodies);
    suite_add_tcase(s, tc);
    return s;
}
