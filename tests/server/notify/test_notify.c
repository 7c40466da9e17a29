/*
 * test_notify.c: tests server/notify/notify.c, the poster, end to end:
 * combats resolved through real HTTP, posted to a stand-in for Discord
 * (notify_rig.h) that answers 204, 429 with Retry-After (the header, or
 * retry_after in the body), rate-limit headers, 5xx, a 4xx, slowly, or
 * is down; and what the campaign shows of it (GET /v1/campaigns/{id}).
 * A combat lands, quickly, whatever becomes of its post.  Waits are
 * scaled down (backoff 20 ms, tries of 300 ms), so the suite is quick.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <jansson.h>

#include "harness.h"
#include "notify_rig.h"
#include "suites.h"

/* The test's stand-in and server, stopped by the teardown. */
static receiver *rcv;
static test_server *ts;

static void teardown(void)
{
    ts_stop(ts); /* the poster first: it may be talking to rcv */
    rcv_stop(rcv);
    ts = NULL;
    rcv = NULL;
}

/* Starts the stand-in with the script, and a server posting to it with
 * the settings of nrig_config as adjust (NULL ok) changes them. */
static void start(const rcv_step *steps, size_t n_steps,
                  void (*adjust)(notify_config *))
{
    notify_config cfg;

    rcv = rcv_start(steps, n_steps);
    nrig_config(&cfg, rcv_port(rcv));
    if (adjust)
        adjust(&cfg);
    ts = nrig_server(&cfg);
}

static long long inum(const json_t *o, const char *k)
{
    ck_assert_msg(json_is_integer(json_object_get(o, k)), "no integer %s", k);
    return json_integer_value(json_object_get(o, k));
}

static const char *sub(const json_t *o, const char *k, const char *k2)
{
    return json_string_value(json_object_get(json_object_get(o, k), k2));
}

/* Asserts the counts of the campaign's webhook w. */
static void check_counts(const json_t *w, long long delivered,
                         long long failures)
{
    char *text = json_dumps(w, JSON_COMPACT);

    ck_assert_msg(
        inum(w, "delivered") == delivered && inum(w, "failures") == failures &&
            inum(w, "pending") == 0,
        "expected %lld delivered, %lld failed: %s", delivered, failures, text);
    free(text);
}

/* The seconds between requests i and i + 1. */
static double gap(int i)
{
    rcv_request a, b;
    double d;

    rcv_get(rcv, i, &a);
    rcv_get(rcv, i + 1, &b);
    d = b.at - a.at;
    rcv_request_cleanup(&a);
    rcv_request_cleanup(&b);
    return d;
}

/* Whether request i posted combat_id. */
static bool posted(int i, const char *combat_id)
{
    rcv_request q;
    bool is_it;

    rcv_get(rcv, i, &q);
    is_it = strstr(q.body, combat_id) != NULL;
    rcv_request_cleanup(&q);
    return is_it;
}

/* ---- delivered --------------------------------------------------------- */

START_TEST(test_delivered)
{
    static const rcv_step ok[] = {{204, NULL, NULL, 0}};
    char id[64], path[160], *text;
    json_t *w, *msg, *embed, *cb;
    test_campaign c;
    rcv_request q;
    http_resp r;

    start(ok, 1, NULL);
    nrig_campaign(ts, &c);
    nrig_combat(ts, &c, 2000, id);
    w = nrig_wait_settled(ts, &c, 1, 5000);
    check_counts(w, 1, 0);
    ck_assert_str_eq(sub(w, "last_delivery", "combat_id"), id);
    ck_assert(json_is_null(json_object_get(w, "last_failure")));
    json_decref(w);
    /* What Discord was sent. */
    ck_assert_int_eq(rcv_wait(rcv, 1, 1000), 1);
    rcv_get(rcv, 0, &q);
    ck_assert_str_eq(q.method, "POST");
    ck_assert_str_eq(q.path, "/api/webhooks/" NRIG_HOOK_ID "/" NRIG_TOKEN);
    ck_assert_str_eq(q.content_type, "application/json");
    msg = json_loads(q.body, 0, NULL);
    ck_assert_ptr_nonnull(msg);
    embed = json_array_get(json_object_get(msg, "embeds"), 0);
    snprintf(path, sizeof path, "/v1/campaigns/%s/combats/%s", c.id, id);
    cb = ts_call(ts, 200, "GET", path, c.umpire, NULL);
    ck_assert_str_eq(
        json_string_value(json_object_get(embed, "description")),
        json_string_value(json_object_get(cb, "summary_markdown")));
    text = json_dumps(embed, 0);
    ck_assert(strstr(text, path) != NULL);
    free(text);
    ck_assert_uint_eq(json_array_size(json_object_get(
                          json_object_get(msg, "allowed_mentions"), "parse")),
                      0);
    json_decref(cb);
    json_decref(msg);
    rcv_request_cleanup(&q);
    /* The token is never served back. */
    snprintf(path, sizeof path, "/v1/campaigns/%s", c.id);
    ck_assert_int_eq(ts_request(ts, "GET", path, c.umpire, NULL, &r), 0);
    ck_assert(strstr(r.body, NRIG_TOKEN) == NULL);
    ck_assert(strstr(r.body, NRIG_HOOK_ID) != NULL);
    http_resp_cleanup(&r);
}
END_TEST

/* ---- 429 --------------------------------------------------------------- */

START_TEST(test_429_retry_after_header)
{
    static const rcv_step steps[] = {{429, "Retry-After: 1", NULL, 0},
                                     {204, NULL, NULL, 0}};
    test_campaign c;
    char id[64];
    json_t *w;

    start(steps, 2, NULL);
    nrig_campaign(ts, &c);
    nrig_combat(ts, &c, 2000, id);
    w = nrig_wait_settled(ts, &c, 1, 5000);
    check_counts(w, 1, 0);
    json_decref(w);
    ck_assert_int_eq(rcv_wait(rcv, 2, 100), 2);
    ck_assert_msg(gap(0) >= 0.95, "retried %.3f s after a Retry-After of 1",
                  gap(0));
}
END_TEST

START_TEST(test_429_retry_after_body)
{
    /* Discord's body says it to the millisecond; its header rounds up. */
    static const rcv_step steps[] = {
        {429, "Retry-After: 1\nX-RateLimit-Scope: user",
         "{\"message\":\"You are being rate limited.\",\"retry_after\":0.25,"
         "\"global\":false}",
         0},
        {204, NULL, NULL, 0}};
    test_campaign c;
    char id[64];
    json_t *w;

    start(steps, 2, NULL);
    nrig_campaign(ts, &c);
    nrig_combat(ts, &c, 2000, id);
    w = nrig_wait_settled(ts, &c, 1, 5000);
    check_counts(w, 1, 0);
    json_decref(w);
    ck_assert_int_eq(rcv_wait(rcv, 2, 100), 2);
    ck_assert_msg(gap(0) >= 0.24 && gap(0) < 0.9,
                  "retried %.3f s after a retry_after of 0.25", gap(0));
}
END_TEST

START_TEST(test_rate_limit_headers)
{
    /* The bucket is empty after the first post: the next waits for it. */
    static const rcv_step steps[] = {
        {204,
         "X-RateLimit-Limit: 5\nX-RateLimit-Remaining: 0\n"
         "X-RateLimit-Reset-After: 0.3",
         NULL, 0},
        {204, NULL, NULL, 0}};
    char a[64], b[64];
    test_campaign c;
    json_t *w;

    start(steps, 2, NULL);
    nrig_campaign(ts, &c);
    nrig_combat(ts, &c, 2000, a);
    nrig_combat(ts, &c, 2000, b);
    w = nrig_wait_settled(ts, &c, 2, 5000);
    check_counts(w, 2, 0);
    json_decref(w);
    ck_assert_int_eq(rcv_wait(rcv, 2, 100), 2);
    ck_assert(posted(0, a) && posted(1, b));
    ck_assert_msg(gap(0) >= 0.29, "posted again after %.3f s, not 0.3", gap(0));
}
END_TEST

/* ---- 5xx, 4xx, down ---------------------------------------------------- */

START_TEST(test_5xx_then_delivered)
{
    static const rcv_step steps[] = {
        {500, NULL, NULL, 0},
        {502, NULL, "{\"message\":\"Bad Gateway\"}", 0},
        {204, NULL, NULL, 0}};
    test_campaign c;
    char id[64];
    json_t *w;

    start(steps, 3, NULL);
    nrig_campaign(ts, &c);
    nrig_combat(ts, &c, 2000, id);
    w = nrig_wait_settled(ts, &c, 1, 5000);
    check_counts(w, 1, 0);
    json_decref(w);
    ck_assert_int_eq(rcv_wait(rcv, 3, 100), 3);
    /* Exponential backoff: 20 ms, then 40 ms. */
    ck_assert_msg(gap(0) >= 0.019 && gap(1) >= 0.039,
                  "waits of %.3f and %.3f s", gap(0), gap(1));
    ck_assert(posted(0, id) && posted(2, id));
}
END_TEST

START_TEST(test_5xx_gives_up)
{
    static const rcv_step steps[] = {
        {503, NULL, "{\"message\":\"Service Unavailable\"}", 0}};
    test_campaign c;
    char id[64];
    json_t *w;

    start(steps, 1, NULL);
    nrig_campaign(ts, &c);
    nrig_combat(ts, &c, 2000, id);
    w = nrig_wait_settled(ts, &c, 1, 5000);
    check_counts(w, 0, 1);
    ck_assert_str_eq(sub(w, "last_failure", "error"),
                     "HTTP 503: Service Unavailable, after 3 tries");
    ck_assert_str_eq(sub(w, "last_failure", "combat_id"), id);
    ck_assert(json_is_null(json_object_get(w, "last_delivery")));
    json_decref(w);
    usleep(150 * 1000);
    ck_assert_int_eq(rcv_wait(rcv, 4, 0), 3); /* no fourth try */
}
END_TEST

START_TEST(test_4xx_fails_at_once)
{
    static const rcv_step steps[] = {
        {404, NULL, "{\"message\":\"Unknown Webhook\",\"code\":10015}", 0}};
    test_campaign c;
    char id[64];
    json_t *w;

    start(steps, 1, NULL);
    nrig_campaign(ts, &c);
    nrig_combat(ts, &c, 2000, id);
    w = nrig_wait_settled(ts, &c, 1, 5000);
    check_counts(w, 0, 1);
    ck_assert_str_eq(sub(w, "last_failure", "error"),
                     "HTTP 404: Unknown Webhook");
    json_decref(w);
    usleep(100 * 1000);
    ck_assert_int_eq(rcv_wait(rcv, 2, 0), 1);
}
END_TEST

START_TEST(test_receiver_down)
{
    notify_config cfg;
    test_campaign c;
    char id[64];
    json_t *w;
    const char *error;

    nrig_config(&cfg, rcv_dead_port());
    ts = nrig_server(&cfg);
    nrig_campaign(ts, &c);
    nrig_combat(ts, &c, 1000, id);
    w = nrig_wait_settled(ts, &c, 1, 5000);
    check_counts(w, 0, 1);
    error = sub(w, "last_failure", "error");
    ck_assert_msg(strncmp(error, "no answer: ", 11) == 0 &&
                      strstr(error, "after 3 tries") != NULL &&
                      strstr(error, NRIG_TOKEN) == NULL,
                  "%s", error);
    json_decref(w);
}
END_TEST

/* ---- the combat never waits -------------------------------------------- */

static void one_short_try(notify_config *cfg)
{
    cfg->max_attempts = 1;
    cfg->timeout_ms = 200;
}

START_TEST(test_combat_lands_while_posting_fails)
{
    /* Discord hangs for 3 s, longer than a try may take. */
    static const rcv_step slow[] = {{204, NULL, NULL, 3000}};
    char ids[3][64], path[200];
    test_campaign c;
    json_t *w, *j;
    int i;

    start(slow, 1, one_short_try);
    nrig_campaign(ts, &c);
    for (i = 0; i < 3; i++)
        nrig_combat(ts, &c, 500, ids[i]);
    /* Every combat is there, whole, while its post is still failing. */
    snprintf(path, sizeof path, "/v1/campaigns/%s/combats", c.id);
    j = ts_call(ts, 200, "GET", path, c.umpire, NULL);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "items")), 3);
    json_decref(j);
    snprintf(path, sizeof path, "/v1/campaigns/%s/ledger/verify", c.id);
    j = ts_call(ts, 200, "GET", path, c.umpire, NULL);
    ck_assert(json_is_true(json_object_get(j, "verified")));
    json_decref(j);
    w = nrig_wait_settled(ts, &c, 3, 5000);
    check_counts(w, 0, 3);
    ck_assert_str_eq(sub(w, "last_failure", "combat_id"), ids[2]);
    ck_assert_msg(strncmp(sub(w, "last_failure", "error"), "no answer", 9) == 0,
                  "%s", sub(w, "last_failure", "error"));
    json_decref(w);
}
END_TEST

/* ---- order, backlog, restart, removal, battles ------------------------- */

static void backlog_of_two(notify_config *cfg)
{
    cfg->backlog = 2;
    cfg->timeout_ms = 2000;
}

START_TEST(test_backlog_drops_oldest)
{
    /* The first post is slow: the others pile up meanwhile. */
    static const rcv_step steps[] = {{204, NULL, NULL, 600},
                                     {204, NULL, NULL, 0}};
    char ids[5][64];
    test_campaign c;
    json_t *w;
    int i;

    start(steps, 2, backlog_of_two);
    nrig_campaign(ts, &c);
    nrig_combat(ts, &c, 2000, ids[0]);
    ck_assert_int_eq(rcv_wait(rcv, 1, 2000), 1);
    for (i = 1; i < 5; i++)
        nrig_combat(ts, &c, 500, ids[i]);
    w = nrig_wait_settled(ts, &c, 5, 5000);
    check_counts(w, 3, 2);
    ck_assert(strstr(sub(w, "last_failure", "error"), "dropped") != NULL);
    ck_assert_str_eq(sub(w, "last_failure", "combat_id"), ids[2]);
    json_decref(w);
    /* The newest two went, in order. */
    ck_assert_int_eq(rcv_wait(rcv, 3, 100), 3);
    ck_assert(posted(0, ids[0]) && posted(1, ids[3]) && posted(2, ids[4]));
}
END_TEST

START_TEST(test_posts_left_are_sent_after_restart)
{
    static const rcv_step slow[] = {{204, NULL, NULL, 800}};
    receiver *second = rcv_start(NULL, 0);
    char ids[3][64];
    notify_config cfg;
    test_campaign c;
    json_t *w;
    int i;

    start(slow, 1, backlog_of_two);
    nrig_campaign(ts, &c);
    nrig_combat(ts, &c, 2000, ids[0]);
    ck_assert_int_eq(rcv_wait(rcv, 1, 2000), 1);
    for (i = 1; i < 3; i++)
        nrig_combat(ts, &c, 500, ids[i]);
    /* Stopped with the first post under way: it ends, the others wait
     * in the database. */
    nrig_config(&cfg, rcv_port(second));
    nrig_restart(ts, &cfg);
    w = nrig_wait_settled(ts, &c, 3, 5000);
    check_counts(w, 3, 0);
    json_decref(w);
    ck_assert_int_eq(rcv_wait(rcv, 2, 0), 1);
    ck_assert_int_eq(rcv_wait(second, 2, 100), 2);
    rcv_stop(second);
}
END_TEST

START_TEST(test_webhook_removed)
{
    char id[64], path[160];
    test_campaign c;
    json_t *w;

    start(NULL, 0, NULL);
    nrig_campaign(ts, &c);
    snprintf(path, sizeof path, "/v1/campaigns/%s/webhook", c.id);
    ck_assert_ptr_null(ts_call(ts, 204, "DELETE", path, c.umpire, NULL));
    nrig_combat(ts, &c, 2000, id);
    w = nrig_webhook(ts, &c);
    ck_assert_ptr_null(w);
    usleep(200 * 1000);
    ck_assert_int_eq(rcv_wait(rcv, 1, 0), 0);
}
END_TEST

/* An action on the battle, asserting 200. */
static json_t *act(const test_campaign *c, const char *battle, const char *body)
{
    char path[200];

    snprintf(path, sizeof path, "/v1/campaigns/%s/battles/%s/actions", c->id,
             battle);
    return ts_call(ts, 200, "POST", path, c->umpire, "%s", body);
}

START_TEST(test_battle_posts_its_record)
{
    char path[160], battle[64];
    test_campaign c;
    json_t *j, *w;
    rcv_request q;

    start(NULL, 0, NULL);
    nrig_campaign(ts, &c);
    snprintf(path, sizeof path, "/v1/campaigns/%s/battles", c.id);
    j = ts_call(
        ts, 201, "POST", path, c.umpire,
        "{\"turn\":1,\"attacker\":{\"side\":\"red\",\"units\":[\"R2\"]},"
        "\"defender\":{\"side\":\"blue\",\"units\":[\"B2\"]},"
        "\"line\":[{\"attacker\":[\"R2\"],\"defender\":[\"B2\"]}]}");
    snprintf(battle, sizeof battle, "%s",
             json_string_value(json_object_get(j, "id")));
    json_decref(j);
    json_decref(act(&c, battle,
                    "{\"action\":\"roll\",\"combat\":0,\"expect_actions\":0}"));
    /* A battle under way posts nothing. */
    ck_assert_int_eq(rcv_wait(rcv, 1, 150), 0);
    j = act(&c, battle,
            "{\"action\":\"accept\",\"combat\":0,\"expect_actions\":1}");
    ck_assert_str_eq(json_string_value(json_object_get(j, "status")),
                     "finished");
    /* Its end does: the record, a combat of the campaign. */
    w = nrig_wait_settled(ts, &c, 1, 5000);
    check_counts(w, 1, 0);
    ck_assert_str_eq(sub(w, "last_delivery", "combat_id"),
                     json_string_value(json_object_get(j, "combat_id")));
    json_decref(w);
    json_decref(j);
    ck_assert_int_eq(rcv_wait(rcv, 1, 100), 1);
    rcv_get(rcv, 0, &q);
    ck_assert(strstr(q.body, "Matrix battle") != NULL);
    rcv_request_cleanup(&q);
}
END_TEST

Suite *suite_notify(void)
{
    Suite *s = suite_create("notify");
    TCase *tc = tcase_create("poster");

    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_delivered);
    tcase_add_test(tc, test_429_retry_after_header);
    tcase_add_test(tc, test_429_retry_after_body);
    tcase_add_test(tc, test_rate_limit_headers);
    tcase_add_test(tc, test_5xx_then_delivered);
    tcase_add_test(tc, test_5xx_gives_up);
    tcase_add_test(tc, test_4xx_fails_at_once);
    tcase_add_test(tc, test_receiver_down);
    tcase_add_test(tc, test_combat_lands_while_posting_fails);
    tcase_add_test(tc, test_backlog_drops_oldest);
    tcase_add_test(tc, test_posts_left_are_sent_after_restart);
    tcase_add_test(tc, test_webhook_removed);
    tcase_add_test(tc, test_battle_posts_its_record);
    suite_add_tcase(s, tc);
    return s;
}
